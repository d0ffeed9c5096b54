/* One launch with one launch attribute (a dependent launch, a cluster
 * dimension): kernel<<<grid, block, smem, s>>>(args...) through
 * cudaLaunchKernelEx, which takes the kernel's own parameter types (C++). */
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

#endif
