#include "engine/crosscheck.h"
#include "common/numstats.h"
#include "engine/target.h"
#include "common/hist.h"
#include "common/jsonutil.h"
#include "common/util.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t crosscheck_server_requests(json_t *before, json_t *after)
{
    uint64_t b = target_u64(before, "responses_completed"), a = target_u64(after, "responses_completed");
    return a > b ? a - b : 0;
}

enum crosscheck_verdict crosscheck_verdict(uint64_t client, uint64_t server, uint64_t bound)
{
    if (client == server)
        return CROSSCHECK_EXACT;
    if (client < server && server - client <= bound)
        return CROSSCHECK_EXPLAINED;
    return CROSSCHECK_MISMATCH;
}

const char *crosscheck_verdict_name(enum crosscheck_verdict v)
{
    switch (v) {
    case CROSSCHECK_EXACT: return "exact";
    case CROSSCHECK_EXPLAINED: return "explained";
    case CROSSCHECK_MISMATCH: return "mismatch";
    case CROSSCHECK_NO_CLIENT: break;
    }
    return "no client count";
}

/* The time-weighted average of the double at offset `field` of each point. */
static double window_avg(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns, size_t field)
{
    double weight = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t end = pts[i].end_ns, start = end - (uint64_t)(pts[i].interval_s * 1e9);
        uint64_t a = start > from_ns ? start : from_ns, b = end < to_ns ? end : to_ns;
        if (b <= a)
            continue;
        double w = (double)(b - a);
        sum += *(const double *)((const char *)&pts[i] + field) * w;
        weight += w;
    }
    /* Less than half the window covered by samples is no average. */
    if (weight < 0.5 * (double)(to_ns - from_ns))
        return NAN;
    return sum / weight;
}

/* window_avg over the whole series, from its first interval's start to
 * its last point (NAN without points). */
static double series_avg(const struct crosscheck_point *pts, size_t n, size_t field)
{
    if (!n)
        return NAN;
    return window_avg(pts, n, pts[0].end_ns - (uint64_t)(pts[0].interval_s * 1e9), pts[n - 1].end_ns, field);
}

double crosscheck_window_cpu(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns)
{
    return window_avg(pts, n, from_ns, to_ns, offsetof(struct crosscheck_point, cpu_pct));
}

void crosscheck_window_phase(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns,
                             struct crosscheck_phase *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        uint64_t end = pts[i].end_ns, start = end - (uint64_t)(pts[i].interval_s * 1e9);
        uint64_t a = start > from_ns ? start : from_ns, b = end < to_ns ? end : to_ns;
        if (b <= a)
            continue;
        out->cpu_s += pts[i].cpu_pct / 100 * (double)(b - a) / 1e9;
        out->covered_s += (double)(b - a) / 1e9;
        if (pts[i].rss_mb > out->rss_peak_mb)
            out->rss_peak_mb = pts[i].rss_mb;
    }
}

double crosscheck_window_thread(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns)
{
    return window_avg(pts, n, from_ns, to_ns, offsetof(struct crosscheck_point, thread_pct));
}

double crosscheck_window_wait(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns)
{
    return window_avg(pts, n, from_ns, to_ns, offsetof(struct crosscheck_point, wait_pct));
}

/* ---- compute ---- */

/* The whole window from the server's first request and last response. */
static void windows_from_stats(const struct crosscheck_in *in, struct crosscheck_windows *w)
{
    uint64_t first_ns = target_u64(in->after, "first_request_ns"), last_ns = target_u64(in->after, "last_response_ns");
    if (first_ns && last_ns > first_ns) {
        w->whole_s = (double)(last_ns - first_ns) / 1e9;
        w->load_start_s = (double)(first_ns - (in->tool_spawned_ns ? in->tool_spawned_ns : first_ns)) / 1e9;
        if (in->tool_spawned_ns > first_ns)
            w->load_start_s = 0;
    }
}

/* The first and last full second of the series with traffic, or -1. */
static long series_first_busy(json_t *secs, long *last)
{
    long first = -1;
    *last = -1;
    for (size_t i = 0; i < json_array_size(secs); i++) {
        json_t *s = json_array_get(secs, i);
        if (json_is_true(json_object_get(s, "partial")))
            continue;
        if (target_u64(s, "requests") + target_u64(s, "completions")) {
            if (first < 0)
                first = (long)i;
            *last = (long)i;
        }
    }
    return first;
}

/* Completions per second over the whole seconds inside [load start + hold
 * start, load start + hold end); the load starts at the server's first
 * request (series second first when the stats have no timestamp). */
static void windows_hold(const struct crosscheck_in *in, json_t *secs, long first, struct crosscheck_windows *w)
{
    uint64_t hs, he;
    if (profile_hold_window(in->load, &hs, &he))
        return;
    uint64_t first_ns = target_u64(in->after, "first_request_ns"), started_ns = target_u64(in->after, "started_ns");
    double t0 = first_ns && started_ns ? (double)(first_ns - started_ns) / 1e9 : (double)first;
    double a = t0 + (double)hs / 1e9, b = t0 + (double)he / 1e9;
    if (started_ns) {
        w->hold_from_ns = started_ns + (uint64_t)(a * 1e9);
        w->hold_to_ns = started_ns + (uint64_t)(b * 1e9);
    }
    uint64_t sum = 0;
    int count = 0;
    double *per_s = util_xcalloc(json_array_size(secs) + 1, sizeof *per_s);
    for (size_t i = 0; i < json_array_size(secs); i++) {
        json_t *s = json_array_get(secs, i);
        double t = (double)json_integer_value(json_object_get(s, "t"));
        if (t >= ceil(a) && t + 1 <= floor(b) && !json_is_true(json_object_get(s, "partial"))) {
            sum += target_u64(s, "completions");
            per_s[count++] = (double)target_u64(s, "completions");
        }
    }
    if (count > 0) {
        w->hold_s = count;
        w->hold_rps = (double)sum / count;
        crosscheck_steady_judge(per_s, (size_t)count, &w->steady);
    }
    free(per_s);
}

void crosscheck_steady_judge(const double *per_s, size_t n, struct crosscheck_steady *out)
{
    *out = (struct crosscheck_steady){.verdict = CROSSCHECK_STEADY_NOT_JUDGED, .seconds = (int)n, .median_rps = NAN,
                                      .p = NAN, .change = NAN, .ratio = NAN};
    /* Per-second counts are autocorrelated (a stall drags two seconds):
     * judge block means, about eight blocks over the hold, 2-5 s each. */
    size_t b = n / 8 < 2 ? 2 : n / 8 > 5 ? 5 : n / 8, nb = n / b;
    out->block_s = (int)b;
    out->blocks = (int)nb;
    if (nb < CROSSCHECK_STEADY_MIN_BLOCKS)
        return;
    double *blk = util_xcalloc(nb, sizeof *blk);
    for (size_t i = 0; i < nb * b; i++)
        blk[i / b] += per_s[i] / (double)b;
    struct stats_summary sum;
    stats_summarize(per_s, nb * b, &sum);
    struct stats_trend t;
    stats_trend_test(blk, nb, &t);
    free(blk);
    out->median_rps = sum.median;
    out->p = t.p;
    out->change = sum.median > 0 ? t.slope * (double)nb / sum.median : NAN;
    /* Sen's line from the first block's start to the last block's end. */
    double start = t.intercept - 0.5 * t.slope, end = t.intercept + ((double)nb - 0.5) * t.slope;
    if (start > 0 && end > 0)
        out->ratio = end / start;
    if (isnan(out->change))
        return; /* a median of 0 req/s: no size to judge a change by */
    if (fabs(out->change) < CROSSCHECK_STEADY_CHANGE)
        out->verdict = CROSSCHECK_STEADY_STEADY;
    else
        out->verdict = t.p < CROSSCHECK_STEADY_P ? CROSSCHECK_STEADY_NOT_STEADY : CROSSCHECK_STEADY_UNSHOWN;
}

const char *crosscheck_steady_flag(const struct crosscheck_steady *s, char *buf, size_t len)
{
    buf[0] = 0;
    if (s->verdict == CROSSCHECK_STEADY_UNSHOWN)
        snprintf(buf, len, "not shown steady: rate moved %+.0f%% with no clear trend through the hold", s->change * 100);
    else if (s->verdict != CROSSCHECK_STEADY_NOT_STEADY)
        return buf;
    else if (isnan(s->ratio))
        snprintf(buf, len, "not steady: rate %s by %.0f%% of its median through the hold", s->change > 0 ? "rose" : "fell",
                 fabs(s->change) * 100);
    else if (s->ratio >= 1.5)
        snprintf(buf, len, "not steady: rate rose %.1fx through the hold", s->ratio);
    else
        snprintf(buf, len, "not steady: rate %s %.0f%% through the hold", s->ratio > 1 ? "rose" : "fell",
                 fabs(s->ratio - 1) * 100);
    return buf;
}

static void compute_windows(const struct crosscheck_in *in, uint64_t server, struct crosscheck_windows *w)
{
    *w = (struct crosscheck_windows){.load_start_s = NAN, .whole_s = NAN, .whole_rps = NAN, .hold_s = NAN, .hold_rps = NAN};
    windows_from_stats(in, w);
    json_t *secs = json_object_get(in->series, "seconds");
    if (json_is_array(secs) && json_array_size(secs)) {
        /* Per-second completions from the server's clock. */
        long last, first = series_first_busy(secs, &last);
        if (isnan(w->whole_s) && first >= 0) {
            w->whole_s = (double)(last - first + 1);
            w->load_start_s = NAN;
        }
        if (first >= 0)
            windows_hold(in, secs, first, w);
    }
    if (w->whole_s > 0)
        w->whole_rps = (double)server / w->whole_s;
}

static double window_ms(json_t *stats, const char *q)
{
    json_t *h = json_object_get(json_object_get(json_object_get(stats, "window"), "server_time_ns"), q);
    return json_is_number(h) ? json_number_value(h) / 1e6 : NAN;
}

static void compute_server(const struct crosscheck_in *in, const struct crosscheck_windows *w, struct crosscheck_server *s)
{
    json_t *win = json_object_get(in->after, "window");
    s->requests = crosscheck_server_requests(in->before, in->after);
    s->requests_parsed = target_delta(in->before, in->after, "requests_parsed");
    s->bad_requests = target_delta(in->before, in->after, "bad_requests");
    s->connections_accepted = target_delta(in->before, in->after, "connections_accepted");
    s->connections_open_max = target_u64(win, "connections_open_max");
    s->closed_unread = target_delta(in->before, in->after, "closed_unread");
    s->inflight_max = target_u64(win, "inflight_max");
    s->bytes_out = target_delta(in->before, in->after, "bytes_out");
    s->accept_errors = target_delta(in->before, in->after, "accept_errors");
    s->time_mean_ms = window_ms(in->after, "mean");
    s->time_p50_ms = window_ms(in->after, "p50");
    s->time_p99_ms = window_ms(in->after, "p99");
    s->littles_law_concurrency = w->whole_rps * s->time_mean_ms / 1e3;
    s->connections_per_1k_requests = s->requests ? (double)s->connections_accepted * 1000.0 / (double)s->requests : NAN;
}

/* The arrival rate of the hold stage (else the peak): what an open or
 * paced model offered. */
static double offered_rps(const struct profile_load *load)
{
    uint64_t hs, he;
    double offered = profile_load_peak(load);
    if (profile_hold_window(load, &hs, &he) == 0) {
        uint64_t t = 0;
        for (size_t i = 0; i < load->nstages; i++) {
            if (t == hs)
                offered = load->stages[i].target;
            t += load->stages[i].duration_ns;
        }
    }
    return offered;
}

static void compute_workload(const struct crosscheck_in *in, const struct crosscheck_result *r,
                             struct crosscheck_workload *wl)
{
    double nominal = profile_load_peak(in->load);
    wl->model = in->model ? in->model : "closed";
    wl->open_like = in->model && (!strcmp(in->model, "open") || !strcmp(in->model, "paced"));
    wl->offered_rps = wl->achieved_rps = NAN;
    if (wl->open_like) {
        wl->offered_rps = offered_rps(in->load);
        wl->achieved_rps = !isnan(r->windows.hold_rps) ? r->windows.hold_rps : r->windows.whole_rps;
        wl->generator_limited = !isnan(wl->achieved_rps) && wl->achieved_rps < 0.99 * wl->offered_rps;
        nominal = in->load->max_inflight ? (double)in->load->max_inflight : NAN;
    }
    /* Concurrency the server saw, beside what the profile asked for. At
     * zero delay in-flight is near zero for everyone: compare open
     * connections instead. */
    wl->delivered_by_littles_law = in->delay_ns > 0;
    wl->nominal_concurrency = nominal;
    wl->delivered_concurrency = in->delay_ns > 0 ? r->server.littles_law_concurrency : (double)r->server.connections_open_max;
    wl->concurrency_shortfall = !isnan(nominal) && !isnan(wl->delivered_concurrency) &&
                                wl->delivered_concurrency < 0.5 * nominal;
}

/* The responses a stopped tool may not have read: connections open when it
 * stopped. A tool that exits by itself may already be closing at our last
 * sample, so also take the server's open connections in the last two
 * seconds with traffic, and the most requests in flight in them (with a
 * new connection per request, one lives a millisecond: the second's end
 * finds none open, yet its request may be the one unread), and the
 * connections closed in them, never more than the most ever open at once
 * (siege over TLS closes both its connections in its last second, each
 * with a response written and not read: 2 unread, none open at the
 * second's end, 1 in flight at most); failing all, the most ever open. */
static uint64_t reconcile_bound(const struct crosscheck_in *in, uint64_t open_max)
{
    uint64_t bound = in->open_at_stop;
    json_t *secs = json_object_get(in->series, "seconds");
    if (json_is_array(secs)) {
        long last = -1;
        for (size_t i = 0; i < json_array_size(secs); i++)
            if (target_u64(json_array_get(secs, i), "completions"))
                last = (long)i;
        for (long i = last - 1; i <= last && last >= 0; i++) {
            if (i < 0)
                continue;
            json_t *sec = json_array_get(secs, (size_t)i);
            uint64_t o = target_u64(sec, "open"), f = target_u64(sec, "inflight_max");
            uint64_t c = target_u64(sec, "closes");
            if (c > open_max)
                c = open_max;
            if (o > bound)
                bound = o;
            if (f > bound)
                bound = f;
            if (c > bound)
                bound = c;
        }
    }
    return bound ? bound : open_max;
}

/* The server's requests from foreign addresses (engine/peercheck.h) among
 * all it counted: never more than all. */
static uint64_t foreign_of(const struct crosscheck_in *in, uint64_t all)
{
    return in->foreign_requests < all ? in->foreign_requests : all;
}

static void compute_reconciliation(const struct crosscheck_in *in, const struct crosscheck_server *s,
                                   struct crosscheck_reconciliation *rc)
{
    rc->foreign = foreign_of(in, s->requests);
    rc->server = s->requests - rc->foreign;
    rc->bound = reconcile_bound(in, s->connections_open_max);
    rc->client = in->client_parsed ? in->client_requests : 0;
    rc->verdict = in->client_parsed ? crosscheck_verdict(in->client_requests, rc->server, rc->bound) : CROSSCHECK_NO_CLIENT;
}

static int popcount(uint64_t m, int dflt)
{
    return m ? __builtin_popcountll(m) : dflt;
}

static double ms_or_nan(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The queueing witness. In a closed model each user has one request
 * outstanding, so N users keep N requests at the server unless the time
 * goes elsewhere; fewer than half in flight there, while the tool's
 * latency is at least twice the server's, means requests wait inside the
 * tool. Below a 1 ms delay the loopback round trip is not small against
 * the server's time and in-flight at the server says nothing. */
static void compute_queueing(const struct crosscheck_in *in, const struct crosscheck_result *r, struct crosscheck_queueing *q)
{
    memset(q, 0, sizeof *q);
    q->server_mean_ms = ms_or_nan(in->hold_server_time, "mean");
    q->server_p50_ms = ms_or_nan(in->hold_server_time, "p50");
    q->hold_server_time = !isnan(q->server_mean_ms) && !isnan(q->server_p50_ms);
    if (!q->hold_server_time) {
        q->server_mean_ms = r->server.time_mean_ms;
        q->server_p50_ms = r->server.time_p50_ms;
    }
    q->hold_rps = r->windows.hold_rps;
    q->asked = offered_rps(in->load);
    q->tool_p50_ms = in->lat ? in->lat->p50 : NAN;
    q->in_flight = q->hold_rps * q->server_mean_ms / 1e3;
    q->judged = !r->workload.open_like && in->delay_ns >= CROSSCHECK_QUEUE_MIN_DELAY_NS && q->asked >= 1 &&
                !isnan(q->in_flight) && !isnan(q->tool_p50_ms) && q->server_p50_ms > 0;
    q->fired = q->judged && q->in_flight < CROSSCHECK_QUEUE_IN_FLIGHT * q->asked &&
               q->tool_p50_ms >= CROSSCHECK_QUEUE_LATENCY * q->server_p50_ms;
}

/* The overhead witness (crosscheck.h): each user's time outside the
 * server in a closed model, and the tool's p99 over the server's for the
 * same requests (truth's p99 row) in both. A closed model needs both: a
 * busy machine's wake-ups alone lengthen either one (lb-gen, 50 users at
 * 2 ms, unpinned: p99 +1.8 ms, 0.34 ms a request outside). The share
 * is judged on the hold window's server time only: over a whole run the
 * start-up's slow requests make a 3 s lb-gen run look 22 % outside. A
 * machine too busy to hold the server's own delay (its p99 for the same
 * requests far above its p50) lengthens every client's p99 with it: the
 * floor is twice that spread at least. Stalls are the
 * coordinated-omission verdict's to judge: a p99 that holds a stall's
 * wait is not the tool's overhead. */
static void compute_overhead(const struct crosscheck_in *in, const struct crosscheck_result *r,
                             const struct crosscheck_queueing *q, struct crosscheck_overhead *o)
{
    memset(o, 0, sizeof *o);
    int delayed = in->delay_ns >= CROSSCHECK_QUEUE_MIN_DELAY_NS;
    o->users = q->asked;
    o->hold_rps = q->hold_rps;
    o->server_ms = q->server_mean_ms;
    o->cycle_ms = o->hold_rps > 0 ? o->users / o->hold_rps * 1e3 : NAN;
    o->outside_ms = o->cycle_ms - o->server_ms;
    o->share = o->cycle_ms > 0 ? o->outside_ms / o->cycle_ms : NAN;
    o->judged_share = delayed && !r->workload.open_like && q->hold_server_time && o->users >= 1 && !isnan(o->share) &&
                      o->server_ms > 0;
    o->fired_share = o->judged_share && o->share >= CROSSCHECK_OVERHEAD_SHARE &&
                     o->outside_ms >= CROSSCHECK_OVERHEAD_OUTSIDE_MS;
    const struct crosscheck_truth_row *p99 = &r->truth.rows[2];
    o->tool_p99_ms = p99->tool_ms;
    o->server_p99_ms = p99->server_ms;
    o->p99_excess_ms = o->tool_p99_ms - o->server_p99_ms;
    int stalls = json_object_get(json_object_get(in->stalls, "delay"), "stall") != NULL;
    o->judged_p99 = delayed && !stalls && !isnan(o->p99_excess_ms) && o->server_p99_ms > 0;
    double step = crosscheck_resolution_at(in->latency_resolution_ms, in->latency_digits, o->tool_p99_ms);
    o->server_spread_ms = o->server_p99_ms - r->truth.rows[0].server_ms;
    o->p99_floor_ms = fmax(fmax(CROSSCHECK_OVERHEAD_P99 * o->server_p99_ms, CROSSCHECK_OVERHEAD_P99_MS),
                           CROSSCHECK_OVERHEAD_SPREAD * (isnan(o->server_spread_ms) ? 0 : o->server_spread_ms));
    o->fired_p99 = o->judged_p99 && o->p99_excess_ms >= o->p99_floor_ms && o->p99_excess_ms > step;
    o->fired = r->workload.open_like ? o->fired_p99 : o->fired_share && o->fired_p99;
}

/* The tool's and the target's CPU and the tool's busiest thread over the
 * hold window where samples cover it (start-up is not load), else over
 * the whole run. */
static void limits_basis(const struct crosscheck_in *in, const struct crosscheck_windows *w, struct crosscheck_limits *l)
{
    struct sampler_summary ts, gs;
    memset(&ts, 0, sizeof ts);
    memset(&gs, 0, sizeof gs);
    if (in->tool_summary)
        ts = *in->tool_summary;
    else if (in->tool_samples)
        sampler_tree_summary(in->tool_samples, &ts);
    if (in->target_summary)
        gs = *in->target_summary;
    else if (in->target_samples)
        sampler_tree_summary(in->target_samples, &gs);
    l->tool_cpu_pct = ts.cpu_avg_pct;
    l->target_cpu_pct = gs.cpu_avg_pct;
    l->tool_thread_pct = series_avg(in->tool_pts, in->ntool_pts, offsetof(struct crosscheck_point, thread_pct));
    l->target_wait_pct = series_avg(in->target_pts, in->ntarget_pts, offsetof(struct crosscheck_point, wait_pct));
    l->hold_basis = 0;
    if (w->hold_to_ns > w->hold_from_ns) {
        double a = crosscheck_window_cpu(in->tool_pts, in->ntool_pts, w->hold_from_ns, w->hold_to_ns);
        double b = crosscheck_window_cpu(in->target_pts, in->ntarget_pts, w->hold_from_ns, w->hold_to_ns);
        if (!isnan(a) && !isnan(b)) {
            l->tool_cpu_pct = a;
            l->target_cpu_pct = b;
            l->tool_thread_pct = crosscheck_window_thread(in->tool_pts, in->ntool_pts, w->hold_from_ns, w->hold_to_ns);
            l->target_wait_pct = crosscheck_window_wait(in->target_pts, in->ntarget_pts, w->hold_from_ns, w->hold_to_ns);
            l->hold_basis = 1;
        }
    }
}

/* The witnesses in order: the target's CPU set (used, or wanted while
 * other work had it), the tool's CPU set, one thread of the tool,
 * queueing inside the tool, the tool's own overhead. Needs the truth. */
static void compute_limits(const struct crosscheck_in *in, const struct crosscheck_result *r, struct crosscheck_limits *l)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    l->tool_cpus = popcount(in->tool_cpus, (int)ncpu);
    l->target_cpus = popcount(in->target_cpus, (int)ncpu);
    limits_basis(in, &r->windows, l);
    l->tool_cpu_share = l->tool_cpu_pct / (100.0 * l->tool_cpus);
    l->target_cpu_share = l->target_cpu_pct / (100.0 * l->target_cpus);
    l->target_wait_share = l->target_wait_pct / (100.0 * l->target_cpus);
    l->bottleneck = CROSSCHECK_BOTTLENECK_TOOL;
    l->witness = CROSSCHECK_WITNESS_CPU;
    compute_queueing(in, r, &l->queueing);
    compute_overhead(in, r, &l->queueing, &l->overhead);
    if (l->target_cpu_share >= 0.9)
        l->bottleneck = CROSSCHECK_BOTTLENECK_TARGET;
    else if (l->target_wait_share >= CROSSCHECK_STARVED_WAIT &&
             l->target_cpu_share + l->target_wait_share >= CROSSCHECK_STARVED_DEMAND) {
        l->bottleneck = CROSSCHECK_BOTTLENECK_TARGET;
        l->witness = CROSSCHECK_WITNESS_STARVED;
    }
    else if (l->tool_cpu_share >= 0.9)
        ;
    else if (l->tool_thread_pct >= CROSSCHECK_THREAD_SATURATED_PCT)
        l->witness = CROSSCHECK_WITNESS_THREAD;
    else if (l->queueing.fired)
        l->witness = CROSSCHECK_WITNESS_QUEUEING;
    else if (l->overhead.fired)
        l->witness = CROSSCHECK_WITNESS_OVERHEAD;
    else {
        l->bottleneck = CROSSCHECK_BOTTLENECK_NONE;
        l->witness = CROSSCHECK_WITNESS_NONE;
    }
}

static void compute_latency(const struct crosscheck_in *in, const struct crosscheck_server *s, struct crosscheck_latency *lc)
{
    const struct adapter_latency *lat = in->lat;
    lc->floor_ms = (double)in->delay_ns / 1e6;
    lc->floor_checked = lat && lc->floor_ms > 0;
    lc->lowest_ms = NAN;
    lc->below_floor = 0;
    if (lc->floor_checked) {
        lc->lowest_ms = !isnan(lat->min) ? lat->min : lat->p50;
        lc->below_floor = !isnan(lc->lowest_ms) && lc->lowest_ms < lc->floor_ms - in->latency_resolution_ms;
    }
    lc->tool_p50_ms = lc->server_p50_ms = lc->overhead_p50_ms = NAN;
    lc->tool_p99_ms = lc->server_p99_ms = lc->overhead_p99_ms = NAN;
    if (lat && !isnan(lat->p50) && !isnan(s->time_p50_ms)) {
        lc->tool_p50_ms = lat->p50;
        lc->server_p50_ms = s->time_p50_ms;
        lc->overhead_p50_ms = lat->p50 - s->time_p50_ms;
    }
    if (lat && !isnan(lat->p99) && !isnan(s->time_p99_ms)) {
        lc->tool_p99_ms = lat->p99;
        lc->server_p99_ms = s->time_p99_ms;
        lc->overhead_p99_ms = lat->p99 - s->time_p99_ms;
    }
}

double crosscheck_resolution_at(double resolution_ms, int digits, double ms)
{
    if (digits <= 0 || !(ms > 0))
        return resolution_ms;
    double step = pow(10, floor(log10(ms)) - digits + 1);
    return step > resolution_ms ? step : resolution_ms;
}

int crosscheck_clock_stepped(int64_t off0_ns, int64_t off1_ns, uint64_t elapsed_ns)
{
    double moved = fabs((double)(off1_ns - off0_ns));
    return moved > 10e6 + (double)elapsed_ns * 500e-6;
}

/* The tool's samples (n) and those of them the server held (held): the
 * tool's count with its errors, which may be failed connects it timed;
 * at most the errors are unheld, and never more held than the server
 * served (s). Both at their most lenient: a larger unheld share judges
 * fewer percentiles. */
static void truth_samples(const struct crosscheck_in *in, double s, double *n, double *held)
{
    double r = (double)in->client_requests, e = (double)in->client_errors;
    *n = r + e;
    *held = r > e ? r - e : 0;
    if (*held > s)
        *held = s;
}

/* The server's value at percentile q (100: max) over the tool's requests,
 * and the bound a tool may not go below. Above the tool's (1 - q) n
 * slowest samples lie at most (1 - q) n of the server's held requests,
 * plus the s - held the tool did not time: so its q is at least the
 * server's value at rank s - (1 - q) n - (s - held) - 1 (one rank more for
 * ties and interpolation). A q at or below the unheld share reaches no
 * rank: not judged. From the histogram when there is one, else the /stats
 * figure for both, judged only when every sample was held. Returns
 * whether q is judged. */
static int truth_server(const struct crosscheck_in *in, struct hist *h, double q, const char *key, double *at_ms,
                        double *bound_ms)
{
    if (!h || !hist_count(h)) {
        *at_ms = *bound_ms = window_ms(in->after, key);
        return !in->client_parsed || in->client_errors == 0;
    }
    double s = (double)hist_count(h), n = s, held = s;
    if (in->client_parsed)
        truth_samples(in, s, &n, &held);
    double top = (1 - q / 100) * n + (s - held) + 1;
    double low = 100 * (1 - top / s);
    *at_ms = (double)(q >= 100 ? hist_max(h) : hist_percentile(h, q)) / 1e6;
    *bound_ms = low <= 0 ? 0 : (double)hist_percentile(h, low) / 1e6;
    return low > 0;
}

/* The tool's p50..max against the server's over the tool's run (a fresh
 * target: the after-stats' window and its histogram began with the tool). */
static void compute_truth(const struct crosscheck_in *in, struct crosscheck_truth *t)
{
    static const char *const qs[CROSSCHECK_TRUTH_N] = {"p50", "p90", "p99", "p99.9", "max"};
    static const char *const keys[CROSSCHECK_TRUTH_N] = {"p50", "p90", "p99", "p999", "max"};
    static const double qv[CROSSCHECK_TRUTH_N] = {50, 90, 99, 99.9, 100};
    const struct adapter_latency *lat = in->lat;
    double tool[CROSSCHECK_TRUTH_N] = {NAN, NAN, NAN, NAN, NAN};
    if (lat)
        memcpy(tool, (double[]){lat->p50, lat->p90, lat->p99, lat->p999, lat->max}, sizeof tool);
    struct hist *h = in->server_histogram ? target_histogram_between(NULL, in->server_histogram) : NULL;
    t->resolution_ms = in->latency_resolution_ms;
    t->judged = 0;
    t->nbelow = 0;
    for (int i = 0; i < CROSSCHECK_TRUTH_N; i++) {
        struct crosscheck_truth_row *r = &t->rows[i];
        r->q = qs[i];
        r->tool_ms = tool[i];
        int judged = truth_server(in, h, qv[i], keys[i], &r->server_ms, &r->bound_ms);
        r->error_ms = r->tool_ms - r->server_ms;
        r->error_pct = r->server_ms > 0 ? r->error_ms / r->server_ms * 100 : NAN;
        r->judged = judged && !isnan(r->error_ms) && !isnan(r->bound_ms);
        /* A bucket top may sit 0.1 % above the true value; the tool may
         * round down by its step at that size. */
        double size = r->tool_ms > r->bound_ms ? r->tool_ms : r->bound_ms;
        r->margin_ms = r->bound_ms * CROSSCHECK_SERVER_RESOLUTION +
                       crosscheck_resolution_at(in->latency_resolution_ms, in->latency_digits, size);
        r->below_server = r->judged && r->tool_ms < r->bound_ms - r->margin_ms;
        t->judged |= !isnan(r->error_ms);
        t->nbelow += r->below_server;
    }
    hist_free(h);
}

/* The client count reconciled: more successes than the server completed
 * is never explained; more requests than it completed only by the tool's
 * errors that the server's unanswered requests, its accept errors and the
 * kernel's listen-queue drops account for; fewer only by the responses in
 * flight at the stop (the bound) and the tool's errors. Returns 1 with
 * why filled when the count stays unexplained. */
static int suspect_count(const struct crosscheck_in *in, const struct crosscheck_result *r, char *why, size_t len)
{
    const struct crosscheck_reconciliation *rc = &r->reconciliation;
    const struct crosscheck_server *sv = &r->server;
    unsigned long long s = rc->server, c = in->client_requests, e = in->client_errors, ok = in->client_ok;
    if (rc->verdict != CROSSCHECK_MISMATCH)
        return 0;
    if (ok > s) {
        snprintf(why, len, "the tool counts %llu successful responses, the server completed %llu", ok, s);
        return 1;
    }
    if (c > s) {
        /* the foreign requests are out of s, and out of the parsed ones */
        unsigned long long parsed = sv->requests_parsed > rc->foreign ? sv->requests_parsed - rc->foreign : 0;
        unsigned long long unserved = (parsed > s ? parsed - s : 0) + sv->accept_errors +
                                      in->kernel_drops;
        if (c - s <= e && c - s <= unserved)
            return 0;
        snprintf(why, len, "the tool counts %llu requests, the server completed %llu: %llu more than its %llu errors "
                 "that the server's %llu unanswered requests and refused or dropped connects explain",
                 c, s, c - s, e, unserved);
        return 1;
    }
    if (c + e + rc->bound >= s)
        return 0;
    snprintf(why, len, "the tool counts %llu requests and %llu errors, the server completed %llu (at most %llu unread "
             "at the stop)", c, e, s, (unsigned long long)rc->bound);
    return 1;
}

/* Percentiles below the server's, unless the wall clock stepped (a tool
 * timing with it reports wrong latencies without lying). A percentile is
 * grounds for suspect only when at least CROSSCHECK_SUSPECT_TAIL of the
 * tool's samples lie above it: the max (none above), or a p99.9 of a few
 * thousand requests, is one or two requests, which the server times from
 * the kernel's arrival stamp and the tool from its own send; across
 * network namespaces under load the two were seen 0.1 ms (0.8 %) apart on
 * a wrk whose count and other percentiles agreed (multihost.t). Such a
 * percentile stays flagged (below_server, a warning). A tool that lies
 * moves its body, p50 to p99, and those are judged. */
#define CROSSCHECK_SUSPECT_TAIL 10
static int suspect_latency(const struct crosscheck_in *in, const struct crosscheck_truth *t, char *why, size_t len)
{
    static const double qv[CROSSCHECK_TRUTH_N] = {50, 90, 99, 99.9, 100};
    int grounds[CROSSCHECK_TRUTH_N], any = 0;
    for (int i = 0; i < CROSSCHECK_TRUTH_N; i++) {
        double above = (1 - qv[i] / 100) * (double)in->client_requests;
        grounds[i] = t->rows[i].below_server && above >= CROSSCHECK_SUSPECT_TAIL - 1e-6;
        any |= grounds[i];
    }
    if (in->clock_stepped || !any)
        return 0;
    size_t n = (size_t)snprintf(why, len, "latency below what the server held for the same requests:");
    for (int i = 0, k = 0; i < CROSSCHECK_TRUTH_N && n < len; i++) {
        const struct crosscheck_truth_row *r = &t->rows[i];
        if (grounds[i])
            n += (size_t)snprintf(why + n, len - n, "%s %s %.3g ms < %.3g ms", k++ ? "," : "", r->q, r->tool_ms,
                                  r->bound_ms);
    }
    return 1;
}

static void compute_suspect(const struct crosscheck_in *in, const struct crosscheck_result *r,
                            struct crosscheck_suspect *s)
{
    char count[240] = "", lat[240] = "";
    s->count = suspect_count(in, r, count, sizeof count);
    s->latency = suspect_latency(in, &r->truth, lat, sizeof lat);
    snprintf(s->reason, sizeof s->reason, "%s%s%s", count, *count && *lat ? "; " : "", lat);
}

/* Arrivals (requests parsed) in the series' whole seconds: inside the
 * stalls of the load (summed with their accepts), and the median and mean
 * of those outside any stall. Returns the seconds found inside. */
static int co_seconds(const struct crosscheck_in *in, uint64_t from, uint64_t to, double *in_req, double *in_acc,
                      double *median_out, double *mean_out)
{
    json_t *secs = json_object_get(in->series, "seconds"), *sec, *st;
    json_t *stalls = json_object_get(in->stalls, "stalls");
    uint64_t start = target_u64(in->series, "start_ns");
    size_t i, k, nout = 0;
    double *out = util_xcalloc(json_array_size(secs) + 1, sizeof *out);
    int nin = 0;
    *in_req = *in_acc = 0;
    json_array_foreach(secs, i, sec)
    {
        uint64_t s0 = start + target_u64(sec, "t") * 1000000000ull, s1 = s0 + 1000000000ull;
        if (json_is_true(json_object_get(sec, "partial")) || s0 < from || s1 > to)
            continue;
        int inside = 0, touches = 0;
        json_array_foreach(stalls, k, st)
        {
            uint64_t a = target_u64(st, "start_ns"), b = target_u64(st, "end_ns");
            inside |= s0 >= a && s1 <= b;
            touches |= s0 < b && s1 > a;
        }
        if (inside) {
            *in_req += (double)target_u64(sec, "requests");
            *in_acc += (double)target_u64(sec, "accepts");
            nin++;
        } else if (!touches) {
            out[nout++] = (double)target_u64(sec, "requests");
        }
    }
    struct stats_summary sum;
    stats_summarize(out, nout, &sum);
    *median_out = sum.median;
    *mean_out = sum.mean;
    free(out);
    return nin;
}

/* lb-target's counts around the stalls (GET /stalls: before, in, after),
 * summed over the complete stalls whose three windows lie inside
 * [from, to]. Returns 0 when the stalls carry no counts (an lb-target
 * from before they were counted: the per-second series judges then). */
static int co_gather(const struct crosscheck_in *in, uint64_t from, uint64_t to, struct crosscheck_co_counts *n)
{
    json_t *st;
    size_t k;
    uint64_t win = target_u64(in->stalls, "window_ns");
    memset(n, 0, sizeof *n);
    if (!win)
        return 0;
    n->window_s = (double)win / 1e9;
    json_array_foreach(json_object_get(in->stalls, "stalls"), k, st)
    {
        if (!json_is_integer(json_object_get(st, "in")))
            return 0;
        uint64_t a = target_u64(st, "start_ns"), b = target_u64(st, "end_ns");
        if (json_is_true(json_object_get(st, "partial")) || a < from + win || b + win > to)
            continue;
        double c[3] = {(double)target_u64(st, "before"), (double)target_u64(st, "in"), (double)target_u64(st, "after")};
        n->before += c[0];
        n->in += c[1];
        n->after += c[2];
        if (n->nper < CROSSCHECK_CO_PER_STALL)
            memcpy(n->per[n->nper++], c, sizeof c);
        n->stalls++;
    }
    return 1;
}

/* The arrivals expected in the stalls and in the windows after them: the
 * asked rate of a constant open schedule, else the pace of the windows
 * before the stalls. */
static void co_expect(const struct crosscheck_in *in, double stall_s, struct crosscheck_co_counts *n)
{
    const struct profile_load *l = in->load;
    n->from_schedule = in->model && !strcmp(in->model, "open") && l && l->nstages == 1 && !l->ramped &&
                       l->stages[0].target > 0;
    if (n->from_schedule) {
        n->expected_in = l->stages[0].target * stall_s * n->stalls;
        n->expected_after = l->stages[0].target * n->window_s * n->stalls;
    } else {
        n->expected_in = n->before * stall_s / n->window_s;
        n->expected_after = n->before;
    }
}

/* The verdict from the counts: a Poisson test of all the stalls'
 * arrivals against the expected count, and of the after windows'. */
static void co_judge_counts(struct crosscheck_co *c)
{
    struct crosscheck_co_counts *n = &c->n;
    double span = n->stalls * c->stall_s;
    n->p_below = stats_poisson_below(n->in, n->expected_in);
    n->p_after = n->expected_after > 0 ? stats_poisson_above(n->after, n->expected_after) : n->after > 0 ? 0 : 1;
    c->in_stall_rps = n->in / span;
    c->outside_rps = n->expected_in / span;
    c->kept = n->in / n->expected_in;
    c->not_sent_per_stall = n->expected_in > n->in ? (n->expected_in - n->in) / n->stalls : 0;
    if (c->kept >= CROSSCHECK_CO_KEPT || n->p_below >= CROSSCHECK_CO_ALPHA)
        c->sending = CROSSCHECK_SENDING_KEPT;
    else if (c->kept >= CROSSCHECK_CO_STOPPED)
        c->sending = CROSSCHECK_SENDING_SLOWED;
    else if (n->p_after < CROSSCHECK_CO_ALPHA &&
             n->after - n->expected_after >= CROSSCHECK_CO_CATCH_UP * (n->expected_in - n->in))
        c->sending = CROSSCHECK_SENDING_CAUGHT_UP;
    else
        c->sending = CROSSCHECK_SENDING_STOPPED;
}

/* Arrivals in bursts (outside the stalls a median second below half the
 * mean one): no steady schedule to judge a stall by. Returns 1 with
 * why_not filled. */
static int co_bursty(struct crosscheck_co *c, double median, double mean)
{
    if (!isnan(median) && median >= CROSSCHECK_CO_BURSTY * mean)
        return 0;
    snprintf(c->why_not, sizeof c->why_not,
             "its arrivals come in bursts (outside the stalls a median second has %.0f requests, the mean %.0f): "
             "no steady schedule to judge a stall by", isnan(median) ? 0 : median, mean);
    return 1;
}

/* Judge from lb-target's per-stall counts; returns 0 when it has none.
 * Fills why_not when they cannot judge. Without a constant open schedule
 * the pace before each stall is the expectation, and a Poisson count only
 * holds for steady arrivals: 2000 paced clients that fire together every
 * 4 s put a whole burst in one window before a stall and none in the next
 * (h2load in study 5: 1000 before, 0 in, read as stopping). */
static int co_counted(const struct crosscheck_in *in, uint64_t from, uint64_t to, struct crosscheck_co *c)
{
    if (!co_gather(in, from, to, &c->n))
        return 0;
    c->counted = 1;
    if (!c->n.stalls) {
        snprintf(c->why_not, sizeof c->why_not, "no stall with its windows before and after inside the tool's load");
        return 1;
    }
    co_expect(in, c->stall_s, &c->n);
    double req, acc, median = NAN, mean = NAN;
    if (!c->n.from_schedule && in->series && co_seconds(in, from, to, &req, &acc, &median, &mean) >= 0 &&
        mean > 0 && co_bursty(c, median, mean))
        return 1;
    if (c->n.expected_in < CROSSCHECK_CO_MIN_EXPECTED) {
        snprintf(c->why_not, sizeof c->why_not,
                 "%.1f arrivals expected in its %d stall%s (%s): at least %d are needed to judge a Poisson count",
                 c->n.expected_in, c->n.stalls, c->n.stalls == 1 ? "" : "s",
                 c->n.from_schedule ? "the asked rate" : "the pace before them", CROSSCHECK_CO_MIN_EXPECTED);
        return 1;
    }
    c->judged = 1;
    co_judge_counts(c);
    return 1;
}

static void co_verdict(struct crosscheck_co *c)
{
    const struct crosscheck_co_counts *n = &c->n;
    int judged = c->counted ? n->stalls : c->stalls;
    char ns[32], seen[160], p99[96];
    snprintf(ns, sizeof ns, "%.0f", c->not_sent_per_stall);
    snprintf(p99, sizeof p99, "its p99 (%.0f ms) %s", c->tool_p99_ms,
             c->p99_includes ? "includes the wait" : "omits the wait of the requests due in them");
    if (isnan(c->tool_p99_ms))
        snprintf(p99, sizeof p99, "it reports no p99");
    if (c->counted)
        snprintf(seen, sizeof seen, "%.1f arrivals per stall in them against %.1f %s", n->in / n->stalls,
                 n->expected_in / n->stalls, n->from_schedule ? "asked" : "at the pace before them");
    else
        snprintf(seen, sizeof seen, "%.0f req/s in them, %.0f outside", c->in_stall_rps, c->outside_rps);
    if (c->sending == CROSSCHECK_SENDING_STOPPED)
        snprintf(c->verdict, sizeof c->verdict, "stopped sending for %.1f s per stall (≈ %s requests not sent; %s); %s",
                 c->stall_s, ns, seen, p99);
    else if (c->sending == CROSSCHECK_SENDING_CAUGHT_UP)
        snprintf(c->verdict, sizeof c->verdict, "stopped sending for %.1f s per stall and caught up after it "
                 "(≈ %s requests late; %s, %.1f in the %.1f s after against %.1f); %s", c->stall_s, ns, seen,
                 n->after / n->stalls, n->window_s, n->expected_after / n->stalls, p99);
    else if (c->sending == CROSSCHECK_SENDING_SLOWED)
        snprintf(c->verdict, sizeof c->verdict, "slowed to %.0f %% of its rate during stalls (≈ %s requests not sent "
                 "per stall; %s); %s", c->kept * 100, ns, seen, p99);
    else
        snprintf(c->verdict, sizeof c->verdict, "kept its schedule through %d stall%s (%s); %s", judged,
                 judged == 1 ? "" : "s", seen, p99);
}

/* The coordinated-omission verdict: stalls of the load from GET /stalls,
 * arrivals from the server's series, the tool's p99 against the p99 an
 * open schedule must have (a share f = for/every of requests wait up to
 * the stall, uniformly: p99 >= for x (1 - 0.01/f)). */
static void compute_co(const struct crosscheck_in *in, struct crosscheck_co *c)
{
    memset(c, 0, sizeof *c);
    json_t *stall = json_object_get(json_object_get(in->stalls, "delay"), "stall");
    if (!stall)
        return;
    c->present = 1;
    c->stall_s = (double)target_u64(stall, "for_ns") / 1e9;
    c->every_s = (double)target_u64(stall, "every_ns") / 1e9;
    c->tool_p99_ms = in->lat ? in->lat->p99 : NAN;
    double f = c->stall_s / c->every_s;
    c->open_p99_floor_ms = f > 0.01 ? c->stall_s * 1e3 * (1 - 0.01 / f) : NAN;
    c->p99_includes = !isnan(c->open_p99_floor_ms) && c->tool_p99_ms >= c->open_p99_floor_ms / 2;
    uint64_t from = target_u64(in->after, "first_request_ns"), to = target_u64(in->after, "last_response_ns");
    if (c->stall_s < CROSSCHECK_CO_MIN_STALL_S) {
        snprintf(c->why_not, sizeof c->why_not, "stalls of %.0f ms: below %.0f ms too few requests fall in one to judge "
                 "a schedule by", c->stall_s * 1e3, CROSSCHECK_CO_MIN_STALL_S * 1e3);
        return;
    }
    json_t *st;
    size_t k;
    json_array_foreach(json_object_get(in->stalls, "stalls"), k, st)
        c->stalls += target_u64(st, "start_ns") >= from && target_u64(st, "end_ns") <= to;
    if (c->stalls && co_counted(in, from, to, c)) {
        if (c->judged)
            co_verdict(c);
        return;
    }
    double req = 0, acc = 0, median = NAN, mean = NAN;
    int nin = c->stalls && in->series ? co_seconds(in, from, to, &req, &acc, &median, &mean) : 0;
    c->outside_mean_rps = mean;
    if (!c->stalls)
        snprintf(c->why_not, sizeof c->why_not, "no stall inside the tool's load");
    else if (!nin)
        snprintf(c->why_not, sizeof c->why_not, "no whole second of the server's series inside a stall");
    else if (isnan(mean) || mean <= 0)
        snprintf(c->why_not, sizeof c->why_not, "no arrivals outside the stalls");
    else
        co_bursty(c, median, mean);
    if (c->why_not[0])
        return;
    c->judged = 1;
    c->in_stall_rps = req / nin;
    c->accepts_in_stall_per_s = acc / nin;
    c->outside_rps = median;
    c->kept = c->in_stall_rps / median;
    c->sending = c->kept >= CROSSCHECK_CO_KEPT ? CROSSCHECK_SENDING_KEPT
                 : c->kept < CROSSCHECK_CO_STOPPED ? CROSSCHECK_SENDING_STOPPED : CROSSCHECK_SENDING_SLOWED;
    c->not_sent_per_stall = median > c->in_stall_rps ? (median - c->in_stall_rps) * c->stall_s : 0;
    co_verdict(c);
}

void crosscheck_compute(const struct crosscheck_in *in, struct crosscheck_result *out)
{
    memset(out, 0, sizeof *out);
    /* The row's own requests: foreign ones (engine/peercheck.h) are not
     * the tool's work, in its rate or per CPU-second. */
    uint64_t all = crosscheck_server_requests(in->before, in->after);
    uint64_t server = all - foreign_of(in, all);
    compute_windows(in, server, &out->windows);
    compute_server(in, &out->windows, &out->server);
    compute_workload(in, out, &out->workload);
    compute_reconciliation(in, &out->server, &out->reconciliation);
    compute_truth(in, &out->truth);
    compute_limits(in, out, &out->limits);
    compute_latency(in, &out->server, &out->latency);
    compute_co(in, &out->co);
    compute_suspect(in, out, &out->suspect);
    out->efficiency.requests_per_cpu_second = in->cpu_seconds > 0 ? (double)server / in->cpu_seconds : NAN;
    out->efficiency.rps_per_mb = in->rss_peak_mb > 0 ? out->windows.whole_rps / in->rss_peak_mb : NAN;
}

/* ---- serialise: run.json's keys, order and values ---- */

static json_t *uint_json(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static const char *steady_name(enum crosscheck_steady_verdict v)
{
    switch (v) {
    case CROSSCHECK_STEADY_STEADY: return "steady";
    case CROSSCHECK_STEADY_UNSHOWN: return "not shown steady";
    case CROSSCHECK_STEADY_NOT_STEADY: return "not steady";
    case CROSSCHECK_STEADY_NOT_JUDGED:
    case CROSSCHECK_STEADY_NONE: break;
    }
    return "not judged";
}

/* windows.hold_steady, and a warning for a hold that moved. */
static json_t *steady_json(const struct crosscheck_steady *s, json_t *warnings)
{
    json_t *o = json_object();
    char flag[160];
    json_object_set_new(o, "verdict", json_string(steady_name(s->verdict)));
    json_object_set_new(o, "seconds", json_integer(s->seconds));
    json_object_set_new(o, "block_s", json_integer(s->block_s));
    json_object_set_new(o, "blocks", json_integer(s->blocks));
    if (s->verdict == CROSSCHECK_STEADY_NOT_JUDGED) {
        if (s->blocks < CROSSCHECK_STEADY_MIN_BLOCKS)
            json_object_set_new(o, "reason", json_sprintf("%d whole seconds make %d block%s of %d s; a trend test needs %d",
                                                          s->seconds, s->blocks, s->blocks == 1 ? "" : "s", s->block_s,
                                                          CROSSCHECK_STEADY_MIN_BLOCKS));
        else
            json_object_set_new(o, "reason", json_string("the median rate is 0 req/s: no size to judge a change by"));
        return o;
    }
    json_object_set_new(o, "median_rps", jsonutil_num(s->median_rps));
    json_object_set_new(o, "change", jsonutil_num(s->change));
    json_object_set_new(o, "ratio", jsonutil_num(s->ratio));
    json_object_set_new(o, "p", jsonutil_num(s->p));
    if (*crosscheck_steady_flag(s, flag, sizeof flag)) {
        json_object_set_new(o, "flag", json_string(flag));
        json_array_append_new(warnings, json_sprintf("%s (Sen's slope: %+.0f%% of the median %.0f req/s; Mann–Kendall p = %.3g "
                                                     "over %d blocks of %d s): the hold figures are not a steady state",
                                                     flag, s->change * 100, s->median_rps, s->p, s->blocks, s->block_s));
    }
    return o;
}

static json_t *windows_json(const struct crosscheck_windows *w, json_t *warnings)
{
    json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o}", "load_start_s", jsonutil_num(w->load_start_s), "whole_s",
                          jsonutil_num(w->whole_s), "whole_rps", jsonutil_num(w->whole_rps), "hold_s", jsonutil_num(w->hold_s),
                          "hold_rps", jsonutil_num(w->hold_rps));
    if (w->steady.verdict != CROSSCHECK_STEADY_NONE)
        json_object_set_new(o, "hold_steady", steady_json(&w->steady, warnings));
    return o;
}

static json_t *server_json(const struct crosscheck_server *s)
{
    json_t *sv = json_object();
    json_object_set_new(sv, "requests", uint_json(s->requests));
    json_object_set_new(sv, "requests_parsed", uint_json(s->requests_parsed));
    json_object_set_new(sv, "bad_requests", uint_json(s->bad_requests));
    json_object_set_new(sv, "connections_accepted", uint_json(s->connections_accepted));
    json_object_set_new(sv, "connections_open_max", uint_json(s->connections_open_max));
    json_object_set_new(sv, "closed_unread", uint_json(s->closed_unread));
    json_object_set_new(sv, "inflight_max", uint_json(s->inflight_max));
    json_object_set_new(sv, "bytes_out", uint_json(s->bytes_out));
    json_object_set_new(sv, "server_time_ms",
                        json_pack("{s:o, s:o, s:o}", "mean", jsonutil_num(s->time_mean_ms), "p50",
                                  jsonutil_num(s->time_p50_ms), "p99", jsonutil_num(s->time_p99_ms)));
    json_object_set_new(sv, "littles_law_concurrency", jsonutil_num(s->littles_law_concurrency));
    json_object_set_new(sv, "connections_per_1k_requests", jsonutil_num(s->connections_per_1k_requests));
    return sv;
}

static json_t *workload_json(const struct crosscheck_workload *wl, json_t *warnings)
{
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(wl->model));
    if (wl->open_like) {
        json_object_set_new(o, "offered_rps", json_real(wl->offered_rps));
        json_object_set_new(o, "achieved_rps", jsonutil_num(wl->achieved_rps));
        json_object_set_new(o, "generator_limited", json_boolean(wl->generator_limited));
        if (wl->generator_limited)
            json_array_append_new(warnings, json_sprintf("generator-limited: offered %.0f req/s, the server counted %.0f (%.1f%%)",
                                                         wl->offered_rps, wl->achieved_rps,
                                                         wl->achieved_rps / wl->offered_rps * 100));
    }
    json_object_set_new(o, "nominal_concurrency", jsonutil_num(wl->nominal_concurrency));
    json_object_set_new(o, "delivered_concurrency", jsonutil_num(wl->delivered_concurrency));
    json_object_set_new(o, "delivered_basis", json_string(wl->delivered_by_littles_law ? "littles_law" : "open_connections"));
    json_object_set_new(o, "concurrency_shortfall", json_boolean(wl->concurrency_shortfall));
    if (wl->concurrency_shortfall)
        json_array_append_new(warnings, json_sprintf("asked for %.0f concurrent users/connections, the server saw %.1f %s",
                                                     wl->nominal_concurrency, wl->delivered_concurrency,
                                                     wl->delivered_by_littles_law ? "in flight (Little's law)" : "connections open"));
    return o;
}

static json_t *reconciliation_json(const struct crosscheck_reconciliation *rc, json_t *warnings)
{
    json_t *cc = json_object();
    json_object_set_new(cc, "server", uint_json(rc->server));
    if (rc->foreign)
        json_object_set_new(cc, "foreign", uint_json(rc->foreign));
    if (rc->verdict == CROSSCHECK_NO_CLIENT) {
        json_object_set_new(cc, "verdict", json_string(crosscheck_verdict_name(rc->verdict)));
        return cc;
    }
    json_object_set_new(cc, "client", uint_json(rc->client));
    json_object_set_new(cc, "difference", json_integer((json_int_t)rc->client - (json_int_t)rc->server));
    json_object_set_new(cc, "verdict", json_string(crosscheck_verdict_name(rc->verdict)));
    json_object_set_new(cc, "bound", uint_json(rc->bound));
    if (rc->verdict == CROSSCHECK_EXPLAINED)
        json_object_set_new(cc, "note",
                            json_sprintf("the tool counted %llu fewer than the server served; at most one unread response per open connection (%llu) explains it",
                                         (unsigned long long)(rc->server - rc->client), (unsigned long long)rc->bound));
    else if (rc->verdict == CROSSCHECK_MISMATCH)
        json_array_append_new(warnings, json_sprintf("MISMATCH: the tool reports %llu requests, the server served %llu (bound for in-flight: %llu)",
                                                     (unsigned long long)rc->client, (unsigned long long)rc->server,
                                                     (unsigned long long)rc->bound));
    return cc;
}

static const char *bottleneck_name(enum crosscheck_bottleneck b)
{
    return b == CROSSCHECK_BOTTLENECK_TARGET ? "target" : b == CROSSCHECK_BOTTLENECK_TOOL ? "tool" : "none";
}

static const char *witness_name(enum crosscheck_witness w)
{
    return w == CROSSCHECK_WITNESS_QUEUEING  ? "queueing"
           : w == CROSSCHECK_WITNESS_OVERHEAD ? "overhead"
           : w == CROSSCHECK_WITNESS_THREAD  ? "thread"
           : w == CROSSCHECK_WITNESS_STARVED ? "starved"
                                             : "cpu";
}

/* "7.7% of each user's time inside the tool; p99 +32 ms over the
 * server's", the parts that fired (both figures when both did). */
static void overhead_words(const struct crosscheck_overhead *o, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    if (o->fired_share)
        n += (size_t)snprintf(buf, len, "%.1f%% of each user's time inside the tool", o->share * 100);
    if (o->fired_p99 && n < len)
        snprintf(buf + n, len - n, "%sp99 %+.0f ms over the server's", n ? "; " : "", o->p99_excess_ms);
}

/* The row's bottleneck with the witness's figure, as summary.md shows it:
 * "tool (queueing: 200 asked, 8 in flight at the server)". */
static json_t *limits_reason(const struct crosscheck_limits *l)
{
    const struct crosscheck_queueing *q = &l->queueing;
    if (l->witness == CROSSCHECK_WITNESS_QUEUEING)
        return json_sprintf("tool (queueing: %.0f asked, %.0f in flight at the server)", q->asked, q->in_flight);
    if (l->witness == CROSSCHECK_WITNESS_THREAD)
        return json_sprintf("tool (one thread at %.0f%%)", l->tool_thread_pct);
    if (l->witness == CROSSCHECK_WITNESS_OVERHEAD) {
        char words[160];
        overhead_words(&l->overhead, words, sizeof words);
        return json_sprintf("tool (overhead: %s)", words);
    }
    if (l->witness == CROSSCHECK_WITNESS_STARVED)
        return json_sprintf("target (starved: ran %.0f%%, waited %.0f%% of its %d CPU%s)", l->target_cpu_share * 100,
                            l->target_wait_share * 100, l->target_cpus, l->target_cpus == 1 ? "" : "s");
    if (l->bottleneck == CROSSCHECK_BOTTLENECK_TARGET)
        return json_sprintf("target (cpu: %.0f%% of its %d CPU%s)", l->target_cpu_share * 100, l->target_cpus,
                            l->target_cpus == 1 ? "" : "s");
    return json_sprintf("tool (cpu: %.0f%% of its %d CPU%s)", l->tool_cpu_share * 100, l->tool_cpus, l->tool_cpus == 1 ? "" : "s");
}

static json_t *queueing_json(const struct crosscheck_queueing *q)
{
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "asked", q->asked, "in_flight", q->in_flight,
                          "hold_rps", q->hold_rps, "server_mean_ms", q->server_mean_ms, "server_p50_ms",
                          q->server_p50_ms, "tool_p50_ms", q->tool_p50_ms, "server_time_basis",
                          q->hold_server_time ? "hold window" : "whole run");
    return o;
}

/* limits.overhead: the figures of whichever part was judged, with
 * "fired" per part (a row another witness named keeps them too). */
static json_t *overhead_json(const struct crosscheck_overhead *o)
{
    json_t *j = json_object();
    if (o->judged_share) {
        json_object_set_new(j, "users", jsonutil_num(o->users));
        json_object_set_new(j, "hold_rps", jsonutil_num(o->hold_rps));
        json_object_set_new(j, "cycle_ms", jsonutil_num(o->cycle_ms));
        json_object_set_new(j, "server_ms", jsonutil_num(o->server_ms));
        json_object_set_new(j, "outside_ms", jsonutil_num(o->outside_ms));
        json_object_set_new(j, "share", jsonutil_num(o->share));
        json_object_set_new(j, "share_fired", json_boolean(o->fired_share));
    }
    if (o->judged_p99) {
        json_object_set_new(j, "tool_p99_ms", jsonutil_num(o->tool_p99_ms));
        json_object_set_new(j, "server_p99_ms", jsonutil_num(o->server_p99_ms));
        json_object_set_new(j, "p99_excess_ms", jsonutil_num(o->p99_excess_ms));
        json_object_set_new(j, "p99_floor_ms", jsonutil_num(o->p99_floor_ms));
        json_object_set_new(j, "p99_fired", json_boolean(o->fired_p99));
    }
    return j;
}

/* The overhead witness's note, each part that fired with its sums. */
static void overhead_warning(const struct crosscheck_overhead *o, json_t *warnings)
{
    char share[240] = "", p99[160] = "";
    if (o->fired_share)
        snprintf(share, sizeof share, "each user spent %.1f%% of its time inside the tool (%.0f users / %.0f req/s = %.2f ms a "
                 "request, %.2f ms of it at the server)", o->share * 100, o->users, o->hold_rps, o->cycle_ms, o->server_ms);
    if (o->fired_p99)
        snprintf(p99, sizeof p99, "its p99 is %.1f ms against the server's %.1f ms for the same requests", o->tool_p99_ms,
                 o->server_p99_ms);
    json_array_append_new(warnings, json_sprintf("tool-bound (overhead): %s%s%s; no CPU set was saturated: the tool's own time "
                                                 "limited the run", share, *share && *p99 ? "; " : "", p99));
}

/* NULL (no "limits" key) when a figure is not a number, as json_pack does
 * with a NaN "f". Rows where no witness fired keep the keys they always
 * had; a fired one adds "witness", "reason" and its figures. */
static json_t *limits_json(const struct crosscheck_limits *l, json_t *warnings)
{
    const struct crosscheck_queueing *q = &l->queueing;
    if (l->witness == CROSSCHECK_WITNESS_STARVED)
        json_array_append_new(warnings, json_sprintf("target-bound (starved): lb-target ran %.0f%% of its CPU set and waited for it "
                                                     "another %.0f%% while other work had it; this row measures the machine's "
                                                     "other load, not the tool",
                                                     l->target_cpu_share * 100, l->target_wait_share * 100));
    else if (l->bottleneck == CROSSCHECK_BOTTLENECK_TARGET)
        json_array_append_new(warnings, json_sprintf("target-bound: lb-target used %.0f%% of its CPU set; this row measures the target, not the tool",
                                                     l->target_cpu_share * 100));
    if (l->witness == CROSSCHECK_WITNESS_QUEUEING)
        json_array_append_new(warnings, json_sprintf("tool-bound (queueing): %.0f users asked, %.1f in flight at the server by Little's law "
                                                     "(%.0f req/s x %.2f ms); the tool's p50 is %.1f ms against the server's %.1f ms: "
                                                     "requests wait inside the tool",
                                                     q->asked, q->in_flight, q->hold_rps, q->server_mean_ms, q->tool_p50_ms,
                                                     q->server_p50_ms));
    if (l->witness == CROSSCHECK_WITNESS_OVERHEAD)
        overhead_warning(&l->overhead, warnings);
    if (l->witness == CROSSCHECK_WITNESS_THREAD)
        json_array_append_new(warnings, json_sprintf("tool-bound (thread): one thread of the tool used %.0f%% of a core over the %s "
                                                     "while its whole tree used %.0f%% of its %d CPU%s: a saturated event loop",
                                                     l->tool_thread_pct, l->hold_basis ? "hold window" : "run",
                                                     l->tool_cpu_share * 100, l->tool_cpus, l->tool_cpus == 1 ? "" : "s"));
    json_t *o = json_pack("{s:s, s:f, s:f, s:f, s:f, s:i, s:i, s:s}", "bottleneck", bottleneck_name(l->bottleneck),
                          "tool_cpu_pct", l->tool_cpu_pct, "target_cpu_pct", l->target_cpu_pct, "tool_cpu_share",
                          l->tool_cpu_share, "target_cpu_share", l->target_cpu_share, "tool_cpus", l->tool_cpus,
                          "target_cpus", l->target_cpus, "basis", l->hold_basis ? "hold window" : "whole run");
    if (o) {
        json_object_set_new(o, "tool_thread_pct", jsonutil_num(l->tool_thread_pct));
        json_object_set_new(o, "target_wait_pct", jsonutil_num(l->target_wait_pct));
    }
    if (o && l->witness != CROSSCHECK_WITNESS_NONE) {
        json_object_set_new(o, "witness", json_string(witness_name(l->witness)));
        json_object_set_new(o, "reason", limits_reason(l));
        if (l->witness == CROSSCHECK_WITNESS_QUEUEING)
            json_object_set_new(o, "queueing", queueing_json(q));
    }
    if (o && (l->overhead.judged_share || l->overhead.judged_p99))
        json_object_set_new(o, "overhead", overhead_json(&l->overhead));
    return o;
}

static json_t *latency_json(const struct crosscheck_latency *lc, json_t *warnings)
{
    json_t *o = json_object();
    json_object_set_new(o, "floor_ms", json_real(lc->floor_ms));
    if (lc->floor_checked) {
        json_object_set_new(o, "below_floor", json_boolean(lc->below_floor));
        if (lc->below_floor)
            json_array_append_new(warnings, json_sprintf("latency below the server's floor: the tool reports %.3f ms but every response is held %.3f ms; it measures something else",
                                                         lc->lowest_ms, lc->floor_ms));
    }
    if (!isnan(lc->tool_p50_ms) && !isnan(lc->server_p50_ms)) {
        json_object_set_new(o, "tool_p50_ms", json_real(lc->tool_p50_ms));
        json_object_set_new(o, "server_p50_ms", json_real(lc->server_p50_ms));
        json_object_set_new(o, "overhead_p50_ms", json_real(lc->overhead_p50_ms));
    }
    if (!isnan(lc->tool_p99_ms) && !isnan(lc->server_p99_ms)) {
        json_object_set_new(o, "tool_p99_ms", json_real(lc->tool_p99_ms));
        json_object_set_new(o, "server_p99_ms", json_real(lc->server_p99_ms));
        json_object_set_new(o, "overhead_p99_ms", json_real(lc->overhead_p99_ms));
    }
    return o;
}

/* latency_check.percentiles: the rows, and a warning naming each
 * percentile below the server's. */
static json_t *truth_json(const struct crosscheck_truth *t, json_t *warnings)
{
    json_t *rows = json_array();
    char below[64] = "";
    for (int i = 0; i < CROSSCHECK_TRUTH_N; i++) {
        const struct crosscheck_truth_row *r = &t->rows[i];
        if (isnan(r->tool_ms) && isnan(r->server_ms))
            continue;
        json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "q", r->q, "tool_ms", jsonutil_num(r->tool_ms),
                              "server_ms", jsonutil_num(r->server_ms), "error_ms", jsonutil_num(r->error_ms),
                              "error_pct", jsonutil_num(r->error_pct), "bound_ms", jsonutil_num(r->bound_ms));
        if (!isnan(r->error_ms))
            json_object_set_new(o, "below_server", json_boolean(r->below_server));
        if (!isnan(r->error_ms) && !r->judged)
            json_object_set_new(o, "judged", json_false()); /* at or below the share the server did not hold */
        if (r->below_server)
            snprintf(below + strlen(below), sizeof below - strlen(below), "%s%s", *below ? ", " : "", r->q);
        json_array_append_new(rows, o);
    }
    if (t->nbelow)
        json_array_append_new(warnings, json_sprintf("latency below the server's for the same requests (%s): "
                                                     "no client can see a response sooner than the server held it; "
                                                     "the tool's percentiles are wrong there", below));
    return json_pack("{s:s, s:o, s:f, s:i, s:o}", "window", "tool run", "tool_resolution_ms",
                     jsonutil_num(t->resolution_ms), "server_resolution_pct", CROSSCHECK_SERVER_RESOLUTION * 100,
                     "below_server", t->nbelow, "rows", rows);
}

/* The arrivals lb-target counted around the stalls, against those expected. */
static json_t *co_counts_json(const struct crosscheck_co *c)
{
    const struct crosscheck_co_counts *n = &c->n;
    double k = n->stalls ? n->stalls : NAN;
    json_t *o = json_pack("{s:s, s:i, s:f}", "expected_from", n->from_schedule ? "schedule" : "before",
                          "stalls", n->stalls, "window_s", n->window_s);
    json_object_set_new(o, "in", json_integer((json_int_t)n->in));
    json_object_set_new(o, "expected_in", jsonutil_num(n->expected_in));
    json_object_set_new(o, "in_per_stall", jsonutil_num(n->in / k));
    json_object_set_new(o, "expected_per_stall", jsonutil_num(n->expected_in / k));
    json_object_set_new(o, "before", json_integer((json_int_t)n->before));
    json_object_set_new(o, "after", json_integer((json_int_t)n->after));
    json_object_set_new(o, "expected_after", jsonutil_num(n->expected_after));
    json_object_set_new(o, "after_per_stall", jsonutil_num(n->after / k));
    if (c->judged) {
        json_object_set_new(o, "p_in_below", jsonutil_num(n->p_below));
        json_object_set_new(o, "p_after_above", jsonutil_num(n->p_after));
    }
    json_t *per = json_array();
    for (int i = 0; i < n->nper; i++)
        json_array_append_new(per, json_pack("[I, I, I]", (json_int_t)n->per[i][0], (json_int_t)n->per[i][1],
                                             (json_int_t)n->per[i][2]));
    json_object_set_new(o, "per_stall", per);   /* [before, in, after] of the first CROSSCHECK_CO_PER_STALL */
    return o;
}

static json_t *co_json(const struct crosscheck_co *c)
{
    static const char *const sending[] = {"kept", "slowed", "stopped", "caught_up"};
    json_t *o = json_pack("{s:b, s:i, s:f, s:f}", "judged", c->judged, "stalls", c->stalls, "stall_s", c->stall_s,
                          "every_s", c->every_s);
    if (c->counted)
        json_object_set_new(o, "arrivals", co_counts_json(c));
    if (!c->judged) {
        json_object_set_new(o, "why_not", json_string(c->why_not));
        return o;
    }
    json_object_set_new(o, "sending", json_string(sending[c->sending]));
    json_object_set_new(o, "in_stall_rps", json_real(c->in_stall_rps));
    json_object_set_new(o, "outside_rps", json_real(c->outside_rps));
    json_object_set_new(o, "kept_ratio", json_real(c->kept));
    if (!c->counted)
        json_object_set_new(o, "new_connections_in_stall_per_s", json_real(c->accepts_in_stall_per_s));
    json_object_set_new(o, "not_sent_per_stall", json_real(c->not_sent_per_stall));
    json_object_set_new(o, "tool_p99_ms", jsonutil_num(c->tool_p99_ms));
    json_object_set_new(o, "open_p99_floor_ms", jsonutil_num(c->open_p99_floor_ms));
    json_object_set_new(o, "p99_includes_stalls", json_boolean(c->p99_includes));
    json_object_set_new(o, "verdict", json_string(c->verdict));
    return o;
}

void crosscheck_co_reference(json_t *runs)
{
    json_t *r, *ref = NULL;
    size_t i;
    json_array_foreach(runs, i, r)
    {
        json_t *co = json_object_get(json_object_get(r, "latency_check"), "coordinated_omission");
        const char *tool = json_string_value(json_object_get(r, "tool"));
        const char *model = json_string_value(json_object_get(json_object_get(r, "identity"), "model"));
        if (!ref && json_is_true(json_object_get(co, "judged")) && tool && !strcmp(tool, "lb-gen") && model &&
            !strcmp(model, "open") && json_is_number(json_object_get(co, "tool_p99_ms")))
            ref = r;
    }
    if (!ref)
        return;
    double p99 = json_number_value(json_object_get(json_object_get(json_object_get(ref, "latency_check"),
                                                                   "coordinated_omission"), "tool_p99_ms"));
    const char *label = json_string_value(json_object_get(ref, "label"));
    json_array_foreach(runs, i, r)
    {
        json_t *co = json_object_get(json_object_get(r, "latency_check"), "coordinated_omission");
        const char *v = json_string_value(json_object_get(co, "verdict"));
        if (r == ref || !v)
            continue;
        /* A run rerun in part (--into) comes here again: the reference a
         * verdict already quotes is replaced, not quoted twice. */
        size_t own = strlen(v);
        const char *was = json_string_value(json_object_get(json_object_get(co, "reference"), "label"));
        if (was) {
            char *tail = util_xasprintf("; %s open at the same rate: p99 ", was);
            for (const char *x = strstr(v, tail); x; x = strstr(x + 1, tail))
                own = (size_t)(x - v);
            free(tail);
        }
        json_object_set_new(co, "reference", json_pack("{s:s, s:f}", "label", label ? label : "lb-gen", "p99_ms", p99));
        json_object_set_new(co, "verdict", json_sprintf("%.*s; %s open at the same rate: p99 %.0f ms", (int)own, v,
                                                        label ? label : "lb-gen", p99));
    }
}

void crosscheck_to_json(const struct crosscheck_result *r, json_t *res, json_t *warnings)
{
    json_object_set_new(res, "windows", windows_json(&r->windows, warnings));
    json_object_set_new(res, "server", server_json(&r->server));
    json_object_set_new(res, "workload", workload_json(&r->workload, warnings));
    json_object_set_new(res, "crosscheck", reconciliation_json(&r->reconciliation, warnings));
    if (r->reconciliation.verdict == CROSSCHECK_MISMATCH) /* the tool's errors and the drops explain it, or not */
        json_object_set_new(json_object_get(res, "crosscheck"), "reconciled", json_boolean(!r->suspect.count));
    json_object_set_new(res, "limits", limits_json(&r->limits, warnings));
    json_object_set_new(res, "latency_check", latency_json(&r->latency, warnings));
    if (r->truth.judged)
        json_object_set_new(json_object_get(res, "latency_check"), "percentiles", truth_json(&r->truth, warnings));
    if (r->co.present)
        json_object_set_new(json_object_get(res, "latency_check"), "coordinated_omission", co_json(&r->co));
    json_object_set_new(res, "efficiency",
                        json_pack("{s:o, s:o}", "requests_per_cpu_second", jsonutil_num(r->efficiency.requests_per_cpu_second),
                                  "rps_per_mb", jsonutil_num(r->efficiency.rps_per_mb)));
}

void crosscheck_fill(const struct crosscheck_in *in, json_t *res, json_t *warnings)
{
    struct crosscheck_result r;
    crosscheck_compute(in, &r);
    crosscheck_to_json(&r, res, warnings);
}

json_t *crosscheck_machine_json(const struct sampler_machine *m0, const struct sampler_machine *m1, double tool_cpu_s,
                                double target_cpu_s, double self_cpu_s, json_t *warnings)
{
    return crosscheck_machine_json_n(m0, m1, sysconf(_SC_NPROCESSORS_ONLN), tool_cpu_s, target_cpu_s, self_cpu_s,
                                     warnings);
}

json_t *crosscheck_machine_json_n(const struct sampler_machine *m0, const struct sampler_machine *m1, long ncpu,
                                  double tool_cpu_s, double target_cpu_s, double self_cpu_s, json_t *warnings)
{
    double hz = (double)sysconf(_SC_CLK_TCK);
    double idle = (double)((m1->idle + m1->iowait) - (m0->idle + m0->iowait)) / hz;
    double total = (double)(m1->total - m0->total) / hz;
    double busy = total - idle;
    double unattributed = busy - tool_cpu_s - target_cpu_s - self_cpu_s;
    /* A CPU not measured (a lost host's tree) is NAN: null here, and so
     * is what it leaves unattributed. */
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:f, s:o}", "busy_s", busy, "user_s",
                          (double)(m1->user + m1->nice - m0->user - m0->nice) / hz, "system_s",
                          (double)(m1->system - m0->system) / hz, "softirq_s", (double)(m1->softirq - m0->softirq) / hz,
                          "steal_s", (double)(m1->steal - m0->steal) / hz, "tool_s", jsonutil_num(tool_cpu_s),
                          "target_s", jsonutil_num(target_cpu_s), "loadbench_s", self_cpu_s, "unattributed_s",
                          jsonutil_num(unattributed));
    /* Wall time of the interval: total ticks over all CPUs / CPUs. */
    double wall = ncpu > 0 ? total / (double)ncpu : 0;
    if (wall > 0 && isfinite(unattributed)) {
        double pct = unattributed / wall * 100;
        json_object_set_new(o, "unattributed_pct", json_real(pct));
        if (pct > 5)
            json_array_append_new(warnings, json_sprintf("unattributed CPU: %.1f%% of a core was busy outside the tool, the target and loadbench "
                                                         "(other processes, or kernel work charged to none; softirq, the kernel's network work, was %.1f%% of a core)",
                                                         pct, (double)(m1->softirq - m0->softirq) / hz / wall * 100));
    }
    return o;
}

/* ---- the network witness (issue 30): after the row's NIC counters --------------- */

static double jnum(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The busiest tool-host interface against the path's capacity: the
 * largest share, with its figures; and the NIC errors of every host. */
struct net_reading {
    double share, bytes_per_s, capacity;
    const char *host, *iface;
    double nic_errors;
};

static void net_read(const json_t *row, const json_t *path, double secs, struct net_reading *n)
{
    const json_t *e, *c;
    const char *name;
    size_t i;
    *n = (struct net_reading){.share = NAN};
    json_array_foreach(json_object_get(row, "nic"), i, e)
    {
        const char *host = json_string_value(json_object_get(e, "host"));
        const json_t *ifs = json_object_get(e, "interfaces");
        json_object_foreach((json_t *)ifs, name, c)
        {
            double m = jnum(c, "rx_missed_errors"), f = jnum(c, "rx_fifo_errors");
            n->nic_errors += (isnan(m) ? 0 : m) + (isnan(f) ? 0 : f);
        }
        const json_t *pe = json_object_get(path, host ? host : "controller");
        const char *iface = json_string_value(json_object_get(pe, "interface"));
        double cap = jnum(json_object_get(pe, "bulk"), "bytes_per_s");
        double rx = jnum(json_object_get(ifs, iface ? iface : ""), "rx_bytes");
        if (!iface || isnan(cap) || cap <= 0 || isnan(rx) || !(secs > 0))
            continue;
        double share = rx / secs / cap;
        if (isnan(n->share) || share > n->share)
            *n = (struct net_reading){share, rx / secs, cap, host ? host : "controller", iface, n->nic_errors};
    }
}

/* A row whose load was measured (ok or suspect): a failed one (a tool
 * that died at start, its host lost) carried too little, or not the
 * tool's, traffic to say the network bound it. */
static int network_judgeable(const json_t *row)
{
    const char *st = json_string_value(json_object_get(row, "status"));
    return st && (!strcmp(st, "ok") || !strcmp(st, "suspect"));
}

void crosscheck_network(json_t *row, const json_t *path)
{
    json_t *limits = json_object_get(row, "limits"), *warnings = json_object_get(row, "warnings");
    double secs = jnum(json_object_get(row, "windows"), "whole_s");
    /* Tail-loss probes re-send a segment whose ACK was slow (a TLS
     * handshake's crypto on a busy core): no loss, so no witness. */
    double retrans = jnum(json_object_get(row, "tcp"), "retrans_segs");
    double probes = jnum(json_object_get(row, "tcp"), "loss_probes");
    double lost = retrans - (probes > 0 ? probes : 0);
    if (!json_is_object(limits) || !json_is_object(path) || json_object_get(path, "skipped"))
        return;
    struct net_reading n;
    net_read(row, path, secs, &n);
    json_t *o = json_pack("{s:o, s:o, s:o, s:s?, s:s?, s:f, s:o}", "share", jsonutil_num(n.share), "bytes_per_s",
                          jsonutil_num(n.bytes_per_s), "capacity_bytes_per_s", jsonutil_num(n.capacity), "host",
                          n.host, "interface", n.iface, "nic_errors", n.nic_errors, "retrans_segs",
                          jsonutil_num(retrans));
    json_object_set_new(o, "loss_probes", jsonutil_num(probes));
    json_object_set_new(limits, "network", o);
    json_t *reason = NULL;
    const char *witness = NULL;
    if (n.share >= CROSSCHECK_NETWORK_SHARE) {
        witness = "bytes";
        reason = json_sprintf("network (bytes: %s's %s carried %.1f MB/s, %.0f%% of the %.1f MB/s measured before "
                              "the run)", n.host, n.iface, n.bytes_per_s / 1e6, n.share * 100, n.capacity / 1e6);
    } else if (n.nic_errors > 0) {
        witness = "nic";
        reason = json_sprintf("network (NIC: %.0f frames missed or overrun)", n.nic_errors);
    } else if (lost > 0) {
        witness = "retransmits";
        reason = json_sprintf("network (retransmits: %.0f TCP segments, tail-loss probes left out)", lost);
    }
    const char *was = json_string_value(json_object_get(limits, "bottleneck"));
    if (!witness || (was && !strcmp(was, "target")) || !network_judgeable(row)) {
        json_decref(reason);
        return;
    }
    json_object_set_new(limits, "bottleneck", json_string("network"));
    json_object_set_new(limits, "witness", json_string(witness));
    json_array_append_new(warnings, json_sprintf("network-bound: %s; this row measures the network, not the tool",
                                                 json_string_value(reason)));
    json_object_set_new(limits, "reason", reason);
}
