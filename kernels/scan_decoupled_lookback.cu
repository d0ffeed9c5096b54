/* scan_decoupled_lookback (Merrill & Garland 2016, "Single-pass Parallel Prefix
 * Scan with Decoupled Look-back"; not in the seeds)
 *
 * Demonstrates: a scan in one pass over the data, 2n elements of traffic, the
 * technique cub::DeviceScan uses. Each block takes the next tile (B x C
 * elements) and scans it as scan_coarsened does; between finding its tile's
 * total and writing its results it gets the prefix of all earlier tiles from
 * their status words instead of from a second kernel:
 *   - as soon as it knows its total it publishes it with status AGGREGATE
 *     (tile 0 publishes INCLUSIVE at once);
 *   - warp 0 then looks back over a window of 32 predecessors at a time (one
 *     per lane), waiting while any of them is still INVALID, and combines the
 *     values up to the nearest INCLUSIVE one; if the window holds no INCLUSIVE
 *     tile it moves 32 tiles further back;
 *   - it publishes INCLUSIVE = prefix + total, so later tiles stop there.
 * A tile waits only on tiles with smaller indices.
 *
 * Correctness, not luck:
 *   - Tile indices come from an atomic counter, not blockIdx.x: a block only
 *     ever waits for tiles that blocks already running have claimed, so it
 *     cannot wait on a block that is not yet resident (with blockIdx.x order a
 *     later block can be scheduled first and spin forever). The launcher resets
 *     the counter and every status word with cudaMemsetAsync on each call.
 *   - 4-byte types: status (high 32 bits) and value (low 32 bits) share one
 *     64-bit word, written and read with single 64-bit relaxed atomics
 *     (cuda::atomic_ref, device scope); a reader can never see a status with a
 *     stale value, and nothing else needs ordering.
 *   - f64: a 32-bit status flag per tile and separate aggregate and inclusive
 *     value slots. The writer stores the value, then the flag with a release
 *     store; the reader loads the flag with an acquire load, then the slot the
 *     flag names. Each slot is written once per launch, so once its flag is
 *     seen its value is final (one shared slot could be read as AGGREGATE
 *     after it was overwritten with the inclusive value).
 */
#include <cuda/atomic>
#include <string.h>

#include "kernels/scan_hierarchical.cuh"

enum { TILE_INVALID = 0, TILE_AGGREGATE = 1, TILE_INCLUSIVE = 2 };

template <typename T, bool PACKED = sizeof(T) == 4> struct tile_status;

template <typename T> struct tile_status<T, true> {
    unsigned long long *words;

    __device__ void publish(unsigned tile, unsigned status, T v) const
    {
        unsigned bits;
        memcpy(&bits, &v, sizeof bits);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
        w.store(((unsigned long long)status << 32) | bits, cuda::memory_order_relaxed);
    }
    __device__ unsigned read(unsigned tile, T *v) const
    {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
        unsigned long long x = w.load(cuda::memory_order_relaxed);
        unsigned bits = (unsigned)x;
        memcpy(v, &bits, sizeof bits);
        return (unsigned)(x >> 32);
    }
};

template <typename T> struct tile_status<T, false> {
    unsigned *flags;
    T *aggregates, *inclusives;

    __device__ void publish(unsigned tile, unsigned status, T v) const
    {
        (status == TILE_AGGREGATE ? aggregates : inclusives)[tile] = v;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
        f.store(status, cuda::memory_order_release);
    }
    __device__ unsigned read(unsigned tile, T *v) const
    {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
        unsigned status = f.load(cuda::memory_order_acquire);
        if (status == TILE_AGGREGATE) *v = aggregates[tile];
        else if (status == TILE_INCLUSIVE) *v = inclusives[tile];
        return status;
    }
};

/* Workspace: the tile counter, the status words (both reset every call), then
 * for f64 the two value arrays. Returns the total; *reset_bytes: the part the
 * launcher zeroes. */
static size_t lookback_layout(size_t tiles, size_t elem, size_t *reset_bytes)
{
    size_t word = elem == 4 ? sizeof(unsigned long long) : sizeof(unsigned);
    size_t end = SCAN_WORKSPACE_ALIGN + scan_align(tiles * word);
    *reset_bytes = end;
    if (elem != 4) end += 2 * scan_align(tiles * elem);
    return end;
}

template <typename T>
static tile_status<T, true> status_at(char *ws, size_t tiles, tile_status<T, true> *)
{
    (void)tiles;
    return tile_status<T, true>{(unsigned long long *)(ws + SCAN_WORKSPACE_ALIGN)};
}
template <typename T>
static tile_status<T, false> status_at(char *ws, size_t tiles, tile_status<T, false> *)
{
    char *flags = ws + SCAN_WORKSPACE_ALIGN;
    char *aggregates = flags + scan_align(tiles * sizeof(unsigned));
    char *inclusives = aggregates + scan_align(tiles * sizeof(T));
    return tile_status<T, false>{(unsigned *)flags, (T *)aggregates, (T *)inclusives};
}

/* Run by the 32 lanes of warp 0 with the tile's total; returns the combination
 * of all earlier tiles (the identity for tile 0) and publishes this tile. */
template <typename T, typename Op, typename Status>
__device__ inline T lookback_warp(const Status &status, unsigned tile, T total)
{
    const unsigned full = 0xffffffffu, lane = threadIdx.x & 31;
    const T id = Op::template identity<T>();
    if (tile == 0) {
        if (lane == 0) status.publish(0, TILE_INCLUSIVE, total);
        return id;
    }
    if (lane == 0) status.publish(tile, TILE_AGGREGATE, total);

    T exclusive = id;                          /* combination of the tiles already passed */
    long long nearest = (long long)tile - 1;   /* the window's nearest tile, read by lane 0 */
    for (;;) {
        long long pred = nearest - lane;
        unsigned st = TILE_INCLUSIVE; /* before tile 0: an inclusive identity */
        T v = id;
        do {
            if (pred >= 0) st = status.read((unsigned)pred, &v);
        } while (__any_sync(full, st == TILE_INVALID));

        unsigned inclusive = __ballot_sync(full, st == TILE_INCLUSIVE);
        unsigned last = inclusive ? __ffs(inclusive) - 1 : 31; /* farthest lane still needed */
        if (lane > last) v = id;
        /* Lane 0 gets lanes last .. 0 combined, earlier tiles on the left. */
        for (unsigned offset = 1; offset < 32; offset <<= 1) {
            T other = __shfl_down_sync(full, v, offset);
            if (lane + offset < 32) v = Op::apply(other, v);
        }
        exclusive = Op::apply(__shfl_sync(full, v, 0), exclusive);
        if (inclusive) break;
        nearest -= 32;
    }
    if (lane == 0) status.publish(tile, TILE_INCLUSIVE, Op::apply(exclusive, total));
    return exclusive;
}

/* The tile prefix as scan_tile_coarsened asks for it: warp 0 looks back, the
 * block gets the result through shared memory. */
template <typename T, typename Op, typename Status> struct lookback_prefix {
    Status status;
    unsigned tile;
    T *shared_prefix;
    __device__ T operator()(T total) const
    {
        if (threadIdx.x < 32) {
            T p = lookback_warp<T, Op>(status, tile, total);
            if (threadIdx.x == 0) *shared_prefix = p;
        }
        __syncthreads();
        return *shared_prefix;
    }
};

template <typename T, typename Op, unsigned C>
__global__ void __launch_bounds__(1024)
    scan_decoupled_lookback_kernel(const T *in, T *out, size_t n, int exclusive, tile_status<T> status, unsigned *tile_counter)
{
    __shared__ T warp_totals[32];
    __shared__ T prefix;
    __shared__ unsigned tile_index;
    if (threadIdx.x == 0) tile_index = atomicAdd(tile_counter, 1u);
    __syncthreads();
    unsigned tile = tile_index;
    lookback_prefix<T, Op, tile_status<T>> prefix_of{status, tile, &prefix};
    scan_tile_coarsened<T, Op, C>(in, out, n, (size_t)tile * blockDim.x * C, exclusive, shared_array<T>(), warp_totals,
                                  prefix_of);
}

static size_t tile_of(const kernel_args *a) { return (size_t)a->block_dim * a->coarse; }

static size_t workspace(const kernel_args *a)
{
    size_t reset;
    return lookback_layout(ceil_div(a->n, tile_of(a)), dtype_size(a->dtype), &reset);
}

template <typename T, typename Op, unsigned C> static cudaError_t launch_coarse(const kernel_args *a, cudaStream_t s)
{
    size_t tiles = ceil_div(a->n, tile_of(a)), reset;
    size_t need = lookback_layout(tiles, sizeof(T), &reset);
    if (!a->workspace || a->workspace_bytes < need) return cudaErrorInvalidValue;
    char *ws = (char *)a->workspace;
    RETURN_IF_ERROR(cudaMemsetAsync(ws, 0, reset, s));

    size_t smem = coarse_shape<C>::smem_elems(a->block_dim) * sizeof(T);
    RETURN_IF_ERROR(scan_smem_opt_in((const void *)scan_decoupled_lookback_kernel<T, Op, C>, smem));
    scan_decoupled_lookback_kernel<T, Op, C><<<(unsigned)tiles, a->block_dim, smem, s>>>(
        (const T *)a->in, (T *)a->out, a->n, a->scan_mode == SCAN_EXCLUSIVE,
        status_at<T>(ws, tiles, (tile_status<T> *)NULL), (unsigned *)ws);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

template <typename T, typename Op> static cudaError_t launch_typed(const kernel_args *a, cudaStream_t s)
{
    DISPATCH_COARSE(a->coarse, launch_coarse, T, Op, a, s);
}

static cudaError_t launch(const kernel_args *a, cudaStream_t s) { DISPATCH_DTYPE_OP(a, launch_typed, a, s); }
static double bytes(const kernel_args *a) { return 2.0 * a->n * dtype_size(a->dtype); }

extern "C" const variant scan_decoupled_lookback_variant = {
    .name = "scan_decoupled_lookback",
    .alias = "single_pass_scan",
    .family = "single_pass",
    .description = "single pass: coarsened tile scans, tile prefix by warp-wide decoupled look-back on status words",
    .kind = KIND_SCAN,
    .dtypes = DTYPES_ALL,
    .ops = OPS_ALL,
    .excluded_pairs = 0,
    .limits = "coarse factors 1, 2, 4, 8, 16 (compile-time instances of the coarsened tile)",
    .block_dims = BLOCKS_32_TO_1024,
    .coarse_factors = SCAN_COARSE_FACTORS,
    .finishes = 0,
    .scan_modes = SCAN_BOTH,
    .max_n = 0,
    .bytes_model = "2n elements (reads n, writes n); the tile status words (8-24 bytes per tile of B x C) and "
                   "the look-back's reads of them are not counted",
    .bytes_moved = bytes,
    .workspace_size = workspace,
    .launch = launch,
};
