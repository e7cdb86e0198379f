/* serverlog: a row's server view as an HdrHistogram interval log
 * (samples/LABEL.server.hlog, common/hdrlog.h): lb-target's server-time
 * histogram snapshots (GET /histogram, taken at each sample and at the
 * hold window's edges) close one interval each, tagged with the row's
 * label and its window: LABEL:before-hold, LABEL:hold, LABEL:after-hold, or
 * LABEL:load for a row without a hold window. The hold intervals together
 * are exactly the window run.json's server latency covers. */
#ifndef LB_SERVERLOG_H
#define LB_SERVERLOG_H

#include "common/util.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum serverlog_edge { SERVERLOG_SAMPLE, SERVERLOG_HOLD_START, SERVERLOG_HOLD_END };

struct serverlog {
    FILE *f;               /* the log, in memory (buf, len) until serverlog_close writes it */
    char *buf;
    size_t len;
    char path[4200];
    json_t *prev;          /* the last snapshot (a reference); NULL: the fresh target, empty */
    uint64_t t0;           /* the log's zero on the monotonic clock (the tool's spawn) */
    uint64_t prev_t;       /* prev's time (ns, monotonic) */
    int phase;             /* 0 before the hold, 1 in it, 2 after it, -1 no hold window */
    char label[80];
    unsigned intervals;
    char err[UTIL_ERR_LEN];
};

/* An interval's tag: "LABEL:before-hold", ":hold", ":after-hold" for
 * phase 0, 1, 2, "LABEL:load" for -1 (no hold window). */
void serverlog_tag(char *buf, size_t len, const char *label, int phase);

/* Opens path for label's row: t0_ns (monotonic) is the log's zero,
 * t0_epoch_s the same moment since the epoch; have_hold says whether the
 * row has a hold window. Returns 0, or -1 with err (the log is then off:
 * serverlog_add does nothing). */
int serverlog_open(struct serverlog *s, const char *path, const char *label, int have_hold, uint64_t t0_ns,
                   double t0_epoch_s, char *err);

/* A snapshot (borrowed), in time order: the interval since the previous
 * one is written under the current window's tag; a hold edge then moves
 * to the next window. A snapshot no later than the previous, or not a
 * histogram, writes nothing. */
void serverlog_add(struct serverlog *s, json_t *snap, enum serverlog_edge edge);

/* Closes the log and writes it whole to its path (common/fsutil.c), when
 * it holds an interval. Returns the intervals written, or -1 with s->err
 * when a write failed. */
int serverlog_close(struct serverlog *s);

#endif
