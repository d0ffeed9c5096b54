#define _POSIX_C_SOURCE 200809L
#include "harness/core/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int path_join(char *out, size_t len, const char *a, const char *b)
{
    int w;
    if (b[0] == '/' || !a || !a[0]) w = snprintf(out, len, "%s", b);
    else if (a[strlen(a) - 1] == '/') w = snprintf(out, len, "%s%s", a, b);
    else w = snprintf(out, len, "%s/%s", a, b);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

void user_base_dir(char *out, size_t len)
{
    const char *bwd = getenv("BUILD_WORKING_DIRECTORY");
    if (bwd && bwd[0] == '/') {
        snprintf(out, len, "%s", bwd);
        return;
    }
    if (!getcwd(out, len)) snprintf(out, len, ".");
}

int resolve_user_path(const char *p, char *out, size_t len)
{
    if (p[0] == '/') {
        int w = snprintf(out, len, "%s", p);
        return w < 0 || (size_t)w >= len ? -1 : 0;
    }
    char base[SWEEP_PATH_MAX];
    user_base_dir(base, sizeof base);
    /* "./x" reads better as "x" */
    while (p[0] == '.' && p[1] == '/') p += 2;
    if (!strcmp(p, ".")) p = "";
    if (!p[0]) {
        int w = snprintf(out, len, "%s", base);
        return w < 0 || (size_t)w >= len ? -1 : 0;
    }
    return path_join(out, len, base, p);
}

int resolve_results_dir(const char *cmd, const char *dir_arg, const char *out_arg, char *dir, char *out, char *err,
                        size_t errlen)
{
    if (!dir_arg) {
        snprintf(err, errlen, "no results directory (sweep %s DIR)", cmd);
        return -1;
    }
    if (resolve_user_path(dir_arg, dir, SWEEP_PATH_MAX) ||
        (out_arg && resolve_user_path(out_arg, out, SWEEP_PATH_MAX))) {
        snprintf(err, errlen, "%s: path too long", out_arg ? "--out" : "DIR");
        return -1;
    }
    if (!path_is_dir(dir)) {
        snprintf(err, errlen, "%s: no such results directory", dir_arg);
        return -1;
    }
    if (!out_arg) snprintf(out, SWEEP_PATH_MAX, "%s", dir);
    return 0;
}

int path_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int path_is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int dir_is_empty(const char *p)
{
    DIR *d = opendir(p);
    if (!d) return 0;
    struct dirent *e;
    int empty = 1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            empty = 0;
            break;
        }
    closedir(d);
    return empty;
}

int make_dirs(const char *p, char *err, size_t errlen)
{
    char buf[SWEEP_PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", p) >= (int)sizeof buf) {
        snprintf(err, errlen, "%s: path too long", p);
        return -1;
    }
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
            return -1;
        }
        *s = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
        return -1;
    }
    if (!path_is_dir(buf)) {
        snprintf(err, errlen, "%s exists and is not a directory", buf);
        return -1;
    }
    return 0;
}

int dir_check_writable(const char *p, char *err, size_t errlen)
{
    char dir[SWEEP_PATH_MAX], probe[SWEEP_PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", p) >= (int)sizeof dir) {
        snprintf(err, errlen, "%s: path too long", p);
        return -1;
    }
    for (;;) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
        struct stat st;
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(err, errlen, "%s is not a directory", dir);
                return -1;
            }
            break;
        }
        if (errno != ENOENT && errno != ENOTDIR) {
            snprintf(err, errlen, "%s: %s", dir, strerror(errno));
            return -1;
        }
        char *slash = strrchr(dir, '/');
        if (!slash) { /* relative: the current directory */
            if (!strcmp(dir, ".")) {
                snprintf(err, errlen, "the current directory: %s", strerror(errno));
                return -1;
            }
            snprintf(dir, sizeof dir, ".");
            continue;
        }
        if (slash == dir) slash[1] = '\0';
        else *slash = '\0';
    }
    if (path_join(probe, sizeof probe, dir, ".sweep-write-check-XXXXXX")) {
        snprintf(err, errlen, "%s: path too long", dir);
        return -1;
    }
    if (!mkdtemp(probe)) {
        snprintf(err, errlen, "cannot create anything in %s: %s", dir, strerror(errno));
        return -1;
    }
    rmdir(probe);
    return 0;
}

int write_file_atomic(const char *path, render_fn render, void *ctx, char *err, size_t errlen)
{
    char tmp[SWEEP_PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    int r = render(f, ctx);
    if (fflush(f) != 0 || ferror(f)) r = -1;
    if (r == 0 && fsync(fileno(f)) != 0) r = -1;
    int saved = errno;
    if (fclose(f) != 0) r = -1;
    if (r != 0) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(saved ? saved : EIO));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    /* Make the rename itself durable. */
    char dir[SWEEP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        int fd = open(dir[0] ? dir : "/", O_RDONLY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
    }
    return 0;
}

void exe_dir(char *out, size_t len)
{
    char buf[SWEEP_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) {
        out[0] = '\0';
        return;
    }
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) *slash = '\0';
    snprintf(out, len, "%s", buf);
}
