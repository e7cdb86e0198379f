/* charts: gnuplot figures of a run, written into RUN_DIR/charts/ as data
 * (.dat) and scripts (.gp) a user can restyle, and rendered to PNG and SVG
 * when gnuplot is installed. Bars per tool of each headline metric (with
 * min-max whiskers over repeats, sorted by value then; dots on a log axis),
 * p99 against the server's and the on-schedule p99 when the run has latency
 * truth, CPU/RSS/requests-per-second time series
 * per tool run with the load stages shaded, and, for sweeps, curves
 * against the swept level. One colour per tool label in every chart. */
#ifndef LB_CHARTS_H
#define LB_CHARTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "report/stats.h"

struct charts_out {
    int scripts;        /* .gp scripts written */
    int rendered;       /* scripts gnuplot rendered without an error */
    int gnuplot;        /* 1 when gnuplot was found */
    char note[2048];     /* what happened, for the user ("rendered 17 charts", "gnuplot not installed: ...") */
};

/* Write dir/charts/ from run and the sample CSVs under dir, then render
 * with gnuplot when it is on PATH (its messages go to charts/gnuplot.log).
 * Returns 0 (a missing gnuplot or a failed render is not an error: out
 * says so), or -1 with err when a file cannot be written. */
int charts_write(const char *dir, json_t *run, struct charts_out *out, char *err);

/* Render the n gnuplot scripts of cdir (names relative to it) with gnuplot
 * when it is on PATH (or $LOADBENCH_GNUPLOT), its messages into
 * cdir/gnuplot.log; out says what happened (dir: the run to name in the
 * advice when gnuplot is missing, or NULL). Never fails: a failed render is counted. */
void charts_render(const char *dir, const char *cdir, char *const *scripts, int n, struct charts_out *out);

/* The pieces every chart script is made of, for other reports' charts
 * (loadbench history): a gnuplot double-quoted string; the script's head
 * (a loop rendering base.png then base.svg, w x h, the footer) and tail;
 * the y axis for values lo..hi (lo the least positive one), logarithmic
 * when they span more than 30x, which the label says — returns 1 then. */
void charts_gp_str(FILE *f, const char *s);
void charts_gp_begin(FILE *f, const char *base, int w, int h, const char *footer, const char *what);
void charts_gp_end(FILE *f);
int charts_value_axis(FILE *f, const char *unit, double lo, double hi);

/* The colour of palette slot i (a tool label's index in the profile), as
 * "#rrggbb". Never NULL. */
const char *charts_colour(int i);

/* The footer every figure carries: loadbench version, machine, date and
 * profile, into buf. Returns buf. */
const char *charts_footer(json_t *run, char *buf, size_t len);

/* One sampled series read from a CSV of the run directory: column col of
 * each row, against column 0 (time). Returns the number of points (0 when
 * the file is missing); *t and *v are heap arrays the caller frees. */
size_t charts_read_csv(const char *path, int col, double **t, double **v);


/* A value as written over a bar or point: three significant digits, no
 * exponent ("488", "96.3", "3.09", "0.82"), into buf. Returns buf. */
const char *charts_value_label(double v, char *buf, size_t len);

/* The label of a load stage w pixels wide, at char_px pixels a character:
 * "ramp → 200" or "hold 200", else "→200" or "200", into buf; 0 (nothing
 * fits: no label) or 1. */
int charts_stage_label(char *buf, size_t len, int ramp, double target, double w, double char_px);

/* Caveats a row can carry, each drawn with one marker explained in a
 * legend line: a gnuplot point type in the PNG and SVG charts, the same
 * open shape as a glyph in report.html. metrics limits a caveat to the
 * charts it bears on (NULL: all). Ended by a NULL key. */
struct charts_caveat {
    const char *key;        /* in the .dat files: "target" */
    int pt;                 /* gnuplot point type */
    const char *glyph;      /* "△" */
    const char *legend;     /* "target-bound: the server's ceiling" */
    const char *metrics;    /* space-separated metric keys, or NULL */
};
extern const struct charts_caveat charts_caveats[];

/* The caveats (bit k for charts_caveats[k]) any of rows carries that bear
 * on metric m (every caveat when m is NULL). */
unsigned charts_caveat_mask(json_t **rows, size_t n, const struct stats_metric *m);

/* 1 for the footprint metrics (RSS, CPU, CPU-s/100k): loadbench measures
 * them whatever became of the tool's own report. */
int charts_footprint_metric(const struct stats_metric *m);

/* One bar of metric m for group g of run: over the group's ok rows, or,
 * for a footprint metric when none is ok, over its rows that failed or
 * timed out with the footprint measured. status is "ok" or the status of
 * the rows drawn (of the group's rows when there is no value: s.n == 0). */
struct charts_bar {
    struct stats_summary s;
    const char *status;
    unsigned caveats;
};
void charts_bar_fill(json_t *run, const struct stats_group *g, const struct stats_metric *m, struct charts_bar *b);

/* The order of n bars into ord: by median, largest first, when repeats
 * give the bars intervals (reps > 1); the profile's otherwise, since
 * sorting one noisy run would imply a ranking. Returns 1 when sorted. */
int charts_bar_order(const struct charts_bar *b, size_t n, int reps, size_t *ord);

#endif
