/* --devices: the parent/worker protocol and the dispatcher (workers.h). */
#define _GNU_SOURCE
#include "harness/run/workers.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MSG_HELLO = 1, MSG_FAIL, MSG_ROW, MSG_FATAL, MSG_RUN, MSG_STOP };
#define NO_CONFIG SIZE_MAX
#define MSG_MAX ((uint32_t)1 << 24)

/* ---- framing ------------------------------------------------------------------------------ */

/* The whole buffer, through EINTR; MSG_NOSIGNAL: a peer gone is an error
 * here, never a SIGPIPE that would end the parent with it. */
static int send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t k = send(fd, p, len, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

/* 0: all of it; -1: EOF or an error (a short message is a dead peer). With
 * stop, an interrupted read gives up once *stop is set (the worker's wait). */
static int recv_all(int fd, void *buf, size_t len, volatile sig_atomic_t *stop)
{
    char *p = buf;
    while (len) {
        ssize_t k = read(fd, p, len);
        if (k < 0 && errno == EINTR && !(stop && *stop)) continue;
        if (k <= 0) return -1;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int send_msg(int fd, uint32_t type, const void *payload, size_t len)
{
    uint32_t head[2] = {type, (uint32_t)len};
    if (send_all(fd, head, sizeof head)) return -1;
    return len ? send_all(fd, payload, len) : 0;
}

/* One message: its type, and its payload malloc'd (NUL-terminated) in *out. */
static int recv_msg(int fd, uint32_t *type, char **out, size_t *len, volatile sig_atomic_t *stop)
{
    uint32_t head[2];
    *out = NULL;
    if (recv_all(fd, head, sizeof head, stop) || head[1] > MSG_MAX) return -1;
    char *buf = malloc((size_t)head[1] + 1);
    if (!buf) return -1;
    if (head[1] && recv_all(fd, buf, head[1], stop)) {
        free(buf);
        return -1;
    }
    buf[head[1]] = '\0';
    *type = head[0];
    *out = buf;
    *len = head[1];
    return 0;
}

/* ---- rows on the wire ------------------------------------------------------------------------ */

static void put_text(FILE *m, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) + 1 : 0; /* 0: NULL, else the length with its NUL */
    fwrite(&n, sizeof n, 1, m);
    if (n) fwrite(s, 1, n, m);
}

static int send_row(int fd, size_t idx, const sweep_row *r, size_t metric_count)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return -1;
    uint64_t i64 = idx;
    fwrite(&i64, sizeof i64, 1, m);
    fwrite(r, sizeof *r, 1, m);
    put_text(m, r->skip_reason);
    put_text(m, r->error);
    if (metric_count && r->plain.metrics) fwrite(r->plain.metrics, sizeof(double), metric_count, m);
    fclose(m);
    int rc = send_msg(fd, MSG_ROW, buf, len);
    free(buf);
    return rc;
}

static int take_text(const char **p, const char *end, char **out)
{
    uint32_t n;
    *out = NULL;
    if (end - *p < (ptrdiff_t)sizeof n) return -1;
    memcpy(&n, *p, sizeof n);
    *p += sizeof n;
    if (!n) return 0;
    if (end - *p < (ptrdiff_t)n || (*p)[n - 1] != '\0' || !(*out = strdup(*p))) return -1;
    *p += n;
    return 0;
}

/* The row back: the struct as sent, its heap parts made anew here. */
static int decode_row(const char *buf, size_t len, size_t metric_count, size_t *idx, sweep_row *r)
{
    const char *p = buf, *end = buf + len;
    uint64_t i64;
    if (len < sizeof i64 + sizeof *r) return -1;
    memcpy(&i64, p, sizeof i64);
    memcpy(r, p + sizeof i64, sizeof *r);
    p += sizeof i64 + sizeof *r;
    r->skip_reason = r->error = NULL;
    r->plain.metrics = NULL;
    *idx = (size_t)i64;
    if (take_text(&p, end, &r->skip_reason) || take_text(&p, end, &r->error)) goto bad;
    if (metric_count) {
        if ((size_t)(end - p) < metric_count * sizeof(double) || !(r->plain.metrics = malloc(metric_count * sizeof(double))))
            goto bad;
        memcpy(r->plain.metrics, p, metric_count * sizeof(double));
    }
    return 0;
bad:
    row_free(r);
    return -1;
}

/* ---- the worker ---------------------------------------------------------------------------- */

/* The worker's life: open, HELLO, then RUN/ROW until STOP, EOF or a signal.
 * It never returns: _exit, so nothing of the parent's (atexit, stdio
 * buffers) runs twice. */
static void worker_main(int fd, int ordinal, const worker_hooks *h, volatile sig_atomic_t *stop)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* a parent killed outright takes its workers along */
    worker_hello hello;
    char msg[768] = "";
    memset(&hello, 0, sizeof hello);
    if (h->open(h->ctx, ordinal, &hello, msg, sizeof msg)) {
        send_msg(fd, MSG_FAIL, msg, strlen(msg));
        _exit(1);
    }
    if (send_msg(fd, MSG_HELLO, &hello, sizeof hello)) _exit(1);
    for (;;) {
        uint32_t type;
        char *buf;
        size_t len;
        uint64_t idx;
        if (recv_msg(fd, &type, &buf, &len, stop)) break;
        int run = type == MSG_RUN && len == sizeof idx;
        if (run) memcpy(&idx, buf, sizeof idx);
        free(buf);
        if (!run) break;
        sweep_row row;
        char fatal[512] = "";
        if (h->run(h->ctx, (size_t)idx, &row, fatal, sizeof fatal)) break; /* interrupted: no row */
        int sent = send_row(fd, (size_t)idx, &row, hello.metric_count);
        row_free(&row);
        if (sent) break;
        if (fatal[0]) {
            send_msg(fd, MSG_FATAL, fatal, strlen(fatal));
            break;
        }
    }
    if (h->close) h->close(h->ctx);
    _exit(0);
}

/* ---- the parent: starting ----------------------------------------------------------------------- */

int workers_count_devices(sweep_device *dev, char *msg, size_t len)
{
    int fds[2];
    if (pipe(fds)) {
        snprintf(msg, len, "pipe: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char m[512] = "";
        int c = dev->ops->count(dev, m, sizeof m);
        if (write(fds[1], &c, sizeof c) != sizeof c || write(fds[1], m, sizeof m) != sizeof m) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    int c = -1;
    char m[512] = "probe process failed";
    if (pid < 0 || read(fds[0], &c, sizeof c) != sizeof c || read(fds[0], m, sizeof m) != sizeof m) c = -1;
    m[sizeof m - 1] = '\0';
    close(fds[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    if (c < 0) snprintf(msg, len, "%s", m);
    return c;
}

static int spawn_one(worker_state *w, int ordinal, const worker_hooks *h, volatile sig_atomic_t *stop,
                     const worker_pool *p, char *err, size_t len)
{
    int sv[2];
    memset(w, 0, sizeof *w);
    w->ordinal = ordinal;
    w->fd = -1;
    w->current = NO_CONFIG;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(err, len, "socketpair: %s", strerror(errno));
        return -1;
    }
    fflush(NULL); /* nothing buffered is written twice */
    w->pid = fork();
    if (w->pid == 0) {
        close(sv[0]);
        for (size_t i = 0; i < p->n; i++) close(p->w[i].fd); /* the other workers' ends: their EOF is theirs */
        worker_main(sv[1], ordinal, h, stop);
    }
    close(sv[1]);
    if (w->pid < 0) {
        close(sv[0]);
        snprintf(err, len, "fork: %s", strerror(errno));
        return -1;
    }
    w->fd = sv[0];
    return 0;
}

/* Wait for w's HELLO (or why it could not open its device). */
static int await_hello(worker_pool *p, worker_state *w, char *err, size_t len)
{
    uint32_t type;
    char *buf;
    size_t n;
    if (recv_msg(w->fd, &type, &buf, &n, NULL)) {
        snprintf(err, len, "device %d: its worker ended before opening the device", w->ordinal);
        return -1;
    }
    int rc = 0;
    if (type == MSG_HELLO && n == sizeof w->info) {
        memcpy(&w->info, buf, sizeof w->info);
        w->hello = 1;
        if (w == &p->w[0]) p->metric_count = w->info.metric_count;
        else if (w->info.metric_count != p->metric_count) {
            snprintf(err, len, "device %d: its profiler offers %zu metric columns, device %d's %zu: one kind of "
                               "GPU per run (or --no-cupti)", w->ordinal, w->info.metric_count, p->w[0].ordinal,
                     p->metric_count);
            rc = -1;
        }
    } else {
        snprintf(err, len, "%s", type == MSG_FAIL ? buf : "a worker spoke out of turn");
        rc = -1;
    }
    free(buf);
    return rc;
}

int workers_start(worker_pool *p, const int *ordinals, size_t n, size_t plan_count, const worker_hooks *h,
                  volatile sig_atomic_t *stop, char *err, size_t len)
{
    memset(p, 0, sizeof *p);
    p->plan_count = plan_count;
    for (size_t i = 0; i < n && i < WORKERS_MAX; i++) {
        if (spawn_one(&p->w[i], ordinals[i], h, stop, p, err, len)) return -1;
        p->n++;
    }
    /* the workers open their devices side by side; their HELLOs in order */
    for (size_t i = 0; i < p->n; i++)
        if (await_hello(p, &p->w[i], err, len)) return -1;
    return 0;
}

/* ---- the parent: dealing ------------------------------------------------------------------------ */

static int next_config(worker_pool *p, size_t *idx)
{
    if (p->n_again) *idx = p->again[--p->n_again];
    else if (p->next < p->n_order) *idx = p->order[p->next++];
    else return 0;
    return 1;
}

/* w's next configuration, or STOP when there is none or the run is stopping. */
static void deal(worker_pool *p, worker_state *w, int stopping)
{
    size_t idx;
    if (!stopping && !w->stopped && next_config(p, &idx)) {
        uint64_t i64 = idx;
        if (send_msg(w->fd, MSG_RUN, &i64, sizeof i64) == 0) w->current = idx;
        else p->again[p->n_again++] = idx; /* its socket is gone: its EOF comes next, the configuration goes back */
        return;
    }
    if (!w->stopped && w->fd >= 0) send_msg(w->fd, MSG_STOP, NULL, 0);
    w->stopped = 1;
}

/* w's socket closed: reap it; an end nobody asked for is a fault, and the
 * configuration it was running is dealt again (once) or left for --resume. */
static void worker_gone(worker_pool *p, worker_state *w, const worker_hooks *h, int stopping)
{
    int st = 0;
    close(w->fd);
    w->fd = -1;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {}
    w->pid = 0;
    size_t idx = w->current;
    w->current = NO_CONFIG;
    int clean = WIFEXITED(st) && WEXITSTATUS(st) == 0 && w->stopped && idx == NO_CONFIG;
    if (stopping) { /* interrupted: what it was running is left for --resume */
        p->left += idx != NO_CONFIG;
        return;
    }
    if (clean && !w->fault[0]) return; /* done */
    char how[128];
    if (WIFSIGNALED(st)) snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
    if (!w->fault[0]) snprintf(w->fault, sizeof w->fault, "worker %s", how);
    p->faults++;
    char label[256] = "", then[400] = "";
    if (idx != NO_CONFIG) {
        h->label(h->ctx, idx, label, sizeof label);
        if (++p->tries[idx] < 2) {
            p->again[p->n_again++] = idx;
            snprintf(then, sizeof then, "; %s is dealt to another device", label);
        } else {
            p->left++;
            snprintf(then, sizeof then, "; %s took down a second worker: left for --resume", label);
        }
    }
    fprintf(stderr, "sweep: device %d lost: %s (after %zu rows, every one kept)%s\n", w->ordinal, w->fault, w->ran,
            then);
}

/* One message from w (or its end). */
static void on_message(worker_pool *p, worker_state *w, const worker_hooks *h, int stopping)
{
    uint32_t type;
    char *buf;
    size_t len, idx;
    sweep_row row;
    if (recv_msg(w->fd, &type, &buf, &len, NULL)) {
        worker_gone(p, w, h, stopping);
        return;
    }
    int decoded = type == MSG_ROW && !decode_row(buf, len, p->metric_count, &idx, &row);
    if (decoded && idx != w->current) row_free(&row); /* not what it was dealt: a bad message, below */
    if (decoded && idx == w->current) {
        w->current = NO_CONFIG;
        w->ran++;
        h->row(h->ctx, w, idx, &row);
        deal(p, w, stopping);
    } else if (type == MSG_FATAL) {
        /* its device is lost after the row it sent: what it was dealt since never started */
        snprintf(w->fault, sizeof w->fault, "%s", buf);
        if (w->current != NO_CONFIG) p->again[p->n_again++] = w->current;
        w->current = NO_CONFIG;
        w->stopped = 1;
    } else {
        snprintf(w->fault, sizeof w->fault, "worker sent a bad message (type %u, %zu bytes)", type, len);
        kill(w->pid, SIGKILL); /* its EOF follows: reaped and reported there */
    }
    free(buf);
}

/* A signal: every worker drops what it runs and exits; rows in flight still land. */
static void stop_all(worker_pool *p)
{
    for (size_t i = 0; i < p->n; i++) {
        worker_state *w = &p->w[i];
        if (w->fd < 0) continue;
        kill(w->pid, SIGINT);
        deal(p, w, 1);
    }
}

int workers_dispatch(worker_pool *p, const size_t *order, size_t n_order, const worker_hooks *h,
                     volatile sig_atomic_t *stop)
{
    p->order = malloc((n_order ? n_order : 1) * sizeof *p->order);
    p->again = malloc((n_order ? n_order : 1) * sizeof *p->again);
    p->tries = calloc(p->plan_count ? p->plan_count : 1, 1);
    if (!p->order || !p->again || !p->tries) return -1;
    if (n_order) memcpy(p->order, order, n_order * sizeof *order);
    p->n_order = n_order;
    int stopping = 0;
    for (size_t i = 0; i < p->n; i++) deal(p, &p->w[i], 0);
    for (;;) {
        struct pollfd fds[WORKERS_MAX];
        worker_state *who[WORKERS_MAX];
        size_t nf = 0;
        if (*stop && !stopping) {
            stopping = 1;
            stop_all(p);
        }
        for (size_t i = 0; i < p->n; i++)
            if (p->w[i].fd >= 0) {
                fds[nf] = (struct pollfd){.fd = p->w[i].fd, .events = POLLIN};
                who[nf++] = &p->w[i];
            }
        if (!nf) break;
        if (poll(fds, nf, 250) <= 0) continue; /* a signal, or time to look at *stop again */
        for (size_t i = 0; i < nf; i++)
            if (fds[i].revents) on_message(p, who[i], h, stopping || *stop);
    }
    p->left += p->n_again + (p->n_order - p->next);
    return 0;
}

void workers_free(worker_pool *p)
{
    for (size_t i = 0; i < p->n; i++) {
        worker_state *w = &p->w[i];
        if (w->fd >= 0) close(w->fd);
        w->fd = -1;
        if (w->pid > 0) {
            kill(w->pid, SIGKILL);
            while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR) {}
        }
        w->pid = 0;
    }
    free(p->order);
    free(p->again);
    free(p->tries);
    p->order = p->again = NULL;
    p->tries = NULL;
}
