/* Paths and files for the sweep's outputs: joining, creating directories,
 * replacing a file atomically, and resolving the paths a user types under
 * `bazel run` (which runs the binary inside its runfiles tree). */
#ifndef HARNESS_FILES_H
#define HARNESS_FILES_H

#include <stddef.h>
#include <stdio.h>

#define SWEEP_PATH_MAX 4096

/* a + "/" + b (b absolute: b alone). Returns 0, -1 when it does not fit. */
int path_join(char *out, size_t len, const char *a, const char *b);

/* The directory relative paths given by the user are relative to: the
 * directory `bazel run` was started from (BUILD_WORKING_DIRECTORY), else the
 * current directory. */
void user_base_dir(char *out, size_t len);
/* An absolute path for a path the user typed (resolved against user_base_dir). */
int resolve_user_path(const char *p, char *out, size_t len);
/* A subcommand's results DIR and its --out (NULL: DIR itself), resolved as the
 * user typed them into dir and out (SWEEP_PATH_MAX each); DIR must be given
 * (cmd names the subcommand in the message) and be a directory. 0, or -1 and
 * one line in err ("runs/x: no such results directory"). */
int resolve_results_dir(const char *cmd, const char *dir_arg, const char *out_arg, char *dir, char *out, char *err,
                        size_t errlen);

int path_exists(const char *p);
int path_is_dir(const char *p);
/* 1 when p is a directory with no entries. */
int dir_is_empty(const char *p);
/* mkdir -p; 0 on success (also when it exists). */
int make_dirs(const char *p, char *err, size_t errlen);

/* Could make_dirs(p) and files in p be created? Creates and removes a probe
 * directory in p, or in its deepest existing ancestor when p does not exist
 * yet (so it leaves nothing behind, and is right for root too, whom access()
 * would wave through). 0, or -1 and why in err ("/a/f is not a directory",
 * "cannot create anything in /sys: Operation not permitted"). */
int dir_check_writable(const char *p, char *err, size_t errlen);

/* Write path through a temporary file in the same directory, flush, fsync and
 * rename over path: readers see the old file or the new one, never a part. */
typedef int (*render_fn)(FILE *f, void *ctx);
int write_file_atomic(const char *path, render_fn render, void *ctx, char *err, size_t errlen);

/* The directory holding the running executable ("" if unknown). */
void exe_dir(char *out, size_t len);

#endif
