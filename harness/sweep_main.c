/* bazel run //harness:sweep -- --help */
#include "harness/sweep.h"

int main(int argc, char **argv)
{
    /* The profile phase: pass a sweep_profiler here (harness/profiler.h). */
    return sweep_main(argc, argv, NULL);
}
