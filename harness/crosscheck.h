/* crosscheck: the server's witness for every figure a tool reports —
 * server-side counts and windows, the reconciliation verdict, bottleneck,
 * Little's-law concurrency, latency floor and tool overhead, efficiency,
 * and the machine's unattributed CPU. */
#ifndef LB_CROSSCHECK_H
#define LB_CROSSCHECK_H

#include "adapter.h"
#include "profile.h"
#include "sampler.h"

#include <jansson.h>
#include <stdint.h>

/* One sampled interval, placed on the monotonic clock. */
struct crosscheck_point {
    uint64_t end_ns;
    double interval_s;
    double cpu_pct;
    double rss_mb;
};

struct crosscheck_in {
    json_t *before, *after;         /* lb-target /stats around the tool run (after = tool gone) */
    json_t *series;                 /* lb-target /series, or NULL */
    const struct profile_load *load;
    uint64_t delay_ns;              /* the server's configured delay: a latency floor */
    int client_parsed;
    uint64_t client_requests;
    uint64_t client_errors;
    uint64_t open_at_stop;          /* connections open on the server when the tool stopped */
    int stopped_hard;               /* loadbench stopped the tool (timeout, interrupt) */
    double cpu_seconds;             /* the tool's exact CPU */
    double rss_peak_mb;
    const struct adapter_latency *lat;
    double latency_resolution_ms;
    const char *model;              /* closed | paced | open, as run */
    uint64_t tool_cpus, target_cpus;
    const struct sampler_tree *tool_samples, *target_samples;
    const struct crosscheck_point *tool_pts, *target_pts;  /* the series, for window averages */
    size_t ntool_pts, ntarget_pts;
    uint64_t tool_spawned_ns;
};

/* Add "server", "windows", "crosscheck", "limits", "efficiency" and
 * "latency_check" objects to res, and warnings (strings) to warnings. */
void crosscheck_fill(const struct crosscheck_in *in, json_t *res, json_t *warnings);

/* The time-weighted average CPU % of pts over [from_ns, to_ns), or NAN
 * when no sample covers it. */
double crosscheck_window_cpu(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns);

/* responses_completed(after) - responses_completed(before). */
uint64_t crosscheck_server_requests(json_t *before, json_t *after);

/* The verdict for a client count against the server count: "exact",
 * "explained" (client below server by at most bound) or "mismatch". */
const char *crosscheck_verdict(uint64_t client, uint64_t server, uint64_t bound);

/* Whole-machine CPU over a tool run from two /proc/stat readings, with what
 * could not be attributed to the tool, the target or loadbench itself
 * (kernel network work on loopback is charged to whoever runs). Warns
 * above 5 % of a core. */
json_t *crosscheck_machine_json(const struct sampler_machine *m0, const struct sampler_machine *m1, double tool_cpu_s,
                                double target_cpu_s, double self_cpu_s, json_t *warnings);

#endif
