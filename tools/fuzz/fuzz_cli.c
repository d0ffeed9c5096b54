/* libFuzzer target: an argument vector (the input split at newlines, one
 * argument per line, at most 64) -> cli_parse -> cli_apply over the built-in
 * default experiment -> plan_build -> plan_print. Any crash, sanitizer
 * report, or a failure without a one-line message is a finding. Built and
 * run by tools/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/cli.h"
#include "harness/config/plan.h"
#include "tools/fuzz/fuzz_common.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static experiment e;
    static char err[8192];
    /* A copy with every argument NUL-terminated (sanitizers see overreads). */
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "sweep";
    for (char *p = buf; argc <= MAX_ARGS;) {
        char *nl = memchr(p, '\n', (size_t)(buf + size - p));
        if (nl) *nl = '\0';
        if (nl || *p) argv[argc++] = p;
        if (!nl) break;
        p = nl + 1;
    }
    argv[argc] = NULL;
    sweep_options o;
    err[0] = '\0';
    if (cli_parse(argc, argv, &o, err, sizeof err) != 0) {
        fuzz_check_message(err, sizeof err);
        fuzz_expect_valid(err);
        free(buf);
        return 0;
    }
    experiment_defaults(&e);
    err[0] = '\0';
    if (cli_apply(&o, &e, err, sizeof err) != 0) {
        fuzz_check_message(err, sizeof err);
        fuzz_expect_valid(err);
    } else {
        fuzz_plan(&e);
    }
    free(buf);
    return 0;
}
