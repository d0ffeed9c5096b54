/* What a run.json says, as its readers take it: the renderer (plots/), the
 * sweep's summary of a stored run (merge, confirm), --resume and the rows
 * of older schemas. One reader, through the key list (results_io/run_keys.h);
 * the sweep's writer state (run_info, harness/results/results.h) embeds this
 * struct and writes the same keys from it. Plain data apart from the parsed document it keeps. */
#ifndef RESULTS_IO_RUN_INFO_H
#define RESULTS_IO_RUN_INFO_H

#include <stddef.h>

struct json_t;

typedef struct results_run {
    int present;            /* run.json was read */
    char error[256];        /* why it was not: missing, or "run.json:LINE:COL: ..." */
    void *json;             /* json_t * (the whole document) when results_run_load read it; else NULL */
    int schema_version;     /* -1 when absent */
    char experiment[64];
    char date[64];          /* as written */
    char day[16];           /* YYYY-MM-DD when the date starts with one */
    int interrupted;
    int have_device;        /* a "device" object */
    char device[256];       /* its name */
    char device_id[320];    /* "ordinal:name:PCI bus id", as rows name their device; "" without one */
    double l2_bytes;        /* NaN when absent */
    int n_devices;          /* "devices" that ran rows (0 when absent: one, the "device") */
    double peak_GBps, copy_GBps; /* NaN when absent or not a number */
    double launch_us;       /* back-to-back time of a minimal launch (launch_probe.h); NaN when absent */
    char notes[1024];       /* "notes", "; "-joined; "" none */
} results_run;

/* Read path (a run.json). 0, or -1 with r->error set (r->present 0). */
int results_run_load(const char *path, results_run *r);
/* The same from a parsed document (not kept: r->json stays NULL). */
void results_run_read(const struct json_t *root, results_run *r);
void results_run_free(results_run *r);

#endif
