/* Every scan variant x accepted block dim x coarse x inclusive/exclusive x
 * dtype x op x n in {1, 2, 31, block-1, block, block+1, 1000003, 2^24}, and
 * 2^27 for the multi-block and single-pass scans, validated element by element
 * against the CPU reference. Skips (exit 0) without a CUDA device. */
#include "tests/gpu_variants.h"

int main(void) { return gpu_variants_main(KIND_SCAN, (size_t)1 << 27, NULL); }
