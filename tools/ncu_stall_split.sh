#!/usr/bin/env bash
# Where the warps of a look-ahead scan block wait: Nsight Compute's per-instruction
# warp-state samples of scan_lookahead_bulk split between its look-ahead warp and its
# data warps, and how often the look-ahead warp's folds poll again.
#
# Input: ncu's source page of one kernel as CSV, SASS only, with the SourceCounters
# section collected:
#   ncu ... --section WarpStateStats --section SourceCounters -o REP bin/sweep ...
#   ncu --import REP.ncu-rep --page source --csv --print-source sass > K-sass.csv
# (.gz taken as well). BLOCK is the scan's block dim (its data threads; the
# look-ahead warp is one more). Two kinds of page, told apart by their barriers:
#   - rounds that meet at two block barriers (bar.sync 0): builds before the named
#     round barriers (0bc29a7), and today's at 8 and 16 items per thread with one
#     look-ahead warp;
#   - rounds that meet at named barriers (today's at 32 items): the data warps arrive
#     at the first (bar.arrive 1) and wait at the second (bar.sync 3), the look-ahead
#     warp the other way round. Two look-ahead warps (f64 at 8 or 16 items: barriers
#     1-4, or an id in a register) are not modeled; on such a page it stops with exit
#     status 2.
#
# How the instructions are told apart: every warp of a block runs the same number of
# loop iterations, so an instruction's "Instructions Executed" over the iterations
# says who runs it. Block barriers: the warps at the two barriers (all BLOCK/32 + 1),
# and the data warps' share between the loop's top and the look-ahead warp's branch
# (its first instruction run once an iteration by one warp); between the barriers an
# instruction run about once per iteration per warp is the look-ahead warp's, more is
# the data warps'. Named barriers: the look-ahead warp's bar.sync runs once an
# iteration, which counts them; in the loop (the instructions run at least that
# often, and those between) about BLOCK/32 + 1 times an iteration is every warp's,
# 1.5 or more the data warps', fewer the look-ahead warp's (its polls again run less
# than once an iteration). Every warp of a block lives as long as the block, so each
# is sampled alike: a warp's share of the samples is its share of the time, and
# "busy" is the time a warp spends neither at a barrier nor (block barriers) in the
# code every warp runs around them.
#
# The polls: the look-ahead warp's 64-bit strong loads (LD.E.64.STRONG.GPU, the
# aggregates' words); the most run of them once a fold, the others when a fold polls
# again the tiles not yet published. "polls again" is the second count over the first.
# (A build that issues a window's polls before its fold, as `E1` in
# experiments/results/h200x4/early-polls did, is not read right: its early polls run
# less often than its polls again.)
#
# Usage: tools/ncu_stall_split.sh BLOCK FILE [BLOCK FILE ...]
# Prints, per file: the barriers' kind, iterations per warp, samples, the look-ahead
# warp's and a data warp's busy share, the barriers' share of all samples, the
# look-ahead warp's and the data warps' top stall reasons (percent of that warp's
# time; with block barriers, before the first barrier), and the folds' polls again.
# Exit status: 0; 2 bad input (one line naming it).
set -euo pipefail
die() { echo "ncu_stall_split: $*" >&2; exit 2; }
[ $# -ge 2 ] && [ $(($# % 2)) = 0 ] || die "usage: tools/ncu_stall_split.sh BLOCK FILE [BLOCK FILE ...]"
while [ $# -gt 0 ]; do
    block=$1 file=$2; shift 2
    [[ $block =~ ^(32|64|128|256|512|1024)$ ]] || die "BLOCK '$block': a block dim from 32 to 1024, a power of two"
    [ -r "$file" ] || die "FILE '$file': not readable"
    cat_=cat; [[ $file == *.gz ]] && cat_="gzip -dc"
    $cat_ "$file" | awk -v warps=$((block / 32 + 1)) -v name="$(basename "${file%.gz}" .csv)" '
    # one CSV line into f[1..n]: quoted fields may hold commas
    function split_csv(line, f,    n, i, c, q, cur) {
        n = 0; q = 0; cur = ""
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (c == "\"") { if (q && substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = !q }
            else if (c == "," && !q) { f[++n] = cur; cur = "" }
            else cur = cur c
        }
        f[++n] = cur
        return n
    }
    NR == 2 {
        nh = split_csv($0, h)
        for (i = 1; i <= nh; i++) {
            if (h[i] == "Source") col_src = i
            if (h[i] == "Instructions Executed") col_ex = i
            if (h[i] == "Warp Stall Sampling (All Samples)") col_s = i
            if (h[i] ~ /^stall_/ && h[i] !~ /Not Issued/) { reason[i] = substr(h[i], 7); nr++ }
        }
        if (!col_src || !col_ex || !col_s || !nr) { print "ncu_stall_split: " name ": not a source page with SourceCounters (--page source --csv --print-source sass)" > "/dev/stderr"; bad = 1; exit 2 }
    }
    NR > 2 {
        if (split_csv($0, f) < nh) next
        k++; src[k] = f[col_src]; ex[k] = f[col_ex] + 0; s[k] = f[col_s] + 0
        for (i in reason) st[k, reason[i]] = f[i] + 0
    }
    # who runs an instruction executed r times a loop iteration: every warp, the data
    # warps (1.5 or more), or the look-ahead warp alone
    function runner(r) { return r > warps - 0.5 ? "common" : r > 1.5 ? "data" : r > 0 ? "looker" : "common" }
    function polls_again(lo, hi,    i, f, p) {
        f = 0; p = 0
        for (i = lo; i <= hi; i++) if (src[i] ~ /LD\.E\.64\.STRONG\.GPU/ && ex[i] > f) f = ex[i]
        for (i = lo; i <= hi; i++) if (src[i] ~ /LD\.E\.64\.STRONG\.GPU/ && ex[i] > 0 && ex[i] < 0.95 * f && ex[i] > p) p = ex[i]
        return f ? sprintf("  look-ahead folds: %d, polls again %d (%.2f a fold)\n", f, p, p / f) : ""
    }
    function top4(who, d,    t, j, best, bv, line, used) {
        line = ""
        for (t = 1; t <= 4; t++) {
            best = ""; bv = -1
            for (j in reason) if (!(reason[j] in used) && why[who, reason[j]] > bv) { bv = why[who, reason[j]]; best = reason[j] }
            used[best] = 1; line = line sprintf("%s%s %.1f", t > 1 ? ", " : "", best, 100 * bv / d)
        }
        return line
    }
    function named_split(    i, j, id, n_ids, iter, lo, hi, r, c, per, barrier, lb, db) {
        iter = 0
        for (i = 1; i <= k; i++) if (src[i] ~ /BAR\.(ARV|SYNC)/) {
            id = src[i]; sub(/^.*BAR\.[A-Z_.]* /, "", id); sub(/,.*$/, "", id)
            if (id !~ /^0x[0-9a-f]+$/) { print "ncu_stall_split: " name ": a barrier named by a register (" id "): two look-ahead warps take turns, not modeled" > "/dev/stderr"; exit 2 }
            if (id != "0x0" && !(id in ids)) { ids[id] = 1; n_ids++ }
            if (src[i] ~ /BAR\.SYNC/ && id != "0x0" && ex[i] > 0 && (!iter || ex[i] < iter)) iter = ex[i]
        }
        if (n_ids != 2) { print "ncu_stall_split: " name ": " n_ids " named barriers, not the two of one look-ahead warp (two look-ahead warps are not modeled)" > "/dev/stderr"; exit 2 }
        lo = 0; hi = 0
        for (i = 1; i <= k; i++) if (ex[i] >= 0.9 * iter) { if (!lo) lo = i; hi = i }
        for (i = 1; i <= k; i++) {
            tot += s[i]; barrier += st[i, "barrier"]
            if (i < lo || i > hi) continue
            r = ex[i] / iter
            c = runner(r)
            cls[c] += s[i]; if (c == "looker") lb += st[i, "barrier"]; if (c == "data") db += st[i, "barrier"]
            for (j in reason) why[c, reason[j]] += st[i, reason[j]]
        }
        per = tot / warps
        printf "%s: named barriers, %.0f loop iterations a warp (all blocks), %d samples; look-ahead warp busy %.1f %%, a data warp %.1f %%; barrier %.1f %% of all samples\n", \
            name, iter, tot, 100 * (cls["looker"] - lb) / per, 100 * (cls["data"] - db) / (warps - 1) / per, 100 * barrier / tot
        printf "  look-ahead warp, the loop (%% of its time): %s\n", top4("looker", per)
        printf "  data warps, the loop (%% of their time): %s\n", top4("data", (warps - 1) * per)
        printf "%s", polls_again(lo, hi)
    }
    END {
        if (bad) exit 2
        for (i = 1; i <= k; i++) if (src[i] ~ /BAR\.ARV/) { named_split(); exit 0 }
        nb = 0; most = 0
        for (i = 1; i <= k; i++) if (src[i] ~ /BAR\.SYNC/ && ex[i] > most) most = ex[i]
        for (i = 1; i <= k; i++) if (src[i] ~ /BAR\.SYNC/ && ex[i] > 0.5 * most) bar[++nb] = i
        if (nb < 2) { print "ncu_stall_split: " name ": fewer than two block barriers in the loop" > "/dev/stderr"; exit 2 }
        b1 = bar[1]; b2 = bar[2]; iter = ex[b1] / warps
        top = 0; for (i = 1; i < b1; i++) if (src[i] ~ /EXIT/) top = i
        la = 0
        for (i = top + 1; i < b1; i++) if (src[i] ~ /ISETP/ && ex[i] > 0.99 * iter && ex[i] < 1.01 * iter) { la = i; break }
        if (!la) { print "ncu_stall_split: " name ": no look-ahead branch found" > "/dev/stderr"; exit 2 }
        for (i = 1; i <= k; i++) {
            if (i <= top) c = "setup"
            else if (i < la) c = "data"
            else if (i < b1 - 1) c = "looker"
            else if (i <= b1 + 1 || (i >= b2 - 1 && i <= b2 + 1)) c = "common"
            else c = runner(ex[i] / iter)
            cls[c] += s[i]; tot += s[i]
            if (c == "common") barrier += st[i, "barrier"]
            if (i > top && i < b1 - 1) for (j in reason) why[c, reason[j]] += st[i, reason[j]]
        }
        per = tot / warps
        printf "%s: block barriers, %.0f loop iterations a warp (all blocks), %d samples; look-ahead warp busy %.1f %%, a data warp %.1f %%; barrier %.1f %% of all samples\n", \
            name, iter, tot, 100 * cls["looker"] / per, 100 * cls["data"] / (warps - 1) / per, 100 * barrier / tot
        printf "  look-ahead warp, before the first barrier (%% of its time): %s\n", top4("looker", per)
        printf "  data warps, before the first barrier (%% of their time): %s\n", top4("data", (warps - 1) * per)
        printf "%s", polls_again(top + 1, k)
    }'
done
