#!/usr/bin/env bash
# One-way folders: every `#include "..."` of harness/ and plots/, and every
# call between their objects (nm, on the libraries' archives), runs down the
# order below. A folder uses its own files and those of folders before it in
# ORDER, never one after it. harness/ reaches plots/ only through the
# renderer's one entry header (PLOTS_ENTRY); plots/ reads results files and the
# shared row and columns (results_io/) and knows nothing of harness/.
# usage: layers_test.sh FILE... (sources and headers, and .a archives; a .so,
# and a .pic.a beside its .a, are ignored)
set -euo pipefail

# Lowest first. docs/architecture.md says what each folder owns.
ORDER="kernels cupti results_io plots
       harness/core harness/reference harness/device harness/check harness/config
       harness/backend harness/results harness/compare harness/run"
PLOTS_ENTRY="plots/render.h"

# The folder of a repository path: harness/<folder>, else its first component.
folder_of() {
    case "$1" in
    harness/*/*) local rest=${1#harness/}; echo "harness/${rest%%/*}" ;;
    */*) echo "${1%%/*}" ;;
    *) echo "" ;;
    esac
}
rank_of() {
    local i=0 f
    for f in $ORDER; do
        [ "$f" = "$1" ] && { echo "$i"; return; }
        i=$((i + 1))
    done
    echo ""
}

bad=$(mktemp) defs=$(mktemp) uses=$(mktemp) objs=$(mktemp)
trap 'rm -f "$bad" "$defs" "$uses" "$objs"' EXIT
n_includes=0 n_sources=0 archives=()
for f in "$@"; do
    case "$f" in
    *.pic.a) [ -e "${f%.pic.a}.a" ] || archives+=("$f"); continue ;;
    *.a) archives+=("$f"); continue ;;
    *.c | *.cc | *.cu | *.h | *.cuh) ;;
    *) continue ;;
    esac
    from=$(folder_of "$f")
    rf=$(rank_of "$from")
    [ -n "$rf" ] || continue
    n_sources=$((n_sources + 1))
    case "$f" in *.c | *.cc | *.cu) b=${f##*/}; echo "${b%.*} $from" >>"$objs" ;; esac
    while IFS=: read -r line inc; do
        inc=${inc#*\"}
        inc=${inc%%\"*}
        n_includes=$((n_includes + 1))
        to=$(folder_of "$inc")
        rt=$(rank_of "$to")
        [ -n "$rt" ] || continue
        if [ "$rt" -gt "$rf" ]; then
            echo "upward include: $f:$line: \"$inc\" ($from may not use $to)" >>"$bad"
        elif [ "$to" = plots ] && [ "$from" != plots ] && [[ " $PLOTS_ENTRY " != *" $inc "* ]]; then
            echo "upward include: $f:$line: \"$inc\" (plots/ is entered only by ${PLOTS_ENTRY// /, })" >>"$bad"
        fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true)
done
[ "$n_sources" -gt 0 ] || { echo "layers_test: no source of harness/ or plots/ among the arguments" >&2; exit 1; }

# Calls: each object's undefined globals against the others' definitions,
# the objects placed in their folders by their sources' names.
n_calls=0
if ((${#archives[@]})); then
    command -v nm >/dev/null || { echo "layers_test: no nm on this host" >&2; exit 1; }
    for a in "${archives[@]}"; do
        nm -A "$a" 2>/dev/null | awk -v defs="$defs" -v uses="$uses" '
            { split($1, p, ":"); obj = p[2]; sub(/(\.pic)?\.o$/, "", obj); type = $(NF - 1); sym = $NF }
            type == "U" { print obj, sym >> uses; next }
            type ~ /^[TDBRGSVW]$/ { print obj, sym >> defs }'
    done
    [ -s "$defs" ] || { echo "layers_test: no symbols read (nm failed?)" >&2; exit 1; }
    calls=$(awk 'FILENAME == ARGV[1] { dir[$1] = $2; next }
                 FILENAME == ARGV[2] { def[$2] = $1; next }
                 ($2 in def) && def[$2] != $1 && ($1 in dir) && (def[$2] in dir) && dir[$1] != dir[def[$2]] &&
                     !seen[$1 SUBSEP def[$2]]++ { print dir[$1], $1, dir[def[$2]], def[$2], $2 }' \
        "$objs" "$defs" "$uses")
    while read -r from user to definer sym; do
        [ -n "$from" ] || continue
        n_calls=$((n_calls + 1))
        if [ "$(rank_of "$to")" -gt "$(rank_of "$from")" ]; then
            echo "upward call: $from/$user calls $sym of $to/$definer ($from may not use $to)" >>"$bad"
        fi
    done <<<"$calls"
fi

if [ -s "$bad" ]; then
    cat "$bad"
    echo "layers_test: $(wc -l <"$bad") upward use(s); the order, lowest first: $(echo $ORDER)"
    exit 1
fi
echo "layers_test: $n_includes includes of $n_sources files and $n_calls calls between folders all run down: $(echo $ORDER)"
