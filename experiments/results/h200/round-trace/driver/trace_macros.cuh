/* Trace points: thread 0's clock at events 0-5 of each round, the look-ahead
 * warp's lane 0 at event 6, thread 0's globaltimer at event 7; the round's
 * tile; per block at its end: globaltimer, SM, rounds, clock. */
#pragma once
#ifdef SLB_TRACE_OFF
#define SLB_MAXR 256
#define SLB_TR(i, ev)
#define SLB_TRL(i, ev)
#define SLB_TOP(i, t)
#define SLB_END()
#define SLB_START()
__device__ unsigned long long *slb_trace;
__device__ unsigned *slb_tile;
__device__ unsigned long long *slb_end;
#else
#define SLB_MAXR 256
__device__ unsigned long long *slb_trace;
__device__ unsigned *slb_tile;
__device__ unsigned long long *slb_end;
__device__ __forceinline__ unsigned long long slb_gt() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ __forceinline__ unsigned slb_smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
#define SLB_IDX(i, ev) (((size_t)blockIdx.x * SLB_MAXR + (unsigned)(i)) * 8 + (ev))
#define SLB_TR(i, ev) do { if ((ev) == 2) break; if (threadIdx.x == 0 && (i) >= 0 && (i) < SLB_MAXR) slb_trace[SLB_IDX(i, ev)] = clock64(); } while (0)
#define SLB_TRL(i, ev) do { if ((threadIdx.x & 31) == 0 && (i) >= 0 && (i) < SLB_MAXR) slb_trace[SLB_IDX(i, ev)] = clock64(); } while (0)
#define SLB_TOP(i, t) do { if (threadIdx.x == 0 && (i) >= 0 && (i) < SLB_MAXR) { slb_trace[SLB_IDX(i, 0)] = clock64(); slb_tile[(size_t)blockIdx.x * SLB_MAXR + (i)] = (t); } } while (0)
#define SLB_START() do { if (threadIdx.x == 0) { slb_end[blockIdx.x * 4 + 2] = slb_gt(); slb_trace[SLB_IDX(0, 7)] = clock64(); } } while (0)
#define SLB_END() do { if (threadIdx.x == 0) { slb_end[blockIdx.x * 4 + 0] = slb_gt(); slb_end[blockIdx.x * 4 + 1] = slb_smid(); slb_end[blockIdx.x * 4 + 3] = clock64(); } } while (0)
#endif
