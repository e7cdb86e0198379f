/* charts: gnuplot figures of a run, written into RUN_DIR/charts/ as data
 * (.dat) and scripts (.gp) a user can restyle, and rendered to PNG and SVG
 * when gnuplot is installed. Bars per tool of each headline metric (with
 * min-max whiskers over repeats), CPU/RSS/requests-per-second time series
 * per tool run with the load stages shaded, and, for sweeps, curves
 * against the swept level. One colour per tool label in every chart. */
#ifndef LB_CHARTS_H
#define LB_CHARTS_H

#include <jansson.h>
#include <stddef.h>

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

#endif
