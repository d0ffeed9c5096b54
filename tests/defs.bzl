"""Test macros: every test is a statically linked cmocka test binary, so the
same binary runs under `bazel test` and from the portable bundle on a GPU host.

A GPU test (gpu = True) is split in three targets, because a target that is
incompatible with this host cannot be built here, and the bundle must carry
the binary from a host without a GPU:
  NAME_lib  the test's code (main included);
  NAME_bin  the binary the bundle carries (tools/bundle), always buildable;
  NAME      the cc_test, incompatible where @local_gpu found no GPU, so
            `bazel test //tests:all` reports it SKIPPED rather than PASSED.
A GPU test with a CPU part as well (cpu_part = True) takes `--part=cpu` or
`--part=gpu` (tests/test_parts.h): NAME runs the CPU part everywhere, NAME_gpu
the GPU part where there is a GPU; the bundle runs both (no argument)."""

load("@local_gpu//:defs.bzl", "HAS_GPU")
load("//tools:copts.bzl", "COPTS")

GPU_COMPATIBLE = [] if HAS_GPU else ["@platforms//:incompatible"]

def project_test(name, srcs, deps = [], gpu = False, cpu_part = False, size = "small", data = [], **kwargs):
    """A cmocka test. gpu = True marks a test that needs a CUDA device (see above);
    run where there is none (GPU_TESTS=1), it prints `SKIPPED: no CUDA device` and exits 0."""
    tags = kwargs.pop("tags", [])
    all_deps = deps + ["//tools/system:cmocka"]
    if not gpu:
        native.cc_test(
            name = name,
            srcs = srcs,
            deps = all_deps,
            linkstatic = True,
            size = size,
            data = data,
            tags = ["cpu"] + tags,
            copts = COPTS + kwargs.pop("copts", []),
            **kwargs
        )
        return
    # The code's attributes go to the library; the test's (env, timeout, ...) to the test targets.
    native.cc_library(
        name = name + "_lib",
        testonly = True,
        srcs = srcs,
        deps = all_deps,
        copts = COPTS + kwargs.pop("copts", []),
        alwayslink = True,
    )
    native.cc_binary(
        name = name + "_bin",
        testonly = True,
        deps = [name + "_lib"],
        linkstatic = True,
        data = data,
    )
    gpu_name = name + "_gpu" if cpu_part else name
    native.cc_test(
        name = gpu_name,
        deps = [name + "_lib"],
        linkstatic = True,
        size = size,
        data = data,
        args = ["--part=gpu"] if cpu_part else [],
        tags = ["gpu"] + tags,
        target_compatible_with = GPU_COMPATIBLE,
        **kwargs
    )
    if cpu_part:
        native.cc_test(
            name = name,
            deps = [name + "_lib"],
            linkstatic = True,
            size = "small",
            data = data,
            args = ["--part=cpu"],
            tags = ["cpu"] + tags,
            **kwargs
        )
