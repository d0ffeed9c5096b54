/* The renderer on a small results directory this test writes itself: every
 * chart drawn as PNG (decodes, not blank) and SVG (well-formed XML), the
 * report written; a CSV without a required column is an error naming it;
 * charts without data are skipped with a note; quoting in the CSV reader.
 * The chart tests skip where gnuplot is not installed. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <expat.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results_io/csv.h"
#include "plots/render.h"

/* ---- the fixture ------------------------------------------------------------ */

enum {
    FX_METRICS = 1,  /* metric columns */
    FX_HOT = 2,      /* hot-L2 columns */
    FX_RUN_JSON = 4, /* run.json */
    FX_ALL = 7,
};

static const char *const base_cols[] = {
    "variant", "alias", "family", "kind", "dtype", "op", "n", "block_dim", "coarse", "finish", "scan_mode", "status",
    "skip_reason", "error", "validation_error_abs", "validation_tolerance_abs", "bytes_moved", "time_cold_median_ms",
    "time_cold_min_ms", "time_cold_mean_ms", "time_cold_stdev_ms", "time_cold_iqr_ms", "samples_cold",
    "time_hot_median_ms", "time_hot_min_ms", "time_hot_mean_ms", "time_hot_stdev_ms", "time_hot_iqr_ms",
    "samples_hot", "bw_cold_GBps", "bw_hot_GBps", "bw_cold_pct_peak", "bw_cold_pct_copy", "speedup_vs_baseline",
    "speedup_vs_cub"};
#define NBASE (sizeof base_cols / sizeof base_cols[0])
static const char *const metric_cols[] = {
    "m:smsp__thread_inst_executed_per_inst_executed.ratio[threads]",
    "m:smsp__thread_inst_executed_pred_on_per_inst_executed.ratio[threads]",
    "m:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum[count]",
    "m:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum[count]",
    "m:dram__throughput.avg.pct_of_peak_sustained_elapsed[%]",
    "m:sm__warps_active.avg.pct_of_peak_sustained_active[%]"};
#define NMETRIC (sizeof metric_cols / sizeof metric_cols[0])

typedef struct fx {
    FILE *f;
    unsigned flags;
    const char *omit; /* a column left out */
} fx;

static int is_hot_col(const char *c) { return strstr(c, "_hot") != NULL; }

static int col_on(const fx *x, const char *c)
{
    if (x->omit && strcmp(c, x->omit) == 0) return 0;
    if (!(x->flags & FX_HOT) && is_hot_col(c)) return 0;
    return 1;
}

/* One CSV field, quoted when it holds a comma, a quote or a line break. */
static void field(FILE *f, int first, const char *s)
{
    if (!first) fputc(',', f);
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

static void header(fx *x)
{
    int first = 1;
    for (size_t i = 0; i < NBASE; i++)
        if (col_on(x, base_cols[i])) field(x->f, first, base_cols[i]), first = 0;
    if (x->flags & FX_METRICS)
        for (size_t i = 0; i < NMETRIC; i++) field(x->f, 0, metric_cols[i]);
    fputc('\n', x->f);
}

typedef struct spec {
    const char *variant, *alias, *family, *kind;
    double bw_GBps, floor_us; /* the model: time = floor + bytes / bw */
    double warp, warp_pred, bank, occupancy;
} spec;

static const spec reduce_specs[] = {
    {"reduce_interleaved_divergent", "reduce0, reduce_v0, sum_reduce", "harris", "reduce", 416, 9, 13.5, 8.2, 0.02, 85},
    {"reduce_sequential_addressing", "reduce2, reduce_v2, sum_reversed", "harris", "reduce", 879, 9, 29, 27, 0, 85},
    {"reduce_warp_shuffle", "reduce_v6, sum_shuffle", "shuffle", "reduce", 3000, 8, 31, 30, 0, 80},
    {"reduce_coarsened", "reduce_coarsening_gpu (seed 002)", "coarsening", "reduce", 4300, 7, 31.3, 30.6, 0, 76},
    {"reduce_cub", "cub::DeviceReduce", "cub", "reduce", 4530, 9, 31.7, 31.5, 0, 72},
};
static const spec scan_specs[] = {
    {"scan_kogge_stone", "kogge_stone_scan_gpu", "kogge_stone", "scan", 1400, 10, 29, 27, 0.2, 80},
    {"scan_decoupled_lookback", "single_pass_scan", "single_pass", "scan", 3150, 9, 31, 30, 0, 72},
    {"scan_cub", "cub::DeviceScan", "cub", "scan", 3183, 12, 31.5, 31, 0, 70},
};

#define L2_BYTES (60.0 * 1048576.0)
#define PEAK 4814.0

static void row(fx *x, const spec *s, unsigned long long n, int block, int coarse, const char *finish,
                const char *mode, const char *status, const char *skip, const char *error)
{
    char v[NBASE][128];
    memset(v, 0, sizeof v);
    double bytes = (double)n * 4 * (strcmp(s->kind, "scan") == 0 ? 2 : 1);
    double pen = 1 + 0.15 * fabs(log2(block / 256.0)) + 0.08 * fabs(log2(coarse / 4.0));
    double tc = (s->floor_us + bytes / (s->bw_GBps / pen * 1e3)) / 1e3; /* ms */
    double th = (s->floor_us * 0.8 + bytes / (s->bw_GBps / pen * (bytes < L2_BYTES ? 2.2 : 1.04) * 1e3)) / 1e3;
    int ok = strcmp(status, "ok") == 0, invalid = strcmp(status, "invalid") == 0;
    const char *vals[NBASE];
    char nb[32], bb[16], cb[16];
    snprintf(nb, sizeof nb, "%llu", n);
    snprintf(bb, sizeof bb, "%d", block);
    snprintf(cb, sizeof cb, "%d", coarse);
    for (size_t i = 0; i < NBASE; i++) vals[i] = "";
    vals[0] = s->variant, vals[1] = s->alias, vals[2] = s->family, vals[3] = s->kind, vals[4] = "f32";
    vals[5] = "sum", vals[6] = nb, vals[7] = bb, vals[8] = cb, vals[9] = finish, vals[10] = mode;
    vals[11] = status, vals[12] = skip, vals[13] = error;
    if (ok || invalid) {
        double num[] = {invalid ? 3.5 : 1e-6, invalid ? 0.02 : 1e-4, bytes, tc, tc * 0.98, tc * 1.01, tc * 0.01,
                        tc * 0.02, 20, th, th * 0.98, th * 1.01, th * 0.01, th * 0.02, 50, bytes / (tc * 1e6),
                        bytes / (th * 1e6), bytes / (tc * 1e6) / PEAK * 100, bytes / (tc * 1e6) / 4296 * 100, 1, 1};
        for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
            snprintf(v[14 + i], sizeof v[0], "%.6g", num[i]);
            vals[14 + i] = v[14 + i];
        }
    }
    int first = 1;
    for (size_t i = 0; i < NBASE; i++)
        if (col_on(x, base_cols[i])) field(x->f, first, vals[i]), first = 0;
    if (x->flags & FX_METRICS) {
        double m[NMETRIC] = {s->warp, s->warp_pred, s->bank * (double)n, s->bank * (double)n * 0.3,
                             fmin(95, bytes / (tc * 1e6) / PEAK * 105), s->occupancy};
        for (size_t i = 0; i < NMETRIC; i++) {
            char b[32] = "";
            if (ok) snprintf(b, sizeof b, "%.6g", m[i]);
            field(x->f, 0, b);
        }
    }
    fputc('\n', x->f);
}

static void write_run_json(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\n"
               "  \"schema_version\": 1, \"argv\": [\"sweep\", \"--experiment\", \"fixture\"],\n"
               "  \"git_sha\": \"0123abc\", \"git_dirty\": false, \"date\": \"2026-11-21T14:03:11Z\",\n"
               "  \"host\": \"fixture-host\", \"experiment\": \"fixture\",\n"
               "  \"device\": {\"name\": \"NVIDIA H200\", \"sm\": 90, \"sm_count\": 132, \"l2_bytes\": %.0f,\n"
               "             \"global_mem_bytes\": 150754820096, \"sm_clock_khz\": 1980000,\n"
               "             \"mem_clock_khz\": 3201000, \"mem_bus_bits\": 6016},\n"
               "  \"driver_version\": \"580.159.04\", \"runtime_version\": \"13.0\",\n"
               "  \"peak_bandwidth_GBps\": %.1f, \"copy_bandwidth_GBps\": 4296.0,\n"
               "  \"metrics\": [\"smsp__thread_inst_executed_per_inst_executed.ratio\"],\n"
               "  \"profiler_passes\": 2, \"profiler_status\": \"ok\", \"interrupted\": false,\n"
               "  \"rows\": 0, \"failures\": 2, \"wall_time_s\": 61.5\n}\n",
            L2_BYTES, PEAK);
    fclose(f);
}

/* A results directory: reductions (two Harris rungs, a shuffle, a coarsened
 * variant over block dim x coarse factor, CUB) and scans (two and CUB), f32
 * sum, n from 2^10 to 2^26, a failed (invalid), an erroring and a skipped row. */
static char *make_fixture(unsigned flags, const char *omit)
{
    const char *tmp = getenv("TEST_TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/plots-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    dir = strdup(dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    fx x = {.f = fopen(path, "w"), .flags = flags, .omit = omit};
    assert_non_null(x.f);
    header(&x);
    for (size_t i = 0; i < sizeof reduce_specs / sizeof reduce_specs[0]; i++) {
        const spec *s = &reduce_specs[i];
        for (int k = 10; k <= 26; k += 2) {
            unsigned long long n = 1ull << k;
            if (strcmp(s->variant, "reduce_cub") == 0) {
                row(&x, s, n, 256, 1, "none", "", "ok", "", "");
            } else if (strcmp(s->variant, "reduce_coarsened") == 0) {
                if (k == 22) {
                    static const int blocks[] = {64, 128, 256, 512}, coarse[] = {1, 2, 4, 8, 16};
                    for (int b = 0; b < 4; b++)
                        for (int c = 0; c < 5; c++) row(&x, s, n, blocks[b], coarse[c], "two_step", "", "ok", "", "");
                    row(&x, s, n, 32, 16, "two_step", "", "skipped",
                        "block dim 32, coarse 16: fewer blocks than SMs, which this variant refuses", "");
                } else {
                    row(&x, s, n, 256, 4, "two_step", "", "ok", "", "");
                }
            } else {
                for (int b = 128; b <= 256; b *= 2) {
                    row(&x, s, n, b, 1, "recursive", "", "ok", "", "");
                    row(&x, s, n, b, 1, "two_step", "", "ok", "", "");
                }
                if (k == 24 && i == 1) row(&x, s, n, 128, 1, "atomic", "", "invalid", "", "");
                if (k == 26 && i == 2)
                    row(&x, s, n, 512, 1, "two_step", "", "error", "",
                        "cudaErrorLaunchFailure: unspecified launch failure, \"retried\" once");
            }
        }
    }
    for (size_t i = 0; i < sizeof scan_specs / sizeof scan_specs[0]; i++)
        for (int k = 10; k <= 26; k += 2) {
            row(&x, &scan_specs[i], 1ull << k, 256, 1, "", "inclusive", "ok", "", "");
            row(&x, &scan_specs[i], 1ull << k, 256, 1, "", "exclusive", "ok", "", "");
        }
    fclose(x.f);
    if (flags & FX_RUN_JSON) write_run_json(dir);
    return dir;
}

/* ---- checks ----------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    size_t got = fread(s, 1, (size_t)len, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static int exists(const char *dir, const char *sub)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    struct stat st;
    return stat(p, &st) == 0 && st.st_size > 0;
}

/* Decode a PNG; return its number of distinct colours (up to 4096). */
static size_t png_colours(const char *path, unsigned *w, unsigned *h)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        print_error("%s: %s\n", path, img.message);
        return 0;
    }
    img.format = PNG_FORMAT_RGBA;
    uint32_t *px = malloc(PNG_IMAGE_SIZE(img));
    assert_non_null(px);
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
        print_error("%s: %s\n", path, img.message);
        free(px);
        return 0;
    }
    *w = img.width;
    *h = img.height;
    enum { SLOTS = 8192 };
    static uint32_t seen[SLOTS];
    static unsigned char used[SLOTS];
    memset(used, 0, sizeof used);
    size_t distinct = 0;
    for (size_t i = 0; i < (size_t)img.width * img.height && distinct < 4096; i++) {
        uint32_t c = px[i];
        size_t k = (c * 2654435761u) % SLOTS;
        while (used[k] && seen[k] != c) k = (k + 1) % SLOTS;
        if (!used[k]) {
            used[k] = 1;
            seen[k] = c;
            distinct++;
        }
    }
    free(px);
    return distinct;
}

typedef struct svg_check {
    int depth, root_is_svg, elements;
} svg_check;

static void XMLCALL svg_start(void *ud, const XML_Char *name, const XML_Char **attrs)
{
    (void)attrs;
    svg_check *c = ud;
    if (c->depth == 0) c->root_is_svg = strcmp(name, "svg") == 0;
    c->depth++;
    c->elements++;
}

static void XMLCALL svg_end(void *ud, const XML_Char *name)
{
    (void)name;
    ((svg_check *)ud)->depth--;
}

/* Well-formed XML whose root is <svg> with drawing inside. */
static void assert_svg(const char *path)
{
    char *text = slurp(path);
    assert_non_null(text);
    XML_Parser p = XML_ParserCreate(NULL);
    svg_check c = {0};
    XML_SetUserData(p, &c);
    XML_SetElementHandler(p, svg_start, svg_end);
    int ok = XML_Parse(p, text, (int)strlen(text), 1) == XML_STATUS_OK;
    if (!ok)
        print_error("%s:%lu: %s\n", path, (unsigned long)XML_GetCurrentLineNumber(p),
                    XML_ErrorString(XML_GetErrorCode(p)));
    XML_ParserFree(p);
    free(text);
    assert_true(ok);
    assert_true(c.root_is_svg);
    assert_true(c.elements > 20);
}

static void assert_chart(const char *dir, const char *stem)
{
    char png[4200], svg[4200];
    snprintf(png, sizeof png, "%s/charts/%s.png", dir, stem);
    snprintf(svg, sizeof svg, "%s/charts/%s.svg", dir, stem);
    unsigned w = 0, h = 0;
    size_t colours = png_colours(png, &w, &h);
    if (colours < 24) print_error("%s: %zu distinct colours (%ux%u)\n", png, colours, w, h);
    assert_true(w >= 400 && h >= 300);
    assert_true(colours >= 24); /* a blank or nearly blank image has a handful */
    assert_svg(svg);
}

static int need_gnuplot(void)
{
    if (plots_gnuplot_available()) return 1;
    print_message("gnuplot not found: chart checks skipped\n");
    return 0;
}

static int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* ---- tests ------------------------------------------------------------------ */

static void test_every_chart(void **state)
{
    (void)state;
    if (!need_gnuplot()) skip();
    char *dir = make_fixture(FX_ALL, NULL);
    char msg[2048];
    plots_options o = {0};
    o.svg = 1; /* PNG and SVG both checked */
    int rc = plots_render(dir, &o, msg, sizeof msg);
    print_message("%s\n", msg);
    assert_int_equal(rc, 0);
    static const char *const stems[] = {
        "bandwidth-reduce-f32-sum", "ladder-reduce-f32-sum", "metrics-reduce-f32-sum",
        "heatmap-reduce_coarsened-f32-sum", "time-reduce-f32-sum", "hotcold-reduce-f32-sum",
        "bandwidth-scan-f32-sum", "metrics-scan-f32-sum", "time-scan-f32-sum", "hotcold-scan-f32-sum",
        "speedup-vs-cub-reduce-f32-sum", "pct-copy-reduce-f32-sum", "speedup-vs-cub-scan-f32-sum",
        "pct-copy-scan-f32-sum"};
    for (size_t i = 0; i < sizeof stems / sizeof stems[0]; i++) assert_chart(dir, stems[i]);

    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_true(contains(md, "| Kernel | Time(2^22 f32) | Bandwidth(GB/s) |"));
    assert_true(contains(md, "reduce_interleaved_divergent"));
    assert_true(contains(md, "![Reduction bandwidth vs n](charts/bandwidth-reduce-f32-sum.png)"));
    assert_true(contains(md, "NVIDIA H200"));
    /* failures and skips, the quoted error message whole */
    assert_true(contains(md, "cudaErrorLaunchFailure: unspecified launch failure, \"retried\" once"));
    assert_true(contains(md, "| invalid |"));
    assert_true(contains(md, "fewer blocks than SMs"));
    /* no scan has several coarse factors: that heatmap is skipped with a note */
    assert_true(contains(md, "Skipped: no variant has more than one value of its own axis"));
    free(md);

    snprintf(path, sizeof path, "%s/index.html", dir);
    char *html = slurp(path);
    assert_non_null(html);
    size_t imgs = 0;
    for (const char *p = html; (p = strstr(p, "src=\"data:image/png;base64,")); p++) imgs++;
    assert_int_equal(imgs, sizeof stems / sizeof stems[0]);
    assert_false(contains(html, "src=\"http"));
    assert_false(contains(html, "<script"));
    free(html);
    assert_true(exists(dir, "plots-data/commands.sh"));
    free(dir);
}

static void test_missing_column(void **state)
{
    (void)state;
    char *dir = make_fixture(FX_ALL, "time_cold_median_ms");
    char msg[2048];
    assert_int_equal(plots_render(dir, NULL, msg, sizeof msg), -1);
    print_message("%s\n", msg);
    assert_true(contains(msg, "missing required column"));
    assert_true(contains(msg, "time_cold_median_ms"));
    free(dir);

    dir = make_fixture(FX_ALL, "variant");
    assert_int_equal(plots_render(dir, NULL, msg, sizeof msg), -1);
    assert_true(contains(msg, "variant"));
    assert_false(exists(dir, "report.md"));
    free(dir);
}

static void test_absent_data_is_skipped(void **state)
{
    (void)state;
    if (!need_gnuplot()) skip();
    /* no metric columns, no hot times, no run.json */
    char *dir = make_fixture(0, NULL);
    char msg[2048];
    plots_options o = {0};
    o.svg = 1; /* PNG and SVG both checked */
    int rc = plots_render(dir, &o, msg, sizeof msg);
    print_message("%s\n", msg);
    assert_int_equal(rc, 0);
    assert_true(contains(msg, "skipped"));
    assert_chart(dir, "bandwidth-reduce-f32-sum");
    assert_chart(dir, "ladder-reduce-f32-sum");
    assert_false(exists(dir, "charts/metrics-reduce-f32-sum.png"));
    assert_false(exists(dir, "charts/hotcold-reduce-f32-sum.png"));
    /* no hot times: the speed-up over CUB is drawn with its cold panel only;
     * no run.json: the percentage of the copy bandwidth is skipped */
    assert_chart(dir, "speedup-vs-cub-reduce-f32-sum");
    assert_false(exists(dir, "charts/pct-copy-reduce-f32-sum.png"));
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_true(contains(md, "Skipped: results.csv has no metric columns"));
    assert_true(contains(md, "Skipped: results.csv has no time_hot_median_ms column"));
    assert_true(contains(md, "No run metadata"));
    assert_true(contains(md, "Skipped: the measured copy bandwidth is unknown (run.json copy_bandwidth_GBps)"));
    free(md);
    free(dir);
}

static void test_without_gnuplot(void **state)
{
    (void)state;
    char *dir = make_fixture(FX_ALL, NULL);
    plots_options o = {0};
    o.gnuplot = "/nonexistent/gnuplot";
    char msg[2048];
    assert_int_equal(plots_render(dir, &o, msg, sizeof msg), 1);
    print_message("%s\n", msg);
    assert_true(contains(msg, "bazel run //plots:render"));
    assert_true(exists(dir, "report.md"));
    assert_true(exists(dir, "index.html"));
    assert_true(exists(dir, "plots-data/series-reduce-f32-sum.dat"));
    assert_false(exists(dir, "charts/bandwidth-reduce-f32-sum.png"));
    free(dir);
}

static void test_ladder_n_flag(void **state)
{
    (void)state;
    char *dir = make_fixture(FX_ALL, NULL);
    plots_options o = {0};
    o.n = (size_t)1 << 20; /* measured */
    o.no_charts = 1;
    char msg[2048];
    assert_int_equal(plots_render(dir, &o, msg, sizeof msg), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_true(contains(md, "Time(2^20 f32)"));
    free(md);
    o.n = 3000000; /* nearest in log2: 2^22 */
    assert_int_equal(plots_render(dir, &o, msg, sizeof msg), 0);
    md = slurp(path);
    assert_true(contains(md, "Time(2^22 f32)"));
    assert_true(contains(md, "the nearest measured n"));
    free(md);
    free(dir);
}

static void test_csv_quoting(void **state)
{
    (void)state;
    const char *text = "\xEF\xBB\xBF" "a,b,c\r\n"
                       "1,\"x, y\",\"say \"\"hi\"\"\"\r\n"
                       "\n"
                       "2,\"two\nlines\",\r\n";
    csv_table t;
    char err[256];
    assert_int_equal(csv_parse(text, strlen(text), &t, err, sizeof err), 0);
    assert_int_equal(t.ncols, 3);
    assert_int_equal(t.nrows, 2);
    assert_string_equal(t.header[0], "a");
    assert_string_equal(t.rows[0][1], "x, y");
    assert_string_equal(t.rows[0][2], "say \"hi\"");
    assert_string_equal(t.rows[1][1], "two\nlines");
    assert_string_equal(t.rows[1][2], "");
    assert_int_equal(t.lines[1], 4);
    csv_free(&t);

    const char *bad = "a,b\n1,2\n3,4,5\n";
    assert_int_equal(csv_parse(bad, strlen(bad), &t, err, sizeof err), -1);
    assert_true(contains(err, "3: 3 fields, the header has 2"));

    const char *open_quote = "a,b\n1,\"2\n";
    assert_int_equal(csv_parse(open_quote, strlen(open_quote), &t, err, sizeof err), -1);
    assert_true(contains(err, "not closed"));

    /* a last line cut short by an interrupted writer is dropped, not an error */
    const char *cut = "a,b,c\n1,2,3\n4,5";
    assert_int_equal(csv_parse(cut, strlen(cut), &t, err, sizeof err), 0);
    assert_int_equal(t.nrows, 1);
    assert_true(t.truncated_last);
    csv_free(&t);
}

/* ---- the charts against CUB ---------------------------------------------------- */

typedef struct cub_row {
    const char *variant, *family;
    int log2n, block;
    const char *status;
    double cold, hot; /* median ms */
} cub_row;

/* Reductions, f32 sum: CUB; a variant whose fastest configuration differs
 * between cold (block 128) and hot (block 512); one missing at 2^22 and alone
 * at 2^26, where CUB has no row. CUB's invalid row at 2^22 is faster than
 * everything and must be ignored. */
static const cub_row cub_rows[] = {
    {"reduce_cub", "cub", 20, 256, "ok", 0.010, 0.008},
    {"reduce_cub", "cub", 22, 256, "ok", 0.020, 0.018},
    {"reduce_cub", "cub", 22, 512, "invalid", 0.001, 0.001},
    {"reduce_cub", "cub", 24, 256, "ok", 0.060, 0.058},
    {"reduce_fast", "fast", 20, 128, "ok", 0.008, 0.007},
    {"reduce_fast", "fast", 20, 512, "ok", 0.009, 0.0064},
    {"reduce_fast", "fast", 22, 128, "ok", 0.025, 0.022},
    {"reduce_fast", "fast", 22, 512, "ok", 0.026, 0.020},
    {"reduce_fast", "fast", 24, 128, "ok", 0.050, 0.049},
    {"reduce_fast", "fast", 24, 512, "ok", 0.055, 0.045},
    {"reduce_slow", "slow", 20, 256, "ok", 0.020, 0.016},
    {"reduce_slow", "slow", 24, 256, "ok", 0.120, 0.116},
    {"reduce_slow", "slow", 26, 256, "ok", 0.500, 0.490},
};
#define NCUB_ROWS (sizeof cub_rows / sizeof cub_rows[0])
#define CUB_COPY_GBPS 2000.0

/* The fastest ok median of variant at 2^log2n (cold or hot); NaN when none. */
static double cub_fastest(const char *variant, int log2n, int hot, int *block)
{
    double best = NAN;
    for (size_t i = 0; i < NCUB_ROWS; i++) {
        const cub_row *c = &cub_rows[i];
        if (strcmp(c->variant, variant) || c->log2n != log2n || strcmp(c->status, "ok")) continue;
        double t = hot ? c->hot : c->cold;
        if (!(t >= best)) {
            best = t;
            if (block) *block = c->block;
        }
    }
    return best;
}

static char *make_cub_fixture(int with_cub)
{
    const char *tmp = getenv("TEST_TMPDIR");
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/plots-cub-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    dir = strdup(dir);
    char path[4200];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("variant,alias,family,kind,dtype,op,n,block_dim,coarse,finish,scan_mode,status,bytes_moved,"
          "time_cold_median_ms,time_hot_median_ms,bw_cold_GBps,bw_hot_GBps,bw_cold_pct_copy,speedup_vs_cub\n",
          f);
    for (size_t i = 0; i < NCUB_ROWS; i++) {
        const cub_row *c = &cub_rows[i];
        if (!with_cub && strcmp(c->family, "cub") == 0) continue;
        double bytes = 4.0 * (double)(1ull << c->log2n);
        double cub = cub_fastest("reduce_cub", c->log2n, 0, NULL);
        int ok = strcmp(c->status, "ok") == 0;
        char speedup[32] = "";
        if (ok && with_cub && isfinite(cub)) snprintf(speedup, sizeof speedup, "%.10g", cub / c->cold);
        fprintf(f, "%s,,%s,reduce,f32,sum,%llu,%d,1,two_step,,%s,%.0f,%.10g,%.10g,%.10g,%.10g,%.10g,%s\n", c->variant,
                c->family, 1ull << c->log2n, c->block, c->status, bytes, c->cold, c->hot, bytes / (c->cold * 1e6),
                bytes / (c->hot * 1e6), bytes / (c->cold * 1e6) / CUB_COPY_GBPS * 100, speedup);
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/run.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"experiment\": \"vs-cub-fixture\", \"device\": {\"name\": \"NVIDIA H200\", \"l2_bytes\": %.0f},\n"
               " \"peak_bandwidth_GBps\": %.1f, \"copy_bandwidth_GBps\": %.1f}\n",
            L2_BYTES, PEAK, CUB_COPY_GBPS);
    fclose(f);
    return dir;
}

/* Check plots-data/<name>: each block (a "# variant" line, then "n cold hot
 * cold_block cold_coarse hot_block hot_coarse" lines) holds exactly the
 * expected values of its variant. pct: percent of the copy bandwidth, else
 * the speed-up over CUB. Returns the number of values checked. */
static int check_cub_data(const char *dir, const char *name, int pct, const char *const *want_vars, size_t nwant)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/plots-data/%s", dir, name);
    char *text = slurp(path);
    assert_non_null(text);
    char var[64] = "";
    size_t nvars = 0;
    int checked = 0, points = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') {
            if (strlen(line) > 2 && !strchr(line + 2, ' ')) {
                snprintf(var, sizeof var, "%s", line + 2);
                assert_true(nvars < nwant);
                assert_string_equal(var, want_vars[nvars]);
                nvars++;
            }
            continue;
        }
        unsigned long long n;
        char cold_s[32], hot_s[32];
        int cb, cc, hb, hc;
        assert_int_equal(sscanf(line, "%llu %31s %31s %d %d %d %d", &n, cold_s, hot_s, &cb, &cc, &hb, &hc), 7);
        int log2n = 0;
        while ((1ull << log2n) < n) log2n++;
        points++;
        for (int hot = 0; hot < 2; hot++) {
            int block = -1;
            double t = cub_fastest(var, log2n, hot, &block), tc = cub_fastest("reduce_cub", log2n, hot, NULL);
            double want = pct ? 4.0 * (double)n / (t * 1e6) / CUB_COPY_GBPS * 100 : tc / t;
            const char *got_s = hot ? hot_s : cold_s;
            if (!isfinite(want)) {
                assert_string_equal(got_s, "?");
                continue;
            }
            double got = atof(got_s);
            if (fabs(got - want) > 1e-5 * want)
                print_error("%s: %s at n = %llu, %s: %g, want %g\n", name, var, n, hot ? "hot" : "cold", got, want);
            assert_true(fabs(got - want) <= 1e-5 * want);
            assert_int_equal(hot ? hb : cb, block); /* the configuration the value came from */
            checked++;
        }
    }
    assert_int_equal(nvars, nwant);
    free(text);
    print_message("%s: %d points, %d values checked\n", name, points, checked);
    return checked;
}

static void test_vs_cub_charts(void **state)
{
    (void)state;
    char *dir = make_cub_fixture(1);
    plots_options o = {0};
    o.svg = 1; /* PNG and SVG both checked */
    int draw_charts = plots_gnuplot_available();
    o.no_charts = !draw_charts;
    char msg[2048];
    int rc = plots_render(dir, &o, msg, sizeof msg);
    print_message("%s\n", msg);
    assert_int_equal(rc, 0);
    /* speed-up: the two variants other than CUB; reduce_slow has no point at
     * 2^22 (no row) nor at 2^26 (no CUB row) */
    static const char *const others[] = {"reduce_fast", "reduce_slow"};
    assert_int_equal(check_cub_data(dir, "speedup-vs-cub-reduce-f32-sum.dat", 0, others, 2), 2 * (3 + 2));
    /* percent of copy: CUB too, and reduce_slow at 2^26 */
    static const char *const all[] = {"reduce_cub", "reduce_fast", "reduce_slow"};
    assert_int_equal(check_cub_data(dir, "pct-copy-reduce-f32-sum.dat", 1, all, 3), 2 * (3 + 3 + 3));

    /* the cold speed-ups equal the stored speedup_vs_cub column of the fastest
     * row, and the cold percentages bw_cold_pct_copy (as the fixture wrote
     * them, the harness's way) */
    char path[4200];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    csv_table t;
    char err[256];
    assert_int_equal(csv_read_file(path, &t, err, sizeof err), 0);
    int c_var = csv_column(&t, "variant"), c_n = csv_column(&t, "n"), c_b = csv_column(&t, "block_dim");
    int c_st = csv_column(&t, "status"), c_sp = csv_column(&t, "speedup_vs_cub");
    int c_pct = csv_column(&t, "bw_cold_pct_copy");
    size_t compared = 0;
    for (int pct = 0; pct < 2; pct++) {
        snprintf(path, sizeof path, "%s/plots-data/%s-reduce-f32-sum.dat", dir, pct ? "pct-copy" : "speedup-vs-cub");
        char *text = slurp(path), var[64] = "";
        assert_non_null(text);
        for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            if (line[0] == '#') {
                if (!strchr(line + 2, ' ')) snprintf(var, sizeof var, "%s", line + 2);
                continue;
            }
            char n[32], block[16];
            double cold;
            assert_int_equal(sscanf(line, "%31s %lf %*s %15s", n, &cold, block), 3);
            for (size_t i = 0; i < t.nrows; i++) {
                char **f = t.rows[i];
                if (strcmp(f[c_var], var) || strcmp(f[c_n], n) || strcmp(f[c_b], block) || strcmp(f[c_st], "ok"))
                    continue;
                double col = atof(f[pct ? c_pct : c_sp]);
                assert_true(fabs(cold - col) <= 1e-5 * col);
                compared++;
            }
        }
        free(text);
    }
    csv_free(&t);
    assert_int_equal(compared, 5 + 9);

    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_true(contains(md, "Reduction speed-up over CUB vs n"));
    assert_true(contains(md, "Reduction bandwidth as % of the measured copy vs n"));
    free(md);
    if (draw_charts) {
        assert_chart(dir, "speedup-vs-cub-reduce-f32-sum");
        assert_chart(dir, "pct-copy-reduce-f32-sum");
    }
    free(dir);
}

static void test_vs_cub_without_cub(void **state)
{
    (void)state;
    char *dir = make_cub_fixture(0);
    plots_options o = {0};
    o.no_charts = !plots_gnuplot_available();
    char msg[2048];
    int rc = plots_render(dir, &o, msg, sizeof msg);
    print_message("%s\n", msg);
    assert_int_equal(rc, 0);
    assert_false(exists(dir, "plots-data/speedup-vs-cub-reduce-f32-sum.dat"));
    assert_false(exists(dir, "plots-data/pct-copy-reduce-f32-sum.dat"));
    assert_false(exists(dir, "charts/speedup-vs-cub-reduce-f32-sum.png"));
    assert_false(exists(dir, "charts/pct-copy-reduce-f32-sum.png"));
    if (!o.no_charts) assert_true(exists(dir, "charts/bandwidth-reduce-f32-sum.png"));
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md = slurp(path);
    assert_true(contains(md, "Skipped: no CUB rows (family cub, e.g. reduce_cub) with status ok for reduce f32 sum."));
    free(md);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_missing_column),
        cmocka_unit_test(test_ladder_n_flag),
        cmocka_unit_test(test_without_gnuplot),
        cmocka_unit_test(test_every_chart),
        cmocka_unit_test(test_absent_data_is_skipped),
        cmocka_unit_test(test_vs_cub_charts),
        cmocka_unit_test(test_vs_cub_without_cub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
