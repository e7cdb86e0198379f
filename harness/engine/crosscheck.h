/* crosscheck: the server's witness for every figure a tool reports —
 * server-side counts and windows, the reconciliation verdict, bottleneck,
 * Little's-law concurrency, latency floor and tool overhead, efficiency,
 * and the machine's unattributed CPU. */
#ifndef LB_CROSSCHECK_H
#define LB_CROSSCHECK_H

#include "adapters/adapter.h"
#include "spec/profile.h"
#include "engine/sampler.h"

#include <jansson.h>
#include <stdint.h>

/* One sampled interval, placed on the monotonic clock. */
struct crosscheck_point {
    uint64_t end_ns;
    double interval_s;
    double cpu_pct;
    double rss_mb;
    double thread_pct;              /* the busiest single thread over the interval (100 = one core) */
    double wait_pct;                /* the tree's threads' run-queue wait over the interval, summed */
};

struct crosscheck_in {
    json_t *before, *after;         /* lb-target /stats around the tool run (after = tool gone) */
    json_t *series;                 /* lb-target /series, or NULL */
    const struct profile_load *load;
    uint64_t delay_ns;              /* the server's configured delay: a latency floor */
    int client_parsed;
    uint64_t client_requests;
    uint64_t client_errors;
    uint64_t client_ok;             /* responses the tool counts as successful */
    uint64_t foreign_requests;      /* requests from addresses no host of the row has (engine/peercheck.h):
                                     * out of the server's count before the tool's is reconciled */
    uint64_t kernel_drops;          /* TcpExt ListenOverflows + ListenDrops over the run: connects the
                                     * server never accepted */
    int clock_stepped;              /* the wall clock moved against the monotonic one during the run */
    uint64_t open_at_stop;          /* connections open on the server when the tool stopped */
    int stopped_hard;               /* loadbench stopped the tool (timeout, interrupt) */
    double cpu_seconds;             /* the tool's exact CPU */
    double rss_peak_mb;
    const struct adapter_latency *lat;
    double latency_resolution_ms;
    int latency_digits;             /* significant digits the tool keeps (0: all): its step grows with size */
    const char *model;              /* closed | paced | open, as run */
    uint64_t tool_cpus, target_cpus;
    const struct sampler_tree *tool_samples, *target_samples;
    const struct sampler_summary *tool_summary, *target_summary; /* aggregates, used before
                                     * *_samples (a tree on another host has no local sampler) */
    const struct crosscheck_point *tool_pts, *target_pts;  /* the series, for window averages */
    size_t ntool_pts, ntarget_pts;
    uint64_t tool_spawned_ns;
    json_t *server_histogram;       /* optional: GET /histogram after the run (a fresh target: the tool's requests) */
    json_t *stalls;                 /* optional: lb-target's GET /stalls after the run (NULL: no stalls) */
    json_t *hold_server_time;       /* optional: lb-target's server time over the hold window in ms ("mean",
                                     * "p50"), as target_histogram_window_ms makes it; NULL: the whole run's */
};

/* Whether the hold window's server-counted rate held steady: Mann–Kendall
 * with Sen's slope over 2-5 s blocks of the per-second completions. */
enum crosscheck_steady_verdict {
    CROSSCHECK_STEADY_NONE,         /* no hold window in the series: nothing to say */
    CROSSCHECK_STEADY_NOT_JUDGED,   /* fewer than CROSSCHECK_STEADY_MIN_BLOCKS blocks, or a median of 0 */
    CROSSCHECK_STEADY_STEADY,       /* Sen's change across the hold below 10 % of the median */
    CROSSCHECK_STEADY_UNSHOWN,      /* a change of 10 % or more, but no significant monotone trend */
    CROSSCHECK_STEADY_NOT_STEADY,   /* a change of 10 % or more and p < 0.05 */
};

/* Five blocks are the fewest whose exact two-sided p can fall below 0.05
 * (2/5! = 0.017; four give 2/4! = 0.083 at best). */
#define CROSSCHECK_STEADY_MIN_BLOCKS 5
#define CROSSCHECK_STEADY_CHANGE 0.10
#define CROSSCHECK_STEADY_P 0.05

struct crosscheck_steady {
    enum crosscheck_steady_verdict verdict;
    int seconds;                    /* whole seconds in the hold */
    int block_s, blocks;            /* block length (2-5 s) and count; the seconds left over at the end are not judged */
    double median_rps;              /* of the judged seconds */
    double p;                       /* Mann–Kendall, two-sided, over the block means */
    double change;                  /* Sen's slope x judged span / median: -0.3 = fell by 30 % of the median */
    double ratio;                   /* Sen's line at the span's end / at its start; NAN unless both > 0 */
};

/* The server-side windows of a tool's load. NAN where unknown. */
struct crosscheck_windows {
    double load_start_s;            /* tool spawned -> first request the server saw */
    double whole_s, whole_rps;      /* first request -> last response, server-counted rate over it */
    double hold_s, hold_rps;        /* whole server seconds inside the profile's hold stage */
    uint64_t hold_from_ns, hold_to_ns;  /* that hold window on the monotonic clock (both 0: none) */
    struct crosscheck_steady steady;
};

/* What lb-target counted over the tool run (after - before). */
struct crosscheck_server {
    uint64_t requests, requests_parsed, bad_requests, connections_accepted;
    uint64_t connections_open_max, closed_unread, inflight_max, bytes_out, accept_errors;
    double time_mean_ms, time_p50_ms, time_p99_ms;     /* server time per request, NAN when absent */
    double littles_law_concurrency;                     /* whole_rps x mean server time */
    double connections_per_1k_requests;
};

/* The workload as delivered against what the profile asked for. */
struct crosscheck_workload {
    const char *model;              /* as run (borrowed from the input): closed | paced | open */
    int open_like;                  /* paced or open: offered and achieved apply */
    double offered_rps, achieved_rps;
    int generator_limited;          /* achieved below 99 % of offered */
    double nominal_concurrency, delivered_concurrency;
    int delivered_by_littles_law;   /* 1: Little's law (server delay > 0); 0: open connections */
    int concurrency_shortfall;      /* delivered below half of nominal */
};

enum crosscheck_verdict {
    CROSSCHECK_NO_CLIENT,           /* the tool's count was not read */
    CROSSCHECK_EXACT,               /* client == server */
    CROSSCHECK_EXPLAINED,           /* client below server by at most one response per open connection */
    CROSSCHECK_MISMATCH,
};

/* The tool's request count reconciled with the server's. */
struct crosscheck_reconciliation {
    enum crosscheck_verdict verdict;
    uint64_t server, client;        /* client: 0 with CROSSCHECK_NO_CLIENT */
    uint64_t bound;                 /* connections open when the tool stopped: responses it may not have read */
    uint64_t foreign;               /* the server's requests from foreign addresses, left out of server */
};

enum crosscheck_bottleneck { CROSSCHECK_BOTTLENECK_NONE, CROSSCHECK_BOTTLENECK_TOOL, CROSSCHECK_BOTTLENECK_TARGET };

/* Which witness named the bottleneck. */
enum crosscheck_witness { CROSSCHECK_WITNESS_NONE, CROSSCHECK_WITNESS_CPU, CROSSCHECK_WITNESS_QUEUEING,
                          CROSSCHECK_WITNESS_THREAD, CROSSCHECK_WITNESS_STARVED, CROSSCHECK_WITNESS_OVERHEAD };

/* The starved witness: the target's CPU plus its threads' run-queue wait
 * at 90 % or more of its CPU set (it was almost never idle: running, or
 * runnable while something else had its CPU), of which at least 10 % of
 * the set was waiting. Its CPU share alone misses a target whose pinned
 * core other work takes (under a burner: 10 % of the core). */
#define CROSSCHECK_STARVED_DEMAND 0.9
#define CROSSCHECK_STARVED_WAIT 0.1

/* The thread witness: one thread of the tool's tree at 90 % of a core or
 * more, averaged over the hold window: a saturated event loop. */
#define CROSSCHECK_THREAD_SATURATED_PCT 90.0

/* The queueing witness thresholds: fewer than half the users asked for in
 * flight at the server, and the tool's p50 at least twice the server's. */
#define CROSSCHECK_QUEUE_IN_FLIGHT 0.5
#define CROSSCHECK_QUEUE_LATENCY 2.0
#define CROSSCHECK_QUEUE_MIN_DELAY_NS 1000000

/* Queueing inside the tool, closed model, over the hold window: the
 * server-side concurrency by Little's law (hold rate x server mean time)
 * against the users asked for, and the tool's p50 against the server's. */
struct crosscheck_queueing {
    int judged;                     /* closed, a hold rate, server and tool p50, a server delay of 1 ms or more */
    int fired;
    double asked;                   /* users in the hold stage */
    double in_flight;               /* hold_rps x server mean time */
    double hold_rps, server_mean_ms, server_p50_ms, tool_p50_ms;
    int hold_server_time;           /* 1: server time over the hold window; 0: over the whole run */
};

/* The overhead witness: the tool's own time, when no resource is
 * saturated. In a closed model each user's cycle (users / the
 * server-counted rate) is the server's time plus the time spent
 * elsewhere: the loopback round trip and the tool. The share outside the
 * server, and for both models the tool's p99 against the server's for the
 * same requests, above the noise floor name the tool. The floor is sized
 * from lb-gen, the control, at 200 users and 20 ms on one core each
 * beside other work: 0.3-1.0 % of each user's time (0.06-0.2 ms a
 * request), p99 0.2-1.3 ms over the server's; at 50 users and 2 ms,
 * unpinned, p99 1.8 ms over and 0.34 ms a request outside; k6 v0.48.0 in the same
 * runs: 7-15 % (1.6-3.5 ms), p99 +30-54 ms. */
#define CROSSCHECK_OVERHEAD_SHARE 0.03          /* of each user's time outside the server */
#define CROSSCHECK_OVERHEAD_OUTSIDE_MS 0.5      /* and at least this much a request */
#define CROSSCHECK_OVERHEAD_P99 0.25            /* p99 over the server's by a quarter of it */
#define CROSSCHECK_OVERHEAD_P99_MS 2.0          /* and at least this much */
#define CROSSCHECK_OVERHEAD_SPREAD 2.0          /* and twice the server's own p99 - p50: a busy machine
                                                 * held lb-target's 20 ms at p99 46 ms and lb-gen's p99
                                                 * came 11.6 ms over it (k6's 276 ms) */

struct crosscheck_overhead {
    int judged_share;               /* closed, a server delay of 1 ms or more, a hold rate and server time */
    int judged_p99;                 /* a delay of 1 ms or more, no stalls, the tool's and the server's p99 */
    int fired_share, fired_p99;
    int fired;                      /* closed: both parts; open: the p99 */
    double users, hold_rps;
    double cycle_ms;                /* users / hold_rps: one request's turn for each user */
    double server_ms;               /* the server's mean time per request (its basis: the queueing's) */
    double outside_ms, share;       /* cycle - server; of the cycle */
    double tool_p99_ms, server_p99_ms, p99_excess_ms;   /* server: for the same requests */
    double server_spread_ms;        /* the server's p99 - its p50 for the same requests */
    double p99_floor_ms;            /* what the excess must reach */
};

/* Who limited the run: a CPU set used 90 % or more (target first), else
 * one of the tool's threads at 90 % of a core, else the tool's queueing,
 * else its overhead. */
struct crosscheck_limits {
    enum crosscheck_bottleneck bottleneck;
    enum crosscheck_witness witness;
    struct crosscheck_queueing queueing;
    struct crosscheck_overhead overhead;
    double tool_cpu_pct, target_cpu_pct;        /* 100 = one core */
    double tool_thread_pct;                     /* the tool's busiest thread, the average over the same
                                                 * basis of each interval's busiest (NAN: no samples) */
    double tool_cpu_share, target_cpu_share;    /* of the CPU set */
    double target_wait_pct;                     /* the target's threads' run-queue wait, summed, over
                                                 * the same basis (100 = one core's worth) */
    double target_wait_share;                   /* of the CPU set */
    int tool_cpus, target_cpus;
    int hold_basis;                 /* 1: averaged over the hold window; 0: the whole run */
};

/* The tool's latency against the server's floor and the server's own time. */
struct crosscheck_latency {
    double floor_ms;                /* the server's configured delay */
    int floor_checked;              /* a floor above 0 and a tool latency to check */
    int below_floor;                /* the tool's lowest latency beats the floor by more than its resolution */
    double lowest_ms;               /* that lowest latency: min, else p50 */
    double tool_p50_ms, server_p50_ms, overhead_p50_ms;     /* NAN unless both sides have a p50 */
    double tool_p99_ms, server_p99_ms, overhead_p99_ms;
};

/* Percentile truth: the tool's percentiles against the server's for the
 * same requests (a fresh target per tool run: its window is the tool's
 * run). A tool sees each request at least as long as the server held it,
 * so a tool percentile below the server's by more than both resolutions
 * is wrong. */
#define CROSSCHECK_TRUTH_N 5           /* p50, p90, p99, p99.9, max */
#define CROSSCHECK_SERVER_RESOLUTION 0.001  /* lb-target's histogram: 3 significant digits */

struct crosscheck_truth_row {
    const char *q;                  /* "p50", "p90", "p99", "p99.9", "max" */
    double tool_ms, server_ms;      /* NAN where a side lacks it */
    double error_ms, error_pct;     /* tool - server; of the server's */
    double bound_ms;                /* the least the tool may report: the server's value lower by the
                                     * responses the tool did not count and the samples the server did
                                     * not hold, plus one rank (ties, interpolation) */
    int judged;                     /* q lies above the share of the tool's samples the server did not
                                     * hold (failed connects a tool times are legitimately fast) */
    double margin_ms;               /* the resolutions at this size: the server's bucket and the tool's step */
    int below_server;               /* judged, and the tool below that bound by more than the margin */
};

struct crosscheck_truth {
    int judged;                     /* a tool latency and a server histogram to compare */
    double resolution_ms;           /* the tool's stated resolution */
    struct crosscheck_truth_row rows[CROSSCHECK_TRUTH_N];
    int nbelow;                     /* rows flagged below the server */
};

/* Coordinated omission: during each scheduled stall, did the tool keep
 * sending on its schedule (the server's per-second arrivals inside the
 * stalls against outside), and does its p99 include the wait of the
 * requests due in them? */
enum crosscheck_sending {
    CROSSCHECK_SENDING_KEPT,
    CROSSCHECK_SENDING_SLOWED,
    CROSSCHECK_SENDING_STOPPED,
    CROSSCHECK_SENDING_CAUGHT_UP,   /* stopped, then sent the missed requests in the window after */
};
#define CROSSCHECK_CO_KEPT 0.8          /* arrivals in stalls at 80 % of outside or more: kept its schedule */
#define CROSSCHECK_CO_STOPPED 0.2       /* below 20 %: stopped sending */
#define CROSSCHECK_CO_BURSTY 0.5        /* outside the stalls, a median second below half the mean one:
                                         * arrivals in bursts (2000 clients paced at one request per 4 s
                                         * all fire together), no steady schedule to judge a stall by */

/* With lb-target's per-stall counts (GET /stalls: arrivals before, in and
 * after each stall), the verdict holds for stalls of 100 ms and more: a
 * Poisson test of all the stalls' arrivals together against the count
 * expected (the asked rate of a constant open schedule, else the windows
 * just before the stalls), when that is CROSSCHECK_CO_MIN_EXPECTED or
 * more. Below CROSSCHECK_CO_KEPT of expected and significantly so
 * (P(X <= in) < CROSSCHECK_CO_ALPHA) it is slowed, below
 * CROSSCHECK_CO_STOPPED stopped; stopped and caught up when the after
 * windows hold significantly more than expected and at least
 * CROSSCHECK_CO_CATCH_UP of what the stalls missed. */
#define CROSSCHECK_CO_MIN_STALL_S 0.1
#define CROSSCHECK_CO_MIN_EXPECTED 20
#define CROSSCHECK_CO_ALPHA 1e-3
#define CROSSCHECK_CO_CATCH_UP 0.5
#define CROSSCHECK_CO_PER_STALL 32      /* stalls listed one by one in run.json (the first this many) */

struct crosscheck_co_counts {
    int stalls;                     /* complete stalls whose three windows lie inside the load */
    double window_s;                /* the before and after windows' length */
    double in, before, after;       /* arrivals summed over those stalls */
    double expected_in, expected_after;
    int from_schedule;              /* expected from the asked rate (else from the before windows) */
    double p_below;                 /* P(X <= in) for X ~ Poisson(expected_in) */
    double p_after;                 /* P(X >= after) for X ~ Poisson(expected_after) */
    int nper;                       /* entries in per[] */
    double per[CROSSCHECK_CO_PER_STALL][3];   /* before, in, after of each stall */
};

struct crosscheck_co {
    int present;                    /* the target stalled */
    int judged;                     /* stalls inside the load with whole seconds in them, and a rate outside */
    char why_not[200];              /* when present but not judged ("" otherwise) */
    int stalls;                     /* stalls inside the tool's load */
    double stall_s, every_s;
    double in_stall_rps, outside_rps;           /* server-counted arrivals per second (median outside) */
    double outside_mean_rps;                    /* the mean outside: far above the median, arrivals come in bursts */
    double accepts_in_stall_per_s;              /* new connections per second inside stalls */
    double kept;                                /* in_stall_rps / outside_rps */
    enum crosscheck_sending sending;
    double not_sent_per_stall;                  /* (outside - inside) x stall length */
    double tool_p99_ms;
    double open_p99_floor_ms;       /* an open schedule's p99 is at least this (NAN: stalls too rare to reach p99) */
    int p99_includes;               /* the tool's p99 reaches half that floor */
    int counted;                    /* judged from lb-target's per-stall counts (else its per-second series) */
    struct crosscheck_co_counts n;  /* with counted */
    char verdict[768];
};

/* A row the evidence contradicts: its count, after reconciling, or a
 * latency percentile below what the server held. Its status is suspect. */
struct crosscheck_suspect {
    int count;                      /* the count does not reconcile */
    int latency;                    /* a judged percentile below the server's (not with a stepped clock) */
    char reason[480];               /* "" unless count or latency */
};

struct crosscheck_efficiency {
    double requests_per_cpu_second, rps_per_mb;     /* NAN without CPU time / RSS */
};

struct crosscheck_result {
    struct crosscheck_windows windows;
    struct crosscheck_server server;
    struct crosscheck_workload workload;
    struct crosscheck_reconciliation reconciliation;
    struct crosscheck_limits limits;
    struct crosscheck_latency latency;
    struct crosscheck_truth truth;
    struct crosscheck_co co;
    struct crosscheck_suspect suspect;
    struct crosscheck_efficiency efficiency;
};

/* The step a tool with absolute resolution resolution_ms that keeps digits
 * significant digits (0: all) reports at ms: Locust (1 ms, 2 digits) steps
 * by 1 ms below 100 ms, 10 ms from 100 ms, 100 ms from 1 s. */
double crosscheck_resolution_at(double resolution_ms, int digits, double ms);

/* Whether the wall clock stepped against the monotonic one between two
 * readings of realtime - monotonic (off0_ns, off1_ns) elapsed_ns apart:
 * more than 10 ms plus NTP's largest slew (500 ppm). */
int crosscheck_clock_stepped(int64_t off0_ns, int64_t off1_ns, uint64_t elapsed_ns);

/* Compute every figure above from in. Always succeeds. */
void crosscheck_compute(const struct crosscheck_in *in, struct crosscheck_result *out);

/* Add "windows", "server", "workload", "crosscheck", "limits",
 * "latency_check" and "efficiency" objects to res (in that order), and the
 * warnings they call for (strings) to warnings. */
void crosscheck_to_json(const struct crosscheck_result *r, json_t *res, json_t *warnings);

/* The steadiness verdict for n per-second counts: blocks of n/8 seconds
 * (2 to 5), Mann–Kendall and Sen's slope over their means. */
void crosscheck_steady_judge(const double *per_s, size_t n, struct crosscheck_steady *out);

/* A short phrase for a flagged hold ("not steady: rate rose 2.6x through
 * the hold") into buf, or "" when steady, not judged or none. Returns buf. */
const char *crosscheck_steady_flag(const struct crosscheck_steady *s, char *buf, size_t len);

/* After every tool of a run: each latency_check.coordinated_omission
 * verdict that is judged gains the reference of an lb-gen row in the open
 * model ("; lb-gen open at the same rate: p99 540 ms") and "reference". */
void crosscheck_co_reference(json_t *runs);

/* crosscheck_compute, then crosscheck_to_json. */
void crosscheck_fill(const struct crosscheck_in *in, json_t *res, json_t *warnings);

/* The time-weighted average CPU % of pts over [from_ns, to_ns), or NAN
 * when samples cover less than half of it. */
double crosscheck_window_cpu(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns);

/* One phase of a tool's run from its sampled series: the CPU-seconds of
 * pts over [from_ns, to_ns) (each point's CPU over the part of its
 * interval inside), the highest RSS of a point whose interval overlaps it,
 * and how much of the window the points cover. */
struct crosscheck_phase {
    double cpu_s, rss_peak_mb, covered_s;
};
void crosscheck_window_phase(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns,
                             struct crosscheck_phase *out);

/* The same for the busiest thread's % (thread_pct). */
double crosscheck_window_thread(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns);

/* The same for the run-queue wait (wait_pct). */
double crosscheck_window_wait(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns);

/* responses_completed(after) - responses_completed(before). */
uint64_t crosscheck_server_requests(json_t *before, json_t *after);

/* The verdict for a client count against the server count: exact,
 * explained (client below server by at most bound) or mismatch. */
enum crosscheck_verdict crosscheck_verdict(uint64_t client, uint64_t server, uint64_t bound);

/* "exact", "explained", "mismatch", "no client count": as run.json says it. */
const char *crosscheck_verdict_name(enum crosscheck_verdict v);

/* Whole-machine CPU over a tool run from two /proc/stat readings, with what
 * could not be attributed to the tool, the target or loadbench itself
 * (kernel network work on loopback is charged to whoever runs). Warns
 * above 5 % of a core. */
json_t *crosscheck_machine_json(const struct sampler_machine *m0, const struct sampler_machine *m1, double tool_cpu_s,
                                double target_cpu_s, double self_cpu_s, json_t *warnings);

/* The same for a machine of ncpu online CPUs (another host's). */
json_t *crosscheck_machine_json_n(const struct sampler_machine *m0, const struct sampler_machine *m1, long ncpu,
                                  double tool_cpu_s, double target_cpu_s, double self_cpu_s, json_t *warnings);

/* The network witness, once the row has its NIC counters ("nic") and the
 * run its data path ("path", remote/runpath.h): the row is network-bound
 * when a tool host's route interface received at least
 * CROSSCHECK_NETWORK_SHARE of the path's measured bulk bytes/s over the
 * load (windows.whole_s), or when NIC frames were missed or overrun
 * (rx_missed_errors, rx_fifo_errors; never rx_dropped, which also counts
 * frames of protocols nobody listens to), or TCP segments were
 * retransmitted. Sets limits.bottleneck "network", limits.witness
 * ("bytes", "nic", "retransmits"), limits.reason and a warning (a
 * target-bound row stays target-bound; a row neither ok nor suspect, one
 * that failed, never gets a network bottleneck); always adds
 * limits.network with the figures. Nothing without a measured path. */
#define CROSSCHECK_NETWORK_SHARE 0.9
void crosscheck_network(json_t *row, const json_t *path);

#endif
