"""cuda_library: compiles .cu files with nvcc into objects that C targets can link.

The objects are wrapped in a cc_library, so a cc_binary or cc_test written in C
depends on a cuda_library like on any other library (it carries CcInfo).
Target architectures come from the build setting //tools/cuda:archs
(comma-separated, default "sm_90"): machine code for each, plus PTX for the
highest so newer GPUs can JIT it.
"""

load("//tools:copts.bzl", "NVCC_COPTS")

CudaArchsInfo = provider(fields = ["archs"])

def _archs_impl(ctx):
    archs = [a.strip() for a in ctx.build_setting_value.split(",") if a.strip()]
    for a in archs:
        if not a.startswith("sm_") or not a[3:].isdigit():
            fail("//tools/cuda:archs: '%s' is not of the form sm_NN" % a)
    if not archs:
        fail("//tools/cuda:archs is empty")
    return [CudaArchsInfo(archs = archs)]

cuda_archs_setting = rule(
    implementation = _archs_impl,
    build_setting = config.string(flag = True),
)

def _gencode_flags(archs):
    flags = []
    best = 0
    for a in archs:
        num = a[3:]
        flags.append("-gencode=arch=compute_%s,code=sm_%s" % (num, num))
        if int(num) > best:
            best = int(num)
    flags.append("-gencode=arch=compute_%d,code=compute_%d" % (best, best))
    return flags

def _cuda_objects_impl(ctx):
    cc_infos = [d[CcInfo] for d in ctx.attr.deps if CcInfo in d]
    merged = cc_common.merge_cc_infos(cc_infos = cc_infos)
    cctx = merged.compilation_context
    archs = ctx.attr._archs[CudaArchsInfo].archs
    nvcc = ctx.file._nvcc

    inc_flags = ["-I."]
    if ctx.bin_dir.path:
        inc_flags.append("-I" + ctx.bin_dir.path)
    for d in cctx.includes.to_list():
        inc_flags.append("-I" + d)
    for d in cctx.quote_includes.to_list():
        inc_flags.append("-I" + d)
    for d in cctx.system_includes.to_list():
        inc_flags.append("-isystem=" + d)
    def_flags = ["-D" + d for d in cctx.defines.to_list()] + ["-D" + d for d in ctx.attr.defines]

    inputs = depset(ctx.files.hdrs, transitive = [cctx.headers])
    outs = []
    for src in ctx.files.srcs:
        out = ctx.actions.declare_file("_cuda_objs/%s/%s.pic.o" % (ctx.label.name, src.basename[:-len(".cu")]))
        args = ctx.actions.args()
        args.add_all([
            "-c",
            src.path,
            "-o",
            out.path,
            "-std=c++17",
            "-O3",
            "-lineinfo",
            "-Xcompiler=-fPIC",
            # Temporary files next to the object: nvcc's default temp names
            # collide between concurrent actions.
            "-objtemp",
            "--expt-relaxed-constexpr",
        ])
        args.add_all(_gencode_flags(archs))
        args.add_all(inc_flags)
        args.add_all(def_flags)
        args.add_all(NVCC_COPTS)
        args.add_all(ctx.attr.copts)
        ctx.actions.run(
            executable = nvcc,
            arguments = [args],
            inputs = depset([src], transitive = [inputs]),
            outputs = [out],
            mnemonic = "NvccCompile",
            progress_message = "nvcc %s" % src.short_path,
            use_default_shell_env = True,
            # nvcc reads the whole toolkit (its headers, cicc, ptxas), which is not
            # declared as inputs; run it outside the sandbox.
            execution_requirements = {"no-sandbox": "1"},
        )
        outs.append(out)
    return [DefaultInfo(files = depset(outs))]

cuda_objects = rule(
    implementation = _cuda_objects_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".cu"]),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "deps": attr.label_list(providers = [CcInfo]),
        "copts": attr.string_list(),
        "defines": attr.string_list(),
        "_nvcc": attr.label(default = "@local_cuda//:nvcc", allow_single_file = True),
        "_archs": attr.label(default = "//tools/cuda:archs"),
    },
)

def cuda_library(name, srcs, hdrs = [], deps = [], copts = [], defines = [], visibility = None, **kwargs):
    """A library of .cu files; depend on it from cc_* targets like any cc_library."""
    cuda_objects(
        name = name + "_objs",
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + ["@local_cuda//:headers"],
        copts = copts,
        defines = defines,
    )
    native.cc_library(
        name = name,
        srcs = [":" + name + "_objs"],
        hdrs = [h for h in hdrs if not h.endswith(".cuh")],
        deps = deps + ["@local_cuda//:cudart"],
        # The objects register their fatbinaries from static constructors and the
        # variant table reaches them only through pointers: keep every object.
        alwayslink = True,
        linkstatic = True,
        visibility = visibility,
        **kwargs
    )
