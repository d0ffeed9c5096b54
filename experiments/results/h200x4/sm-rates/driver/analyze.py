#!/usr/bin/python3
"""Reads rates.csv files (driver/rates.cu) and prints, per file:
- each copy's time as % of cudaMemcpy in the same rep (geometric mean over reps);
- ticket: tiles per SM (its two blocks) as a share of the mean, min and max,
  and how alike two reps are (correlation of the per-SM counts across SMs);
- fixed and lockstep: per-SM rate (tiles over the block's own time), its min
  and max over the mean, the spread of the blocks' end times, and the
  correlation of the per-SM rates with ticket's counts (are the same SMs
  slow in both orders);
- the fixed copy predicted from ticket alone: every block with the same
  tiles ends when the slowest SM does, time = mean(k) / min(k) of ticket's
  (per SM, averaged over reps), against the fixed copy measured.
Usage: analyze.py rates.csv[.gz|.xz] [...]
       analyze.py --csv rates-summary.csv CARD=rates.csv.xz [...]  (the table FINDINGS quotes)
       analyze.py --plain scan-timings.csv CARD=plain.txt [...]    (the scan's runs beside them)"""
import csv
import gzip
import lzma
import sys
from collections import defaultdict

import numpy as np


def load(path):
    launch, blocks = {}, defaultdict(list)
    text = gzip.open(path, "rt") if path.endswith(".gz") else lzma.open(path, "rt") if path.endswith(".xz") else open(path)
    for row in csv.DictReader(text):
        key = (int(row["rep"]), row["kernel"])
        if row["block"] == "-1":
            launch[key] = float(row["us"])
        else:
            blocks[key].append((int(row["smid"]), int(row["tiles"]), int(row["t0_ns"]), int(row["t1_ns"])))
    return launch, blocks


def per_sm(recs, value):
    """Sum (value 'tiles') or mean rate ('rate', tiles per ns) of each SM's blocks."""
    acc = defaultdict(list)
    for sm, tiles, t0, t1 in recs:
        acc[sm].append(tiles if value == "tiles" else tiles / max(t1 - t0, 1))
    return {sm: (sum(v) if value == "tiles" else float(np.mean(v))) for sm, v in acc.items()}


def gmean(x):
    return float(np.exp(np.mean(np.log(x))))


def report(path):
    launch, blocks = load(path)
    reps = sorted({r for r, _ in launch})
    print(f"== {path}: {len(reps)} reps")
    kernels = [k for k in ("fixed", "ticket", "lockstep", "lockstep_words", "ticket_big_gpcs", "ticket_small_gpcs")
               if (reps[0], k) in launch]
    for k in kernels:
        pct = [100 * launch[(r, "memcpy")] / launch[(r, k)] for r in reps]
        print(f"{k:14s} % of memcpy: {gmean(pct):6.2f} (reps {min(pct):.2f}-{max(pct):.2f})")
    sms = sorted(per_sm(blocks[(reps[0], "ticket")], "tiles"))
    tick = np.array([[per_sm(blocks[(r, "ticket")], "tiles")[s] for s in sms] for r in reps], float)
    rel = tick / tick.mean(axis=1, keepdims=True)
    print(f"ticket  tiles an SM / mean: min {rel.min(axis=1).mean():.4f} p5 {np.percentile(rel, 5, axis=1).mean():.4f}"
          f" max {rel.max(axis=1).mean():.4f} (per rep, averaged); cv {rel.std(axis=1).mean():.4f}")
    if len(reps) > 1:
        cc = [np.corrcoef(tick[i], tick[j])[0, 1] for i in range(len(reps)) for j in range(i + 1, len(reps))]
        print(f"ticket  per-SM counts, rep against rep: correlation median {np.median(cc):.3f}")
    avg = rel.mean(axis=0)
    fast = avg > 1.1
    print(f"ticket  {fast.sum()} SMs over 1.1 of the mean take {avg[fast].mean() if fast.any() else 0:.4f} each,"
          f" the other {(~fast).sum()} {avg[~fast].mean():.4f}; fast SMs {[sms[i] for i in np.flatnonzero(fast)]}")
    print(f"ticket  averaged over reps: min {avg.min():.4f} max {avg.max():.4f}; slowest SMs {[sms[i] for i in np.argsort(avg)[:6]]}")
    for k in [k for k in kernels if not k.startswith("ticket")]:
        rate = np.array([[per_sm(blocks[(r, k)], "rate")[s] for s in sms] for r in reps], float)
        frel = rate / rate.mean(axis=1, keepdims=True)
        ends = [np.array([t1 for _, _, _, t1 in blocks[(r, k)]], float) for r in reps]
        spread = np.mean([e.min() / e.max() for e in ends]), np.mean([np.median(e) / e.max() for e in ends])
        cc = [np.corrcoef(tick[i], rate[i])[0, 1] for i in range(len(reps))]
        print(f"{k:14s} rate an SM / mean: min {frel.min(axis=1).mean():.4f} max {frel.max(axis=1).mean():.4f};"
              f" first end / last {spread[0]:.4f}, median end / last {spread[1]:.4f};"
              f" correlation with ticket's count, same SM: {np.median(cc):.3f}")
    # Each group alone: a copy that gives every SM the same bytes makes each group carry
    # its SMs' share of them, so it moves at most (group alone) / (group's share of SMs).
    groups = [k for k in ("ticket_big_gpcs", "ticket_small_gpcs") if k in kernels]
    bounds = []
    for k in groups:
        working = {sm for sm, tiles, _, _ in blocks[(reps[0], k)] if tiles > 0}
        pct = gmean([100 * launch[(r, "memcpy")] / launch[(r, k)] for r in reps])
        bounds.append(pct * len(sms) / len(working))
        print(f"{k:14s} on {len(working)} SMs: {pct:.2f} % of memcpy; with every SM's bytes equal,"
              f" at most {bounds[-1]:.2f}")
    if bounds:
        print(f"equal bytes per SM: bound {min(bounds):.2f} % of memcpy (the scan's fixed tiles)")
    # Prediction from ticket: the fixed copy takes mean/min of ticket's per-SM rate
    # (per rep, and with the rates averaged over reps: the SMs' lasting part).
    t_pct = gmean([100 * launch[(r, "memcpy")] / launch[(r, "ticket")] for r in reps])
    f_pct = gmean([100 * launch[(r, "memcpy")] / launch[(r, "fixed")] for r in reps])
    pred_rep = gmean([100 * launch[(r, "memcpy")] / launch[(r, "ticket")] * rel[i].min() for i, r in enumerate(reps)])
    pred_avg = t_pct * avg.min()
    print(f"predicted fixed % of memcpy from ticket: {pred_rep:.2f} (each rep's slowest SM), {pred_avg:.2f}"
          f" (slowest SM over reps); measured {f_pct:.2f}")


def summary_rows(path, card):
    """Rows of rates-summary.csv: one per kernel of a rates file, and one for its SM groups."""
    launch, blocks = load(path)
    reps = sorted({r for r, _ in launch})
    rows = []
    for k in sorted({k for _, k in launch if k != "memcpy"}):
        pct = [100 * launch[(r, "memcpy")] / launch[(r, k)] for r in reps]
        row = {"card": card, "file": path.split("/")[-1].replace(".gz", "").replace(".xz", ""), "kernel": k,
               "pct_of_memcpy": f"{gmean(pct):.2f}", "pct_min": f"{min(pct):.2f}", "pct_max": f"{max(pct):.2f}"}
        recs = blocks[(reps[0], k)]
        row["sms_copying"] = str(len({sm for sm, tiles, _, _ in recs if tiles > 0}))
        ends = [np.array([t1 for _, _, _, t1 in blocks[(r, k)]], float) for r in reps]
        row["first_end_over_last"] = f"{np.mean([e.min() / e.max() for e in ends]):.2f}"
        row["median_end_over_last"] = f"{np.mean([np.median(e) / e.max() for e in ends]):.2f}"
        rows.append(row)
    sms = sorted(per_sm(blocks[(reps[0], "ticket")], "tiles"))
    tick = np.array([[per_sm(blocks[(r, "ticket")], "tiles")[s] for s in sms] for r in reps], float)
    avg = (tick / tick.mean(axis=1, keepdims=True)).mean(axis=0)
    fast = avg > 1.1
    cc = [np.corrcoef(tick[i], tick[j])[0, 1] for i in range(len(reps)) for j in range(i + 1, len(reps))]
    rows.append({"card": card, "file": path.split("/")[-1].replace(".gz", "").replace(".xz", ""), "kernel": "groups",
                 "fast_sms": str(int(fast.sum())), "fast_share": f"{avg[fast].mean():.3f}",
                 "slow_share": f"{avg[~fast].mean():.3f}", "launch_correlation": f"{np.median(cc):.3f}"})
    return rows


SUMMARY = ["card", "file", "kernel", "pct_of_memcpy", "pct_min", "pct_max", "sms_copying", "first_end_over_last",
           "median_end_over_last", "fast_sms", "fast_share", "slow_share", "launch_correlation"]

# plain.txt's tags (the call scripts' runs of the scan driver): dtype, log2 n, block dim, items
PLAIN_TAGS = {"f32": ("f32", 28, 256, 32), "f32-2p30": ("f32", 30, 256, 32), "f64": ("f64", 27, 128, 32),
              "f64w": ("f64", 27, 256, 16)}


def plain_rows(path, card):
    """Rows of scan-timings.csv: each process's mean % of cudaMemcpy, per build and configuration."""
    runs = defaultdict(list)  # (build, tag) -> per-process lists, a process's reps in order from rep 0
    for line in open(path):
        f = line.split()
        if len(f) < 3 or f[1] != "rep" or not f[0].startswith("p-"):
            continue
        build, tag = f[0][2:].split("-", 1)
        if f[2] == "0":
            runs[(build, tag)].append([])
        runs[(build, tag)][-1].append(float(f[-1]))
    rows = []
    for (build, tag), procs in sorted(runs.items()):
        dtype, log2n, block, items = PLAIN_TAGS[tag]
        for i, reps in enumerate(procs):
            rows.append({"card": card, "build": build, "dtype": dtype, "log2n": str(log2n), "block_dim": str(block),
                         "items_per_thread": str(items), "process": str(i + 1), "reps": str(len(reps)),
                         "pct_of_memcpy_mean": f"{np.mean(reps):.2f}"})
    return rows


PLAIN = ["card", "build", "dtype", "log2n", "block_dim", "items_per_thread", "process", "reps", "pct_of_memcpy_mean"]

if len(sys.argv) > 2 and sys.argv[1] == "--plain":
    # analyze.py --plain OUT CARD=plain.txt ...: the scan's timings, landed build against q1n
    with open(sys.argv[2], "w", newline="") as f:
        w = csv.DictWriter(f, PLAIN)
        w.writeheader()
        for arg in sys.argv[3:]:
            card, path = arg.split("=", 1)
            w.writerows(plain_rows(path, card))
elif len(sys.argv) > 2 and sys.argv[1] == "--csv":
    # analyze.py --csv OUT CARD=FILE ...: the summary of each file, CARD naming its card
    with open(sys.argv[2], "w", newline="") as f:
        w = csv.DictWriter(f, SUMMARY, restval="")
        w.writeheader()
        for arg in sys.argv[3:]:
            card, path = arg.split("=", 1)
            w.writerows(summary_rows(path, card))
else:
    for p in sys.argv[1:]:
        report(p)
