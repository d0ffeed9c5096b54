#define _POSIX_C_SOURCE 200809L
#include "harness/plan.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "cupti/metrics.h"
#include "harness/cpu_variant.h"
#include "harness/timing.h"
#include "kernels/registry.h"

/* ---- the default experiment -------------------------------------------------------- */

void experiment_defaults(experiment *e)
{
    char err[128];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "default");
    snprintf(e->description, sizeof e->description,
             "every variant, f32 sum, n = 2^10..2^30 (x4), block dims 64..1024, coarse factors 1..32");
    e->variants.count = 0;
    e->families.count = 0;
    parse_sizes("2^10..2^30:x4", &e->sizes, err, sizeof err);
    parse_pow2_list("64, 128, 256, 512, 1024", 32, 1024, "block dims", &e->block_dims, err, sizeof err);
    parse_pow2_list("1, 2, 4, 8, 16, 32", 1, 1024, "coarse factors", &e->coarse, err, sizeof err);
    e->dtypes = 1u << DTYPE_F32;
    e->ops = 1u << OP_SUM;
    e->scan_modes = 1u << SCAN_INCLUSIVE;
    e->finish_policy = FINISHES_FIRST;
    e->finishes = 0;
    e->timing.min_samples = TIMING_DEFAULT_MIN_SAMPLES;
    e->timing.max_samples = TIMING_DEFAULT_MAX_SAMPLES;
    e->timing.max_noise = TIMING_DEFAULT_MAX_NOISE;
    e->timing.timeout_s = TIMING_DEFAULT_TIMEOUT_S;
    e->seed = 20240601;
    /* Every configuration up to 2^26; above, one per variant and n: the CPU
     * reference over 2^28..2^30 elements per block dim and coarse factor
     * would take most of the default's 10 minutes. */
    e->validate_all_to = (size_t)1 << 26;
    e->metrics_mode = METRICS_DEFAULT;
    e->metric_count = 0;
}

int experiment_name_ok(const char *name)
{
    if (!name || !*name || strlen(name) >= EXPERIMENT_NAME_LEN) return 0;
    for (const char *c = name; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-' && *c != '.') return 0;
    return name[0] != '.';
}

/* ---- experiment files ------------------------------------------------------------------ */

static const char *const sections[] = {"experiment", "axes", "timing", "profile"};
static const struct {
    const char *section, *key;
} known_keys[] = {
    {"experiment", "name"},     {"experiment", "description"}, {"experiment", "variants"},
    {"experiment", "families"}, {"experiment", "seed"},        {"experiment", "validate"},
    {"experiment", "cpu_baseline"},
    {"axes", "sizes"},
    {"axes", "block_dims"},     {"axes", "coarse"},            {"axes", "dtypes"},
    {"axes", "ops"},            {"axes", "scan_modes"},        {"axes", "finishes"},
    {"timing", "min_samples"},  {"timing", "max_samples"},     {"timing", "max_noise"},
    {"timing", "timeout"},      {"profile", "metrics"},
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])
#define N_KEYS (sizeof known_keys / sizeof known_keys[0])

#define MAX_ENTRIES 64
#define VALUE_LEN 4096

typedef struct entry {
    char section[32], key[32];
    char value[VALUE_LEN];
    int line;
} entry;

typedef struct ini_src {
    const char *str; /* the whole file's bytes (text_check passed) */
    size_t len;
    size_t pos;
    int line;          /* the line the parser is on */
    int at_line_start; /* the last chunk ended a line */
    int indented;      /* the current line starts with white space */
    int eof;
    char section[32];
    int section_line[N_SECTIONS];
    entry entries[MAX_ENTRIES];
    size_t n_entries;
    int last_entry; /* index of the entry the previous line set, -1 none */
    int last_line;
    int err_line;
    char err[512];
} ini_src;

static void src_error(ini_src *s, int line, const char *fmt, ...)
{
    if (s->err[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    s->err_line = line;
}

/* Raw chunk: like fgets, from the buffer. */
static char *read_chunk(ini_src *s, char *buf, int num)
{
    if (s->pos >= s->len) {
        s->eof = 1;
        return NULL;
    }
    int k = 0;
    while (k < num - 1 && s->pos < s->len) {
        char c = s->str[s->pos++];
        buf[k++] = c;
        if (c == '\n') break;
    }
    buf[k] = '\0';
    return buf;
}

static int more_input(ini_src *s) { return s->pos < s->len; }

static int section_index(const char *name)
{
    for (size_t i = 0; i < N_SECTIONS; i++)
        if (!strcmp(sections[i], name)) return (int)i;
    return -1;
}

/* The reader inih calls per line: counts lines, sees section headers (so an
 * unknown or repeated one is reported even when empty) and rejects lines too
 * long for inih's buffer instead of letting it split them. */
static char *line_reader(char *buf, int num, void *stream)
{
    ini_src *s = stream;
    if (s->err[0]) return NULL;
    char *r = read_chunk(s, buf, num);
    if (!r) return NULL;
    if (s->at_line_start) {
        s->line++;
        s->indented = buf[0] == ' ' || buf[0] == '\t';
        const char *t = buf;
        while (isspace((unsigned char)*t)) t++;
        if (*t == '[') {
            const char *close = strchr(t, ']');
            if (close) {
                char name[64];
                size_t len = (size_t)(close - t - 1);
                if (len >= sizeof name) len = sizeof name - 1;
                memcpy(name, t + 1, len);
                name[len] = '\0';
                int idx = section_index(name);
                if (idx < 0) {
                    src_error(s, s->line, "unknown section [%s] (known: [experiment], [axes], [timing], [profile])",
                              name);
                    return NULL;
                }
                if (s->section_line[idx]) {
                    src_error(s, s->line, "section [%s] repeated (first at line %d)", name, s->section_line[idx]);
                    return NULL;
                }
                s->section_line[idx] = s->line;
            }
        }
    }
    size_t len = strlen(buf);
    int ends_line = len > 0 && buf[len - 1] == '\n';
    if (!ends_line && (int)len == num - 1 && more_input(s)) {
        src_error(s, s->line, "line longer than %d characters (continue a long list on indented lines)", num - 2);
        return NULL;
    }
    s->at_line_start = ends_line;
    return buf;
}

static int key_known(const char *section, const char *key)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(known_keys[i].section, section) && !strcmp(known_keys[i].key, key)) return 1;
    return 0;
}

static void keys_of(const char *section, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < N_KEYS; i++) {
        if (strcmp(known_keys[i].section, section)) continue;
        if (buf[0]) strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, known_keys[i].key, len - strlen(buf) - 1);
    }
}

static int key_handler(void *user, const char *section, const char *name, const char *raw_value)
{
    ini_src *s = user;
    if (s->err[0]) return 0;
    int line = s->line;
    /* Inline comments (" ; ...") -- inih drops them on key lines but not on
     * every build's continuation lines. */
    char value[VALUE_LEN];
    snprintf(value, sizeof value, "%s", raw_value ? raw_value : "");
    for (char *c = value; *c; c++)
        if (*c == ';' && (c == value || c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            break;
        }
    for (size_t n = strlen(value); n && isspace((unsigned char)value[n - 1]);) value[--n] = '\0';
    /* An indented line continues the previous key's value (inih's multi-line
     * values): join with a comma, so lists can span lines. */
    if (s->indented && s->last_entry >= 0 && s->last_line < line &&
        !strcmp(s->entries[s->last_entry].key, name) && !strcmp(s->entries[s->last_entry].section, section)) {
        entry *en = &s->entries[s->last_entry];
        size_t used = strlen(en->value);
        while (used && isspace((unsigned char)en->value[used - 1])) en->value[--used] = '\0';
        /* "a," + "b" and "a" + ", b" and "a" + "b" all give "a, b" */
        const char *sep = !used || en->value[used - 1] == ',' || value[0] == ',' ? " " : ", ";
        int w = snprintf(en->value + used, sizeof en->value - used, "%s%s", used ? sep : "", value);
        if (w < 0 || (size_t)w >= sizeof en->value - used) {
            src_error(s, line, "%s: value longer than %d characters", name, VALUE_LEN - 1);
            return 0;
        }
        s->last_line = line;
        return 1;
    }
    if (!section[0]) {
        src_error(s, line, "'%s' is outside a section (start with [experiment])", name);
        return 0;
    }
    if (!key_known(section, name)) {
        char keys[256];
        keys_of(section, keys, sizeof keys);
        src_error(s, line, "unknown key '%s' in [%s] (known: %s)", name, section, keys);
        return 0;
    }
    for (size_t i = 0; i < s->n_entries; i++)
        if (!strcmp(s->entries[i].section, section) && !strcmp(s->entries[i].key, name)) {
            src_error(s, line, "duplicate key '%s' in [%s] (first at line %d)", name, section, s->entries[i].line);
            return 0;
        }
    if (s->n_entries >= MAX_ENTRIES || strlen(value) >= VALUE_LEN) {
        src_error(s, line, "%s: too long", name);
        return 0;
    }
    entry *en = &s->entries[s->n_entries];
    snprintf(en->section, sizeof en->section, "%s", section);
    snprintf(en->key, sizeof en->key, "%s", name);
    snprintf(en->value, sizeof en->value, "%s", value);
    en->line = line;
    s->last_entry = (int)s->n_entries++;
    s->last_line = line;
    return 1;
}

static int metric_name_ok(const char *m)
{
    if (!*m) return 0;
    for (const char *c = m; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("_.:-", *c)) return 0;
    return 1;
}

int parse_metrics(const char *text, experiment *e, char *err, size_t errlen)
{
    char buf[VALUE_LEN];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    char *s = buf;
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    if (!strcmp(s, "default")) {
        e->metrics_mode = METRICS_DEFAULT;
        e->metric_count = 0;
        return 0;
    }
    if (!strcmp(s, "none")) {
        e->metrics_mode = METRICS_NONE;
        e->metric_count = 0;
        return 0;
    }
    e->metric_count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok)) tok++;
        size_t l = strlen(tok);
        while (l && isspace((unsigned char)tok[l - 1])) tok[--l] = '\0';
        if (!metric_name_ok(tok) || l >= EXPERIMENT_METRIC_LEN) {
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
    char *s = buf;
    while (isspace((unsigned char)*s)) s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
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

/* Apply one key; err gets the message without the location. */
static int apply_entry(experiment *e, const entry *en, char *err, size_t errlen)
{
    const char *k = en->key, *v = en->value;
    long x;
    if (!strcmp(en->section, "experiment")) {
        if (!strcmp(k, "name")) {
            if (!experiment_name_ok(v)) {
                snprintf(err, errlen, "'%s': a name is letters, digits, '_', '-' and '.' (at most %d)", v,
                         EXPERIMENT_NAME_LEN - 1);
                return -1;
            }
            snprintf(e->name, sizeof e->name, "%s", v);
            return 0;
        }
        if (!strcmp(k, "description")) {
            snprintf(e->description, sizeof e->description, "%s", v);
            return 0;
        }
        if (!strcmp(k, "variants")) return parse_globs(v, &e->variants, err, errlen);
        if (!strcmp(k, "families")) return parse_globs(v, &e->families, err, errlen);
        if (!strcmp(k, "seed")) return parse_u64(v, &e->seed, err, errlen);
        if (!strcmp(k, "validate")) return parse_validate(v, &e->validate_all_to, err, errlen);
        if (!strcmp(k, "cpu_baseline")) {
            if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1")) e->cpu_baseline = 1;
            else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0")) e->cpu_baseline = 0;
            else {
                snprintf(err, errlen, "'%s': cpu_baseline is yes or no", v);
                return -1;
            }
            return 0;
        }
    } else if (!strcmp(en->section, "axes")) {
        if (!strcmp(k, "sizes")) return parse_sizes(v, &e->sizes, err, errlen);
        if (!strcmp(k, "block_dims")) return parse_block_dims(v, &e->block_dims, err, errlen);
        if (!strcmp(k, "coarse")) return parse_coarse(v, &e->coarse, err, errlen);
        if (!strcmp(k, "dtypes")) return parse_dtypes(v, &e->dtypes, err, errlen);
        if (!strcmp(k, "ops")) return parse_ops(v, &e->ops, err, errlen);
        if (!strcmp(k, "scan_modes")) return parse_scan_modes(v, &e->scan_modes, err, errlen);
        if (!strcmp(k, "finishes")) return parse_finishes(v, &e->finish_policy, &e->finishes, err, errlen);
    } else if (!strcmp(en->section, "timing")) {
        if (!strcmp(k, "min_samples")) {
            if (parse_count(v, 1, 1000000, &x, err, errlen)) return -1;
            e->timing.min_samples = (unsigned)x;
            return 0;
        }
        if (!strcmp(k, "max_samples")) {
            if (parse_count(v, 1, 100000000, &x, err, errlen)) return -1;
            e->timing.max_samples = (unsigned)x;
            return 0;
        }
        if (!strcmp(k, "max_noise")) return parse_percent(v, &e->timing.max_noise, err, errlen);
        if (!strcmp(k, "timeout")) return parse_seconds(v, &e->timing.timeout_s, err, errlen);
    } else if (!strcmp(en->section, "profile")) {
        if (!strcmp(k, "metrics")) return parse_metrics(v, e, err, errlen);
    }
    snprintf(err, errlen, "unknown key");
    return -1;
}

static int parse_src(ini_src *s, const char *path, experiment *e, char *err, size_t errlen)
{
    s->at_line_start = 1;
    s->last_entry = -1;
    int r = ini_parse_stream(line_reader, s, key_handler, s);
    if (s->err[0]) {
        snprintf(err, errlen, "%s:%d: %s", path, s->err_line, s->err);
        return -1;
    }
    if (r > 0) {
        snprintf(err, errlen, "%s:%d: syntax error: expected 'key = value', '[section]' or a comment", path, r);
        return -1;
    }
    if (r < 0) {
        snprintf(err, errlen, "%s: cannot read (inih error %d)", path, r);
        return -1;
    }
    int min_line = 0, max_line = 0;
    for (size_t i = 0; i < s->n_entries; i++) {
        char msg[512];
        const entry *en = &s->entries[i];
        if (apply_entry(e, en, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%d: %s: %s", path, en->line, en->key, msg);
            return -1;
        }
        if (!strcmp(en->key, "variants")) snprintf(e->variants_origin, sizeof e->variants_origin, "%s:%d", path, en->line);
        if (!strcmp(en->key, "families")) snprintf(e->families_origin, sizeof e->families_origin, "%s:%d", path, en->line);
        if (!strcmp(en->key, "min_samples")) min_line = en->line;
        if (!strcmp(en->key, "max_samples")) max_line = en->line;
    }
    if (e->timing.max_samples < e->timing.min_samples) {
        snprintf(err, errlen, "%s:%d: max_samples (%u) is below min_samples (%u)", path,
                 max_line ? max_line : min_line, e->timing.max_samples, e->timing.min_samples);
        return -1;
    }
    return 0;
}

static void name_from_path(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(name, len, "%s", base);
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, ".ini")) name[n - 4] = '\0';
}

/* An experiment file is UTF-8 text: no NUL or other control bytes (tab, CR
 * and LF aside), no malformed UTF-8. A binary file (or a truncated download,
 * or the wrong file) is reported where its first offending byte is. */
static int text_check(const char *data, size_t len, const char *path, char *err, size_t errlen)
{
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)data[i];
        if (c == '\n') {
            line++;
            line_start = ++i;
            continue;
        }
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
            snprintf(err, errlen, "%s:%d: binary data (byte 0x%02x at column %zu): an experiment file is text",
                     path, line, c, i - line_start + 1);
            return -1;
        }
        size_t need = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 9;
        int ok = need < 9 && i + need < len && !(c == 0xc0 || c == 0xc1 || c > 0xf4);
        for (size_t k = 1; ok && k <= need; k++) ok = ((unsigned char)data[i + k] & 0xc0) == 0x80;
        if (!ok) {
            snprintf(err, errlen, "%s:%d: not UTF-8 text (byte 0x%02x at column %zu): an experiment file is text",
                     path, line, c, i - line_start + 1);
            return -1;
        }
        i += need + 1;
    }
    return 0;
}

int experiment_parse_buffer(const char *data, size_t len, const char *display_path, experiment *e, char *err,
                            size_t errlen)
{
    experiment_defaults(e);
    char name[EXPERIMENT_NAME_LEN];
    name_from_path(display_path, name, sizeof name);
    if (experiment_name_ok(name)) snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->source, sizeof e->source, "%s", display_path);
    if (len > EXPERIMENT_FILE_MAX) {
        snprintf(err, errlen, "%s: %zu bytes: larger than an experiment file can be (%d KiB)", display_path, len,
                 EXPERIMENT_FILE_MAX >> 10);
        return -1;
    }
    if (text_check(data, len, display_path, err, errlen)) return -1;
    ini_src *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "%s: out of memory", display_path);
        return -1;
    }
    s->str = data;
    s->len = len;
    int r = parse_src(s, display_path, e, err, errlen);
    if (!r && s->n_entries == 0) {
        snprintf(err, errlen, "%s: empty experiment file: it sets no key (an empty or truncated file?)",
                 display_path);
        r = -1;
    }
    free(s);
    return r;
}

int experiment_parse_string(const char *text, const char *display_path, experiment *e, char *err, size_t errlen)
{
    return experiment_parse_buffer(text, strlen(text), display_path, e, err, errlen);
}

int experiment_load(const char *path, experiment *e, char *err, size_t errlen)
{
    experiment_defaults(e);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        fclose(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not an experiment file: %s", path,
                 S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        fclose(f);
        return -1;
    }
    /* One byte more than the limit: a larger file is reported as such. */
    char *data = malloc(EXPERIMENT_FILE_MAX + 1);
    if (!data) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    size_t len = fread(data, 1, EXPERIMENT_FILE_MAX + 1, f);
    int read_error = ferror(f);
    int saved = errno;
    fclose(f);
    if (read_error) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(saved));
        free(data);
        return -1;
    }
    int r = experiment_parse_buffer(data, len, path, e, err, errlen);
    free(data);
    return r;
}

/* ---- selection -------------------------------------------------------------------------- */

/* The names a variant answers to: its name and each alias ("reduce0, reduce_v0,
 * sum_reduce (seed 003)" gives reduce0, reduce_v0, sum_reduce). */
static size_t variant_names(const variant *v, char names[][AXES_GLOB_LEN], size_t max)
{
    size_t k = 0;
    snprintf(names[k++], AXES_GLOB_LEN, "%s", v->name);
    const char *p = v->alias;
    while (p && *p && k < max) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        size_t len = strcspn(p, ", ");
        if (len >= AXES_GLOB_LEN) len = AXES_GLOB_LEN - 1;
        memcpy(names[k], p, len);
        names[k][len] = '\0';
        k++;
        p += len;
        if (*p == ' ') p += strcspn(p, ","); /* skip "(seed 003)" up to the next comma */
    }
    return k;
}

/* names[0] is the variant's name, the rest its aliases. A pattern with
 * wildcards matches names only ("reduce_*" must not pick scan_reduce_then_scan
 * through its alias reduce_then_scan); an exact word matches aliases too
 * ("reduce0"). */
static int glob_hits(const char *pat, char names[][AXES_GLOB_LEN], size_t n)
{
    if (strpbrk(pat, "*?[")) n = n ? 1 : 0;
    for (size_t i = 0; i < n; i++)
        if (fnmatch(pat, names[i], 0) == 0) return 1;
    return 0;
}

static int list_selects(const glob_list *g, char names[][AXES_GLOB_LEN], size_t n)
{
    int positives = 0, hit = 0;
    for (size_t i = 0; i < g->count; i++) {
        const char *pat = g->pat[i];
        if (pat[0] == '!') {
            if (glob_hits(pat + 1, names, n)) return 0;
        } else {
            positives++;
            if (glob_hits(pat, names, n)) hit = 1;
        }
    }
    return positives == 0 || hit;
}

int experiment_selects(const experiment *e, const variant *v)
{
    char names[16][AXES_GLOB_LEN];
    size_t n = variant_names(v, names, 16);
    if (!list_selects(&e->variants, names, n)) return 0;
    char fam[1][AXES_GLOB_LEN];
    snprintf(fam[0], AXES_GLOB_LEN, "%s", v->family);
    return list_selects(&e->families, fam, 1);
}

/* ---- plans -------------------------------------------------------------------------------- */

static int push_config(sweep_plan *p, size_t *cap, const sweep_config *c)
{
    if (p->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 256;
        sweep_config *bigger = realloc(p->configs, ncap * sizeof *bigger);
        if (!bigger) return -1;
        p->configs = bigger;
        *cap = ncap;
    }
    p->configs[p->count++] = *c;
    if (c->skip_reason) p->skipped++;
    return 0;
}

/* A set of AXIS_BIT values with one member is not an axis of the variant. */
static int single_bit(unsigned mask) { return mask && !(mask & (mask - 1)); }

/* A variant named exactly (not through a wildcard) with a dtype and op that
 * were both narrowed (neither axis is every value) is asked for that pair on
 * purpose: if it cannot do it, that is a usage error naming the pair and the
 * variant's limits. Through a glob, or with `all` on an axis, such
 * configurations are skipped rows with the same reason instead. */
static int check_named_pairs(const experiment *e, char *err, size_t errlen)
{
    const unsigned all_dtypes = (1u << DTYPE_COUNT) - 1, all_ops = (1u << OP_COUNT) - 1;
    if ((e->dtypes & all_dtypes) == all_dtypes || (e->ops & all_ops) == all_ops) return 0;
    for (size_t i = 0; i < e->variants.count; i++) {
        const char *pat = e->variants.pat[i];
        if (pat[0] == '!' || strpbrk(pat, "*?[")) continue;
        for (size_t r = 0; r < registry_count(); r++) {
            const variant *v = registry_get(r);
            char names[16][AXES_GLOB_LEN];
            size_t n = variant_names(v, names, 16);
            if (!glob_hits(pat, names, n) || !experiment_selects(e, v)) continue;
            for (int d = 0; d < DTYPE_COUNT; d++) {
                if (!(e->dtypes & (1u << d))) continue;
                for (int o = 0; o < OP_COUNT; o++) {
                    if (!(e->ops & (1u << o))) continue;
                    if ((v->dtypes & (1u << d)) && (v->ops & (1u << o)) && !(v->excluded_pairs & PAIR_BIT(d, o)))
                        continue;
                    const char *origin = e->variants_origin;
                    char named[2 * AXES_GLOB_LEN + 8];
                    if (strcmp(pat, v->name)) snprintf(named, sizeof named, "%s (%s)", pat, v->name);
                    else snprintf(named, sizeof named, "%s", v->name);
                    snprintf(err, errlen, "%s%s%s: %s does not do %s %s: %s", origin[0] == '-' ? "" : origin,
                             origin[0] && origin[0] != '-' ? ": " : "", origin[0] == '-' ? origin : "variants",
                             named, dtype_name((dtype_t)d), op_name((op_t)o),
                             v->limits ? v->limits : "not among its dtypes and ops (see --list)");
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* One cpu_serial row per dtype, op and n for which the plan has a reduction. */
static int add_cpu_baseline(const experiment *e, sweep_plan *p, size_t *cap)
{
    size_t planned = p->count;
    int added = 0;
    for (int d = 0; d < DTYPE_COUNT; d++)
        for (int o = 0; o < OP_COUNT; o++)
            for (size_t i = 0; i < e->sizes.count; i++) {
                int any = 0;
                for (size_t k = 0; k < planned && !any; k++) {
                    const sweep_config *c = &p->configs[k];
                    any = c->v->kind == KIND_REDUCE && !c->skip_reason && c->a.dtype == (dtype_t)d &&
                          c->a.op == (op_t)o && c->a.n == e->sizes.v[i];
                }
                if (!any) continue;
                sweep_config cfg;
                memset(&cfg, 0, sizeof cfg);
                cfg.v = &cpu_serial_variant;
                cfg.a.dtype = (dtype_t)d;
                cfg.a.op = (op_t)o;
                cfg.a.n = e->sizes.v[i];
                cfg.a.block_dim = 1;
                cfg.a.coarse = 1;
                cfg.a.finish = FINISH_NONE;
                cfg.a.scan_mode = SCAN_INCLUSIVE;
                cfg.validate = 1;
                if (push_config(p, cap, &cfg)) return -1;
                added = 1;
            }
    if (added) p->variants++;
    return 0;
}

int plan_build(const experiment *e, sweep_plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    /* Every glob must match something: a typo is an error, not an empty plan. */
    for (int which = 0; which < 2; which++) {
        const glob_list *g = which ? &e->families : &e->variants;
        for (size_t i = 0; i < g->count; i++) {
            const char *pat = g->pat[i][0] == '!' ? g->pat[i] + 1 : g->pat[i];
            int hit = 0;
            for (size_t r = 0; r < registry_count() && !hit; r++) {
                const variant *v = registry_get(r);
                char names[16][AXES_GLOB_LEN];
                size_t n;
                if (which) {
                    snprintf(names[0], AXES_GLOB_LEN, "%s", v->family);
                    n = 1;
                } else {
                    n = variant_names(v, names, 16);
                }
                hit = glob_hits(pat, names, n);
            }
            if (!hit) {
                const char *origin = which ? e->families_origin : e->variants_origin;
                const char *key = which ? "families" : "variants";
                if (origin[0] == '-') /* the command line names itself */
                    snprintf(err, errlen, "%s: '%s' matches no %s (see --list)", origin, pat,
                             which ? "variant family" : "variant name or alias");
                else
                    snprintf(err, errlen, "%s%s%s: '%s' matches no %s (see --list)", origin, origin[0] ? ": " : "",
                             key, pat, which ? "variant family" : "variant name or alias");
                return -1;
            }
        }
    }
    if (!e->sizes.count || !e->block_dims.count || !e->coarse.count || !e->dtypes || !e->ops || !e->scan_modes) {
        snprintf(err, errlen, "an axis has no values");
        return -1;
    }
    if (check_named_pairs(e, err, errlen)) return -1;
    size_t cap = 0;
    for (size_t r = 0; r < registry_count(); r++) {
        const variant *v = registry_get(r);
        if (!experiment_selects(e, v)) continue;
        p->variants++;
        size_list bd, cf;
        if (single_bit(v->block_dims)) {
            bd.count = 1;
            bd.v[0] = v->block_dims;
        } else {
            bd = e->block_dims;
        }
        if (single_bit(v->coarse_factors)) {
            cf.count = 1;
            cf.v[0] = v->coarse_factors;
        } else {
            cf = e->coarse;
        }
        /* The fourth axis: finishes for reductions, scan modes for scans. */
        int modes[8];
        size_t n_modes = 0;
        if (v->kind == KIND_SCAN) {
            for (int m = 0; m < SCAN_MODE_COUNT; m++)
                if (e->scan_modes & (1u << m)) modes[n_modes++] = m;
        } else if (single_bit(v->finishes)) {
            modes[n_modes++] = __builtin_ctz(v->finishes);
        } else if (e->finish_policy == FINISHES_FIRST) {
            modes[n_modes++] = __builtin_ctz(v->finishes);
        } else {
            unsigned want = e->finish_policy == FINISHES_ALL ? v->finishes : e->finishes;
            for (int f = 0; f < FINISH_COUNT; f++)
                if (want & (1u << f)) modes[n_modes++] = f;
        }
        for (int d = 0; d < DTYPE_COUNT; d++) {
            if (!(e->dtypes & (1u << d))) continue;
            for (int o = 0; o < OP_COUNT; o++) {
                if (!(e->ops & (1u << o))) continue;
                for (size_t m = 0; m < n_modes; m++)
                    for (size_t i = 0; i < e->sizes.count; i++) {
                        int group_has_validator = 0;
                        for (size_t b = 0; b < bd.count; b++)
                            for (size_t c = 0; c < cf.count; c++) {
                                sweep_config cfg;
                                memset(&cfg, 0, sizeof cfg);
                                cfg.v = v;
                                cfg.a.dtype = (dtype_t)d;
                                cfg.a.op = (op_t)o;
                                cfg.a.n = e->sizes.v[i];
                                cfg.a.block_dim = (unsigned)bd.v[b];
                                cfg.a.coarse = (unsigned)cf.v[c];
                                if (v->kind == KIND_SCAN) {
                                    cfg.a.scan_mode = (scan_mode_t)modes[m];
                                    cfg.a.finish = FINISH_NONE;
                                } else {
                                    cfg.a.finish = (finish_t)modes[m];
                                    cfg.a.scan_mode = SCAN_INCLUSIVE;
                                }
                                const char *why = NULL;
                                if (variant_accepts(v, &cfg.a, &why) != 0)
                                    cfg.skip_reason = why ? why : "not accepted by this variant";
                                if (!cfg.skip_reason) {
                                    cfg.validate = !e->validate_all_to || cfg.a.n <= e->validate_all_to ||
                                                   !group_has_validator;
                                    group_has_validator = 1;
                                }
                                if (push_config(p, &cap, &cfg)) {
                                    snprintf(err, errlen, "out of memory expanding the plan");
                                    plan_free(p);
                                    return -1;
                                }
                            }
                    }
            }
        }
    }
    if (!p->variants) {
        snprintf(err, errlen, "no variant is selected by both variants and families");
        plan_free(p);
        return -1;
    }
    if (e->cpu_baseline && add_cpu_baseline(e, p, &cap)) {
        snprintf(err, errlen, "out of memory expanding the plan");
        plan_free(p);
        return -1;
    }
    return 0;
}

void plan_free(sweep_plan *p)
{
    free(p->configs);
    memset(p, 0, sizeof *p);
}

void config_label(const sweep_config *c, char *buf, size_t len)
{
    const kernel_args *a = &c->a;
    snprintf(buf, len, "%s %s %s n=%zu block=%u coarse=%u %s", c->v->name, dtype_name(a->dtype), op_name(a->op),
             a->n, a->block_dim, a->coarse,
             c->v->kind == KIND_SCAN ? scan_mode_name(a->scan_mode) : finish_name(a->finish));
}

int config_same_axes(const sweep_config *x, const sweep_config *y)
{
    if (x->v != y->v) return 0;
    const kernel_args *a = &x->a, *b = &y->a;
    if (a->dtype != b->dtype || a->op != b->op || a->n != b->n || a->block_dim != b->block_dim ||
        a->coarse != b->coarse)
        return 0;
    if (x->v->kind == KIND_SCAN) return a->scan_mode == b->scan_mode;
    return a->finish == b->finish;
}

/* ---- estimates ------------------------------------------------------------------------------ */

estimate_model estimate_model_default(void)
{
    estimate_model m = {.peak_GBps = 4800.0, .l2_bytes = (size_t)60 << 20, .pcie_GBps = 25.0, .host_threads = 16};
    return m;
}

static void estimate_parts(const sweep_config *c, const timing_params *t, const estimate_model *m, double *validate_s,
                           double *measure_s)
{
    const kernel_args *a = &c->a;
    double n = (double)a->n, elem = (double)dtype_size(a->dtype);
    double bytes = c->v->bytes_moved ? c->v->bytes_moved(a) : 2 * n * elem;
    if (!(bytes > 0)) bytes = n * elem;
    double kernel = bytes / (m->peak_GBps * 1e9 / 3.0); /* a third of peak, on average over the ladders */
    if (kernel < 5e-6) kernel = 5e-6;
    double threads = m->host_threads > 0 ? m->host_threads : 1;
    /* Validation: fill + reference (+ compare for scans) over the host's cores,
     * copies at PCIe speed, the kernel once, and a fixed cost per check. */
    double host_per_elem = c->v->kind == KIND_SCAN ? 40e-9 : 8e-9;
    double copies = n * elem / (m->pcie_GBps * 1e9) * (c->v->kind == KIND_SCAN ? 2 : 1);
    *validate_s = c->validate ? 1e-3 + n * host_per_elem / threads + copies + kernel : 0.0;
    /* Timing: warm-up, then cold and hot samples, min_samples x 1.5 each, of
     * a batch lasting SAMPLE_TARGET_MS (timing.h); a cold sample also
     * flushes (2x L2 read), hot ones follow a warm batch. */
    double flush = 2.0 * (double)m->l2_bytes / (m->peak_GBps * 1e9 * 0.6);
    double overhead = 25e-6;
    double samples = t->min_samples * 1.5;
    if (samples > t->max_samples) samples = t->max_samples;
    double batch = sample_batch_for(kernel * 1e3);
    double cold = samples * (batch * kernel + flush + overhead);
    double warm = batch * ceil(WARM_TARGET_MS / SAMPLE_TARGET_MS) * kernel;
    double hot = warm + samples * (batch * kernel + overhead);
    /* The timeout caps each half once min_samples are in. */
    double floor_cold = t->min_samples * (batch * kernel + flush + overhead);
    double floor_hot = warm + t->min_samples * (batch * kernel + overhead);
    double half = t->timeout_s / 2;
    if (cold > half) cold = floor_cold > half ? floor_cold : half;
    if (hot > half) hot = floor_hot > half ? floor_hot : half;
    *measure_s = 2 * kernel + overhead + cold + hot;
}

double estimate_config_s(const sweep_config *c, const timing_params *t, const estimate_model *m)
{
    if (c->skip_reason) return 0;
    double v, s;
    estimate_parts(c, t, m, &v, &s);
    return v + s;
}

#define RUN_STARTUP_S 3.0 /* context, copy bandwidth, buffers */

double estimate_plan_s(const sweep_plan *p, const timing_params *t, const estimate_model *m)
{
    double total = RUN_STARTUP_S;
    for (size_t i = 0; i < p->count; i++) total += estimate_config_s(&p->configs[i], t, m);
    return total;
}

void format_duration(double s, char *buf, size_t len)
{
    if (!(s >= 0) || !isfinite(s)) {
        snprintf(buf, len, "?");
        return;
    }
    if (s < 10) snprintf(buf, len, "%.1f s", s);
    else if (s < 60) snprintf(buf, len, "%.0f s", s);
    else if (s < 3600) snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
    else snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void mask_names(unsigned mask, int count, const char *(*name)(int), char *buf, size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < count; i++) {
        if (!(mask & (1u << i))) continue;
        if (buf[0]) strncat(buf, ",", len - strlen(buf) - 1);
        strncat(buf, name(i), len - strlen(buf) - 1);
    }
}

static const char *dname(int i) { return dtype_name((dtype_t)i); }
static const char *oname(int i) { return op_name((op_t)i); }
static const char *sname(int i) { return scan_mode_name((scan_mode_t)i); }
static const char *fname(int i) { return finish_name((finish_t)i); }

static void glob_text(const glob_list *g, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!g->count) {
        snprintf(buf, len, "*");
        return;
    }
    for (size_t i = 0; i < g->count; i++) {
        if (i) strncat(buf, ",", len - strlen(buf) - 1);
        strncat(buf, g->pat[i], len - strlen(buf) - 1);
    }
}

/* "64,128,256": block dims and coarse factors read best as plain numbers. */
static void plain_list(const size_list *l, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < l->count && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%zu", i ? "," : "", l->v[i]);
        if (w < 0 || (size_t)w >= len - used) break;
        used += (size_t)w;
    }
}

void plan_print(FILE *f, const experiment *e, const sweep_plan *p, const estimate_model *m)
{
    char a[1024], b[256], c[256], d[256];
    fprintf(f, "experiment %s (%s)\n", e->name, e->source[0] ? e->source : "built in");
    if (e->description[0]) fprintf(f, "  %s\n", e->description);
    glob_text(&e->variants, a, sizeof a);
    glob_text(&e->families, b, sizeof b);
    fprintf(f, "variants:  %s   families: %s\n", a, b);
    format_size_list(&e->sizes, a, sizeof a);
    fprintf(f, "sizes:     %s\n", a);
    plain_list(&e->block_dims, a, sizeof a);
    plain_list(&e->coarse, b, sizeof b);
    fprintf(f, "block dims: %s   coarse: %s (where a variant has these axes)\n", a, b);
    mask_names(e->dtypes, DTYPE_COUNT, dname, a, sizeof a);
    mask_names(e->ops, OP_COUNT, oname, b, sizeof b);
    mask_names(e->scan_modes, SCAN_MODE_COUNT, sname, c, sizeof c);
    if (e->finish_policy == FINISHES_FIRST) snprintf(d, sizeof d, "first (each variant's first)");
    else if (e->finish_policy == FINISHES_ALL) snprintf(d, sizeof d, "all");
    else mask_names(e->finishes, FINISH_COUNT, fname, d, sizeof d);
    fprintf(f, "dtypes: %s   ops: %s   scan modes: %s   finishes: %s\n", a, b, c, d);
    if (e->validate_all_to) {
        format_size(e->validate_all_to, a, sizeof a);
        fprintf(f, "validate: every configuration up to n = %s; above, the first of each variant, dtype, op, "
                   "finish/mode and n\n",
                a);
    } else {
        fprintf(f, "validate: every configuration\n");
    }
    fprintf(f, "timing: min %u samples, max %u, max noise %.3g %%, timeout %.3g s per configuration\n",
            e->timing.min_samples, e->timing.max_samples, e->timing.max_noise * 100, e->timing.timeout_s);
    if (e->metrics_mode == METRICS_NONE) fprintf(f, "metrics: none\n");
    else if (e->metrics_mode == METRICS_DEFAULT) fprintf(f, "metrics: the profiler's default set\n");
    else {
        fprintf(f, "metrics:");
        for (size_t i = 0; i < e->metric_count; i++) fprintf(f, "%s%s", i ? ", " : " ", e->metrics[i]);
        fprintf(f, "\n");
    }

    fprintf(f, "\n%-34s %-6s %8s %8s %12s\n", "variant", "kind", "configs", "skipped", "estimate");
    double total_v = 0, total_m = 0;
    size_t i = 0;
    while (i < p->count) {
        const variant *v = p->configs[i].v;
        size_t run = 0, skip = 0;
        double est = 0;
        for (; i < p->count && p->configs[i].v == v; i++) {
            const sweep_config *cfg = &p->configs[i];
            if (cfg->skip_reason) {
                skip++;
                continue;
            }
            run++;
            double ev, em;
            estimate_parts(cfg, &e->timing, m, &ev, &em);
            total_v += ev;
            total_m += em;
            est += ev + em;
        }
        format_duration(est, a, sizeof a);
        fprintf(f, "%-34s %-6s %8zu %8zu %12s\n", v->name, kind_name(v->kind), run, skip, a);
    }

    if (p->skipped) {
        fprintf(f, "\nskipped configurations, by reason:\n");
        /* Group (variant, reason) in plan order. */
        for (size_t k = 0; k < p->count; k++) {
            const sweep_config *x = &p->configs[k];
            if (!x->skip_reason) continue;
            int seen = 0;
            for (size_t j = 0; j < k && !seen; j++)
                seen = p->configs[j].skip_reason && p->configs[j].v == x->v &&
                       !strcmp(p->configs[j].skip_reason, x->skip_reason);
            if (seen) continue;
            size_t count = 0;
            for (size_t j = k; j < p->count; j++)
                if (p->configs[j].skip_reason && p->configs[j].v == x->v &&
                    !strcmp(p->configs[j].skip_reason, x->skip_reason))
                    count++;
            fprintf(f, "  %6zu  %s: %s\n", count, x->v->name, x->skip_reason);
        }
    }
    size_t to_run = p->count - p->skipped;
    format_duration(total_v + total_m + RUN_STARTUP_S, a, sizeof a);
    format_duration(total_v, b, sizeof b);
    format_duration(total_m, c, sizeof c);
    fprintf(f, "\nplan: %zu configurations to run, %zu skipped (%zu rows), %zu variants\n", to_run, p->skipped,
            p->count, p->variants);
    fprintf(f, "estimated time: %s (validation %s, timing %s), modelled for %.0f GB/s and %zu MiB of L2\n", a, b, c,
            m->peak_GBps, m->l2_bytes >> 20);
}
