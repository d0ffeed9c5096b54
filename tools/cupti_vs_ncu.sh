#!/usr/bin/env bash
# The sweep's in-process CUPTI metrics against Nsight Compute, on the same
# configurations: reduce0/1/2 (reduce_interleaved_divergent, _strided,
# reduce_sequential_addressing), reduce_warp_shuffle and
# scan_decoupled_lookback at n = 2^22 and 2^26, f32 sum, 256 threads.
#
#   (a) one sweep with the in-process profiler and raw CUPTI metric names
#       (harness/results.csv: one column per metric);
#   (b) per configuration, the same sweep of that one configuration under
#       `ncu --replay-mode range --nvtx --nvtx-include "sweep@profile/"
#       --clock-control none --cache-control all --metrics <same names>`:
#       ncu takes the counters, so the sweep's own profiler reports itself
#       unavailable and launches the configuration exactly once inside its
#       "profile" NVTX range (the L2 flushed just before, outside the range);
#       range replay makes the whole launcher, every kernel of it, one result;
#   (c) ncu's own DRAM writes: ncu on a kernel that stores nothing (the
#       sweep's L2 flush read, 2x L2 of clean scratch), REPEAT times.
#       Whatever it reports as written are lines ncu dirtied after its own
#       cache flush; a range that reads at least as much (n = 2^26 here)
#       evicts them too and counts them among its DRAM writes. The harness
#       writes its profiler's lines back before the range (cupti/profiler.h);
#   (d) a side-by-side table: variant, n, metric, harness, ncu, difference,
#       within tolerance (counts 1 %, DRAM bytes 2 %, ratios and percentages
#       0.5 absolute), each side's range over the repeats, and how the row
#       agreed; for DRAM writes of a range that reads at least what (c)
#       read, also ncu's value less its write-back in (c), and whether the
#       harness agrees with that;
#   (e) whether the sweep under ncu printed its "profiler unavailable" warning.
# Steps (a), (b) and (c) run REPEAT times (default 5). Shared-memory bank
# conflicts outside the structural ones, DRAM writes of a few MB and the
# achieved occupancy change from run to run of the same kernel, under ncu
# and in the harness alike. The overlap rule: a row agrees "by tolerance"
# when the first runs' values are within tolerance; else "by overlapping
# ranges" when the harness's range over its repeats [min, max] and ncu's
# range over its repeats overlap (each side's own run-to-run movement covers
# the difference); else, for DRAM writes, "by own writes" when the harness
# agrees by either rule with ncu's value less ncu's own write-back; else the
# ranges are apart and the row is a mismatch.
#
# Usage, on the GPU host, from the bundle directory (bin/sweep, tools/):
#   tools/cupti_vs_ncu.sh [OUT_DIR]          (default ./cupti-vs-ncu)
#   tools/cupti_vs_ncu.sh -h | --help        this text
# Environment (all optional):
#   SWEEP=path/to/sweep      default: bin/sweep beside this script's tools/
#   NCU=path/to/ncu          default: ncu on PATH, else /usr/local/cuda/bin/ncu
#   VARIANTS="a b"  SIZES="4194304 67108864"   narrow the comparison
#   BYTES_FLOOR=65536        DRAM byte differences up to this many bytes pass
#                            (values near zero: 2 % of almost nothing is noise)
#   REPEAT=5                 runs of each side (1: ranges are single values)
# Exit status: 0 every row agreed (by tolerance, by overlapping ranges, or
# for DRAM writes by either against ncu's value less its own write-back) and
# the warning seen under ncu; 1 otherwise (a row whose ranges are apart);
# 2 when the sweep or ncu cannot run at all, or bad usage (one line naming it;
# nothing written).
set -uo pipefail

usage() { sed -n '/^# Usage,/,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in
-h | --help) usage; exit 0 ;;
-*) echo "cupti_vs_ncu: unknown option $1 (--help)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "cupti_vs_ncu: one OUT_DIR at most, got $# arguments (--help)" >&2; exit 2; }
out=${1:-./cupti-vs-ncu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
SWEEP=${SWEEP:-$root/bin/sweep}
if [ -z "${NCU:-}" ]; then
    if command -v ncu >/dev/null 2>&1; then NCU=$(command -v ncu)
    elif [ -x /usr/local/cuda/bin/ncu ]; then NCU=/usr/local/cuda/bin/ncu
    else NCU=ncu; fi
fi
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

read -r -a VARIANTS <<<"${VARIANTS:-reduce_interleaved_divergent reduce_interleaved_strided reduce_sequential_addressing reduce_warp_shuffle scan_decoupled_lookback}"
read -r -a SIZES <<<"${SIZES:-4194304 67108864}"
BYTES_FLOOR=${BYTES_FLOOR:-65536}
REPEAT=${REPEAT:-5}
METRICS=smsp__inst_executed.sum
METRICS+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
METRICS+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
METRICS+=,dram__bytes_read.sum,dram__bytes_write.sum
METRICS+=,smsp__thread_inst_executed_per_inst_executed.ratio
METRICS+=,smsp__thread_inst_executed_pred_on_per_inst_executed.ratio
METRICS+=,sm__warps_active.avg.pct_of_peak_sustained_active
METRICS+=,lts__t_sector_hit_rate.pct
WARNING="sweep: profiler unavailable: another profiler (ncu/nsys) is attached; metric columns left empty"
# The same configuration axes in both runs; short timing (the metrics are the point), every one validated.
COMMON=(--dtype f32 --op sum --block-dims 256 --coarse 1 --finish first --scan-mode inclusive
        --min-samples 3 --max-samples 20 --timeout 50ms --validate all --metrics "$METRICS" --force --quiet)

join() { local IFS=,; echo "$*"; }
. "$here/shell_quote.sh" # quote
now() { date +%s; }

mkdir -p "$out/ncu" || exit 2
out=$(cd "$out" && pwd)
commands=$out/commands.txt
: >"$commands"
t0=$(now)

if [ ! -x "$SWEEP" ]; then
    echo "cupti_vs_ncu: no sweep binary at $SWEEP (run from the bundle directory, or set SWEEP)" >&2
    exit 2
fi
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(hostname)"
    echo "sweep: $SWEEP"
    echo "ncu: $NCU ($("$NCU" --version 2>/dev/null | tail -1))"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null |
        sed 's/^/gpu: /'
} >"$out/env.txt"
cat "$out/env.txt"

# ---- (a) the in-process profiler ----------------------------------------------------------
echo
echo "== (a) the sweep with the in-process CUPTI profiler"
size_list=$(join "${SIZES[@]}")
cmd=("$SWEEP" --variants "$(join "${VARIANTS[@]}")" --sizes "$size_list" "${COMMON[@]}" --out "$out/harness")
quote "${cmd[@]}" | tee -a "$commands"
"${cmd[@]}" >"$out/harness.stdout" 2>"$out/harness.stderr"
rc=$?
cat "$out/harness.stderr"
if [ ! -f "$out/harness/results.csv" ]; then
    echo "cupti_vs_ncu: the sweep wrote no results.csv (exit $rc)" >&2
    exit 2
fi
harness_status=$(sed -n 's/.*"profiler_status": *"\([^"]*\)".*/\1/p' "$out/harness/run.json" | head -1)
echo "profiler_status: $harness_status"
case $harness_status in
ok:*) ;;
*) echo "cupti_vs_ncu: the in-process profiler did not measure (its columns are empty): $harness_status" >&2 ;;
esac
echo "(exit $rc, $(($(now) - t0)) s so far)"
for ((rep = 2; rep <= REPEAT; rep++)); do
    cmd=("$SWEEP" --variants "$(join "${VARIANTS[@]}")" --sizes "$size_list" "${COMMON[@]}" --out "$out/harness-r$rep")
    quote "${cmd[@]}" | tee -a "$commands"
    "${cmd[@]}" >"$out/harness-r$rep.stdout" 2>"$out/harness-r$rep.stderr"
    echo "(repeat $rep: exit $?, $(($(now) - t0)) s so far)"
done

# The configurations to compare, from the harness's rows: variant, n, NVTX label.
# CSV fields (quoted fields with "" escapes; no newlines inside fields), for POSIX awk.
CSV_AWK=$(cat <<'AWK'
function csvsplit(line, f,    n, i, c, field, inq) {
    n = 0; field = ""; inq = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (inq) {
            if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ } else inq = 0 }
            else field = field c
        } else if (c == "\"") inq = 1
        else if (c == ",") { f[++n] = field; field = "" }
        else field = field c
    }
    f[++n] = field
    return n
}
AWK
)
configs_awk=$(cat <<'AWK'
# The own axes as the sweep that wrote the row labels them (config_label): schema 5's axes
# cell by name (items_per_thread=4; a=2;b=4 -> "a=2 b=4"; none where empty), else coarse=.
function own_axes(f,   v) {
    if (!("axes" in col)) return " coarse=" f[col["coarse"]]
    v = f[col["axes"]]; gsub(/;/, " ", v)
    return v == "" ? "" : " " v
}
{ sub(/\r$/, "") }
NR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
{
    csvsplit($0, f)
    if (f[col["status"]] != "ok") { print "cupti_vs_ncu: skipping " f[col["variant"]] " n=" f[col["n"]] ": " f[col["status"]] " " f[col["error"]] > "/dev/stderr"; next }
    mode = f[col["kind"]] == "scan" ? f[col["scan_mode"]] : f[col["finish"]]
    label = f[col["variant"]] " " f[col["dtype"]] " " f[col["op"]] " n=" f[col["n"]] " block=" f[col["block_dim"]] own_axes(f) " " mode
    print f[col["variant"]] "\t" f[col["n"]] "\t" label
}
AWK
)
awk "$CSV_AWK
$configs_awk" "$out/harness/results.csv" >"$out/configs.tsv"
experiment=$(sed -n 's/.*"experiment": *"\([^"]*\)".*/\1/p' "$out/harness/run.json" | head -1)

# ---- (b) Nsight Compute, one configuration per run ---------------------------------------
echo
echo "== (b) the same configurations under ncu (range replay over the sweep's \"profile\" NVTX range)"
have_ncu=1
if ! "$NCU" --version >/dev/null 2>&1; then
    echo "cupti_vs_ncu: ncu not found ($NCU): set NCU=/path/to/ncu" >&2
    have_ncu=0
fi
ncu_runs=0
warned=0
prefer=short # the NVTX expression form tried first: the one that worked last
while IFS=$'\t' read -r variant n label; do
  for ((rep = 1; rep <= REPEAT; rep++)); do
    [ "$have_ncu" = 1 ] || break
    tag="$variant-n$n"
    base="$out/ncu/$tag"
    [ "$rep" -gt 1 ] && base="$out/ncu/$tag-r$rep"
    got=0
    # "sweep@profile/": the one "profile" push/pop range of the sweep's NVTX domain in a run of one
    # configuration; the full path names it in any run (harness/device/nvtx_ranges.h).
    short="sweep@profile/"
    full="sweep@run/$experiment/$variant/$label/profile/"
    if [ "$prefer" = short ]; then exprs=("$short" "$full"); else exprs=("$full" "$short"); fi
    for expr in "${exprs[@]}"; do
        rm -f "$base.ncu-rep" "$base.csv"
        cmd=("$NCU" --target-processes application-only --replay-mode range --nvtx --nvtx-include "$expr"
             --clock-control none --cache-control all --metrics "$METRICS" -f -o "$base" --log-file "$base.ncu.log"
             "$SWEEP" --variants "$variant" --sizes "$n" "${COMMON[@]}" --out "$base.sweep")
        quote "${cmd[@]}" >>"$commands"
        echo "   ncu ... --nvtx-include '$expr' ... sweep --variants $variant --sizes $n ...  (commands.txt)"
        "${cmd[@]}" >"$base.stdout" 2>"$base.stderr"
        rc=$?
        ncu_runs=$((ncu_runs + 1))
        if [ -f "$base.ncu-rep" ]; then
            imp=("$NCU" --import "$base.ncu-rep" --csv --page raw --print-units base)
            echo "$(quote "${imp[@]}") > $(quote "$base.csv")" >>"$commands"
            if ! "${imp[@]}" >"$base.csv" 2>>"$base.ncu.log"; then
                echo "   (ncu --import with --print-units base failed: values as ncu scales them)"
                "$NCU" --import "$base.ncu-rep" --csv --page raw >"$base.csv" 2>>"$base.ncu.log"
            fi
        fi
        if [ -s "$base.csv" ] && grep -q 'dram__bytes_read.sum' "$base.csv"; then
            got=1
            if [ "$expr" = "$short" ]; then prefer=short; else prefer=full; fi
            break
        fi
        echo "   no ncu result with --nvtx-include '$expr' (sweep exit $rc; see $base.ncu.log)"
    done
    n_warn=$(grep -cF "$WARNING" "$base.stderr" 2>/dev/null)
    [ "$rep" = 1 ] && [ "${n_warn:-0}" = 1 ] && warned=$((warned + 1))
    status=$(sed -n 's/.*"profiler_status": *"\([^"]*\)".*/\1/p' "$base.sweep/run.json" 2>/dev/null | head -1)
    echo "   $tag (run $rep): ncu result: $([ $got = 1 ] && echo yes || echo NO); warning printed ${n_warn:-0}x;" \
        "run.json profiler_status: ${status:-?}  ($(($(now) - t0)) s so far)"
  done
done <"$out/configs.tsv"

# ---- (c) ncu's own DRAM writes -----------------------------------------------------------------
# A kernel that stores nothing: the sweep's L2 flush (l2_flush_read reads 2x L2 of clean scratch).
# Whatever DRAM writes ncu shows for it, with its caches flushed and invalidated first, are lines
# dirtied after that flush by ncu itself, written back as the kernel's reads evict them. A range
# that reads more than the L2 holds (n = 2^26 here) evicts them too, on top of its own stores; the
# harness writes the profiler's lines back before its range opens (cupti/profiler.h).
echo
echo "== (c) ncu's own DRAM writes: a kernel that stores nothing"
CONTROL_ARGS=(--variants reduce_warp_shuffle --sizes 4194304 --dtype f32 --op sum --block-dims 256 --coarse 1
              --finish first --min-samples 3 --max-samples 20 --timeout 50ms --no-cupti --force --quiet)
own_lines=""
own_write=""; own_read=""; own_write_min=""
for ((rep = 1; rep <= REPEAT; rep++)); do
    [ "$have_ncu" = 1 ] || break
    base="$out/ncu/control-l2_flush_read-r$rep"
    rm -f "$base.ncu-rep" "$base.csv"
    cmd=("$NCU" --target-processes application-only --replay-mode kernel --kernel-name l2_flush_read
         --launch-skip 2 --launch-count 1 --clock-control none --cache-control all
         --metrics dram__bytes_write.sum,dram__bytes_read.sum -f -o "$base" --log-file "$base.ncu.log"
         "$SWEEP" "${CONTROL_ARGS[@]}" --out "$base.sweep")
    quote "${cmd[@]}" >>"$commands"
    "${cmd[@]}" >"$base.stdout" 2>"$base.stderr"
    ncu_runs=$((ncu_runs + 1))
    [ -f "$base.ncu-rep" ] && "$NCU" --import "$base.ncu-rep" --csv --page raw --print-units base >"$base.csv" 2>>"$base.ncu.log"
    wr=$(awk "$CSV_AWK"'
        { sub(/\r$/, "") }
        NR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
        NR == 2 { next }
        { csvsplit($0, f); w = f[col["dram__bytes_write.sum"]]; r = f[col["dram__bytes_read.sum"]]; gsub(/,/, "", w); gsub(/,/, "", r)
          if (w != "" && r != "") printf "%.0f %.0f", w, r; exit }' "$base.csv" 2>/dev/null)
    if [ -n "$wr" ]; then
        read -r w r <<<"$wr"
        line="$w bytes written, $r bytes read"
        # the largest of the runs: the most that can be ncu's own
        if [ -z "$own_write" ] || [ "$w" -gt "$own_write" ]; then own_write=$w; own_read=$r; fi
        if [ -z "$own_write_min" ] || [ "$w" -lt "$own_write_min" ]; then own_write_min=$w; fi
    else
        line="no ncu result (see $base.ncu.log)"
    fi
    echo "   run $rep: $line"
    own_lines+="- run $rep: $line"$'\n'
done

# ---- (d) the table --------------------------------------------------------------------------
echo
echo "== (d) harness (in-process CUPTI) vs ncu"
compare_awk=$(cat <<'AWK'
function num(s) {
    gsub(/[ ,]/, "", s)
    return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ ? s : ""
}
function abs(x) { return x < 0 ? -x : x }
# ncu's CSV of one result: the raw page (a header naming the metrics, a units
# row, a values row) or the details page (Metric Name / Metric Value columns).
function read_ncu(file, key,    line, f, n, i, m, mcol, vcol, have_header, done, v, any) {
    have_header = 0; done = 0; mcol = 0; vcol = 0
    split("", ncol)
    while ((getline line < file) > 0) {
        sub(/\r$/, "", line)
        n = csvsplit(line, f)
        if (!have_header) {
            for (i = 1; i <= n; i++) {
                if (f[i] in wanted) { ncol[f[i]] = i; have_header = 1 }
                if (f[i] == "Metric Name") mcol = i
                if (f[i] == "Metric Value") vcol = i
            }
            if (mcol && vcol) have_header = 2
            continue
        }
        if (have_header == 2) {
            if ((f[mcol] in wanted) && num(f[vcol]) != "" && !((key SUBSEP f[mcol]) in ncu)) ncu[key, f[mcol]] = num(f[vcol])
            continue
        }
        if (done) { if (n > 1) extra[key]++; continue }
        any = 0
        for (m in ncol) if (num(f[ncol[m]]) != "") any = 1
        if (!any) continue # the units row
        for (m in ncol) { v = num(f[ncol[m]]); if (v != "") ncu[key, m] = v }
        done = 1
    }
    close(file)
}
function kind(m) {
    if (m ~ /^dram__bytes/) return "bytes"
    if (m ~ /\.ratio$/ || m ~ /\.pct$/ || m ~ /pct_of_peak/) return "ratio"
    return "count"
}
# A repeat's harness values: hrep[rep, key, metric].
function read_harness_rep(file, rp,    line, n, k, h, i, c2, hc2, f, key, m) {
    if (file == "") return
    n = 0
    while ((getline line < file) > 0) {
        sub(/\r$/, "", line)
        if (++n == 1) {
            k = csvsplit(line, h)
            for (i = 1; i <= k; i++) {
                c2[h[i]] = i
                if (h[i] ~ /^m:/) { m = substr(h[i], 3); sub(/\[.*$/, "", m); hc2[m] = i }
            }
            continue
        }
        csvsplit(line, f)
        if (f[c2["status"]] != "ok") continue
        key = f[c2["variant"]] SUBSEP f[c2["n"]]
        for (i = 1; i <= nm; i++) { m = mlist[i]; if (m in hc2) hrep[rp, key, m] = num(f[hc2[m]]) }
    }
    close(file)
}
# Widen the range [lo[s], hi[s]] (count cnt[s]) to take x ("" is skipped).
function widen(s, x) {
    if (x == "") return
    if (!cnt[s] || x + 0 < lo[s]) lo[s] = x + 0
    if (!cnt[s] || x + 0 > hi[s]) hi[s] = x + 0
    cnt[s]++
}
function overlap(a, b) { return cnt[a] && cnt[b] && hi[a] >= lo[b] && hi[b] >= lo[a] }
function range(s, k) {
    if (!cnt[s]) return "-"
    return k == "ratio" ? sprintf("%.3f..%.3f", lo[s], hi[s]) : sprintf("%.6g..%.6g", lo[s], hi[s])
}
BEGIN {
    nm = split(metrics, mlist, ",")
    for (i = 1; i <= nm; i++) wanted[mlist[i]] = 1
    FS = "\n"
    nrep = split(harness_reps, hfiles, " ")
    for (i = 1; i <= nrep; i++) read_harness_rep(hfiles[i], i + 1)
}
{ sub(/\r$/, "") }
NR == 1 {
    n = csvsplit($0, h)
    for (i = 1; i <= n; i++) {
        col[h[i]] = i
        if (h[i] ~ /^m:/) { name = substr(h[i], 3); sub(/\[.*$/, "", name); hcol[name] = i }
    }
    next
}
{
    csvsplit($0, f)
    if (f[col["status"]] != "ok") next
    key = f[col["variant"]] SUBSEP f[col["n"]]
    nconf++; conf[nconf] = key
    for (i = 1; i <= nm; i++) { m = mlist[i]; harness[key, m] = (m in hcol) ? num(f[hcol[m]]) : "" }
    read_ncu(ncudir "/" f[col["variant"]] "-n" f[col["n"]] ".csv", key)
    for (rp = 2; rp <= repeat; rp++) read_ncu(ncudir "/" f[col["variant"]] "-n" f[col["n"]] "-r" rp ".csv", key SUBSEP "r" rp)
}
END {
    fmt = "%-29s %-9s %-59s %13s %13s %9s %-4s %21s %21s %-10s %13s %-4s\n"
    printf fmt, "variant", "n", "metric", "harness", "ncu", "diff", "ok", "harness range", "ncu range", "agreed", "ncu-own", "own"
    print "variant,n,metric,harness,ncu,diff,tolerance,within,harness_min,harness_max,ncu_min,ncu_max,ranges_overlap,ncu_minus_own_writes,within_without_own_writes,agreed" > csvout
    print "| variant | n | metric | harness | ncu | diff | within tolerance | harness range | ncu range | ranges overlap | ncu minus its own writes | agrees with that | agreed |" > mdout
    print "|---|---|---|---:|---:|---:|---|---:|---:|---|---:|---|---|" > mdout
    rows = 0; bad = 0; badrep = 0; missing = 0; okown = 0; by_tol = 0; by_overlap = 0; by_own = 0
    for (c = 1; c <= nconf; c++) {
        key = conf[c]; split(key, kv, SUBSEP)
        for (i = 1; i <= nm; i++) {
            m = mlist[i]; hv = harness[key, m]; v = ((key SUBSEP m) in ncu) ? ncu[key, m] : ""
            k = kind(m); rows++
            if (hv == "" || v == "") {
                ok = "n/a"; d = ""; missing++; bad++
            } else if (k == "ratio") {
                dd = abs(hv - v); d = sprintf("%.3f", dd); ok = dd <= 0.5 ? "yes" : "no"
            } else {
                dd = abs(hv - v); rel = v != 0 ? dd / abs(v) : (hv != 0 ? 1e300 : 0)
                d = rel >= 1e299 ? "inf" : sprintf("%.3f%%", 100 * rel)
                if (k == "bytes") ok = (rel <= 0.02 || dd <= floor) ? "yes" : "no"
                else ok = rel <= 0.01 ? "yes" : "no"
            }
            if (ok == "no") bad++
            # The overlap rule: each side's range over its repeats.
            split("", cnt); split("", lo); split("", hi)
            widen("h", hv); widen("n", v)
            for (rp = 2; rp <= repeat; rp++) {
                widen("h", ((rp SUBSEP key SUBSEP m) in hrep) ? hrep[rp, key, m] : "")
                widen("n", ((key SUBSEP "r" rp SUBSEP m) in ncu) ? ncu[key, "r" rp, m] : "")
            }
            ov = ok == "n/a" ? "n/a" : (overlap("h", "n") ? "yes" : "no")
            # DRAM writes against ncu's value less ncu's own write-back (step (c)), where the
            # range reads at least what the control kernel read, so that it evicts all of
            # ncu's lines as the control did; elsewhere "-". ncu's range less the control's
            # range of own writes: overlapping the harness's range agrees too.
            adj = ""; own = "-"
            hr = harness[key, "dram__bytes_read.sum"]
            if (m == "dram__bytes_write.sum" && own_write != "" && hv != "" && v != "" && hr != "" && hr + 0 >= own_read + 0) {
                adj = v - own_write
                da = abs(hv - adj)
                lo["a"] = lo["n"] - own_write; hi["a"] = hi["n"] - own_write_min; cnt["a"] = 1
                own = (adj > 0 && da / adj <= 0.02) || da <= floor || overlap("h", "a") ? "yes" : "no"
                if (own == "yes") okown++
            }
            if (ok == "yes") { agreed = "tolerance"; by_tol++ }
            else if (ov == "yes") { agreed = "overlap"; by_overlap++ }
            else if (own == "yes") { agreed = "own-writes"; by_own++ }
            else { agreed = ok == "n/a" ? "n/a" : "apart"; badrep++ }
            tol = k == "ratio" ? "0.5 abs" : (k == "bytes" ? "2% (or <= " floor " B)" : "1%")
            hs = hv == "" ? "-" : sprintf("%.6g", hv); vs = v == "" ? "-" : sprintf("%.6g", v)
            as = adj == "" ? "-" : sprintf("%.6g", adj)
            printf fmt, kv[1], kv[2], m, hs, vs, d, ok, range("h", k), range("n", k), agreed, as, own
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", kv[1], kv[2], m, hv, v, d, tol, ok, \
                cnt["h"] ? lo["h"] : "", cnt["h"] ? hi["h"] : "", cnt["n"] ? lo["n"] : "", cnt["n"] ? hi["n"] : "", ov, adj, own, agreed > csvout
            printf "| %s | %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", kv[1], kv[2], m, hs, vs, d, ok, range("h", k), range("n", k), ov, as, own, agreed > mdout
        }
        if (extra[key]) printf "   (ncu gave %d more result rows for %s n=%s: the first was used)\n", extra[key], kv[1], kv[2]
    }
    printf "\n%d rows (%d configurations x %d metrics): %d out of tolerance (%d without a value on one side)\n", rows, nconf, nm, bad, missing
    printf "tolerances: instruction and bank-conflict counts 1 %%; DRAM bytes 2 %% (or within %d bytes); ratios and percentages 0.5 absolute\n", floor
    if (own_write != "")
        printf "%d DRAM-write rows agree with ncu's value less its own write-back (%s..%s bytes, step (c))\n", okown, own_write_min, own_write
    printf "agreed: %d by tolerance, %d by overlapping ranges (%d runs a side), %d by ncu's value less its own writes; %d apart\n", by_tol, by_overlap, repeat, by_own, badrep
    print "bad " bad " rows " rows " badrep " badrep > summary
}
AWK
)
# the harness's repeats 2..REPEAT, in order (a missing one leaves its place empty)
hreps=""
for ((rep = 2; rep <= REPEAT; rep++)); do
    f="$out/harness-r$rep/results.csv"; [ -f "$f" ] || f=/nonexistent
    hreps+="$f "
done
awk -v metrics="$METRICS" -v ncudir="$out/ncu" -v floor="$BYTES_FLOOR" -v csvout="$out/compare.csv" \
    -v repeat="$REPEAT" -v harness_reps="$hreps" -v own_write="$own_write" -v own_read="$own_read" \
    -v own_write_min="$own_write_min" \
    -v mdout="$out/compare.md" -v summary="$out/.summary" "$CSV_AWK
$compare_awk" "$out/harness/results.csv"
read -r _ bad _ rows _ badrep <"$out/.summary" 2>/dev/null || { bad=1; rows=0; badrep=1; }
rm -f "$out/.summary"
if [ -n "$own_lines" ]; then
    { echo; echo "ncu's own DRAM writes (l2_flush_read, a kernel that stores nothing; ncu --replay-mode kernel --cache-control all):"
      printf '%s' "$own_lines"; } >>"$out/compare.md"
fi

# ---- (e) the warning under ncu -----------------------------------------------------------------
echo
echo "== (e) the sweep under ncu"
nconf=$(wc -l <"$out/configs.tsv")
echo "warning \"$WARNING\""
echo "  printed exactly once in $warned of $nconf runs under ncu (stderr in $out/ncu/*.stderr)"
echo
echo "tables: $out/compare.csv, $out/compare.md; commands: $commands; $(($(now) - t0)) s in all, $ncu_runs ncu runs"
[ "$have_ncu" = 1 ] || exit 2
[ "$rows" -gt 0 ] && [ "$badrep" = 0 ] && [ "$warned" = "$nconf" ] && exit 0
exit 1
