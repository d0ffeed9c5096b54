#define _POSIX_C_SOURCE 200809L
#include "tests/sweep_test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>

#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *tu_path(const char *dir, const char *rel)
{
    size_t len = strlen(dir) + strlen(rel) + 2;
    char *b = malloc(len);
    if (!b) fail_msg("out of memory");
    snprintf(b, len, "%s/%s", dir, rel);
    return b;
}

json_t *tu_load_json(const char *path)
{
    json_error_t je;
    json_t *o = json_load_file(path, 0, &je);
    if (!o) fail_msg("%s: %s", path, je.text);
    return o;
}

const char *tu_tempdir(const char *tag)
{
    static char buf[8][4096];
    static int next;
    char *out = buf[next++ % 8];
    const char *base = getenv("TEST_TMPDIR");
    if (!base || !*base) base = "/tmp";
    snprintf(out, 4096, "%s/%s-XXXXXX", base, tag);
    if (!mkdtemp(out)) {
        perror("mkdtemp");
        abort();
    }
    return out;
}

char *tu_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

int tu_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

void tu_copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

size_t tu_count_lines(const char *text)
{
    size_t n = 0;
    for (const char *c = text; c && *c; c++)
        if (*c == '\n') n++;
    return n;
}

size_t tu_count(const char *haystack, const char *needle)
{
    size_t n = 0, l = strlen(needle);
    for (const char *p = haystack; p && (p = strstr(p, needle)) != NULL; p += l) n++;
    return n;
}

static void self_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0) {
        out[0] = '\0';
        return;
    }
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (slash) *slash = '\0';
}

const char *tu_runfile(const char *rel, const char *bundle_name)
{
    static char buf[8][4096];
    static int next;
    char *out = buf[next++ % 8];
    const char *srcdir = getenv("TEST_SRCDIR");
    const char *ws = getenv("TEST_WORKSPACE");
    if (srcdir && *srcdir) {
        snprintf(out, 4096, "%s/%s/%s", srcdir, ws && *ws ? ws : "gpu_reduce_scan", rel);
        if (tu_exists(out)) return out;
        /* a committed results file packed (sweep pack: results.csv.gz): its plain
         * name, which every reader resolves to the .gz (results_io csv_resolve) */
        size_t l = strlen(out);
        char gz[4100];
        if (l > 4 && l + 4 <= sizeof gz && !strcmp(out + l - 4, ".csv")) {
            memcpy(gz, out, l);
            memcpy(gz + l, ".gz", 4);
            if (tu_exists(gz)) return out;
        }
    }
    char dir[4096];
    self_dir(dir, sizeof dir);
    const char *where[] = {"../bin", ".", "../lib", "../tests"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        snprintf(out, 4096, "%s/%s/%s", dir, where[i], bundle_name);
        if (tu_exists(out)) return out;
    }
    return NULL;
}

const char *tu_data_file(const char *rel)
{
    const char *p = tu_runfile(rel, rel);
    if (!p) fail_msg("%s: not in the test's runfiles", rel);
    return p;
}

const char *tu_sweep_bin(void)
{
    const char *env = getenv("SWEEP_BIN");
    if (env && *env) return env;
    const char *p = tu_runfile("harness/sweep", "sweep");
    if (!p) {
        fprintf(stderr, "sweep binary not found (runfiles or ../bin/sweep); set SWEEP_BIN\n");
        abort();
    }
    return p;
}

static void child_exec(const char *cwd, const char *const *env, const char *const *args)
{
    if (cwd && chdir(cwd) != 0) _exit(126);
    /* The sweep finds experiments in the runfiles: the test's own carry them. */
    const char *srcdir = getenv("TEST_SRCDIR");
    if (srcdir && *srcdir && !getenv("RUNFILES_DIR")) setenv("RUNFILES_DIR", srcdir, 1);
    for (size_t i = 0; env && env[i]; i++) {
        char name[256];
        const char *eq = strchr(env[i], '=');
        if (!eq || (size_t)(eq - env[i]) >= sizeof name) continue;
        memcpy(name, env[i], (size_t)(eq - env[i]));
        name[eq - env[i]] = '\0';
        if (eq[1]) setenv(name, eq + 1, 1);
        else unsetenv(name);
    }
    size_t n = 0;
    while (args && args[n]) n++;
    char **argv = calloc(n + 2, sizeof *argv);
    argv[0] = (char *)tu_sweep_bin();
    for (size_t i = 0; i < n; i++) argv[i + 1] = (char *)args[i];
    execv(argv[0], argv);
    _exit(127);
}

static int status_code(int st)
{
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

pid_t tu_spawn(const char *cwd, const char *const *env, const char *const *args, const char *out_path,
               const char *err_path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0) _exit(125);
        dup2(o, 1);
        dup2(e, 2);
        close(o);
        close(e);
        child_exec(cwd, env, args);
    }
    return pid;
}

int tu_wait(pid_t pid)
{
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return status_code(st);
}

tu_result tu_run(const char *cwd, const char *const *env, const char *const *args)
{
    tu_result r = {0};
    const char *dir = tu_tempdir("run-io");
    char out[4200], err[4200];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    pid_t pid = tu_spawn(cwd, env, args, out, err);
    r.status = tu_wait(pid);
    r.out = tu_read_file(out);
    r.err = tu_read_file(err);
    if (!r.out) r.out = calloc(1, 1);
    if (!r.err) r.err = calloc(1, 1);
    return r;
}

void tu_result_free(tu_result *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

void tu_wait_for_rows(const char *dir, size_t rows, pid_t pid)
{
    char *csv = tu_path(dir, "results.csv");
    for (int i = 0; i < 3000; i++) {
        char *t = tu_read_file(csv);
        size_t n = t ? tu_count_lines(t) : 0;
        free(t);
        if (n >= rows + 1) {
            free(csv);
            return;
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    fail_msg("no %zu rows in %s after 15 s", rows, csv);
}

