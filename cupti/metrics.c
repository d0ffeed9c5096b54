/* Metric names: the table, the default set and derived values; see metrics.h. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "cupti/metrics.h"

#include "cupti/msg.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARP_LANES 32.0

const metric_def metric_table[] = {
    {"warp_efficiency", "warp execution efficiency",
     "smsp__thread_inst_executed_per_inst_executed.ratio", NULL, "fraction",
     "warp_execution_efficiency", METRIC_PER_LANE, 0},
    {"warp_active_threads", "warp execution efficiency (active threads per warp instruction)",
     "smsp__thread_inst_executed_per_inst_executed.ratio", NULL, "threads",
     "warp_execution_efficiency", METRIC_RAW, 0},
    {"warp_pred_on_efficiency", "warp efficiency, predicated-on threads only",
     "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", NULL, "fraction",
     "warp_nonpred_execution_efficiency", METRIC_PER_LANE, 0},
    {"warp_pred_on_threads", "predicated-on threads per warp instruction",
     "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio", NULL, "threads",
     "warp_nonpred_execution_efficiency", METRIC_RAW, 0},
    {"branch_uniformity", "branch uniformity",
     "smsp__sass_average_branch_targets_threads_uniform.pct", NULL, "%",
     "branch_efficiency", METRIC_RAW, 1},
    {"shared_ld_bank_conflicts", "shared-memory bank conflicts (loads)",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", NULL, "conflicts",
     "shared_ld_bank_conflict", METRIC_RAW, 0},
    {"shared_st_bank_conflicts", "shared-memory bank conflicts (stores)",
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", NULL, "conflicts",
     "shared_st_bank_conflict", METRIC_RAW, 0},
    {"shared_ld_wavefronts_per_request", "shared wavefronts per request (loads)",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
     "smsp__inst_executed_op_shared_ld.sum", "wavefronts/request",
     "shared_load_transactions_per_request", METRIC_QUOTIENT, 0},
    {"shared_st_wavefronts_per_request", "shared wavefronts per request (stores)",
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
     "smsp__inst_executed_op_shared_st.sum", "wavefronts/request",
     "shared_store_transactions_per_request", METRIC_QUOTIENT, 0},
    {"dram_read_bytes", "DRAM bytes read", "dram__bytes_read.sum", NULL, "bytes",
     "dram_read_bytes", METRIC_RAW, 0},
    {"dram_write_bytes", "DRAM bytes written", "dram__bytes_write.sum", NULL, "bytes",
     "dram_write_bytes", METRIC_RAW, 0},
    {"dram_read_bandwidth", "achieved DRAM bandwidth (reads)", "dram__bytes_read.sum.per_second",
     NULL, "bytes/s", "dram_read_throughput", METRIC_RAW, 0},
    {"dram_write_bandwidth", "achieved DRAM bandwidth (writes)",
     "dram__bytes_write.sum.per_second", NULL, "bytes/s", "dram_write_throughput", METRIC_RAW, 0},
    {"dram_utilization", "DRAM utilisation (% of peak)",
     "dram__throughput.avg.pct_of_peak_sustained_elapsed", NULL, "%", "dram_utilization",
     METRIC_RAW, 0},
    {"achieved_occupancy", "achieved occupancy",
     "sm__warps_active.avg.pct_of_peak_sustained_active", NULL, "%", "achieved_occupancy",
     METRIC_RAW, 0},
    {"global_load_efficiency", "global load efficiency",
     "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", NULL, "%",
     "gld_efficiency", METRIC_RAW, 1},
    {"l2_hit_rate", "L2 hit rate", "lts__t_sector_hit_rate.pct", NULL, "%", "l2_hit_rate",
     METRIC_RAW, 0},
    {"instructions", "instructions executed", "smsp__inst_executed.sum", NULL,
     "warp instructions", "inst_executed", METRIC_RAW, 0},
    {"duration", "kernel duration (inflated under profiling)", "gpu__time_duration.sum", NULL,
     "ns", "", METRIC_RAW, 0},
};

const size_t metric_table_count = sizeof metric_table / sizeof metric_table[0];

const metric_def *metric_find_key(const char *key)
{
    if (!key)
        return NULL;
    for (size_t i = 0; i < metric_table_count; i++)
        if (strcmp(metric_table[i].key, key) == 0)
            return &metric_table[i];
    return NULL;
}

const metric_def *metric_find_nvprof(const char *nvprof)
{
    if (!nvprof || !*nvprof)
        return NULL;
    for (size_t i = 0; i < metric_table_count; i++)
        if (strcmp(metric_table[i].nvprof, nvprof) == 0)
            return &metric_table[i];
    return NULL;
}

int metric_name_check(const char *name, char *msg, size_t msglen)
{
    if (!name || !*name) {
        cupti_msg_set(msg, msglen, "empty metric name");
        return -1;
    }
    size_t len = strlen(name);
    if (len >= METRIC_NAME_MAX) {
        cupti_msg_set(msg, msglen, "metric name '%.40s...' is longer than %d characters", name,
                METRIC_NAME_MAX - 1);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!(isalnum(c) || c == '_' || c == '.')) {
            cupti_msg_set(msg, msglen, "metric name '%s' has '%c' at position %zu (allowed: letters, digits, '_', '.')",
                    name, isprint(c) ? c : '?', i);
            return -1;
        }
    }
    if (name[0] == '.' || name[len - 1] == '.' || strstr(name, "..")) {
        cupti_msg_set(msg, msglen, "metric name '%s' has an empty part between dots", name);
        return -1;
    }
    const char *dot = strchr(name, '.');
    const char *unit_sep = strstr(name, "__");
    if (!unit_sep || unit_sep == name || (dot && unit_sep > dot)) {
        cupti_msg_set(msg, msglen, "'%s' is not a CUPTI metric name (those read <unit>__<counter>.<rollup>, "
                "e.g. dram__bytes_read.sum)", name);
        return -1;
    }
    return 0;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int metric_list_split(const char *list, char (*names)[METRIC_NAME_MAX], size_t cap,
                      size_t *count, char *msg, size_t msglen)
{
    if (count)
        *count = 0;
    if (!count || (!names && cap > 0)) {
        cupti_msg_set(msg, msglen, "metric_list_split: NULL argument");
        return -1;
    }
    if (!list)
        return 0;
    size_t n = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *b = p, *e = end;
        while (b < e && is_space(*b))
            b++;
        while (e > b && is_space(e[-1]))
            e--;
        size_t len = (size_t)(e - b);
        if (len > 0) {
            if (len >= METRIC_NAME_MAX) {
                cupti_msg_set(msg, msglen, "metric name '%.40s...' is longer than %d characters", b,
                        METRIC_NAME_MAX - 1);
                return -1;
            }
            int seen = 0;
            for (size_t i = 0; i < n && !seen; i++)
                seen = strlen(names[i]) == len && memcmp(names[i], b, len) == 0;
            if (!seen) {
                if (n == cap) {
                    cupti_msg_set(msg, msglen, "more than %zu metrics in the list", cap);
                    *count = n;
                    return -1;
                }
                memcpy(names[n], b, len);
                names[n][len] = '\0';
                n++;
            }
        }
        if (!*end)
            break;
        p = end + 1;
    }
    *count = n;
    return 0;
}

#define EDIT_MAX 255

size_t metric_edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, EDIT_MAX), lb = strnlen(b, EDIT_MAX);
    size_t row[EDIT_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0]; /* row[i-1][j-1] */
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j]; /* row[i-1][j] */
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

size_t metric_suggest(const char *name, const char *const *candidates, size_t n,
                      const char **out, size_t k)
{
    if (!name || !candidates || !out || k == 0)
        return 0;
    size_t len = strlen(name);
    size_t limit = len / 2 > 3 ? len / 2 : 3;
    /* Keep the k best as (rank, distance) pairs: rank is the distance, capped
     * at `limit` for substring matches so those always qualify. */
    size_t got = 0;
    size_t rank[16], dist[16];
    if (k > 16)
        k = 16;
    for (size_t c = 0; c < n; c++) {
        const char *cand = candidates[c];
        if (!cand || !*cand)
            continue;
        int dup = 0;
        for (size_t i = 0; i < got && !dup; i++)
            dup = strcmp(out[i], cand) == 0;
        if (dup)
            continue;
        size_t d = metric_edit_distance(name, cand);
        size_t r = d;
        if (r > limit && len >= 4 && strstr(cand, name))
            r = limit;
        if (r > limit)
            continue;
        /* insertion position: after every entry that is at least as good */
        size_t pos = got;
        while (pos > 0 && (rank[pos - 1] > r || (rank[pos - 1] == r && dist[pos - 1] > d)))
            pos--;
        if (pos >= k)
            continue;
        size_t last = got < k ? got : k - 1;
        for (size_t i = last; i > pos; i--) {
            out[i] = out[i - 1];
            rank[i] = rank[i - 1];
            dist[i] = dist[i - 1];
        }
        out[pos] = cand;
        rank[pos] = r;
        dist[pos] = d;
        if (got < k)
            got++;
    }
    return got;
}

void metric_append_suggestions(char *msg, size_t msglen, const char *name,
                               const char *const *candidates, size_t n)
{
    const char *best[3];
    size_t got = metric_suggest(name, candidates, n, best, 3);
    if (got == 0) {
        cupti_msg_append(msg, msglen, " (no close match)");
        return;
    }
    cupti_msg_append(msg, msglen, "; closest: ");
    for (size_t i = 0; i < got; i++)
        cupti_msg_append(msg, msglen, "%s%s", i ? ", " : "", best[i]);
}

static size_t add_unique(const char **out, size_t n, size_t cap, const char *s)
{
    if (!s || !*s || n >= cap)
        return n;
    for (size_t i = 0; i < n; i++)
        if (strcmp(out[i], s) == 0)
            return n;
    out[n] = s;
    return n + 1;
}

size_t metric_table_candidates(const char **out, size_t cap)
{
    size_t n = 0;
    if (!out)
        return 0;
    for (size_t i = 0; i < metric_table_count; i++) {
        const metric_def *d = &metric_table[i];
        n = add_unique(out, n, cap, d->key);
        n = add_unique(out, n, cap, d->nvprof);
        n = add_unique(out, n, cap, d->name);
        n = add_unique(out, n, cap, d->denominator);
    }
    return n;
}

double metric_derive(metric_kind kind, double num, double den)
{
    switch (kind) {
    case METRIC_RAW:
        return num;
    case METRIC_PER_LANE:
        return num / WARP_LANES;
    case METRIC_QUOTIENT:
        return den == 0.0 ? NAN : num / den;
    }
    return NAN;
}

/* ---- plans ---- */

/* Index of CUPTI name `name` in plan->raw, adding it when absent. */
static size_t plan_raw(metric_plan *p, const char *name)
{
    for (size_t i = 0; i < p->nraw; i++)
        if (strcmp(p->raw[i], name) == 0)
            return i;
    size_t i = p->nraw++;
    snprintf(p->raw_text[i], METRIC_NAME_MAX, "%s", name);
    p->raw[i] = p->raw_text[i];
    return i;
}

static const metric_def *find_raw_name(const char *name)
{
    for (size_t i = 0; i < metric_table_count; i++)
        if (metric_table[i].kind == METRIC_RAW && strcmp(metric_table[i].name, name) == 0)
            return &metric_table[i];
    return NULL;
}

static int plan_add(metric_plan *p, const char *name, char *msg, size_t msglen)
{
    const metric_def *def = metric_find_key(name);
    if (!def)
        def = metric_find_nvprof(name);
    const char *key = def ? def->key : name;
    for (size_t i = 0; i < p->ncolumns; i++)
        if (strcmp(p->columns[i].key, key) == 0)
            return 0; /* repeated column */
    if (p->ncolumns == METRIC_PLAN_MAX) {
        cupti_msg_set(msg, msglen, "more than %d metric columns", METRIC_PLAN_MAX);
        return -1;
    }
    metric_column *col = &p->columns[p->ncolumns];
    memset(col, 0, sizeof *col);
    if (def) {
        snprintf(col->key, sizeof col->key, "%s", def->key);
        col->unit = def->unit;
        col->def = def;
        col->kind = def->kind;
        col->num = plan_raw(p, def->name);
        col->den = def->kind == METRIC_QUOTIENT ? plan_raw(p, def->denominator) : 0;
    } else {
        char why[256] = "";
        if (metric_name_check(name, why, sizeof why) != 0) {
            const char *cands[4 * 64];
            size_t nc = metric_table_candidates(cands, sizeof cands / sizeof cands[0]);
            cupti_msg_set(msg, msglen, "unknown metric '%s': %s", name, why);
            metric_append_suggestions(msg, msglen, name, cands, nc);
            return -1;
        }
        const metric_def *same = find_raw_name(name);
        snprintf(col->key, sizeof col->key, "%s", name);
        col->unit = same ? same->unit : "";
        col->def = same;
        col->kind = METRIC_RAW;
        col->num = plan_raw(p, name);
        col->den = 0;
    }
    p->ncolumns++;
    return 0;
}

/* One item of a list: a name, or "default" / "all" for a set of keys. */
static int plan_add_item(metric_plan *p, const char *item, char *msg, size_t msglen)
{
    int all = strcmp(item, "all") == 0;
    if (!all && strcmp(item, "default") != 0)
        return plan_add(p, item, msg, msglen);
    for (size_t i = 0; i < metric_table_count; i++)
        if ((all || !metric_table[i].instrumented) && plan_add(p, metric_table[i].key, msg, msglen) != 0)
            return -1;
    return 0;
}

metric_plan *metric_plan_new(const char *const *names, size_t count, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!names || count == 0) {
        cupti_msg_set(msg, msglen, "empty metric list");
        return NULL;
    }
    metric_plan *p = calloc(1, sizeof *p);
    if (!p) {
        cupti_msg_set(msg, msglen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (!names[i]) {
            cupti_msg_set(msg, msglen, "metric name %zu is NULL", i);
            free(p);
            return NULL;
        }
        if (plan_add_item(p, names[i], msg, msglen) != 0) {
            free(p);
            return NULL;
        }
    }
    return p;
}

metric_plan *metric_plan_parse(const char *list, char *msg, size_t msglen)
{
    char (*buf)[METRIC_NAME_MAX] = malloc(METRIC_PLAN_MAX * sizeof *buf);
    if (!buf) {
        cupti_msg_set(msg, msglen, "out of memory");
        return NULL;
    }
    size_t n = 0;
    if (metric_list_split(list, buf, METRIC_PLAN_MAX, &n, msg, msglen) != 0) {
        free(buf);
        return NULL;
    }
    const char *ptrs[METRIC_PLAN_MAX];
    for (size_t i = 0; i < n; i++)
        ptrs[i] = buf[i];
    metric_plan *p = metric_plan_new(ptrs, n, msg, msglen);
    free(buf);
    return p;
}

size_t metric_default_keys(const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < metric_table_count && n < cap; i++)
        if (!metric_table[i].instrumented)
            out[n++] = metric_table[i].key;
    return n;
}

metric_plan *metric_plan_default(void)
{
    const char *keys[METRIC_PLAN_MAX];
    return metric_plan_new(keys, metric_default_keys(keys, METRIC_PLAN_MAX), NULL, 0);
}

void metric_plan_eval(const metric_plan *plan, const double *raw, double *columns)
{
    if (!plan || !raw || !columns)
        return;
    for (size_t i = 0; i < plan->ncolumns; i++) {
        const metric_column *c = &plan->columns[i];
        columns[i] = metric_derive(c->kind, raw[c->num],
                                   c->kind == METRIC_QUOTIENT ? raw[c->den] : 0.0);
    }
}

void metric_plan_free(metric_plan *plan)
{
    free(plan);
}
