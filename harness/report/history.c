#include "report/history.h"
#include "report/report.h"
#include "common/fsutil.h"
#include "report/stats.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* One run, with its groups. */
struct hrun {
    json_t *run;
    const char *path;
    double t_ms;            /* started_at_ms, NAN when absent */
    struct stats_groups gs;
};

/* One tool label at one level, across the runs: a line of the charts, a
 * column of the tables. */
struct hseries {
    const char *label;      /* borrowed from a run */
    double level;
    char name[160];
};

struct hist {
    struct hrun *r;
    size_t nr;
    struct hseries *s;
    size_t ns, nlabels;
    const char **labels;    /* distinct labels, first seen first: one colour each */
};

/* One cell: a series' metric in one run, and the version that made it. */
struct hcell {
    struct stats_summary s;
    const char *version;
};

static int by_time(const void *a, const void *b)
{
    const struct hrun *x = a, *y = b;
    if (isnan(x->t_ms) || isnan(y->t_ms))
        return 0;
    return x->t_ms < y->t_ms ? -1 : x->t_ms > y->t_ms;
}

static int label_index(const struct hist *h, const char *label)
{
    for (size_t i = 0; i < h->nlabels; i++)
        if (!strcmp(h->labels[i], label))
            return (int)i;
    return -1;
}

/* The runs in time order (a stable insertion sort: qsort is not stable,
 * and runs without a time keep their order), then the series of all. */
static void hist_init(struct hist *h, json_t *const *runs, const char *const *paths, size_t n)
{
    memset(h, 0, sizeof *h);
    h->r = util_xcalloc(n + 1, sizeof *h->r);
    for (size_t i = 0; i < n; i++) {
        struct hrun x = {.run = runs[i], .path = paths[i], .t_ms = stats_json_num(runs[i], "started_at_ms", NULL, NULL)};
        size_t k = h->nr;
        while (k > 0 && by_time(&h->r[k - 1], &x) > 0) {
            h->r[k] = h->r[k - 1];
            k--;
        }
        h->r[k] = x;
        h->nr++;
    }
    size_t cap = 1;
    for (size_t i = 0; i < h->nr; i++) {
        stats_group_run(h->r[i].run, &h->r[i].gs);
        cap += h->r[i].gs.n;
    }
    h->s = util_xcalloc(cap, sizeof *h->s);
    h->labels = util_xcalloc(cap, sizeof *h->labels);
    for (size_t i = 0; i < h->nr; i++)
        for (size_t g = 0; g < h->r[i].gs.n; g++) {
            const struct stats_group *gr = &h->r[i].gs.g[g];
            if (label_index(h, gr->label) < 0)
                h->labels[h->nlabels++] = gr->label;
            int seen = 0;
            for (size_t k = 0; k < h->ns && !seen; k++)
                seen = !strcmp(h->s[k].label, gr->label) &&
                       ((isnan(h->s[k].level) && isnan(gr->level)) || h->s[k].level == gr->level);
            if (seen)
                continue;
            struct hseries *s = &h->s[h->ns++];
            s->label = gr->label;
            s->level = gr->level;
            stats_group_name(gr, s->name, sizeof s->name);
        }
}

static void hist_free(struct hist *h)
{
    for (size_t i = 0; i < h->nr; i++)
        stats_groups_free(&h->r[i].gs);
    free(h->r);
    free(h->s);
    free(h->labels);
}

/* Series s's metric m in run r; s.n 0 when the run has no value. */
static void hist_cell(const struct hist *h, size_t r, size_t s, const struct stats_metric *m, struct hcell *c)
{
    memset(c, 0, sizeof *c);
    const struct stats_group *g = stats_find(&h->r[r].gs, h->s[s].label, h->s[s].level);
    if (!g)
        return;
    stats_group_metric(g, m, &c->s);
    for (size_t i = 0; i < g->nok && !c->version; i++)
        c->version = stats_json_str(g->rows[i], "identity", "version");
}

enum when_style { WHEN_TABLE, WHEN_TITLE, WHEN_CSV, WHEN_TIC };

static void run_time(const struct hrun *r, enum when_style st, char *buf, size_t len)
{
    if (isnan(r->t_ms)) {
        snprintf(buf, len, "?");
        return;
    }
    time_t t = (time_t)(r->t_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    switch (st) {
    case WHEN_TABLE: strftime(buf, len, "%Y-%m-%d %H:%M", &tm); break;
    case WHEN_TITLE: strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm); break;
    case WHEN_CSV: strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm); break;
    case WHEN_TIC: strftime(buf, len, "%m-%d %H:%M", &tm); break;
    }
}

/* "9931", "9931 [9800–9990]", then " · 0.1.0" (the tool's version). */
static void fmt_cell(const struct hcell *c, int prec, char *buf, size_t len)
{
    if (!c->s.n) {
        snprintf(buf, len, "–");
        return;
    }
    int k = c->s.n > 1 ? snprintf(buf, len, "%.*f [%.*f–%.*f]", prec, c->s.median, prec, c->s.min, prec, c->s.max)
                       : snprintf(buf, len, "%.*f", prec, c->s.median);
    if (c->version && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " · %s", c->version);
}

/* ---- history.md ---- */

static void md_runs(const struct hist *h, FILE *f)
{
    fprintf(f, "| # | Run (UTC) | Directory | Profile | loadbench |\n|--:|---|---|---|---|\n");
    for (size_t i = 0; i < h->nr; i++) {
        char when[64];
        run_time(&h->r[i], WHEN_TABLE, when, sizeof when);
        json_t *run = h->r[i].run;
        fprintf(f, "| %zu | %s | %s | %s | %s (git %s) |\n", i + 1, when, h->r[i].path,
                stats_json_str(run, "profile", "name") ?: "?", stats_json_str(run, "loadbench", "version") ?: "?",
                stats_json_str(run, "loadbench", "git") ?: "?");
    }
}

static void md_metric(const struct hist *h, const struct stats_metric *m, FILE *f)
{
    fprintf(f, "\n## %s (%s)\n\n| # | Run (UTC) |", m->title, m->unit);
    for (size_t s = 0; s < h->ns; s++)
        fprintf(f, " %s |", h->s[s].name);
    fprintf(f, "\n|--:|---|");
    for (size_t s = 0; s < h->ns; s++)
        fprintf(f, "--:|");
    fputc('\n', f);
    int prec = !strcmp(m->key, "rps") ? 0 : m->prec;
    for (size_t r = 0; r < h->nr; r++) {
        char when[64];
        run_time(&h->r[r], WHEN_TABLE, when, sizeof when);
        fprintf(f, "| %zu | %s |", r + 1, when);
        for (size_t s = 0; s < h->ns; s++) {
            struct hcell c;
            char buf[192];
            hist_cell(h, r, s, m, &c);
            fmt_cell(&c, prec, buf, sizeof buf);
            fprintf(f, " %s |", buf);
        }
        fputc('\n', f);
    }
}

static char *md_text(const struct hist *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char a[64] = "?", b[64] = "?";
    if (h->nr) {
        run_time(&h->r[0], WHEN_TITLE, a, sizeof a);
        run_time(&h->r[h->nr - 1], WHEN_TITLE, b, sizeof b);
    }
    fprintf(f, "# loadbench history: %zu runs, %s to %s\n\n", h->nr, a, b);
    fprintf(f, "Each tool's headline metrics, oldest run first: median over the run's ok repeats "
               "([min–max] with repeats), then the tool's version as the run recorded it. Charts: "
               "charts/history_<metric>.png and .svg.\n\n");
    md_runs(h, f);
    for (const struct stats_metric *m = stats_metrics; m->key; m++)
        md_metric(h, m, f);
    fclose(f);
    return buf;
}

/* ---- history.csv ---- */

static char *csv_text(const struct hist *h)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "run,run_time_utc,run_dir,profile,loadbench_version,label,level,tool,tool_version,metric,unit,n,median,min,max\n");
    for (size_t r = 0; r < h->nr; r++) {
        char when[64];
        run_time(&h->r[r], WHEN_CSV, when, sizeof when);
        for (size_t s = 0; s < h->ns; s++)
            for (const struct stats_metric *m = stats_metrics; m->key; m++) {
                struct hcell c;
                hist_cell(h, r, s, m, &c);
                if (!c.s.n)
                    continue;
                const struct stats_group *g = stats_find(&h->r[r].gs, h->s[s].label, h->s[s].level);
                fprintf(f, "%zu,%s,", r + 1, when);
                report_csv_str(f, h->r[r].path);
                fputc(',', f);
                report_csv_str(f, stats_json_str(h->r[r].run, "profile", "name"));
                fputc(',', f);
                report_csv_str(f, stats_json_str(h->r[r].run, "loadbench", "version"));
                fputc(',', f);
                report_csv_str(f, h->s[s].label);
                isnan(h->s[s].level) ? fprintf(f, ",,") : fprintf(f, ",%.10g,", h->s[s].level);
                report_csv_str(f, g->tool);
                fputc(',', f);
                report_csv_str(f, c.version);
                fprintf(f, ",%s,%s,%zu,%.6g,%.6g,%.6g\n", m->key, m->unit, c.s.n, c.s.median, c.s.min, c.s.max);
            }
    }
    fclose(f);
    return buf;
}

/* ---- charts ---- */

struct hchart {
    const struct hist *h;
    const char *cdir;
    char **scripts;
    int nscripts;
    char footer[512];
};

/* history_<metric>.dat: one block per series, a line per run with a value
 * (run index, median, min, max, n, value label, the version where it
 * changed or ""). lo/hi: the least positive and the largest value. */
static int chart_data(const struct hist *h, const struct stats_metric *m, FILE *f, double *lo, double *hi)
{
    int any = 0;
    fprintf(f, "# %s (%s) across runs, oldest first: one block per tool (run, median, min, max, n, value label, "
               "version where it changed, value label on the tool's last run only)\n",
            m->title, m->unit);
    for (size_t s = 0; s < h->ns; s++) {
        fprintf(f, "# %s\n", h->s[s].name);
        const char *prev = NULL;
        size_t last = 0;
        for (size_t r = 0; r < h->nr; r++) {
            struct hcell c;
            hist_cell(h, r, s, m, &c);
            if (c.s.n)
                last = r;
        }
        for (size_t r = 0; r < h->nr; r++) {
            struct hcell c;
            char vl[32];
            hist_cell(h, r, s, m, &c);
            if (!c.s.n)
                continue;
            charts_value_label(c.s.median, vl, sizeof vl);
            fprintf(f, "%zu %.6g %.6g %.6g %zu ", r + 1, c.s.median, c.s.min, c.s.max, c.s.n);
            charts_gp_str(f, vl);
            fputc(' ', f);
            int changed = c.version && (!prev || strcmp(prev, c.version));
            charts_gp_str(f, changed ? c.version : "");
            fputc(' ', f);
            charts_gp_str(f, r == last ? vl : "");
            fputc('\n', f);
            prev = c.version ? c.version : prev;
            if (c.s.min > 0 && c.s.min < *lo)
                *lo = c.s.min;
            if (c.s.max > *hi)
                *hi = c.s.max;
            any = 1;
        }
        fprintf(f, "\n\n");
    }
    return any;
}

/* The x tics: each run's date under its index. */
static void chart_xtics(const struct hist *h, FILE *f)
{
    fprintf(f, "  set xrange [0.5:%zu.5]\n  set xtics rotate by -30 left (", h->nr);
    for (size_t r = 0; r < h->nr; r++) {
        char when[64];
        run_time(&h->r[r], WHEN_TIC, when, sizeof when);
        fprintf(f, "%s", r ? ", " : "");
        charts_gp_str(f, when);
        fprintf(f, " %zu", r + 1);
    }
    fprintf(f, ")\n");
}

static void chart_script(const struct hchart *c, const struct stats_metric *m, const char *base, double lo, double hi, FILE *f)
{
    const struct hist *h = c->h;
    charts_gp_begin(f, base, 1000, 560, c->footer, m->title);
    char title[256];
    snprintf(title, sizeof title, "%s across %zu runs", m->title, h->nr);
    fprintf(f, "  set title ");
    charts_gp_str(f, title);
    fprintf(f, " font \",13\"\n");
    charts_value_axis(f, m->unit, lo, hi);
    chart_xtics(h, f);
    fprintf(f, "  set xlabel \"run (UTC date); points: median, whiskers min–max; under them: the tool's version where it "
               "changes\"\n  set bmargin 7\n  set key outside right top vertical Left reverse\n  plot ");
    for (size_t s = 0; s < h->ns; s++) {
        const char *col = charts_colour(label_index(h, h->s[s].label));
        fprintf(f, "%s\"%s.dat\" index %zu using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1.2 lc rgb \"%s\" title ", s ? ", \\\n       " : "",
                base, s, col);
        charts_gp_str(f, h->s[s].name);
    }
    /* Values on every point with up to three lines, else at each line's
     * last run; versions under the points where they change. */
    for (size_t s = 0; s < h->ns; s++) {
        const char *col = charts_colour(label_index(h, h->s[s].label));
        if (h->ns <= 3)
            fprintf(f, ", \\\n       \"%s.dat\" index %zu using 1:2:6 with labels center offset 0,1 font \",9\" tc rgb \"%s\" notitle",
                    base, s, col);
        fprintf(f, ", \\\n       \"%s.dat\" index %zu using 1:2:7 with labels center offset 0,-1.2 font \",8\" tc rgb \"%s\" notitle",
                base, s, col);
    }
    if (h->ns > 3)
        for (size_t s = 0; s < h->ns; s++)
            fprintf(f, ", \\\n       \"%s.dat\" index %zu using 1:2:8 with labels left offset 1,0 font \",9\" tc rgb \"%s\" notitle",
                    base, s, charts_colour(label_index(h, h->s[s].label)));
    fputc('\n', f);
    charts_gp_end(f);
}

static int put(const char *dir, const char *name, char *text, char *err)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = fsutil_write_text(path, text ? text : "", err);
    free(text);
    return rc;
}

static int chart(struct hchart *c, const struct stats_metric *m, char *err)
{
    char base[64], name[80];
    snprintf(base, sizeof base, "history_%s", m->key);
    char *buf = NULL;
    size_t len = 0;
    double lo = INFINITY, hi = 0;
    FILE *f = open_memstream(&buf, &len);
    int any = chart_data(c->h, m, f, &lo, &hi);
    fclose(f);
    snprintf(name, sizeof name, "%s.dat", base);
    if (put(c->cdir, name, buf, err))
        return -1;
    if (!any)
        return 0;
    buf = NULL;
    f = open_memstream(&buf, &len);
    chart_script(c, m, base, lo, hi, f);
    fclose(f);
    snprintf(name, sizeof name, "%s.gp", base);
    if (put(c->cdir, name, buf, err))
        return -1;
    c->scripts = util_xrealloc(c->scripts, (size_t)(c->nscripts + 1) * sizeof *c->scripts);
    c->scripts[c->nscripts++] = util_xstrdup(name);
    return 0;
}

static int charts(const struct hist *h, const char *out_dir, struct charts_out *co, char *err)
{
    char cdir[4200];
    snprintf(cdir, sizeof cdir, "%s/charts", out_dir);
    if (fsutil_mkdir_p(cdir, err))
        return -1;
    struct hchart c = {.h = h, .cdir = cdir};
    if (h->nr)
        charts_footer(h->r[h->nr - 1].run, c.footer, sizeof c.footer);
    int rc = 0;
    for (const struct stats_metric *m = stats_metrics; m->key && !rc; m++)
        rc = chart(&c, m, err);
    if (!rc)
        charts_render(NULL, cdir, c.scripts, c.nscripts, co);
    for (int i = 0; i < c.nscripts; i++)
        free(c.scripts[i]);
    free(c.scripts);
    return rc;
}

int history_write(json_t *const *runs, const char *const *paths, size_t n, const char *out_dir, struct history_out *out,
                  char *err)
{
    memset(out, 0, sizeof *out);
    if (fsutil_mkdir_p(out_dir, err))
        return -1;
    struct hist h;
    hist_init(&h, runs, paths, n);
    out->nruns = h.nr;
    out->nseries = h.ns;
    int rc = put(out_dir, "history.md", md_text(&h), err);
    if (!rc)
        rc = put(out_dir, "history.csv", csv_text(&h), err);
    if (!rc)
        rc = charts(&h, out_dir, &out->charts, err);
    hist_free(&h);
    return rc;
}
