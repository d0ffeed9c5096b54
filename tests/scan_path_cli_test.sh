#!/usr/bin/env bash
# tools/scan_path's command line without a GPU: bad input (a size that is not
# one, a size that is not whole tiles, --rounds 0, an unknown option, a
# missing value) prints one line on stderr naming the value and exits 2 before
# any CUDA call, with nothing on stdout and no CSV written; --help exits 0.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/tools/scan_path/scan_path" \
    "$here/../bazel-bin/tools/scan_path/scan_path"; do
    [ -x "$c" ] && { bin=$c; break; }
done
[ -n "$bin" ] || { echo "FAIL: tools/scan_path/scan_path not found"; exit 1; }
T=${TEST_TMPDIR:-$(mktemp -d)}/scan-path-cli-test
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

bad "a size that is not one" "2^x" --sizes 2^x
bad "a size among good ones" "12345" --sizes 2^28,12345
bad "a size that is not whole tiles" "1000" --sizes 1000
bad "no rounds" "0" --rounds 0
bad "samples not a number" "five" --samples five
bad "an unknown option" "--bogus" --bogus
bad "a missing value" "--device" --device

"$bin" --help >"$T/help" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q -- "--sizes" "$T/help"; then echo "ok: --help"
else echo "FAIL: --help: exit $rc: $(cat "$T/help")"; fails=$((fails + 1)); fi

[ "$fails" = 0 ] && echo "scan_path_cli_test: all checks pass" && exit 0
echo "scan_path_cli_test: $fails check(s) failed"
exit 1
