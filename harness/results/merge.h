/* `sweep merge OUT SHARD_DIR... [--force] [--quiet]`: the results directories
 * of one plan's shards (--shard I/N, --shard auto) into one results
 * directory, as if one process had run the whole plan.
 *
 * Checks, before anything is written (each a line naming the problem, exit 2):
 * every directory is a complete run (run.json complete, results.csv whole);
 * all carry one plan_fingerprint (one plan, one build) and one shard count;
 * each shard index 0..N-1 is there exactly once; no configuration is in two
 * shards; together they hold every configuration of the plan; OUT is empty
 * or absent (--force: written over).
 *
 * Written: results.csv (rows in plan order, the speed-up columns derived
 * again over all rows: a shard's baseline may be in another shard),
 * run.json (the first shard's, with the merged totals, "shard": null and
 * "shards": each shard's directory, index, host, device and wall time),
 * summary.md, and the charts when gnuplot is there. Exit 0, 1 when an output
 * could not be written, 2 on bad input. */
#ifndef HARNESS_MERGE_H
#define HARNESS_MERGE_H

int merge_main(int argc, char **argv);

#endif
