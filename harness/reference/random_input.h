/* The checker's random input, element by element: splitmix64 of (mix(seed) +
 * index), a counter-based generator, so any element can be drawn on its own,
 * on the host (random_fill, the CPU reference regenerating a chunk) or on the
 * device (harness/check/check_device.cu), with bit-identical values: every
 * conversion below is exact (a 24- or 53-bit integer scaled by powers of two,
 * then 0.5 subtracted, fits its type), so no rounding mode or fused
 * multiply-add can change it. Floats uniform in [-0.5, 1.5) (both signs, a
 * positive mean so sums do not cancel to noise), i32 uniform in [-100, 300].
 * Plain C; under nvcc the functions are __host__ __device__. */
#ifndef HARNESS_RANDOM_INPUT_H
#define HARNESS_RANDOM_INPUT_H

#include <stdint.h>

#ifdef __CUDACC__
#define RANDOM_HD __host__ __device__
#else
#define RANDOM_HD
#endif

static inline RANDOM_HD uint64_t random_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Element i of the input drawn from seed: base = random_mix(seed), x = random_mix(base + i). */
static inline RANDOM_HD float random_f32(uint64_t x)
{
    return (float)((double)(x >> 40) * (1.0 / 16777216.0) * 2.0 - 0.5);
}

static inline RANDOM_HD double random_f64(uint64_t x)
{
    return (double)(x >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 0.5;
}

static inline RANDOM_HD int32_t random_i32(uint64_t x) { return (int32_t)(x % 401) - 100; }

#endif
