/* compare: a current run against a baseline, tool x level x metric, with a
 * verdict per cell (improved / same within noise / regressed) and a gate
 * for CI. Across nights absolute requests/s drifts with the machine, so the
 * gate reads CPU seconds per 100k requests, peak RSS, and requests/s only
 * as a ratio to a control generator (wrk or lb-gen) measured in the same
 * run, repeat by repeat. */
#ifndef LB_COMPARE_H
#define LB_COMPARE_H

#include <jansson.h>
#include <stdio.h>

struct compare_opts {
    double threshold;       /* relative change that counts, 0.10 = 10 % */
    const char *tool;       /* the compared tool label: its binary may differ (NULL: "lb-gen") */
    const char *control;    /* the control generator label (NULL: wrk when in both runs, else lb-gen) */
};

/* Compare cur against base, writing a Markdown table to md and, when junit
 * is not NULL, JUnit XML (one test case per gated cell). Returns 0 when no
 * gated cell regressed beyond the threshold, 1 when one did (each named in
 * err, comma separated), 2 when the runs are not comparable: different
 * machine fingerprint, build type, profile, or binary sha256 of a tool
 * other than the compared one (err says which). */
int compare_runs(json_t *base, json_t *cur, const struct compare_opts *o, FILE *md, FILE *junit, char *err);

#endif
