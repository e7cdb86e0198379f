/* report: summary.md and results.csv, generated from run.json alone (so
 * `loadbench report RUN_DIR` reproduces them byte for byte). */
#ifndef LB_REPORT_H
#define LB_REPORT_H

#include <jansson.h>
#include <stdio.h>

/* Write summary.md and results.csv into dir from run. Returns 0, or -1
 * with err filled. */
int report_write_all(const char *dir, json_t *run, char *err);

/* The Markdown summary and the CSV into open streams. */
void report_markdown(FILE *f, json_t *run);
void report_csv(FILE *f, json_t *run);

#endif
