/* The sweep process: its signals, its exit statuses, the run's identity
 * (git, bundle), and the one clean-up. Calls no other sweep_*.c file. */
#define _POSIX_C_SOURCE 200809L
#include "harness/run/sweep_run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- signals ------------------------------------------------------------------------------ */

/* The signal that asked the run to stop (0: none). Timing loops poll it; the
 * handler resets itself, so a second Ctrl-C ends the process at once. */
volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* Should a profiling library install SIGINT/SIGTERM handlers of its own, an
 * interrupt would end the run without its summary and run.json: put ours
 * back after each profile phase (unless a signal already came), and say so. */
void keep_signals(int *noted)
{
    if (stop_signal) return;
    struct sigaction cur;
    int replaced = 0;
    if (sigaction(SIGINT, NULL, &cur) == 0 && cur.sa_handler != on_signal) replaced = 1;
    if (sigaction(SIGTERM, NULL, &cur) == 0 && cur.sa_handler != on_signal) replaced = 1;
    if (!replaced) return;
    if (!(*noted)++) fprintf(stderr, "sweep: note: the profiler replaced the SIGINT/SIGTERM handlers; the sweep's are back\n");
    install_signals();
}

static void restore_signals(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

/* ---- the run's identity --------------------------------------------------------------------- */

/* Quote for a POSIX shell: 'it'\''s'. */
static void shell_quote(const char *s, char *out, size_t len)
{
    size_t k = 0;
    if (len < 3) {
        out[0] = '\0';
        return;
    }
    out[k++] = '\'';
    for (; *s && k + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *s;
        }
    }
    out[k++] = '\'';
    out[k] = '\0';
}

static int run_capture(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t got = fread(out, 1, len - 1, p);
    out[got] = '\0';
    int st = pclose(p);
    while (got && (out[got - 1] == '\n' || out[got - 1] == '\r')) out[--got] = '\0';
    return st == 0 ? 0 : -1;
}

/* A bundle's record of its commit (tools/bundle): SOURCE beside bin/, two
 * lines, the sha and 0/1 for a dirty tree. 0 if found. */
static int bundle_source(char *sha, size_t len, int *dirty)
{
    char exe[SWEEP_PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return -1;
    exe[k] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0';
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/../SOURCE", exe);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[128] = "";
    int d = -1, ok = fscanf(f, "%127s %d", line, &d) >= 1 && strlen(line) >= 7;
    fclose(f);
    if (!ok) return -1;
    snprintf(sha, len, "%.63s", line);
    *dirty = d == 0 || d == 1 ? d : -1;
    return 0;
}

/* The commit the binary was built from: git rev-parse in the workspace
 * `bazel run` came from; else a bundle's SOURCE beside the binary (a bundle
 * unpacked inside some other checkout must not take that checkout's sha);
 * else git in the current directory; else "unknown". */
void git_info(char *sha, size_t len, int *dirty)
{
    const char *ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    char dir[SWEEP_PATH_MAX], q[2 * SWEEP_PATH_MAX], cmd[2 * SWEEP_PATH_MAX + 128], out[4096];
    snprintf(sha, len, "unknown");
    *dirty = -1;
    if (ws && *ws) snprintf(dir, sizeof dir, "%s", ws);
    else if (bundle_source(sha, len, dirty) == 0) return;
    else if (!getcwd(dir, sizeof dir)) snprintf(dir, sizeof dir, ".");
    shell_quote(dir, q, sizeof q);
    snprintf(cmd, sizeof cmd, "git -C %s rev-parse HEAD 2>/dev/null", q);
    if (run_capture(cmd, out, sizeof out) != 0 || strlen(out) < 7) return;
    snprintf(sha, len, "%.63s", out);
    snprintf(cmd, sizeof cmd, "git -C %s status --porcelain --untracked-files=no 2>/dev/null", q);
    if (run_capture(cmd, out, sizeof out) == 0) *dirty = out[0] != '\0';
}

int usage_error(const char *msg)
{
    fprintf(stderr, "sweep: %s\n", msg);
    return SWEEP_EXIT_USAGE;
}

int run_failed(const char *msg)
{
    fprintf(stderr, "sweep: %s\n", msg);
    return SWEEP_EXIT_FAILED;
}

/* No device to run on (exit 1, nothing written): the reason, then the way to
 * try the sweep anyway. */
int no_device(const char *msg)
{
    fprintf(stderr, "sweep: %s\n", msg);
    fprintf(stderr, "sweep: to try the sweep without a GPU, add --fake-device (synthetic times, no CUDA call; "
                    "see --help)\n");
    return SWEEP_EXIT_FAILED;
}

/* The profiler's end and the device's close: at the end of a run, and on
 * every way out before it (run_close). */
void run_release_device(sweep_run *r)
{
    if (r->prof && r->prof->end) r->prof->end(r->prof->state);
    r->prof = NULL;
    if (r->dev) r->dev->ops->close(r->dev);
    r->dev = NULL;
    nvml_reader_close(r->ctx.nvml);
    r->ctx.nvml = NULL;
    if (r->signals) restore_signals();
    r->signals = 0;
}

/* The one clean-up: whatever the steps took, however far they got. */
void run_close(sweep_run *r)
{
    run_release_device(r);
    if (r->csv) fclose(r->csv);
    if (r->samples) fclose(r->samples);
    for (size_t i = 0; r->rows && i < r->n_rows; i++) row_free(&r->rows[i]);
    free(r->rows);
    free(r->ix.slots);
    plan_free(&r->plan);
    free(r->positions);
    free(r->row_positions);
    fit_reasons_free(&r->fit_skips);
    free(r->ctx.oom);
    if (r->pool) workers_free(r->pool);
    free(r->pool);
    free(r->devices);
    free(r->row_plan);
    free(r->confirm);
    free(r);
}

const char *run_after_refused(const sweep_run *r)
{
    return r->time_limited    ? "the run stopped at --time-limit"
           : r->interrupted   ? "the run was interrupted"
           : r->ctx.fatal[0]  ? "the run stopped early"
           : r->shard.active  ? "a --shard part (run `sweep confirm` on the merged run)"
                              : NULL;
}

void run_keep_confirm(sweep_run *r)
{
    r->ri.confirm = r->confirm;
    r->ri.confirm_count = r->n_confirm;
    char path[SWEEP_PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/confirm.csv", r->out_dir);
    if (confirm_write_csv(path, r->confirm, r->n_confirm, r->err, sizeof r->err)) run_failed(r->err);
}
