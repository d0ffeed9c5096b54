/* Programmatic dependent launch (sm_90): the one place a kernel is launched
 * so that its set-up overlaps the end of the kernel before it in the stream.
 *
 *   launch_dependent          - a launch with programmatic stream serialization
 *                               allowed: the grid may start once every block
 *                               of the kernel before it has triggered (or
 *                               exited), instead of after that kernel ends
 *   dependent_launch_wait     - every thread, before its first global access:
 *                               returns once the kernel before has finished
 *                               and its writes are visible (on older targets,
 *                               and without the attribute, it returns at once)
 *   dependent_launch_trigger  - this block lets the next kernel start
 *
 * Why: back to back, a kernel's launch and its blocks' start cost about a
 * microsecond or two that nothing else hides; at 2^10..2^22 elements that
 * is a large part of a call (FINDINGS, "Beyond CUB"). Correctness is the
 * same as an ordinary launch: nothing global is touched before the wait.
 * A persistent grid (every block resident at once) stays safe: a dependent's
 * blocks take only the slots the finished blocks free, and every block of
 * the earlier grid is resident before the last trigger.
 */
#ifndef KERNELS_DEPENDENT_LAUNCH_CUH
#define KERNELS_DEPENDENT_LAUNCH_CUH

#include <cuda_runtime.h>

#include "kernels/launch_attribute.cuh"

__device__ inline void dependent_launch_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ inline void dependent_launch_trigger()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* kernel<<<grid, block, smem, s>>>(args...), with the dependent-launch
 * attribute (C++: cudaLaunchKernelEx takes the kernel's own parameter types). */
template <typename... Params, typename... Args>
static cudaError_t launch_dependent(void (*kernel)(Params...), unsigned grid, unsigned block, size_t smem,
                                    cudaStream_t s, Args... args)
{
    cudaLaunchAttribute attr = {};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    return launch_with_attribute(kernel, grid, block, smem, s, attr, args...);
}

#endif
