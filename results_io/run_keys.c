/* The keys of run.json (results_io/run_keys.h), from run_keys.def. */
#include "results_io/run_keys.h"

#include <string.h>

const run_key_info run_keys[RUN_KEYS] = {
#define RUN_KEY(id, key, where) [RK_##id] = {key, where},
#include "results_io/run_keys.def"
#undef RUN_KEY
};

int run_key_named(const char *key)
{
    for (int i = 0; i < RUN_KEYS; i++)
        if (!strcmp(run_keys[i].key, key)) return i;
    return -1;
}
