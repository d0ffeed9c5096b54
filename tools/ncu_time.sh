#!/usr/bin/env bash
# The harness's timings checked by an independent timer: each named
# configuration runs again under Nsight Compute, and its kernel time by ncu
# is printed beside the harness's cold median, with ours / CUB by both timers.
#
# Per configuration:
#   (a) the harness: the sweep runs that one configuration without ncu
#       (--no-cupti, the sweep's default timing rule) and its cold median is
#       read from results.csv; or, with --from DIR --harness results, the
#       cold median is taken from DIR/results.csv as it stands;
#   (b) ncu: the same one-configuration sweep under
#         ncu --replay-mode kernel --nvtx --nvtx-include "sweep@profile/"
#             --clock-control none --cache-control all
#             --metrics gpu__time_duration.sum
#       Under ncu the sweep's own profiler reports itself unavailable and
#       launches the configuration exactly once inside its "profile" NVTX
#       range, the L2 flushed just before, outside the range (as
#       tools/cupti_vs_ncu.sh relies on). Kernel replay measures every kernel
#       of that one launcher call on its own, caches flushed before each;
#       the ncu time is their summed gpu__time_duration.sum (CUB runs two
#       kernels, its scan an init kernel and the scan). --clock-control none:
#       the harness measures at the GPU's own clocks (boost, whatever the
#       driver does), so ncu must too; locked base clocks would time another
#       GPU. The report is exported with --csv --page raw --print-units base.
#   (c) a table: ncu's sum, the harness's cold median, ncu / harness; and for
#       each (kind, dtype, op, n[, scan mode]) with a library row among the
#       configurations (reduce_cub, scan_cub), each other row's ours / CUB by
#       ncu and by the harness, and whether both put the same one ahead.
# The two timers do not measure the same thing, so ncu / harness is not 1:
# the harness times batches of launches (each on its own copy of the input,
# L2 flushed before the batch), which hide one launch's ramp-up and tail and
# let a dependent launch start the next call early; ncu times one launch,
# counts only kernels (no gaps between a launcher's kernels, no memsets) and
# flushes the caches before each kernel. Ours / CUB is the comparison to
# read: both timers should put the same one ahead by about the same factor.
#
# Usage, on the GPU host, from the bundle directory (bin/sweep, tools/):
#   tools/ncu_time.sh [options] CONFIG...
#   tools/ncu_time.sh [options] --file FILE
#   tools/ncu_time.sh [options] --from RESULTS_DIR --sizes 2^20,2^24,...
# CONFIG is variant:dtype:op:n:block_dim:coarse[:finish|scan_mode]
#   (reduce_one_launch:f32:sum:2^20:512:8:none, scan_cub:f64:sum:1048576:256:1);
#   n is a number or 2^k; the finish defaults to the variant's first (as
#   --finish first), the scan mode to inclusive. FILE: one CONFIG a line
#   (# comments and blank lines skipped).
# --from RESULTS_DIR --sizes LIST: per kind x dtype x op x n (and scan mode)
#   in RESULTS_DIR/results.csv, the fastest ok row by cold median that is not
#   the library's, and the library row at that n. --dtype LIST and --kind
#   LIST (reduce, scan) narrow the pick. Explicit CONFIGs may be added.
# Options:
#   --out DIR          output directory (default ./ncu-time)
#   --harness run|results
#                      the harness's side: run the sweep here (default), or
#                      the cold median in --from's results.csv
#   --repeat N         ncu runs per configuration (default 1); the table has
#                      their median, ncu_time.csv also min and max
#   --dry-run          print the configurations (as CONFIGs, with --from's
#                      cold median) and exit; nothing is run or written
#   --tables-only      run nothing: write ncu_time.csv and ncu_time.md again
#                      from the rows measured in --out (.measured.tsv, kept by
#                      a finished run and by one stopped with SIGTERM or
#                      SIGINT, which finishes the configuration it is on and
#                      writes the tables of what it measured); give --from and
#                      --sizes again for the header's note
#   -h, --help         this text
# Environment (optional):
#   SWEEP=path/to/sweep   default: bin/sweep beside this script's tools/
#   NCU=path/to/ncu       default: ncu on PATH, else /usr/local/cuda/bin/ncu
# Output: the table on stdout; in OUT_DIR ncu_time.csv (one row per
# configuration, times in ms), ncu_time.md (the GPU, date, ncu version and
# flags, and the tables), commands.txt (every command run), env.txt, and per
# configuration ncu/<config>.csv (ncu's raw CSV), .ncu-rep, .ncu.log and the
# sweep's output; harness/<config>/ (the harness's run).
# Exit status: 0 every configuration measured by both; 1 ncu or the sweep
# failed for some configuration (the others are still reported); 2 bad usage,
# or no sweep or ncu to run (one line naming the value; nothing written);
# 143 or 130 stopped by SIGTERM or SIGINT (the tables of what was measured written).
set -uo pipefail

usage() { sed -n '/^# Usage,/,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "ncu_time: $*" >&2; exit 2; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
SWEEP=${SWEEP:-$root/bin/sweep}
if [ -z "${NCU:-}" ]; then
    if command -v ncu >/dev/null 2>&1; then NCU=$(command -v ncu)
    elif [ -x /usr/local/cuda/bin/ncu ]; then NCU=/usr/local/cuda/bin/ncu
    else NCU=ncu; fi
fi
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

NCU_FLAGS=(--target-processes application-only --replay-mode kernel --nvtx --clock-control none
           --cache-control all --metrics gpu__time_duration.sum)
NCU_SHORT="sweep@profile/"
# Under ncu the timing only has to run; short, to keep ncu's launch interception brief.
# A metric is named so that the profile phase runs (it launches once, the columns empty).
UNDER_NCU=(--min-samples 3 --max-samples 20 --timeout 50ms --metrics dram__bytes_read.sum --force --quiet)
HARNESS=(--no-cupti --force --quiet)
WARNING="sweep: profiler unavailable:"

# ---- the command line (checked whole before anything is written) ---------------------------------
out=./ncu-time
from=""; sizes=""; dtypes=""; kinds=""; harness=run; repeat=1; dry=0; tables_only=0
specs=()
need() { [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#--}" = "$2" ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --dry-run) dry=1 ;;
    --tables-only) tables_only=1 ;;
    --out) need "$@"; out=$2; shift ;;
    --file)
        need "$@"
        [ -f "$2" ] && [ -r "$2" ] || die "--file $2: no such readable file"
        while IFS= read -r line || [ -n "$line" ]; do
            line=${line%%#*}; line=${line//[$'\t\r ']/}
            [ -n "$line" ] && specs+=("$line")
        done <"$2"
        shift ;;
    --from) need "$@"; from=$2; shift ;;
    --sizes) need "$@"; sizes=$2; shift ;;
    --dtype) need "$@"; dtypes=$2; shift ;;
    --kind) need "$@"; kinds=$2; shift ;;
    --harness) need "$@"; harness=$2; shift ;;
    --repeat) need "$@"; repeat=$2; shift ;;
    --*=*) die "write ${1%%=*} VALUE, not ${1}" ;;
    -*) die "unknown option $1 (--help)" ;;
    *) specs+=("$1") ;;
    esac
    shift
done
case $harness in run | results) ;; *) die "--harness $harness: run or results" ;; esac
[[ $repeat =~ ^[1-9][0-9]*$ ]] && [ "$repeat" -le 100 ] || die "--repeat $repeat: a count from 1 to 100"
[ -n "$from" ] && [ -z "$sizes" ] && die "--from needs --sizes (2^20,2^24,...)"
[ -z "$from" ] && [ -n "$sizes" ] && die "--sizes needs --from RESULTS_DIR"
[ -z "$from" ] && [ -n "$dtypes$kinds" ] && die "--dtype and --kind narrow --from's pick: give --from"
[ "$harness" = results ] && [ -z "$from" ] && die "--harness results needs --from RESULTS_DIR"
# results.csv, or results.csv.gz where the run was packed for committing (sweep pack)
from_csv=
if [ -n "$from" ]; then
    if [ -f "$from/results.csv" ]; then from_csv=$from/results.csv
    elif [ -f "$from/results.csv.gz" ]; then from_csv=$from/results.csv.gz
    else die "--from $from: no results.csv there"; fi
fi

# n: a count or 2^k, printed as the count; "" when it is neither.
count() {
    local s=$1
    if [[ $s =~ ^2\^([0-9]{1,2})$ ]] && [ "${BASH_REMATCH[1]}" -le 40 ]; then echo $((1 << BASH_REMATCH[1]))
    elif [[ $s =~ ^[1-9][0-9]{0,15}$ ]]; then echo "$s"
    fi
}
size_list=()
declare -A size_given
if [ -n "$sizes" ]; then
    IFS=, read -r -a items <<<"$sizes"
    [ ${#items[@]} -gt 0 ] || die "--sizes '$sizes': no sizes"
    for s in "${items[@]}"; do
        c=$(count "$s"); [ -n "$c" ] || die "--sizes: bad size '$s' (a count or 2^k)"
        size_list+=("$c"); size_given[$c]=$s
    done
fi
for d in ${dtypes//,/ }; do case $d in f32 | f64 | i32) ;; *) die "--dtype: unknown dtype '$d' (f32, f64, i32)" ;; esac; done
for k in ${kinds//,/ }; do case $k in reduce | scan) ;; *) die "--kind: unknown kind '$k' (reduce, scan)" ;; esac; done

# ---- the tables: from the rows measured ($measured), by write_tables -------------------------------
. "$here/shell_quote.sh" # quote
now() { date +%s; }
json_string() { sed -n "s/.*\"$1\": *\"\\([^\"]*\\)\".*/\\1/p" "$2" 2>/dev/null | head -1; }
write_tables() {
    gpu=""
    for j in "$out"/ncu/*.sweep/run.json "$out"/harness/*/run.json; do
        [ -f "$j" ] || continue
        gpu=$(awk '/"device": *\{/ { d = 1 } d && /"name":/ { sub(/.*"name": *"/, ""); sub(/".*/, ""); print; exit }' "$j")
        [ -n "$gpu" ] && break
    done
    [ -z "$gpu" ] && gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    results_gpu=""
    [ -n "$from" ] && results_gpu=$(awk '/"device": *\{/ { d = 1 } d && /"name":/ { sub(/.*"name": *"/, ""); sub(/".*/, ""); print; exit }' "$from/run.json" 2>/dev/null)
    if [ "$harness" = results ]; then
        h_note="harness: time_cold_median_ms of $from/results.csv${results_gpu:+ (measured on $results_gpu)}"
        [ -n "$results_gpu" ] && [ -n "$gpu" ] && [ "$results_gpu" != "$gpu" ] &&
            h_note+="; ncu ran on $gpu: the two timers saw different GPUs"
    else
        h_note="harness: cold median of the sweep run here on each configuration without ncu ($(quote "${HARNESS[@]}"), the sweep's default timing)"
    fi
    [ -n "$from" ] && h_note+="; configurations picked from $from/results.csv at n = $sizes"
    flags="$(quote "${NCU_FLAGS[@]}") --nvtx-include '$NCU_SHORT'; exported with --csv --page raw --print-units base"

    awk -v csvout="$out/ncu_time.csv" -v mdout="$out/ncu_time.md" -v gpu="${gpu:-unknown GPU}" -v date="$date_utc" \
        -v ncuv="${ncu_version:-unknown}" -v flags="$flags" -v hnote="$h_note" -v repeat="$repeat" '
    function median(list,    a, n, i, j, x) {
        n = split(list, a, ",")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
        lo = a[1]; hi = a[n]
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function q(s) { if (s ~ /[",\n]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" } return s }
    function us(ms) { return ms == "" ? "-" : sprintf("%.2f", ms * 1000) }
    function r4(x) { return x == "" ? "-" : sprintf("%.4f", x) }
    function pow2(n,    k) { k = 0; while (n > 1 && n % 2 == 0) { n /= 2; k++ } return n == 1 ? "2^" k : "" }
    BEGIN { FS = "\t" }
    {
        nr++
        V[nr] = $1; K[nr] = $2; F[nr] = $3; D[nr] = $4; O[nr] = $5; N[nr] = $6; B[nr] = $7; C[nr] = $8; M[nr] = $9
        KN[nr] = $10; NAMES[nr] = $11; H[nr] = $13; HS[nr] = $14; ERR[nr] = $15; R[nr] = $16; RUNS[nr] = 0
        lo = hi = ""
        if ($12 != "") { T[nr] = median($12); RUNS[nr] = split($12, tmp, ","); LO[nr] = lo; HI[nr] = hi } else T[nr] = ""
        G[nr] = K[nr] SUBSEP D[nr] SUBSEP O[nr] SUBSEP N[nr] SUBSEP (K[nr] == "scan" ? M[nr] : "")
        if (F[nr] == "cub" && !(G[nr] in lib)) lib[G[nr]] = nr
    }
    END {
        print "ncu_time: kernel time by Nsight Compute beside the harness (" gpu ", " date ")"
        print "ncu " ncuv "; " flags
        print hnote
        print ""
        fmt = "%-30s %-4s %-4s %-12s %6s %6s %-10s %7s %12s %12s %9s  %s\n"
        printf fmt, "variant", "type", "op", "n", "block", "coarse", "mode", "kernels", "ncu us", "harness us", "ncu/harn", "status"
        print "variant,kind,family,dtype,op,n,block_dim,coarse,mode,status,kernels,kernel_names,ncu_ms,ncu_min_ms,ncu_max_ms,ncu_runs,harness_cold_median_ms,harness_source,results_cold_median_ms,ncu_over_harness,cub_ncu_ms,cub_harness_cold_median_ms,ours_over_cub_ncu,ours_over_cub_harness,same_winner,error" > csvout
        print "# Kernel time: Nsight Compute beside the harness\n" > mdout
        print "GPU: " gpu " · date: " date " · ncu: " ncuv " · ncu flags: `" flags "`\n" > mdout
        print hnote ". ncu: the summed `gpu__time_duration.sum` of every kernel in the configuration'\''s `profile` NVTX range (kernel replay, one launcher call" (repeat > 1 ? ", median of " repeat " ncu runs" : "") ").\n" > mdout
        print "| variant | dtype | op | n | block | coarse | finish / mode | kernels | ncu µs | harness cold median µs | ncu ÷ harness | status |" > mdout
        print "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|" > mdout
        npairs = 0
        for (r = 1; r <= nr; r++) {
            ratio = (T[r] != "" && H[r] != "" && H[r] + 0 > 0) ? T[r] / H[r] : ""
            st = ERR[r] == "" ? "ok" : "failed"
            cn = ""; ch = ""; ON[r] = ""; OH[r] = ""; SAME[r] = ""
            if (F[r] != "cub" && (G[r] in lib)) {
                l = lib[G[r]]; cn = T[l]; ch = H[l]
                ON[r] = (T[r] != "" && cn != "" && cn + 0 > 0) ? T[r] / cn : ""
                OH[r] = (H[r] != "" && ch != "" && ch + 0 > 0) ? H[r] / ch : ""
                if (ON[r] != "" && OH[r] != "") SAME[r] = ((ON[r] < 1) == (OH[r] < 1)) ? "yes" : "no"
                pair[++npairs] = r
            }
            p2 = pow2(N[r]); nshow = p2 != "" ? p2 : N[r]
            printf fmt, V[r], D[r], O[r], nshow, B[r], C[r], M[r], KN[r] == "" ? "-" : KN[r], us(T[r]), us(H[r]), r4(ratio), st (ERR[r] != "" ? ": " ERR[r] : "")
            printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", V[r], K[r], F[r], D[r], O[r], N[r], B[r], C[r], M[r], st, KN[r], q(NAMES[r]), T[r], T[r] == "" ? "" : LO[r], T[r] == "" ? "" : HI[r], RUNS[r], H[r], HS[r], R[r], ratio, cn, ch, ON[r], OH[r], SAME[r], q(ERR[r]) > csvout
            printf "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", V[r], D[r], O[r], nshow, B[r], C[r], M[r], KN[r] == "" ? "-" : KN[r], us(T[r]), us(H[r]), r4(ratio), st (ERR[r] != "" ? ": " ERR[r] : "") > mdout
        }
        if (npairs) {
            print "\nours ÷ CUB (time: below 1, ours is faster), by each timer"
            f2 = "%-6s %-4s %-4s %-12s %-30s %6s %6s %-10s %10s %10s  %s\n"
            printf f2, "kind", "type", "op", "n", "ours", "block", "coarse", "mode", "ncu", "harness", "same one ahead"
            print "\n## Ours ÷ CUB, by each timer\n\nTime ratios: below 1, ours is faster.\n" > mdout
            print "| kind | dtype | op | n | ours | block | coarse | finish / mode | ncu: ours ÷ CUB | harness: ours ÷ CUB | same one ahead |" > mdout
            print "|---|---|---|---:|---|---:|---:|---|---:|---:|---|" > mdout
            for (p = 1; p <= npairs; p++) {
                r = pair[p]; same = SAME[r] == "" ? "-" : SAME[r]
                p2 = pow2(N[r]); nshow = p2 != "" ? p2 : N[r]
                printf f2, K[r], D[r], O[r], nshow, V[r], B[r], C[r], M[r], r4(ON[r]), r4(OH[r]), same
                printf "| %s | %s | %s | %s | `%s` | %s | %s | %s | %s | %s | %s |\n", K[r], D[r], O[r], nshow, V[r], B[r], C[r], M[r], r4(ON[r]), r4(OH[r]), same > mdout
            }
            print "\nA ratio within a few tenths of a percent of 1 is a tie either timer can call either way; --repeat N shows ncu'\''s run-to-run spread (ncu_min_ms, ncu_max_ms in ncu_time.csv)." > mdout
        }
    }' "$measured"
}

# --tables-only: the tables again from the rows an earlier run measured into --out
if [ "$tables_only" = 1 ]; then
    [ -s "$out/.measured.tsv" ] || die "--tables-only: no measured rows in $out (.measured.tsv)"
    out=$(cd "$out" && pwd); measured=$out/.measured.tsv
    date_utc=$(sed -n 's/^date: //p' "$out/env.txt" 2>/dev/null | head -1)
    ncu_version=$(sed -n 's/^ncu: [^(]*(\(.*\))$/\1/p' "$out/env.txt" 2>/dev/null | head -1)
    r=$(sed -n 's/.*; ncu runs per configuration: \([0-9]*\)$/\1/p' "$out/env.txt" 2>/dev/null | head -1)
    repeat=${r:-$repeat}
    write_tables
    echo "ncu_time: $out/ncu_time.csv, $out/ncu_time.md, from $(wc -l <"$measured") measured rows"
    exit 0
fi

# The sweep and ncu: nothing can be measured without them.
[ -x "$SWEEP" ] || die "no sweep binary at $SWEEP (run from the bundle directory, or set SWEEP)"
"$NCU" --version >/dev/null 2>&1 || die "ncu not found ($NCU): set NCU=/path/to/ncu"
# The variants the sweep knows: name, kind, family, own axis ("-": none), first finish
# (from --list). A sweep whose --list names no axis at all is of a build before
# named axes: its NVTX labels say coarse= for every variant ("coarse").
variants_tsv=$("$SWEEP" --list 2>/dev/null | awk '
    /^[A-Za-z0-9_]+ / && match($0, /\[[a-z_]+, [a-z_]+\]/) {
        name = $1; split(substr($0, RSTART + 1, RLENGTH - 2), kf, ", ")
        kind[name] = kf[1]; fam[name] = kf[2]; order[++nv] = name; next
    }
    /^    block dims/ && name != "" && match($0, /finishes [a-z_,]+/) {
        split(substr($0, RSTART + 9, RLENGTH - 9), ff, ","); first[name] = ff[1]
    }
    /^    axis [a-z_]+ = / && name != "" { if (!(name in ax)) ax[name] = $2; named = 1 }
    END {
        for (i = 1; i <= nv; i++) {
            v = order[i]; a = named ? (v in ax ? ax[v] : "-") : "coarse"
            print v "\t" kind[v] "\t" fam[v] "\t" a "\t" first[v]
        }
    }')
[ -n "$variants_tsv" ] || die "$SWEEP --list printed no variants"
declare -A vkind vfam vfirst vaxis
while IFS=$'\t' read -r name k f a first; do vkind[$name]=$k; vfam[$name]=$f; vaxis[$name]=$a; vfirst[$name]=$first; done <<<"$variants_tsv"

# A configuration, resolved: variant kind family dtype op n block coarse mode results_cold_ms
configs=()
declare -A seen
add_config() { # the fields above; a configuration already there is not added again
    local key="$1:$4:$5:$6:$7:$8:$9"
    [ -n "${seen[$key]:-}" ] && return
    seen[$key]=1
    configs+=("$(printf '%s\t' "$@")")
}
parse_spec() {
    local spec=$1 v d o n b c m extra
    IFS=: read -r v d o n b c m extra <<<"$spec"
    [ -z "${extra:-}" ] && [ -n "${c:-}" ] || die "bad configuration '$spec': variant:dtype:op:n:block_dim:coarse[:finish|scan_mode]"
    [ -n "${vkind[$v]:-}" ] || die "bad configuration '$spec': unknown variant '$v' (bin/sweep --list)"
    case ${vkind[$v]} in reduce | scan) ;; *) die "bad configuration '$spec': '$v' is neither a reduction nor a scan" ;; esac
    case $d in f32 | f64 | i32) ;; *) die "bad configuration '$spec': unknown dtype '$d' (f32, f64, i32)" ;; esac
    case $o in sum | max | min) ;; *) die "bad configuration '$spec': unknown op '$o' (sum, max, min)" ;; esac
    local nn; nn=$(count "$n")
    [ -n "$nn" ] || die "bad configuration '$spec': bad n '$n' (a count or 2^k)"
    [[ $b =~ ^[1-9][0-9]{0,4}$ ]] && [ $((b & (b - 1))) = 0 ] || die "bad configuration '$spec': bad block_dim '$b' (a power of two)"
    [[ $c =~ ^[1-9][0-9]{0,2}$ ]] || die "bad configuration '$spec': bad coarse '$c' (a positive count)"
    if [ "${vkind[$v]}" = scan ]; then
        case ${m:=inclusive} in inclusive | exclusive) ;; *) die "bad configuration '$spec': scan mode '$m' (inclusive, exclusive)" ;; esac
    else
        case ${m:=first} in
        first) m=${vfirst[$v]:-}; [ -n "$m" ] || die "bad configuration '$spec': $v lists no finish" ;;
        recursive | two_step | atomic | none) ;;
        *) die "bad configuration '$spec': finish '$m' (first, recursive, two_step, atomic, none)" ;;
        esac
    fi
    add_config "$v" "${vkind[$v]}" "${vfam[$v]}" "$d" "$o" "$nn" "$b" "$c" "$m" ""
}

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
function num(s) {
    gsub(/[ ,]/, "", s)
    return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ ? s : ""
}
AWK
)

# --from: per group (kind, dtype, op, n, scan mode), the fastest ok row that is not the
# library's, and the library's row; columns by name (results_io/columns.def).
if [ -n "$from" ]; then
    picked=$(awk -v sizes="$(IFS=,; echo "${size_list[*]}")" -v dtypes="$dtypes" -v kinds="$kinds" "$CSV_AWK"'
        BEGIN {
            FS = "\n"
            ns = split(sizes, sz, ","); for (i = 1; i <= ns; i++) want_n[sz[i]] = 1
            if (dtypes != "") { k = split(dtypes, s, ","); for (i = 1; i <= k; i++) want_d[s[i]] = 1 }
            if (kinds != "") { k = split(kinds, s, ","); for (i = 1; i <= k; i++) want_k[s[i]] = 1 }
        }
        # The value of the own axis of the variant: the axes cell of schema 5 (items_per_thread=4; empty: 1), else coarse.
        function own_axis(f,   v) {
            if (!("axes" in col)) return f[col["coarse"]]
            v = f[col["axes"]]; if (v == "") return 1
            sub(/^[^=]*=/, "", v); sub(/;.*/, "", v); return v
        }
        { sub(/\r$/, "") }
        NR == 1 {
            n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i
            split("variant kind family dtype op n block_dim finish scan_mode status time_cold_median_ms", need, " ")
            if (!("axes" in col) && !("coarse" in col)) { print "ERROR\tresults.csv has no column axes"; bad_header = 1; exit }
            for (i in need) if (!(need[i] in col)) { print "ERROR\tresults.csv has no column " need[i]; bad_header = 1; exit }
            next
        }
        {
            csvsplit($0, f)
            if (f[col["status"]] != "ok") next
            kind = f[col["kind"]]; d = f[col["dtype"]]; nn = f[col["n"]]
            if (!(nn in want_n) || (dtypes != "" && !(d in want_d)) || (kinds != "" && !(kind in want_k))) next
            if (kind != "reduce" && kind != "scan") next
            t = num(f[col["time_cold_median_ms"]]); if (t == "" || t + 0 <= 0) next
            mode = kind == "scan" ? f[col["scan_mode"]] : f[col["finish"]]
            g = kind SUBSEP d SUBSEP f[col["op"]] SUBSEP nn SUBSEP (kind == "scan" ? mode : "")
            line = f[col["variant"]] "\t" kind "\t" f[col["family"]] "\t" d "\t" f[col["op"]] "\t" nn "\t" \
                   f[col["block_dim"]] "\t" own_axis(f) "\t" mode "\t" t
            lib = f[col["family"]] == "cub"
            if (!(g in seen)) { seen[g] = 1; order[++ng] = g; gkey[ng] = kind " " d " " f[col["op"]] " " sprintf("%020d", nn) " " mode }
            if (lib) { if (!(g in lt) || t + 0 < lt[g]) { lt[g] = t + 0; lrow[g] = line } }
            else if (!(g in ot) || t + 0 < ot[g]) { ot[g] = t + 0; orow[g] = line }
            got_n[nn] = 1
        }
        END {
            if (bad_header) exit
            for (i = 1; i <= ns; i++) if (!(sz[i] in got_n)) print "NOSIZE\t" sz[i]
            # groups in order: kind, dtype, op, n, mode
            for (i = 1; i <= ng; i++) idx[i] = i
            for (i = 2; i <= ng; i++) for (j = i; j > 1 && gkey[idx[j - 1]] > gkey[idx[j]]; j--) { x = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = x }
            for (i = 1; i <= ng; i++) {
                g = order[idx[i]]
                if (g in orow) print "ROW\t" orow[g]
                if (g in lrow) print "ROW\t" lrow[g]
            }
        }' < <(gzip -dcf "$from_csv"))
    while IFS= read -r line; do
        case $line in
        ERROR*) die "--from $from: ${line#ERROR$'\t'}" ;;
        NOSIZE*) die "--sizes: no ok row at n = ${size_given[${line#NOSIZE$'\t'}]} in $from/results.csv (of the kinds and dtypes asked for)" ;;
        ROW*)
            IFS=$'\t' read -r _ v k f d o n b c m t <<<"$line"
            add_config "$v" "$k" "$f" "$d" "$o" "$n" "$b" "$c" "$m" "$t" ;;
        esac
    done <<<"$picked"
fi
for s in "${specs[@]}"; do parse_spec "$s"; done
[ ${#configs[@]} -gt 0 ] || die "no configurations: give CONFIG..., --file FILE or --from DIR --sizes LIST (--help)"
if [ "$harness" = results ]; then
    for cfg in "${configs[@]}"; do
        IFS=$'\t' read -r v k f d o n b c m t <<<"$cfg"
        [ -n "$t" ] || die "--harness results: no row for $v:$d:$o:$n:$b:$c:$m in $from/results.csv"
    done
fi

if [ "$dry" = 1 ]; then
    echo "${#configs[@]} configurations (variant:dtype:op:n:block_dim:coarse:finish|scan_mode${from:+, cold median in $from/results.csv}):"
    for cfg in "${configs[@]}"; do
        IFS=$'\t' read -r v k f d o n b c m t <<<"$cfg"
        printf '  %-60s %s\n' "$v:$d:$o:$n:$b:$c:$m" "${t:+$t ms}"
    done
    exit 0
fi

# ---- set-up -----------------------------------------------------------------------------------------
# A command line to copy and paste: arguments with shell-special characters in single quotes.

mkdir -p "$out/ncu" "$out/harness" || die "--out $out: cannot create it"
out=$(cd "$out" && pwd)
commands=$out/commands.txt
: >"$commands"
t0=$(now)
ncu_version=$("$NCU" --version 2>/dev/null | tail -1)
date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
{
    echo "date: $date_utc"
    echo "host: $(hostname)"
    echo "sweep: $SWEEP"
    echo "ncu: $NCU ($ncu_version)"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null |
        sed 's/^/gpu: /'
    echo "configurations: ${#configs[@]}; harness: $harness; ncu runs per configuration: $repeat"
} >"$out/env.txt"
cat "$out/env.txt"

# ncu's raw CSV (a header, a units row with an empty ID, one row per kernel): the number of
# kernels, their summed gpu__time_duration.sum in ms, and their names; "error <why>" when there
# is no value. The units row gives the unit (ns with --print-units base; ncu 2025.3 writes "ns").
# With --nvtx, ncu adds each kernel's push/pop range stack: a kernel whose stack lacks the
# sweep's "profile" range is an error, since the range would then not be the launcher's alone.
parse_ncu_awk=$(cat <<'AWK'
BEGIN { FS = "\n"; hdr = 0; k = 0; bad = 0; unit = ""; names = "" }
{ sub(/\r$/, "") }
!hdr {
    n = csvsplit($0, h)
    for (i = 1; i <= n; i++) {
        if (h[i] == "gpu__time_duration.sum") vc = i
        if (h[i] == "Kernel Name") kc = i
        if (h[i] == "ID") ic = i
        if (h[i] ~ /^thread Domain:Push\/Pop_Range/) rc = i
    }
    if (vc) hdr = 1
    next
}
{
    n = csvsplit($0, f)
    if (n < vc) next
    if ((ic && f[ic] == "") || (!k && unit == "" && num(f[vc]) == "")) { if (f[vc] != "") unit = f[vc]; next }
    v = num(f[vc])
    if (v == "") { bad++; next }
    sum += v; k++
    names = names (k > 1 ? " + " : "") (kc ? f[kc] : "?")
    if (rc && index(f[rc], "sweep:profile:") == 0) outside++
}
END {
    u = unit == "" ? "nsecond" : unit
    if (u == "nsecond" || u == "ns") s = 1e-6
    else if (u == "usecond" || u == "us") s = 1e-3
    else if (u == "msecond" || u == "ms") s = 1
    else if (u == "second" || u == "s") s = 1e3
    else { print "error unknown unit '" unit "' of gpu__time_duration.sum"; exit }
    if (!hdr) { print "error no gpu__time_duration.sum column"; exit }
    if (!k) { print "error no kernel in the range" (bad ? " (" bad " rows without a value)" : ""); exit }
    if (bad) { print "error " bad " of " k + bad " kernels without a value"; exit }
    if (outside) { print "error " outside " of " k " kernels outside the sweep's profile range"; exit }
    printf "%d\t%.9g\t%s\n", k, sum * s, names
}
AWK
)

# ---- the runs ----------------------------------------------------------------------------------------
measured=$out/.measured.tsv
: >"$measured"
failures=0
experiment="" # the sweep's experiment name for the NVTX path (its run.json, once seen)
prefer=short  # the NVTX expression form tried first: the one that worked last
i=0
# SIGTERM or SIGINT (a caller's time limit): no further configuration; the tables of those measured
stopped=""
trap 'stopped=SIGTERM' TERM
trap 'stopped=SIGINT' INT
for cfg in "${configs[@]}"; do
    [ -n "$stopped" ] && break
    i=$((i + 1))
    IFS=$'\t' read -r v k f d o n b c m t <<<"$cfg"
    tag="$v-$d-$o-n$n-b$b-c$c-$m"
    # the sweep's label of it (config_label): the own axis by name, none where the variant has none
    label="$v $d $o n=$n block=$b ${vaxis[$v]}=$c $m"
    [ "${vaxis[$v]:--}" = - ] && label="$v $d $o n=$n block=$b $m"
    if [ "$k" = scan ]; then axes=(--finish first --scan-mode "$m"); else axes=(--finish "$m" --scan-mode inclusive); fi
    args=(--variants "$v" --dtype "$d" --op "$o" --sizes "$n" --block-dims "$b" --coarse "$c" "${axes[@]}")
    echo
    echo "== [$i/${#configs[@]}] $label"
    err=""

    # (a) the harness
    h_ms=""; h_src=""
    if [ "$harness" = results ]; then
        h_ms=$t; h_src=results
    else
        hdir=$out/harness/$tag
        cmd=("$SWEEP" "${args[@]}" "${HARNESS[@]}" --out "$hdir")
        quote "${cmd[@]}" >>"$commands"
        "${cmd[@]}" >"$hdir.stdout" 2>"$hdir.stderr"
        rc=$?
        h_src=run
        row=$(awk "$CSV_AWK"'
            BEGIN { FS = "\n" } { sub(/\r$/, "") }
            NR == 1 { n = csvsplit($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
            { csvsplit($0, f); e = f[col["error"]] != "" ? f[col["error"]] : f[col["skip_reason"]]
              print f[col["status"]] "\037" num(f[col["time_cold_median_ms"]]) "\037" e; exit }' "$hdir/results.csv" 2>/dev/null)
        IFS=$'\037' read -r st h_ms herr <<<"$row" # not a tab: read would merge empty fields
        if [ "$st" != ok ] || [ -z "$h_ms" ]; then
            err="harness: ${st:-no row} (exit $rc)${herr:+: $herr}"; h_ms=""
        fi
        [ -z "$experiment" ] && experiment=$(json_string experiment "$hdir/run.json")
        echo "   harness: cold median $([ -n "$h_ms" ] && awk -v x="$h_ms" 'BEGIN { printf "%.2f us", x * 1000 }' || echo '?') (sweep exit $rc)"
    fi

    # (b) ncu, REPEAT runs
    ncu_list=""; kernels=""; names=""; warned=0
    for ((rep = 1; rep <= repeat; rep++)); do
        base=$out/ncu/$tag
        [ "$rep" -gt 1 ] && base=$out/ncu/$tag-r$rep
        got=""
        for form in $prefer $([ $prefer = short ] && echo full || echo short); do
            if [ "$form" = short ]; then expr=$NCU_SHORT
            else
                # the full path names the range in any run (harness/device/nvtx_ranges.h)
                [ -z "$experiment" ] && experiment=$(json_string experiment "$base.sweep/run.json")
                expr="sweep@run/${experiment:-default}/$v/$label/profile/"
            fi
            rm -f "$base.ncu-rep" "$base.csv"
            cmd=("$NCU" "${NCU_FLAGS[@]}" --nvtx-include "$expr" -f -o "$base" --log-file "$base.ncu.log"
                 "$SWEEP" "${args[@]}" "${UNDER_NCU[@]}" --out "$base.sweep")
            quote "${cmd[@]}" >>"$commands"
            "${cmd[@]}" >"$base.stdout" 2>"$base.stderr"
            rc=$?
            if [ -f "$base.ncu-rep" ]; then
                imp=("$NCU" --import "$base.ncu-rep" --csv --page raw --print-units base)
                echo "$(quote "${imp[@]}") > $(quote "$base.csv")" >>"$commands"
                if ! "${imp[@]}" >"$base.csv" 2>>"$base.ncu.log"; then
                    echo "   (ncu --import with --print-units base failed: values as ncu scales them)"
                    "$NCU" --import "$base.ncu-rep" --csv --page raw >"$base.csv" 2>>"$base.ncu.log"
                fi
            fi
            [ -z "$experiment" ] && experiment=$(json_string experiment "$base.sweep/run.json")
            got=$(awk "$CSV_AWK
$parse_ncu_awk" "$base.csv" 2>/dev/null)
            [ -z "$got" ] && got="error no report (see $base.ncu.log)"
            case $got in error*) ;; *) prefer=$form; break ;; esac
            echo "   no kernel time with --nvtx-include '$expr' (exit $rc): ${got#error }"
        done
        grep -qF "$WARNING" "$base.stderr" 2>/dev/null && warned=$((warned + 1))
        case $got in
        error*) err="${err:+$err; }ncu run $rep: ${got#error } (exit $rc)" ;;
        *)
            IFS=$'\t' read -r kn ms kname <<<"$got"
            if [ "$rc" != 0 ]; then err="${err:+$err; }ncu run $rep: the sweep under ncu exited $rc"; fi
            ncu_list+="${ncu_list:+,}$ms"; kernels=$kn; names=$kname
            echo "   ncu (run $rep): $kn kernel$([ "$kn" = 1 ] || echo s), $(awk -v x="$ms" 'BEGIN { printf "%.2f", x * 1000 }') us: $kname"
            ;;
        esac
    done
    [ "$warned" -lt "$repeat" ] && [ -n "$ncu_list" ] &&
        echo "   note: the sweep's 'profiler unavailable' warning missing in $((repeat - warned)) ncu run(s) (*.stderr)"
    [ -n "$stopped" ] && { i=$((i - 1)); break; } # cut short by the signal: not a measurement
    [ -n "$err" ] && { failures=$((failures + 1)); echo "   FAILED: $err"; }
    printf '%s\n' "$v"$'\t'"$k"$'\t'"$f"$'\t'"$d"$'\t'"$o"$'\t'"$n"$'\t'"$b"$'\t'"$c"$'\t'"$m"$'\t'"$kernels"$'\t'"$names"$'\t'"$ncu_list"$'\t'"$h_ms"$'\t'"$h_src"$'\t'"$err"$'\t'"$t" >>"$measured"
    echo "   ($(($(now) - t0)) s so far)"
done

write_tables
echo
if [ -n "$stopped" ]; then
    echo "ncu_time: stopped by $stopped after $i of ${#configs[@]} configurations; the tables hold what was measured ($out)" >&2
    [ "$stopped" = SIGINT ] && exit 130
    exit 143
fi
echo "ncu_time: $out/ncu_time.csv, $out/ncu_time.md; ncu's raw CSVs in $out/ncu/ ($(($(now) - t0)) s)"
if [ "$failures" -gt 0 ]; then
    echo "ncu_time: $failures of ${#configs[@]} configurations failed (see above)" >&2
    exit 1
fi
exit 0
