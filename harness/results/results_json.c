/* run.json: the run's identity, device, timing rule and totals. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/backend/sweep_device.h"
#include "harness/core/files.h"
#include "harness/config/plan.h"
#include "harness/results/results.h"
#include "harness/results/results_conditions.h"
#include "results_io/run_info.h"
#include "results_io/run_keys.h"

/* ---- run.json ---------------------------------------------------------------------------------- */

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* A device's name, clocks and memory. */
static json_t *device_object(const device_info *d)
{
    json_t *dev = json_object();
    char sm[16];
    snprintf(sm, sizeof sm, "%d.%d", d->sm_major, d->sm_minor);
    json_object_set_new(dev, RK(NAME), json_string(d->name));
    json_object_set_new(dev, RK(SM), json_string(sm));
    json_object_set_new(dev, RK(SM_COUNT), json_integer(d->sm_count));
    json_object_set_new(dev, RK(L2_BYTES), json_integer((json_int_t)d->l2_bytes));
    json_object_set_new(dev, RK(GLOBAL_MEM_BYTES), json_integer((json_int_t)d->global_mem_bytes));
    json_object_set_new(dev, RK(SM_CLOCK_KHZ), json_integer(d->sm_clock_khz));
    json_object_set_new(dev, RK(MEM_CLOCK_KHZ), json_integer(d->mem_clock_khz));
    json_object_set_new(dev, RK(MEM_BUS_BITS), json_integer(d->mem_bus_bits));
    json_object_set_new(dev, RK(ORDINAL), json_integer(d->ordinal));
    json_object_set_new(dev, RK(PCI_BUS_ID), d->pci_bus_id[0] ? json_string(d->pci_bus_id) : json_null());
    json_object_set_new(dev, RK(UUID), d->uuid[0] ? json_string(d->uuid) : json_null());
    return dev;
}

/* "devices": every device that ran rows, with its copy bandwidth, the
 * configurations it ran and, for a --devices worker lost on the way, why. */
static void run_json_devices(json_t *o, const run_info *ri)
{
    if (!ri->devices) return;
    json_t *arr = json_array();
    for (size_t i = 0; i < ri->device_count; i++) {
        const run_device *d = &ri->devices[i];
        json_t *dev = device_object(&d->info);
        json_object_set_new(dev, RK(PEAK_BANDWIDTH_GBPS), num_or_null(d->info.peak_bandwidth_GBps));
        json_object_set_new(dev, RK(COPY_BANDWIDTH_GBPS), num_or_null(d->copy_bandwidth_GBps));
        json_object_set_new(dev, RK(LAUNCH_US), num_or_null(d->launch_us));
        json_object_set_new(dev, RK(CONFIGURATIONS), json_integer((json_int_t)d->configs));
        json_object_set_new(dev, RK(FAULT), d->fault[0] ? json_string(d->fault) : json_null());
        json_array_append_new(arr, dev);
    }
    json_object_set_new(o, RK(DEVICES), arr);
    json_object_set_new(o, RK(WORKER_FAULTS), json_integer((json_int_t)ri->worker_faults));
    json_object_set_new(o, RK(LEFT_FOR_RESUME), json_integer((json_int_t)ri->left_for_resume));
}

/* "device", "driver_version", "runtime_version" (null without a device). */
static void run_json_device(json_t *o, const run_info *ri)
{
    if (ri->run.have_device) {
        const device_info *d = &ri->device;
        json_t *dev = device_object(d);
        json_object_set_new(o, RK(DEVICE), dev);
        json_object_set_new(o, RK(DRIVER_VERSION), json_integer(d->driver_version));
        json_object_set_new(o, RK(RUNTIME_VERSION), json_integer(d->runtime_version));
    } else {
        json_object_set_new(o, RK(DEVICE), json_null());
        json_object_set_new(o, RK(DRIVER_VERSION), json_null());
        json_object_set_new(o, RK(RUNTIME_VERSION), json_null());
    }
}

/* "timing" (the rule) and "seed" of the experiment e. */
static void run_json_timing(json_t *o, const experiment *e)
{
    json_t *t = json_object();
    json_object_set_new(t, RK(MIN_SAMPLES), json_integer(e->timing.min_samples));
    json_object_set_new(t, RK(MAX_SAMPLES), json_integer(e->timing.max_samples));
    json_object_set_new(t, RK(MAX_NOISE_PCT), json_real(e->timing.max_noise * 100));
    json_object_set_new(t, RK(TIMEOUT_S), json_real(e->timing.timeout_s));
    json_object_set_new(t, RK(NOISE),
                        json_string("relative standard error of the median: 1.2533 * 1.4826 * MAD / "
                                    "(median * sqrt(samples))"));
    json_object_set_new(t, RK(COLD), json_string("before each sample, 2x L2 bytes of clean scratch read (the L2 "
                                               "flush, outside the events); then cold_batch launches, each on its "
                                               "own copy of the input (copies reused only after 2x L2 bytes of "
                                               "other inputs were read)"));
    json_object_set_new(t, RK(HOT), json_string("untimed launches for WARM_TARGET_MS first; then hot_batch "
                                              "back-to-back launches per sample, same buffers"));
    json_object_set_new(t, RK(BATCHES), json_string("every timed batch queued behind a spinning kernel and released "
                                                  "once queued: the events time the GPU, not the launch rate"));
    char spread[200];
    snprintf(spread, sizeof spread,
             "a measurement whose stdev/median exceeds %.1f %% is taken again with twice the batch, up to %d "
             "times; the row has the last",
             SAMPLE_MAX_SPREAD * 100, SAMPLE_SPREAD_RETRIES);
    json_object_set_new(t, RK(SPREAD), json_string(spread));
    json_object_set_new(t, RK(WARM_MS), json_real(WARM_TARGET_MS));
    json_object_set_new(t, RK(SAMPLE_TARGET_MS), json_real(SAMPLE_TARGET_MS));
    json_object_set_new(t, RK(SCREEN_SAMPLE_MS), json_real(SCREEN_SAMPLE_MS));
    json_object_set_new(t, RK(SCREEN_WARM_MS), json_real(SCREEN_WARM_MS));
    json_object_set_new(o, RK(TIMING), t);
    json_object_set_new(o, RK(SEED), json_integer((json_int_t)e->seed));
}

/* "experiment_info": what the experiment file says of itself, for the
 * report's opening (plots/answer.h): the question and the lead chart
 * ("" when the file names none), and the description. Beside "experiment",
 * which stays the name (resume and compare read it as a string). */
static void run_json_experiment_info(json_t *o, const experiment *e)
{
    json_t *info = json_object();
    json_object_set_new(info, RK(NAME), json_string(e->name));
    json_object_set_new(info, RK(DESCRIPTION), json_string(e->description));
    json_object_set_new(info, RK(QUESTION), json_string(e->question));
    json_object_set_new(info, RK(LEAD_CHART), json_string(e->lead_chart));
    json_object_set_new(info, RK(PLAN_ORDER), json_string(e->order == PLAN_ORDER_SIZE ? "size" : "variant"));
    json_object_set_new(o, RK(EXPERIMENT_INFO), info);
}

/* "shard" (null for the whole plan), "plan_fingerprint" and, for a shard,
 * "plan_positions": each results.csv row's index in the whole plan, in row
 * order, so `sweep merge` puts the rows back in plan order. */
static void run_json_shard(json_t *o, const run_info *ri)
{
    json_object_set_new(o, RK(PLAN_FINGERPRINT),
                        ri->plan_fingerprint[0] ? json_string(ri->plan_fingerprint) : json_null());
    if (!ri->shard_count) {
        json_object_set_new(o, RK(SHARD), json_null());
        return;
    }
    json_t *s = json_object();
    json_object_set_new(s, RK(INDEX), json_integer(ri->shard_index));
    json_object_set_new(s, RK(COUNT), json_integer(ri->shard_count));
    json_object_set_new(s, RK(SOURCE), json_string(ri->shard_source));
    json_object_set_new(s, RK(PLAN_CONFIGURATIONS), json_integer((json_int_t)ri->plan_total));
    json_object_set_new(o, RK(SHARD), s);
    json_t *pos = json_array();
    for (size_t i = 0; ri->row_positions && i < ri->rows; i++)
        json_array_append_new(pos, json_integer((json_int_t)ri->row_positions[i]));
    json_object_set_new(o, RK(PLAN_POSITIONS), pos);
}

/* "measures": the tags of the measured figures results.csv holds, in column
 * order (name, unit, description), as results_io/measures.def lists them. */
static void run_json_measures(json_t *o)
{
    json_t *list = json_array();
    for (size_t i = 0; i < RC_COUNT; i++) {
        if (!results_cols[i].measure) continue;
        json_t *m = json_object();
        json_object_set_new(m, RK(NAME), json_string(results_cols[i].name));
        json_object_set_new(m, RK(UNIT), json_string(results_cols[i].unit));
        json_object_set_new(m, RK(DESCRIPTION), json_string(results_cols[i].description));
        json_array_append_new(list, m);
    }
    json_object_set_new(o, RK(MEASURES), list);
}

void run_info_notes(const run_info *ri, char *buf, size_t len)
{
    if (ri->exp) plan_unheeded_notes(ri->exp, buf, len);
    else snprintf(buf, len, "%s", ri->run.notes);
}

/* "notes": each value asked that a variant cannot honour, and what it ran
 * instead ("reduce_cub block dim 256 (asked 512)"); [] when none. */
static void run_json_notes(json_t *o, const run_info *ri)
{
    char notes[sizeof ri->run.notes];
    json_t *a = json_array();
    run_info_notes(ri, notes, sizeof notes);
    for (char *t = notes, *end; *t; t = end ? end + 2 : t + strlen(t)) {
        if ((end = strstr(t, "; "))) *end = '\0';
        json_array_append_new(a, json_string(t));
    }
    json_object_set_new(o, RK(NOTES), a);
}

/* "stages": where the devices' time went, and the two timing stages' counts. */
static void run_json_stages(json_t *o, const stage_times *s)
{
    json_t *st = json_object();
    struct {
        const char *key;
        double v;
    } parts[] = {{RK(VALIDATE_S), s->validate}, {RK(PREPARE_S), s->prepare}, {RK(WARMUP_S), s->warmup},
                 {RK(COLD_S), s->cold},         {RK(HOT_S), s->hot},         {RK(CONDITIONS_S), s->conditions},
                 {RK(REFINE_S), s->refine},     {RK(PROFILE_S), s->profile}, {RK(CONFIRM_S), s->confirm},
                 {RK(PROFILE_QUEUE_S), s->profile_queue}, {RK(PROFILE_RUN_S), s->profile_run},
                 {RK(CUPTI_SESSION_S), s->cupti.session}, {RK(CUPTI_RESTORE_S), s->cupti.restore},
                 {RK(CUPTI_RANGES_S), s->cupti.ranges}, {RK(CUPTI_PASSES_S), s->cupti.passes},
                 {RK(CUPTI_DECODE_S), s->cupti.decode}, {RK(CUPTI_EVALUATE_S), s->cupti.evaluate},
                 {RK(PROFILE_FREE_S), s->cupti.frees}, {RK(CUPTI_PUSH_S), s->cupti.push},
                 {RK(CUPTI_LAUNCH_S), s->cupti.launch}, {RK(CUPTI_WAIT_S), s->cupti.wait},
                 {RK(CUPTI_POP_S), s->cupti.pop}};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) json_object_set_new(st, parts[k].key, json_real(parts[k].v));
    struct {
        const char *key;
        size_t v;
    } counts[] = {{RK(SCREENED), s->screened}, {RK(REFINED), s->refined}, {RK(CUPTI_SESSIONS), s->cupti.sessions},
                  {RK(CUPTI_PASSES), s->cupti.pass_count}, {RK(CUPTI_RANGES), s->cupti.range_count}};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        json_object_set_new(st, counts[k].key, json_integer((json_int_t)counts[k].v));
    json_object_set_new(o, RK(STAGES), st);
}

static json_t *run_json(const run_info *ri)
{
    json_t *o = json_object();
    json_object_set_new(o, RK(SCHEMA_VERSION), json_integer(SWEEP_SCHEMA_VERSION));
    json_t *argv = json_array();
    for (int i = 0; i < ri->argc; i++) json_array_append_new(argv, json_string(ri->argv[i]));
    json_object_set_new(o, RK(ARGV), argv);
    json_object_set_new(o, RK(GIT_SHA), json_string(ri->git_sha[0] ? ri->git_sha : "unknown"));
    json_object_set_new(o, RK(GIT_DIRTY), ri->git_dirty < 0 ? json_null() : json_boolean(ri->git_dirty));
    json_object_set_new(o, RK(DATE), json_string(ri->run.date));
    json_object_set_new(o, RK(HOST), json_string(ri->host));
    json_object_set_new(o, RK(BOOT_ID), ri->boot_id[0] ? json_string(ri->boot_id) : json_null());
    json_object_set_new(o, RK(EXPERIMENT), json_string(ri->run.experiment));
    json_object_set_new(o, RK(EXPERIMENT_SOURCE), json_string(ri->experiment_source));
    if (ri->exp) run_json_experiment_info(o, ri->exp);
    run_json_device(o, ri);
    run_json_devices(o, ri);
    json_object_set_new(o, RK(FAKE_DEVICE), json_boolean(ri->fake_device));
    json_object_set_new(o, RK(PEAK_BANDWIDTH_GBPS), num_or_null(ri->run.peak_GBps));
    json_object_set_new(o, RK(COPY_BANDWIDTH_GBPS), num_or_null(ri->run.copy_GBps));
    json_object_set_new(o, RK(COPY_TIMING), json_string(COPY_TIMING_RULE));
    json_object_set_new(o, RK(LAUNCH_US), num_or_null(ri->run.launch_us));
    json_t *metrics = json_array(), *units = json_array();
    for (size_t i = 0; i < ri->metrics.count; i++) {
        json_array_append_new(metrics, json_string(ri->metrics.m[i].name));
        json_array_append_new(units, json_string(ri->metrics.m[i].unit));
    }
    json_object_set_new(o, RK(METRICS), metrics);
    json_object_set_new(o, RK(METRIC_UNITS), units);
    run_json_measures(o);
    json_object_set_new(o, RK(PROFILER_PASSES), json_integer(ri->profiler_passes));
    if (ri->exp) json_object_set_new(o, RK(PROFILE_BATCH), json_integer(ri->exp->profile_batch));
    json_object_set_new(o, RK(PROFILER_STATUS), json_string(ri->profiler_status));
    if (ri->exp) run_json_timing(o, ri->exp);
    json_t *plan = json_object();
    json_object_set_new(plan, RK(CONFIGURATIONS), json_integer((json_int_t)ri->plan_configs));
    json_object_set_new(plan, RK(SKIPPED), json_integer((json_int_t)ri->plan_skipped));
    json_object_set_new(o, RK(PLAN), plan);
    run_json_notes(o, ri);
    run_json_shard(o, ri);
    json_object_set_new(o, RK(INTERRUPTED), json_boolean(ri->run.interrupted));
    json_object_set_new(o, RK(COMPLETE), json_boolean(ri->complete));
    json_object_set_new(o, RK(STOP_REASON), ri->stop_reason[0] ? json_string(ri->stop_reason) : json_null());
    json_object_set_new(o, RK(ROWS), json_integer((json_int_t)ri->rows));
    json_object_set_new(o, RK(FAILURES), json_integer((json_int_t)ri->failures));
    json_object_set_new(o, RK(SKIPPED), json_integer((json_int_t)ri->skipped));
    json_object_set_new(o, RK(WALL_TIME_S), json_real(ri->wall_time_s));
    json_object_set_new(o, RK(VALIDATE_S), isfinite(ri->validate_s) ? json_real(ri->validate_s) : json_null());
    run_json_stages(o, &ri->stages);
    run_json_conditions(o, ri);
    return o;
}

static int render_json(FILE *f, void *ctx)
{
    json_t *o = ctx;
    if (json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) != 0) return -1;
    fputc('\n', f);
    return 0;
}

int run_json_write(const char *path, const run_info *ri, char *err, size_t errlen)
{
    json_t *o = run_json(ri);
    if (!o) {
        snprintf(err, errlen, "out of memory building run.json");
        return -1;
    }
    int r = write_file_atomic(path, render_json, o, err, errlen);
    json_decref(o);
    return r;
}

int run_json_read_identity(const char *path, char *experiment, size_t len, int *schema_version, char *err,
                           size_t errlen)
{
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) {
        snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    json_t *v = json_object_get(o, RK(SCHEMA_VERSION));
    json_t *e = json_object_get(o, RK(EXPERIMENT));
    if (!json_is_integer(v) || !json_is_string(e)) {
        snprintf(err, errlen, "%s: no schema_version or experiment", path);
        json_decref(o);
        return -1;
    }
    *schema_version = (int)json_integer_value(v);
    snprintf(experiment, len, "%s", json_string_value(e));
    json_decref(o);
    return 0;
}


void run_json_device_id(const char *path, char *out, size_t len)
{
    results_run run;
    results_run_load(path, &run);
    snprintf(out, len, "%s", run.device_id);
    results_run_free(&run);
}

void run_json_summary_info(const json_t *run, run_info *ri)
{
    results_run rr;
    results_run_read(run, &rr);
    memset(ri, 0, sizeof *ri);
    ri->run = rr;
    snprintf(ri->device.name, sizeof ri->device.name, "%s", rr.device);
}
