/* The keys of run.json by name: one constant each, RK_<ID>, from the one list
 * results_io/run_keys.def, and RK(ID), the key's text, for jansson's calls:
 * json_object_get(run, RK(SCHEMA_VERSION)). The writer and every reader
 * (compare, merge, the summary, plots/) name keys only through it. */
#ifndef RESULTS_IO_RUN_KEYS_H
#define RESULTS_IO_RUN_KEYS_H

typedef enum run_key {
#define RUN_KEY(id, key, where) RK_##id,
#include "results_io/run_keys.def"
#undef RUN_KEY
    RUN_KEYS /* how many: RK_COUNT is the key "count" */
} run_key;

typedef struct run_key_info {
    const char *key;   /* the text in run.json */
    const char *where; /* the objects that hold it */
} run_key_info;

/* Indexed by run_key. */
extern const run_key_info run_keys[RUN_KEYS];

#define RK(id) (run_keys[RK_##id].key)

/* The run_key of that text, or -1 when run.json has no such key. */
int run_key_named(const char *key);

#endif
