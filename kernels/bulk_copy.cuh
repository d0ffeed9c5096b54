/* Bulk copies into shared memory (sm_90's TMA engine, 1-D: cp.async.bulk)
 * and the mbarriers that say when they have landed, and bulk stores back to
 * global memory: the one place these PTX instructions are written.
 *
 *   bulk_barrier_init  - an mbarrier that one arrival (the issuing thread's)
 *                        plus the copy's bytes complete
 *   bulk_load          - `bytes` (a multiple of 16, both addresses 16-byte
 *                        aligned) from global to shared, no registers, no
 *                        threads waiting on it; completes the barrier's phase
 *   bulk_wait          - every thread that reads the stage waits for the phase
 *   bulk_reuse_fence   - before the copy engine touches shared memory that
 *                        ordinary loads or stores used: a stage read by them
 *                        is refilled, or one written by them is bulk-stored
 *   bulk_store         - `bytes` (same rules) from shared to global, in the
 *                        thread's current bulk group
 *   bulk_store_commit  - closes that group
 *   bulk_store_wait_read<N> - waits until at most N groups still read their
 *                        shared source (the rest may still be writing global)
 *   bulk_store_wait_all - waits until every group has written global memory:
 *                        before the kernel exits
 *   bulk_ring_stages   - (host) how many stages a ring of shared memory holds
 *
 * Compiled for sm_90 and later only (BULK_COPY_AVAILABLE); callers keep a
 * path without it for older targets.
 */
#ifndef KERNELS_BULK_COPY_CUH
#define KERNELS_BULK_COPY_CUH

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define BULK_COPY_AVAILABLE 1
#else
#define BULK_COPY_AVAILABLE 0
#endif

__device__ inline unsigned shared_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

#if BULK_COPY_AVAILABLE
__device__ inline void bulk_barrier_init(unsigned long long *bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(shared_address(bar)) : "memory");
}

/* After the barriers are initialised, before any copy may arrive on them (the
 * copy engine is another proxy). */
__device__ inline void bulk_barrier_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Ordinary loads and stores and the copy engine are two proxies: a thread's
 * accesses to a stage reach the copy engine in order only through this fence,
 * issued after them by each thread that made them (then a __syncwarp or
 * barrier before the copy is issued). One instruction serves both ways: a
 * stage read into registers and now refilled, a stage written from registers
 * and now bulk-stored. */
__device__ inline void bulk_reuse_fence() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

__device__ inline void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(shared_address(bar))
                 : "memory");
}

/* Bulk stores: the copy engine reads shared memory and writes global memory
 * by itself. No barrier: the issuing thread tracks its stores in bulk groups
 * (each commit closes one) and waits on those. */
__device__ inline void bulk_store(void *gdst, const void *ssrc, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(gdst),
                 "r"(shared_address(ssrc)), "r"(bytes)
                 : "memory");
}

__device__ inline void bulk_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }

/* The shared source of all but the newest N groups may be written again. */
template <int N> __device__ inline void bulk_store_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* Every group's global writes done: a kernel that bulk-stores calls this
 * (the issuing threads) before it exits. */
__device__ inline void bulk_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

/* Phase `parity` (0, 1, 0, ... for the barrier's first, second, third use). */
__device__ inline void bulk_wait(unsigned long long *bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     " selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(shared_address(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}
#endif

/* Stages of `stage_bytes` that `ring_bytes` holds: at least `min_stages`
 * (two or more: one being read, one in flight), at most `max_stages`. */
static inline unsigned bulk_ring_stages(size_t ring_bytes, size_t stage_bytes, unsigned min_stages, unsigned max_stages)
{
    size_t s = ring_bytes / stage_bytes;
    return s < min_stages ? min_stages : s > max_stages ? max_stages : (unsigned)s;
}
#endif /* KERNELS_BULK_COPY_CUH */
