/* summary.md: the best configuration per n, failures, totals. Its table's
 * columns are the columns table's (results_columns.c, md_pos). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/axes.h"
#include "harness/core/files.h"
#include "harness/results/results.h"
#include "harness/results/results_columns.h"
#include "harness/results/results_conditions.h"

/* ---- summary ------------------------------------------------------------------------------------ */

static void md_text(FILE *f, const char *s)
{
    for (const char *c = s ? s : ""; *c; c++) {
        if (*c == '|') fputs("\\|", f);
        else if (*c == '\n' || *c == '\r') fputc(' ', f);
        else fputc(*c, f);
    }
}

static int same_group(const sweep_row *a, const sweep_row *b)
{
    const variant *va = a->cfg.v, *vb = b->cfg.v;
    if (va->kind != vb->kind || a->cfg.dtype != b->cfg.dtype || a->cfg.op != b->cfg.op) return 0;
    return va->kind == KIND_REDUCE || a->cfg.scan_mode == b->cfg.scan_mode;
}

/* The columns table's entry shown at position pos of the summary table; NULL past the last. */
static const results_column *md_column(int pos)
{
    for (size_t i = 0; i < results_column_count; i++)
        if (results_columns[i].md_pos == pos) return &results_columns[i];
    return NULL;
}

/* The table's heading and alignment rows. */
static void table_head(FILE *f, int scan)
{
    const results_column *c;
    for (int pos = 1; (c = md_column(pos)); pos++)
        fprintf(f, "%s %s", pos > 1 ? " |" : "|", scan && c->md_head_scan ? c->md_head_scan : c->md_head);
    fputs(" |\n", f);
    for (int pos = 1; (c = md_column(pos)); pos++) fprintf(f, "|%s", c->md_align);
    fputs("|\n", f);
}

static void table_row(FILE *f, const sweep_row *r)
{
    const results_column *c;
    fputc('|', f);
    for (int pos = 1; (c = md_column(pos)); pos++) {
        char cell[256];
        c->md_cell(cell, sizeof cell, r);
        fprintf(f, cell[0] ? " %s |" : "%s |", cell);
    }
    fputc('\n', f);
}

/* The rows of the group led by rows[g], the fastest per n in ascending n;
 * marks them done. */
static void group_table(FILE *f, const sweep_row *rows, size_t n, size_t g, unsigned char *done)
{
    const sweep_row *lead = &rows[g];
    const variant *lv = lead->cfg.v;
    int scan = lv->kind == KIND_SCAN;
    fprintf(f, "\n### %s %s %s%s%s\n\n", kind_name(lv->kind), dtype_name(lead->cfg.dtype), op_name(lead->cfg.op),
            scan ? " " : "", scan ? scan_mode_name(lead->cfg.scan_mode) : "");
    table_head(f, scan);
    for (;;) {
        /* The smallest n not printed yet in this group. */
        size_t nmin = (size_t)-1;
        for (size_t i = g; i < n; i++)
            if (!done[i] && row_timed_ok(&rows[i]) && same_group(&rows[i], lead) && rows[i].cfg.n < nmin)
                nmin = rows[i].cfg.n;
        if (nmin == (size_t)-1) break;
        const sweep_row *best = NULL;
        for (size_t i = g; i < n; i++) {
            if (done[i] || !row_timed_ok(&rows[i]) || !same_group(&rows[i], lead) || rows[i].cfg.n != nmin)
                continue;
            done[i] = 1;
            if (!best || rows[i].cold.median < best->cold.median) best = &rows[i];
        }
        table_row(f, best);
    }
}

static void failures(FILE *f, const sweep_row *rows, size_t n, size_t count)
{
    fprintf(f, "\n## Failures (%zu)\n\n| configuration | status | error |\n|---|---|---|\n", count);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].status != ROW_INVALID && rows[i].status != ROW_ERROR) continue;
        char label[256];
        config_label(&rows[i].cfg, label, sizeof label);
        fprintf(f, "| %s | %s | ", label, row_status_name(rows[i].status));
        md_text(f, rows[i].error);
        fprintf(f, " |\n");
    }
}

/* Values asked that some variants cannot honour: what they ran instead. */
static void summary_notes(FILE *f, const run_info *ri)
{
    char notes[sizeof ri->run.notes];
    if (!ri) return;
    run_info_notes(ri, notes, sizeof notes);
    if (!notes[0]) return;
    fputs("Note: asked values some variants do not have; they ran their own: ", f);
    md_text(f, notes);
    fputs(".\n\n", f);
}

void summary_print(FILE *f, const sweep_row *rows, size_t n, const run_info *ri)
{
    size_t count[ROW_SKIPPED + 1] = {0};
    for (size_t i = 0; i < n; i++) count[rows[i].status]++;
    fprintf(f, "# Sweep %s%s\n\n", ri ? ri->run.experiment : "", ri && ri->run.interrupted ? " (interrupted)" : "");
    if (ri && ri->run.have_device) {
        fprintf(f, "%s, peak %.0f GB/s", ri->device.name, ri->run.peak_GBps);
        if (isfinite(ri->run.copy_GBps)) fprintf(f, ", measured copy %.0f GB/s", ri->run.copy_GBps);
        fprintf(f, ".\n\n");
    }
    summary_notes(f, ri);
    summary_confirmed(f, ri);
    fprintf(f, "## Best configuration per n (cold median)\n");
    /* Groups in order of first appearance; sizes ascending within each. */
    unsigned char *done = calloc(n ? n : 1, 1);
    for (size_t g = 0; g < n && done; g++)
        if (!done[g] && row_timed_ok(&rows[g])) group_table(f, rows, n, g, done);
    free(done);
    if (!count[ROW_OK]) fprintf(f, "\nNo configuration was timed.\n");
    if (count[ROW_INVALID] + count[ROW_ERROR]) failures(f, rows, n, count[ROW_INVALID] + count[ROW_ERROR]);
    fprintf(f, "\n%zu rows: %zu ok, %zu invalid, %zu error, %zu skipped.\n", n, count[ROW_OK], count[ROW_INVALID],
            count[ROW_ERROR], count[ROW_SKIPPED]);
    summary_conditions(f, rows, n, ri);
}

typedef struct summary_job {
    const sweep_row *rows;
    size_t n;
    const run_info *ri;
} summary_job;

static int render_summary(FILE *f, void *ctx)
{
    summary_job *j = ctx;
    summary_print(f, j->rows, j->n, j->ri);
    return ferror(f) ? -1 : 0;
}

int summary_write(const char *path, const sweep_row *rows, size_t n, const run_info *ri, char *err, size_t errlen)
{
    summary_job j = {rows, n, ri};
    return write_file_atomic(path, render_summary, &j, err, errlen);
}
