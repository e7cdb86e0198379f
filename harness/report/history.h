/* history: each tool's headline metrics across many runs (nights,
 * releases), oldest run first, each value labelled with the version of the
 * tool that made it — what people publish per release. One Markdown table
 * per metric (runs down, tools across), a CSV with one line per run x tool
 * x metric, and a gnuplot chart per metric (one line per tool against the
 * runs, value labels, the version written where it changes, a log axis
 * when the values span more than 30x). */
#ifndef LB_HISTORY_H
#define LB_HISTORY_H

#include "report/charts.h"

#include <jansson.h>
#include <stddef.h>

struct history_out {
    size_t nruns, nseries;      /* runs read; tool labels (at each level) seen */
    struct charts_out charts;   /* what became of the charts */
};

/* Write out_dir/history.md, out_dir/history.csv and out_dir/charts/ from
 * the n runs (their run.json, read from paths[i], for messages and the
 * tables). Runs are ordered by started_at_ms (a run without one keeps its
 * place among those before it). Returns 0, or -1 with err when a file
 * cannot be written. */
int history_write(json_t *const *runs, const char *const *paths, size_t n, const char *out_dir, struct history_out *out,
                  char *err);

#endif
