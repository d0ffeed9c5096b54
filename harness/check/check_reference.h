/* The checker's host side: the random input drawn on the host, and the CPU
 * reference computed chunk by chunk without the whole input or output in
 * memory. Each chunk of REF_CHUNK elements is regenerated from (seed,
 * index) when needed; folding every chunk once gives the state before each
 * chunk (its carry), from which any range of the scan's reference is then
 * computed on all cores. Host memory: the carries (40 bytes per chunk) and
 * a chunk's scratch per thread, whatever n. */
#ifndef HARNESS_CHECK_REFERENCE_H
#define HARNESS_CHECK_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "harness/reference/reference.h"
#include "kernels/variant.h"

#define REF_CHUNK ((size_t)1 << 16)

/* Elements [begin, end) of the input drawn from seed, into dst[0 .. end-begin). */
void random_fill_range(void *dst, size_t begin, size_t end, dtype_t d, uint64_t seed);

/* One input's chunk carries: what a reference for (seed, d, op, n) needs. */
typedef struct ref_chunks {
    uint64_t seed;
    dtype_t d;
    op_t op;
    size_t n;
    size_t count;     /* chunks: ceil(n / REF_CHUNK) */
    ref_carry *carry; /* carry[k]: the fold's state before chunk k */
    ref_carry total;  /* the fold of all n elements: a reduction's reference */
} ref_chunks;

/* Fold every chunk (in parallel) and combine the states in order. 0, or -1
 * when out of host memory. */
int ref_chunks_build(ref_chunks *rc, uint64_t seed, dtype_t d, op_t op, size_t n);
void ref_chunks_free(ref_chunks *rc);

/* The scan's reference for elements [begin, end) (begin a multiple of
 * REF_CHUNK), in the layout the device comparison reads: val[i - begin] the
 * expected value (for i32 the wrapped 32-bit result, exact in a double),
 * abs[i - begin] the magnitude sum of the terms of prefix i. Computed on all
 * cores. 0, or -1 when out of host memory. */
int ref_chunks_scan(const ref_chunks *rc, scan_mode_t mode, size_t begin, size_t end, double *val, double *abs);

/* Element i's reference as validate_element takes it (one chunk's work). */
int ref_chunks_element(const ref_chunks *rc, scan_mode_t mode, size_t i, ref_value *ref, double *abs);

/* Run fn over `parts` equal ranges of [0, n), one thread each (at most
 * check_threads(n)); chunk boundaries never change a result. */
size_t check_threads(size_t n);
void parallel_chunks(size_t n, size_t parts, void (*fn)(void *ctx, size_t part, size_t begin, size_t end), void *ctx);

#endif
