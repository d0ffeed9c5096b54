/* Helpers for the sweep tests: temporary directories, files, runfiles, and
 * running the sweep binary as a child process with extra environment. */
#ifndef TESTS_SWEEP_TEST_UTIL_H
#define TESTS_SWEEP_TEST_UTIL_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

/* A fresh empty directory under $TEST_TMPDIR (or /tmp). Static storage per call site: copy it. */
const char *tu_tempdir(const char *tag);

/* dir/rel, malloc'd (a test's few paths are not freed). */
char *tu_path(const char *dir, const char *rel);

/* A JSON file (run.json), parsed; fails the test when it cannot be read. */
json_t *tu_load_json(const char *path);

/* The whole file, NUL-terminated (malloc'd), or NULL. */
char *tu_read_file(const char *path);
int tu_write_file(const char *path, const char *text);
/* A byte-for-byte copy of `from` at `to`; fails the test when either cannot be used. */
void tu_copy_file(const char *from, const char *to);
int tu_exists(const char *path);
size_t tu_count_lines(const char *text);
/* Occurrences of needle in haystack. */
size_t tu_count(const char *haystack, const char *needle);

/* A file the test carries as data: $TEST_SRCDIR/<workspace>/<rel>, else
 * relative to the test binary's directory (../bin, ., ../lib for the bundle).
 * NULL when not found. */
const char *tu_runfile(const char *rel, const char *bundle_name);

/* A committed file the test carries as data (tu_runfile with rel for both);
 * fails the test when missing. */
const char *tu_data_file(const char *rel);

/* The sweep binary (data dep //harness:sweep). Aborts the test when missing. */
const char *tu_sweep_bin(void);

typedef struct tu_result {
    int status; /* exit code, or 128 + signal */
    char *out;  /* stdout (malloc'd) */
    char *err;  /* stderr (malloc'd) */
} tu_result;

/* Run the sweep with args (NULL-terminated) in directory cwd (NULL: the
 * current one) with extra environment entries "NAME=value" (NULL-terminated;
 * "NAME=" unsets NAME). */
tu_result tu_run(const char *cwd, const char *const *env, const char *const *args);
void tu_result_free(tu_result *r);

/* The same, started in the background: returns the pid; out/err go to files. */
pid_t tu_spawn(const char *cwd, const char *const *env, const char *const *args, const char *out_path,
               const char *err_path);
/* Wait for a spawned child: its exit code, or 128 + signal. */
int tu_wait(pid_t pid);

/* Wait (up to 15 s) until DIR/results.csv holds `rows` rows; else SIGKILL pid and fail. */
void tu_wait_for_rows(const char *dir, size_t rows, pid_t pid);

#endif
