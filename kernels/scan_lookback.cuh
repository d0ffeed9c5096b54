/* Decoupled look-back (Merrill & Garland 2016): the tile status words and the
 * warp that reads them, shared by the single-pass scans.
 *
 *   tile_status<T>   - one status per tile: INVALID, AGGREGATE (the tile's own
 *                      total) or INCLUSIVE (everything up to and including it)
 *   lookback_warp    - warp 0 of a tile publishes its total, combines its
 *                      predecessors' values 32 x K at a time back to the
 *                      nearest INCLUSIVE one, publishes its own INCLUSIVE value
 *
 * Epochs. A status is valid only for the launch whose epoch it carries (30
 * bits beside the 2-bit status), so a launcher can leave last call's words in
 * place and bump the epoch instead of clearing them (scan_lookback_vectorized);
 * a launcher that clears every word on every call (scan_decoupled_lookback)
 * passes epoch 0. Status 0 is INVALID in any epoch, so zeroed words are always
 * invalid. A stale word is mistaken for a current one only if it was last
 * written exactly a multiple of 2^30 launches ago.
 *
 * Memory ordering:
 *   - 4-byte types: status (high 32 bits) and value (low 32 bits) share one
 *     64-bit word, written and read with single 64-bit relaxed atomics
 *     (cuda::atomic_ref, device scope); a reader can never see a status with a
 *     stale value, and nothing else needs ordering.
 *   - 8-byte types: a 32-bit status word per tile and separate aggregate and
 *     inclusive value slots. The writer stores the value, then the status with
 *     a release store; the reader loads the status with an acquire load, then
 *     the slot it names. Each slot is written once per launch, so once its
 *     status is seen its value is final (one shared slot could be read as
 *     AGGREGATE after it was overwritten with the inclusive value). Readers
 *     poll many statuses with relaxed loads, then take one acquire fence
 *     before they read the values (one round trip, not one per tile).
 */
#ifndef KERNELS_SCAN_LOOKBACK_CUH
#define KERNELS_SCAN_LOOKBACK_CUH

#include <cuda/atomic>
#include <string.h>

#include "kernels/warp.cuh"

enum { TILE_INVALID = 0, TILE_AGGREGATE = 1, TILE_INCLUSIVE = 2 };

#define TILE_EPOCH_MASK 0x3fffffffu

/* The 32-bit tag of `status` in `epoch`; and the status a tag stands for in `epoch`. */
__host__ __device__ inline unsigned tile_tag(unsigned status, unsigned epoch)
{
    return ((epoch & TILE_EPOCH_MASK) << 2) | status;
}
__device__ inline unsigned tile_status_of(unsigned tag, unsigned epoch)
{
    return (tag >> 2) == (epoch & TILE_EPOCH_MASK) ? (tag & 3u) : (unsigned)TILE_INVALID;
}

template <typename T, bool PACKED = sizeof(T) == 4> struct tile_status;

template <typename T> struct tile_status<T, true> {
    unsigned long long *words;
    unsigned epoch;

    __device__ void publish(unsigned tile, unsigned status, T v) const
    {
        unsigned bits;
        memcpy(&bits, &v, sizeof bits);
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
        w.store(((unsigned long long)tile_tag(status, epoch) << 32) | bits, cuda::memory_order_relaxed);
    }
    /* poll(): one relaxed 64-bit load gives status and value together, so
     * many can be in flight; fetch() has nothing left to do. */
    static const bool PACKED = true;
    __device__ unsigned poll(unsigned tile, T *v) const
    {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[tile]);
        unsigned long long x = w.load(cuda::memory_order_relaxed);
        unsigned bits = (unsigned)x;
        memcpy(v, &bits, sizeof bits);
        return tile_status_of((unsigned)(x >> 32), epoch);
    }
    __device__ void fetch(unsigned, unsigned, T *) const {}
};

template <typename T> struct tile_status<T, false> {
    unsigned *flags;
    T *aggregates, *inclusives;
    unsigned epoch;

    __device__ void publish(unsigned tile, unsigned status, T v) const
    {
        (status == TILE_AGGREGATE ? aggregates : inclusives)[tile] = v;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
        f.store(tile_tag(status, epoch), cuda::memory_order_release);
    }
    /* poll() loads the status alone (relaxed, so many can be in flight);
     * after an acquire fence, fetch() loads the value of the status poll() saw. */
    static const bool PACKED = false;
    __device__ unsigned poll(unsigned tile, T *) const
    {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[tile]);
        return tile_status_of(f.load(cuda::memory_order_relaxed), epoch);
    }
    __device__ void fetch(unsigned tile, unsigned status, T *v) const
    {
        *v = __ldcg((status == TILE_AGGREGATE ? aggregates : inclusives) + tile);
    }
};

/* AGGREGATE-only status words (the look-ahead publishes nothing else, once
 * per tile and launch): a 4-byte value beside its 32-bit tag in one 64-bit
 * word; an 8-byte value split into two such words, each half beside the same
 * tag. Every word is written and read with one relaxed 64-bit atomic, so no
 * type needs a fence or a second round trip (tile_status<f64> takes both);
 * a tile is valid once both halves carry this launch's tag. */
template <typename T> struct aggregate_words {
    static const unsigned WORDS = sizeof(T) / 4;
    static const bool PACKED = true;
    unsigned long long *words;
    unsigned epoch;

    __device__ void publish(unsigned tile, unsigned, T v) const
    {
        unsigned bits[WORDS];
        memcpy(bits, &v, sizeof v);
        unsigned long long tag = (unsigned long long)tile_tag(TILE_AGGREGATE, epoch) << 32;
#pragma unroll
        for (unsigned h = 0; h < WORDS; h++) {
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[(size_t)tile * WORDS + h]);
            w.store(tag | bits[h], cuda::memory_order_relaxed);
        }
    }
    __device__ unsigned poll(unsigned tile, T *v) const
    {
        unsigned bits[WORDS], st = TILE_AGGREGATE;
#pragma unroll
        for (unsigned h = 0; h < WORDS; h++) {
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(words[(size_t)tile * WORDS + h]);
            unsigned long long x = w.load(cuda::memory_order_relaxed);
            bits[h] = (unsigned)x;
            if (tile_status_of((unsigned)(x >> 32), epoch) != TILE_AGGREGATE) st = TILE_INVALID;
        }
        memcpy(v, bits, sizeof *v);
        return st;
    }
    __device__ void fetch(unsigned, unsigned, T *) const {}
};

/* Workspace header of the one-launch scans: one 64-bit word, the epoch (high
 * 32 bits) and the tile counter (low 32 bits), so that one relaxed atomic
 * draws a tile and reads the epoch together, with no fence on the way to the
 * tile's first load. */
#define LOOKBACK_HEADER sizeof(unsigned long long)

/* Thread 0 draws a tile and its launch's epoch. The launch's last draw (number
 * last_draw; every other draw precedes it in the word's order) puts the
 * counter back to 0 and advances the epoch for the next launch, so this
 * launch cannot see either. */
__device__ inline void draw_tile(unsigned long long *header, unsigned last_draw, unsigned *tile, unsigned *epoch)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> h(*header);
    unsigned long long x = h.fetch_add(1ull, cuda::memory_order_relaxed);
    unsigned t = (unsigned)x, e = (unsigned)(x >> 32);
    if (t == last_draw) h.store((unsigned long long)(e + 1u) << 32, cuda::memory_order_relaxed);
    *tile = t;
    *epoch = e;
}

/* Workspace layout, after a `header` of bytes the variant keeps for itself
 * (its tile counter): the status words (64-bit for 4-byte types, 32-bit
 * otherwise), then for 8-byte types the two value arrays, each piece
 * WORKSPACE_ALIGN-aligned. With ws NULL it only measures. */
typedef struct lookback_pieces {
    void *words, *aggregates, *inclusives;
    size_t status_end; /* what a launcher that clears the status words every call must zero */
    size_t size;
} lookback_pieces;

static inline lookback_pieces lookback_pieces_at(char *ws, size_t header, size_t tiles, size_t elem)
{
    workspace_layout w = {ws, 0};
    lookback_pieces p = {NULL, NULL, NULL, 0, 0};
    workspace_take(&w, header);
    p.words = workspace_take(&w, tiles * (elem == 4 ? sizeof(unsigned long long) : sizeof(unsigned)));
    p.status_end = w.size;
    if (elem != 4) {
        p.aggregates = workspace_take(&w, tiles * elem);
        p.inclusives = workspace_take(&w, tiles * elem);
    }
    p.size = w.size;
    return p;
}

/* The workspace's size; with `status_end`, also the end of the status words. */
static inline size_t lookback_layout(size_t header, size_t tiles, size_t elem, size_t *status_end)
{
    lookback_pieces p = lookback_pieces_at(NULL, header, tiles, elem);
    if (status_end) *status_end = p.status_end;
    return p.size;
}

/* A one-launch scan's workspace made ready (its variant's workspace_init):
 * the header (counter and epoch) and every status word to 0, status 0 being
 * INVALID in any epoch; the values after them need no clearing. */
static inline cudaError_t lookback_workspace_init(void *ws, size_t ws_bytes, size_t tiles, size_t elem,
                                                  cudaStream_t s)
{
    size_t status_end;
    size_t need = lookback_layout(LOOKBACK_HEADER, tiles, elem, &status_end);
    if (!ws || ws_bytes < need) return cudaErrorInvalidValue;
    return cudaMemsetAsync(ws, 0, status_end, s);
}

template <typename T>
static tile_status<T, true> lookback_status_at(char *ws, size_t header, size_t tiles, unsigned epoch,
                                               tile_status<T, true> *)
{
    lookback_pieces p = lookback_pieces_at(ws, header, tiles, sizeof(T));
    return tile_status<T, true>{(unsigned long long *)p.words, epoch};
}
template <typename T>
static tile_status<T, false> lookback_status_at(char *ws, size_t header, size_t tiles, unsigned epoch,
                                                tile_status<T, false> *)
{
    lookback_pieces p = lookback_pieces_at(ws, header, tiles, sizeof(T));
    return tile_status<T, false>{(unsigned *)p.words, (T *)p.aggregates, (T *)p.inclusives, epoch};
}

/* Run by the 32 lanes of one warp with the tile's total; returns the
 * combination of all earlier tiles (the identity for tile 0) to every lane and
 * publishes this tile.
 *
 * A window of 32 x K predecessors at a time, K per lane, polled with
 * independent relaxed loads (one L2 round trip per window): the nearest
 * INCLUSIVE tile in it ends the look-back, after the AGGREGATEs nearer than
 * it are folded in; a window without one is folded whole and the next one
 * read. Only tiles nearer than the nearest INCLUSIVE one seen are waited for.
 * K = 1 is the textbook window of 32. With hundreds of tiles in flight the
 * nearest INCLUSIVE tile can be far behind (a tile turns INCLUSIVE only after
 * its own look-back), and a wider window covers that distance in fewer round
 * trips. backoff_ns: sleep between two polls (0: spin). */
template <unsigned K, typename T, typename Op, typename Status>
__device__ inline T lookback_warp(const Status &status, unsigned tile, T total, unsigned backoff_ns = 0)
{
    const unsigned full = 0xffffffffu, lane = threadIdx.x & 31, none = 32 * K;
    const T id = Op::template identity<T>();
    if (tile == 0) {
        if (lane == 0) status.publish(0, TILE_INCLUSIVE, total);
        return id;
    }
    if (lane == 0) status.publish(tile, TILE_AGGREGATE, total);

    T exclusive = id;                        /* combination of the tiles already passed */
    long long nearest = (long long)tile - 1; /* the window's nearest tile: distance 0 */
    for (;;) {
        T v[K];
        unsigned st[K], d;
#pragma unroll
        for (unsigned k = 0; k < K; k++) { /* distance k * 32 + lane; before tile 0: an inclusive identity */
            long long pred = nearest - (long long)(k * 32 + lane);
            v[k] = id;
            st[k] = pred >= 0 ? status.poll((unsigned)pred, &v[k]) : (unsigned)TILE_INCLUSIVE;
        }
        for (;;) {
            unsigned mine = none, waiting = 0;
#pragma unroll
            for (unsigned k = 0; k < K; k++)
                if (st[k] == TILE_INCLUSIVE && k * 32 + lane < mine) mine = k * 32 + lane;
            d = __reduce_min_sync(full, mine); /* the nearest INCLUSIVE tile's distance */
#pragma unroll
            for (unsigned k = 0; k < K; k++) waiting |= st[k] == TILE_INVALID && k * 32 + lane < d;
            if (!__any_sync(full, waiting)) break;
            if (backoff_ns) __nanosleep(backoff_ns);
#pragma unroll
            for (unsigned k = 0; k < K; k++)
                if (st[k] == TILE_INVALID && k * 32 + lane < d)
                    st[k] = status.poll((unsigned)(nearest - (long long)(k * 32 + lane)), &v[k]);
        }
        if (!Status::PACKED) cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        T acc = id;
#pragma unroll
        for (unsigned k = 0; k < K; k++) {
            long long pred = nearest - (long long)(k * 32 + lane);
            if (k * 32 + lane > d) continue;
            if (!Status::PACKED && pred >= 0) status.fetch((unsigned)pred, st[k], &v[k]);
            acc = Op::apply(v[k], acc);
        }
        acc = warp_reduce_all<T, Op>(acc);
        exclusive = Op::apply(acc, exclusive);
        if (d < none) break;
        nearest -= none;
    }
    if (lane == 0) status.publish(tile, TILE_INCLUSIVE, Op::apply(exclusive, total));
    return exclusive;
}

/* Run by the 32 lanes of one warp: the combination of the AGGREGATEs of
 * tiles [from, to), to every lane, waiting for each to be published. 32 x K
 * tiles per L2 round trip (independent relaxed polls; the invalid ones polled
 * again together, backoff_ns apart). Lane l folds tiles from + l, from + l + 32, ... in order,
 * then the warp folds the lanes: the same order on every run. */
template <unsigned K, typename T, typename Op, typename Status>
__device__ inline T lookahead_fold(const Status &status, unsigned from, unsigned to, unsigned backoff_ns)
{
    const unsigned full = 0xffffffffu, lane = threadIdx.x & 31;
    const T id = Op::template identity<T>();
    T acc = id;
    for (unsigned base = from; base < to; base += 32 * K) {
        T v[K];
        unsigned st[K];
#pragma unroll
        for (unsigned k = 0; k < K; k++) {
            unsigned i = base + k * 32 + lane;
            v[k] = id;
            st[k] = i < to ? status.poll(i, &v[k]) : (unsigned)TILE_AGGREGATE;
        }
        for (;;) {
            unsigned waiting = 0;
#pragma unroll
            for (unsigned k = 0; k < K; k++) waiting |= st[k] == TILE_INVALID;
            if (!__any_sync(full, waiting)) break;
            if (backoff_ns) __nanosleep(backoff_ns);
#pragma unroll
            for (unsigned k = 0; k < K; k++)
                if (st[k] == TILE_INVALID) st[k] = status.poll(base + k * 32 + lane, &v[k]);
        }
        if (!Status::PACKED) {
            cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
#pragma unroll
            for (unsigned k = 0; k < K; k++)
                if (base + k * 32 + lane < to) status.fetch(base + k * 32 + lane, TILE_AGGREGATE, &v[k]);
        }
#pragma unroll
        for (unsigned k = 0; k < K; k++) acc = Op::apply(acc, v[k]);
    }
    return warp_reduce_all<T, Op>(acc);
}

#endif /* KERNELS_SCAN_LOOKBACK_CUH */
