"""Test macros: every test is a statically linked cmocka cc_test, so the same
binary runs under `bazel test` and from the portable bundle on a GPU host."""

def project_test(name, srcs, deps = [], gpu = False, size = "small", data = [], **kwargs):
    """A cmocka test. gpu = True marks a test that needs a CUDA device: it prints
    `SKIPPED: no CUDA device` and exits 0 where there is none."""
    native.cc_test(
        name = name,
        srcs = srcs,
        deps = deps + ["//tools/system:cmocka"],
        linkstatic = True,
        size = size,
        data = data,
        tags = (["gpu"] if gpu else ["cpu"]) + kwargs.pop("tags", []),
        **kwargs
    )
