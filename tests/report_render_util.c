/* See report_render_util.h. */
#include "tests/report_render_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plots/render.h"
#include "tests/sweep_test_util.h"

char *tu_render_report(const char *run, int with_confirm, char *out_dir, size_t out_len)
{
    char rel[512], src[4096], in[4096], cmd[16384], path[4300];
    snprintf(rel, sizeof rel, "%s/results.csv", run);
    snprintf(src, sizeof src, "%s", tu_data_file(rel));
    *strrchr(src, '/') = '\0';
    snprintf(in, sizeof in, "%s", tu_tempdir(strrchr(run, '/') ? strrchr(run, '/') + 1 : run));
    snprintf(out_dir, out_len, "%s/report", in);
    /* results.csv or results.csv.gz (sweep pack), whichever is committed */
    snprintf(cmd, sizeof cmd, "cp -L '%s'/results.csv* '%s/run.json' '%s/'", src, src, in);
    assert_int_equal(system(cmd), 0);
    if (with_confirm) {
        snprintf(cmd, sizeof cmd, "cp -L '%s'/confirm.csv* '%s/'", src, in);
        assert_int_equal(system(cmd), 0);
    }
    plots_options o = {0};
    o.no_charts = 1;
    o.out_dir = out_dir;
    char msg[2048];
    assert_int_equal(plots_render(in, &o, msg, sizeof msg), 0);
    snprintf(path, sizeof path, "%s/report.md", out_dir);
    char *md = tu_read_file(path);
    assert_non_null(md);
    return md;
}
