/* report.md and index.html written side by side (plots/doc.h). */
#define _POSIX_C_SOURCE 200809L
#include "plots/doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plots/render.h"

void md_esc(FILE *f, const char *s, int in_table)
{
    for (; *s; s++) {
        if (*s == '\n') fputs(in_table ? " " : "\n", f);
        else if (in_table && *s == '|') fputs("\\|", f);
        else if (strchr("\\*`<", *s)) fprintf(f, "\\%c", *s); /* '_' inside words is literal */
        else fputc(*s, f);
    }
}

void html_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

void doc_h(doc *d, int level, const char *text, const char *id)
{
    for (int i = 0; i < level; i++) fputc('#', d->md);
    fputc(' ', d->md);
    md_esc(d->md, text, 0);
    fputs("\n\n", d->md);
    fprintf(d->html, "<h%d", level);
    if (id) fprintf(d->html, " id=\"%s\"", id);
    fputc('>', d->html);
    html_esc(d->html, text);
    fprintf(d->html, "</h%d>\n", level);
}

void doc_p(doc *d, const char *cls, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (cls && strcmp(cls, "warn") == 0) fputs("**", d->md);
    md_esc(d->md, buf, 0);
    if (cls && strcmp(cls, "warn") == 0) fputs("**", d->md);
    fputs("\n\n", d->md);
    fprintf(d->html, "<p%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    html_esc(d->html, buf);
    fputs("</p>\n", d->html);
}

/* Tables: the header row, then rows; align: 'l' or 'r' per column. */
void doc_table(doc *d, size_t ncols, const char *const *head, const char *align)
{
    fputs("|", d->md);
    for (size_t i = 0; i < ncols; i++) {
        fputc(' ', d->md);
        md_esc(d->md, head[i], 1);
        fputs(" |", d->md);
    }
    fputs("\n|", d->md);
    for (size_t i = 0; i < ncols; i++) fputs(align[i] == 'r' ? "---:|" : "---|", d->md);
    fputc('\n', d->md);
    fputs("<table>\n<tr>", d->html);
    for (size_t i = 0; i < ncols; i++) {
        fprintf(d->html, "<th%s>", align[i] == 'r' ? " class=\"r\"" : "");
        html_esc(d->html, head[i]);
        fputs("</th>", d->html);
    }
    fputs("</tr>\n", d->html);
}

void doc_row(doc *d, size_t ncols, const char *const *cells, const char *align)
{
    fputs("|", d->md);
    for (size_t i = 0; i < ncols; i++) {
        fputc(' ', d->md);
        md_esc(d->md, cells[i], 1);
        fputs(" |", d->md);
    }
    fputc('\n', d->md);
    fputs("<tr>", d->html);
    for (size_t i = 0; i < ncols; i++) {
        fprintf(d->html, "<td%s>", align[i] == 'r' ? " class=\"r\"" : "");
        html_esc(d->html, cells[i]);
        fputs("</td>", d->html);
    }
    fputs("</tr>\n", d->html);
}

void doc_table_end(doc *d)
{
    fputc('\n', d->md);
    fputs("</table>\n", d->html);
}

int plots_embed_base64(FILE *out, const char *path)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    unsigned char in[3 * 1024];
    size_t got;
    while ((got = fread(in, 1, sizeof in, f)) > 0) {
        for (size_t i = 0; i < got; i += 3) {
            unsigned v = (unsigned)in[i] << 16;
            if (i + 1 < got) v |= (unsigned)in[i + 1] << 8;
            if (i + 2 < got) v |= in[i + 2];
            fputc(b64[v >> 18 & 63], out);
            fputc(b64[v >> 12 & 63], out);
            fputc(i + 1 < got ? b64[v >> 6 & 63] : '=', out);
            fputc(i + 2 < got ? b64[v & 63] : '=', out);
        }
        if (got < sizeof in) break;
    }
    fclose(f);
    return 0;
}

void doc_fold(doc *d, int level, const char *title, const char *id, int open)
{
    fprintf(d->html, "<details%s><summary>", open ? " open" : "");
    doc_h(d, level, title, id);
    fputs("</summary>\n", d->html);
}

void doc_fold_end(doc *d) { fputs("</details>\n", d->html); }

void doc_chart(doc *d, const chart *c, const char *prefix)
{
    const render_ctx *ctx = d->ctx;
    char h[512];
    textf(h, sizeof h, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", c->title);
    doc_h(d, 3, h, NULL);
    if (c->state == CH_SKIPPED) {
        doc_p(d, "note", "Skipped: %s.", c->note);
        return;
    }
    if (c->state == CH_FAILED) {
        doc_p(d, "warn", "Not drawn: %s (see plots-data/gnuplot.log).", c->note);
        return;
    }
    if (c->state == CH_NOT_DRAWN) {
        char redo[PATH_LEN];
        render_command(ctx, redo, sizeof redo);
        doc_p(d, "note", "Not drawn: %s. Data in plots-data/; draw it with `%s` or plots-data/commands.sh.",
              ctx->why_not_drawn ? ctx->why_not_drawn : "gnuplot was not run", redo);
        return;
    }
    fprintf(d->md, "![%s](charts/%s.png)\n\n", c->title, c->stem);
    md_esc(d->md, c->caption, 0);
    if (ctx->opt.svg) fprintf(d->md, " ([SVG](charts/%s.svg))", c->stem);
    fputs("\n\n", d->md);
    char png[PATH_LEN];
    textf(png, sizeof png, "%s/%s.png", ctx->charts_dir, c->stem);
    fputs("<figure><img alt=\"", d->html);
    html_esc(d->html, c->title);
    if (ctx->opt.link_charts) {
        fprintf(d->html, "\" src=\"charts/%s.png", c->stem);
    } else {
        fputs("\" src=\"data:image/png;base64,", d->html);
        plots_embed_base64(d->html, png);
    }
    fputs("\"><figcaption>", d->html);
    html_esc(d->html, c->caption);
    if (ctx->opt.svg) fprintf(d->html, " <a href=\"charts/%s.svg\">SVG</a>", c->stem);
    fputs("</figcaption></figure>\n", d->html);
}

