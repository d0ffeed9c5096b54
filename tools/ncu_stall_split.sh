#!/usr/bin/env bash
# Where the warps of a look-ahead scan block wait: Nsight Compute's per-instruction
# warp-state samples of scan_lookahead_bulk split between its look-ahead warp and its
# data warps.
#
# Input: ncu's source page of one kernel as CSV, SASS only, with the SourceCounters
# section collected:
#   ncu ... --section WarpStateStats --section SourceCounters -o REP bin/sweep ...
#   ncu --import REP.ncu-rep --page source --csv --print-source sass > K-sass.csv
# (.gz taken as well). BLOCK is the scan's block dim (its data threads; the
# look-ahead warp is one more). Only for instances whose rounds meet at two block
# barriers: builds before the named round barriers (0bc29a7), and today's at 8 and
# 16 items per thread with one look-ahead warp. At 32 items, and with two
# look-ahead warps (f64 at 8 or 16 items), the rounds meet at named barriers
# (bar.arrive on one side, bar.sync on the other), which this split does not
# model; on such a page it stops with exit status 2.
#
# How the instructions are told apart: in the main loop every warp of a block runs
# the same number of iterations (the two barriers run most often are the loop's),
# so an instruction's "Instructions Executed" over
# the iterations says who runs it: the warps at the two block barriers (all
# BLOCK/32 + 1), and the data warps' share between the loop's top and the
# look-ahead warp's branch (its first instruction run once an iteration by one
# warp). Between the barriers an instruction run about once per iteration per warp
# is the look-ahead warp's, more is the data warps'. Every warp of a block lives
# as long as the block, so each is sampled alike: a warp's share of the samples is
# its share of the time, and "busy" is the time a warp spends outside the two
# barriers (issuing, or stalled on anything but the barrier).
#
# Usage: tools/ncu_stall_split.sh BLOCK FILE [BLOCK FILE ...]
# Prints, per file: iterations per warp, samples, the look-ahead warp's and a data
# warp's busy share, the barrier's share of all samples, and the look-ahead warp's
# and the data warps' top stall reasons (percent of that warp's time).
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
    END {
        if (bad) exit 2
        nb = 0; most = 0
        for (i = 1; i <= k; i++) if (src[i] ~ /BAR\.SYNC/ && ex[i] > most) most = ex[i]
        for (i = 1; i <= k; i++) if (src[i] ~ /BAR\.SYNC/ && ex[i] > 0.5 * most) bar[++nb] = i
        if (nb < 2) { print "ncu_stall_split: " name ": fewer than two block barriers in the loop (named round barriers are not modeled)" > "/dev/stderr"; exit 2 }
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
            else { r = ex[i] / iter; c = r > warps - 0.5 ? "common" : r > 1.5 ? "data" : r > 0 ? "looker" : "common" }
            cls[c] += s[i]; tot += s[i]
            if (c == "common") barrier += st[i, "barrier"]
            if (i > top && i < b1 - 1) for (j in reason) why[c, reason[j]] += st[i, reason[j]]
        }
        per = tot / warps
        printf "%s: %.0f loop iterations a warp (all blocks), %d samples; look-ahead warp busy %.1f %%, a data warp %.1f %%; barrier %.1f %% of all samples\n", \
            name, iter, tot, 100 * cls["looker"] / per, 100 * cls["data"] / (warps - 1) / per, 100 * barrier / tot
        for (g = 1; g <= 2; g++) {
            who = g == 1 ? "looker" : "data"; d = g == 1 ? per : (warps - 1) * per
            line = ""; delete used
            for (t = 1; t <= 4; t++) {
                best = ""; bv = -1
                for (j in reason) if (!(reason[j] in used) && why[who, reason[j]] > bv) { bv = why[who, reason[j]]; best = reason[j] }
                used[best] = 1; line = line sprintf("%s%s %.1f", t > 1 ? ", " : "", best, 100 * bv / d)
            }
            printf "  %s: %s\n", g == 1 ? "look-ahead warp, before the first barrier (% of its time)" : "data warps, before the first barrier (% of their time)", line
        }
    }'
done
