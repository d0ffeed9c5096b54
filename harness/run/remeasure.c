/* See remeasure.h. */
#include "harness/run/remeasure.h"

#include <math.h>
#include <string.h>

#include "harness/device/nvtx_ranges.h"

dev_status remeasure_config(sweep_device *dev, const sweep_config *cfg, const timing_params *t, const char *range,
                            unsigned *cold_batch, unsigned *hot_batch, volatile sig_atomic_t *stop,
                            timing_stats *cold, timing_stats *hot, char *msg, size_t len)
{
    const variant *v = cfg->v;
    kernel_args a;
    config_kernel_args(cfg, &a);
    dev_status st;
    double launch_ms = NAN, half = t->timeout_s / 2;
    nvtx_push(range, nvtx_family_color(v->family));
    if ((st = dev->ops->prepare(dev, v, &a, msg, len)) != DEV_OK) goto out;
    if ((st = dev->ops->warmup(dev, v, &a, &launch_ms, msg, len)) != DEV_OK) goto out;
    if (!*cold_batch) *cold_batch = sample_batch_for(launch_ms);
    if ((st = dev->ops->measure_cold(dev, v, &a, t, cold_batch, half, stop, cold, msg, len)) != DEV_OK) goto out;
    memset(hot, 0, sizeof *hot);
    if (!hot_batch) goto out; /* timed cold only */
    if (!*hot_batch) *hot_batch = sample_batch_for(cold->median);
    unsigned warm = warm_launches_for(cold->median, *hot_batch, t->warm_ms, t->sample_ms);
    st = dev->ops->measure_hot(dev, v, &a, t, *hot_batch, warm, half, stop, hot, msg, len);
out:
    nvtx_pop();
    return st;
}
