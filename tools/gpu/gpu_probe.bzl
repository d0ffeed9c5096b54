"""Repository rule @local_gpu: whether this host has an NVIDIA GPU, probed when
the repository is fetched (every Bazel server start: local = True).

It writes defs.bzl with HAS_GPU and PROBE (what was looked at, for messages).
tests/defs.bzl makes the GPU test targets incompatible where HAS_GPU is False,
so `bazel test //tests:all` reports them SKIPPED instead of passing them
without running. The probe looks for device nodes, not for a working driver:
a host with the nodes and a broken driver runs the tests, which then say why.
"""

def _device_nodes(rctx):
    found = []
    dev = rctx.path("/dev")
    if dev.exists:
        for p in dev.readdir():
            name = p.basename
            if name.startswith("nvidia") and name[len("nvidia"):].isdigit():
                found.append(str(p))
            elif name == "dxg":  # WSL 2 exposes the GPU through /dev/dxg
                found.append(str(p))
    gpus = rctx.path("/proc/driver/nvidia/gpus")
    if gpus.exists and gpus.readdir():
        found.append(str(gpus))
    return found

def _gpu_probe_impl(rctx):
    force = rctx.os.environ.get("GPU_TESTS", "")
    if force not in ["", "0", "1"]:
        fail("GPU_TESTS=%s: want 1 (run the GPU tests), 0 (skip them) or unset (probe)" % force)
    found = _device_nodes(rctx)
    if force:
        has_gpu = force == "1"
        probe = "GPU_TESTS=" + force
    else:
        has_gpu = len(found) > 0
        probe = ", ".join(found) if found else "no /dev/nvidia<N>, /dev/dxg or /proc/driver/nvidia/gpus/*"
    rctx.file("defs.bzl", "HAS_GPU = %r\nPROBE = %r\n" % (has_gpu, probe))
    rctx.file("BUILD", "exports_files([\"defs.bzl\"])\n")

gpu_probe = repository_rule(
    implementation = _gpu_probe_impl,
    environ = ["GPU_TESTS"],
    local = True,
)
