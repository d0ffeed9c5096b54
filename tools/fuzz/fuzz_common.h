/* Shared by the parser fuzz targets: what every parser result must satisfy,
 * and a bound that keeps plan expansion within the fuzzer's memory. */
#ifndef TOOLS_FUZZ_COMMON_H
#define TOOLS_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/config/plan.h"
#include "kernels/registry.h"

/* A parser that fails says why in one line: non-empty, no newline, NUL-terminated within the buffer. */
static void fuzz_check_message(const char *err, size_t len)
{
    if (!memchr(err, '\0', len)) abort();
    if (!err[0] || strchr(err, '\n')) {
        fprintf(stderr, "bad message: '%s'\n", err);
        abort();
    }
}

/* FUZZ_EXPECT_VALID=1 (run.sh sets it to replay the seed corpus): every
 * input must parse and plan; a seed that does not is a broken seed. */
static void fuzz_expect_valid(const char *err)
{
    const char *v = getenv("FUZZ_EXPECT_VALID");
    if (v && *v == '1') {
        fprintf(stderr, "seed rejected: %s\n", err);
        abort();
    }
}

/* Plan_build on experiments whose cross-product is small enough to expand
 * many times a second (a real sweep may be larger: that is not a parser matter). */
static int fuzz_plan_small(const experiment *e)
{
    double n = (double)e->sizes.count * (double)e->block_dims.count * (double)e->coarse.count *
               __builtin_popcount(e->dtypes) * __builtin_popcount(e->ops) * FINISH_COUNT * SCAN_MODE_COUNT *
               (double)registry_count();
    return n <= 200000;
}

/* Expand the plan, check what the plan promises, render it. */
static void fuzz_plan(const experiment *e)
{
    static char err[8192];
    sweep_plan p;
    if (!fuzz_plan_small(e)) return;
    err[0] = '\0';
    if (plan_build(e, &p, err, sizeof err) != 0) {
        fuzz_check_message(err, sizeof err);
        fuzz_expect_valid(err);
        return;
    }
    size_t skipped = 0;
    for (size_t i = 0; i < p.count; i++) {
        const sweep_config *c = &p.configs[i];
        const char *why = NULL;
        kernel_args a;
        config_kernel_args(c, &a);
        if ((variant_accepts(c->v, &a, &why) == 0) != (c->skip_reason == NULL)) abort();
        skipped += c->skip_reason != NULL;
        char label[256];
        config_label(c, label, sizeof label);
    }
    if (skipped != p.skipped || !p.variants) abort();
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        estimate_model m = estimate_model_default();
        plan_print(null, e, &p, &m);
        fclose(null);
    }
    plan_free(&p);
}

#endif
