/* The settings table (harness/config/settings.h) and the parsers its entries name.
 * Every value parser of harness/config/axes.h is reached from here; an entry says
 * which, with which limits, and where the value lands in `experiment`. */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/settings.h"

#include <ctype.h>
#include <string.h>

#include "cupti/metrics.h"
#include "harness/config/axes.h"
#include "harness/config/plan_axes.h"
#include "plots/render.h"

#define FIELD(type) ((type *)((char *)e + s->field))

/* ---- the parsers an entry can name ---------------------------------------------------- */

/* Free text; s->max is the field's size. */
static int set_text(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    snprintf(FIELD(char), (size_t)s->max, "%s", text);
    return 0;
}

static int set_name(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (!experiment_name_ok(text)) {
        snprintf(err, errlen, "'%s': a name is letters, digits, '_', '-' and '.' (at most %d)", text,
                 EXPERIMENT_NAME_LEN - 1);
        return -1;
    }
    return set_text(s, text, e, err, errlen);
}

static int set_yes_no(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "1")) *FIELD(int) = 1;
    else if (!strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "0")) *FIELD(int) = 0;
    else {
        snprintf(err, errlen, "'%s': %s is yes or no", text, s->key);
        return -1;
    }
    return 0;
}

/* An integer in [s->min, s->max], stored as unsigned. */
static int set_count(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    long x;
    if (parse_count(text, s->min, s->max, &x, err, errlen)) return -1;
    *FIELD(unsigned) = (unsigned)x;
    return 0;
}

/* A parser of harness/config/axes.h (or below) whose value is one field of `type`. */
#define FIELD_PARSER(name, type, parse_fn)                                                             \
    static int name(const setting *s, const char *text, experiment *e, char *err, size_t errlen)      \
    {                                                                                                  \
        return parse_fn(text, FIELD(type), err, errlen);                                               \
    }

FIELD_PARSER(set_globs, glob_list, parse_globs)
FIELD_PARSER(set_sizes, size_list, parse_sizes)
FIELD_PARSER(set_block_dims, size_list, parse_block_dims)
FIELD_PARSER(set_coarse, size_list, parse_coarse)
FIELD_PARSER(set_dtypes, unsigned, parse_dtypes)
FIELD_PARSER(set_ops, unsigned, parse_ops)
FIELD_PARSER(set_scan_modes, unsigned, parse_scan_modes)
FIELD_PARSER(set_percent, double, parse_percent)
FIELD_PARSER(set_seconds, double, parse_seconds)
FIELD_PARSER(set_u64, uint64_t, parse_u64)
FIELD_PARSER(set_validate, size_t, parse_validate)
FIELD_PARSER(set_max_input_bytes, size_t, parse_max_input_bytes)

/* A throttle threshold: a percentage of the default SM clock, or 0 / off
 * (no check). Why not parse_percent: 0 means something here. */
static int set_threshold(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (!strcmp(text, "off") || !strcmp(text, "0")) {
        *FIELD(double) = 0;
        return 0;
    }
    return parse_percent(text, FIELD(double), err, errlen);
}

/* A delay: a duration up to 10 s, or 0. */
static int set_delay(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (!strcmp(text, "0")) {
        *FIELD(double) = 0;
        return 0;
    }
    if (parse_seconds(text, FIELD(double), err, errlen)) return -1;
    if (*FIELD(double) > 10) {
        snprintf(err, errlen, "'%s': %s is at most 10 s", text, s->key);
        return -1;
    }
    return 0;
}

/* Confirmation rounds: 0 (none) or at least 10, the fewest whose bootstrap
 * interval is worth stating. */
static int set_rounds(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (set_count(s, text, e, err, errlen)) return -1;
    unsigned r = *FIELD(unsigned);
    if (r > 0 && r < 10) {
        snprintf(err, errlen, "'%s': rounds is 0 (no confirmation) or 10..%ld", text, s->max);
        return -1;
    }
    return 0;
}

/* The policy lands in the field, the list of finishes in e->finishes. */
static int set_finishes(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    return parse_finishes(text, FIELD(finish_policy), &e->finishes, err, errlen);
}

/* A chart family of the report (plots/render.h); s->max is the field's size. */
static int set_lead_chart(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (!plots_chart_family_known(text)) {
        char known[256] = "";
        for (size_t i = 0; plots_chart_families[i]; i++) {
            size_t l = strlen(known);
            snprintf(known + l, sizeof known - l, "%s%s", i ? ", " : "", plots_chart_families[i]);
        }
        snprintf(err, errlen, "'%s': not a chart family (known: %s)", text, known);
        return -1;
    }
    return set_text(s, text, e, err, errlen);
}

/* The plan's order: variant or size. */
static int set_order(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    if (!strcmp(text, "variant")) *FIELD(plan_order) = PLAN_ORDER_VARIANT;
    else if (!strcmp(text, "size")) *FIELD(plan_order) = PLAN_ORDER_SIZE;
    else {
        snprintf(err, errlen, "'%s': %s is variant or size", text, s->key);
        return -1;
    }
    return 0;
}

/* The metrics mode and list (the field is where they start). */
static int set_metrics(const setting *s, const char *text, experiment *e, char *err, size_t errlen)
{
    (void)s;
    return parse_metrics(text, e, err, errlen);
}

/* ---- the table ---------------------------------------------------------------------------- */

#define AT(f) offsetof(experiment, f)
#define SIZE(f) sizeof(((experiment *)0)->f)
/* A setting that fills several adjacent fields: from `first` to the end of `last`. */
#define SPAN(first, last) (AT(last) + SIZE(last) - AT(first))

static const setting table[] = {
    {"experiment", "name", NULL, set_name, 0, EXPERIMENT_NAME_LEN, AT(name), SIZE(name), 0, "default",
     SETTING_FILE_ONLY, NULL, NULL},
    {"experiment", "description", NULL, set_text, 0, sizeof(((experiment *)0)->description), AT(description),
     SIZE(description), 0, "every variant, f32 sum, n = 2^10..2^30 (x4), block dims 64..1024, coarse factors 1..32",
     SETTING_FILE_ONLY, NULL, NULL},
    /* No fallback: a file that names no question or lead chart leaves them
     * to the renderer's rule rather than borrowing the default's. */
    {"experiment", "question", NULL, set_text, 0, sizeof(((experiment *)0)->question), AT(question), SIZE(question), 0,
     NULL, SETTING_FILE_ONLY, NULL, NULL},
    {"experiment", "lead_chart", NULL, set_lead_chart, 0, sizeof(((experiment *)0)->lead_chart), AT(lead_chart),
     SIZE(lead_chart), 0, NULL, SETTING_FILE_ONLY, NULL, NULL},
    {"experiment", "variants", "--variants", set_globs, 0, 0, AT(variants), SIZE(variants), AT(variants_origin), NULL,
     SETTING_HELP_PLAN, "GLOBS",
     "comma-separated variant name globs, or exact seed aliases;\n"
     "!GLOB excludes: 'reduce_*,!reduce_cub', 'reduce0,scan_*'"},
    {"experiment", "families", NULL, set_globs, 0, 0, AT(families), SIZE(families), AT(families_origin), NULL,
     SETTING_FILE_ONLY, NULL, NULL},
    {"experiment", "order", "--order", set_order, 0, 0, AT(order), SIZE(order), 0, "size", SETTING_HELP_PLAN,
     "ORDER",
     "the plan's order: size (every variant at one input, dtype,\n"
     "op and n, before the next: one CPU reference per input and\n"
     "profile batches across variants; the default) or variant\n"
     "(each variant's configurations together)"},
    {"axes", "sizes", "--sizes", set_sizes, 0, 0, AT(sizes), SIZE(sizes), 0, "2^10..2^30:x4", SETTING_HELP_PLAN, "LIST",
     "element counts: 1048576, 2^20, 1M, 2^10..2^30:x4,\n"
     "1000..8000:+1000 (ranges step x2 by default)",
     &plan_axis_sizes},
    {"axes", "block_dims", "--block-dims", set_block_dims, 0, 0, AT(block_dims), SIZE(block_dims), 0,
     "64, 128, 256, 512, 1024", SETTING_HELP_PLAN, "LIST",
     "threads per block, powers of two: 128,256 or 64..1024 or all", &plan_axis_block_dims},
    {"axes", "coarse", "--coarse", set_coarse, 0, 0, AT(coarse), SIZE(coarse), AT(coarse_origin), "1, 2, 4, 8, 16, 32",
     SETTING_HELP_PLAN, "LIST",
     "alias of --axis for each selected variant's one own axis\n"
     "(items_per_thread, vectors_in_flight, ...): 1..64; refused\n"
     "where a selected variant has two. Default 1..32",
     &plan_axis_coarse},
    {"axes", "dtypes", "--dtype", set_dtypes, 0, 0, AT(dtypes), SIZE(dtypes), 0, "f32", SETTING_HELP_PLAN, "LIST",
     "f32, f64, i32 or all", &plan_axis_dtypes},
    {"axes", "ops", "--op", set_ops, 0, 0, AT(ops), SIZE(ops), 0, "sum", SETTING_HELP_PLAN, "LIST",
     "sum, max, min or all", &plan_axis_ops},
    {"axes", "scan_modes", "--scan-mode", set_scan_modes, 0, 0, AT(scan_modes), SIZE(scan_modes), 0, "inclusive",
     SETTING_HELP_PLAN, "LIST", "scans: inclusive, exclusive or all", &plan_axis_scan_modes},
    {"axes", "finishes", "--finish", set_finishes, 0, 0, AT(finish_policy), SPAN(finish_policy, finishes), 0, "first",
     SETTING_HELP_PLAN, "LIST",
     "reductions: first (each variant's first), all, or\n"
     "recursive, two_step, atomic, none",
     &plan_axis_finishes},
    {"timing", "min_samples", "--min-samples", set_count, 1, 1000000, AT(timing.min_samples), SIZE(timing.min_samples),
     0, "10", SETTING_HELP_MEASURE, "N", "at least N samples per measurement (default 10)"},
    {"timing", "max_samples", "--max-samples", set_count, 1, 100000000, AT(timing.max_samples),
     SIZE(timing.max_samples), 0, "1000", SETTING_HELP_MEASURE, "N",
     "at most N samples per measurement (default 1000)"},
    {"timing", "max_noise", "--max-noise", set_percent, 0, 0, AT(timing.max_noise), SIZE(timing.max_noise), 0, "0.5",
     SETTING_HELP_MEASURE, "PCT",
     "stop once the median's relative standard error is below\n"
     "PCT percent (robust: from the MAD; default 0.5)"},
    {"timing", "timeout", "--timeout", set_seconds, 0, 0, AT(timing.timeout_s), SIZE(timing.timeout_s), 0, "0.1",
     SETTING_HELP_MEASURE, "SECONDS",
     "sampling time per configuration once min-samples are in,\n"
     "half cold, half hot (default 0.1; 500ms, 2s, 1m)"},
    {"timing", "throttle_threshold", "--throttle-threshold", set_threshold, 0, 0, AT(timing.throttle_threshold),
     SIZE(timing.throttle_threshold), 0, "75", SETTING_HELP_MEASURE, "PCT",
     "a sample whose SM clock (measured on the device around it)\n"
     "is below PCT percent of the default clock is discarded and\n"
     "taken again after the recovery delay (default 75; 0: off)"},
    {"timing", "throttle_recovery", "--throttle-recovery-delay", set_delay, 0, 0, AT(timing.throttle_recovery_s),
     SIZE(timing.throttle_recovery_s), 0, "0.05", SETTING_HELP_MEASURE, "SECONDS",
     "sleep before taking a throttled sample again; doubles after\n"
     "two in a row, up to 0.5 s (default 0.05; 0 allowed)"},
    {"timing", "drift_check", "--drift-check", set_count, 0, 1000, AT(drift_check), SIZE(drift_check), 0, "8",
     SETTING_HELP_MEASURE, "K",
     "measure the first K timed configurations again at the end\n"
     "of the run and report the drift (default 8; 0: none)"},
    {"timing", "screen", "--screen", set_count, 0, 1000, AT(timing.screen_samples), SIZE(timing.screen_samples), 0, "3",
     SETTING_HELP_MEASURE, "N",
     "time every configuration first to N samples a phase, then\n"
     "to the full rule only those that could be their variant's\n"
     "fastest at that input or lie within --refine-within of\n"
     "the input's fastest (default 3; 0: every one to the full rule)"},
    {"timing", "refine_within", "--refine-within", set_percent, 0, 0, AT(timing.refine_within), SIZE(timing.refine_within), 0, "5",
     SETTING_HELP_MEASURE, "PCT",
     "with --screen: also refine every configuration within PCT\n"
     "percent of the input's fastest, cold or hot (default 5)"},
    {"timing", "hot_below", "--hot-below", set_count, 0, 1000000, AT(timing.hot_below_l2), SIZE(timing.hot_below_l2), 0,
     "16", SETTING_HELP_MEASURE, "K",
     "time the hot phase only on inputs under K x the device's L2\n"
     "(default 16: from there a hot launch finds next to none of\n"
     "its input in L2; 0: on every input)"},
    {"confirm", "rounds", "--confirm-rounds", set_rounds, 0, 100, AT(confirm_rounds), SIZE(confirm_rounds), 0, "10",
     SETTING_HELP_MEASURE, "N",
     "where the plan has library rows (CUB), measure each size's\n"
     "candidates and the library again in N interleaved rounds\n"
     "and give each ratio a 95 % interval (default 10; 0: none)"},
    {"confirm", "candidates", "--confirm-candidates", set_count, 1, 8, AT(confirm_candidates), SIZE(confirm_candidates),
     0, "3", SETTING_HELP_MEASURE, "N", "at most N of ours per size in the confirmation (default 3)"},
    {"confirm", "within", "--confirm-within", set_percent, 0, 0, AT(confirm_within), SIZE(confirm_within), 0, "2",
     SETTING_HELP_MEASURE, "PCT",
     "a variant's best is a candidate when within PCT percent of\n"
     "the fastest, cold or hot (default 2)"},
    {"confirm", "margin", "--confirm-margin", set_threshold, 0, 0, AT(confirm_margin), SIZE(confirm_margin), 0, "1",
     SETTING_HELP_MEASURE, "PCT",
     "a confirmed ratio is faster or slower only when its whole 95 %\n"
     "interval clears 1 by PCT percent, else a tie (default 1: the\n"
     "movement of a confirmed ratio between processes; 0: the interval alone)"},
    /* Every configuration up to 2^26; above, one per variant and n: the CPU
     * reference over 2^28..2^30 elements per block dim and coarse factor
     * would take most of the default's 10 minutes. */
    {"axes", "max_input_bytes", NULL, set_max_input_bytes, 0, 0, AT(max_input_bytes), SIZE(max_input_bytes), 0, NULL,
     SETTING_FILE_ONLY, "BYTES", "skip configurations whose input is larger (per-dtype size caps)"},
    {"experiment", "validate", "--validate", set_validate, 0, 0, AT(validate_all_to), SIZE(validate_all_to), 0, "2^26",
     SETTING_HELP_MEASURE, "all|N",
     "validate every configuration (all), or every one up to\n"
     "n = N and above it the first per variant and n, and every one\n"
     "from 2^31 (default 2^26)"},
    {"experiment", "seed", "--seed", set_u64, 0, 0, AT(seed), SIZE(seed), 0, "20240601", SETTING_HELP_MEASURE, "N",
     "base seed of the random inputs"},
    {"profile", "metrics", "--metrics", set_metrics, 0, 0, AT(metrics_mode), SPAN(metrics_mode, metric_count), 0,
     "default", SETTING_HELP_MEASURE, "LIST",
     "the profile phase's metrics, one results.csv column each:\n"
     "study keys (warp_efficiency, dram_read_bytes, ...), legacy\n"
     "nvprof names or CUPTI names (dram__bytes_read.sum); default\n"
     "(the study's hardware counters, 2 passes), all (also the two\n"
     "SASS-patched ones, branch_uniformity and global_load_efficiency:\n"
     "a third pass, slow at large n) or none; default and all also\n"
     "inside a list. Unknown names: exit 2, with the\n"
     "closest known ones. Each configuration is replayed once per\n"
     "pass, after its timing, the L2 flushed and emptied in each pass"},
    /* 512: the main command (the default experiment) took 152.7 s with batches of 512 and 164.7 s with
     * 64, side by side on two H200s of one host, its profile stage 35.4 s and 45.9 s: eight times fewer
     * passes' starts and stops, the ranges the same (20.2 s and 19.3 s; experiments/results/h200x2/
     * main-command). full --shard 0/32 side by side in batches of at most 512, 128 and 64: its profile
     * stage 9.4, 12.1 and 13.3 ms a configuration, a pass's start and stop 0.216, 0.204 and 0.164 s, a
     * range 2.77, 2.99 and 2.56 ms with its kernel (experiments/results/h200x4/full-time-limit/host).
     * Alone on one H200 a pass's start and stop is 0.095 s + 0.55 ms a range, a range's push and pop
     * 1.1 ms at every fill (experiments/results/h200/range-cost): the larger the batch, the less a
     * configuration pays. */
    {"profile", "batch", "--profile-batch", set_count, 1, 512, AT(profile_batch), SIZE(profile_batch), 0, "512",
     SETTING_HELP_MEASURE, "N",
     "configurations one CUPTI session profiles together, at\n"
     "most (1..512, default 512: each pass's start and stop are\n"
     "shared by the batch)"},
    {"experiment", "cpu_baseline", NULL, set_yes_no, 0, 0, AT(cpu_baseline), SIZE(cpu_baseline), 0, NULL,
     SETTING_FILE_ONLY, NULL, NULL},
};
#undef SPAN
#undef SIZE
#undef AT

#define N_SETTINGS (sizeof table / sizeof table[0])
_Static_assert(N_SETTINGS <= SETTINGS_MAX, "raise SETTINGS_MAX (harness/config/settings.h)");

size_t settings_count(void) { return N_SETTINGS; }
const setting *settings_get(size_t i) { return i < N_SETTINGS ? &table[i] : NULL; }
size_t settings_index(const setting *s) { return (size_t)(s - table); }

const setting *settings_by_key(const char *section, const char *key)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (!strcmp(table[i].section, section) && !strcmp(table[i].key, key)) return &table[i];
    return NULL;
}

const setting *settings_by_flag(const char *flag, size_t len)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (table[i].flag && strlen(table[i].flag) == len && !strncmp(table[i].flag, flag, len)) return &table[i];
    return NULL;
}

int settings_section_known(const char *section)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (!strcmp(table[i].section, section)) return 1;
    return 0;
}

void settings_keys_of(const char *section, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < N_SETTINGS; i++) {
        if (strcmp(table[i].section, section)) continue;
        if (buf[0]) strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, table[i].key, len - strlen(buf) - 1);
    }
}

int setting_apply(const setting *s, const char *text, const char *origin, experiment *e, char *err, size_t errlen)
{
    if (s->parse(s, text, e, err, errlen)) return -1;
    if (s->origin && origin) snprintf((char *)e + s->origin, sizeof e->variants_origin, "%s", origin);
    return 0;
}

void setting_copy(const setting *s, const experiment *from, const char *origin, experiment *to)
{
    memcpy((char *)to + s->field, (const char *)from + s->field, s->size);
    if (s->origin && origin) snprintf((char *)to + s->origin, sizeof to->variants_origin, "%s", origin);
}

/* "  --flag METAVAR" in 24 columns, then the help; continuation lines under it. */
void settings_help_line(FILE *f, const char *flag, const char *metavar, const char *help)
{
    if (!help) return;
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", flag, metavar ? " " : "", metavar ? metavar : "");
    fprintf(f, "  %-22s  ", head);
    for (const char *p = help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n') fprintf(f, "%26s", "");
    }
    fputc('\n', f);
}

void settings_print_help(FILE *f, setting_group group)
{
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (table[i].group == group && table[i].flag)
            settings_help_line(f, table[i].flag, table[i].metavar, table[i].help);
}

/* ---- the built-in default experiment: each entry's fallback ------------------------------ */

void experiment_defaults(experiment *e)
{
    char err[1024];
    memset(e, 0, sizeof *e);
    for (size_t i = 0; i < N_SETTINGS; i++)
        if (table[i].fallback && table[i].parse(&table[i], table[i].fallback, e, err, sizeof err))
            fprintf(stderr, "sweep: built-in default %s: %s\n", table[i].key, err); /* a table bug */
}

int experiment_name_ok(const char *name)
{
    if (!name || !*name || strlen(name) >= EXPERIMENT_NAME_LEN) return 0;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.') return 0;
    return name[0] != '.';
}

/* ---- values with rules of their own -------------------------------------------------------- */

static int metric_name_ok(const char *m)
{
    if (!*m) return 0;
    for (const char *c = m; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.:-", *c)) return 0;
    return 1;
}

static char *trim_in_place(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    return s;
}

/* The list's names, each a well-formed name that the metric plan knows. */
static int parse_metric_list(char *s, experiment *e, char *err, size_t errlen)
{
    e->metric_count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        tok = trim_in_place(tok);
        if (!metric_name_ok(tok) || strlen(tok) >= EXPERIMENT_METRIC_LEN) {
            snprintf(err, errlen, "'%s' is not a metric name (default, none, or names like dram__bytes_read.sum)",
                     tok);
            return -1;
        }
        if (e->metric_count >= EXPERIMENT_MAX_METRICS) {
            snprintf(err, errlen, "more than %d metrics", EXPERIMENT_MAX_METRICS);
            return -1;
        }
        snprintf(e->metrics[e->metric_count++], EXPERIMENT_METRIC_LEN, "%s", tok);
    }
    if (!e->metric_count) {
        snprintf(err, errlen, "empty list (default, none, or metric names)");
        return -1;
    }
    return 0;
}

int parse_metrics(const char *text, experiment *e, char *err, size_t errlen)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    char *s = trim_in_place(buf);
    if (!strcmp(s, "default") || !strcmp(s, "none")) {
        e->metrics_mode = !strcmp(s, "none") ? METRICS_NONE : METRICS_DEFAULT;
        e->metric_count = 0;
        return 0;
    }
    if (parse_metric_list(s, e, err, errlen)) return -1;
    /* Study keys, nvprof names and well-formed CUPTI names pass here; whether
     * the chip knows a CUPTI name is the profiler's check, once a device is open. */
    const char *names[EXPERIMENT_MAX_METRICS];
    for (size_t i = 0; i < e->metric_count; i++) names[i] = e->metrics[i];
    char why[1024];
    metric_plan *plan = metric_plan_new(names, e->metric_count, why, sizeof why);
    if (!plan) {
        snprintf(err, errlen, "%s", why);
        e->metric_count = 0;
        return -1;
    }
    metric_plan_free(plan);
    e->metrics_mode = METRICS_LIST;
    return 0;
}

int parse_validate(const char *text, size_t *all_to, char *err, size_t errlen)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    char *s = trim_in_place(buf);
    if (!strcmp(s, "all")) {
        *all_to = 0;
        return 0;
    }
    size_list l;
    char msg[256];
    if (parse_sizes(s, &l, msg, sizeof msg) || l.count != 1 || strstr(s, "..")) {
        snprintf(err, errlen, "'%s': 'all' or one size (every configuration up to that n is validated)", s);
        return -1;
    }
    *all_to = l.v[0];
    return 0;
}
