/* The sweep: parse the command line, build the plan, then per configuration
 * validate -> warm up -> time cold -> time hot -> profile, writing rows as
 * they finish. harness/run/sweep_main.c is main(); everything else is here so
 * tests (and the profiler) link it as //harness:sweep_lib. */
#ifndef HARNESS_SWEEP_H
#define HARNESS_SWEEP_H

#include <stdio.h>

#include "harness/core/exit_codes.h"
#include "harness/device/profiler.h"

/* Runs the sweep; returns the process exit code. `profiler` is the profile
 * phase (NULL: none built in; see harness/device/profiler.h). */
int sweep_main(int argc, char **argv, const sweep_profiler *profiler);

/* --list: every registered variant with its seed alias, description and axes. */
void sweep_print_list(FILE *f);

#endif
