/* report: every table, chart and page of a run directory, generated from
 * run.json (and the sample CSVs beside it) alone, so `loadbench report
 * RUN_DIR` reproduces them byte for byte. */
#ifndef LB_REPORT_H
#define LB_REPORT_H

#include "report/charts.h"

#include <jansson.h>
#include <stdio.h>

/* What report_write did beyond the tables. */
struct report_out {
    struct charts_out charts;
    int files_bad;          /* files a row recorded that are missing or changed since (each a note) */
};

/* Write summary.md, results.csv, stats.csv, charts/ and report.html into
 * dir from run, as runrecord_view sees it (its status derived, its files
 * checked). out (may be NULL) says whether the charts were rendered and
 * how many recorded files were missing or changed.
 * Returns 0, or -1 with err filled. */
int report_write(const char *dir, json_t *run, struct report_out *out, char *err);

/* report_write without the details. Returns 0, or -1 with err filled. */
int report_write_all(const char *dir, json_t *run, char *err);

/* The Markdown summary, the per-row CSV and the per-group statistics CSV
 * (median, min, max, mean, stddev, cv per label x level x metric) into
 * open streams. */
void report_markdown(FILE *f, json_t *run);
void report_csv(FILE *f, json_t *run);

/* s as one CSV field: quoted (quotes doubled) when it holds a comma, a
 * quote or a newline; nothing for NULL. */
void report_csv_str(FILE *f, const char *s);
void report_stats_csv(FILE *f, json_t *run);

#endif
