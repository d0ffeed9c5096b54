"""The warning options of the project's own C, C++ and CUDA, in one place.

Every cc_library, cc_binary and cc_test of the project takes COPTS (the tests
through project_test in tests/defs.bzl), and every cuda_library takes
NVCC_COPTS (tools/cuda/cuda.bzl): a warning anywhere fails the build.
"""

# -Wall as the host compiler reports it; any warning is an error.
COPTS = [
    "-Wall",
    "-Werror",
]

# nvcc's own warnings as errors, and the host compiler's on the .cu files'
# host code as for C.
NVCC_COPTS = [
    "-Werror",
    "all-warnings",
    "-Xcompiler=-Wall,-Werror",
]
