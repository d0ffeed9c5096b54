/* The experiment's settings, one table entry each (harness/config/settings.c): its
 * [section] key in experiment files, its --flag on the command line, the
 * parser of its value (with its limits), the built-in default's value, the
 * line --help gives it, and the field of `experiment` it lands in.
 *
 * The experiment-file reader (experiment_file.c), the command line
 * (cli.c: parsing, overrides, --help) and the built-in default
 * (experiment_defaults) all walk this one table, and so do plan expansion
 * and the dry run's axes lines (the entries that name a plan axis): adding a
 * setting is adding one entry. */
#ifndef HARNESS_SETTINGS_H
#define HARNESS_SETTINGS_H

#include <stddef.h>
#include <stdio.h>

#include "harness/config/plan.h"

/* Where --help lists a setting (NULL help or SETTING_FILE_ONLY: not listed). */
typedef enum {
    SETTING_FILE_ONLY = 0, /* experiment files only: no flag */
    SETTING_HELP_PLAN,     /* "Experiment and plan:" */
    SETTING_HELP_MEASURE,  /* "Measurement:" */
} setting_group;

typedef struct setting setting;
struct plan_axis;

/* Parse `text` into the setting's field of e. 0, or -1 and a message that
 * quotes the bad value (the caller prefixes "file:line: key: " or "--flag: "). */
typedef int (*setting_parser)(const setting *s, const char *text, experiment *e, char *err, size_t errlen);

struct setting {
    const char *section, *key; /* experiment files: [section] key */
    const char *flag;          /* the command line: --flag VALUE; NULL: files only */
    setting_parser parse;      /* settings.c: set_sizes, set_count, set_percent, ... */
    long min, max;             /* limits, for the parsers that take them (set_count) */
    size_t field;              /* offsetof(experiment, ...) */
    size_t size;               /* the bytes the parser fills from `field` (the command line copies them) */
    size_t origin;             /* offsetof the string that records where it was set, or 0 */
    const char *fallback;      /* the built-in default's value (parsed); NULL: zero / empty */
    setting_group group;
    const char *metavar;       /* --help: "--flag METAVAR" */
    const char *help;          /* --help: the description; '\n' starts a continuation line */
    /* An axis of the plan: how its values expand, land in a configuration and
     * print in the dry run (harness/config/plan_axes.h); NULL for other settings. */
    const struct plan_axis *axis;
};

/* Upper bound on the table's length (settings.c checks it at compile time). */
#define SETTINGS_MAX 48

size_t settings_count(void);
const setting *settings_get(size_t i);
/* The entry for [section] key / --flag (the name up to '=' or its end); NULL if none. */
const setting *settings_by_key(const char *section, const char *key);
const setting *settings_by_flag(const char *flag, size_t len);
size_t settings_index(const setting *s);

/* Parse text into e and, when the setting records an origin, set it to `origin`. */
int setting_apply(const setting *s, const char *text, const char *origin, experiment *e, char *err, size_t errlen);

/* The setting's value, parsed into `from` earlier, into `to` (the command
 * line parses each value once, then puts it over the experiment read). */
void setting_copy(const setting *s, const experiment *from, const char *origin, experiment *to);

/* ", "-separated keys of one section, in table order (for "known: ..." messages). */
void settings_keys_of(const char *section, char *buf, size_t len);
int settings_section_known(const char *section);

/* The --help lines of one group, in table order. */
void settings_print_help(FILE *f, setting_group group);
/* One --help entry: "  --flag METAVAR" padded to 26 columns, the help after it. */
void settings_help_line(FILE *f, const char *flag, const char *metavar, const char *help);

#endif
