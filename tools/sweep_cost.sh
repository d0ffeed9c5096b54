#!/usr/bin/env bash
# What the sweep's own phases cost on this GPU. One experiment (by default
# `default`) runs four ways, each complete, each in its own directory:
#   without its metrics (--no-cupti) and with them,
#   in the plan's two orders (--order variant, --order size).
# Then one table: each run's estimate (--dry-run, the same arguments), its wall
# time, its validation seconds and their share, its rows, and whether it
# completed. Under the table, for each order, the time with metrics over the
# time without: the profile phase's cost. The sweep asks at most 1.5x of
# the default experiment.
#
# A run cut short (a time limit, a lost machine) is resumed by the next call
# (--resume): its run.json says it did not complete. So four runs that do not
# fit one call's limit finish over several. A completed run is not run again.
#
# Usage, on the GPU host from the bundle directory (bin/sweep), or from a
# checkout after `bazel build //harness:sweep`:
#   tools/sweep_cost.sh [OUT_DIR] [sweep arguments...]   (default ./sweep-cost)
#   tools/sweep_cost.sh /tmp/cost --experiment default
# Environment (optional):
#   SWEEP=path/to/sweep   default: bin/sweep beside tools/, else bazel-bin/harness/sweep
#   ORDERS="variant size" the orders to run
# Exit status: 0 every run complete; 1 a run did not complete (run again to
# resume it); 2 the sweep cannot run at all.
set -uo pipefail

out=${1:-./sweep-cost}
shift $(($# > 0 ? 1 : 0))
args=("$@")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if [ -z "${SWEEP:-}" ]; then
    SWEEP=$root/bin/sweep
    [ -x "$SWEEP" ] || SWEEP=$root/bazel-bin/harness/sweep
fi
[ -x "$SWEEP" ] || { echo "sweep_cost: no sweep binary at $SWEEP (set SWEEP)" >&2; exit 2; }
read -r -a orders <<<"${ORDERS:-variant size}"
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$out" || exit 2

# A number from run.json (pretty-printed by the sweep: one key a line).
json_num() { # file key
    sed -n "s/^ *\"$2\": *\([-0-9.eE+]*\|true\|false\|null\),*$/\1/p" "$1" | head -1
}

# "estimated time: 1 h 02 min (..." or "6 min 19 s" or "8.5 s" -> seconds.
estimate_s() { # sweep arguments...
    "$SWEEP" "$@" --dry-run 2>/dev/null | sed -n 's/^estimated time: \([^(]*\) (.*/\1/p' | awk '{
        s = 0
        for (i = 1; i < NF; i += 2) {
            if ($(i + 1) == "h") s += $i * 3600
            else if ($(i + 1) == "min") s += $i * 60
            else s += $i
        }
        print s }'
}

status=0
rows=()
for order in "${orders[@]}"; do
    for metrics in without with; do
        name=$order-$metrics
        dir=$out/$name
        run=("${args[@]}" --order "$order" --quiet)
        [ "$metrics" = without ] && run+=(--no-cupti)
        est=$(estimate_s "${run[@]}")
        if [ "$(json_num "$dir/run.json" complete 2>/dev/null)" = true ]; then
            echo "sweep_cost: $name: complete already ($dir)" >&2
        else
            resume=()
            [ -f "$dir/run.json" ] && resume=(--resume)
            echo "sweep_cost: $name: $SWEEP ${run[*]} --out $dir ${resume[*]}" >&2
            "$SWEEP" "${run[@]}" --out "$dir" "${resume[@]}" >"$out/$name.log" 2>&1
            rc=$?
            if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
                echo "sweep_cost: $name: the sweep exited $rc (see $out/$name.log)" >&2
            fi
        fi
        rows+=("$name ${est:-?} $dir")
    done
done

printf '%-16s %10s %10s %10s %8s %7s %9s\n' run estimate_s wall_s validate_s share rows complete
declare -A wall
for r in "${rows[@]}"; do
    read -r name est dir <<<"$r"
    j=$dir/run.json
    w=$(json_num "$j" wall_time_s 2>/dev/null)
    v=$(json_num "$j" validate_s 2>/dev/null)
    n=$(json_num "$j" rows 2>/dev/null)
    c=$(json_num "$j" complete 2>/dev/null)
    [ "$c" = true ] || status=1
    share=$(awk -v v="${v:-}" -v w="${w:-}" 'BEGIN { if (w > 0 && v != "" && v != "null") printf "%.1f%%", 100 * v / w; else print "?" }')
    w1=$(awk -v x="${w:-}" 'BEGIN { if (x != "" && x != "null") printf "%.1f", x; else print "?" }')
    v1=$(awk -v x="${v:-}" 'BEGIN { if (x != "" && x != "null") printf "%.1f", x; else print "?" }')
    printf '%-16s %10s %10s %10s %8s %7s %9s\n' "$name" "$est" "$w1" "$v1" "$share" "${n:-?}" "${c:-?}"
    [ "$c" = true ] && wall[$name]=$w
done
for order in "${orders[@]}"; do
    a=${wall[$order-with]:-} b=${wall[$order-without]:-}
    if [ -n "$a" ] && [ -n "$b" ]; then
        awk -v o="$order" -v a="$a" -v b="$b" \
            'BEGIN { printf "order %s: with metrics / without = %.3f (%.1f s / %.1f s)\n", o, a / b, a, b }'
    else
        echo "order $order: with metrics / without = ? (a run is not complete: run again to resume it)"
    fi
done
exit $status
