/* run.json's reader (results_io/run_info.h), by the key list. */
#define _POSIX_C_SOURCE 200809L
#include "results_io/run_info.h"

#include "results_io/run_keys.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A number, or a string that holds one (hand-edited files); else NaN. */
static double json_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_number(v)) return json_number_value(v);
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        double d = strtod(s, &end);
        while (*end == ' ') end++;
        if (end != s && !*end) return d;
    }
    return NAN;
}

static void text(char *out, size_t len, const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    snprintf(out, len, "%s", s ? s : "");
}

static void read_device(const json_t *dev, results_run *r)
{
    r->have_device = json_is_object(dev);
    if (!r->have_device) return;
    const char *name = json_string_value(json_object_get(dev, RK(NAME)));
    const char *bus = json_string_value(json_object_get(dev, RK(PCI_BUS_ID)));
    snprintf(r->device, sizeof r->device, "%s", name ? name : "");
    snprintf(r->device_id, sizeof r->device_id, "%lld:%s:%s",
             (long long)json_integer_value(json_object_get(dev, RK(ORDINAL))), name ? name : "unknown", bus ? bus : "");
    r->l2_bytes = json_num(dev, RK(L2_BYTES));
}

void results_run_read(const json_t *root, results_run *r)
{
    memset(r, 0, sizeof *r);
    r->l2_bytes = r->peak_GBps = r->copy_GBps = r->launch_us = NAN;
    const json_t *v = json_object_get(root, RK(SCHEMA_VERSION));
    r->schema_version = json_is_integer(v) ? (int)json_integer_value(v) : -1;
    text(r->experiment, sizeof r->experiment, root, RK(EXPERIMENT));
    text(r->date, sizeof r->date, root, RK(DATE));
    const char *d = r->date;
    if (strlen(d) >= 10 && d[4] == '-' && d[7] == '-') snprintf(r->day, sizeof r->day, "%.10s", d);
    else snprintf(r->day, sizeof r->day, "%.15s", d);
    r->interrupted = json_is_true(json_object_get(root, RK(INTERRUPTED)));
    read_device(json_object_get(root, RK(DEVICE)), r);
    const json_t *devices = json_object_get(root, RK(DEVICES));
    r->n_devices = json_is_array(devices) ? (int)json_array_size(devices) : 0;
    r->peak_GBps = json_num(root, RK(PEAK_BANDWIDTH_GBPS));
    r->copy_GBps = json_num(root, RK(COPY_BANDWIDTH_GBPS));
    r->launch_us = json_num(root, RK(LAUNCH_US));
    const json_t *note;
    size_t i;
    json_array_foreach(json_object_get(root, RK(NOTES)), i, note)
    {
        size_t used = strlen(r->notes);
        snprintf(r->notes + used, sizeof r->notes - used, "%s%s", i ? "; " : "",
                 json_string_value(note) ? json_string_value(note) : "");
    }
}

int results_run_load(const char *path, results_run *r)
{
    memset(r, 0, sizeof *r);
    r->l2_bytes = r->peak_GBps = r->copy_GBps = NAN;
    r->schema_version = -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(r->error, sizeof r->error, "run.json: %s", strerror(errno));
        return -1;
    }
    json_error_t je;
    json_t *root = json_loadf(f, 0, &je);
    fclose(f);
    if (!root || !json_is_object(root)) {
        snprintf(r->error, sizeof r->error, "run.json:%d:%d: %s", je.line, je.column,
                 root ? "not a JSON object" : je.text);
        json_decref(root);
        return -1;
    }
    results_run_read(root, r);
    r->present = 1;
    r->json = root;
    return 0;
}

void results_run_free(results_run *r)
{
    json_decref((json_t *)r->json);
    r->json = NULL;
}
