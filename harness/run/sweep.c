#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep.h"

#include <stdlib.h>
#include <string.h>

#include "harness/results/pack.h"
#include "harness/results/summary_main.h"
#include "harness/run/sweep_run.h"

/* The steps of one run in order (harness/run/sweep_run.h says which file
 * holds each); the subcommands hand over to their own mains. */
int sweep_main(int argc, char **argv, const sweep_profiler *profiler)
{
    /* `sweep compare BASE NEW`: two results directories, no device (harness/compare/compare.h) */
    if (argc > 1 && !strcmp(argv[1], "compare")) return compare_main(argc - 1, argv + 1);
    /* `sweep merge OUT DIR...`: the shards of one plan into one run (harness/results/merge.h) */
    if (argc > 1 && !strcmp(argv[1], "merge")) return merge_main(argc - 1, argv + 1);
    /* `sweep pack DIR...`: a finished run's CSVs gzipped for committing (harness/results/pack.h) */
    if (argc > 1 && !strcmp(argv[1], "pack")) return pack_main(argc - 1, argv + 1);
    /* `sweep confirm DIR`: the confirmation phase on a finished run (harness/run/confirm_main.h) */
    if (argc > 1 && !strcmp(argv[1], "confirm")) return confirm_main(argc - 1, argv + 1);
    /* `sweep summary DIR`: summary.md again from a run's files, no device (harness/results/summary_main.h) */
    if (argc > 1 && !strcmp(argv[1], "summary")) return summary_main(argc - 1, argv + 1);
    sweep_run *r = calloc(1, sizeof *r);
    if (!r) return run_failed("out of memory");
    r->argc = argc;
    r->argv = argv;
    r->t0 = timing_now();
    int rc = run_read_plan(r);
    if (rc == RUN_GO) rc = run_open_output(r);
    if (rc == RUN_GO) rc = r->o.devices ? run_start_workers(r, profiler) : run_open_device(r);
    if (rc == RUN_GO && !r->o.devices) rc = run_negotiate_profiler(r, profiler);
    if (rc == RUN_GO) rc = run_load_resume(r);
    if (rc == RUN_GO && !r->o.quiet) run_note_unheeded(r);
    if (rc == RUN_GO) rc = run_create_files(r);
    if (rc == RUN_GO) {
        if (r->pool) run_dispatch(r);
        else {
            run_loop(r);
            run_after_pass(r);
        }
        rc = run_finish(r);
    }
    run_close(r);
    return rc;
}
