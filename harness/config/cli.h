/* The sweep's command line: parsing, overrides onto the experiment, the help
 * text, and finding experiment files. Every bad usage is one message that
 * names the option and the bad value; the sweep exits 2 on it before it
 * creates anything. */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "harness/config/plan.h"
#include "harness/config/settings.h"
#include "harness/config/shard.h"

typedef struct sweep_options {
    const char *experiment; /* NAME or FILE; NULL: "default" */
    /* Overrides of the experiment's settings, as typed (validated by
     * cli_parse), by their index in harness/config/settings.c; NULL: not given. */
    const char *values[SETTINGS_MAX];
    experiment parsed; /* those values, each parsed once into its field (cli_apply copies them) */
    /* --axis NAME=LIST, in order, parsed once by cli_parse; a later one of a name wins. */
    axis_values axis_args[EXPERIMENT_MAX_AXIS_VALUES];
    size_t n_axis_args;
    const char *out;
    const char *shard; /* --shard I/N or auto, as typed; NULL: the whole plan */
    shard_spec shard_spec; /* --shard, parsed once (harness/config/shard.h) */
    const char *devices; /* --devices all|LIST, as typed; NULL: one device, in this process */
    /* --devices, parsed once: the ordinals listed, or all (every device the layer counts) */
    int device_ordinals[DEVICES_MAX];
    size_t n_device_ordinals;
    int devices_all;
    int device;
    int device_given; /* --device was typed: --shard auto leaves it alone */
    double time_limit_s; /* --time-limit in seconds; 0: none (harness/run/time_budget.h) */
    int list, dry_run, resume, force, no_cupti, quiet, help, fake_device, samples;
} sweep_options;

/* 0 on success; -1 with "--option: 'value': why" in err. */
int cli_parse(int argc, char **argv, sweep_options *o, char *err, size_t errlen);

/* Replace the experiment's fields the options override. 0, or -1 and a message. */
int cli_apply(const sweep_options *o, experiment *e, char *err, size_t errlen);

void cli_usage(FILE *f);

/* The value given for a setting's --flag ("--sizes"), or NULL. */
const char *cli_value(const sweep_options *o, const char *flag);

/* Resolve --experiment: a FILE (has a '/' or ends in .ini; relative to the
 * directory `bazel run` started from) or a NAME looked up as NAME.ini in
 * $BUILD_WORKSPACE_DIRECTORY/experiments, the runfiles, next to the binary
 * (bin/../experiments in the bundle) and ./experiments. *builtin is set when
 * NAME is "default" and no file was found: the built-in default applies.
 * Returns 0, or -1 with a message; for an unknown NAME it lists the
 * experiments there and the closest, and names a directory only where the
 * user can see it (not inside Bazel's runfiles). */
int find_experiment(const char *arg, char *path, size_t len, int *builtin, char *err, size_t errlen);

/* The directories NAME.ini is looked for in, in order (for --list and messages). */
size_t experiment_dirs(char dirs[][4096], size_t max);

#endif
