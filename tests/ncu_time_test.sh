#!/usr/bin/env bash
# tools/ncu_time.sh without a GPU: a stand-in sweep (its --list, a results.csv
# per one-configuration run, the "profiler unavailable" warning under ncu) and
# a stand-in ncu that records its command line and, on --import, prints canned
# CSV in ncu's --page raw format (a header with the identity columns, the two
# NVTX columns and the metric columns; a units row with an empty ID; one row per
# kernel, values with thousands separators). Checks: ncu's time is the sum over
# a launcher's kernels (CUB's two, a recursive finish's three), units (ns, us),
# ncu / harness and ours / CUB by both timers in ncu_time.csv, the --from pick
# on a constructed results.csv (the fastest ok row that is not CUB's, per kind x
# dtype x op x n, and CUB's row), --harness results, --repeat's median, the
# full-path NVTX fallback, the ncu flags, ncu_time.md's header, exit 1 when a
# configuration fails (the others reported) and exit 2, with one line and
# nothing written, on bad usage.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/ncu_time.sh" "$here/../tools/ncu_time.sh"; do
    [ -f "$c" ] && { script=$c; break; }
done
[ -n "$script" ] || { echo "FAIL: tools/ncu_time.sh not found"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}/ncu-time-test
rm -rf "$T" && mkdir -p "$T/canned"
fails=0
check() { # description, command...
    if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
check_all() { # description, a condition of several commands (a string, evaluated)
    if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

# ---- the stand-in sweep ------------------------------------------------------------------------
# The harness's cold medians (ms): variant dtype n block coarse -> time.
cat >"$T/harness.tsv" <<'EOF'
reduce_one_launch	f32	1048576	512	8	0.006
reduce_one_launch	f32	1048576	256	1	0.0055
reduce_cub	f32	1048576	256	1	0.01
reduce_coarsened	i32	1048576	256	4	0.005
scan_lookahead_bulk	f32	1048576	128	16	0.008
scan_cub	f32	1048576	256	1	0.016
EOF
cat >"$T/sweep" <<EOF
#!/usr/bin/env bash
if [ "\$1" = --list ]; then
    # STANDIN_OLD_LIST: a sweep of a build before named axes (no axis lines; labels say coarse=)
    cat <<'LIST' | if [ -n "\${STANDIN_OLD_LIST:-}" ]; then grep -v '^    axis '; else cat; fi
6 variants (name, seed alias, family; what it demonstrates; axes):

reduce_coarsened                 alias: reduce_coarsening_gpu (seed 002)  [reduce, coarsening]
    thread coarsening
    block dims 32..1024; coarse 1..64; finishes recursive,two_step,atomic; dtypes f32,f64,i32; ops sum,max,min
    axis items_per_thread = 1,2,4,8,16,32,64 (elements per thread): elements each thread reduces
reduce_one_launch                alias: one_launch  [reduce, single_pass]
    one launch per call
    block dims 32..1024; coarse 1..8; finishes none; dtypes f32,f64,i32; ops sum,max,min
    axis vectors_in_flight = 1,2,4,8 (16-byte vectors per thread): loads in flight per thread
reduce_broken                    alias: broken  [reduce, single_pass]
    fails its validation
    block dims 32..1024; coarse 1; finishes none; dtypes f32,f64,i32; ops sum,max,min
reduce_cub                       alias: cub::DeviceReduce  [reduce, cub]
    cub::DeviceReduce::Sum/Max/Min, the library baseline
    block dims 256; coarse 1; finishes none; dtypes f32,f64,i32; ops sum,max,min
scan_lookahead_bulk              alias: lookahead_tma  [scan, single_pass]
    single pass, one launch, persistent blocks
    block dims 128..256; coarse 8..32; scan modes inclusive,exclusive; dtypes f32,f64,i32; ops sum,max,min
    axis items_per_thread = 8,16,32 (elements per thread): elements each thread scans
scan_cub                         alias: cub::DeviceScan  [scan, cub]
    cub::DeviceScan
    block dims 256; coarse 1; scan modes inclusive,exclusive; dtypes f32,f64,i32; ops sum,max,min

experiments in /nonexistent: default
LIST
    exit 0
fi
out=""; v=""; d=""; n=""; b=""; c=""; fin=""; sm=""
while [ \$# -gt 0 ]; do
    case \$1 in
    --out) out=\$2; shift ;; --variants) v=\$2; shift ;; --dtype) d=\$2; shift ;; --sizes) n=\$2; shift ;;
    --block-dims) b=\$2; shift ;; --coarse) c=\$2; shift ;; --finish) fin=\$2; shift ;; --scan-mode) sm=\$2; shift ;;
    esac
    shift
done
echo "ncu=\${STANDIN_UNDER_NCU:-0} \$v \$d \$n \$b \$c \$fin \$sm" >>"$T/sweep.log"
mkdir -p "\$out"
t=\$(awk -v v="\$v" -v d="\$d" -v n="\$n" -v b="\$b" -v c="\$c" '\$1 == v && \$2 == d && \$3 == n && \$4 == b && \$5 == c { print \$6 }' "$T/harness.tsv")
status=ok; err=""; rc=0
[ -z "\$t" ] && { status=error; err="launch: stand-in failure (cudaErrorLaunchFailure)"; rc=1; }
{
    echo 'variant,alias,family,kind,dtype,op,n,block_dim,coarse,finish,scan_mode,status,skip_reason,error,time_cold_median_ms,time_hot_median_ms'
    echo "\$v,\"an alias, with a comma\",fam,k,\$d,sum,\$n,\$b,\$c,\$fin,\$sm,\$status,,\"\$err\",\$t,0.001"
} >"\$out/results.csv"
printf '{\n  "experiment": "default",\n  "device": {\n    "name": "Stand-in GPU",\n    "sm": "9.0"\n  }\n}\n' >"\$out/run.json"
[ "\${STANDIN_UNDER_NCU:-0}" = 1 ] && echo "sweep: profiler unavailable: another profiler (ncu/nsys) is attached; metric columns left empty" >&2
exit \$rc
EOF

# ---- the stand-in ncu --------------------------------------------------------------------------
# canned/<variant>-<dtype>-<n>[-rN].csv: what --import prints for that configuration (and run N);
# canned/<...>.full-only: a report only under the full NVTX path (the short form matches nothing).
cat >"$T/ncu" <<EOF
#!/usr/bin/env bash
if [ "\$1" = --version ]; then echo "Copyright (c) 2018-2099 stand-in"; echo "Version 2099.1.0 (stand-in)"; exit 0; fi
if [ "\$1" = --import ]; then
    read -r key suffix <"\$2"
    f="$T/canned/\$key\$suffix.csv"; [ -f "\$f" ] || f="$T/canned/\$key.csv"
    cat "\$f"; exit 0
fi
echo "\$*" >>"$T/ncu.log"
base=""; expr=""; app=()
while [ \$# -gt 0 ]; do
    case \$1 in
    -o) base=\$2; shift ;;
    --nvtx-include) expr=\$2; shift ;;
    --log-file) log=\$2; shift; shift; app=("\$@"); break ;;
    esac
    shift
done
STANDIN_UNDER_NCU=1 "\${app[@]}"
rc=\$?
v=""; d=""; n=""; set -- "\${app[@]}"
while [ \$# -gt 0 ]; do
    case \$1 in --variants) v=\$2; shift ;; --dtype) d=\$2; shift ;; --sizes) n=\$2; shift ;; esac
    shift
done
key=\$v-\$d-\$n
# STANDIN_TERM_AT=<variant>: the caller's time limit arrives while that one runs (SIGTERM to the script)
[ -n "\${STANDIN_TERM_AT:-}" ] && [ "\$v" = "\$STANDIN_TERM_AT" ] && kill -TERM \$PPID
suffix=""; case \$base in *-r[0-9]*) suffix=-r\${base##*-r} ;; esac
echo "==PROF== Connected (stand-in)" >"\$log"
if [ -f "$T/canned/\$key.csv" ] && ! { [ -f "$T/canned/\$key.full-only" ] && [ "\$expr" = "sweep@profile/" ]; }; then
    echo "\$key \$suffix" >"\$base.ncu-rep"
fi
exit \$rc
EOF
chmod +x "$T/sweep" "$T/ncu"

# ncu's raw page: unit, then "kernel name|value" per kernel.
raw_csv() {
    local unit=$1 i=0 kv name val
    shift
    echo '"ID","Process ID","Process Name","Host Name","thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","device__attribute_display_name","gpu__time_duration.avg","gpu__time_duration.max","gpu__time_duration.min","gpu__time_duration.sum","launch__grid_size"'
    echo "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"$unit\",\"$unit\",\"$unit\",\"$unit\",\"\""
    for kv in "$@"; do
        name=${kv%|*}; val=${kv##*|}
        echo "\"$i\",\"4242\",\"sweep\",\"127.0.0.1\",\"4242  \"\"sweep:run:none:none:RGB:0xff808080:ASCII:run\"\"  \"\"sweep:profile:none:none:RGB:0xff999999:ASCII:profile\"\" \",\"\",\"$name\",\"1\",\"13\",\"(256, 1, 1)\",\"(5,280, 1, 1)\",\"0\",\"9.0\",\"Stand-in GPU\",\"$val\",\"$val\",\"$val\",\"$val\",\"5,280\""
        i=$((i + 1))
    done
}
CUB_R1='void DeviceReduceKernel<policy_hub<float, unsigned int, plus<void>>::Policy1000, const float *, unsigned int, plus<void>, float, __identity>(T2, T5 *, T3, GridEvenShare<T3>, T4, T6)'
CUB_R2='void DeviceReduceSingleTileKernel<policy_hub<float, unsigned int, plus<void>>::Policy1000, float *, float *, int, plus<void>, float, float, __identity>(T2, T3, T4, T5, T6, T8)'
raw_csv ns "$CUB_R1|6,000" "$CUB_R2|2,500" >"$T/canned/reduce_cub-f32-1048576.csv"
raw_csv ns "void reduce_one_launch_kernel<float, op_sum, 8>(const T1 *, T1 *, unsigned long)|4,250" \
    >"$T/canned/reduce_one_launch-f32-1048576.csv"
raw_csv ns "void reduce_one_launch_kernel<float, op_sum, 8>(const T1 *, T1 *, unsigned long)|4,000" \
    >"$T/canned/reduce_one_launch-f32-1048576-r2.csv"
raw_csv ns "void reduce_one_launch_kernel<float, op_sum, 8>(const T1 *, T1 *, unsigned long)|4,600" \
    >"$T/canned/reduce_one_launch-f32-1048576-r3.csv"
raw_csv us "reduce_coarsened_kernel<int, op_sum, 4>|3.000" "reduce_coarsened_kernel<int, op_sum, 4>|1.000" \
    "reduce_coarsened_kernel<int, op_sum, 4>|0.500" >"$T/canned/reduce_coarsened-i32-1048576.csv"
raw_csv ns "void scan_lookahead_bulk_kernel<float, op_sum, 16>(const T1 *, T1 *)|9,000" \
    >"$T/canned/scan_lookahead_bulk-f32-1048576.csv"
touch "$T/canned/scan_lookahead_bulk-f32-1048576.full-only"
raw_csv ns "void DeviceScanInitKernel<ScanTileState<float, 1>>(T1, int)|1,500" \
    "void DeviceScanKernel<policy_hub<float, float, float, unsigned int, cuda::plus<void>>::Policy1000, const float *, float *>(T2, T3)|10,500" \
    >"$T/canned/scan_cub-f32-1048576.csv"

# ---- a results directory to pick from ----------------------------------------------------------
# Columns by name (results_io/columns.def), a few of them quoted with commas inside.
mkdir -p "$T/results"
cat >"$T/results/results.csv" <<'EOF'
variant,alias,family,kind,dtype,op,n,block_dim,coarse,finish,scan_mode,status,skip_reason,error,validation_error_abs,time_cold_median_ms,time_hot_median_ms,speedup_vs_cub,device
reduce_one_launch,one_launch,single_pass,reduce,f32,sum,1048576,256,1,none,,ok,,,0,0.0061,0.004,1.6,"0:NVIDIA H200:0000:00:06.0"
reduce_one_launch,one_launch,single_pass,reduce,f32,sum,1048576,512,8,none,,ok,,,0,0.0049,0.003,2.0,"0:NVIDIA H200:0000:00:06.0"
reduce_one_launch,one_launch,single_pass,reduce,f32,sum,4194304,512,8,none,,ok,,,0,0.0040,0.003,2.0,"0:NVIDIA H200:0000:00:06.0"
reduce_bulk_ring,bulk_ring,single_pass,reduce,f32,sum,1048576,256,4,none,,ok,,,0,0.0052,0.004,1.9,"0:NVIDIA H200:0000:00:06.0"
reduce_one_launch,one_launch,single_pass,reduce,f32,sum,1048576,1024,8,none,,invalid,,"element 3: 7, expected 8",1,0.0010,0.001,,"0:NVIDIA H200:0000:00:06.0"
reduce_cub,"cub::DeviceReduce, the library",cub,reduce,f32,sum,1048576,256,1,none,,ok,,,0,0.0098,0.006,1,"0:NVIDIA H200:0000:00:06.0"
reduce_one_launch,one_launch,single_pass,reduce,f64,sum,1048576,512,8,none,,ok,,,0,0.0070,0.005,,"0:NVIDIA H200:0000:00:06.0"
reduce_coarsened,"reduce_coarsening_gpu (seed 002)",coarsening,reduce,i32,sum,1048576,256,4,recursive,,ok,,,0,0.0062,0.005,,"0:NVIDIA H200:0000:00:06.0"
scan_lookahead_bulk,lookahead_tma,single_pass,scan,f32,sum,1048576,128,16,,inclusive,ok,,,0,0.0079,0.006,2.0,"0:NVIDIA H200:0000:00:06.0"
scan_lookahead_bulk,lookahead_tma,single_pass,scan,f32,sum,1048576,256,32,,inclusive,ok,,,0,0.0090,0.006,1.7,"0:NVIDIA H200:0000:00:06.0"
scan_cub,"cub::DeviceScan, the library",cub,scan,f32,sum,1048576,256,1,,inclusive,ok,,,0,0.0158,0.010,1,"0:NVIDIA H200:0000:00:06.0"
EOF
printf '{\n  "experiment": "vs-cub",\n  "device": {\n    "name": "NVIDIA H200",\n    "sm": "9.0"\n  }\n}\n' >"$T/results/run.json"

run() { # out dir, arguments...: the script with the stand-ins, stdout+stderr in <out>.log, exit status in rc
    local o=$1
    shift
    SWEEP="$T/sweep" NCU="$T/ncu" bash "$script" --out "$o" "$@" >"$o.log" 2>"$o.err"
    rc=$?
}
col() { # csv file, column name, variant, [n]: that column of the variant's row
    awk -v name="$2" -v v="$3" -v n="${4:-}" '
        function csvsplit(line, f,    k, i, c, field, inq) {
            k = 0; field = ""; inq = 0
            for (i = 1; i <= length(line); i++) {
                c = substr(line, i, 1)
                if (inq) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ } else inq = 0 } else field = field c }
                else if (c == "\"") inq = 1
                else if (c == ",") { f[++k] = field; field = "" }
                else field = field c
            }
            f[++k] = field
            return k
        }
        NR == 1 { m = csvsplit($0, h); for (i = 1; i <= m; i++) c[h[i]] = i; next }
        { csvsplit($0, f); if (f[c["variant"]] == v && (n == "" || f[c["n"]] == n)) { print f[c[name]]; exit } }' "$1"
}
close_to() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && (d < 0 ? -d : d) <= 1e-9 + 1e-6 * (b < 0 ? -b : b)) }'; }

# ---- --from: the pick ----------------------------------------------------------------------------
run "$T/dry" --from "$T/results" --sizes 2^20 --dtype f32,i32 --dry-run
cat "$T/dry.log"
picked=$(sed -n 's/^  \([^ ]*\).*/\1/p' "$T/dry.log" | tr '\n' ' ')
check_all "--dry-run: exit 0, nothing written" '[ "$rc" = 0 ] && [ ! -e "$T/dry" ]'
check "--from picks the fastest ok non-CUB row and CUB's, per kind x dtype x op x n (f64 left out by --dtype)" \
    [ "$picked" = "reduce_one_launch:f32:sum:1048576:512:8:none reduce_cub:f32:sum:1048576:256:1:none reduce_coarsened:i32:sum:1048576:256:4:recursive scan_lookahead_bulk:f32:sum:1048576:128:16:inclusive scan_cub:f32:sum:1048576:256:1:inclusive " ]

# ---- --from, the harness run here --------------------------------------------------------------
: >"$T/sweep.log"; : >"$T/ncu.log"
run "$T/out" --from "$T/results" --sizes 2^20 --dtype f32,i32
cat "$T/out.log" "$T/out.err"
C=$T/out/ncu_time.csv
check "exit 0" [ "$rc" = 0 ]
check "CUB's reduction: two kernels" [ "$(col "$C" kernels reduce_cub)" = 2 ]
check "CUB's reduction: ncu's time is their sum (6000 + 2500 ns)" close_to "$(col "$C" ncu_ms reduce_cub)" 0.0085
check "CUB's scan: init and scan kernels summed (1500 + 10500 ns)" close_to "$(col "$C" ncu_ms scan_cub)" 0.012
check_all "a recursive finish: three kernels in us, summed" \
    '[ "$(col "$C" kernels reduce_coarsened)" = 3 ] && close_to "$(col "$C" ncu_ms reduce_coarsened)" 0.0045'
check "the harness's cold median from its own run" close_to "$(col "$C" harness_cold_median_ms reduce_one_launch)" 0.006
check_all "harness_source run; results.csv's median kept beside" \
    '[ "$(col "$C" harness_source reduce_one_launch)" = run ] && close_to "$(col "$C" results_cold_median_ms reduce_one_launch)" 0.0049'
check "ncu / harness: 0.00425 / 0.006" close_to "$(col "$C" ncu_over_harness reduce_one_launch)" 0.708333
check "ours / CUB by ncu: 0.00425 / 0.0085" close_to "$(col "$C" ours_over_cub_ncu reduce_one_launch)" 0.5
check "ours / CUB by the harness: 0.006 / 0.01" close_to "$(col "$C" ours_over_cub_harness reduce_one_launch)" 0.6
check_all "scan: ours / CUB 0.75 by ncu, 0.5 by the harness, same one ahead" \
    'close_to "$(col "$C" ours_over_cub_ncu scan_lookahead_bulk)" 0.75 &&
     close_to "$(col "$C" ours_over_cub_harness scan_lookahead_bulk)" 0.5 &&
     [ "$(col "$C" same_winner scan_lookahead_bulk)" = yes ]'
check "no CUB row for i32: no ratio" [ -z "$(col "$C" ours_over_cub_ncu reduce_coarsened)" ]
check "kernel names kept (quoted, commas inside)" \
    [ "$(col "$C" kernel_names reduce_cub)" = "$CUB_R1 + $CUB_R2" ]
check "the sweep ran each configuration once without ncu" [ "$(grep -c '^ncu=0 ' "$T/sweep.log")" = 5 ]
check "... with the scan's mode and the reduction's finish" \
    grep -q '^ncu=0 scan_lookahead_bulk f32 1048576 128 16 first inclusive$' "$T/sweep.log"
check "ncu: kernel replay, caches flushed, clocks not locked, the duration metric" \
    grep -q -- '--replay-mode kernel --nvtx --clock-control none --cache-control all --metrics gpu__time_duration.sum --nvtx-include sweep@profile/ ' "$T/ncu.log"
check "the full NVTX path where the short one matched nothing (the label names the own axis)" \
    grep -qF -- '--nvtx-include sweep@run/default/scan_lookahead_bulk/scan_lookahead_bulk f32 sum n=1048576 block=128 items_per_thread=16 inclusive/profile/ ' "$T/ncu.log"
check "ncu's raw CSVs kept" [ -s "$T/out/ncu/reduce_cub-f32-sum-n1048576-b256-c1-none.csv" ]
check "the table on stdout: ours / CUB" \
    grep -Eq '^reduce +f32 +sum +2\^20 +reduce_one_launch +512 +8 +none +0\.5000 +0\.6000 +yes$' "$T/out.log"
check "the table on stdout: CUB's row" \
    grep -Eq '^reduce_cub +f32 +sum +2\^20 +256 +1 +none +2 +8\.50 +10\.00 +0\.8500 +ok$' "$T/out.log"
M=$T/out/ncu_time.md
check "ncu_time.md: GPU, ncu version and flags" \
    grep -q '^GPU: Stand-in GPU · date: [0-9T:-]*Z · ncu: Version 2099.1.0 (stand-in) · ncu flags: `.*--replay-mode kernel.*--cache-control all.*gpu__time_duration.sum' "$M"
check "ncu_time.md: the ours / CUB table" \
    grep -q '^| scan | f32 | sum | 2^20 | `scan_lookahead_bulk` | 128 | 16 | inclusive | 0.7500 | 0.5000 | yes |$' "$M"

# ---- a sweep of a build before named axes: its labels say coarse= -------------------------------
: >"$T/ncu.log"
export STANDIN_OLD_LIST=1
run "$T/out-old" --from "$T/results" --sizes 2^20 --kind scan --dtype f32
unset STANDIN_OLD_LIST
check_all "an older sweep: exit 0, its full NVTX path says coarse=" \
    '[ "$rc" = 0 ] && grep -qF -- "--nvtx-include sweep@run/default/scan_lookahead_bulk/scan_lookahead_bulk f32 sum n=1048576 block=128 coarse=16 inclusive/profile/ " "$T/ncu.log"'

# ---- --harness results, --repeat ---------------------------------------------------------------
: >"$T/sweep.log"
run "$T/out-r" --from "$T/results" --sizes 2^20 --kind reduce --dtype f32 --harness results --repeat 3
cat "$T/out-r.log"
C=$T/out-r/ncu_time.csv
check "--harness results: exit 0" [ "$rc" = 0 ]
check "--harness results: no sweep without ncu" [ "$(grep -c '^ncu=0 ' "$T/sweep.log")" = 0 ]
check_all "--harness results: the medians of results.csv, ours / CUB 0.0049 / 0.0098" \
    '[ "$(col "$C" harness_source reduce_one_launch)" = results ] &&
     close_to "$(col "$C" ours_over_cub_harness reduce_one_launch)" 0.5'
check "--harness results: the header names the source and both GPUs" \
    grep -q "measured on NVIDIA H200); ncu ran on Stand-in GPU" "$T/out-r/ncu_time.md"
check_all "--repeat 3: three ncu runs, the median of 4250, 4000, 4600 ns" \
    '[ "$(col "$C" ncu_runs reduce_one_launch)" = 3 ] && close_to "$(col "$C" ncu_ms reduce_one_launch)" 0.00425 &&
     close_to "$(col "$C" ncu_min_ms reduce_one_launch)" 0.004 && close_to "$(col "$C" ncu_max_ms reduce_one_launch)" 0.0046'

# ---- --tables-only: the same tables again from the rows measured ------------------------------
ncu_runs_before=$(grep -c . "$T/ncu.log")
mkdir -p "$T/keep" && cp "$T/out-r/ncu_time.md" "$T/out-r/ncu_time.csv" "$T/keep/"
run "$T/out-r" --from "$T/results" --sizes 2^20 --kind reduce --dtype f32 --harness results --tables-only
check "--tables-only: exit 0" [ "$rc" = 0 ]
check_all "--tables-only: ncu_time.md and ncu_time.csv as the run wrote them, nothing run" \
    'cmp -s "$T/keep/ncu_time.md" "$T/out-r/ncu_time.md" && cmp -s "$T/keep/ncu_time.csv" "$T/out-r/ncu_time.csv" &&
     [ "$(grep -c . "$T/ncu.log")" = "$ncu_runs_before" ]' 

# ---- SIGTERM mid-run: the tables of what was measured -----------------------------------------
printf 'reduce_one_launch:f32:sum:2^20:512:8\nreduce_cub:f32:sum:2^20:256:1\nscan_cub:f32:sum:2^20:256:1\n' >"$T/three.txt"
STANDIN_TERM_AT=reduce_cub run "$T/out-t" --file "$T/three.txt"
C=$T/out-t/ncu_time.csv
check "SIGTERM: exit 143" [ "$rc" = 143 ]
check "SIGTERM: one line says where it stopped" grep -q "stopped by SIGTERM after 1 of 3 configurations" "$T/out-t.err"
check_all "SIGTERM: the tables hold the one measured before it, not the one it cut short" \
    '[ "$(col "$C" status reduce_one_launch)" = ok ] && [ "$(grep -c . "$C")" = 2 ] && grep -q reduce_one_launch "$T/out-t/ncu_time.md"'

# ---- explicit configurations, one failing ------------------------------------------------------
printf '# configurations\nreduce_cub:f32:sum:2^20:256:1\n\nreduce_broken:f32:sum:1048576:256:1   # fails\n' >"$T/configs.txt"
run "$T/out-f" --file "$T/configs.txt" reduce_one_launch:f32:sum:2^20:512:8
cat "$T/out-f.log" "$T/out-f.err"
C=$T/out-f/ncu_time.csv
check "a failing configuration: exit 1" [ "$rc" = 1 ]
check_all "the failing one is marked, with why" \
    '[ "$(col "$C" status reduce_broken)" = failed ] &&
     col "$C" error reduce_broken | grep -q "harness: error (exit 1): launch: stand-in failure"'
check_all "the others still measured, and compared" \
    '[ "$(col "$C" status reduce_cub)" = ok ] && close_to "$(col "$C" ours_over_cub_ncu reduce_one_launch)" 0.5'
check "first finish resolved from --list" [ "$(col "$C" mode reduce_cub)" = none ]

# ---- bad usage: exit 2, one line naming the value, nothing written ----------------------------
bad() { # description, text the line must hold, arguments...
    local what=$1 text=$2
    shift 2
    rm -rf "$T/bad"
    run "$T/bad" "$@"
    check_all "bad usage ($what): exit 2, one line naming '$text', nothing written" \
        '[ "$rc" = 2 ] && [ "$(wc -l <"$T/bad.err")" = 1 ] && grep -qF -- "$text" "$T/bad.err" && [ ! -e "$T/bad" ]'
}
bad "unknown dtype" "f16" reduce_cub:f16:sum:2^20:256:1
bad "unknown variant" "reduce_nope" reduce_nope:f32:sum:2^20:256:1
bad "too few fields" "reduce_cub:f32:sum:2^20:256" reduce_cub:f32:sum:2^20:256
bad "a scan with a finish" "none" scan_cub:f32:sum:2^20:256:1:none
bad "block dim not a power of two" "300" reduce_one_launch:f32:sum:2^20:300:8
bad "bad n" "2^x" reduce_cub:f32:sum:2^x:256:1
bad "a size with no rows" "2^19" --from "$T/results" --sizes 2^20,2^19
bad "a malformed size" "banana" --from "$T/results" --sizes 2^20,banana
bad "--from without --sizes" "--sizes" --from "$T/results"
bad "--harness results without --from" "--harness results" --harness results reduce_cub:f32:sum:2^20:256:1
bad "no configurations" "no configurations"
bad "--tables-only without measured rows" "no measured rows" --tables-only

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
