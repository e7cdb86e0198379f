/* toollog: a row's tool view as an HdrHistogram interval log
 * (samples/LABEL.tool.hlog, common/hdrlog.h), from the samples the tool
 * itself left (an adapter's samples()). Per-request samples (Vegeta): a
 * response is in the interval its request started in, the row's sampling
 * intervals from the tool's spawn cut at the hold window's edges. A tool's
 * own intervals (lb-gen's seconds, samples_period_ns): one log interval
 * each, in the window its middle is in. Tags as the server's log
 * (serverlog_tag). Values are in the tool's own unit (samples_unit_ns, or
 * its latency_resolution_ms), so the log is never finer than the tool. */
#ifndef LB_TOOLLOG_H
#define LB_TOOLLOG_H

#include "adapters/adapter.h"

#include <stddef.h>
#include <stdint.h>

struct toollog_frame {
    const char *label;
    int64_t t0_unix_ns;          /* the tool's spawn: the log's StartTime and BaseTime */
    uint64_t interval_ns;        /* the row's sampling interval */
    int64_t hold_from_unix_ns;   /* the hold window; both 0: none (tags LABEL:load) */
    int64_t hold_to_unix_ns;
};

/* Writes path from the samples a->samples reads in dirs[0..n). Returns the
 * intervals written (0: no samples, no file left), or -1 with err. */
int toollog_write(const char *path, const struct adapter *a, const char *const *dirs, size_t n,
                  const struct toollog_frame *fr, char *err);

#endif
