#!/usr/bin/env bash
# tools/profile_cost's command line without a GPU: bad input (a count that is
# not one, a variant or metric that does not exist, an unknown option, a
# missing value) prints one line on stderr naming the value and exits 2 before
# any CUDA call, with nothing on stdout and no CSV written; --help exits 0.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/profile_cost/profile_cost" \
    "$here/../bazel-bin/tools/profile_cost/profile_cost"; do
    [ -x "$c" ] && { bin=$c; break; }
done
[ -n "$bin" ] || { echo "FAIL: tools/profile_cost/profile_cost not found"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}/profile-cost-cli-test
rm -rf "$T" && mkdir -p "$T"
fails=0
bad() { # description, the value the message must name, args...
    local what=$1 value=$2
    shift 2
    "$bin" --csv "$T/out.csv" "$@" >"$T/stdout" 2>"$T/stderr"
    local rc=$? lines
    lines=$(wc -l <"$T/stderr")
    if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -qF -- "'$value'" "$T/stderr" && [ ! -s "$T/stdout" ] &&
        [ ! -e "$T/out.csv" ]; then
        echo "ok: $what"
    else
        echo "FAIL: $what: exit $rc, $lines stderr line(s): $(cat "$T/stderr"), stdout $(wc -c <"$T/stdout") bytes"
        fails=$((fails + 1))
    fi
    rm -f "$T/out.csv"
}

bad "a size that is not one" "2^x" --n 2^x
bad "a batch of 0" "0" --batches 64,0
bad "launches not a number" "five" --launches five
bad "a negative count" "-3" --allocs -3
bad "a variant that does not exist" "reduce_bogus" --variants reduce_one_launch,reduce_bogus
bad "a metric that does not exist" "bogus_metric" --metrics bogus_metric
bad "an unknown option" "--bogus" --bogus 1
bad "a missing value" "--repeat" --repeat

"$bin" --help >"$T/help" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q -- "--batches" "$T/help"; then echo "ok: --help"
else echo "FAIL: --help: exit $rc: $(cat "$T/help")"; fails=$((fails + 1)); fi

[ "$fails" = 0 ] && echo "profile_cost_cli_test: all checks pass" && exit 0
echo "profile_cost_cli_test: $fails check(s) failed"
exit 1
