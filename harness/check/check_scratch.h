/* The device memory validation may take beyond a configuration's own buffers
 * (input, output, workspace): the reference and the comparison's scratch.
 * The sweep counts it in every configuration's need (fit.h), so a
 * configuration that fits can always be validated; the validator keeps its
 * extra device memory within it whenever the whole reference does not fit. */
#ifndef HARNESS_CHECK_SCRATCH_H
#define HARNESS_CHECK_SCRATCH_H

#define CHECK_DEVICE_SCRATCH_BYTES ((size_t)1 << 30)

#endif
