#include "report/pacing_table.h"
#include "report/html.h"
#include "report/ranwith.h"
#include "report/charts.h"
#include "common/fsutil.h"
#include "report/stats.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A relative link to a file of the run directory ('#' and friends escaped). */
static void href(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '#' || ch == '%' || ch == '?' || ch == '"' || ch == ' ' || ch == '<' || ch == '>' || ch == '&' || ch >= 0x80)
            fprintf(f, "%%%02X", ch);
        else
            fputc(ch, f);
    }
}

static void num(FILE *f, double v, int prec)
{
    if (isnan(v))
        fputs("–", f);
    else
        fprintf(f, "%.*f", prec, v);
}

/* An axis maximum and tick step that read well: 1, 2 or 5 times a power
 * of ten, about five ticks. */
static double nice_step(double max, double *top)
{
    if (!(max > 0))
        max = 1;
    double raw = max / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    double step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
    *top = ceil(max / step) * step;
    return step;
}

static void tick_label(char *buf, size_t len, double v, double step)
{
    if (step >= 1)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.*f", (int)ceil(-log10(step)), v);
}

/* A value axis: linear from zero to top in steps, or, when the values
 * span more than 30x, logarithmic over whole decades lo..top. */
struct yscale {
    double lo, top, step;
    int log;
};

/* The scale for values whose least positive one is lo and largest hi,
 * with head room (1.1: a tenth) over hi. */
static void yscale_fit(struct yscale *sc, double lo, double hi, double head)
{
    sc->log = lo > 0 && isfinite(lo) && hi / lo > 30;
    if (sc->log) {
        sc->lo = pow(10, floor(log10(lo)) - 1); /* a decade below the least value: none is a sliver */
        sc->top = pow(10, ceil(log10(hi * head * 1.5)));
        sc->step = 10;
    } else {
        sc->lo = 0;
        sc->step = nice_step(hi * head, &sc->top);
    }
}

/* The y pixel of v between y0 (bottom) and y1 (top). */
static double ypos(const struct yscale *sc, double v, double y0, double y1)
{
    if (!sc->log)
        return y0 - v / sc->top * (y0 - y1);
    if (!(v > sc->lo))
        return y0;
    return y0 - (log10(v) - log10(sc->lo)) / (log10(sc->top) - log10(sc->lo)) * (y0 - y1);
}

/* The y axis with grid lines; its label says when it is logarithmic. */
static void y_axis(FILE *f, double x0, double x1, double y0, double y1, const struct yscale *sc, const char *unit)
{
    for (double v = sc->lo; v <= sc->top * 1.0001; v = sc->log ? v * 10 : v + sc->step) {
        double y = ypos(sc, v, y0, y1);
        char lb[32];
        if (sc->log)
            snprintf(lb, sizeof lb, v >= 1 ? "%.0f" : "%g", v);
        else
            tick_label(lb, sizeof lb, v, sc->step);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>", x0, y, x1, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" class=\"tick\">%s</text>", x0 - 6, y + 4, lb);
        if (sc->log && v == 0)
            break;
    }
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>", x0, y0, x0, y1);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>", x0, y0, x1, y0);
    fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\" class=\"axis\">", x0 - 52,
            (y0 + y1) / 2);
    html_esc(f, unit);
    if (sc->log)
        fputs(" (log scale)", f);
    fputs("</text>", f);
}

static void svg_open(FILE *f, int w, int h, const char *title, const char *footer)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">", w, h, w,
            h);
    fprintf(f, "<title>");
    html_esc(f, title);
    fprintf(f, "</title><rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>", w, h);
    fprintf(f, "<text x=\"%d\" y=\"22\" text-anchor=\"middle\" class=\"title\">", w / 2);
    html_esc(f, title);
    /* The footer on two lines (build and machine; date and profile), so
     * it fits a narrow figure. */
    const char *cut = strstr(footer, " · ");
    cut = cut ? strstr(cut + 1, " · ") : NULL;
    fprintf(f, "</text><text x=\"6\" y=\"%d\" class=\"footer\">", cut ? h - 17 : h - 6);
    if (cut) {
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)(cut - footer), footer);
        html_esc(f, first);
        fprintf(f, "</text><text x=\"6\" y=\"%d\" class=\"footer\">", h - 6);
        html_esc(f, cut + strlen(" · "));
    } else {
        html_esc(f, footer);
    }
    fputs("</text>", f);
}

/* The legend lines of the caveats in used, from y on. */
static void caveat_legend(FILE *f, unsigned used, double x, double y)
{
    for (size_t k = 0; charts_caveats[k].key; k++)
        if (used & 1u << k) {
            fprintf(f, "<g class=\"caveat-key\" data-caveat=\"%s\"><text x=\"%.1f\" y=\"%.1f\" class=\"glyph\">%s</text>"
                       "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">",
                    charts_caveats[k].key, x, y + 10, charts_caveats[k].glyph, x + 18, y + 10);
            /* Wrapped at spaces into lines of up to 15 characters: the
             * legend column is narrow. */
            const char *t = charts_caveats[k].legend;
            int line = 0;
            while (*t) {
                size_t n = strlen(t), cut = n;
                if (n > 15) {
                    cut = 15;
                    while (cut > 0 && t[cut] != ' ')
                        cut--;
                    if (!cut)
                        cut = strcspn(t, " ");
                }
                char part[128];
                snprintf(part, sizeof part, "%.*s", (int)cut, t);
                fprintf(f, "<tspan x=\"%.1f\" dy=\"%d\">", x + 18, line++ ? 13 : 0);
                html_esc(f, part);
                fputs("</tspan>", f);
                t += cut;
                while (*t == ' ')
                    t++;
            }
            fputs("</text></g>", f);
            y += 18 + 13 * (line - 1);
        }
}

/* The caveat glyphs of mask, centred at x, stacked up from y. */
static void caveat_marks(FILE *f, unsigned mask, double x, double y)
{
    for (size_t k = 0; charts_caveats[k].key; k++)
        if (mask & 1u << k) {
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"glyph\" data-caveat=\"%s\"><title>", x, y,
                    charts_caveats[k].key);
            html_esc(f, charts_caveats[k].legend);
            fprintf(f, "</title>%s</text>", charts_caveats[k].glyph);
            y -= 14;
        }
}

/* Bar i of a chart: x0..y0 the plot's bottom left, y1 its top, slot
 * wide each, the axis up to top. */
struct bar_frame {
    double x0, y0, y1, slot;
    struct yscale sc;
    int steep;      /* many bars: value and name upright or steep */
};

static void bar_one(FILE *f, const struct stats_group *g, size_t i, const struct charts_bar *b, const struct stats_metric *m,
                    const struct bar_frame *fr)
{
    const double y0 = fr->y0, y1 = fr->y1, bw = fr->slot * 0.6;
    const struct stats_summary *s = &b->s;
    int ok = !strcmp(b->status, "ok");
    char name[160];
    stats_group_name(g, name, sizeof name);
    if (!ok && s->n)
        snprintf(name + strlen(name), sizeof name - strlen(name), " (%s)", b->status);
    double cx = fr->x0 + fr->slot * ((double)i + 0.5);
    fprintf(f, "<g class=\"bar%s\" data-tool=\"", ok ? "" : " failed");
    html_esc(f, g->label);
    fprintf(f, "\">");
    if (s->n) {
        double y = ypos(&fr->sc, s->median, y0, y1), ytop = fr->sc.log ? y - 6 : y; /* over a dot's top */
        /* On a log axis a bar's length means nothing: a dot, open for a
         * row that did not end ok. Else a row that did not end ok is
         * hatched in its colour. */
        const char *shape = fr->sc.log ? "circle" : "rect";
        if (fr->sc.log)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"><title>", cx, y,
                    ok ? charts_colour(g->colour) : "#fff", ok ? "#333" : charts_colour(g->colour), ok ? "0.6" : "2");
        else if (ok)
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"#333\" stroke-width=\"0.6\"><title>",
                    cx - bw / 2, y, bw, y0 - y, charts_colour(g->colour));
        else
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#lb-hatch-%d)\" stroke=\"#333\" stroke-width=\"0.6\"><title>",
                    cx - bw / 2, y, bw, y0 - y, g->colour);
        html_esc(f, name);
        fprintf(f, ": %.*f %s (%s of %zu%s)</title></%s>", m->prec, s->median, m->unit, s->n > 1 ? "median" : "one", s->n,
                ok ? "" : ", footprint measured, no tool report", shape);
        if (s->n > 1) {
            double ya = ypos(&fr->sc, s->min, y0, y1), yb = ypos(&fr->sc, s->max, y0, y1);
            fprintf(f, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fh10M%.1f %.1fh10\" stroke=\"#222\" stroke-width=\"1.4\" fill=\"none\"/>",
                    cx, ya, yb, cx - 5, ya, cx - 5, yb);
            ytop = yb;
        }
        caveat_marks(f, b->caveats, cx, ytop - 4);
        int nmarks = 0;
        for (size_t k = 0; charts_caveats[k].key; k++)
            nmarks += !!(b->caveats & 1u << k);
        /* Many bars: values upright, so neighbours do not collide. */
        if (fr->steep)
            fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" class=\"value\">", cx + 4, ytop - 4 - 14 * nmarks);
        else
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"value\">", cx, ytop - 4 - 14 * nmarks);
        char vl[32];
        fputs(charts_value_label(s->median, vl, sizeof vl), f);
        fputs("</text>", f);
    } else {
        /* Upright, so that neighbours' notes do not run together. */
        fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" class=\"tick missing\">no result%s%s%s</text>", cx + 4,
                y0 - 6, ok ? "" : " (", ok ? "" : b->status, ok ? "" : ")");
    }
    fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(%d)\" class=\"tick\">", cx - 4, y0 + 14, fr->steep ? 60 : 25);
    html_esc(f, name);
    fputs("</text></g>", f);
}

/* The height under a bar chart's plot for its slanted names (11 px, about
 * 6.2 px a character, rotated by deg) and the two footer lines, at least
 * the 94 px a few short names need. */
static int bar_names_room(const struct stats_groups *gs, const struct charts_bar *b, int deg)
{
    size_t longest = 0;
    for (size_t i = 0; i < gs->n; i++) {
        char name[160];
        stats_group_name(&gs->g[i], name, sizeof name);
        size_t l = strlen(name) + (b[i].s.n && strcmp(b[i].status, "ok") ? strlen(b[i].status) + 3 : 0);
        if (l > longest)
            longest = l;
    }
    double room = 14 + (double)longest * 6.2 * sin(deg * M_PI / 180) + 32;
    return room > 94 ? (int)ceil(room) : 94;
}

static void bar_chart(FILE *f, json_t *run, const struct stats_groups *gs, const struct stats_metric *m, const char *footer)
{
    const int W = 600;
    const double x0 = 78, x1 = W - 130, y0 = 256, y1 = 40;
    double max = 0, lo = INFINITY;
    size_t reps = 0;
    unsigned used = 0;
    int hatched = 0;
    struct charts_bar *b = util_xcalloc(gs->n + 1, sizeof *b);
    for (size_t i = 0; i < gs->n; i++) {
        charts_bar_fill(run, &gs->g[i], m, &b[i]);
        if (b[i].s.n && b[i].s.max > max)
            max = b[i].s.max;
        if (b[i].s.n && b[i].s.min > 0 && b[i].s.min < lo)
            lo = b[i].s.min;
        if (b[i].s.n > reps)
            reps = b[i].s.n;
        used |= b[i].caveats;
        hatched |= b[i].s.n && strcmp(b[i].status, "ok");
    }
    /* Many bars have steep names: the figure grows under the plot so that
     * they clear the footer. */
    const int H = (int)y0 + bar_names_room(gs, b, gs->n > 12 ? 60 : 25);
    /* Headroom for the value (and a caveat glyph) over the tallest bar. */
    struct yscale sc;
    yscale_fit(&sc, lo, max, used ? 1.2 : 1.1);
    char title[256];
    size_t *ord = util_xcalloc(gs->n + 1, sizeof *ord);
    int sorted = charts_bar_order(b, gs->n, (int)reps, ord);
    snprintf(title, sizeof title, reps > 1 ? "%s: median, whiskers min–max%s" : "%s, one run per tool%s", m->title,
             reps > 1 ? (sorted ? ", largest first" : "") : " (profile order)");
    fprintf(f, "<figure class=\"chart bars\" data-metric=\"%s\">", m->key);
    svg_open(f, W, H, title, footer);
    y_axis(f, x0, x1, y0, y1, &sc, m->unit);
    struct bar_frame fr = {.x0 = x0, .y0 = y0, .y1 = y1, .slot = (x1 - x0) / (double)(gs->n ? gs->n : 1), .sc = sc,
                           .steep = gs->n > 12};
    for (size_t k = 0; k < gs->n; k++)
        bar_one(f, &gs->g[ord[k]], k, &b[ord[k]], m, &fr);
    /* The axis names every bar: the key right of the plot holds only the
     * marks (hatching, caveats). */
    double ly = y1;
    if (hatched && sc.log) {   /* open dots on a log axis */
        fprintf(f, "<g class=\"hatch-key\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#fff\" stroke=\"#888\" stroke-width=\"2\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">failed/timed out</text></g>",
                x1 + 26, ly + 6, x1 + 38, ly + 10);
        ly += 18;
    } else if (hatched) {
        fprintf(f, "<g class=\"hatch-key\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"url(#lb-hatch-gray)\" stroke=\"#333\" stroke-width=\"0.6\"/>"
                   "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\">failed/timed out</text></g>",
                x1 + 20, ly, x1 + 38, ly + 10);
        ly += 18;
    }
    caveat_legend(f, used, x1 + 20, ly);
    fputs("</svg></figure>\n", f);
    free(ord);
    free(b);
}

/* The hatch patterns of failed bars, one per tool colour, defined once
 * for the page. */
static void hatch_defs(FILE *f, const struct stats_groups *gs)
{
    fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>", f);
    for (size_t li = 0; li <= gs->nlabels; li++) {
        const char *c = li < gs->nlabels ? charts_colour((int)li) : "#888888";
        if (li < gs->nlabels)
            fprintf(f, "<pattern id=\"lb-hatch-%zu\"", li);
        else
            fputs("<pattern id=\"lb-hatch-gray\"", f);
        fprintf(f, " width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                   "<rect width=\"6\" height=\"6\" fill=\"%s\" fill-opacity=\"0.25\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"%s\" stroke-width=\"2.5\"/></pattern>",
                c, c);
    }
    fputs("</defs></svg>\n", f);
}

struct series {
    const char *name, *colour, *tool;
    size_t n;
    double *x, *y, *lo, *hi;    /* lo/hi may be NULL */
    unsigned *caveats;          /* per point (charts_caveats bits), or NULL */
    int dashed;
};

/* A shaded load stage on a time axis. */
struct band {
    double from, to, target;
    int ramp;
};

static void line_chart(FILE *f, const char *cls, const char *tool, const char *title, const char *xunit, const char *yunit,
                       struct series *sv, size_t ns, const double *xticks, size_t nxt, const char *footer, int w, int h,
                       const struct band *bands, size_t nb)
{
    const double x0 = 78, x1 = w - 150, y0 = h - 74, y1 = 40;
    double xmax = 0, ymax = 0, ymin = INFINITY;
    for (size_t i = 0; i < nb; i++)
        if (bands[i].to > xmax)
            xmax = bands[i].to;
    for (size_t k = 0; k < ns; k++)
        for (size_t i = 0; i < sv[k].n; i++) {
            if (!isnan(sv[k].x[i]) && sv[k].x[i] > xmax)
                xmax = sv[k].x[i];
            double y = sv[k].hi && !isnan(sv[k].hi[i]) ? sv[k].hi[i] : sv[k].y[i];
            if (!isnan(y) && y > ymax)
                ymax = y;
            double ylo = sv[k].lo && !isnan(sv[k].lo[i]) ? sv[k].lo[i] : sv[k].y[i];
            if (ylo > 0 && ylo < ymin)
                ymin = ylo;
        }
    /* Only the sweep curves may go logarithmic: a time series reads
     * from zero. */
    struct yscale sc;
    yscale_fit(&sc, !strcmp(cls, "sweep") ? ymin : 0, ymax, 1.0);
    double xtop, xstep = nice_step(xmax, &xtop);
    if (nxt)
        xtop = xmax * 1.08;
    fprintf(f, "<figure class=\"chart %s\"", cls);
    if (tool) {
        fprintf(f, " data-tool=\"");
        html_esc(f, tool);
        fputc('"', f);
    }
    fputc('>', f);
    svg_open(f, w, h, title, footer);
#define XP(v) (x0 + (v) / xtop * (x1 - x0))
#define YP(v) ypos(&sc, (v), y0, y1)
    for (size_t i = 0; i < nb; i++) {
        fprintf(f, "<rect class=\"stage\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", XP(bands[i].from), y1,
                XP(bands[i].to) - XP(bands[i].from), y0 - y1, bands[i].ramp ? "#e6e6e6" : "#f4f4f4");
        /* 11 px text: about 6.5 px a character; a label stays inside its
         * stage, shortened or dropped. */
        char text[64];
        if (charts_stage_label(text, sizeof text, bands[i].ramp, bands[i].target, XP(bands[i].to) - XP(bands[i].from), 6.5))
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick stage-label\" fill=\"#888\">%s</text>", XP(bands[i].from) + 3,
                    y1 + 11, text);
    }
    y_axis(f, x0, x1, y0, y1, &sc, yunit);
    if (nxt) {
        for (size_t i = 0; i < nxt; i++)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%.10g</text>", XP(xticks[i]), y0 + 16,
                    xticks[i]);
    } else {
        for (double v = 0; v <= xtop + xstep / 2; v += xstep) {
            char lb[32];
            tick_label(lb, sizeof lb, v, xstep);
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"tick\">%s</text>", XP(v), y0 + 16, lb);
        }
    }
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\">", (x0 + x1) / 2, y0 + 36);
    html_esc(f, xunit);
    fputs("</text>", f);
    unsigned used = 0;
    for (size_t k = 0; k < ns; k++) {
        struct series *s = &sv[k];
        fprintf(f, "<g class=\"line\" data-tool=\"");
        html_esc(f, s->tool ? s->tool : s->name);
        fprintf(f, "\"><path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"", s->colour,
                s->dashed ? " stroke-dasharray=\"5 4\"" : "");
        int pen = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (isnan(s->x[i]) || isnan(s->y[i])) {
                pen = 0;
                continue;
            }
            fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', XP(s->x[i]), YP(s->y[i]));
            pen = 1;
        }
        fputs("\"/>", f);
        for (size_t i = 0; s->lo && i < s->n; i++)
            if (!isnan(s->lo[i]) && !isnan(s->hi[i]) && !isnan(s->x[i]))
                fprintf(f, "<path d=\"M%.1f %.1fV%.1f\" stroke=\"%s\" stroke-width=\"1.4\"/>", XP(s->x[i]), YP(s->lo[i]),
                        YP(s->hi[i]), s->colour);
        if (s->lo)
            for (size_t i = 0; i < s->n; i++)
                if (!isnan(s->y[i]))
                    fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>", XP(s->x[i]), YP(s->y[i]), s->colour);
        for (size_t i = 0; s->caveats && i < s->n; i++)
            if (s->caveats[i] && !isnan(s->y[i])) {
                caveat_marks(f, s->caveats[i], XP(s->x[i]), YP(s->y[i]) + 5);
                used |= s->caveats[i];
            }
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\">", x1 + 20,
                y1 + (double)k * 18 + 5, s->colour, x1 + 38, y1 + (double)k * 18 + 10);
        html_esc(f, s->name);
        fputs("</text></g>", f);
    }
    caveat_legend(f, used, x1 + 20, y1 + (double)ns * 18 + 6);
#undef XP
#undef YP
    fputs("</svg></figure>\n", f);
}

static void sweep_chart(FILE *f, const struct stats_groups *gs, const struct stats_metric *m, const char *xunit,
                        const char *footer)
{
    struct series *sv = util_xcalloc(gs->nlabels + 1, sizeof *sv);
    for (size_t li = 0; li < gs->nlabels; li++) {
        struct series *s = &sv[li];
        s->name = s->tool = gs->labels[li];
        s->colour = charts_colour((int)li);
        s->x = util_xcalloc(gs->nlevels, sizeof *s->x);
        s->y = util_xcalloc(gs->nlevels, sizeof *s->y);
        s->lo = util_xcalloc(gs->nlevels, sizeof *s->lo);
        s->hi = util_xcalloc(gs->nlevels, sizeof *s->hi);
        s->caveats = util_xcalloc(gs->nlevels, sizeof *s->caveats);
        for (size_t vi = 0; vi < gs->nlevels; vi++) {
            const struct stats_group *g = stats_find(gs, gs->labels[li], gs->levels[vi]);
            struct stats_summary st = {0};
            if (g)
                stats_group_metric(g, m, &st);
            s->x[vi] = gs->levels[vi];
            s->y[vi] = st.n ? st.median : NAN;
            s->lo[vi] = st.n > 1 ? st.min : NAN;
            s->hi[vi] = st.n > 1 ? st.max : NAN;
            s->caveats[vi] = g ? charts_caveat_mask(g->rows, g->nok, m) : 0;
        }
        s->n = gs->nlevels;
    }
    char title[256];
    snprintf(title, sizeof title, "%s against the swept level", m->title);
    line_chart(f, "sweep", NULL, title, xunit, m->unit, sv, gs->nlabels, gs->levels, gs->nlevels, footer, 600, 350, NULL, 0);
    for (size_t li = 0; li < gs->nlabels; li++) {
        free(sv[li].x);
        free(sv[li].y);
        free(sv[li].lo);
        free(sv[li].hi);
        free(sv[li].caveats);
    }
    free(sv);
}

/* CPU, RSS and server-counted requests/s of one tool run, from its CSVs. */
static void ts_chart(FILE *f, const char *dir, json_t *r, const char *colour, const char *footer)
{
    const char *label = stats_json_str(r, "label", NULL) ?: "?", *name = stats_json_str(r, "dir", NULL) ?: label;
    char p[4300];
    struct series s[2];
    memset(s, 0, sizeof s);
    fprintf(f, "<div class=\"ts\" data-tool=\"");
    html_esc(f, label);
    fprintf(f, "\" data-dir=\"");
    html_esc(f, name);
    fprintf(f, "\"><h3 id=\"ts-");
    html_esc(f, name);
    fprintf(f, "\">");
    html_esc(f, name);
    fputs("</h3>", f);
    /* The load stages as the tool ran them, from its first request on. */
    struct band bands[16];
    size_t nb = 0;
    json_t *load = json_object_get(r, "load_as_run") ?: json_object_get(r, "load"), *st;
    double t0 = stats_json_num(r, "windows", "load_start_s", NULL), prev = 0;
    size_t si;
    if (isnan(t0))
        t0 = 0;
    json_array_foreach(json_object_get(load, "stages"), si, st)
    {
        double d = stats_json_num(st, "duration_ns", NULL, NULL) / 1e9,
               target = stats_json_num(st, "target", NULL, NULL);
        if (isnan(d) || nb == sizeof bands / sizeof *bands)
            continue;
        int ramp = si > 0 ? target != prev : json_is_true(json_object_get(load, "ramped")) && target != 0;
        bands[nb++] = (struct band){.from = t0, .to = t0 + d, .target = target, .ramp = ramp};
        t0 += d;
        prev = target;
    }
    const char *tcsv = stats_json_str(r, "footprint", "samples_file"),
               *gcsv = stats_json_str(r, "target_footprint", "samples_file");
    const char *scsv = stats_json_str(r, "server_series_file", NULL);
    char title[300];
    /* CPU: the tool and lb-target. */
    size_t ns = 0;
    if (tcsv) {
        snprintf(p, sizeof p, "%s/%s", dir, tcsv);
        s[ns] = (struct series){.name = label, .tool = label, .colour = colour};
        s[ns].n = charts_read_csv(p, 2, &s[ns].x, &s[ns].y);
        ns++;
    }
    if (gcsv) {
        snprintf(p, sizeof p, "%s/%s", dir, gcsv);
        s[ns] = (struct series){.name = "lb-target", .tool = label, .colour = "#777777", .dashed = 1};
        s[ns].n = charts_read_csv(p, 2, &s[ns].x, &s[ns].y);
        ns++;
    }
    snprintf(title, sizeof title, "%s: CPU over time", name);
    line_chart(f, "ts-cpu", label, title, "seconds since the tool started", "CPU % (100 = one core)", s, ns, NULL, 0, footer, 560,
               260, bands, nb);
    for (size_t k = 0; k < ns; k++) {
        free(s[k].x);
        free(s[k].y);
    }
    ns = 0;
    if (tcsv) {
        snprintf(p, sizeof p, "%s/%s", dir, tcsv);
        s[0] = (struct series){.name = label, .tool = label, .colour = colour};
        s[0].n = charts_read_csv(p, 5, &s[0].x, &s[0].y);
        ns = 1;
    }
    snprintf(title, sizeof title, "%s: RSS over time", name);
    line_chart(f, "ts-rss", label, title, "seconds since the tool started", "RSS (MB)", s, ns, NULL, 0, footer, 560, 260, bands, nb);
    if (ns) {
        free(s[0].x);
        free(s[0].y);
    }
    ns = 0;
    if (scsv) {
        snprintf(p, sizeof p, "%s/%s", dir, scsv);
        s[0] = (struct series){.name = "completed/s", .tool = label, .colour = colour};
        s[0].n = charts_read_csv(p, 2, &s[0].x, &s[0].y);
        double *part = NULL, *tt = NULL;
        size_t np = charts_read_csv(p, 8, &tt, &part);
        /* Align the server's seconds to the tool's clock at the first
         * second with traffic (see charts.c), drop partial seconds. */
        double first = -1, ls = stats_json_num(r, "windows", "load_start_s", NULL);
        for (size_t i = 0; i < s[0].n; i++)
            if (s[0].y[i] > 0 && first < 0)
                first = s[0].x[i];
        for (size_t i = 0; i < s[0].n; i++) {
            s[0].x[i] = s[0].x[i] - first + (isnan(ls) ? 0 : ls) + 0.5;
            if (i < np && part[i] > 0)
                s[0].y[i] = NAN;
        }
        free(part);
        free(tt);
        ns = 1;
    }
    snprintf(title, sizeof title, "%s: requests/s counted by the server", name);
    line_chart(f, "ts-rps", label, title, "seconds since the tool started", "requests/s", s, ns, NULL, 0, footer, 560, 260, bands, nb);
    if (ns) {
        free(s[0].x);
        free(s[0].y);
    }
    fputs("</div>\n", f);
}

static const char *status_class(const char *st)
{
    if (!st)
        return "bad";
    if (!strcmp(st, "ok"))
        return "ok";
    if (!strcmp(st, "skipped"))
        return "skip";
    return "bad";
}

static void results_table(FILE *f, json_t *run)
{
    fputs("<table class=\"results sortable\"><thead><tr><th>Tool run</th><th>Status</th><th>Model</th><th>RPS (server)</th>"
          "<th>RPS hold</th><th>P50 ms</th><th>P95 ms</th><th>P99 ms</th><th>Errors</th><th>CPU avg %</th>"
          "<th>CPU peak %</th><th>RSS peak MB</th><th>CPU-s/100k req</th><th>Server count</th><th>Client count</th>"
          "<th>Verdict</th><th>Bottleneck</th><th>Raw output</th></tr></thead><tbody>\n",
          f);
    json_t *r;
    size_t i;
    const struct stats_metric *c100 = stats_metric_by_key("cpu100k");
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        const char *label = stats_json_str(r, "label", NULL) ?: "?", *name = stats_json_str(r, "dir", NULL) ?: label,
                   *st = stats_json_str(r, "status", NULL);
        fprintf(f, "<tr class=\"tool-row\" data-tool=\"");
        html_esc(f, label);
        fprintf(f, "\" data-dir=\"");
        html_esc(f, name);
        fprintf(f, "\"><th><a href=\"#ts-");
        html_esc(f, name);
        fprintf(f, "\">");
        html_esc(f, name);
        fputs("</a>", f);
        unsigned mask = charts_caveat_mask(&r, 1, NULL);
        if (mask)
            fputs(" ", f);
        for (size_t k = 0; charts_caveats[k].key; k++)
            if (mask & 1u << k) {
                fprintf(f, "<span class=\"glyph\" data-caveat=\"%s\" title=\"", charts_caveats[k].key);
                html_esc(f, charts_caveats[k].legend);
                fprintf(f, "\">%s</span>", charts_caveats[k].glyph);
            }
        fprintf(f, "</th><td class=\"%s\">", status_class(st));
        html_esc(f, st ? st : "?");
        fputs("</td><td>", f);
        html_esc(f, stats_json_str(r, "identity", "model") ?: "–");
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "windows", "whole_rps", NULL), 0);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "windows", "hold_rps", NULL), 0);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "client", "latency_ms", "p50"), 2);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "client", "latency_ms", "p95"), 2);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "client", "latency_ms", "p99"), 2);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "client", "errors", NULL), 0);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "footprint", "cpu_avg_pct", NULL), 1);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "footprint", "cpu_peak_pct", NULL), 1);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "footprint", "rss_peak_mb", NULL), 1);
        fputs("</td><td>", f);
        num(f, stats_value(r, c100), 3);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "server", "requests", NULL), 0);
        fputs("</td><td>", f);
        num(f, stats_json_num(r, "crosscheck", "client", NULL), 0);
        const char *v = stats_json_str(r, "crosscheck", "verdict");
        fprintf(f, "</td><td class=\"%s\">", v && !strcmp(v, "mismatch") ? "bad" : "");
        html_esc(f, v ? v : "–");
        fputs("</td><td>", f);
        html_esc(f, stats_json_str(r, "limits", "bottleneck") ?: "–");
        fputs("</td><td class=\"links\">", f);
        /* A skipped row's tool never ran: it has no files to link. */
        static const char *const files[] = {"stdout.txt", "stderr.txt", "reproduce.sh", NULL};
        const char *rst = stats_json_str(r, "status", NULL);
        for (const char *const *fl = files; *fl && !(rst && !strcmp(rst, "skipped")); fl++) {
            fputs("<a href=\"", f);
            href(f, name);
            fprintf(f, "/%s\">%.6s</a> ", *fl, *fl);
        }
        const char *sf = stats_json_str(r, "footprint", "samples_file");
        if (sf) {
            fputs("<a href=\"", f);
            href(f, sf);
            fputs("\">samples</a> ", f);
        }
        sf = stats_json_str(r, "server_series_file", NULL);
        if (sf) {
            fputs("<a href=\"", f);
            href(f, sf);
            fputs("\">server</a>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* "Pacing": each row's pacing truth (report/pacing_table.h), with its
 * findings' witnesses. Nothing when no row has one. */
static void pacing_html(FILE *f, json_t *run)
{
    char c[PACING_TABLE_COLS][PACING_TABLE_CELL];
    json_t *r, *w;
    size_t i, k;
    int any = 0;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (!pacing_table_cells(r, c))
            continue;
        if (!any++) {
            fputs("<h3 id=\"pacing\">Pacing: did each tool send what it was asked, when, on the connections asked?</h3>\n"
                  "<p class=\"note\">", f);
            html_esc(f, pacing_table_legend);
            fputs("</p>\n<table class=\"pacing\"><thead><tr><th>Tool run</th>", f);
            for (int k2 = 0; k2 < PACING_TABLE_COLS; k2++) {
                fputs("<th>", f);
                html_esc(f, pacing_table_head[k2]);
                fputs("</th>", f);
            }
            fputs("</tr></thead><tbody>\n", f);
        }
        fputs("<tr><th>", f);
        html_esc(f, stats_json_str(r, "dir", NULL) ?: stats_json_str(r, "label", NULL) ?: "?");
        fputs("</th>", f);
        for (int k2 = 0; k2 < PACING_TABLE_COLS; k2++) {
            fputs("<td>", f);
            html_esc(f, c[k2]);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
        json_array_foreach(json_object_get(json_object_get(r, "pacing"), "findings"), k, w)
        {
            fprintf(f, "<tr><td></td><td colspan=\"%d\" class=\"warn\">", PACING_TABLE_COLS);
            html_esc(f, json_string_value(json_object_get(w, "finding")));
            fputs(": ", f);
            html_esc(f, json_string_value(json_object_get(w, "witness")));
            fputs("</td></tr>\n", f);
        }
    }
    if (any)
        fputs("</tbody></table>\n", f);
}

static void stats_table(FILE *f, const struct stats_groups *gs)
{
    fputs("<table class=\"stats sortable\"><thead><tr><th>Tool</th><th>Level</th><th>Runs ok</th>", f);
    for (const struct stats_metric *m = stats_metrics; m->key; m++) {
        fputs("<th>", f);
        html_esc(f, m->column);
        fputs("</th>", f);
    }
    fputs("</tr></thead><tbody>\n", f);
    for (size_t i = 0; i < gs->n; i++) {
        const struct stats_group *g = &gs->g[i];
        fprintf(f, "<tr class=\"stats-row\" data-tool=\"");
        html_esc(f, g->label);
        fprintf(f, "\"><th><span class=\"sw\" style=\"background:%s\"></span>", charts_colour(g->colour));
        html_esc(f, g->label);
        fputs("</th><td>", f);
        num(f, g->level, 0);
        fprintf(f, "</td><td>%zu/%zu</td>", g->nok, g->nrows);
        for (const struct stats_metric *m = stats_metrics; m->key; m++) {
            struct stats_summary s;
            stats_group_metric(g, m, &s);
            fprintf(f, "<td%s>", s.unstable ? " class=\"unstable\" title=\"unstable: wide spread over repeats\"" : "");
            num(f, s.median, m->prec);
            if (s.n > 1) {
                fputs(" <small>[", f);
                num(f, s.min, m->prec);
                fputs("–", f);
                num(f, s.max, m->prec);
                fputs("]</small>", f);
            }
            if (s.n > 5)
                fprintf(f, " <small>CV %.1f%%</small>", s.cv * 100);
            if (s.unstable)
                fputs(" ⚠", f);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n<p class=\"note\">Median [min–max] over the repeats that ended ok; ⚠: unstable (min–max above 20 % of "
          "the median with five repeats or fewer, coefficient of variation above 10 % with more).</p>\n",
          f);
}

static void notes(FILE *f, json_t *run)
{
    json_t *r, *w;
    size_t i, k;
    fputs("<ul class=\"notes\">\n", f);
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        const char *name = stats_json_str(r, "dir", NULL) ?: stats_json_str(r, "label", NULL) ?: "?";
        fputs("<li><b>", f);
        html_esc(f, name);
        fputs("</b>: ", f);
        html_esc(f, stats_json_str(r, "status", NULL) ?: "?");
        if (stats_json_str(r, "reason", NULL)) {
            fputs(" — ", f);
            html_esc(f, stats_json_str(r, "reason", NULL));
        }
        fputs("; crosscheck ", f);
        html_esc(f, stats_json_str(r, "crosscheck", "verdict") ?: "–");
        if (json_is_number(json_object_get(json_object_get(r, "crosscheck"), "client")))
            fprintf(f, " (client %.0f, server %.0f)", stats_json_num(r, "crosscheck", "client", NULL),
                    stats_json_num(r, "crosscheck", "server", NULL));
        if (stats_json_str(r, "crosscheck", "note")) {
            fputs(": ", f);
            html_esc(f, stats_json_str(r, "crosscheck", "note"));
        }
        if (stats_json_str(r, "identity", "latency_measures")) {
            fputs(". Latency measures: ", f);
            html_esc(f, stats_json_str(r, "identity", "latency_measures"));
        }
        fputs("<ul>", f);
        json_array_foreach(json_object_get(r, "warnings"), k, w)
        {
            fputs("<li class=\"warn\">", f);
            html_esc(f, json_string_value(w));
            fputs("</li>", f);
        }
        fputs("</ul></li>\n", f);
    }
    fputs("</ul>\n", f);
}

/* The page's head and styles (screen and print), up to the <h1> text. */
static void page_head(FILE *f, const char *name)
{
    fputs("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
          "<title>loadbench: ",
          f);
    html_esc(f, name);
    fputs("</title>\n<style>\n"
          "body{font:14px/1.45 system-ui,-apple-system,'DejaVu Sans',sans-serif;margin:24px auto;max-width:1320px;padding:0 16px;color:#222}\n"
          "h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}h3{font-size:15px;margin:16px 0 4px}\n"
          "table{border-collapse:collapse;font-size:12.5px;margin:8px 0;display:block;overflow-x:auto}\n"
          "th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;white-space:nowrap}thead th{background:#f4f4f4}\n"
          "tbody th{text-align:left}td.ok{color:#0a7a2f}td.bad{color:#b00020;font-weight:600}td.skip{color:#777}\n"
          "td.unstable{background:#fff4e0}.sw{display:inline-block;width:10px;height:10px;margin-right:6px}\n"
          "figure{display:inline-block;margin:4px;vertical-align:top}svg text{font-family:'DejaVu Sans',sans-serif;font-size:12px;fill:#333}\n"
          "svg .title{font-size:14px}svg .tick{font-size:11px}svg .axis{font-size:12px}svg .footer{font-size:9px;fill:#777}\n"
          ".warn{color:#8a5300}.note{color:#555;font-size:12.5px}.links a{margin-right:4px}pre{background:#f7f7f7;padding:8px;overflow:auto}\n"
          ".glyph{font-weight:700;color:#000}svg .glyph{font-size:14px;fill:#000}svg .value{font-size:10.5px;fill:#222}\n"
          "table.sortable thead th{cursor:pointer}th[aria-sort=ascending]::after{content:' ▲'}th[aria-sort=descending]::after{content:' ▼'}\n"
          "nav.toc ul{margin:4px 0;padding-left:20px;columns:2}nav.toc{font-size:13px}\n"
          "@media print{body{max-width:none;margin:0;padding:0;font-size:11px}nav.toc,.links,script{display:none}"
          "table{display:table;overflow:visible;font-size:9.5px}th,td{padding:1px 3px}h2{break-after:avoid}"
          "figure,tr{break-inside:avoid}a{color:inherit;text-decoration:none}table.sortable thead th{cursor:auto}"
          "th[aria-sort]::after{content:''}pre{white-space:pre-wrap}}\n"
          "</style></head>\n<body>\n<h1>loadbench: ",
          f);
}

/* The table of contents: every section the page has. */
/* "What each row ran with": summary.md's table, the same cells
 * (ranwith_cells), when the rows' settings differ. */
static void ran_with_table(FILE *f, json_t *run)
{
    json_t *r;
    size_t i;
    char cells[RANWITH_LEN];
    fputs("<h2 id=\"ran-with\">What each row ran with</h2>\n<p class=\"note\">The rows did not all run with the same "
          "settings: each tool entry may carry its own target (TLS, protocol, delay), request, check and keep-alive "
          "(docs/profiles.md), and lb-target was started with the row's.</p>\n<table class=\"ran-with\"><thead><tr>"
          "<th>Tool run</th>", f);
    for (i = 0; ranwith_heads[i]; i++)
        fprintf(f, "<th>%s</th>", ranwith_heads[i]);
    fputs("</tr></thead><tbody>\n", f);
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        fputs("<tr><th>", f);
        html_esc(f, stats_json_str(r, "dir", NULL) ?: stats_json_str(r, "label", NULL) ?: "?");
        fputs("</th>", f);
        ranwith_cells(run, r, cells, sizeof cells);
        for (char *c = cells, *end; c; c = end ? end + 3 : NULL) {
            if ((end = strstr(c, " | ")))
                *end = 0;
            fputs("<td>", f);
            html_esc(f, c);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void page_toc(FILE *f, int repeats, int sweep, int ran_with)
{
    fputs("<nav class=\"toc\"><b>Contents</b><ul><li><a href=\"#results\">Results</a></li>", f);
    if (ran_with)
        fputs("<li><a href=\"#ran-with\">What each row ran with</a></li>", f);
    if (repeats)
        fputs("<li><a href=\"#repeats\">Over repeats and levels</a></li>", f);
    fputs("<li><a href=\"#charts\">Charts</a></li>", f);
    if (sweep)
        fputs("<li><a href=\"#sweep\">Against the swept level</a></li>", f);
    fputs("<li><a href=\"#time\">Over time, per tool run</a></li><li><a href=\"#notes\">Warnings and reconciliation</a></li>"
          "<li><a href=\"#machine\">Machine</a></li><li><a href=\"#profile\">Profile</a></li></ul></nav>\n",
          f);
}

/* The inline script: what a headless check reads back, and sorting. */
static void page_script(FILE *f)
{
    /* A check a headless browser can read back from the DOM: rows and
     * charts per tool, and any script error. */
    fputs("<script>\n(function(){\n var errs=[];window.addEventListener('error',function(e){errs.push(String(e.message));});\n"
          " window.addEventListener('load',function(){\n  var tools={},out=[];\n"
          "  document.querySelectorAll('tr.tool-row').forEach(function(r){var t=r.dataset.tool;tools[t]=tools[t]||{rows:0,bars:0,ts:0};tools[t].rows++;});\n"
          "  document.querySelectorAll('figure.bars g.bar rect').forEach(function(b){var t=b.parentNode.dataset.tool;if(tools[t])tools[t].bars++;});\n"
          "  document.querySelectorAll('figure.ts-cpu').forEach(function(c){var t=c.dataset.tool;if(tools[t]&&c.querySelector('path[d^=\"M\"]'))tools[t].ts++;});\n"
          "  Object.keys(tools).sort().forEach(function(t){out.push(t+':rows='+tools[t].rows+',bars='+tools[t].bars+',ts='+tools[t].ts);});\n"
          "  document.body.setAttribute('data-check',out.join(' '));\n"
          "  document.body.setAttribute('data-errors',String(errs.length));\n });\n"
          /* Sorting: a click on a header sorts the body rows by that
           * column, numbers as numbers ("–" last), again to reverse. */
          " function key(c){var t=c?c.textContent.trim():'';var n=parseFloat(t);"
          "return /^[-+]?[0-9.]/.test(t)&&!isNaN(n)?n:t;}\n"
          " document.querySelectorAll('table.sortable').forEach(function(tb){\n"
          "  tb.querySelectorAll('thead th').forEach(function(th,ci){th.addEventListener('click',function(){\n"
          "   var asc=th.getAttribute('aria-sort')!=='ascending',body=tb.tBodies[0],rows=Array.prototype.slice.call(body.rows);\n"
          "   rows.sort(function(a,b){var x=key(a.cells[ci]),y=key(b.cells[ci]),xn=typeof x==='number',yn=typeof y==='number';\n"
          "    if(xn!==yn)return xn?-1:1;var r=xn?x-y:String(x).localeCompare(String(y));return asc?r:-r;});\n"
          "   rows.forEach(function(r){body.appendChild(r);});\n"
          "   tb.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('aria-sort');});\n"
          "   th.setAttribute('aria-sort',asc?'ascending':'descending');});});\n });\n"
          /* #sort=results:3 (or stats:4:desc) opens the page sorted: a
           * link to a sorted table, and how a headless test sorts. */
          " var m=/^#sort=(\\w+):(\\d+)(:desc)?$/.exec(location.hash);\n"
          " if(m){var th=document.querySelectorAll('table.'+m[1]+' thead th')[+m[2]];if(th){th.click();if(m[3])th.click();}}\n"
          "})();\n</script>\n</body></html>\n",
          f);
}

void html_report(FILE *f, const char *dir, json_t *run)
{
    struct stats_groups gs;
    stats_group_run(run, &gs);
    char footer[512];
    charts_footer(run, footer, sizeof footer);
    const char *name = stats_json_str(run, "profile", "name") ?: "run";
    page_head(f, name);
    html_esc(f, name);
    fputs("</h1>\n<p>", f);
    html_esc(f, stats_json_str(run, "profile", "description"));
    fputs("</p>\n<p class=\"note\">", f);
    html_esc(f, footer);
    fputs(". Run status: ", f);
    html_esc(f, stats_json_str(run, "status", NULL) ?: "?");
    fprintf(f, ". Target: lb-target, %.1f ms delay, %.0f B body, %.0f thread(s).%s</p>\n",
            stats_json_num(run, "profile", "target", "delay_ns") / 1e6,
            stats_json_num(run, "profile", "target", "body_bytes"),
            stats_json_num(run, "profile", "target", "threads"),
            ranwith_own_delay(run) ? " " RANWITH_OWN_DELAY_NOTE : "");

    int multi = gs.nlevels > 0;
    for (size_t i = 0; i < gs.n; i++)
        multi |= gs.g[i].nrows > 1;
    int ran_with = ranwith_differ(run);
    page_toc(f, multi, gs.nlevels > 0, ran_with);
    fputs("<h2 id=\"results\">Results</h2>\n", f);
    results_table(f, run);
    fputs("<p class=\"note\">", f);
    for (size_t k = 0; charts_caveats[k].key; k++) {
        fprintf(f, "<span class=\"glyph\">%s</span> ", charts_caveats[k].glyph);
        html_esc(f, charts_caveats[k].legend);
        fputs("; ", f);
    }
    fputs("the same marks in the charts. Click a column's header to sort by it.</p>\n", f);
    fputs("<p class=\"note\">RPS is counted by the server over the tool's whole load; RPS hold over the longest constant stage. "
          "CPU 100 % = one core. CPU-s/100k req = the tool's CPU seconds per 100,000 server-counted requests. "
          "Verdict: the tool's own count against the server's.</p>\n",
          f);
    pacing_html(f, run);
    if (ran_with)
        ran_with_table(f, run);
    if (multi) {
        fputs("<h2 id=\"repeats\">Over repeats and levels</h2>\n", f);
        stats_table(f, &gs);
    }
    fputs("<h2 id=\"charts\">Charts</h2>\n", f);
    hatch_defs(f, &gs);
    static const char *const bar_keys[] = {"rps", "p50", "p99", "rss", "cpu", "cpu100k", NULL};
    for (const char *const *k = bar_keys; *k; k++)
        bar_chart(f, run, &gs, stats_metric_by_key(*k), footer);
    if (gs.nlevels) {
        const char *model = stats_json_str(json_object_get(run, "profile"), "load", "model");
        const char *xunit = model && !strcmp(model, "open") ? "offered arrival rate (req/s)" : "concurrency (connections / VUs)";
        fputs("<h2 id=\"sweep\">Against the swept level</h2>\n", f);
        static const char *const sweep_keys[] = {"rps", "cpu", "rss", "p99", NULL};
        for (const char *const *k = sweep_keys; *k; k++)
            sweep_chart(f, &gs, stats_metric_by_key(*k), xunit, footer);
    }
    fputs("<h2 id=\"time\">Over time, per tool run</h2>\n<p class=\"note\">Sampled from /proc (or the tool's cgroup) every sampling "
          "interval; the server's per-second counts are aligned to the tool's first request (to within half a second).</p>\n",
          f);
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        if (!json_object_get(r, "footprint"))
            continue;
        long colour = stats_label_index(&gs, stats_json_str(r, "label", NULL));
        if (colour < 0)
            colour = 0;
        ts_chart(f, dir, r, charts_colour((int)colour), footer);
    }
    fputs("<h2 id=\"notes\">Warnings and reconciliation</h2>\n", f);
    notes(f, run);
    json_t *w;
    fputs("<h2 id=\"machine\">Machine</h2>\n<table class=\"machine\"><tbody>", f);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(run, "machine"), key, v)
    {
        if (!strcmp(key, "warnings"))
            continue;
        fputs("<tr><th>", f);
        html_esc(f, key);
        fputs("</th><td>", f);
        char *s = json_is_string(v) ? NULL : json_dumps(v, JSON_ENCODE_ANY);
        html_esc(f, s ? s : json_string_value(v));
        free(s);
        fputs("</td></tr>", f);
    }
    fputs("</tbody></table>\n<ul>", f);
    json_array_foreach(json_object_get(json_object_get(run, "machine"), "warnings"), i, w)
    {
        fputs("<li class=\"warn\">", f);
        html_esc(f, json_string_value(w));
        fputs("</li>", f);
    }
    fputs("</ul>\n<h2 id=\"profile\">Profile</h2>\n<p><a href=\"profile.yaml\">profile.yaml</a> as written; as resolved:</p><pre>", f);
    char *pj = json_dumps(json_object_get(run, "profile"), JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    html_esc(f, pj);
    free(pj);
    fputs("</pre>\n<p class=\"note\">Files: <a href=\"run.json\">run.json</a>, <a href=\"summary.md\">summary.md</a>, "
          "<a href=\"results.csv\">results.csv</a>, <a href=\"stats.csv\">stats.csv</a>, <a href=\"charts/\">charts/</a>; "
          "everything needed to repeat the run: <a href=\"disclosure.md\">disclosure.md</a>.</p>\n",
          f);
    page_script(f);
    stats_groups_free(&gs);
}

int html_write(const char *dir, json_t *run, char *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return util_err(err, "out of memory");
    html_report(f, dir, run);
    fclose(f);
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", dir);
    int rc = fsutil_write_text(path, buf, err);
    free(buf);
    return rc;
}
