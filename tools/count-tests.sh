#!/usr/bin/env bash
# Counts cmocka results in test logs and prints `N passed, N failed, N skipped`.
# Usage: count-tests.sh [--skipped NAME]... LOG...
# --skipped NAME: a test target that did not run (Bazel skips the GPU tests on a
# host without a GPU, and they leave no log): one skipped each.
# A log with no cmocka summary counts as one test: skipped if it printed
# `SKIPPED: `, passed if its status file says 0, else failed.
# Exit status: 1 if anything failed.
passed=0 failed=0 skipped=0
while [ "${1:-}" = --skipped ]; do
    [ -n "${2:-}" ] || { echo "count-tests.sh: --skipped needs a test name" >&2; exit 2; }
    skipped=$((skipped + 1))
    shift 2
done
for log in "$@"; do
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\..*/\1/p' "$log" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' "$log" | tail -1)
    s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s).*/\1/p' "$log" | tail -1)
    if [ -z "$p$f$s" ]; then
        if grep -q "^SKIPPED: " "$log"; then
            skipped=$((skipped + 1))
        elif [ -f "$log.status" ] && [ "$(cat "$log.status")" = 0 ]; then
            passed=$((passed + 1))
        elif [ -f "$(dirname "$log")/test.xml" ] && grep -q 'failures="0"' "$(dirname "$log")/test.xml" &&
            grep -q 'errors="0"' "$(dirname "$log")/test.xml"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
        continue
    fi
    # A binary that crashed after its summary still failed.
    if [ -f "$log.status" ] && [ "$(cat "$log.status")" != 0 ] && [ "${f:-0}" = 0 ]; then f=1; fi
    passed=$((passed + ${p:-0})) failed=$((failed + ${f:-0})) skipped=$((skipped + ${s:-0}))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
