#include "report/charts.h"
#include "common/guard.h"
#include "common/fsutil.h"
#include "report/stats.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Okabe-Ito first (readable by the colour-blind), then distinct extras. */
/* 16 distinct colours: the studies chart up to 13 tools, and a colour must
 * name one tool. */
static const char *const palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                                      "#8C564B", "#555555", "#9467BD", "#BCBD22", "#17BECF", "#7F0000",
                                      "#F0027F", "#F0E442", "#000080", "#66C2A5"};

const char *charts_colour(int i)
{
    size_t n = sizeof palette / sizeof *palette;
    return palette[(size_t)(i < 0 ? 0 : i) % n];
}

const char *charts_footer(json_t *run, char *buf, size_t len)
{
    char when[64] = "?";
    double ms = stats_json_num(run, "started_at_ms", NULL, NULL);
    if (!isnan(ms)) {
        time_t t = (time_t)(ms / 1000);
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    }
    snprintf(buf, len, "loadbench %s (%s, git %s) · %s, %.0f cores, %.0f MB, kernel %s · %s · profile %s",
             stats_json_str(run, "loadbench", "version") ?: "?", stats_json_str(run, "loadbench", "build") ?: "?",
             stats_json_str(run, "loadbench", "git") ?: "?", stats_json_str(run, "machine", "cpu_model") ?: "?",
             stats_json_num(run, "machine", "cores", NULL), stats_json_num(run, "machine", "memory_mb", NULL),
             stats_json_str(run, "machine", "kernel") ?: "?", when, stats_json_str(run, "profile", "name") ?: "?");
    return buf;
}

size_t charts_read_csv(const char *path, int col, double **t, double **v)
{
    *t = *v = NULL;
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, NULL);
    if (!f)
        return 0;
    char line[1024];
    size_t n = 0, cap = 0;
    int header = 1;
    while (fgets(line, sizeof line, f)) {
        if (header) {
            header = 0;
            continue;
        }
        double x = NAN, y = NAN;
        int c = 0;
        for (char *save = NULL, *tok = strtok_r(line, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save), c++) {
            if (c == 0)
                x = strtod(tok, NULL);
            if (c == col)
                y = strtod(tok, NULL);
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            *t = util_xrealloc(*t, cap * sizeof **t);
            *v = util_xrealloc(*v, cap * sizeof **v);
        }
        (*t)[n] = x;
        (*v)[n] = y;
        n++;
    }
    fclose(f);
    return n;
}

/* A gnuplot double-quoted string. */
static void gp_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Every script renders its figure twice, PNG then SVG, from one body so a
 * restyle is one edit. */
static void gp_begin(FILE *f, const char *base, int w, int h, const char *footer, const char *what)
{
    fprintf(f, "# loadbench chart: %s\n# Render: gnuplot %s.gp  (writes %s.png and %s.svg; edit freely)\n", what, base,
            base, base);
    /* loadbench renders into NAME.png.tmp.PID (then checks and renames);
     * by hand the script writes NAME.png. */
    fprintf(f, "if (!exists(\"lb_out_suffix\")) lb_out_suffix = \"\"\n");
    fprintf(f, "set encoding utf8\nfooter = ");
    gp_str(f, footer);
    fprintf(f, "\ndo for [fmt in \"png svg\"] {\n"
               "  if (fmt eq \"png\") {\n"
               "    set terminal pngcairo size %d,%d font \"DejaVu Sans,11\" noenhanced background \"white\"\n"
               "  } else {\n"
               "    set terminal svg size %d,%d font \"DejaVu Sans,11\" noenhanced background \"white\"\n"
               "  }\n"
               "  set output \"%s.\" . fmt . lb_out_suffix\n"
               "  reset\n"
               "  set datafile separator whitespace\n"
               "  set border 3 lc rgb \"#444444\"\n"
               "  set tics nomirror\n"
               "  set grid ytics lc rgb \"#dddddd\"\n"
               "  set label 99 footer at screen 0.01, screen 0.015 font \",8\" tc rgb \"#666666\"\n",
            w, h, w, h, base);
}

static void gp_end(FILE *f)
{
    fprintf(f, "  set output\n}\n");
}

struct cw {
    const char *dir;    /* run dir */
    char cdir[4096];    /* charts dir */
    json_t *run;
    struct stats_groups gs;
    char footer[512];
    char **scripts;
    int nscripts;
};

static void add_script(struct cw *c, const char *name)
{
    c->scripts = util_xrealloc(c->scripts, (size_t)(c->nscripts + 1) * sizeof *c->scripts);
    c->scripts[c->nscripts++] = util_xstrdup(name);
}

/* Write buf (taken: freed here) as base.ext in the charts dir, atomically;
 * a gnuplot script (ext "gp") is also listed to be run. */
static int put_file(struct cw *c, const char *base, const char *ext, char *buf, char *err)
{
    char name[320], path[4600];
    snprintf(name, sizeof name, "%s.%s", base, ext);
    snprintf(path, sizeof path, "%s/%s", c->cdir, name);
    int rc = fsutil_write_text(path, buf ? buf : "", err);
    free(buf);
    if (!rc && !strcmp(ext, "gp"))
        add_script(c, name);
    return rc;
}

static int repeats_max(const struct stats_groups *gs)
{
    size_t m = 0;
    for (size_t i = 0; i < gs->n; i++)
        if (gs->g[i].nok > m)
            m = gs->g[i].nok;
    return (int)m;
}

static void colour_int(FILE *f, int slot)
{
    fprintf(f, "%ld", strtol(charts_colour(slot) + 1, NULL, 16));
}

/* Characters (not bytes) in UTF-8 text. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

const struct charts_caveat charts_caveats[] = {
    {"target", 8, "△", "target-bound: the server's ceiling", NULL},
    {"below-floor", 12, "◇", "latency below the server's floor", "p50 p99"},
    {"not-steady", 10, "▽", "hold not steady: the rate moved through it", "rps"},
    {"disturbed", 4, "□", "disturbed: the machine was busy outside loadbench", NULL},
    {NULL, 0, NULL, NULL, NULL},
};
#define NCAVEATS (sizeof charts_caveats / sizeof *charts_caveats - 1)

static int caveat_has(json_t *row, size_t k)
{
    if (!strcmp(charts_caveats[k].key, "target"))
        return !strcmp(stats_json_str(row, "limits", "bottleneck") ?: "", "target");
    if (!strcmp(charts_caveats[k].key, "below-floor"))
        return json_is_true(json_object_get(json_object_get(row, "latency_check"), "below_floor"));
    if (!strcmp(charts_caveats[k].key, "not-steady"))   /* a flag is set for "not steady" and "not shown steady" */
        return json_is_string(json_object_get(json_object_get(json_object_get(row, "windows"), "hold_steady"), "flag"));
    if (!strcmp(charts_caveats[k].key, "disturbed"))
        return json_is_true(json_object_get(json_object_get(row, "quiet"), "disturbed"));
    return 0;
}

static int caveat_applies(size_t k, const struct stats_metric *m)
{
    const char *l = charts_caveats[k].metrics;
    if (!l || !m)
        return 1;
    size_t n = strlen(m->key);
    for (const char *p = strstr(l, m->key); p; p = strstr(p + 1, m->key))
        if ((p == l || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return 1;
    return 0;
}

unsigned charts_caveat_mask(json_t **rows, size_t n, const struct stats_metric *m)
{
    unsigned mask = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < NCAVEATS; k++)
            if (caveat_applies(k, m) && caveat_has(rows[i], k))
                mask |= 1u << k;
    return mask;
}

/* "target,below-floor", or "-" when none. */
static void caveat_keys(unsigned mask, char *buf, size_t len)
{
    buf[0] = 0;
    for (size_t k = 0; k < NCAVEATS; k++)
        if (mask & 1u << k)
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", charts_caveats[k].key);
    if (!buf[0])
        snprintf(buf, len, "-");
}

/* One legend line per caveat used, with its marker. */
static void caveat_legend(FILE *f, unsigned used)
{
    for (size_t k = 0; k < NCAVEATS; k++)
        if (used & 1u << k)
            fprintf(f, ", \\\n       keyentry with points pt %d ps 2 lw 1.5 lc rgb \"#000000\" title \"%s\"", charts_caveats[k].pt,
                    charts_caveats[k].legend);
}

/* The caveat markers over the points of a plotted data set: x from xc
 * (a column, "1", or an expression, "($1-0.2)"), y in column yc, the caveat keys in column kc. */
static void caveat_points(FILE *f, const char *data, const char *sel, const char *xc, int yc, int kc, unsigned used)
{
    for (size_t k = 0; k < NCAVEATS; k++)
        if (used & 1u << k)
            fprintf(f, ", \\\n       \"%s\"%s using %s:(strstrt(strcol(%d), \"%s\") ? $%d : NaN) with points pt %d ps 2.4 lw 1.5 lc rgb \"#000000\" notitle",
                    data, sel, xc, kc, charts_caveats[k].key, yc, charts_caveats[k].pt);
}

const char *charts_value_label(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (a >= 100)
        snprintf(buf, len, "%.0f", v);
    else if (a >= 10)
        snprintf(buf, len, "%.1f", v);
    else if (a >= 1)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.2g", v);
    return buf;
}

int charts_footprint_metric(const struct stats_metric *m)
{
    return !strcmp(m->key, "rss") || !strcmp(m->key, "cpu") || !strcmp(m->key, "cpu100k");
}

void charts_bar_fill(json_t *run, const struct stats_group *g, const struct stats_metric *m, struct charts_bar *b)
{
    stats_group_metric(g, m, &b->s);
    b->status = "ok";
    b->caveats = charts_caveat_mask(g->rows, g->nok, m);
    if (b->s.n || g->nok)
        return;
    (void)run; /* the group holds its rows: one pass over them, not over the run */
    json_t **rows = util_xcalloc(g->nrows + 1, sizeof *rows);
    double *v = util_xcalloc(g->nrows + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < g->nrows; i++) {
        json_t *r = g->all[i];
        b->status = stats_json_str(r, "status", NULL) ?: "?";
        if (charts_footprint_metric(m) && !isnan(stats_value(r, m))) {
            rows[n] = r;
            v[n++] = stats_value(r, m);
        }
    }
    if (n) {
        b->status = stats_json_str(rows[0], "status", NULL) ?: "?";
        stats_summarize(v, n, &b->s);
        b->caveats = charts_caveat_mask(rows, n, m);
    }
    free(rows);
    free(v);
}

/* The y axis of values lo..hi (lo the least positive one): logarithmic when
 * they span more than 30x, which the axis label says; from zero otherwise. */
static int value_axis(FILE *f, const char *unit, double lo, double hi)
{
    int logy = lo > 0 && hi / lo > 30;
    fprintf(f, "  set ylabel ");
    char label[128];
    snprintf(label, sizeof label, "%s%s", unit, logy ? " (log scale)" : "");
    gp_str(f, label);
    if (logy)
        /* At least a decade below the least value: a dot or bar at the
         * floor would be a sliver. */
        fprintf(f, "\n  set logscale y\n  set yrange [%g:%g]\n", pow(10, floor(log10(lo)) - 1), pow(10, ceil(log10(hi * 2))));
    else
        fprintf(f, "\n  set yrange [0:*]\n");
    return logy;
}

/* The bottom margin (character heights) that holds tick labels of up to
 * n characters, slanted (sin 25° ≈ 0.42 of a character width each, about
 * 0.6 of a height) or steep (sin 60° ≈ 0.87). */
static int bottom_margin(size_t n, int steep)
{
    double m = 2.5 + (double)n * (steep ? 0.45 : 0.2);
    return m < 7 ? 7 : (int)ceil(m);
}

/* Bars: one per label (and level), median with min-max whiskers, the
 * value over each bar. */
/* What a chart's data hold, for the script that draws them. */
struct bars_seen {
    int any, failed;        /* a bar with a value; one from rows not ok */
    size_t longest;         /* the longest bar name, characters */
    unsigned used;          /* caveats carried */
    double lo, hi;          /* least positive and largest value */
};

/* One line of bars_<metric>.dat: group i's bar b at x position pos, its
 * name saying why a value is missing or not from an ok row. */
static void bar_line(struct cw *c, size_t i, size_t pos, const struct charts_bar *b, FILE *f, struct bars_seen *seen)
{
    const struct stats_group *g = &c->gs.g[i];
    char gname[160], keys[128], vl[32] = "";
    stats_group_name(g, gname, sizeof gname);
    int ok = !strcmp(b->status, "ok");
    /* A tool without a value keeps its slot, and says why. */
    if (b->s.n && !ok)
        snprintf(gname + strlen(gname), sizeof gname - strlen(gname), " (%s)", b->status);
    else if (!b->s.n)
        snprintf(gname + strlen(gname), sizeof gname - strlen(gname), " – no result%s%s%s", ok ? "" : " (", ok ? "" : b->status,
                 ok ? "" : ")");
    caveat_keys(b->caveats, keys, sizeof keys);
    if (utf8_chars(gname) > seen->longest)
        seen->longest = utf8_chars(gname);
    fprintf(f, "%zu ", pos);
    gp_str(f, gname);
    if (b->s.n) {
        fprintf(f, " %.6g %.6g %.6g %zu ", b->s.median, b->s.min, b->s.max, b->s.n);
        charts_value_label(b->s.median, vl, sizeof vl);
        if (b->s.min > 0 && b->s.min < seen->lo)
            seen->lo = b->s.min;
        if (b->s.max > seen->hi)
            seen->hi = b->s.max;
    } else {
        fprintf(f, " NaN NaN NaN 0 ");
    }
    colour_int(f, g->colour);
    fprintf(f, " %s %s ", b->status, keys);
    gp_str(f, vl);
    fputc('\n', f);
    seen->any |= b->s.n > 0;
    seen->failed |= b->s.n && !ok;
    seen->used |= b->caveats;
}

static int bar_cmp(const void *x, const void *y, void *arg)
{
    const struct charts_bar *b = arg;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    double u = b[i].s.n ? b[i].s.median : -INFINITY, v = b[j].s.n ? b[j].s.median : -INFINITY;
    return u > v ? -1 : u < v ? 1 : i < j ? -1 : i > j;
}

int charts_bar_order(const struct charts_bar *b, size_t n, int reps, size_t *ord)
{
    for (size_t i = 0; i < n; i++)
        ord[i] = i;
    if (reps < 2)
        return 0;
    qsort_r(ord, n, sizeof *ord, bar_cmp, (void *)b);
    return 1;
}

/* Metric m's bar of every group, and into *ord the order to draw them in
 * (*sorted: by value). The caller frees both. */
static struct charts_bar *bars_ordered(struct cw *c, const struct stats_metric *m, size_t **ord, int *sorted)
{
    size_t n = c->gs.n;
    struct charts_bar *b = util_xcalloc(n + 1, sizeof *b);
    *ord = util_xcalloc(n + 1, sizeof **ord);
    for (size_t i = 0; i < n; i++)
        charts_bar_fill(c->run, &c->gs.g[i], m, &b[i]);
    *sorted = charts_bar_order(b, n, repeats_max(&c->gs), *ord);
    return b;
}

/* The chart's title: what the bars are, over how many runs, in what order. */
static void bars_title(FILE *f, const struct stats_metric *m, int reps, int sorted)
{
    char title[256];
    if (reps > 1)
        snprintf(title, sizeof title, "%s: median of up to %d runs, whiskers min–max%s", m->title, reps,
                 sorted ? ", largest first" : "");
    else
        snprintf(title, sizeof title, "%s, one run per tool (profile order)", m->title);
    fprintf(f, "  set title ");
    gp_str(f, title);
    fprintf(f, " font \",13\"\n");
}

/* The width of a chart of n named slots: 1000 px, and 16 px more for each
 * slot past 48, so that a run of many rows (study 6 has 164) keeps each
 * its own slot, label and value instead of a smear of overlapping text;
 * and its height, h px, 200 more past 48, for the plot above the slanted
 * names. */
static int slots_width(size_t n)
{
    return n > 48 ? 1000 + (int)(n - 48) * 16 : 1000;
}

static int slots_height(size_t n, int h)
{
    return n > 48 ? h + 200 : h;
}

/* The x axis of n named slots and the key: the axis names each bar, so
 * the key holds only the markers (failed rows, caveats, whiskers). */
static void slots_axis(FILE *f, size_t n, size_t longest, int steep)
{
    int many = steep && n > 12;
    fprintf(f, "  set xrange [-0.6:%zu.6]\n  set xtics rotate by %d left\n  set bmargin %d\n"
               "  set key outside top center horizontal Left reverse noautotitle\n",
            n ? n - 1 : 0, many ? -60 : -25, bottom_margin(longest, many));
}

/* The script drawing bars_<metric>.dat (base), into f: bars from zero on
 * a linear axis; dots on a log axis, where a bar's length means nothing. */
static void bars_script(struct cw *c, const struct stats_metric *m, const char *base, const struct bars_seen *seen, int sorted, FILE *f)
{
    int reps = repeats_max(&c->gs), many = c->gs.n > 12;
    gp_begin(f, base, slots_width(c->gs.n), slots_height(c->gs.n, 560), c->footer, m->title);
    int logy = value_axis(f, m->unit, seen->lo, seen->hi);
    bars_title(f, m, reps, sorted);
    slots_axis(f, c->gs.n, seen->longest, 1);
    /* Headroom on a linear axis for the values over the tallest bars (upright
     * ones when many), which otherwise run into the title. */
    if (!logy)
        fprintf(f, "  set offsets 0, 0, graph %s, 0\n", many ? "0.22" : "0.1");
    fprintf(f, "  set style fill solid 0.85 border lc rgb \"#333333\"\n  set boxwidth 0.6\n  plot ");
    /* Whiskers under a dot, over a bar. */
    if (reps > 1 && logy)
        fprintf(f, "\"%s.dat\" using 1:3:4:5 with yerrorbars lc rgb \"#222222\" pt 0 ps 0 lw 1.5 title \"min–max\", \\\n       ", base);
    if (logy)
        fprintf(f, "\"%s.dat\" using 1:(strcol(8) eq \"ok\" ? $3 : NaN):7:xtic(2) with points pt 7 ps 2 lc rgb variable notitle", base);
    else
        fprintf(f, "\"%s.dat\" using 1:(strcol(8) eq \"ok\" ? $3 : NaN):7:xtic(2) with boxes lc rgb variable notitle", base);
    /* Rows that did not end ok: hatched bars, open dots, in their colour. */
    if (seen->failed && logy)
        fprintf(f, ", \\\n       \"%s.dat\" using 1:(strcol(8) ne \"ok\" ? $3 : NaN):7 with points pt 6 ps 2 lw 2 lc rgb variable notitle", base);
    else if (seen->failed)
        fprintf(f, ", \\\n       \"%s.dat\" using 1:(strcol(8) ne \"ok\" ? $3 : NaN):7 with boxes fs pattern 4 border lc rgb \"#333333\" lc rgb variable notitle",
                base);
    if (reps > 1 && !logy)
        fprintf(f, ", \\\n       \"%s.dat\" using 1:3:4:5 with yerrorbars lc rgb \"#222222\" pt 0 ps 0 lw 1.5 title \"min–max\"", base);
    char data[80];
    snprintf(data, sizeof data, "%s.dat", base);
    caveat_points(f, data, "", "1", logy ? 3 : 5, 9, seen->used);
    /* Many bars: values upright, so neighbours do not run into each other. */
    fprintf(f, ", \\\n       \"%s.dat\" using 1:%s:10 with labels %s offset 0,%s font \",9\" tc rgb \"#222222\" notitle", base,
            logy ? "3" : "5", many ? "left rotate by 90" : "center", seen->used ? "1.4" : many ? "0.4" : "1");
    if (seen->failed && logy)
        fprintf(f, ", \\\n       keyentry with points pt 6 ps 1.5 lw 2 lc rgb \"#888888\" title \"open dot: failed or timed out\"");
    else if (seen->failed)
        fprintf(f, ", \\\n       keyentry with boxes fs pattern 4 border lc rgb \"#333333\" lc rgb \"#888888\" title \"hatched: failed or timed out\"");
    caveat_legend(f, seen->used);
    fputc('\n', f);
    gp_end(f);
}

/* ---- p99 against the truth: tool, server, on schedule --------------------- */

static json_t *co_of(json_t *r)
{
    return json_object_get(json_object_get(r, "latency_check"), "coordinated_omission");
}

/* The server's p99 of the requests the tool's run sent (the truth table's
 * p99 row, else the latency check's); NaN when neither. */
static double row_server_p99(json_t *r)
{
    json_t *lc = json_object_get(r, "latency_check"), *q;
    size_t i;
    json_array_foreach(json_object_get(json_object_get(lc, "percentiles"), "rows"), i, q)
        if (!strcmp(json_string_value(json_object_get(q, "q")) ?: "", "p99") && json_is_number(json_object_get(q, "server_ms")))
            return json_number_value(json_object_get(q, "server_ms"));
    json_t *v = json_object_get(lc, "server_p99_ms");
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* 1 when a row has the server's p99 for the same requests. */
static int truth_present(struct cw *c)
{
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(c->run, "runs"), i, r)
        if (!isnan(row_server_p99(r)))
            return 1;
    return 0;
}

/* The on-schedule reference of the run: the label of the row the
 * coordinated-omission verdicts quote (lb-gen open), into label; else ""
 * and 1 when rows give the open schedule's p99 floor instead; else -1. */
static int truth_reference(struct cw *c, char *label, size_t len)
{
    json_t *r;
    size_t i;
    int floor = 0;
    label[0] = 0;
    json_array_foreach(json_object_get(c->run, "runs"), i, r)
    {
        const char *l = json_string_value(json_object_get(json_object_get(co_of(r), "reference"), "label"));
        if (l) {
            snprintf(label, len, "%s", l);
            return 0;
        }
        floor |= json_is_number(json_object_get(co_of(r), "open_p99_floor_ms"));
    }
    return floor ? 1 : -1;
}

/* A row's on-schedule p99: the reference its verdict quotes, the
 * reference row's own p99, or the open schedule's floor (kind 1). */
static double row_reference(json_t *r, const char *ref, int kind)
{
    json_t *co = co_of(r);
    json_t *v = json_object_get(json_object_get(co, "reference"), "p99_ms");
    if (json_is_number(v))
        return json_number_value(v);
    if (kind == 0 && !strcmp(json_string_value(json_object_get(r, "label")) ?: "", ref))
        return stats_value(r, stats_metric_by_key("p99"));
    v = json_object_get(co, "open_p99_floor_ms");
    return kind == 1 && json_is_number(v) ? json_number_value(v) : NAN;
}

/* A row's coordinated-omission verdict in a few words, for its tick. */
static const char *co_short(json_t *r)
{
    json_t *co = co_of(r);
    if (!co)
        return NULL;
    if (!json_is_true(json_object_get(co, "judged")))
        return "not judged";
    const char *s = json_string_value(json_object_get(co, "sending")) ?: "?";
    if (!strcmp(s, "kept"))
        return "kept its schedule";
    if (!json_is_number(json_object_get(co, "tool_p99_ms")))
        return !strcmp(s, "stopped") ? "stopped; no p99" : "slowed; no p99";
    if (!json_is_true(json_object_get(co, "p99_includes_stalls")))
        return !strcmp(s, "stopped") ? "stopped: hid the stalls" : "slowed: hid the stalls";
    return !strcmp(s, "stopped") ? "stopped; p99 has the wait" : "slowed; p99 has the wait";
}

/* Summarize f(row) over group g's ok rows into s. */
static void group_summary(const struct stats_group *g, double (*fn)(json_t *, const char *, int), const char *ref, int kind,
                          struct stats_summary *s)
{
    double *v = util_xcalloc(g->nok + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < g->nok; i++) {
        double x = fn(g->rows[i], ref, kind);
        if (!isnan(x))
            v[n++] = x;
    }
    memset(s, 0, sizeof *s);
    if (n)
        stats_summarize(v, n, s);
    free(v);
}

static double server_fn(json_t *r, const char *ref, int kind)
{
    (void)ref;
    (void)kind;
    return row_server_p99(r);
}

static void seen_range(struct bars_seen *seen, const struct stats_summary *s)
{
    if (!s->n)
        return;
    if (s->min > 0 && s->min < seen->lo)
        seen->lo = s->min;
    if (s->max > seen->hi)
        seen->hi = s->max;
}

/* One line of bars_p99.dat with truth: x, name (with the verdict), tool
 * median min max, server median min max, reference, colour, caveats,
 * value label. */
static void truth_line(struct cw *c, size_t i, size_t pos, const struct charts_bar *b, const char *ref, int kind, FILE *f,
                       struct bars_seen *seen)
{
    const struct stats_group *g = &c->gs.g[i];
    struct stats_summary srv, rs;
    group_summary(g, server_fn, ref, kind, &srv);
    group_summary(g, row_reference, ref, kind, &rs);
    /* A row not judged quotes no reference: the reference row's p99 at
     * the same level is still the on-schedule p99 of that load. */
    const struct stats_group *rg = kind == 0 && !rs.n ? stats_find(&c->gs, ref, g->level) : NULL;
    if (rg)
        stats_group_metric(rg, stats_metric_by_key("p99"), &rs);
    char gname[240], keys[128], vl[32] = "";
    stats_group_name(g, gname, sizeof gname);
    const char *v = g->nok ? co_short(g->rows[0]) : NULL;
    int ok = !strcmp(b->status, "ok");
    if (!g->nok)
        snprintf(gname + strlen(gname), sizeof gname - strlen(gname), " – no result%s%s%s", ok ? "" : " (",
                 ok ? "" : b->status, ok ? "" : ")");
    else if (v)
        snprintf(gname + strlen(gname), sizeof gname - strlen(gname), ": %s", v);
    if (utf8_chars(gname) > seen->longest)
        seen->longest = utf8_chars(gname);
    caveat_keys(b->caveats, keys, sizeof keys);
    fprintf(f, "%zu ", pos);
    gp_str(f, gname);
    if (b->s.n)
        fprintf(f, " %.6g %.6g %.6g", b->s.median, b->s.min, b->s.max);
    else
        fprintf(f, " NaN NaN NaN");
    if (srv.n)
        fprintf(f, " %.6g %.6g %.6g", srv.median, srv.min, srv.max);
    else
        fprintf(f, " NaN NaN NaN");
    fprintf(f, rs.n ? " %.6g " : " NaN ", rs.median);
    colour_int(f, g->colour);
    if (b->s.n)
        charts_value_label(b->s.median, vl, sizeof vl);
    fprintf(f, " %s ", keys);
    gp_str(f, vl);
    fputc('\n', f);
    seen_range(seen, &b->s);
    seen_range(seen, &srv);
    seen_range(seen, &rs);
    seen->any |= b->s.n > 0 || srv.n > 0;
    seen->used |= b->caveats;
}

/* The script drawing bars_p99.dat with truth: three dots a tool. */
static void truth_script(struct cw *c, const struct stats_metric *m, const char *base, const struct bars_seen *seen,
                         const char *ref, int kind, int sorted, FILE *f)
{
    int reps = repeats_max(&c->gs);
    gp_begin(f, base, slots_width(c->gs.n), slots_height(c->gs.n, 620), c->footer, "p99 against the server's and the on-schedule p99");
    char title[320];
    snprintf(title, sizeof title, "p99: %s%s", kind < 0 ? "the tool's and the server's for the same requests (no on-schedule reference)"
                                                       : "the tool's, the server's for the same requests, and on schedule",
             reps > 1 ? (sorted ? " · median, whiskers min–max, largest first" : " · median, whiskers min–max")
                      : " · one run per tool");
    fprintf(f, "  set title ");
    gp_str(f, title);
    fprintf(f, " font \",12\"\n");
    value_axis(f, m->unit, seen->lo, seen->hi);
    slots_axis(f, c->gs.n, seen->longest, c->gs.n > 16);
    fprintf(f, "  plot ");
    if (reps > 1)
        fprintf(f, "\"%s.dat\" using ($1-0.2):3:4:5 with yerrorbars lc rgb \"#222222\" pt 0 ps 0 lw 1.2 title \"min–max\", \\\n"
                   "       \"%s.dat\" using 1:6:7:8 with yerrorbars lc rgb \"#222222\" pt 0 ps 0 lw 1.2 notitle, \\\n       ",
                base, base);
    fprintf(f, "\"%s.dat\" using ($1-0.2):3:10:xtic(2) with points pt 7 ps 2 lc rgb variable notitle, \\\n"
               "       keyentry with points pt 7 ps 2 lc rgb \"#777777\" title \"the tool's own p99 (dot in its colour)\"", base);
    fprintf(f, ", \\\n       \"%s.dat\" using 1:6 with points pt 5 ps 1.6 lc rgb \"#444444\" title \"the server's p99 for the same requests\"", base);
    if (kind >= 0) {
        char t[200];
        if (kind == 0)
            snprintf(t, sizeof t, "a client keeping its schedule (%s, open model) at the same rate", ref);
        else
            snprintf(t, sizeof t, "the least p99 an open schedule has through the stalls");
        fprintf(f, ", \\\n       \"%s.dat\" using ($1+0.2):9 with points pt 2 ps 2 lw 2.5 lc rgb \"#C00000\" title ", base);
        gp_str(f, t);
    }
    char data[80];
    snprintf(data, sizeof data, "%s.dat", base);
    fprintf(f, ", \\\n       \"%s.dat\" using ($1-0.2):3:12 with labels right offset -1.2,0 font \",8\" tc rgb \"#222222\" notitle", base);
    caveat_points(f, data, "", "($1-0.2)", 3, 11, seen->used);
    caveat_legend(f, seen->used);
    fputc('\n', f);
    gp_end(f);
}

/* Write bars_<metric>.dat and, when a bar has a value, its script: for
 * p99 with the truth (truth), three dots a tool. */
static int bars_write(struct cw *c, const struct stats_metric *m, const char *base, int truth, char *err)
{
    size_t n = c->gs.n, *ord;
    char ref[128] = "";
    int sorted, kind = truth ? truth_reference(c, ref, sizeof ref) : -1;
    struct charts_bar *b = bars_ordered(c, m, &ord, &sorted);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (truth)
        fprintf(f, "# p99 latency (ms), the tool's against the truth: x position, name: coordinated-omission verdict, "
                   "tool median min max, server (same requests) median min max, on-schedule reference (%s), colour, caveats, value label\n",
                kind == 0 ? ref : kind == 1 ? "open-schedule floor" : "none");
    else
        fprintf(f, "# %s (%s): x position, name, median, min, max, runs, colour (0xRRGGBB as an integer), status of the rows drawn, caveats, value label\n",
                m->title, m->unit);
    struct bars_seen seen = {.lo = INFINITY};
    for (size_t k = 0; k < n; k++)
        if (truth)
            truth_line(c, ord[k], k, &b[ord[k]], ref, kind, f, &seen);
        else
            bar_line(c, ord[k], k, &b[ord[k]], f, &seen);
    fclose(f);
    int rc = put_file(c, base, "dat", buf, err);
    if (!rc && seen.any) {
        buf = NULL;
        f = open_memstream(&buf, &len);
        if (truth)
            truth_script(c, m, base, &seen, ref, kind, sorted, f);
        else
            bars_script(c, m, base, &seen, sorted, f);
        fclose(f);
        rc = put_file(c, base, "gp", buf, err);
    }
    free(b);
    free(ord);
    return rc;
}

static int bars(struct cw *c, const struct stats_metric *m, char *err)
{
    char base[64];
    snprintf(base, sizeof base, "bars_%s", m->key);
    /* p99 with latency truth: the tool's, the server's and the on-schedule
     * p99 of each tool, and its coordinated-omission verdict. */
    return bars_write(c, m, base, !strcmp(m->key, "p99") && truth_present(c), err);
}

/* The highest level at which label li has a group with ok rows. */
static double hi_level(struct cw *c, size_t li)
{
    double v = NAN;
    for (size_t vi = 0; vi < c->gs.nlevels; vi++) {
        const struct stats_group *g = stats_find(&c->gs, c->gs.labels[li], c->gs.levels[vi]);
        if (g && g->nok)
            v = c->gs.levels[vi];
    }
    return v;
}

/* sweep_<metric>.dat into f: one block per label, a line per level with
 * a value. seen gets the caveats carried and the values' range. */
static void sweep_data(struct cw *c, const struct stats_metric *m, FILE *f, struct bars_seen *seen)
{
    fprintf(f, "# %s (%s) against the swept level: one block per tool label (level, median, min, max, runs, caveats, value label)\n",
            m->title, m->unit);
    for (size_t li = 0; li < c->gs.nlabels; li++) {
        fprintf(f, "# %s\n", c->gs.labels[li]);
        int lines = 0;
        for (size_t vi = 0; vi < c->gs.nlevels; vi++) {
            const struct stats_group *g = stats_find(&c->gs, c->gs.labels[li], c->gs.levels[vi]);
            struct stats_summary s = {0};
            if (g)
                stats_group_metric(g, m, &s);
            if (!s.n)
                continue;
            unsigned mask = charts_caveat_mask(g->rows, g->nok, m);
            char keys[128], vl[32];
            caveat_keys(mask, keys, sizeof keys);
            charts_value_label(s.median, vl, sizeof vl);
            fprintf(f, "%.10g %.6g %.6g %.6g %zu %s ", c->gs.levels[vi], s.median, s.min, s.max, s.n, keys);
            gp_str(f, vl);
            fputc('\n', f);
            lines++;
            seen->used |= mask;
            if (s.min > 0 && s.min < seen->lo)
                seen->lo = s.min;
            if (s.max > seen->hi)
                seen->hi = s.max;
        }
        /* gnuplot counts an empty block as no block: the next label's data
         * would be drawn under this label's index. A line with no value
         * keeps the block (a skipped tool). */
        if (!lines)
            fprintf(f, "%.10g NaN NaN NaN 0 - \"\"\n", c->gs.levels[0]);
        fprintf(f, "\n\n");
    }
}

/* Sweep curves: one line per label against the level. */
static int sweep(struct cw *c, const struct stats_metric *m, char *err)
{
    char base[64];
    snprintf(base, sizeof base, "sweep_%s", m->key);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct bars_seen seen = {.lo = INFINITY};
    sweep_data(c, m, f, &seen);
    unsigned used = seen.used;
    fclose(f);
    if (put_file(c, base, "dat", buf, err))
        return -1;
    json_t *load = json_object_get(json_object_get(c->run, "profile"), "load");
    const char *model = json_string_value(json_object_get(load, "model"));
    int open = model && !strcmp(model, "open");
    double lo = c->gs.levels[0], hi = c->gs.levels[c->gs.nlevels - 1];
    int logx = lo > 0 && hi / lo >= 20;
    int reps = repeats_max(&c->gs);
    buf = NULL;
    f = open_memstream(&buf, &len);
    gp_begin(f, base, 1000, 560, c->footer, m->title);
    char title[256];
    snprintf(title, sizeof title, "%s against %s%s", m->title, open ? "arrival rate" : "concurrency",
             reps > 1 ? " (median, whiskers min–max)" : "");
    fprintf(f, "  set title ");
    gp_str(f, title);
    fprintf(f, " font \",13\"\n");
    value_axis(f, m->unit, seen.lo, seen.hi);
    fprintf(f, "  set xlabel \"%s%s\"\n", open ? "offered arrival rate (req/s)" : "concurrency (connections / VUs)",
            logx ? ", log scale" : "");
    if (logx)
        fprintf(f, "  set logscale x\n  set xrange [%g:%g]\n", lo / 1.5, hi * 1.5);
    else
        fprintf(f, "  set xrange [0:%g]\n", hi * 1.1);
    fprintf(f, "  set xtics (");
    for (size_t vi = 0; vi < c->gs.nlevels; vi++)
        fprintf(f, "%s%.10g", vi ? ", " : "", c->gs.levels[vi]);
    fprintf(f, ")\n  set key outside right top vertical Left reverse\n  set bmargin 5\n  plot ");
    for (size_t li = 0; li < c->gs.nlabels; li++) {
        fprintf(f, "%s\"%s.dat\" index %zu using 1:2%s with %s lw 2 pt 7 ps 1.2 lc rgb \"%s\" title ", li ? ", \\\n       " : "",
                base, li, reps > 1 ? ":3:4" : "", reps > 1 ? "yerrorlines" : "linespoints", charts_colour((int)li));
        char name[160];
        snprintf(name, sizeof name, "%s%s", c->gs.labels[li], isnan(hi_level(c, li)) ? " – no result" : "");
        gp_str(f, name);
    }
    /* Values on every point when few lines share the chart; otherwise only
     * at each line's last level, where the lines end apart. */
    char data[80];
    snprintf(data, sizeof data, "%s.dat", base);
    for (size_t li = 0; li < c->gs.nlabels; li++) {
        char sel[64];
        snprintf(sel, sizeof sel, " index %zu", li);
        caveat_points(f, data, sel, "1", 2, 6, used);
        if (c->gs.nlabels <= 3)
            fprintf(f, ", \\\n       \"%s\"%s using 1:2:7 with labels center offset 0,1 font \",9\" tc rgb \"%s\" notitle", data, sel,
                    charts_colour((int)li));
        else if (!isnan(hi_level(c, li)))   /* a line with no ok level (a skipped tool) has no last value */
            fprintf(f, ", \\\n       \"%s\"%s using 1:($1 == %.10g ? $2 : NaN):7 with labels left offset 1,0 font \",9\" tc rgb \"%s\" notitle",
                    data, sel, hi_level(c, li), charts_colour((int)li));
    }
    caveat_legend(f, used);
    fputc('\n', f);
    gp_end(f);
    fclose(f);
    if (put_file(c, base, "gp", buf, err))
        return -1;
    return 0;
}

/* The first second of the server's series with traffic, for aligning it to
 * the tool's clock; -1 when none. */
static double first_traffic_second(const char *path)
{
    double *t, *v;
    size_t n = charts_read_csv(path, 2, &t, &v);
    double first = -1;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0) {
            first = t[i];
            break;
        }
    free(t);
    free(v);
    return first;
}

static int exists(const char *dir, const char *rel)
{
    char p[4300];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return access(p, R_OK) == 0;
}

/* Stage labels are font ",8": about this many pixels a character, on a
 * plot 700 px wide (the multiplot's margins 0.1-0.8 of 1000 px). */
#define STAGE_CHAR_PX 6.5
#define STAGE_PLOT_PX 700.0


int charts_stage_label(char *buf, size_t len, int ramp, double target, double w, double char_px)
{
    for (int i = 0; i < 2; i++) {
        const char *word = i ? (ramp ? "→" : "") : (ramp ? "ramp → " : "hold ");
        snprintf(buf, len, "%s%.10g", word, target);
        if ((double)utf8_chars(buf) * char_px + 8 <= w)
            return 1;
    }
    return 0;
}

/* Shade r's load stages (ramps darker than holds) from load_start on, each
 * labelled where its label fits. Returns the time axis's end, seconds. */
static double ts_stages(FILE *f, json_t *r, double load_start)
{
    json_t *load = json_object_get(r, "load_as_run");
    if (!load)
        load = json_object_get(r, "load");
    json_t *stages = json_object_get(load, "stages"), *st;
    size_t i;
    double end = load_start;
    json_array_foreach(stages, i, st)
    {
        double d = stats_json_num(st, "duration_ns", NULL, NULL) / 1e9;
        if (!isnan(d))
            end += d;
    }
    /* One time axis for all three panels. */
    double xmax = stats_json_num(r, "footprint", "wall_s", NULL);
    if (isnan(xmax) || xmax < end)
        xmax = end;
    xmax = ceil(xmax + 0.25);
    double t0 = load_start, prev = 0;
    int k = 1;
    json_array_foreach(stages, i, st)
    {
        double d = stats_json_num(st, "duration_ns", NULL, NULL) / 1e9,
               target = stats_json_num(st, "target", NULL, NULL);
        if (isnan(d))
            continue;
        int ramp = i > 0 ? target != prev : 0;
        if (json_is_true(json_object_get(load, "ramped")) && i == 0)
            ramp = target != 0;
        fprintf(f, "  set object %d rect from first %.3f, graph 0 to first %.3f, graph 1 behind fc rgb \"%s\" fs solid 0.6 noborder\n",
                k++, t0, t0 + d, ramp ? "#e4e4e4" : "#f3f3f3");
        /* The label stays inside its stage (and the plot): it never runs
         * into the next one's. */
        double w = (fmin(t0 + d, xmax) - t0) / xmax * STAGE_PLOT_PX;
        char text[64];
        if (k < 40 && charts_stage_label(text, sizeof text, ramp, target, w, STAGE_CHAR_PX)) {
            fprintf(f, "  set label %d ", 40 + k);
            gp_str(f, text);
            fprintf(f, " at first %.3f, graph 0.97 font \",8\" tc rgb \"#888888\"\n", t0 + 0.1 * xmax / STAGE_PLOT_PX * 4);
        }
        t0 += d;
        prev = target;
    }
    return xmax;
}

/* A panel with no series (its file absent, or dropped by the files
 * check): an invisible line, since gnuplot refuses to plot only NaN. */
#define TS_EMPTY_PLOT "0 lc rgb \"#ffffff\""

/* File names in scripts: the run dir's samples/ seen from charts/. */
static void ts_one(struct cw *c, json_t *r, int colour, FILE *f)
{
    const char *dirname = stats_json_str(r, "dir", NULL) ?: stats_json_str(r, "label", NULL) ?: "?";
    const char *tool_csv = stats_json_str(r, "footprint", "samples_file");
    const char *tgt_csv = stats_json_str(r, "target_footprint", "samples_file");
    const char *srv_csv = stats_json_str(r, "server_series_file", NULL);
    const char *colr = charts_colour(colour);
    /* A run.json copied without its samples/ still charts what it can. */
    if (tool_csv && !exists(c->dir, tool_csv))
        tool_csv = NULL;
    if (tgt_csv && !exists(c->dir, tgt_csv))
        tgt_csv = NULL;
    if (srv_csv && !exists(c->dir, srv_csv))
        srv_csv = NULL;
    double load_start = stats_json_num(r, "windows", "load_start_s", NULL);
    if (isnan(load_start))
        load_start = 0;
    /* Server second t covers [t, t+1) of lb-target's clock; its first
     * second with traffic holds the tool's first request, at load_start on
     * the tool's clock: plot each second at its middle, aligned there (to
     * within half a second). */
    double off = NAN;
    if (srv_csv) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", c->dir, srv_csv);
        double first = first_traffic_second(p);
        if (first >= 0)
            off = load_start - first + 0.5;
    }
    double xmax = ts_stages(f, r, load_start);
    fprintf(f, "  set datafile separator \",\"\n  set multiplot layout 3,1 title ");
    char title[300];
    snprintf(title, sizeof title, "%s: CPU, memory and server-counted requests/s over time (load stages shaded)", dirname);
    gp_str(f, title);
    fprintf(f, " font \",13\" margins screen 0.1, screen 0.8, screen 0.1, screen 0.92 spacing screen 0.05\n"
               "  set xrange [0:%g]\n  set yrange [0:*]\n  set key outside right top vertical Left reverse\n", xmax);
    /* CPU */
    fprintf(f, "  set ylabel \"CPU %% (100 = one core)\"\n  set format x \"\"\n  plot ");
    if (tool_csv) {
        fprintf(f, "\"../%s\" using 1:3 skip 1 with lines lw 2 lc rgb \"%s\" title ", tool_csv, colr);
        gp_str(f, stats_json_str(r, "label", NULL));
    }
    if (tgt_csv)
        fprintf(f, "%s\"../%s\" using 1:3 skip 1 with lines lw 1.5 dt 2 lc rgb \"#777777\" title \"lb-target\"",
                tool_csv ? ", " : "", tgt_csv);
    if (!tool_csv && !tgt_csv)
        fprintf(f, TS_EMPTY_PLOT " notitle");
    /* RSS */
    fprintf(f, "\n  set ylabel \"RSS (MB)\"\n  plot ");
    if (tool_csv) {
        fprintf(f, "\"../%s\" using 1:6 skip 1 with lines lw 2 lc rgb \"%s\" title ", tool_csv, colr);
        gp_str(f, stats_json_str(r, "label", NULL));
    } else {
        fprintf(f, TS_EMPTY_PLOT " notitle");
    }
    /* Requests/s */
    fprintf(f, "\n  set ylabel \"requests/s (server)\"\n  set xlabel \"seconds since the tool started\"\n  set format x \"%%g\"\n  plot ");
    if (srv_csv && !isnan(off))
        fprintf(f, "\"../%s\" using ($1+%.3f):($9 > 0 ? NaN : $3) skip 1 with linespoints lw 2 pt 7 ps 0.6 lc rgb \"%s\" title \"completed/s\"",
                srv_csv, off, colr);
    else
        fprintf(f, TS_EMPTY_PLOT " title \"no server series\"");
    fprintf(f, "\n  unset multiplot\n");
}

static int timeseries(struct cw *c, char *err)
{
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(c->run, "runs"), i, r)
    {
        const char *dirname = stats_json_str(r, "dir", NULL) ?: stats_json_str(r, "label", NULL);
        if (!dirname || !json_object_get(r, "footprint"))
            continue;
        /* Nothing to draw without the run's sample files (a run.json
         * copied alone). */
        const char *files[] = {stats_json_str(r, "footprint", "samples_file"),
                               stats_json_str(r, "target_footprint", "samples_file"),
                               stats_json_str(r, "server_series_file", NULL)};
        int have = 0;
        for (int k = 0; k < 3; k++)
            have |= files[k] && exists(c->dir, files[k]);
        if (!have)
            continue;
        int colour = 0;
        for (size_t li = 0; li < c->gs.nlabels; li++)
            if (!strcmp(c->gs.labels[li], stats_json_str(r, "label", NULL) ?: ""))
                colour = (int)li;
        char base[300];
        snprintf(base, sizeof base, "ts_%s", dirname);
        for (char *p = base; *p; p++)
            if (*p == '/' || *p == ' ')
                *p = '_';
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        gp_begin(f, base, 1000, 820, c->footer, "time series");
        ts_one(c, r, colour, f);
        gp_end(f);
        fclose(f);
        if (put_file(c, base, "gp", buf, err))
            return -1;
    }
    return 0;
}

static int have_gnuplot(char *path, size_t len)
{
    const char *env = getenv("LOADBENCH_GNUPLOT");
    if (env) {
        snprintf(path, len, "%s", env);
        return *env && access(path, X_OK) == 0;
    }
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/bin:/bin";
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", p);
    for (char *save = NULL, *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, len, "%s/gnuplot", d);
        if (access(path, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* 1 when the chart file at path is whole: not empty, and a PNG ends with
 * its IEND chunk, an SVG with its closing tag (gnuplot exits 0 with a
 * file cut short when the disk fills). */
static int chart_whole(const char *path, const char *ext)
{
    static const unsigned char iend[8] = {'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    char tail[64];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 16) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    off_t off = st.st_size > (off_t)sizeof tail ? st.st_size - (off_t)sizeof tail : 0;
    ssize_t n = pread(fd, tail, sizeof tail, off);
    int synced = fsync(fd) == 0;
    close(fd);
    if (n < 8 || !synced)
        return 0;
    if (!strcmp(ext, "png"))
        return !memcmp(tail + n - 8, iend, 8);
    return memmem(tail, (size_t)n, "</svg>", 6) != NULL;
}

/* After gnuplot ran script (ok: it exited 0): each of its outputs
 * (NAME.png, NAME.svg) renamed from its temporary when both are whole,
 * or none: the temporaries and any older NAME.png/.svg are removed, so a
 * chart on disk is always one whole render of this report. Returns 0 when
 * both were renamed. */
static int settle(const char *cdir, const char *script, const char *suffix, int ok)
{
    static const char *const exts[] = {"png", "svg"};
    char base[320], tmp[2][4700], fin[2][4600];
    snprintf(base, sizeof base, "%s", script);
    char *dot = strrchr(base, '.');
    if (dot)
        *dot = 0;
    for (int i = 0; i < 2; i++) {
        snprintf(fin[i], sizeof fin[i], "%.4000s/%.300s.%s", cdir, base, exts[i]);
        snprintf(tmp[i], sizeof tmp[i], "%.4600s%.32s", fin[i], suffix);
        ok = ok && chart_whole(tmp[i], exts[i]);
    }
    for (int i = 0; i < 2; i++) {
        if (ok && rename(tmp[i], fin[i]) < 0)
            ok = 0;
    }
    for (int i = 0; i < 2 && !ok; i++) {
        unlink(tmp[i]);
        unlink(fin[i]);
    }
    return ok ? 0 : -1;
}

/* Run gnuplot on one script in the charts directory, output to the log,
 * its charts written to temporaries and renamed by settle; 0 when both
 * are whole. A child alarm bounds a stuck render. */
static int render(const char *gnuplot, const char *cdir, const char *script, int logfd)
{
    char suffix[32], var[64];
    snprintf(suffix, sizeof suffix, ".tmp.%d", (int)getpid());
    snprintf(var, sizeof var, "lb_out_suffix='%s'", suffix);
    pid_t gparent = guard_parent(); /* guard hook (#18) */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        guard_child(gparent); /* guard hook (#18): gnuplot dies with us */
        if (chdir(cdir) < 0)
            _exit(127);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, 0);
        if (logfd >= 0) {
            dup2(logfd, 1);
            dup2(logfd, 2);
        }
        alarm(60);
        execl(gnuplot, "gnuplot", "-e", var, script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return settle(cdir, script, suffix, 0);
    return settle(cdir, script, suffix, WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

void charts_render(const char *dir, const char *cdir, char *const *scripts, int n, struct charts_out *out)
{
    out->scripts = n;
    char gp[4096];
    out->gnuplot = have_gnuplot(gp, sizeof gp);
    if (!out->gnuplot) {
        char report[960] = "";
        if (dir)
            snprintf(report, sizeof report, "`loadbench report %.900s` or ", dir);
        snprintf(out->note, sizeof out->note,
                 "charts not rendered: gnuplot is not installed (apt-get install gnuplot-nox); then run %s`cd %.900s && for f in *.gp; do gnuplot \"$f\"; done`",
                 report, cdir);
        return;
    }
    char logp[4200];
    snprintf(logp, sizeof logp, "%s/gnuplot.log", cdir);
    int logfd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (int i = 0; i < n; i++)
        if (render(gp, cdir, scripts[i], logfd) == 0)
            out->rendered++;
    if (logfd >= 0)
        close(logfd);
    if (out->rendered == n)
        snprintf(out->note, sizeof out->note, "rendered %d charts (PNG and SVG) into %.900s", out->rendered, cdir);
    else
        snprintf(out->note, sizeof out->note, "gnuplot rendered %d of %d charts; see %.900s", out->rendered, n, logp);
}

void charts_gp_str(FILE *f, const char *s)
{
    gp_str(f, s);
}

void charts_gp_begin(FILE *f, const char *base, int w, int h, const char *footer, const char *what)
{
    gp_begin(f, base, w, h, footer, what);
}

void charts_gp_end(FILE *f)
{
    gp_end(f);
}

int charts_value_axis(FILE *f, const char *unit, double lo, double hi)
{
    return value_axis(f, unit, lo, hi);
}

int charts_write(const char *dir, json_t *run, struct charts_out *out, char *err)
{
    struct charts_out dummy;
    if (!out)
        out = &dummy;
    memset(out, 0, sizeof *out);
    struct cw c;
    memset(&c, 0, sizeof c);
    c.dir = dir;
    c.run = run;
    snprintf(c.cdir, sizeof c.cdir, "%s/charts", dir);
    if (mkdir(c.cdir, 0755) < 0 && errno != EEXIST)
        return util_err(err, "cannot create %s: %s", c.cdir, strerror(errno));
    charts_footer(run, c.footer, sizeof c.footer);
    stats_group_run(run, &c.gs);
    int rc = -1;
    static const char *const bar_keys[] = {"rps", "p50", "p99", "rss", "cpu", "cpu100k", NULL};
    for (const char *const *k = bar_keys; *k; k++)
        if (bars(&c, stats_metric_by_key(*k), err))
            goto out;
    if (c.gs.nlevels > 0) {
        static const char *const sweep_keys[] = {"rps", "cpu", "rss", "p99", NULL};
        for (const char *const *k = sweep_keys; *k; k++)
            if (sweep(&c, stats_metric_by_key(*k), err))
                goto out;
    }
    if (timeseries(&c, err))
        goto out;
    rc = 0;
    charts_render(dir, c.cdir, c.scripts, c.nscripts, out);
out:
    for (int i = 0; i < c.nscripts; i++)
        free(c.scripts[i]);
    free(c.scripts);
    stats_groups_free(&c.gs);
    return rc;
}
