/* What a run found, and the chart it exists for: the opening of the report
 * (plots/answer.c).
 *
 * The answer, per kind x dtype x op (and scan mode, from confirm.csv): for
 * each size, the fastest configuration of ours against a reference, the
 * library row where the group has one, else the baseline rung (--baseline,
 * else the variant aliased reduce0 or naive, else the group's first
 * variant). The speed-up and its 95 % interval come from confirm.csv where
 * the run confirmed that size, else from the rows' own medians and noise.
 * Adjacent sizes with the same fastest variant and the same verdict share
 * one line.
 *
 * The lead chart: run.json's experiment_info.lead_chart, else the rule
 * (lead_family). */
#ifndef PLOTS_ANSWER_H
#define PLOTS_ANSWER_H

#include "plots/doc.h"
#include "plots/internal.h"

/* "## What this run found": the question, how the numbers were made, and
 * the table. */
void answer_write(doc *d);

/* "At the memory's limit": for each group with a library series, at each n
 * from 2^24 where both sides have DRAM counters (dram__bytes_read.sum,
 * dram__throughput.avg.pct_of_peak_sustained_elapsed), the fastest of ours
 * and the library's bytes read per element and share of peak side by side
 * (plots/answer_counters.c). Nothing when the run has neither counter. */
void answer_counters(doc *d);

/* The chart family the run leads with, and where it came from: run.json
 * (*from_run 1), else the rule: "ladder" when every group is a reduction
 * with a ladder (group_has_ladder), else "speedup-vs-cub" when a group has a
 * library row, else "heatmap" when every group holds one variant, else
 * "bandwidth". */
const char *lead_family(const render_ctx *ctx, int *from_run);

/* The family group gi shows as its lead: lead itself where the group has
 * such a chart, else speedup-vs-cub where it has one, else bandwidth. */
const char *group_lead_family(const render_ctx *ctx, int gi, const char *lead);

/* The run's question: run.json's experiment_info.question, else the lead
 * family's standing question, said to be one, with the experiment's
 * description where run.json has it (*from_run 0). */
void run_question(const render_ctx *ctx, const char *lead, char *buf, size_t len, int *from_run);

/* A ladder exists in group g when it holds its bottom rung: the variant
 * --baseline names, else one aliased reduce0 or naive. */
int group_has_ladder(const render_ctx *ctx, const group *g);

/* Is chart c of family fam (its stem starts with "<fam>-")? */
int chart_is_family(const chart *c, const char *fam);

/* The chart's family: the longest known family its stem starts with, or NULL. */
const char *chart_family(const chart *c);

#endif
