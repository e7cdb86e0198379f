/* html: one self-contained report.html per run directory — the comparison
 * table, statistics over repeats, inline SVG charts drawn here (no gnuplot
 * needed), the machine, the profile, every warning and reconciliation
 * verdict, and relative links to the raw outputs. */
#ifndef LB_HTML_H
#define LB_HTML_H

#include <jansson.h>
#include <stdio.h>

/* s into f with < > & " ' escaped, so that it is safe as HTML or XML text
 * and inside a quoted attribute (NULL writes nothing). */
void html_esc(FILE *f, const char *s);

/* The page for run into f; dir is the run directory (sample CSVs are read
 * from it for the time series). */
void html_report(FILE *f, const char *dir, json_t *run);

/* Write dir/report.html atomically. Returns 0, or -1 with err filled. */
int html_write(const char *dir, json_t *run, char *err);

#endif
