# Shared by the tools' command-line tests (sourced): find the tool's binary,
# then check that bad input prints one line on stderr naming the value and
# exits 2 before anything is written, and that --help exits 0.
#   cli_begin NAME PACKAGE/PATH   sets bin and T (a scratch directory), or fails
#   bad DESCRIPTION VALUE ARGS... the tool run with --csv T/out.csv ARGS
#   cli_help WORD                 --help exits 0 and mentions WORD
#   cli_end                       the verdict line and exit status
cli_begin() {
    cli_name=$1
    bin=""
    for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/$2" "$here/../bazel-bin/$2"; do
        [ -x "$c" ] && { bin=$c; break; }
    done
    [ -n "$bin" ] || { echo "FAIL: $2 not found"; exit 1; }
    T=${TEST_TMPDIR:-$(mktemp -d)}/$cli_name
    rm -rf "$T" && mkdir -p "$T"
    fails=0
}

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

cli_help() {
    "$bin" --help >"$T/help" 2>&1
    local rc=$?
    if [ "$rc" = 0 ] && grep -q -- "$1" "$T/help"; then echo "ok: --help"
    else echo "FAIL: --help: exit $rc: $(cat "$T/help")"; fails=$((fails + 1)); fi
}

cli_end() {
    [ "$fails" = 0 ] && echo "$cli_name: all checks pass" && exit 0
    echo "$cli_name: $fails check(s) failed"
    exit 1
}
