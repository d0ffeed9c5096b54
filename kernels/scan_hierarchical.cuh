/* The hierarchical (scan-then-propagate) driver: any block-level step of
 * scan_block.cuh becomes a scan of any n.
 *
 *   level 0:  scan every tile of the input into out, one block per tile, and
 *             write each tile's total;
 *   level 1+: scan those totals the same way, in place, while there is more
 *             than one tile (recursively: 2^31 elements in tiles of 32 take
 *             seven levels);
 *   add-back: from the top level down, combine the scanned total of tiles
 *             0..b-1 into every element of tile b.
 *
 * Exclusive scans shift the input by one at level 0 (scan_tile_load), so the
 * levels above see ordinary inclusive scans of tile totals.
 *
 * A block-step variant's launcher calls scan_recursive<T, Op, Step>(a, s);
 * its workspace and bytes functions scan_recursive_workspace() and
 * scan_recursive_bytes() with its tile.
 * Workspace: the tile totals of each level that has more than one tile, each
 * buffer WORKSPACE_ALIGN-aligned (n / tile + n / tile^2 + .. elements). */
#ifndef KERNELS_SCAN_HIERARCHICAL_CUH
#define KERNELS_SCAN_HIERARCHICAL_CUH

#include "kernels/scan_block.cuh"

#define SCAN_MAX_LEVELS 32

/* The levels for n elements in tiles of `tile`: level L scans count[L]
 * elements in tiles[L] tiles; when tiles[L] > 1 its totals go to the workspace
 * at byte offset offset[L]. */
typedef struct scan_plan {
    int levels;
    size_t count[SCAN_MAX_LEVELS], tiles[SCAN_MAX_LEVELS], offset[SCAN_MAX_LEVELS];
    size_t workspace; /* bytes */
} scan_plan;

static inline void scan_make_plan(size_t n, size_t tile, size_t elem, scan_plan *p)
{
    workspace_layout w = {NULL, 0};
    size_t count = n;
    int L = 0;
    for (;;) {
        size_t g = ceil_div(count, tile);
        p->count[L] = count;
        p->tiles[L] = g;
        p->offset[L] = w.size;
        if (g <= 1 || L + 1 == SCAN_MAX_LEVELS) break;
        workspace_take(&w, g * elem);
        count = g;
        L++;
    }
    p->levels = L + 1;
    p->workspace = w.size;
}

static inline size_t scan_recursive_workspace_for(size_t n, size_t tile, size_t elem)
{
    scan_plan p;
    scan_make_plan(n, tile, elem, &p);
    return p.workspace;
}

/* Elements moved by one hierarchical scan of `count` in tiles of `tile`: each
 * level reads and writes its elements and writes one total per tile; each
 * add-back reads and writes every element past the first tile and reads one
 * total per tile. */
static inline double scan_recursive_elems(size_t count, size_t tile)
{
    scan_plan p;
    scan_make_plan(count, tile, 1, &p);
    double total = 0;
    for (int L = 0; L < p.levels; L++) {
        size_t c = p.count[L], g = p.tiles[L];
        total += 2.0 * c;
        if (g > 1) total += g + 2.0 * (c - tile) + (g - 1);
    }
    return total;
}

/* A block-step variant's workspace and bytes for tiles of `tile` elements. */
static inline size_t scan_recursive_workspace(const kernel_args *a, size_t tile)
{
    return scan_recursive_workspace_for(a->n, tile, dtype_size(a->dtype));
}
static inline double scan_recursive_bytes(const kernel_args *a, size_t tile)
{
    return scan_recursive_elems(a->n, tile) * (double)dtype_size(a->dtype);
}

/* ---- kernels -------------------------------------------------------------- */

/* Scans tiles_per_block consecutive tiles of src into dst (in place allowed:
 * a block reads its tile before it writes it), carrying the running total from
 * one tile to the next, and writes the block's total to totals[blockIdx.x]
 * (when totals is not NULL). The hierarchical levels use one tile per block;
 * scan_hierarchical's middle kernel uses one block for all tiles. */
template <typename T, typename Op, typename Step>
__global__ void __launch_bounds__(1024)
    scan_tiles_kernel(const T *src, T *dst, T *totals, size_t count, int shifted, unsigned tiles_per_block)
{
    __shared__ T warp_totals[32];
    T *s = shared_array<T>();
    unsigned tile = Step::tile(blockDim.x);
    T carry = Op::template identity<T>();
    for (unsigned k = 0; k < tiles_per_block; k++) {
        size_t start = ((size_t)blockIdx.x * tiles_per_block + k) * tile;
        if (start >= count) break; /* the same for the whole block */
        scan_tile_load<T, Op, Step>(s, src, start, count, shifted);
        __syncthreads();
        const T *r = Step::template scan<T, Op>(s, warp_totals);
        for (unsigned i = threadIdx.x; i < tile && start + i < count; i += blockDim.x) {
            T v = r[Step::slot(i)];
            dst[start + i] = k ? Op::apply(carry, v) : v;
        }
        T tile_total = r[Step::slot(tile - 1)];
        carry = k ? Op::apply(carry, tile_total) : tile_total;
        __syncthreads(); /* every read of this tile before the next tile's load */
    }
    if (totals && threadIdx.x == 0) totals[blockIdx.x] = carry;
}

/* Tile b (b >= 1) of data gets the scanned total of tiles 0..b-1 in front.
 * Step only names the variant in the kernel's name. */
template <typename T, typename Op, typename Step>
__global__ void scan_add_back_kernel(T *data, const T *scanned_totals, size_t count, unsigned tile)
{
    size_t b = (size_t)blockIdx.x + 1;
    T c = scanned_totals[b - 1];
    size_t end = b * tile + tile < count ? b * tile + tile : count;
    for (size_t i = b * tile + threadIdx.x; i < end; i += blockDim.x) data[i] = Op::apply(c, data[i]);
}

/* ---- host side ------------------------------------------------------------ */

template <typename T, typename Op, typename Step> static cudaError_t scan_tiles_prepare(unsigned block_dim)
{
    return smem_opt_in((const void *)scan_tiles_kernel<T, Op, Step>, Step::smem_elems(block_dim) * sizeof(T));
}

template <typename T, typename Op, typename Step>
static cudaError_t scan_tiles_launch(const T *src, T *dst, T *totals, size_t count, int shifted, unsigned grid,
                                     unsigned block_dim, unsigned tiles_per_block, cudaStream_t s)
{
    size_t smem = Step::smem_elems(block_dim) * sizeof(T);
    scan_tiles_kernel<T, Op, Step><<<grid, block_dim, smem, s>>>(src, dst, totals, count, shifted, tiles_per_block);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

template <typename T, typename Op, typename Step>
static cudaError_t scan_add_back(T *data, const T *scanned_totals, size_t count, size_t tiles, unsigned tile,
                                 unsigned block_dim, cudaStream_t s)
{
    if (tiles <= 1) return cudaSuccess;
    scan_add_back_kernel<T, Op, Step><<<(unsigned)(tiles - 1), block_dim, 0, s>>>(data, scanned_totals, count, tile);
    RETURN_IF_LAUNCH_FAILED();
    return cudaSuccess;
}

/* Scan `count` elements of src into dst (may be the same buffer), in tiles of
 * Step at block_dim threads; `shifted` makes it exclusive. The workspace holds
 * the totals of every level (scan_recursive_workspace_for bytes). */
template <typename T, typename Op, typename Step>
static cudaError_t scan_recursive_run(const T *src, T *dst, size_t count, int shifted, unsigned block_dim,
                                      void *workspace, size_t workspace_bytes, cudaStream_t s)
{
    unsigned tile = Step::tile(block_dim);
    scan_plan p;
    scan_make_plan(count, tile, sizeof(T), &p);
    if (p.tiles[p.levels - 1] > 1) return cudaErrorInvalidValue; /* more levels than SCAN_MAX_LEVELS */
    if (workspace_bytes < p.workspace || (p.workspace && !workspace)) return cudaErrorInvalidValue;
    RETURN_IF_ERROR((scan_tiles_prepare<T, Op, Step>(block_dim)));

    T *level_totals[SCAN_MAX_LEVELS];
    for (int L = 0; L < p.levels; L++)
        level_totals[L] = p.tiles[L] > 1 ? (T *)((char *)workspace + p.offset[L]) : NULL;

    /* Up: level L scans level L-1's totals in place (level 0: src into dst). */
    for (int L = 0; L < p.levels; L++) {
        const T *in = L ? level_totals[L - 1] : src;
        T *out = L ? level_totals[L - 1] : dst;
        RETURN_IF_ERROR((scan_tiles_launch<T, Op, Step>(in, out, level_totals[L], p.count[L], L ? 0 : shifted,
                                                        (unsigned)p.tiles[L], block_dim, 1, s)));
    }
    /* Down: level L's totals, now scanned, go back into level L's tiles. */
    for (int L = p.levels - 2; L >= 0; L--) {
        T *data = L ? level_totals[L - 1] : dst;
        RETURN_IF_ERROR((scan_add_back<T, Op, Step>(data, level_totals[L], p.count[L], p.tiles[L], tile, block_dim, s)));
    }
    return cudaSuccess;
}

template <typename T, typename Op, typename Step>
static cudaError_t scan_recursive(const kernel_args *a, cudaStream_t s)
{
    return scan_recursive_run<T, Op, Step>((const T *)a->in, (T *)a->out, a->n, a->scan_mode == SCAN_EXCLUSIVE,
                                           a->block_dim, a->workspace, a->workspace_bytes, s);
}

#endif /* KERNELS_SCAN_HIERARCHICAL_CUH */
