/* results.csv and run.json: the fixed schema, quoting, reading rows back for
 * --resume (torn last line, header checks), atomic replacement, derived
 * figures, the summary. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness/core/files.h"
#include "harness/results/pack.h"
#include "harness/results/results.h"
#include "kernels/registry.h"
#include "results_io/csv.h"
#include "results_io/run_keys.h"
#include "tests/sweep_test_util.h"

static char err[8192];

/* The schema other components read: these names, in this order, first. */
static const char fixed_header[] =
    "variant,alias,family,kind,dtype,op,n,block_dim,axes,finish,scan_mode,status,skip_reason,error,"
    "validation_error_abs,validation_tolerance_abs,bytes_moved,time_cold_median_ms,time_cold_min_ms,"
    "time_cold_mean_ms,time_cold_stdev_ms,time_cold_iqr_ms,samples_cold,time_hot_median_ms,time_hot_min_ms,"
    "time_hot_mean_ms,time_hot_stdev_ms,time_hot_iqr_ms,samples_hot,bw_cold_GBps,bw_hot_GBps,bw_cold_pct_peak,"
    "bw_cold_pct_copy,speedup_vs_baseline,speedup_vs_cub";

static char *render(void (*fn)(FILE *, void *), void *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fn(f, ctx);
    fclose(f);
    return text;
}

static void header_fn(FILE *f, void *ctx) { csv_write_header(f, *(metric_columns *)ctx); }

static void test_header(void **state)
{
    (void)state;
    metric_columns none = {NULL, 0};
    char *h = render(header_fn, &none);
    assert_int_equal(strncmp(h, fixed_header, strlen(fixed_header)), 0);
    assert_null(strstr(h, "m:"));
    free(h);
    sweep_metric m[2] = {{"dram__bytes_read.sum", "byte"}, {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%"}};
    metric_columns two = {m, 2};
    h = render(header_fn, &two);
    assert_non_null(strstr(h, ",m:dram__bytes_read.sum[byte],m:sm__throughput.avg.pct_of_peak_sustained_elapsed[%]\n"));
    free(h);
}

static sweep_config config_of(const char *name, size_t n, unsigned bd)
{
    sweep_config c;
    memset(&c, 0, sizeof c);
    c.v = registry_find(name);
    assert_non_null(c.v);
    c.dtype = DTYPE_F32;
    c.op = OP_SUM;
    c.n = n;
    c.block_dim = c.v->block_dims & bd ? bd : c.v->block_dims & -c.v->block_dims;
    c.axis[0] = c.axis[1] = 1; /* no own axes: 1, as the plan gives them */
    c.finish = c.v->kind == KIND_REDUCE ? (finish_t)__builtin_ctz(c.v->finishes) : FINISH_NONE;
    c.scan_mode = SCAN_INCLUSIVE;
    return c;
}

static void timed(sweep_row *r, double median)
{
    r->cold.samples = r->hot.samples = 10;
    r->cold.median = median;
    r->cold.min = median * 0.9;
    r->cold.mean = median * 1.01;
    r->cold.stdev = median * 0.02;
    r->cold.iqr = median * 0.03;
    r->cold.noise = 0.004;
    r->cold.stop = STOP_NOISE;
    r->hot = r->cold;
    r->hot.median = median / 2;
    r->cold_batch = 7;
    r->hot_batch = 4;
    r->validated = 1;
    r->plain.values[RC_VALIDATION_ERROR_ABS] = 1e-6;
    r->plain.values[RC_VALIDATION_TOLERANCE_ABS] = 1e-3;
}

static void test_round_trip(void **state)
{
    (void)state;
    sweep_metric m[1] = {{"dram__bytes.sum", "byte"}};
    metric_columns mc = {m, 1};
    sweep_row rows[4];
    sweep_config c0 = config_of("reduce_warp_shuffle", 1u << 20, 256);
    assert_int_equal(row_init(&rows[0], &c0, 1), 0);
    timed(&rows[0], 0.0123456789);
    rows[0].plain.metrics[0] = 4.5e6;
    row_derive_bandwidth(&rows[0], 4800, 4000);
    sweep_config c1 = config_of("reduce_interleaved_divergent", 1000, 128);
    assert_int_equal(row_init(&rows[1], &c1, 1), 0);
    row_set_status(&rows[1], ROW_INVALID);
    rows[1].validated = 1;
    row_set_error(&rows[1], "expected 1, got \"2\", error 1 > tolerance 0\nsecond line");
    sweep_config c2 = config_of("reduce_cub", 5, 256);
    c2.skip_reason = "n/a";
    assert_int_equal(row_init(&rows[2], &c2, 1), 0);
    row_set_skip(&rows[2], "block dim not accepted by this variant, see limits");
    sweep_config c3 = config_of("scan_kogge_stone", 4096, 256);
    c3.scan_mode = SCAN_EXCLUSIVE;
    assert_int_equal(row_init(&rows[3], &c3, 1), 0);
    timed(&rows[3], 0.5);
    rows[3].validated = 0;

    const char *dir = tu_tempdir("csv");
    char path[4200];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    assert_int_equal(results_write_csv(path, rows, 4, mc, err, sizeof err), 0);
    char *text = tu_read_file(path);
    assert_int_equal(tu_count_lines(text), 6); /* header, 4 rows, one embedded newline */
    assert_non_null(strstr(text, "\"reduce0, reduce_v0, sum_reduce\""));
    assert_non_null(strstr(text, "\"expected 1, got \"\"2\"\", error 1 > tolerance 0\nsecond line\""));
    assert_non_null(strstr(text, ",skipped,\"block dim not accepted by this variant, see limits\","));
    free(text);

    sweep_row *back;
    size_t n;
    assert_int_equal(results_read_csv(path, mc, &back, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    assert_ptr_equal(back[0].cfg.v, rows[0].cfg.v);
    assert_int_equal(back[0].cfg.n, 1u << 20);
    assert_int_equal(back[0].status, ROW_OK);
    assert_true(fabs(back[0].cold.median - 0.0123456789) < 1e-12);
    assert_int_equal(back[0].cold.samples, 10);
    assert_int_equal(back[0].cold.stop, STOP_NOISE);
    assert_int_equal(back[0].cold_batch, 7);
    assert_int_equal(back[0].hot_batch, 4);
    assert_true(fabs(back[0].plain.values[RC_BW_COLD_GBPS] - rows[0].plain.values[RC_BW_COLD_GBPS]) < 1e-6 * rows[0].plain.values[RC_BW_COLD_GBPS]);
    assert_true(back[0].plain.metrics[0] == 4.5e6);
    assert_int_equal(back[0].validated, 1);
    assert_int_equal(back[1].status, ROW_INVALID);
    assert_string_equal(back[1].error, rows[1].error);
    assert_int_equal(back[1].cold.samples, 0);
    assert_int_equal(back[2].status, ROW_SKIPPED);
    assert_string_equal(back[2].skip_reason, rows[2].skip_reason);
    assert_int_equal(back[3].cfg.scan_mode, SCAN_EXCLUSIVE);
    assert_int_equal(back[3].validated, 0);
    for (size_t i = 0; i < n; i++) assert_true(config_same_axes(&back[i].cfg, &rows[i].cfg));
    for (size_t i = 0; i < n; i++) row_free(&back[i]);
    free(back);

    /* another metric set: refused */
    metric_columns none = {NULL, 0};
    assert_int_equal(results_read_csv(path, none, &back, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "header differs"));

    /* a torn last line (the run died mid-write) is dropped */
    FILE *f = fopen(path, "a");
    fputs("reduce_warp_shuffle,\"reduce_v6, sum_sh", f);
    fclose(f);
    assert_int_equal(results_read_csv(path, mc, &back, &n, err, sizeof err), 0);
    assert_int_equal(n, 4);
    for (size_t i = 0; i < n; i++) row_free(&back[i]);
    free(back);
    /* a variant this build does not have: refused, naming the row */
    assert_int_equal(results_write_csv(path, rows, 1, mc, err, sizeof err), 0);
    f = fopen(path, "a");
    fputs("reduce_nonesuch,a,b,reduce,f32,sum,1,1,1,two_step,,ok,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n", f);
    fclose(f);
    assert_int_equal(results_read_csv(path, mc, &back, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "row 3"));
    for (int i = 0; i < 4; i++) row_free(&rows[i]);
}

static int render_fails(FILE *f, void *ctx)
{
    (void)ctx;
    fputs("partial", f);
    return -1;
}

static int render_new(FILE *f, void *ctx)
{
    fputs((const char *)ctx, f);
    return 0;
}

static void test_atomic_replace(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("atomic");
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    assert_int_equal(tu_write_file(path, "old"), 0);
    assert_int_equal(write_file_atomic(path, render_fails, NULL, err, sizeof err), -1);
    char *t = tu_read_file(path);
    assert_string_equal(t, "old"); /* a failed write leaves the old file */
    free(t);
    assert_int_equal(write_file_atomic(path, render_new, "new", err, sizeof err), 0);
    t = tu_read_file(path);
    assert_string_equal(t, "new");
    free(t);
    /* no temporary left behind */
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t entries = 0;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') entries++;
    closedir(d);
    assert_int_equal(entries, 1);
    /* make_dirs */
    char deep[4300];
    snprintf(deep, sizeof deep, "%s/a/b/c", dir);
    assert_int_equal(make_dirs(deep, err, sizeof err), 0);
    assert_true(path_is_dir(deep));
    assert_true(dir_is_empty(deep));
    assert_false(dir_is_empty(dir));
    assert_int_equal(make_dirs(path, err, sizeof err), -1); /* a file is in the way */
}

/* Every key the writer puts in run.json, at any depth, is in the one list
 * of keys (results_io/run_keys.def) the readers name them by. */
static void assert_keys_listed(const json_t *o)
{
    const char *key;
    json_t *v;
    size_t i;
    if (json_is_array(o)) json_array_foreach(o, i, v) assert_keys_listed(v);
    if (!json_is_object(o)) return;
    json_object_foreach((json_t *)o, key, v)
    {
        if (run_key_named(key) < 0) fail_msg("run.json key '%s' is not in results_io/run_keys.def", key);
        assert_keys_listed(v);
    }
}

static void test_run_json(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("json");
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    char *argv[] = {"sweep", "--sizes", "1K", NULL};
    sweep_metric m[1] = {{"dram__bytes.sum", "byte"}};
    experiment e;
    experiment_defaults(&e);
    run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.argc = 3;
    ri.argv = argv;
    snprintf(ri.git_sha, sizeof ri.git_sha, "0123456789abcdef");
    ri.git_dirty = 1;
    snprintf(ri.run.date, sizeof ri.run.date, "2026-01-01T00:00:00Z");
    snprintf(ri.host, sizeof ri.host, "h");
    snprintf(ri.run.experiment, sizeof ri.run.experiment, "default");
    ri.exp = &e;
    ri.run.have_device = 1;
    snprintf(ri.device.name, sizeof ri.device.name, "NVIDIA H200");
    ri.device.sm_major = 9;
    ri.device.l2_bytes = 60u << 20;
    ri.run.peak_GBps = 4800;
    ri.run.copy_GBps = NAN;
    ri.metrics = (metric_columns){m, 1};
    ri.profiler_passes = 3;
    snprintf(ri.profiler_status, sizeof ri.profiler_status, "ok");
    ri.run.interrupted = 1;
    ri.rows = 12;
    ri.failures = 2;
    ri.wall_time_s = 1.5;
    assert_int_equal(run_json_write(path, &ri, err, sizeof err), 0);
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    assert_non_null(o);
    const char *keys[] = {"schema_version", "argv", "git_sha", "git_dirty", "date", "host", "experiment", "device",
                          "driver_version", "runtime_version", "peak_bandwidth_GBps", "copy_bandwidth_GBps",
                          "metrics", "profiler_passes", "profiler_status", "interrupted", "rows", "failures",
                          "wall_time_s"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!json_object_get(o, keys[i])) fail_msg("run.json lacks %s", keys[i]);
    const char *dev_keys[] = {"name", "sm", "sm_count", "l2_bytes", "global_mem_bytes", "sm_clock_khz",
                              "mem_clock_khz", "mem_bus_bits"};
    json_t *dev = json_object_get(o, "device");
    for (size_t i = 0; i < sizeof dev_keys / sizeof dev_keys[0]; i++)
        if (!json_object_get(dev, dev_keys[i])) fail_msg("run.json device lacks %s", dev_keys[i]);
    assert_int_equal(json_integer_value(json_object_get(o, "schema_version")), SWEEP_SCHEMA_VERSION);
    assert_int_equal(json_array_size(json_object_get(o, "argv")), 3);
    assert_true(json_is_true(json_object_get(o, "git_dirty")));
    assert_true(json_is_null(json_object_get(o, "copy_bandwidth_GBps"))); /* NaN is not JSON */
    assert_true(json_is_true(json_object_get(o, "interrupted")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(o, "metrics"), 0)), "dram__bytes.sum");
    assert_string_equal(json_string_value(json_object_get(dev, "sm")), "9.0");
    /* the measured figures' tags, in column order, as the tag table says */
    json_t *measures = json_object_get(o, "measures");
    size_t k = 0;
    for (size_t i = 0; i < RC_COUNT; i++) {
        if (!results_cols[i].measure) continue;
        json_t *m = json_array_get(measures, k++);
        assert_string_equal(json_string_value(json_object_get(m, "name")), results_cols[i].name);
        assert_string_equal(json_string_value(json_object_get(m, "unit")), results_cols[i].unit);
        assert_true(strlen(json_string_value(json_object_get(m, "description"))) > 0);
    }
    assert_int_equal(json_array_size(measures), k);
    assert_string_equal(json_string_value(json_object_get(json_array_get(measures, 0), "name")), "status");
    assert_keys_listed(o);
    json_decref(o);
    char name[64];
    int schema;
    assert_int_equal(run_json_read_identity(path, name, sizeof name, &schema, err, sizeof err), 0);
    assert_string_equal(name, "default");
    assert_int_equal(schema, SWEEP_SCHEMA_VERSION);
    assert_int_equal(tu_write_file(path, "{\"rows\": 3}"), 0);
    assert_int_equal(run_json_read_identity(path, name, sizeof name, &schema, err, sizeof err), -1);
}

static void test_derived(void **state)
{
    (void)state;
    sweep_row rows[5];
    sweep_config base = config_of("reduce_interleaved_divergent", 1u << 20, 256);
    sweep_config base2 = config_of("reduce_interleaved_divergent", 1u << 20, 512);
    sweep_config cub = config_of("reduce_cub", 1u << 20, 256);
    sweep_config fast = config_of("reduce_warp_shuffle", 1u << 20, 256);
    sweep_config other_n = config_of("reduce_warp_shuffle", 1u << 22, 256);
    row_init(&rows[0], &base, 0);
    row_init(&rows[1], &base2, 0);
    row_init(&rows[2], &cub, 0);
    row_init(&rows[3], &fast, 0);
    row_init(&rows[4], &other_n, 0);
    timed(&rows[0], 4.0);
    timed(&rows[1], 2.0); /* the baseline's fastest counts */
    timed(&rows[2], 0.5);
    timed(&rows[3], 1.0);
    timed(&rows[4], 1.0);
    for (int i = 0; i < 5; i++) row_derive_bandwidth(&rows[i], 4800, 4000);
    rows_derive_speedups(rows, 5);
    assert_true(fabs(rows[3].plain.values[RC_SPEEDUP_VS_BASELINE] - 2.0) < 1e-12);
    assert_true(fabs(rows[3].plain.values[RC_SPEEDUP_VS_CUB] - 0.5) < 1e-12);
    assert_true(fabs(rows[0].plain.values[RC_SPEEDUP_VS_BASELINE] - 0.5) < 1e-12);
    assert_true(isnan(rows[4].plain.values[RC_SPEEDUP_VS_BASELINE])); /* no baseline at that n */
    double bytes = rows[3].plain.values[RC_BYTES_MOVED];
    assert_true(bytes > 0);
    assert_true(fabs(rows[3].plain.values[RC_BW_COLD_GBPS] - bytes / 1e-3 / 1e9) < 1e-9 * rows[3].plain.values[RC_BW_COLD_GBPS]);
    assert_true(fabs(rows[3].plain.values[RC_BW_COLD_PCT_PEAK] - rows[3].plain.values[RC_BW_COLD_GBPS] / 4800 * 100) < 1e-9);
    assert_true(fabs(rows[3].plain.values[RC_BW_COLD_PCT_COPY] - rows[3].plain.values[RC_BW_COLD_GBPS] / 4000 * 100) < 1e-9);
    assert_true(fabs(rows[3].plain.values[RC_BW_HOT_GBPS] - 2 * rows[3].plain.values[RC_BW_COLD_GBPS]) < 1e-6 * rows[3].plain.values[RC_BW_HOT_GBPS]);
    /* an invalid row gets no figures */
    row_set_status(&rows[4], ROW_INVALID);
    row_derive_bandwidth(&rows[4], 4800, 4000);
    assert_true(isnan(rows[4].plain.values[RC_BW_COLD_GBPS]));

    run_info ri;
    memset(&ri, 0, sizeof ri);
    snprintf(ri.run.experiment, sizeof ri.run.experiment, "t");
    row_set_error(&rows[4], "wrong | result");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    summary_print(f, rows, 5, &ri);
    fclose(f);
    assert_non_null(strstr(text, "| 2^20 | reduce_cub | 256 |"));
    assert_non_null(strstr(text, "## Failures (1)"));
    assert_non_null(strstr(text, "wrong \\| result"));
    assert_non_null(strstr(text, "5 rows: 4 ok, 1 invalid, 0 error, 0 skipped."));
    free(text);
    for (int i = 0; i < 5; i++) row_free(&rows[i]);
}

/* sweep pack: results.csv, samples.csv and confirm.csv into .gz, read back
 * through the plain names byte for byte; --resume's unpack gives the same files. */
static void test_pack_round_trip(void **state)
{
    (void)state;
    const char *dir = tu_tempdir("pack");
    static const char *const names[] = {"results.csv", "samples.csv", "confirm.csv"};
    const char *text[3] = {"variant,n,note\nreduce_cub,1024,\"a, quoted\"\nreduce0,2048,\n",
                           "variant,n,config,phase,batch,sample,time_ms\nreduce0,1024,x,cold,1,0,0.5\n",
                           "kind,dtype\nreduce,f32\n"};
    for (int i = 0; i < 3; i++) assert_int_equal(tu_write_file(tu_path(dir, names[i]), text[i]), 0);
    assert_int_equal(results_pack_dir(dir, 1, err, sizeof err), 0);
    for (int i = 0; i < 3; i++) {
        char gz[600];
        snprintf(gz, sizeof gz, "%s.gz", names[i]);
        assert_false(tu_exists(tu_path(dir, names[i])));
        assert_true(tu_exists(tu_path(dir, gz)));
        assert_true(csv_exists(tu_path(dir, names[i])));
        size_t len = 0;
        char *back = csv_slurp(tu_path(dir, names[i]), &len, err, sizeof err); /* the plain name, resolved */
        assert_non_null(back);
        assert_int_equal(len, strlen(text[i]));
        assert_string_equal(back, text[i]);
        free(back);
    }
    /* packed already: nothing to do */
    assert_int_equal(results_pack_dir(dir, 1, err, sizeof err), 0);
    assert_int_equal(results_unpack_dir(dir, err, sizeof err), 0);
    for (int i = 0; i < 3; i++) {
        char gz[600];
        snprintf(gz, sizeof gz, "%s.gz", names[i]);
        assert_false(tu_exists(tu_path(dir, gz)));
        char *plain = tu_read_file(tu_path(dir, names[i]));
        assert_non_null(plain);
        assert_string_equal(plain, text[i]);
        free(plain);
    }
    /* neither form: absent */
    assert_false(csv_exists(tu_path(dir, "other.csv")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_atomic_replace),
        cmocka_unit_test(test_run_json),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_pack_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
