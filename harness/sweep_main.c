/* bazel run //harness:sweep -- --help */
#include "harness/profiler_cupti.h"
#include "harness/sweep.h"

int main(int argc, char **argv)
{
    /* The profile phase: the CUPTI Range Profiler (harness/profiler_cupti.h);
     * --no-cupti turns it off, the fake device layer brings its own. */
    return sweep_main(argc, argv, sweep_profiler_cupti());
}
