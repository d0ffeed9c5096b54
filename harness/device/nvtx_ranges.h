/* NVTX ranges of a sweep, in one domain ("sweep"), nested
 *
 *   run > <experiment name> > <variant name> > <configuration label> > <phase>
 *
 * with the copy-bandwidth measurement as a phase directly under run, the
 * configuration label from config_label() ("reduce_coarsened f32 sum
 * n=1048576 block=256 items_per_thread=4 recursive") and phases validate, warmup, cold,
 * hot, profile. Ranges are coloured by variant family. So
 *   ncu --nvtx --nvtx-include "sweep@run/default/reduce_warp_shuffle/" ...
 * profiles one variant, and Nsight Systems shows the tree on its timeline.
 * nvtx3 is header-only: without a tool attached every call is a no-op. */
#ifndef HARNESS_NVTX_RANGES_H
#define HARNESS_NVTX_RANGES_H

#include <stdint.h>

#define SWEEP_NVTX_DOMAIN "sweep"
#define SWEEP_NVTX_RUN "run"
#define SWEEP_NVTX_COPY_BANDWIDTH "copy_bandwidth"

/* ARGB colours. */
#define NVTX_COLOR_RUN 0xFF808080u
#define NVTX_COLOR_EXPERIMENT 0xFFB0B0B0u

void nvtx_push(const char *name, uint32_t argb);
void nvtx_pop(void);
/* Pop every range still open (interrupted runs leave a balanced tree). */
void nvtx_pop_all(void);
int nvtx_depth(void);

/* A stable colour for a variant family. */
uint32_t nvtx_family_color(const char *family);

#endif
