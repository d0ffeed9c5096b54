/* Experiment files: INI via libinih, read over the built-in default. What a
 * key means, its parser and where it lands are the settings table's
 * (harness/config/settings.c); this file reads lines, sections, keys, continuation
 * lines, and checks that the file is text. */
#define _POSIX_C_SOURCE 200809L
#include "harness/config/plan.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "harness/config/plan_axes.h"
#include "harness/config/settings.h"
#include "harness/config/axis_values.h"
#include "harness/config/plan_overrides.h"

#define MAX_SECTIONS 8
#define MAX_ENTRIES 64
#define VALUE_LEN 4096

#define OVERRIDE_PREFIX "axes:"

static const char *own_axes_known(const char *name);

typedef struct entry {
    char section[64], key[32];
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
    int section_line[MAX_SECTIONS];
    struct {
        char glob[OVERRIDE_GLOB_LEN];
        int line;
    } overrides[EXPERIMENT_MAX_OVERRIDES]; /* [axes:GLOB] headers, in file order */
    size_t n_overrides;
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

/* The sections, in the order the settings table first names them. */
static size_t section_names(const char *names[], size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < settings_count(); i++) {
        const char *sec = settings_get(i)->section;
        size_t k = 0;
        while (k < n && strcmp(names[k], sec)) k++;
        if (k == n && n < max) names[n++] = sec;
    }
    return n;
}

static int section_index(const char *name)
{
    const char *names[MAX_SECTIONS];
    size_t n = section_names(names, MAX_SECTIONS);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return (int)i;
    return -1;
}

/* "[experiment], [axes], [timing], [profile]" */
static void sections_text(char *buf, size_t len)
{
    const char *names[MAX_SECTIONS];
    size_t n = section_names(names, MAX_SECTIONS), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s[%s]", i ? ", " : "", names[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* "axes:GLOB" (inih's section name): GLOB without surrounding white space, or NULL. */
static const char *override_glob(const char *section, char *buf, size_t len)
{
    size_t plen = strlen(OVERRIDE_PREFIX);
    if (strncmp(section, OVERRIDE_PREFIX, plen)) return NULL;
    const char *g = section + plen;
    while (isspace((unsigned char)*g)) g++;
    snprintf(buf, len, "%s", g);
    for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]);) buf[--n] = '\0';
    return buf;
}

/* An [axes:GLOB] header: one variant glob, each section once. */
static int override_header(ini_src *s, const char *name, size_t raw_len)
{
    char glob[AXES_GLOB_LEN];
    override_glob(name, glob, sizeof glob);
    if (raw_len >= 64 || strlen(glob) >= OVERRIDE_GLOB_LEN) {
        src_error(s, s->line, "[axes:...]: variant glob longer than %d characters", OVERRIDE_GLOB_LEN - 1);
        return -1;
    }
    if (!glob[0] || strpbrk(glob, ", \t!;")) {
        src_error(s, s->line, "[axes:%s]: '%s' is not a variant glob (one name or glob, like scan_lookback_*)", glob,
                  glob);
        return -1;
    }
    for (size_t i = 0; i < s->n_overrides; i++)
        if (!strcmp(s->overrides[i].glob, glob)) {
            src_error(s, s->line, "section [axes:%s] repeated (first at line %d)", glob, s->overrides[i].line);
            return -1;
        }
    if (s->n_overrides >= EXPERIMENT_MAX_OVERRIDES) {
        src_error(s, s->line, "[axes:%s]: more than %d [axes:GLOB] sections", glob, EXPERIMENT_MAX_OVERRIDES);
        return -1;
    }
    snprintf(s->overrides[s->n_overrides].glob, OVERRIDE_GLOB_LEN, "%s", glob);
    s->overrides[s->n_overrides++].line = s->line;
    return 0;
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
                size_t raw_len = (size_t)(close - t - 1), len = raw_len;
                if (len >= sizeof name) len = sizeof name - 1;
                memcpy(name, t + 1, len);
                name[len] = '\0';
                if (!strncmp(name, OVERRIDE_PREFIX, strlen(OVERRIDE_PREFIX))) {
                    if (override_header(s, name, raw_len)) return NULL;
                    goto checked;
                }
                int idx = section_index(name);
                if (idx < 0) {
                    char known[256];
                    sections_text(known, sizeof known);
                    src_error(s, s->line, "unknown section [%s] (known: %s)", name, known);
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
checked:;
    size_t len = strlen(buf);
    int ends_line = len > 0 && buf[len - 1] == '\n';
    if (!ends_line && (int)len == num - 1 && more_input(s)) {
        src_error(s, s->line, "line longer than %d characters (continue a long list on indented lines)", num - 2);
        return NULL;
    }
    s->at_line_start = ends_line;
    return buf;
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
    char glob[AXES_GLOB_LEN];
    if (override_glob(section, glob, sizeof glob)) {
        const setting *st = settings_by_key("axes", name);
        char keys[256];
        plan_axes_per_variant_keys(keys, sizeof keys);
        if (st && st->axis && !st->axis->per_variant) {
            src_error(s, line, "'%s' in [axes:%s]: %s is global only, set it in [axes] (per-variant keys: %s)", name,
                      glob, name, keys);
            return 0;
        }
        if ((!st || !st->axis) && !axis_name_declared(name)) {
            src_error(s, line, "unknown key '%s' in [axes:%s] (known: %s)%s", name, glob, keys, own_axes_known(name));
            return 0;
        }
    } else if (!settings_by_key(section, name) && !(!strcmp(section, "axes") && axis_name_declared(name))) {
        char keys[256];
        settings_keys_of(section, keys, sizeof keys);
        src_error(s, line, "unknown key '%s' in [%s] (known: %s)%s", name, section, keys,
                  strcmp(section, "axes") ? "" : own_axes_known(name));
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

/* What an unknown [axes] key might have meant among the variants' own axes:
 * "; or a variant's axis: items_per_thread, ...; closest: ..." (static). */
static const char *own_axes_known(const char *name)
{
    static char buf[640];
    char all[512];
    axis_names_text(all, sizeof all, NULL, NULL);
    snprintf(buf, sizeof buf, "; or a variant's axis: %s", all);
    axis_name_closest(buf, sizeof buf, name, NULL, NULL);
    if (strstr(buf, " (axes: ")) *strstr(buf, " (axes: ") = '\0'; /* listed already */
    return buf;
}

/* The [axes:GLOB] sections into e->overrides, in file order, each value
 * parsed once (into a scratch experiment) by the same settings-table entry as
 * in [axes], so a bad one is reported here, at its line, and kept as that
 * value (harness/config/plan_overrides.h). */
static int read_overrides(ini_src *s, const char *path, experiment *e, char *err, size_t errlen)
{
    e->n_overrides = 0;
    if (!s->n_overrides) return 0;
    experiment *scratch = malloc(sizeof *scratch);
    if (!scratch) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < s->n_overrides && !rc; i++) {
        axes_override *o = &e->overrides[e->n_overrides++];
        memset(o, 0, sizeof *o);
        snprintf(o->glob, sizeof o->glob, "%s", s->overrides[i].glob);
        o->line = s->overrides[i].line;
        for (size_t j = 0; j < s->n_entries && !rc; j++) {
            const entry *en = &s->entries[j];
            char glob[AXES_GLOB_LEN], msg[512];
            if (!override_glob(en->section, glob, sizeof glob) || strcmp(glob, o->glob)) continue;
            const setting *st = settings_by_key("axes", en->key);
            *scratch = *e;
            if (strlen(en->value) >= OVERRIDE_VALUE_LEN) {
                snprintf(err, errlen, "%s:%d: %s: value longer than %d characters in [axes:%s]", path, en->line,
                         en->key, OVERRIDE_VALUE_LEN - 1, o->glob);
                rc = -1;
            } else if (st ? setting_apply(st, en->value, NULL, scratch, msg, sizeof msg)
                          : axis_values_set(scratch, en->key, en->value, NULL, msg, sizeof msg)) {
                snprintf(err, errlen, "%s:%d: [axes:%s] %s: %s", path, en->line, o->glob, en->key, msg);
                rc = -1;
            } else if (o->n_keys < OVERRIDE_MAX_KEYS) {
                size_t setting = st ? settings_index(st) : OVERRIDE_AXIS_BY_NAME;
                o->keys[o->n_keys].setting = setting;
                snprintf(o->keys[o->n_keys].axis, sizeof o->keys[o->n_keys].axis, "%s", st ? "" : en->key);
                o->keys[o->n_keys].line = en->line;
                if (override_value_take(scratch, setting, en->key, &o->keys[o->n_keys].value, msg, sizeof msg)) {
                    snprintf(err, errlen, "%s:%d: [axes:%s] %s: %s", path, en->line, o->glob, en->key, msg);
                    rc = -1;
                }
                o->n_keys++;
            }
        }
    }
    free(scratch);
    return rc;
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
    if (read_overrides(s, path, e, err, errlen)) return -1;
    int min_line = 0, max_line = 0;
    for (size_t i = 0; i < s->n_entries; i++) {
        char msg[512];
        const entry *en = &s->entries[i];
        if (!strncmp(en->section, OVERRIDE_PREFIX, strlen(OVERRIDE_PREFIX))) continue;
        char origin[sizeof e->variants_origin];
        snprintf(origin, sizeof origin, "%s:%d", path, en->line);
        const setting *st = settings_by_key(en->section, en->key);
        if (st ? setting_apply(st, en->value, origin, e, msg, sizeof msg)
               : axis_values_set(e, en->key, en->value, origin, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%d: %s: %s", path, en->line, en->key, msg);
            return -1;
        }
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
