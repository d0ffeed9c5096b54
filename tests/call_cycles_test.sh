#!/usr/bin/env bash
# No two source files call each other: for every object in the archives given
# (the harness's and the plots' libraries), the globals it leaves undefined are
# looked up among the globals the others define; a pair of objects that each
# use one of the other's is a cycle, named with one symbol each way.
# usage: call_cycles_test.sh ARCHIVE... (a .so among them is ignored, and a
# .pic.a beside its .a)
set -euo pipefail

command -v nm >/dev/null || { echo "call_cycles_test: no nm on this host" >&2; exit 1; }
defs=$(mktemp) uses=$(mktemp)
trap 'rm -f "$defs" "$uses"' EXIT
archives=0
for a in "$@"; do
    case "$a" in *.a) ;; *) continue ;; esac
    # a library's .pic.a holds the same objects as its .a: read one of them
    case "$a" in *.pic.a) [ -e "${a%.pic.a}.a" ] && continue ;; esac
    archives=$((archives + 1))
    # "archive:object.o: [address] TYPE symbol"; the object's name without its
    # .pic.o / .o ending, its archive's name before it.
    nm -A "$a" 2>/dev/null | awk -v lib="$(basename "${a%.pic.a}" .a)" -v defs="$defs" -v uses="$uses" '
        { split($1, p, ":"); obj = p[2]; sub(/(\.pic)?\.o$/, "", obj); obj = lib "/" obj
          type = $(NF - 1); sym = $NF }
        type == "U" { print obj, sym >> uses; next }
        type ~ /^[TDBRGSVW]$/ { print obj, sym >> defs }'
done
[ "$archives" -gt 0 ] || { echo "call_cycles_test: no archive among the arguments" >&2; exit 1; }
[ -s "$defs" ] || { echo "call_cycles_test: no symbols read (nm failed?)" >&2; exit 1; }

# edges "user definer symbol", one symbol kept per pair
edges=$(awk 'NR == FNR { def[$2] = $1; next }
             ($2 in def) && def[$2] != $1 && !seen[$1 SUBSEP def[$2]]++ { print $1, def[$2], $2 }' "$defs" "$uses")
cycles=$(echo "$edges" | awk 'NF == 3 { e[$1 SUBSEP $2] = $3; from[NR] = $1; to[NR] = $2 }
    END { for (i in from) { a = from[i]; b = to[i]
            if (a < b && ((b SUBSEP a) in e))
                printf "call cycle: %s calls %s (%s), %s calls %s (%s)\n", a, b, e[a SUBSEP b], b, a, e[b SUBSEP a] } }' | sort)
n_objects=$(cut -d" " -f1 "$defs" | sort -u | wc -l)
n_edges=$(echo "$edges" | grep -c . || true)
if [ -n "$cycles" ]; then
    echo "$cycles"
    echo "call_cycles_test: $(echo "$cycles" | wc -l) pair(s) of files call each other ($n_objects objects, $n_edges file-to-file calls)"
    exit 1
fi
echo "call_cycles_test: no two of $n_objects objects call each other ($n_edges file-to-file calls)"
