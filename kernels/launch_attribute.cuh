/* One launch with one launch attribute: where the cluster launch
 * (cluster.cuh, launch_cluster) and the dependent launch
 * (dependent_launch.cuh, launch_dependent) meet cudaLaunchKernelEx.
 *
 *   launch_with_attribute - kernel<<<grid, block, smem, s>>>(args...) with
 *                           `attr` (C++: cudaLaunchKernelEx takes the
 *                           kernel's own parameter types, hence the cast)
 */
#ifndef KERNELS_LAUNCH_ATTRIBUTE_CUH
#define KERNELS_LAUNCH_ATTRIBUTE_CUH

#include <cuda_runtime.h>

template <typename... Params, typename... Args>
static cudaError_t launch_with_attribute(void (*kernel)(Params...), unsigned grid, unsigned block, size_t smem,
                                         cudaStream_t s, cudaLaunchAttribute attr, Args... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, kernel, (Params)args...);
}

#endif /* KERNELS_LAUNCH_ATTRIBUTE_CUH */
