#!/usr/bin/env bash
# Builds the parser fuzz targets with clang (libFuzzer, AddressSanitizer,
# UndefinedBehaviorSanitizer) and runs each for SECONDS (default 30):
#   fuzz_experiment  experiment-file bytes -> experiment_parse_buffer -> plan_build
#   fuzz_cli         argv lines            -> cli_parse -> cli_apply -> plan_build
# usage: tools/fuzz/run.sh [SECONDS] [experiment|cli ...]
# Exit 0 when no target found anything; 1 on a crash (the input is kept as
# $FUZZ_WORK/crash-<target>-*, printed in hex, and reproduces with
# `$FUZZ_WORK/fuzz_<target> FILE`); 2 when it cannot build.
# FUZZ_WORK: build and working-corpus directory (default: a new one under
# ${TMPDIR:-/tmp}). The seed corpus in tools/fuzz/corpus is read, never written.
set -uo pipefail

seconds=${1:-30}
shift || true
targets=${*:-experiment cli}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC_FUZZ:-clang}

command -v "$cc" >/dev/null || { echo "fuzz: no $cc (tools/setup.sh installs clang)" >&2; exit 2; }
cuda=""
for c in "${CUDA_PATH:-}" "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x/x)")")" /usr/local/cuda; do
    [ -n "$c" ] && [ -e "$c/include/cuda_runtime_api.h" ] && { cuda=$c; break; }
done
[ -n "$cuda" ] || { echo "fuzz: no CUDA toolkit headers (\$CUDA_PATH, nvcc, /usr/local/cuda)" >&2; exit 2; }

work=${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")}
mkdir -p "$work"

# The parsers and what they call: no CUDA runtime, no device layer, no I/O
# beyond what the functions do themselves. kernels/registry.c is compiled
# against the stub variant list (stub/ comes first on the include path).
srcs=(harness/config/axes.c harness/config/axis_values.c harness/config/settings.c harness/config/experiment_file.c harness/config/plan.c harness/config/config_value.c results_io/label.c harness/config/plan_axes.c harness/config/plan_axes_table.c harness/config/plan_overrides.c harness/config/plan_estimate.c harness/config/plan_speed.c harness/config/plan_print.c harness/config/plan_fit.c harness/core/timing.c harness/reference/cpu_variant.c harness/config/cli.c harness/config/shard.c harness/core/files.c kernels/registry.c kernels/names.c)
[ -e "$root/cupti/metrics.c" ] && srcs+=(cupti/metrics.c cupti/msg.c results_io/closest.c)
flags=(-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -I"$here/stub" -I"$root" -I"$cuda/include")

status=0
for t in $targets; do
    bin=$work/fuzz_$t
    if ! (cd "$root" && "$cc" "${flags[@]}" "tools/fuzz/fuzz_$t.c" tools/fuzz/stub_variants.c "${srcs[@]}" \
            -o "$bin" -l:libinih.a -lm); then
        echo "fuzz: building fuzz_$t failed" >&2
        exit 2
    fi
    # The seeds are valid inputs: each must parse and plan.
    if ! FUZZ_EXPECT_VALID=1 "$bin" "$here/corpus/$t"/* >"$work/seeds_$t.log" 2>&1; then
        echo "fuzz: a seed in tools/fuzz/corpus/$t is rejected:" >&2
        grep -E "seed rejected|Running:" "$work/seeds_$t.log" | tail -2 >&2
        exit 2
    fi
    corpus=$work/corpus-$t
    mkdir -p "$corpus"
    cp "$here/corpus/$t"/* "$corpus/"
    dict=()
    [ -e "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
    log=$work/fuzz_$t.log
    start=$(date +%s)
    "$bin" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/crash-$t-" "$corpus" >"$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    if [ $rc -ne 0 ]; then
        status=1
        echo "fuzz_$t: FOUND A CRASH after ${took} s (exit $rc); log: $log"
        tail -40 "$log"
        for f in "$work"/crash-"$t"-* "$work"/timeout-"$t"-* "$work"/oom-"$t"-*; do
            [ -e "$f" ] || continue
            echo "input $f:"
            od -A d -c "$f" | head -40
        done
    else
        echo "fuzz_$t: ${execs:-?} executions in ${took} s, ${cov:-cov: ?} edges, no crash (log: $log)"
    fi
done
exit $status
