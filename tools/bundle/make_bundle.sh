#!/usr/bin/env bash
# Packs the sweep, scan_path, profile_cost, every test binary, the experiments, the plot
# scripts, the tools' scripts and the committed vs-cub run (for
# tools/ncu_time.sh --from) into a directory and a tarball for GPU hosts that
# have the NVIDIA driver and a CUDA runtime but no Bazel and no -dev packages.
# Usage: bazel run //tools/bundle -- [OUT_DIR]   (default: bundle-out/gpu-bundle)
set -euo pipefail
here=$(pwd) # the runfiles tree
out=${1:-bundle-out/gpu-bundle}
case "$out" in /*) ;; *) out="${BUILD_WORKING_DIRECTORY:-$here}/$out" ;; esac
rm -rf "$out"
mkdir -p "$out/bin" "$out/tests" "$out/lib" "$out/experiments" "$out/plots" "$out/tools"

ws=. # bazel run starts in the runfiles tree of this workspace
cp -L "$ws/harness/sweep" "$ws/plots/render" "$ws/tools/scan_path/scan_path" "$ws/tools/profile_cost/profile_cost" "$out/bin/"
# A GPU test's binary is NAME_bin (its test target is skipped on hosts without a GPU).
for t in $(cat "$ws/tools/bundle/tests.txt"); do
    src="$ws/tests/$t"
    [ -e "${src}_bin" ] && src="${src}_bin"
    cp -L "$src" "$out/tests/$t"
done
cp -L "$ws"/tools/bundle/run-tests "$out/"
cp -L "$ws"/tools/*.sh "$out/tools/"
cp -L "$ws"/experiments/*.ini "$out/experiments/" 2>/dev/null || true
cp -L "$ws"/plots/*.gp "$ws"/plots/*.sh "$out/plots/" 2>/dev/null || true
# The committed vs-cub run (its rows, run.json, summary): what tools/ncu_time.sh --from
# experiments/results/h200/vs-cub picks its configurations from.
vs=experiments/results/h200/vs-cub
mkdir -p "$out/$vs"
cp -L "$ws/$vs/results.csv.gz" "$ws/$vs/run.json" "$ws/$vs/summary.md" "$out/$vs/"
# cmocka ships only as a shared library in Debian: carry it.
for lib in $(ldd "$out"/tests/* 2>/dev/null | awk '/libcmocka/ {print $3}' | sort -u); do cp -L "$lib" "$out/lib/"; done
# The commit the bundle was built from: the sweep records it in run.json
# (bin/../SOURCE) where it runs outside a checkout.
src=${BUILD_WORKSPACE_DIRECTORY:-}
if [ -n "$src" ] && sha=$(git -C "$src" rev-parse HEAD 2>/dev/null); then
    dirty=0
    [ -n "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ] && dirty=1
    printf '%s\n%s\n' "$sha" "$dirty" >"$out/SOURCE"
fi
chmod -R u+w "$out"
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"
echo "bundle: $out ($(du -sh "$out" | cut -f1)) and $out.tar.gz"
