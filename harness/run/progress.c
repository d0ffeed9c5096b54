#define _POSIX_C_SOURCE 200809L
#include "harness/run/progress.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "harness/config/plan.h"
#include "harness/core/timing.h"

#define PLAIN_INTERVAL_S 10.0
#define TTY_INTERVAL_S 0.1

double progress_eta(double elapsed_s, double est_done_s, double est_total_s)
{
    if (!(est_done_s > 0) || !(elapsed_s > 0)) return -1;
    double left = est_total_s - est_done_s;
    if (left < 0) left = 0;
    return left * (elapsed_s / est_done_s);
}

void progress_begin(progress *p, FILE *f, int quiet, size_t total, double est_total_s)
{
    memset(p, 0, sizeof *p);
    p->f = f;
    p->enabled = !quiet;
    p->tty = isatty(fileno(f));
    p->width = 100;
    struct winsize ws;
    if (p->tty && ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) p->width = ws.ws_col;
    p->total = total;
    p->est_total = est_total_s;
    p->start = timing_now();
    p->last_print = -1e9;
}

static void draw(progress *p, const char *label, int final)
{
    double now = timing_now(), elapsed = now - p->start;
    double pct = p->total ? 100.0 * p->done / p->total : 100.0;
    char eta[32] = "";
    double left = progress_eta(elapsed, p->est_done, p->est_total);
    if (final) format_duration(elapsed, eta, sizeof eta);
    else if (left >= 0) format_duration(left, eta, sizeof eta);
    else snprintf(eta, sizeof eta, "?");
    char fails[32] = "";
    if (p->failures) snprintf(fails, sizeof fails, "  %zu failed", p->failures);
    if (p->tty) {
        char bar[21];
        int filled = (int)(pct / 5);
        for (int i = 0; i < 20; i++) bar[i] = i < filled ? '#' : '.';
        bar[20] = '\0';
        char line[512];
        int w = snprintf(line, sizeof line, "[%s] %zu/%zu %3.0f%%%s  %s %s  %s", bar, p->done, p->total, pct, fails,
                         final ? "done in" : "ETA", eta, label ? label : "");
        if (w > p->width - 1) line[p->width - 1 > 0 ? p->width - 1 : 0] = '\0';
        fprintf(p->f, "\r%s\x1b[K", line);
        if (final) fputc('\n', p->f);
        p->drawn = !final;
    } else {
        fprintf(p->f, "sweep: %zu/%zu (%.0f%%)%s, %s %s%s%s\n", p->done, p->total, pct, fails,
                final ? "done in" : "ETA", eta, label ? ", now " : "", label ? label : "");
    }
    fflush(p->f);
    p->last_print = now;
}

void progress_update(progress *p, size_t done, double est_done_s, size_t failures, const char *label)
{
    p->done = done;
    p->est_done = est_done_s;
    p->failures = failures;
    if (!p->enabled) return;
    double now = timing_now();
    double interval = p->tty ? TTY_INTERVAL_S : PLAIN_INTERVAL_S;
    if (now - p->last_print < interval && done != 0) return;
    draw(p, label, 0);
}

void progress_note(progress *p, const char *msg)
{
    if (p->enabled && p->tty && p->drawn) fprintf(p->f, "\r\x1b[K");
    fprintf(p->f, "%s\n", msg);
    if (p->enabled && p->tty && p->drawn) p->last_print = -1e9; /* redraw on the next update */
    fflush(p->f);
}

void progress_end(progress *p)
{
    if (!p->enabled) return;
    draw(p, NULL, 1);
}
