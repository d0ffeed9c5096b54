#!/usr/bin/env bash
# tools/cupti_vs_ncu.sh's judging, without a GPU: a stand-in sweep writes the
# harness's results.csv and a stand-in ncu reports per-configuration values
# and its own DRAM writes on the store-free control kernel. Checks the table
# (within tolerance, within repeatability, ncu's value less its own writes
# and whether the harness is within tolerance of that, only where the range
# reads at least what the control read), the summary counts and the exit
# status.
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
while IFS=$'\t' read -r v n rest; do
    { echo "$header"; echo "$units"; echo "\"0\",\"k\",$(echo "$rest" | tr '\t' ',' | sed 's/[^,]*/"&"/g')"; } \
        >"$T/values/$v-n$n.csv"
done <"$T/ncu.tsv"
{
    echo '"ID","Kernel Name","dram__bytes_read.sum","dram__bytes_write.sum"'
    echo '"","","byte","byte"'
    echo "\"0\",\"l2_flush_read\",\"$OWN_READ\",\"$OWN_WRITE\""
} >"$T/values/control-l2_flush_read.csv"

# The stand-in sweep: --out DIR gets the harness values of the variants asked for.
cat >"$T/sweep" <<EOF
#!/usr/bin/env bash
out=""; variants=""
while [ \$# -gt 0 ]; do
    case \$1 in --out) out=\$2; shift ;; --variants) variants=\$2; shift ;; esac
    shift
done
mkdir -p "\$out"
{
    printf 'status,variant,n,kind,scan_mode,finish,dtype,op,block_dim,coarse,error'
    for m in ${METRICS[*]}; do printf ',m:%s[x]' "\$m"; done
    echo
    while IFS=\$'\t' read -r v n rest; do
        case ",\$variants," in *",\$v,"*) echo "ok,\$v,\$n,reduce,,first,f32,sum,256,1,,\$(echo "\$rest" | tr '\t' ',')" ;; esac
    done <"$T/harness.tsv"
} >"\$out/results.csv"
echo '{"experiment": "cli", "profiler_status": "ok: stand-in"}' >"\$out/run.json"
EOF
# The stand-in ncu: a run leaves a report and warns as the sweep would under
# ncu; --import prints the values of the configuration the report names.
cat >"$T/ncu" <<EOF
#!/usr/bin/env bash
if [ "\$1" = --version ]; then echo "stand-in ncu"; exit 0; fi
if [ "\$1" = --import ]; then
    name=\$(basename "\$2" .ncu-rep); name=\${name%-r[0-9]*}
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
check "exit 1 with rows out of everything" [ "$rc" = 1 ]
check "36 rows compared" grep -q "^36 rows (4 configurations x 9 metrics): 4 out of tolerance" "$T/log"
check "the control measured twice" [ "$(grep -c "bytes written, $OWN_READ bytes read" "$T/log")" = 2 ]
check "one DRAM-write row saved by taking ncu's own writes off" \
    grep -q "^1 DRAM-write rows within tolerance or repeatability once ncu's own write-back ($OWN_WRITE bytes" "$T/log"
check "three rows out of everything" grep -q "^3 rows neither within tolerance" "$T/log"
W=dram__bytes_write.sum
check "va 2^26 writes: out of tolerance" [ "$(field va 67108864 $W within)" = no ]
check "va 2^26 writes: ncu less its own = the harness" [ "$(field va 67108864 $W ncu_minus_own_writes)" = 930000 ]
check "va 2^26 writes: within once ncu's own are off" [ "$(field va 67108864 $W within_without_own_writes)" = yes ]
check "vb 2^26 writes: 0.5 MB more is still out" [ "$(field vb 67108864 $W within_without_own_writes)" = no ]
check "2^22 writes: the range reads less than the control, no own-writes check" \
    [ "$(field va 4194304 $W within_without_own_writes)" = - ]
check "2^22 writes under the byte floor: within" [ "$(field va 4194304 $W within)" = yes ]
check "a 0.5 % count difference: within" \
    [ "$(field va 4194304 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum within)" = yes ]
check "a 4 % count difference: out, and not repeatable" \
    [ "$(field vb 4194304 l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum within_repeatability)" = no ]
check "0.7 apart on a percentage: out" \
    [ "$(field vb 4194304 sm__warps_active.avg.pct_of_peak_sustained_active within)" = no ]
check "the warning seen in every ncu run" grep -q "printed exactly once in 4 of 4 runs" "$T/log"
check "compare.md lists the control's runs" grep -q "^- run 2: $OWN_WRITE bytes written" "$T/out/compare.md"

# va alone: its only miss is saved by the own-writes check, so the script passes.
SWEEP="$T/sweep" NCU="$T/ncu" VARIANTS="va" bash "$script" "$T/out-va" >"$T/log-va" 2>&1
rc=$?
check "exit 0 when every row is within something" [ "$rc" = 0 ]

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
