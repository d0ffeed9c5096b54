#!/usr/bin/env bash
# tools/cupti_vs_ncu.sh's judging, without a GPU: a stand-in sweep writes the
# harness's results.csv and a stand-in ncu reports per-configuration values
# and its own DRAM writes on the store-free control kernel. Checks the table
# (within tolerance; the overlap rule: each side's range over the repeats,
# agreeing when they overlap, a mismatch when they are apart; ncu's value
# less its own writes and whether the harness agrees with that, only where
# the range reads at least what the control read), the summary counts and
# the exit status, with 5 repeats (the default) and with 1.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/cupti_vs_ncu.sh" "$here/../tools/cupti_vs_ncu.sh"; do
    [ -f "$c" ] && { script=$c; break; }
done
[ -n "$script" ] || { echo "FAIL: tools/cupti_vs_ncu.sh not found"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}/cupti-vs-ncu-test
rm -rf "$T" && mkdir -p "$T/values"
fails=0
check() { # description, command...
    if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

OWN_WRITE=2340000   # the control's DRAM writes under the stand-in ncu
OWN_READ=125829120  # and its reads (2x a 60 MiB L2)
METRICS=(smsp__inst_executed.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum dram__bytes_read.sum dram__bytes_write.sum
         smsp__thread_inst_executed_per_inst_executed.ratio smsp__thread_inst_executed_pred_on_per_inst_executed.ratio
         sm__warps_active.avg.pct_of_peak_sustained_active lts__t_sector_hit_rate.pct)

# harness values: variant n inst ld st dram_read dram_write ratio1 ratio2 warps hit
cat >"$T/harness.tsv" <<'EOF'
va	4194304	1000000	5000	2000	16777216	0	31.5	20.0	80.0	7.0
va	67108864	16000000	80000	32000	268435456	930000	31.5	20.0	85.0	3.5
vb	4194304	1000000	5000	2000	16777216	0	31.5	20.0	80.0	7.0
vb	67108864	16000000	80000	32000	268435456	930000	31.5	20.0	85.0	3.5
EOF
# ncu's: va within tolerance at 2^22 (st 0.5 % apart; 1536 B of writes, under the floor);
# va at 2^26: writes = harness + ncu's own, so only the own-writes check passes;
# vb at 2^22: ld 4 % and warps 0.7 apart (misses); vb at 2^26: 0.5 MB more than that.
cat >"$T/ncu.tsv" <<'EOF'
va	4194304	1000000	5000	2010	16777216	1536	31.5	20.0	80.0	7.0
va	67108864	16000000	80000	32000	268435456	3270000	31.5	20.0	85.0	3.5
vb	4194304	1000000	5200	2000	16777216	0	31.5	20.0	80.7	7.0
vb	67108864	16000000	80000	32000	268435456	3770000	31.5	20.0	85.0	3.5
EOF
header='"ID","Kernel Name"'
units='"",""'
for m in "${METRICS[@]}"; do header+=",\"$m\""; units+=',"x"'; done
ncu_values() { # TSV file, suffix of the value files ("" or -rN)
    while IFS=$'\t' read -r v n rest; do
        { echo "$header"; echo "$units"; echo "\"0\",\"k\",$(echo "$rest" | tr '\t' ',' | sed 's/[^,]*/"&"/g')"; } \
            >"$T/values/$v-n$n$2.csv"
    done <"$1"
}
ncu_values "$T/ncu.tsv" ""
# Repeats 2..5 move vb at 2^22 on both sides. Its warps (harness 80.0, ncu 80.7 in the first
# runs) range over 80.0..80.5 in the harness and 80.4..80.9 under ncu: the ranges overlap.
# Its ld bank conflicts (5000 and 5200) range over 5000..5150 and 5160..5200: still apart.
h_ld=(5000 5100 5150 5000 5050); h_warps=(80.0 80.3 80.5 80.1 80.2)
n_ld=(5200 5180 5160 5190 5200); n_warps=(80.7 80.4 80.9 80.6 80.8)
for rep in 2 3 4 5; do
    i=$((rep - 1))
    awk -v ld="${h_ld[$i]}" -v w="${h_warps[$i]}" 'BEGIN { FS = OFS = "\t" }
        $1 == "vb" && $2 == 4194304 { $4 = ld; $10 = w } { print }' "$T/harness.tsv" >"$T/harness-r$rep.tsv"
    awk -v ld="${n_ld[$i]}" -v w="${n_warps[$i]}" 'BEGIN { FS = OFS = "\t" }
        $1 == "vb" && $2 == 4194304 { $4 = ld; $10 = w } { print }' "$T/ncu.tsv" >"$T/ncu-r$rep.tsv"
    ncu_values "$T/ncu-r$rep.tsv" "-r$rep"
done
{
    echo '"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"'
    echo '"","","byte","byte"'
    echo "\"0\",\"l2_flush_read\",\"$OWN_READ\",\"$OWN_WRITE\""
} >"$T/values/control-l2_flush_read.csv"

# The stand-in sweep: --out DIR gets the harness values of the variants asked for
# (harness-rN.tsv for --out .../harness-rN when there is one).
cat >"$T/sweep" <<EOF
#!/usr/bin/env bash
out=""; variants=""
while [ \$# -gt 0 ]; do
    case \$1 in --out) out=\$2; shift ;; --variants) variants=\$2; shift ;; esac
    shift
done
mkdir -p "\$out"
values="$T/harness.tsv"
[ -f "$T/\$(basename "\$out").tsv" ] && values="$T/\$(basename "\$out").tsv"
{
    printf 'status,variant,n,kind,scan_mode,finish,dtype,op,block_dim,coarse,error'
    for m in ${METRICS[*]}; do printf ',m:%s[x]' "\$m"; done
    echo
    while IFS=\$'\t' read -r v n rest; do
        case ",\$variants," in *",\$v,"*) echo "ok,\$v,\$n,reduce,,first,f32,sum,256,1,,\$(echo "\$rest" | tr '\t' ',')" ;; esac
    done <"\$values"
} >"\$out/results.csv"
echo '{"experiment": "cli", "profiler_status": "ok: stand-in"}' >"\$out/run.json"
EOF
# The stand-in ncu: a run leaves a report and warns as the sweep would under
# ncu; --import prints the values of the configuration the report names.
cat >"$T/ncu" <<EOF
#!/usr/bin/env bash
if [ "\$1" = --version ]; then echo "stand-in ncu"; exit 0; fi
if [ "\$1" = --import ]; then
    name=\$(basename "\$2" .ncu-rep)
    [ -f "$T/values/\$name.csv" ] || name=\${name%-r[0-9]*}
    cat "$T/values/\$name.csv"; exit
fi
out=""; prev=""
for a in "\$@"; do [ "\$prev" = -o ] && out=\$a; prev=\$a; done
touch "\$out.ncu-rep"
case \$out in */control-*) ;; *) echo "sweep: profiler unavailable: another profiler (ncu/nsys) is attached; metric columns left empty" >&2 ;; esac
EOF
chmod +x "$T/sweep" "$T/ncu"

field() { # compare.csv: the value of column $4 in the row of variant $1, n $2, metric $3
    awk -F, -v v="$1" -v n="$2" -v m="$3" -v c="$4" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $1 == v && $2 == n && $3 == m { print $col[c] }' "$T/out/compare.csv"
}

SWEEP="$T/sweep" NCU="$T/ncu" VARIANTS="va vb" bash "$script" "$T/out" >"$T/log" 2>&1
rc=$?
cat "$T/log"
check "exit 1 with rows whose ranges are apart" [ "$rc" = 1 ]
check "36 rows compared" grep -q "^36 rows (4 configurations x 9 metrics): 4 out of tolerance" "$T/log"
check "the control measured five times (REPEAT=5 by default)" \
    [ "$(grep -c "bytes written, $OWN_READ bytes read" "$T/log")" = 5 ]
check "one DRAM-write row saved by taking ncu's own writes off" \
    grep -q "^1 DRAM-write rows agree with ncu's value less its own write-back ($OWN_WRITE..$OWN_WRITE bytes" "$T/log"
check "the summary: 32 by tolerance, 1 by overlap, 1 by own writes, 2 apart" \
    grep -q "^agreed: 32 by tolerance, 1 by overlapping ranges (5 runs a side), 1 by ncu's value less its own writes; 2 apart" "$T/log"
W=dram__bytes_write.sum
WARPS=sm__warps_active.avg.pct_of_peak_sustained_active
LD=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
check "va 2^26 writes: out of tolerance" [ "$(field va 67108864 $W within)" = no ]
check "va 2^26 writes: ncu less its own = the harness" [ "$(field va 67108864 $W ncu_minus_own_writes)" = 930000 ]
check "va 2^26 writes: agreed by own writes" [ "$(field va 67108864 $W agreed)" = own-writes ]
check "vb 2^26 writes: 0.5 MB more is still out" [ "$(field vb 67108864 $W within_without_own_writes)" = no ]
check "vb 2^26 writes: apart" [ "$(field vb 67108864 $W agreed)" = apart ]
check "2^22 writes: the range reads less than the control, no own-writes check" \
    [ "$(field va 4194304 $W within_without_own_writes)" = - ]
check "2^22 writes under the byte floor: within, by tolerance" \
    [ "$(field va 4194304 $W within)/$(field va 4194304 $W agreed)" = yes/tolerance ]
check "a 0.5 % count difference: by tolerance" \
    [ "$(field va 4194304 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum agreed)" = tolerance ]
check "vb 2^22 warps: 0.7 apart in the first runs, out of tolerance" [ "$(field vb 4194304 $WARPS within)" = no ]
check "vb 2^22 warps: ranges 80..80.5 and 80.4..80.9" \
    [ "$(field vb 4194304 $WARPS harness_min),$(field vb 4194304 $WARPS harness_max),$(field vb 4194304 $WARPS ncu_min),$(field vb 4194304 $WARPS ncu_max)" = 80,80.5,80.4,80.9 ]
check "vb 2^22 warps: agreed by overlapping ranges" \
    [ "$(field vb 4194304 $WARPS ranges_overlap)/$(field vb 4194304 $WARPS agreed)" = yes/overlap ]
check "vb 2^22 ld: ranges 5000..5150 and 5160..5200 are apart: a mismatch" \
    [ "$(field vb 4194304 $LD ranges_overlap)/$(field vb 4194304 $LD agreed)" = no/apart ]
check "the table says how each row agreed" grep -Eq "^vb +4194304 +$WARPS .* overlap " "$T/log"
check "the warning seen in every ncu run" grep -q "printed exactly once in 4 of 4 runs" "$T/log"
check "compare.md lists the control's runs" grep -q "^- run 5: $OWN_WRITE bytes written" "$T/out/compare.md"

# va alone: its only miss is saved by the own-writes check, so the script passes.
SWEEP="$T/sweep" NCU="$T/ncu" VARIANTS="va" bash "$script" "$T/out-va" >"$T/log-va" 2>&1
rc=$?
check "exit 0 when every row agreed" [ "$rc" = 0 ]

# One run a side: a range is one value, so vb's warps are apart too.
SWEEP="$T/sweep" NCU="$T/ncu" VARIANTS="va vb" REPEAT=1 bash "$script" "$T/out-1" >"$T/log-1" 2>&1
rc=$?
check "REPEAT=1: exit 1" [ "$rc" = 1 ]
check "REPEAT=1: no overlap without repeats, 3 apart" \
    grep -q "^agreed: 32 by tolerance, 0 by overlapping ranges (1 runs a side), 1 by ncu's value less its own writes; 3 apart" "$T/log-1"

# --help prints the usage; an unknown option or a second directory is bad usage: exit 2, nothing written.
(cd "$T" && bash "$script" --help >"$T/help" 2>&1)
check "--help: exit 0 with the usage" grep -q "tools/cupti_vs_ncu.sh \[OUT_DIR\]" "$T/help"
check "--help: no directory named --help" [ ! -e "$T/--help" ]
(cd "$T" && SWEEP="$T/sweep" NCU="$T/ncu" bash "$script" --bogus >"$T/bogus" 2>&1)
rc=$?
check "an unknown option: exit 2, one line" [ "$rc/$(wc -l <"$T/bogus")" = 2/1 ]
(cd "$T" && SWEEP="$T/sweep" NCU="$T/ncu" bash "$script" d1 d2 >"$T/two" 2>&1)
rc=$?
check "two directories: exit 2" [ "$rc" = 2 ]
check "two directories: neither written" [ ! -e "$T/d1" -a ! -e "$T/d2" ]

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
