#!/usr/bin/env bash
# tools/sweep_cost.sh on the fake device (the smoke experiment): four complete
# runs (without and with metrics, by variant and by size), their table and the
# two ratios; a run whose run.json says it did not complete is resumed, not
# started again; no sweep binary is exit 2.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sweep="" script=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/harness/sweep" "$here/../bazel-bin/harness/sweep"; do
    [ -x "$c" ] && { sweep=$c; break; }
done
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/sweep_cost.sh" "$here/../tools/sweep_cost.sh"; do
    [ -f "$c" ] && { script=$c; break; }
done
[ -n "$sweep" ] && [ -n "$script" ] || { echo "FAIL: the sweep or tools/sweep_cost.sh not found"; exit 1; }
[ -n "${TEST_SRCDIR:-}" ] && export RUNFILES_DIR=${RUNFILES_DIR:-$TEST_SRCDIR}
export SWEEP_FAKE_DEVICE=1 SWEEP=$sweep
T=${TEST_TMPDIR:-$(mktemp -d)}/sweep-cost
rm -rf "$T"

fails=0
check() { # description, command...
    if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

bash "$script" "$T" --experiment smoke >"$T.out" 2>"$T.err"
rc=$?
check "four complete runs: exit 0 (got $rc)" test "$rc" -eq 0
for run in variant-without variant-with size-without size-with; do
    check "$run: a table row, complete" grep -Eq "^$run +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +[0-9]+ +true$" "$T.out"
    check "$run: its own directory" test -f "$T/$run/results.csv"
done
check "no-cupti where the name says so" grep -q -- "--no-cupti --out $T/variant-without" "$T.err"
check "by size where the name says so" grep -q -- "--order size --quiet --out $T/size-with" "$T.err"
check "run.json records the order" grep -q '"plan_order": "size"' "$T/size-with/run.json"
check "run.json records the order (variant)" grep -q '"plan_order": "variant"' "$T/variant-with/run.json"
check "the ratio by variant" grep -Eq '^order variant: with metrics / without = [0-9.]+ \(' "$T.out"
check "the ratio by size" grep -Eq '^order size: with metrics / without = [0-9.]+ \(' "$T.out"

# A run cut short: its run.json says it did not complete, so the next call resumes it.
sed -i 's/"complete": true/"complete": false/' "$T/size-with/run.json"
bash "$script" "$T" --experiment smoke >"$T.out2" 2>"$T.err2"
rc=$?
check "the second call: exit 0 (got $rc)" test "$rc" -eq 0
check "the unfinished run resumed" grep -q -- "--out $T/size-with --resume" "$T.err2"
check "the complete ones not run again" grep -q "variant-with: complete already" "$T.err2"
check "size-with complete after its resume" grep -Eq '^size-with .* true$' "$T.out2"

SWEEP=/nonexistent/sweep bash "$script" "$T/none" >/dev/null 2>"$T.err3"
rc=$?
check "no sweep binary: exit 2 (got $rc)" test "$rc" -eq 2
check "no sweep binary: says so" grep -q "no sweep binary" "$T.err3"

echo "$fails failed"
[ "$fails" -eq 0 ]
