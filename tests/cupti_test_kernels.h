/* A small workload for the profiler test: sums a float array read once from
 * DRAM (the L2 is flushed before each pass). C interface over CUDA. */
#ifndef TESTS_CUPTI_TEST_KERNELS_H
#define TESTS_CUPTI_TEST_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cupti_test_work cupti_test_work;

/* Input of `bytes` bytes of floats, all 1.0f; an output float; an L2-flush
 * buffer of twice the device's L2. NULL on a CUDA error (message on stderr). */
cupti_test_work *cupti_test_work_new(size_t bytes);
/* The restore step: zero the output and flush the L2 by writing the flush
 * buffer. 0 on success. (void * so it can be given to profiler_measure.) */
int cupti_test_work_restore(void *work);
/* The measured step: one kernel summing the input into the output. 0 on success. */
int cupti_test_work_run(void *work);
/* The output copied back (the input's element count when the run was right). */
double cupti_test_work_result(const cupti_test_work *work);
size_t cupti_test_work_elements(const cupti_test_work *work);
void cupti_test_work_free(cupti_test_work *work);

#ifdef __cplusplus
}
#endif

#endif
