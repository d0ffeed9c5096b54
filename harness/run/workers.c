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

#include "harness/core/timing.h"

enum { MSG_HELLO = 1, MSG_FAIL, MSG_ROW, MSG_FATAL, MSG_RUN, MSG_STOP, MSG_DONE, MSG_CONFIRMATION, MSG_LINES };
#define MSG_MAX ((uint32_t)1 << 30)

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

static void put_row(FILE *m, size_t idx, const sweep_row *r, size_t metric_count)
{
    uint64_t i64 = idx;
    fwrite(&i64, sizeof i64, 1, m);
    fwrite(r, sizeof *r, 1, m);
    put_text(m, r->skip_reason);
    put_text(m, r->error);
    if (metric_count && r->plain.metrics) fwrite(r->plain.metrics, sizeof(double), metric_count, m);
}

static int send_row(int fd, size_t idx, const sweep_row *r, size_t metric_count)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return -1;
    put_row(m, idx, r, metric_count);
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

/* RUN: a piece's plan indices; its rows, each as it is sent, then DONE (or
 * FATAL after the rows finished before the device was lost). -1: stop. */
static int worker_piece(int fd, const char *buf, size_t len, const worker_hooks *h, size_t metric_count)
{
    uint64_t n;
    if (len < sizeof n) return -1;
    memcpy(&n, buf, sizeof n);
    if (len != sizeof n + n * sizeof(uint64_t) || !n) return -1;
    size_t *idx = malloc(n * sizeof *idx);
    sweep_row *rows = calloc(n, sizeof *rows);
    if (!idx || !rows) {
        free(idx);
        free(rows);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t i;
        memcpy(&i, buf + sizeof n + k * sizeof i, sizeof i);
        idx[k] = (size_t)i;
    }
    char fatal[512] = "";
    long got = h->run(h->ctx, idx, n, rows, fatal, sizeof fatal);
    int rc = got < 0 ? -1 : 0; /* interrupted: no row */
    for (long k = 0; k < got; k++) {
        if (!rc && send_row(fd, idx[k], &rows[k], metric_count)) rc = -1;
        row_free(&rows[k]);
    }
    free(idx);
    free(rows);
    if (rc) return -1;
    if (fatal[0]) {
        send_msg(fd, MSG_FATAL, fatal, strlen(fatal));
        return -1;
    }
    stage_times st = {0};
    if (h->stages) h->stages(h->ctx, &st);
    return send_msg(fd, MSG_DONE, &st, sizeof st);
}

/* CONFIRM: {u64 job, u64 n, n x (u32 length, a row)}; LINES back: {u64 job,
 * u64 count, the lines, the note's text}. -1: stop. */
static int worker_confirm(int fd, const char *buf, size_t len, const worker_hooks *h, size_t metric_count)
{
    uint64_t head[2];
    if (len < sizeof head) return -1;
    memcpy(head, buf, sizeof head);
    const char *p = buf + sizeof head, *end = buf + len;
    sweep_row *rows = calloc(head[1] ? head[1] : 1, sizeof *rows);
    size_t n = 0;
    int bad = !rows;
    for (; !bad && n < head[1]; n++) {
        uint32_t rl;
        size_t idx;
        if (end - p < (ptrdiff_t)sizeof rl) bad = 1;
        else memcpy(&rl, p, sizeof rl);
        if (bad || end - p - (ptrdiff_t)sizeof rl < (ptrdiff_t)rl ||
            decode_row(p + sizeof rl, rl, metric_count, &idx, &rows[n])) {
            bad = 1;
            break;
        }
        p += sizeof rl + rl;
    }
    confirm_line *lines = NULL;
    size_t count = 0;
    char note[512] = "";
    if (!bad && h->confirm(h->ctx, rows, n, &lines, &count, note, sizeof note)) bad = !note[0];
    for (size_t k = 0; k < n; k++) row_free(&rows[k]);
    free(rows);
    if (bad) {
        free(lines);
        return -1;
    }
    char *out = NULL;
    size_t olen = 0;
    FILE *m = open_memstream(&out, &olen);
    if (!m) return -1;
    uint64_t c64 = count;
    fwrite(&head[0], sizeof head[0], 1, m);
    fwrite(&c64, sizeof c64, 1, m);
    if (count) fwrite(lines, sizeof *lines, count, m);
    stage_times st = {0};
    if (h->stages) h->stages(h->ctx, &st);
    fwrite(&st, sizeof st, 1, m);
    fputs(note, m);
    fclose(m);
    free(lines);
    int rc = send_msg(fd, MSG_LINES, out, olen);
    free(out);
    return rc;
}

/* The worker's life: open, HELLO, then RUN and CONFIRM jobs until STOP, EOF
 * or a signal. It never returns: _exit, so nothing of the parent's (atexit,
 * stdio buffers) runs twice. */
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
        if (recv_msg(fd, &type, &buf, &len, stop)) break;
        int rc = type == MSG_RUN       ? worker_piece(fd, buf, len, h, hello.metric_count)
                 : type == MSG_CONFIRMATION ? worker_confirm(fd, buf, len, h, hello.metric_count)
                                       : -1;
        free(buf);
        if (rc) break;
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
    w->job = -1;
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

enum { PHASE_PIECES, PHASE_CONFIRM, PHASE_STOP };

static int push_again(worker_pool *p, const size_t *idx, size_t n)
{
    if (!n) return 0;
    size_t *copy = malloc(n * sizeof *copy);
    if (!copy || p->n_again == p->cap_again) {
        free(copy);
        p->left += n; /* no room to deal them again: --resume will */
        return -1;
    }
    memcpy(copy, idx, n * sizeof *copy);
    p->again[p->n_again++] = (worker_job){copy, n};
    return 0;
}

static void send_piece(worker_pool *p, worker_state *w, const worker_job *j)
{
    size_t len = sizeof(uint64_t) * (1 + j->n);
    uint64_t *buf = malloc(len);
    size_t *cur = realloc(w->cur, j->n * sizeof *w->cur);
    if (cur) w->cur = cur;
    if (!buf || !cur) {
        free(buf);
        push_again(p, j->idx, j->n);
        return;
    }
    buf[0] = j->n;
    for (size_t k = 0; k < j->n; k++) buf[1 + k] = j->idx[k];
    memcpy(w->cur, j->idx, j->n * sizeof *w->cur);
    w->n_cur = j->n;
    w->busy = 1;
    if (send_msg(w->fd, MSG_RUN, buf, len)) { /* its socket is gone: its EOF comes next, the piece goes back */
        push_again(p, j->idx, j->n);
        w->n_cur = 0;
        w->busy = 0;
    }
    free(buf);
}

static void send_confirm(worker_pool *p, worker_state *w, size_t job)
{
    const worker_confirm_job *j = &p->cjobs[job];
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    uint64_t head[2] = {job, j->n};
    fwrite(head, sizeof head, 1, m);
    for (size_t k = 0; k < j->n; k++) {
        char *one = NULL;
        size_t ol = 0;
        FILE *r = open_memstream(&one, &ol);
        if (!r) continue;
        put_row(r, 0, j->rows[k], p->metric_count);
        fclose(r);
        uint32_t l32 = (uint32_t)ol;
        fwrite(&l32, sizeof l32, 1, m);
        fwrite(one, 1, ol, m);
        free(one);
    }
    fclose(m);
    w->job = (long)job;
    w->busy = 1;
    if (send_msg(w->fd, MSG_CONFIRMATION, buf, len)) {
        w->job = -1;
        w->busy = 0;
        p->confirm_lost++;
    }
    free(buf);
}

/* The first piece not dealt yet that fits the time limit, or -1. */
static long next_piece(worker_pool *p)
{
    while (p->next < p->n_jobs && p->dealt[p->next]) p->next++;
    double now = timing_now();
    for (size_t k = p->next; k < p->n_jobs; k++)
        if (!p->dealt[k] && budget_fits(&p->budget, now, p->jobs[k].est_s)) return (long)k;
    return -1;
}

/* w's next job of this phase; STOP when stopping; else it waits idle. */
static void deal(worker_pool *p, worker_state *w, int stopping, int phase)
{
    if (w->stopped || w->fd < 0) return;
    long k = !stopping && phase == PHASE_PIECES && !p->n_again ? next_piece(p) : -1;
    if (!stopping && phase == PHASE_PIECES && (p->n_again || k >= 0)) {
        w->dealt_t = timing_now();
        if (p->n_again) {
            worker_job j = p->again[--p->n_again];
            w->cur_est = 0; /* what a lost worker left: no whole input to learn the pace from */
            send_piece(p, w, &j);
            free(j.idx);
        } else {
            p->dealt[k] = 1;
            budget_start(&p->budget);
            w->cur_est = p->jobs[k].est_s;
            send_piece(p, w, &p->jobs[k]);
        }
        return;
    }
    if (!stopping && phase == PHASE_CONFIRM && p->cnext < p->n_cjobs) {
        send_confirm(p, w, p->cnext++);
        return;
    }
    if (stopping || phase == PHASE_STOP) {
        send_msg(w->fd, MSG_STOP, NULL, 0);
        w->stopped = 1;
    }
}

/* w's socket closed: reap it; an end nobody asked for is a fault, and what
 * its piece had not sent back is dealt again (once per configuration) or left
 * for --resume. */
static void worker_gone(worker_pool *p, worker_state *w, const worker_hooks *h, int stopping)
{
    int st = 0;
    close(w->fd);
    w->fd = -1;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {}
    w->pid = 0;
    size_t n = w->n_cur;
    w->n_cur = 0;
    w->busy = 0;
    if (w->job >= 0) p->confirm_lost++;
    w->job = -1;
    int clean = WIFEXITED(st) && WEXITSTATUS(st) == 0 && w->stopped && !n;
    if (stopping) { /* interrupted: what it was running is left for --resume */
        p->left += n;
        return;
    }
    if (clean && !w->fault[0]) return; /* done */
    char how[128];
    if (WIFSIGNALED(st)) snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
    if (!w->fault[0]) snprintf(w->fault, sizeof w->fault, "worker %s", how);
    p->faults++;
    char label[256] = "", then[400] = "";
    size_t again = 0, left = 0;
    for (size_t k = 0; k < n; k++) { /* the ones it may have taken down twice stay for --resume */
        if (++p->tries[w->cur[k]] < 2) w->cur[again++] = w->cur[k];
        else left++;
    }
    p->left += left;
    push_again(p, w->cur, again);
    if (n) {
        h->label(h->ctx, w->cur[0], label, sizeof label);
        snprintf(then, sizeof then, "; its piece from %s: %zu configuration%s dealt to another device, %zu left for --resume",
                 label, again, again == 1 ? "" : "s", left);
    }
    fprintf(stderr, "sweep: device %d lost: %s (after %zu rows, every one kept)%s\n", w->ordinal, w->fault, w->ran,
            then);
}

/* A row of w's piece: one of the indices it was dealt, once. */
static int take_current(worker_state *w, size_t idx)
{
    for (size_t k = 0; k < w->n_cur; k++)
        if (w->cur[k] == idx) {
            w->cur[k] = w->cur[--w->n_cur];
            return 1;
        }
    return 0;
}

static void on_lines(worker_pool *p, worker_state *w, const worker_hooks *h, const char *buf, size_t len)
{
    uint64_t head[2];
    if (len < sizeof head) return;
    memcpy(head, buf, sizeof head);
    size_t need = sizeof head + head[1] * sizeof(confirm_line) + sizeof(stage_times);
    if (head[0] != (uint64_t)w->job || len < need) {
        snprintf(w->fault, sizeof w->fault, "worker sent a bad confirmation (%zu bytes)", len);
        kill(w->pid, SIGKILL);
        return;
    }
    memcpy(&w->stages, buf + need - sizeof(stage_times), sizeof(stage_times));
    h->lines(h->ctx, (size_t)head[0], (const confirm_line *)(buf + sizeof head), (size_t)head[1], buf + need);
    w->job = -1;
    w->busy = 0;
}

/* One message from w (or its end). */
static void on_message(worker_pool *p, worker_state *w, const worker_hooks *h, int stopping, int phase)
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
    if (decoded && take_current(w, idx)) {
        w->ran++;
        h->row(h->ctx, w, idx, &row);
    } else if (decoded) {
        row_free(&row);
        snprintf(w->fault, sizeof w->fault, "worker sent a row it was not dealt (plan index %zu)", idx);
        kill(w->pid, SIGKILL); /* its EOF follows: reaped and reported there */
    } else if (type == MSG_DONE) {
        if (len == sizeof w->stages) memcpy(&w->stages, buf, sizeof w->stages);
        budget_input_done(&p->budget, timing_now() - w->dealt_t, w->cur_est);
        push_again(p, w->cur, w->n_cur); /* cannot happen: a piece's rows all come before DONE */
        w->n_cur = 0;
        w->busy = 0;
        deal(p, w, stopping, phase);
    } else if (type == MSG_LINES) {
        on_lines(p, w, h, buf, len);
        if (w->job < 0) deal(p, w, stopping, phase);
    } else if (type == MSG_FATAL) {
        /* its device is lost after the rows it sent: the rest of its piece goes back */
        snprintf(w->fault, sizeof w->fault, "%s", buf);
        push_again(p, w->cur, w->n_cur);
        w->n_cur = 0;
        w->busy = 0;
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
        deal(p, w, 1, PHASE_STOP);
    }
}

static int work_left(worker_pool *p, int phase)
{
    if (phase == PHASE_PIECES && (p->n_again || next_piece(p) >= 0)) return 1;
    if (phase == PHASE_CONFIRM && p->cnext < p->n_cjobs) return 1;
    for (size_t i = 0; i < p->n; i++)
        if (p->w[i].fd >= 0 && (p->w[i].busy || phase == PHASE_STOP)) return 1;
    return 0;
}

/* Messages until the phase's work is done (every worker idle), every worker
 * is gone, or a signal has stopped them all. */
static void pump(worker_pool *p, const worker_hooks *h, volatile sig_atomic_t *stop, int phase)
{
    for (size_t i = 0; i < p->n; i++)
        if (!p->w[i].busy) deal(p, &p->w[i], p->stopping, phase);
    for (;;) {
        struct pollfd fds[WORKERS_MAX];
        worker_state *who[WORKERS_MAX];
        size_t nf = 0;
        if (*stop && !p->stopping) {
            p->stopping = 1;
            stop_all(p);
        }
        for (size_t i = 0; i < p->n; i++)
            if (p->w[i].fd >= 0) {
                fds[nf] = (struct pollfd){.fd = p->w[i].fd, .events = POLLIN};
                who[nf++] = &p->w[i];
            }
        if (!nf || (!p->stopping && !work_left(p, phase))) break;
        if (!p->stopping) /* a worker that has left leaves its share to the others */
            for (size_t i = 0; i < p->n; i++)
                if (p->w[i].fd >= 0 && !p->w[i].busy && !p->w[i].stopped) deal(p, &p->w[i], 0, phase);
        if (poll(fds, nf, 250) <= 0) continue; /* a signal, or time to look at *stop again */
        for (size_t i = 0; i < nf; i++)
            if (fds[i].revents) on_message(p, who[i], h, p->stopping || *stop, phase);
    }
}

int workers_dispatch(worker_pool *p, const worker_job *jobs, size_t n_jobs, const worker_hooks *h,
                     volatile sig_atomic_t *stop)
{
    p->jobs = jobs;
    p->n_jobs = n_jobs;
    p->next = 0;
    p->cap_again = n_jobs + 8 * WORKERS_MAX;
    p->again = calloc(p->cap_again, sizeof *p->again);
    p->tries = calloc(p->plan_count ? p->plan_count : 1, 1);
    p->dealt = calloc(n_jobs ? n_jobs : 1, 1);
    if (!p->again || !p->tries || !p->dealt) return -1;
    pump(p, h, stop, PHASE_PIECES);
    for (size_t k = 0; k < p->n_again; k++) {
        p->left += p->again[k].n;
        free(p->again[k].idx);
    }
    p->n_again = 0;
    int alive = 0;
    for (size_t i = 0; i < p->n; i++) alive |= p->w[i].fd >= 0;
    for (size_t k = 0; k < p->n_jobs; k++)
        if (!p->dealt[k]) {
            p->left += p->jobs[k].n;
            /* not dealt with workers there and no signal: the limit left it */
            if (!*stop && alive && p->budget.limit_s > 0) p->time_left += p->jobs[k].n;
        }
    free(p->dealt);
    p->dealt = NULL;
    return 0;
}

void workers_confirm(worker_pool *p, const worker_confirm_job *jobs, size_t n, const worker_hooks *h,
                     volatile sig_atomic_t *stop)
{
    p->cjobs = jobs;
    p->n_cjobs = n;
    p->cnext = 0;
    pump(p, h, stop, PHASE_CONFIRM);
    p->confirm_lost += p->n_cjobs - p->cnext;
}

void workers_stop(worker_pool *p, const worker_hooks *h, volatile sig_atomic_t *stop)
{
    pump(p, h, stop, PHASE_STOP);
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
        free(w->cur);
        w->cur = NULL;
    }
    if (p->again)
        for (size_t k = 0; k < p->n_again; k++) free(p->again[k].idx);
    free(p->again);
    free(p->tries);
    p->again = NULL;
    p->tries = NULL;
}
