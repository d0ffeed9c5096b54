#!/usr/bin/env bash
# Installs what the project needs from Debian 12 (only what is missing) and
# checks the CUDA toolkit. Safe to run any number of times.
set -euo pipefail

packages=(
    bazel-bootstrap     # Bazel 4.2.3, builds offline
    bazel-rules-java    # @rules_java, needed by Bazel's own tools
    bazel-platforms     # @platforms
    gnuplot-nox         # plots (pngcairo and svg terminals)
    libcmocka-dev       # tests
    libinih-dev         # experiment files
    libjansson-dev      # run.json
    zlib1g-dev          # packed results (results.csv.gz), linked static
    libpng-dev          # plot tests: decode the PNG charts
    libexpat1-dev       # plot tests: check the SVG charts are well-formed XML
    clang               # libFuzzer targets for the parsers
    openmpi-bin         # mpirun: the --shard auto launcher test
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA toolkit, found the way the build finds it (tools/cuda/cuda_configure.bzl).
if [ -n "${CUDA_PATH:-}" ] && [ -x "$CUDA_PATH/bin/nvcc" ]; then
    nvcc="$CUDA_PATH/bin/nvcc"
elif command -v nvcc >/dev/null; then
    nvcc=$(command -v nvcc)
elif [ -x /usr/local/cuda/bin/nvcc ]; then
    nvcc=/usr/local/cuda/bin/nvcc
else
    echo "setup: no CUDA toolkit found (looked at \$CUDA_PATH, nvcc on PATH, /usr/local/cuda)." >&2
    echo "setup: install the CUDA toolkit (12.8 or later) or set CUDA_PATH to its root." >&2
    exit 1
fi
# nvcc on PATH may be a wrapper script (/usr/local/bin/nvcc exec'ing the real
# one), so ask the driver for its toolkit root instead of using the directory above it.
root=$("$nvcc" -dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n1)
if [ -n "$root" ] && [ -d "$root" ]; then
    root=$(readlink -f "$root")
else
    root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
fi
for f in include/cupti_range_profiler.h include/cupti_profiler_host.h include/nvtx3/nvToolsExt.h; do
    [ -e "$root/$f" ] || { echo "setup: the CUDA toolkit at $root lacks $f (CUPTI / NVTX3)" >&2; exit 1; }
done
echo "setup: ok ($("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/CUDA \1/p') at $root; $(bazel --version 2>/dev/null || echo bazel))"
