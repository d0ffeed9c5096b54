/* The configuration label, "reduce_one_launch f32 sum n=1024 block=256
 * vectors_in_flight=1 none": the NVTX range name, confirm.csv's config,
 * samples.csv's key. One formatter for the sweep's configurations
 * (harness/config/config_value.c) and for rows read from files
 * (results_io/row.c), so that the two cannot drift. */
#ifndef RESULTS_IO_LABEL_H
#define RESULTS_IO_LABEL_H

#include <stddef.h>

/* "name=value" for each of count own axes, sep between them ("" for none);
 * returns the length it needed (as snprintf). */
size_t results_axes_format(const char *const names[], const long values[], size_t count, const char *sep, char *buf,
                           size_t len);

/* The whole label; axes is results_axes_format's text with " " between, mode
 * the finish (reductions) or scan mode (scans). */
void results_label_format(char *buf, size_t len, const char *variant, const char *dtype, const char *op,
                          unsigned long long n, long block_dim, const char *axes, const char *mode);

#endif
