/* See cpu_variant.h. */
#include "harness/reference/cpu_variant.h"

static double bytes_moved(const kernel_args *a) { return (double)a->n * (double)dtype_size(a->dtype); }
static size_t no_workspace(const kernel_args *a)
{
    (void)a;
    return 0;
}

const variant cpu_serial_variant = {
    .name = "cpu_serial",
    .alias = "CPU version, sum_host.cu (seed 003)",
    .family = "cpu",
    .description = "the seeds' CPU baseline: one host thread, one pass, a dependent chain of adds",
    .kind = KIND_REDUCE,
    .dtypes = DTYPES_ALL,
    .ops = OPS_ALL,
    .excluded_pairs = 0,
    .limits = NULL,
    .block_dims = 0x1u, /* "block dim" 1: one thread */
    .finishes = FINISH_BIT(FINISH_NONE),
    .scan_modes = 0,
    .max_n = 0,
    .bytes_moved = bytes_moved,
    .workspace_size = no_workspace,
    .launch = NULL, /* not a kernel: the sweep calls cpu_serial_run */
    .runner = RUNNER_HOST,
};
