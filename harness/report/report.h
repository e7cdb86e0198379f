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

/* "What each row ran with" (summary.md's section, report.html's table):
 * the column heads (NULL-terminated) and the cells of row r of run
 * (its ran_with, load.keepalive), " | " between them, the one source of both
 * pages' text; report_ran_with_differ: 1 when the rows' cells differ
 * (the table is shown only then). */
#define REPORT_RAN_WITH_LEN 384
extern const char *const report_ran_with_heads[];
const char *report_ran_with_cells(json_t *run, json_t *r, char *buf, size_t len);
int report_ran_with_differ(json_t *run);

/* 1 when a row of run ran with another delay than its profile's
 * target.delay (its entry's own): the pages' "Target:" line is the
 * profile's, and says so with REPORT_OWN_DELAY_NOTE. */
int report_rows_own_delay(json_t *run);
#define REPORT_OWN_DELAY_NOTE "That delay is the profile's: some rows ran with their own (What each row ran with)."

/* s as one CSV field: quoted (quotes doubled) when it holds a comma, a
 * quote or a newline; nothing for NULL. */
void report_csv_str(FILE *f, const char *s);
void report_stats_csv(FILE *f, json_t *run);

#endif
