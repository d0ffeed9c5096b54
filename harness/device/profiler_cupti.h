/* The sweep's profile phase (harness/device/profiler.h) on the CUPTI Range Profiler
 * library (cupti/profiler.h, cupti/metrics.h).
 *
 * begin(): the requested names (none: the study's default set) become a
 *   metric plan: one results.csv column per name, named by its study key or
 *   CUPTI name, with the unit the metric table gives it. profiler_open()
 *   then checks the names against the chip and counts the replay passes. A
 *   scratch buffer of twice the L2 is allocated for the flushes.
 * profile(): profiler_measure() over one CUPTI range covering the whole
 *   launcher (multi-kernel variants are one range): in each pass, once the
 *   profiler has started it, the L2 is flushed and emptied (l2_flush_empty,
 *   harness/device/l2_flush.h, outside the range), so the DRAM columns see cold data
 *   and none of the profiler's own write-backs; then v->launch(a, stream)
 *   runs inside the range. Nothing
 *   else needs restoring between passes: launchers never write their input,
 *   write every output element they produce, and initialise the workspace
 *   they rely on themselves (kernels/variant.h).
 * queue() / run_queue(): the same for a batch of one group's configurations
 *   (harness/device/profiler.h, 2b) through profiler_measure_batch(): one CUPTI
 *   session, its set-up and passes shared by up to PROFILER_BATCH_MAX
 *   configurations, one CUPTI range each, the L2 flushed and emptied before
 *   every range. Each queued configuration gets a workspace of its own
 *   (cudaMalloc, then v->workspace_init where the variant has one), freed
 *   when its batch has run; queue() asks for the batch to run once they hold
 *   sweep_profile_workspace_cap bytes of the device's memory (profiler.h).
 * Timing is not disturbed: the range profiler is enabled only inside
 *   profile() and run_queue(), after the configurations' timing, and disabled
 *   again before they return (each is one or more whole enable/disable
 *   sessions).
 *
 * When profiler_open() cannot measure, begin() answers UNAVAILABLE (columns
 * kept, left empty; the sweep warns once and records why in run.json):
 *   another profiler attached (ncu, nsys: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
 *   also any other failure while a tool is injected through CUDA_INJECTION64_PATH),
 *   no permission for the GPU counters (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
 *   or any other CUPTI/CUDA failure (its message).
 * The profile phase then still runs: before() flushes the L2 and waits,
 * outside the "profile" range; profile() launches the configuration exactly
 * once, inside it; after() waits for it, outside the range again (in a batch,
 * run_queue() does the same for each configuration in turn). So
 *   ncu --nvtx --nvtx-include "sweep@profile/" --replay-mode range ...
 * on a sweep of one configuration (or "sweep@run/<experiment>/<variant>/
 * <configuration label>/profile/" on a larger one) profiles exactly that
 * launch, the whole launcher as one result (tools/cupti_vs_ncu.sh).
 * A name the chip does not know answers BAD_METRIC with the closest names. */
#ifndef HARNESS_PROFILER_CUPTI_H
#define HARNESS_PROFILER_CUPTI_H

#include <stddef.h>

#include "cupti/profiler.h"
#include "harness/device/profiler.h"

/* The CUPTI profile phase, for sweep_main(). One per process. */
const sweep_profiler *sweep_profiler_cupti(void);

/* "" while batches work; else why CUPTI refused one (its batches were then
 * measured, and later ones are, one configuration a session; the sweep says
 * so once on stderr). */
const char *profiler_cupti_batches_failed(void);

/* What begin() answers for a profiler_open() status (SWEEP_PROFILER_*), with
 * the one-line status text in `status`; `msg` is profiler_open()'s message. */
int profiler_cupti_answer(profiler_status s, const char *msg, char *status, size_t len);

#endif
