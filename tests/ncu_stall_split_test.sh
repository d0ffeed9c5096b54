#!/usr/bin/env bash
# tools/ncu_stall_split.sh on source pages made by hand: a block of two data warps
# and the look-ahead warp, 100 loop iterations a warp, samples chosen so that each
# share is known (330 samples, 110 a warp). Block barriers: the look-ahead warp busy
# 95 of its 110, a data warp 47.5 of 110, the two barriers 137 of 330. Named barriers:
# the look-ahead warp busy 91 of 110, a data warp 58.5, the barriers 109 of 330, and
# its folds poll again 60 times in 100. Bad input, and two look-ahead warps, exit 2.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tool=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/ncu_stall_split.sh" "$here/../tools/ncu_stall_split.sh"; do
    [ -r "$c" ] && { tool=$c; break; }
done
[ -n "$tool" ] || { echo "FAIL: tools/ncu_stall_split.sh not found"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}/ncu-stall-split-test
rm -rf "$T" && mkdir -p "$T"
cat >"$T/k-sass.csv" <<'CSV'
"Kernel Name","void scan_lookahead_bulk_kernel<float, op_sum, (unsigned int)32>(const T1 *, T1 *)",
"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed","stall_barrier","stall_long_sb","stall_wait"
"0x00","LDC R1, c[0x0][0x28]","3","3","0","0","3"
"0x10","BAR.SYNC.DEFER_BLOCKING 0x0","0","3","0","0","0"
"0x20","@!P1 EXIT","0","3","0","0","0"
"0x30","LDS.128 R4, [R2]","60","200","0","60","0"
"0x40","ISETP.GE.AND P1, PT, R2, RZ, PT","10","100","0","0","10"
"0x50","LD.E.64.STRONG.GPU R4, desc[UR12][R10.64]","80","300","0","80","0"
"0x60","WARPSYNC.ALL","0","300","0","0","0"
"0x70","BAR.SYNC.DEFER_BLOCKING 0x0","0","300","0","0","0"
"0x80","@!P1 BRA 0xa0","100","300","100","0","0"
"0x90","SHFL.UP PT, R5, R4, 0x1, RZ","5","100","0","0","5"
"0xa0","FADD R4, R4, R5","5","200","0","0","5"
"0xb0","WARPSYNC.ALL","0","300","0","0","0"
"0xc0","BAR.SYNC.DEFER_BLOCKING 0x0","0","300","0","0","0"
"0xd0","BSSY B0, 0xf0","37","300","37","0","0"
"0xe0","STG.E.128 desc[UR12][R2.64], R4","30","200","0","0","30"
CSV
gzip -c "$T/k-sass.csv" >"$T/k-sass.csv.gz"
fails=0
check() { # what, expected substring, file
    if grep -qF -- "$2" "$3"; then echo "ok: $1"; else echo "FAIL: $1: no '$2' in: $(cat "$3")"; fails=$((fails + 1)); fi
}
bash "$tool" 64 "$T/k-sass.csv" 64 "$T/k-sass.csv.gz" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: exit $rc: $(cat "$T/err")"; fails=$((fails + 1)); }
check "iterations and samples" "100 loop iterations a warp (all blocks), 330 samples" "$T/out"
check "the look-ahead warp's busy share (95 / 110)" "look-ahead warp busy 86.4 %" "$T/out"
check "a data warp's (95 / 2 / 110)" "a data warp 43.2 %" "$T/out"
check "the barriers' share (137 / 330)" "barrier 41.5 % of all samples" "$T/out"
check "the look-ahead warp's polls (80 / 110)" "(% of its time): long_sb 72.7" "$T/out"
check "the data warps' loads (60 / 220)" "(% of their time): long_sb 27.3" "$T/out"
[ "$(grep -c 'look-ahead warp busy 86.4' "$T/out")" = 2 ] && echo "ok: .gz read alike" || { echo "FAIL: .gz"; fails=$((fails + 1)); }
cat >"$T/n-sass.csv" <<'CSV'
"Kernel Name","void scan_lookahead_bulk_kernel<float, op_sum, (unsigned int)32>(const T1 *, T1 *)",
"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed","stall_barrier","stall_long_sb","stall_wait"
"0x00","LDC R1, c[0x0][0x28]","3","3","0","0","3"
"0x10","LDS.128 R4, [R2]","60","200","0","60","0"
"0x20","ISETP.GE.AND P1, PT, R2, RZ, PT","10","300","0","0","10"
"0x30","BAR.ARV 0x1, R9","0","200","0","0","0"
"0x40","LD.E.64.STRONG.GPU R4, desc[UR12][R10.64]","80","100","0","80","0"
"0x50","VOTE.ANY P0, P0","5","100","0","0","5"
"0x60","LD.E.64.STRONG.GPU R4, desc[UR12][R12.64]","6","60","0","6","0"
"0x70","BAR.SYNC.DEFER_BLOCKING 0x1, R9","0","100","0","0","0"
"0x80","SHFL.UP PT, R5, R4, 0x1, RZ","9","100","9","0","0"
"0x90","BAR.ARV 0x3, R9","0","100","0","0","0"
"0xa0","BAR.SYNC.DEFER_BLOCKING 0x3, R9","0","200","0","0","0"
"0xb0","BRA 0xd0","100","200","100","0","0"
"0xc0","STG.E.128 desc[UR12][R2.64], R4","57","200","0","0","57"
CSV
bash "$tool" 64 "$T/n-sass.csv" >"$T/nout" 2>"$T/nerr"
rc=$?
[ "$rc" = 0 ] || { echo "FAIL: named: exit $rc: $(cat "$T/nerr")"; fails=$((fails + 1)); }
check "named: iterations and samples" "named barriers, 100 loop iterations a warp (all blocks), 330 samples" "$T/nout"
check "named: the look-ahead warp's busy share (91 / 110)" "look-ahead warp busy 82.7 %" "$T/nout"
check "named: a data warp's (117 / 2 / 110)" "a data warp 53.2 %" "$T/nout"
check "named: the barriers' share (109 / 330)" "barrier 33.0 % of all samples" "$T/nout"
check "named: the look-ahead warp's polls (86 / 110)" "the loop (% of its time): long_sb 78.2, barrier 8.2, wait 4.5" "$T/nout"
check "named: the data warps' wait at the second barrier (100 / 220)" "the loop (% of their time): barrier 45.5, long_sb 27.3, wait 25.9" "$T/nout"
check "named: the folds' polls again (60 / 100)" "look-ahead folds: 100, polls again 60 (0.60 a fold)" "$T/nout"
sed 's/"0x90","BAR.ARV 0x3, R9"/"0x90","BAR.ARV 0x4, R9"/' "$T/n-sass.csv" >"$T/two-sass.csv"
sed 's/"0x30","BAR.ARV 0x1, R9"/"0x30","BAR.ARV R10, R9"/' "$T/n-sass.csv" >"$T/reg-sass.csv"
bad() { # what, value the one line must name, args
    local what=$1 value=$2; shift 2
    bash "$tool" "$@" >"$T/bo" 2>"$T/be"; local rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$T/be")" = 1 ] && grep -qF -- "$value" "$T/be"; then echo "ok: $what"
    else echo "FAIL: $what: exit $rc: $(cat "$T/be")"; fails=$((fails + 1)); fi
}
bad "a block dim that is not one" "'100'" 100 "$T/k-sass.csv"
bad "a missing file" "'$T/none.csv'" 64 "$T/none.csv"
bad "no file" "usage" 64
printf '"Kernel Name","x"\n"Address","Source"\n' >"$T/plain.csv"
bad "a page without SourceCounters" "plain: not a source page" 64 "$T/plain.csv"
bad "two look-ahead warps' named barriers" "two-sass: 3 named barriers" 64 "$T/two-sass.csv"
bad "a barrier named by a register" "reg-sass: a barrier named by a register (R10)" 64 "$T/reg-sass.csv"
[ "$fails" = 0 ] && echo "ncu_stall_split_test: all checks pass" && exit 0
echo "ncu_stall_split_test: $fails check(s) failed"
exit 1
