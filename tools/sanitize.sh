#!/usr/bin/env bash
# compute-sanitizer over every registered variant: memcheck, racecheck,
# synccheck and initcheck, at a small power-of-two and a non-power-of-two size
# (f32 sum/max, block 256, first accepted coarse/finish/mode; GPU_TEST_FIRST_AXES=0: all), then a table of
# reported errors per variant and tool. Run on a GPU host, from the bundle:
#   tools/sanitize.sh [TESTS_DIR] [SIZES]     (default: tests, 2048,100003)
set -uo pipefail
tests=${1:-tests}
sizes=${2:-2048,100003}
# The bundle's own libraries (cmocka, ...) beside tests/, and libcupti from the toolkit.
tests_lib=$(cd "$tests/.." 2>/dev/null && pwd)/lib
export LD_LIBRARY_PATH="$tests_lib:${CUDA_PATH:+$CUDA_PATH/lib64:}/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=${SANITIZE_LOG_DIR:-sanitize-logs}
mkdir -p "$out"
export GPU_TEST_SIZES=$sizes GPU_TEST_BLOCK_DIMS=${GPU_TEST_BLOCK_DIMS:-256} GPU_TEST_DTYPES=${GPU_TEST_DTYPES:-f32}
# GPU_TEST_FIRST_AXES=0: every own-axis value (the cluster sizes of the cluster rungs), not the first
export GPU_TEST_OPS=${GPU_TEST_OPS:-sum,max} GPU_TEST_FIRST_AXES=${GPU_TEST_FIRST_AXES:-1}
tools_list=${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}
sanitizer=$(command -v compute-sanitizer || true)
for d in "${CUDA_PATH:-}/bin" /usr/local/cuda/bin /usr/local/cuda/compute-sanitizer; do
    [ -z "$sanitizer" ] && [ -x "$d/compute-sanitizer" ] && sanitizer="$d/compute-sanitizer"
done
[ -n "$sanitizer" ] || { echo "sanitize: compute-sanitizer not found (PATH, \$CUDA_PATH/bin, /usr/local/cuda/bin)" >&2; exit 2; }
status=0
# Variants whose warps hand shared data over through named barriers (bar.arrive / bar.sync).
arrive_handoff="scan_lookahead_bulk"
for tool in $tools_list; do
    for t in gpu_reduce_test gpu_scan_test; do
        extra=""
        [ "$tool" = racecheck ] && extra="--racecheck-report hazard"
        "$sanitizer" --tool "$tool" $extra --print-limit 50 --error-exitcode 99 "$tests/$t" \
            >"$out/$tool-$t.log" 2>&1
        rc=$?
        echo "$tool $t exit $rc" >>"$out/summary.txt"
        [ $rc -ne 0 ] && status=1
    done
done
# The table: variants from the test logs, errors attributed by kernel name
# (every kernel is named after its variant: <variant>_kernel...).
printf '%-34s' variant; for tool in $tools_list; do printf ' %-10s' "$tool"; done; echo
variants=$(grep -ho '^\[ RUN      \] [a-z0-9_]*' "$out"/memcheck-*.log "$out"/*.log 2>/dev/null | awk '{print $4}' | sort -u)
for v in $variants; do
    printf '%-34s' "$v"
    for tool in $tools_list; do
        n=0
        for log in "$out/$tool"-*.log; do
            [ -f "$log" ] || continue
            c=$(grep -E "^========= .*(Error|Hazard|error)" -A3 "$log" | grep -c "${v}_" || true)
            n=$((n + c))
            # the variant's test itself failed under the tool
            grep -q "^\[  FAILED  \] $v\$" "$log" && n=$((n + 1))
        done
        mark=""
        [ "$tool" = racecheck ] && [[ " $arrive_handoff " == *" $v "* ]] && mark="*" && [ $n -gt 0 ] && footnote=1
        if [ $n -eq 0 ]; then printf ' %-10s' clean; else printf ' %-10s' "$n$mark"; status=1; fi
    done
    echo
done
# racecheck does not take a bar.arrive as ordering the arriving thread's accesses before
# those after the matching bar.sync (the PTX memory model does): these variants hand data
# over so, and its reports on them are of that kind unless they name other lines.
[ -n "${footnote:-}" ] && echo "* hands data over through bar.arrive / bar.sync, which racecheck reports as hazards" \
    "(docs/reliability.md, \"racecheck and named barriers\"); read which lines its log names"
for tool in $tools_list; do
    total=$(grep -h "ERROR SUMMARY" "$out/$tool"-*.log 2>/dev/null | awk '{s += $4} END {print s + 0}')
    echo "$tool: ERROR SUMMARY total $total"
done
exit $status
