#!/usr/bin/env bash
# tools/count-tests.sh on made-up logs: cmocka summaries add up, a log that
# printed `SKIPPED: ` is one skipped, each `--skipped NAME` (a test target
# Bazel did not run, which leaves no log) is one skipped, a crash after a
# passing summary is a failure, and the exit status says whether anything failed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
script=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/count-tests.sh" "$here/../tools/count-tests.sh"; do
    [ -f "$c" ] && { script=$c; break; }
done
[ -n "$script" ] || { echo "FAIL: tools/count-tests.sh not found"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}/count-tests-test
rm -rf "$T" && mkdir -p "$T"
fails=0
expect() { # description, want output, want status, args...
    local what=$1 want=$2 want_rc=$3
    shift 3
    local got rc
    got=$("$script" "$@" 2>&1)
    rc=$?
    if [ "$got" = "$want" ] && [ "$rc" = "$want_rc" ]; then echo "ok: $what"
    else echo "FAIL: $what: got '$got' (exit $rc), want '$want' (exit $want_rc)"; fails=$((fails + 1)); fi
}

printf '[==========] 3 test(s) run.\n[  PASSED  ] 3 test(s).\n' >"$T/pass.log"
printf '[  PASSED  ] 2 test(s).\n[  SKIPPED ] 4 test(s), listed below:\n' >"$T/mixed.log"
printf 'SKIPPED: no CUDA device (none)\n' >"$T/old-gpu.log"
printf '[  PASSED  ] 1 test(s).\n' >"$T/crash.log"
echo 139 >"$T/crash.log.status"
printf '[  PASSED  ] 1 test(s).\n[  FAILED  ] 2 test(s), listed below:\n' >"$T/fail.log"

expect "cmocka summaries" "5 passed, 0 failed, 4 skipped" 0 "$T/pass.log" "$T/mixed.log"
expect "a SKIPPED: line" "3 passed, 0 failed, 1 skipped" 0 "$T/pass.log" "$T/old-gpu.log"
expect "targets Bazel skipped" "3 passed, 0 failed, 5 skipped" 0 \
    --skipped gpu_reduce_test --skipped gpu_scan_test --skipped gpu_clock_probe_test \
    --skipped cupti_profiler_test_gpu --skipped profiler_cupti_test_gpu "$T/pass.log"
expect "only skipped targets" "0 passed, 0 failed, 1 skipped" 0 --skipped gpu_reduce_test
expect "a crash after its summary" "4 passed, 1 failed, 0 skipped" 1 "$T/pass.log" "$T/crash.log"
expect "failed tests" "1 passed, 2 failed, 1 skipped" 1 --skipped gpu_scan_test "$T/fail.log"
expect "--skipped without a name" "count-tests.sh: --skipped needs a test name" 2 --skipped

[ "$fails" -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
