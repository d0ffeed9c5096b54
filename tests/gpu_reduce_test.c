/* Every reduction variant x accepted block dim x coarse x finish x dtype x op
 * x n in {1, 2, 31, block-1, block, block+1, 1000003, 2^24}, validated against
 * the CPU reference. Skips (exit 0) without a CUDA device. */
#include "tests/gpu_variants.h"

int main(void) { return gpu_variants_main(KIND_REDUCE, 0, NULL); }
