/* report: lb-gen's outputs — the JSON summary (schema "lb-gen/1", documented
 * in generator/README.md), the human summary and the full percentile
 * distribution. */
#ifndef LB_GEN_REPORT_H
#define LB_GEN_REPORT_H

#include "generator/gen.h"

#include <jansson.h>
#include <stdio.h>

#define REPORT_SCHEMA "lb-gen/1"

/* Whether the run delivered what it was asked: 0 when it did, or -1 with
 * err saying what fell short (fewer connections open at once than the load
 * asked for). */
int report_shortfall(const struct gen_result *r, char *err);

/* The JSON summary of a finished run (its "error" is report_shortfall's); the caller json_decref()s it. */
json_t *report_json(const struct gen_config *cfg, const struct gen_result *r);

/* A few lines for people. */
void report_human(FILE *f, const struct gen_config *cfg, const struct gen_result *r);

/* --seconds-dist: gen_result.sec_dist to path, a bucket a line ("SEC
 * VALUE_NS COUNT") after a comment and "start_wall_ms MS". Returns 0, or -1
 * with err. */
int report_seconds(const char *path, const struct gen_result *r, char *err);
/* --sends: a comment line, "dropped N", then each request's send time
 * (CLOCK_MONOTONIC ns, the clock lb-target's GET /arrivals bins by), one
 * a line, in order. Returns 0, or -1 with err. */
int report_sends(const char *path, const struct gen_result *r, char *err);

/* The whole latency distribution, one bucket a line, HdrHistogram's
 * percentile-distribution layout (value in ms, percentile, total count,
 * 1/(1-percentile)). Returns 0, or -1 with err filled. */
int report_percentiles(const char *path, const struct gen_result *r, char *err);

#endif
