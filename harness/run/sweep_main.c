/* bazel run //harness:sweep -- --help */
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "harness/device/profiler_cupti.h"
#include "harness/run/sweep.h"

/* A crash names where it happened (results.csv already holds every finished
 * row: rows are flushed as they finish, and --resume continues). */
static void on_fatal_signal(int sig)
{
    static const char head[] = "sweep: fatal signal; backtrace:\n";
    void *frames[64];
    ssize_t ignored = write(STDERR_FILENO, head, sizeof head - 1);
    (void)ignored;
    int n = backtrace(frames, 64);
    backtrace_symbols_fd(frames, n, STDERR_FILENO);
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    signal(SIGSEGV, on_fatal_signal);
    signal(SIGBUS, on_fatal_signal);
    signal(SIGFPE, on_fatal_signal);
    signal(SIGILL, on_fatal_signal);
    /* The profile phase: the CUPTI Range Profiler (harness/device/profiler_cupti.h);
     * --no-cupti turns it off, the fake device layer brings its own. */
    return sweep_main(argc, argv, sweep_profiler_cupti());
}
