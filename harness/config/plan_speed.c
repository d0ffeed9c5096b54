/* Each variant's speed for the time model (harness/config/plan_estimate.c):
 * the bytes its launches move over their time, as a fraction of the H200's
 * 4800 GB/s, over every committed row it has at n >= 2^20 (2^16..2^18 for
 * scan_naive, which stops there), all block dims and coarse factors alike, as
 * a sweep runs them: the sum of bytes_moved over the sum of cold medians.
 * From the H200 runs of commit efa21fb: results/h200/profile-cost
 * (plain-partial, metrics-partial), results/h200/cluster, results/h200/big-n.
 * One value for the model of one launch, not a result: FINDINGS has those. A
 * variant not listed runs at PLAN_SPEED_UNKNOWN. */
#include <string.h>

#include "harness/config/plan.h"

static const struct {
    const char *variant;
    double peak_fraction;
    int rows; /* the committed rows it comes from */
} speeds[] = {
    {"reduce_atomic_global", 0.000474, 40},
    {"reduce_atomic_shared", 0.0124, 60},
    {"reduce_bulk_ring", 0.933, 152},
    {"reduce_cluster", 0.554, 1536},
    {"reduce_coarsened", 0.497, 416},
    {"reduce_cooperative_groups", 0.536, 60},
    {"reduce_cub", 0.944, 32},
    {"reduce_first_add", 0.264, 60},
    {"reduce_global_tree_inplace", 0.293, 60},
    {"reduce_interleaved_divergent", 0.0798, 60},
    {"reduce_interleaved_strided", 0.121, 60},
    {"reduce_multi_element", 0.773, 60},
    {"reduce_one_launch", 0.923, 272},
    {"reduce_sequential_addressing", 0.138, 60},
    {"reduce_unroll_complete", 0.313, 60},
    {"reduce_unroll_last_warp", 0.306, 60},
    {"reduce_vectorized_single_pass", 0.923, 68},
    {"reduce_warp_shuffle", 0.327, 60},
    {"scan_brent_kung", 0.294, 60},
    {"scan_cluster_lookback", 0.445, 366},
    {"scan_coarsened", 0.454, 300},
    {"scan_cub", 0.672, 20},
    {"scan_decoupled_lookback", 0.272, 158},
    {"scan_hierarchical", 0.387, 150},
    {"scan_kogge_stone", 0.253, 60},
    {"scan_kogge_stone_double_buffer", 0.247, 60},
    {"scan_lookahead_bulk", 0.843, 8},
    {"scan_lookback_vectorized", 0.519, 110},
    {"scan_naive", 4.84e-05, 20},
    {"scan_reduce_then_scan", 0.4, 150},
    {"scan_warp_shuffle", 0.286, 60},
};

double plan_variant_speed(const variant *v)
{
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (!strcmp(speeds[i].variant, v->name)) return speeds[i].peak_fraction;
    return PLAN_SPEED_UNKNOWN;
}

const char *plan_speed_variant(size_t i) { return i < sizeof speeds / sizeof speeds[0] ? speeds[i].variant : NULL; }
