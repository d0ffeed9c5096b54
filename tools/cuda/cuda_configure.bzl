"""Repository rule that finds the CUDA toolkit on the host and exposes it as @local_cuda.

Search order: $CUDA_PATH, then the directory above `nvcc` on $PATH, then
/usr/local/cuda. The generated repository links the toolkit in and declares:
  :nvcc          the compiler driver (used by //tools/cuda:cuda.bzl)
  :headers       the runtime headers C code needs (cuda_runtime_api.h, ...)
  :cudart        the CUDA runtime, static (libcudart_static.a) by default
  :cudart_shared the CUDA runtime as a shared library
  :cupti         CUPTI (Range Profiler, Profiler Host API)
  :nvperf        the nvperf host and target libraries
  :nvtx3         the header-only NVTX3 API
"""

def _nvcc_top(rctx, nvcc):
    # nvcc on PATH may be a wrapper script (e.g. /usr/local/bin/nvcc that execs
    # the real one), so ask the driver where its toolkit is rather than trusting
    # the directory above it.
    res = rctx.execute([str(nvcc), "-dryrun", "-E", "-x", "cu", "/dev/null"])
    for line in (res.stdout + "\n" + res.stderr).splitlines():
        if line.startswith("#$ TOP="):
            return str(rctx.path(line[len("#$ TOP="):].strip()).realpath)
    return str(nvcc.realpath.dirname.dirname)

def _find_toolkit(rctx):
    tried = []
    env_path = rctx.os.environ.get("CUDA_PATH", "")
    if env_path:
        if rctx.path(env_path + "/bin/nvcc").exists:
            return env_path, tried
        tried.append("CUDA_PATH=%s (no bin/nvcc there)" % env_path)
    else:
        tried.append("CUDA_PATH (not set)")
    nvcc = rctx.which("nvcc")
    if nvcc:
        root = _nvcc_top(rctx, nvcc)
        if rctx.path(root + "/include/cuda_runtime_api.h").exists:
            return root, tried
        tried.append("nvcc on PATH at %s (no include/cuda_runtime_api.h under %s)" % (nvcc, root))
    else:
        tried.append("nvcc on PATH (not found)")
    if rctx.path("/usr/local/cuda/bin/nvcc").exists:
        return "/usr/local/cuda", tried
    tried.append("/usr/local/cuda (no bin/nvcc there)")
    return None, tried

def _lib_dir(rctx, root):
    for sub in ["lib64", "targets/x86_64-linux/lib", "lib"]:
        if rctx.path(root + "/" + sub + "/libcudart_static.a").exists:
            return sub
    fail("CUDA toolkit at %s has no libcudart_static.a under lib64/, targets/x86_64-linux/lib/ or lib/" % root)

def _cuda_configure_impl(rctx):
    root, tried = _find_toolkit(rctx)
    if root == None:
        fail("No CUDA toolkit found. Looked at: " + "; ".join(tried) +
             ". Install the CUDA toolkit or set CUDA_PATH to its root.")
    root = str(rctx.path(root).realpath)
    lib = _lib_dir(rctx, root)
    rctx.symlink(root + "/bin", "cuda/bin")
    rctx.symlink(root + "/include", "cuda/include")
    rctx.symlink(root + "/" + lib, "cuda/lib")
    rctx.file("cuda_path.bzl", "CUDA_PATH = %r\nCUDA_LIB = %r\n" % (root, root + "/" + lib))
    rctx.template("BUILD", rctx.attr._build_tpl, {
        "%{cuda_lib}": root + "/" + lib,
    })

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH", "PATH"],
    local = True,
    attrs = {
        "_build_tpl": attr.label(default = Label("//tools/cuda:local_cuda.BUILD.tpl")),
    },
)
