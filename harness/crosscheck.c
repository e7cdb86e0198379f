#include "crosscheck.h"
#include "target.h"
#include "util.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

uint64_t crosscheck_server_requests(json_t *before, json_t *after)
{
    uint64_t b = target_u64(before, "responses_completed"), a = target_u64(after, "responses_completed");
    return a > b ? a - b : 0;
}

const char *crosscheck_verdict(uint64_t client, uint64_t server, uint64_t bound)
{
    if (client == server)
        return "exact";
    if (client < server && server - client <= bound)
        return "explained";
    return "mismatch";
}

double crosscheck_window_cpu(const struct crosscheck_point *pts, size_t n, uint64_t from_ns, uint64_t to_ns)
{
    double weight = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t end = pts[i].end_ns, start = end - (uint64_t)(pts[i].interval_s * 1e9);
        uint64_t a = start > from_ns ? start : from_ns, b = end < to_ns ? end : to_ns;
        if (b <= a)
            continue;
        double w = (double)(b - a);
        sum += pts[i].cpu_pct * w;
        weight += w;
    }
    /* Less than half the window covered by samples is no average. */
    if (weight < 0.5 * (double)(to_ns - from_ns))
        return NAN;
    return sum / weight;
}

static uint64_t delta(json_t *before, json_t *after, const char *key)
{
    uint64_t b = target_u64(before, key), a = target_u64(after, key);
    return a > b ? a - b : 0;
}

static double window_ms(json_t *stats, const char *q)
{
    json_t *h = json_object_get(json_object_get(json_object_get(stats, "window"), "server_time_ns"), q);
    return json_is_number(h) ? json_number_value(h) / 1e6 : NAN;
}

static json_t *num_or_null(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static int popcount(uint64_t m, int dflt)
{
    return m ? __builtin_popcountll(m) : dflt;
}

void crosscheck_fill(const struct crosscheck_in *in, json_t *res, json_t *warnings)
{
    uint64_t server = crosscheck_server_requests(in->before, in->after);
    json_t *after = in->after;
    double st_mean_ms = window_ms(after, "mean"), st_p50 = window_ms(after, "p50"), st_p99 = window_ms(after, "p99");

    /* ---- windows: load starts at the first request the server saw ---- */
    double whole_s = NAN, whole_rps = NAN, hold_rps = NAN, hold_s = NAN, load_start_s = NAN;
    uint64_t hold_from_ns = 0, hold_to_ns = 0;
    uint64_t first_ns = target_u64(after, "first_request_ns"), last_ns = target_u64(after, "last_response_ns");
    uint64_t started_ns = target_u64(after, "started_ns");
    if (first_ns && last_ns > first_ns) {
        whole_s = (double)(last_ns - first_ns) / 1e9;
        load_start_s = (double)(first_ns - (in->tool_spawned_ns ? in->tool_spawned_ns : first_ns)) / 1e9;
        if (in->tool_spawned_ns > first_ns)
            load_start_s = 0;
    }
    json_t *secs = json_object_get(in->series, "seconds");
    if (json_is_array(secs) && json_array_size(secs)) {
        /* Per-second completions from the server's clock. */
        size_t n = json_array_size(secs);
        long first = -1, last = -1;
        for (size_t i = 0; i < n; i++) {
            json_t *s = json_array_get(secs, i);
            if (json_is_true(json_object_get(s, "partial")))
                continue;
            uint64_t req = target_u64(s, "requests") + target_u64(s, "completions");
            if (req) {
                if (first < 0)
                    first = (long)i;
                last = (long)i;
            }
        }
        if (isnan(whole_s) && first >= 0) {
            whole_s = (double)(last - first + 1);
            load_start_s = NAN;
        }
        uint64_t hs, he;
        if (first >= 0 && profile_hold_window(in->load, &hs, &he) == 0) {
            /* Whole seconds inside [load start + hold start, load start + hold end). */
            double t0 = first_ns && started_ns ? (double)(first_ns - started_ns) / 1e9 : (double)first;
            double a = t0 + (double)hs / 1e9, b = t0 + (double)he / 1e9;
            if (started_ns) {
                hold_from_ns = started_ns + (uint64_t)(a * 1e9);
                hold_to_ns = started_ns + (uint64_t)(b * 1e9);
            }
            uint64_t sum = 0;
            int count = 0;
            for (size_t i = 0; i < n; i++) {
                json_t *s = json_array_get(secs, i);
                double t = (double)json_integer_value(json_object_get(s, "t"));
                if (t >= ceil(a) && t + 1 <= floor(b) && !json_is_true(json_object_get(s, "partial"))) {
                    sum += target_u64(s, "completions");
                    count++;
                }
            }
            if (count > 0) {
                hold_s = count;
                hold_rps = (double)sum / count;
            }
        }
    }
    if (whole_s > 0)
        whole_rps = (double)server / whole_s;
    json_object_set_new(res, "windows", json_pack("{s:o, s:o, s:o, s:o, s:o}", "load_start_s", num_or_null(load_start_s),
                                                  "whole_s", num_or_null(whole_s), "whole_rps", num_or_null(whole_rps),
                                                  "hold_s", num_or_null(hold_s), "hold_rps", num_or_null(hold_rps)));

    /* ---- server view ---- */
    json_t *win = json_object_get(after, "window");
    uint64_t open_max = target_u64(win, "connections_open_max");
    uint64_t inflight_max = target_u64(win, "inflight_max");
    uint64_t accepted = delta(in->before, after, "connections_accepted");
    double little = whole_rps * st_mean_ms / 1e3;
    json_t *sv = json_object();
    json_object_set_new(sv, "requests", json_integer((json_int_t)server));
    json_object_set_new(sv, "requests_parsed", json_integer((json_int_t)delta(in->before, after, "requests_parsed")));
    json_object_set_new(sv, "bad_requests", json_integer((json_int_t)delta(in->before, after, "bad_requests")));
    json_object_set_new(sv, "connections_accepted", json_integer((json_int_t)accepted));
    json_object_set_new(sv, "connections_open_max", json_integer((json_int_t)open_max));
    json_object_set_new(sv, "closed_unread", json_integer((json_int_t)delta(in->before, after, "closed_unread")));
    json_object_set_new(sv, "inflight_max", json_integer((json_int_t)inflight_max));
    json_object_set_new(sv, "bytes_out", json_integer((json_int_t)delta(in->before, after, "bytes_out")));
    json_object_set_new(sv, "server_time_ms",
                        json_pack("{s:o, s:o, s:o}", "mean", num_or_null(st_mean_ms), "p50", num_or_null(st_p50), "p99",
                                  num_or_null(st_p99)));
    json_object_set_new(sv, "littles_law_concurrency", num_or_null(little));
    json_object_set_new(sv, "connections_per_1k_requests",
                        num_or_null(server ? (double)accepted * 1000.0 / (double)server : NAN));
    json_object_set_new(res, "server", sv);

    /* ---- the workload as delivered ---- */
    {
        json_t *wl = json_object();
        double nominal = profile_load_peak(in->load);
        int open_like = in->model && (!strcmp(in->model, "open") || !strcmp(in->model, "paced"));
        json_object_set_new(wl, "model", json_string(in->model ? in->model : "closed"));
        if (open_like) {
            /* Offered = the arrival rate of the hold stage (or the peak). */
            uint64_t hs, he;
            double offered = nominal;
            if (profile_hold_window(in->load, &hs, &he) == 0) {
                uint64_t t = 0;
                for (size_t i = 0; i < in->load->nstages; i++) {
                    if (t == hs)
                        offered = in->load->stages[i].target;
                    t += in->load->stages[i].duration_ns;
                }
            }
            double achieved = !isnan(hold_rps) ? hold_rps : whole_rps;
            json_object_set_new(wl, "offered_rps", json_real(offered));
            json_object_set_new(wl, "achieved_rps", num_or_null(achieved));
            int limited = !isnan(achieved) && achieved < 0.99 * offered;
            json_object_set_new(wl, "generator_limited", json_boolean(limited));
            if (limited)
                json_array_append_new(warnings, json_sprintf("generator-limited: offered %.0f req/s, the server counted %.0f (%.1f%%)",
                                                             offered, achieved, achieved / offered * 100));
            nominal = in->load->max_inflight ? (double)in->load->max_inflight : NAN;
        }
        /* Concurrency the server saw, beside what the profile asked for. At
         * zero delay in-flight is near zero for everyone: compare open
         * connections instead. */
        double delivered = in->delay_ns > 0 ? little : (double)open_max;
        json_object_set_new(wl, "nominal_concurrency", num_or_null(nominal));
        json_object_set_new(wl, "delivered_concurrency", num_or_null(delivered));
        json_object_set_new(wl, "delivered_basis", json_string(in->delay_ns > 0 ? "littles_law" : "open_connections"));
        int shortfall = !isnan(nominal) && !isnan(delivered) && delivered < 0.5 * nominal;
        json_object_set_new(wl, "concurrency_shortfall", json_boolean(shortfall));
        if (shortfall)
            json_array_append_new(warnings, json_sprintf("asked for %.0f concurrent users/connections, the server saw %.1f %s",
                                                         nominal, delivered,
                                                         in->delay_ns > 0 ? "in flight (Little's law)" : "connections open"));
        json_object_set_new(res, "workload", wl);
    }

    /* ---- reconciliation ---- */
    /* The bound: connections open when the tool stopped. A tool that exits
     * by itself may already be closing at our last sample, so also take
     * the server's open connections in the last two seconds with traffic. */
    uint64_t bound = in->open_at_stop;
    if (json_is_array(secs)) {
        long last = -1;
        for (size_t i = 0; i < json_array_size(secs); i++)
            if (target_u64(json_array_get(secs, i), "completions"))
                last = (long)i;
        for (long i = last - 1; i <= last && last >= 0; i++) {
            if (i < 0)
                continue;
            uint64_t o = target_u64(json_array_get(secs, (size_t)i), "open");
            if (o > bound)
                bound = o;
        }
    }
    if (!bound)
        bound = open_max;
    json_t *cc = json_object();
    json_object_set_new(cc, "server", json_integer((json_int_t)server));
    if (in->client_parsed) {
        const char *v = crosscheck_verdict(in->client_requests, server, bound);
        json_object_set_new(cc, "client", json_integer((json_int_t)in->client_requests));
        json_object_set_new(cc, "difference", json_integer((json_int_t)in->client_requests - (json_int_t)server));
        json_object_set_new(cc, "verdict", json_string(v));
        json_object_set_new(cc, "bound", json_integer((json_int_t)bound));
        if (!strcmp(v, "explained"))
            json_object_set_new(cc, "note",
                                json_sprintf("the tool counted %llu fewer than the server served; at most one unread response per open connection (%llu) explains it",
                                             (unsigned long long)(server - in->client_requests), (unsigned long long)bound));
        else if (!strcmp(v, "mismatch"))
            json_array_append_new(warnings,
                                  json_sprintf("MISMATCH: the tool reports %llu requests, the server served %llu (bound for in-flight: %llu)",
                                               (unsigned long long)in->client_requests, (unsigned long long)server,
                                               (unsigned long long)bound));
    } else {
        json_object_set_new(cc, "verdict", json_string("no client count"));
    }
    json_object_set_new(res, "crosscheck", cc);

    /* ---- limits: who was the bottleneck ---- */
    struct sampler_summary ts, gs;
    memset(&ts, 0, sizeof ts);
    memset(&gs, 0, sizeof gs);
    if (in->tool_samples)
        sampler_tree_summary(in->tool_samples, &ts);
    if (in->target_samples)
        sampler_tree_summary(in->target_samples, &gs);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int tool_cpus = popcount(in->tool_cpus, (int)ncpu), target_cpus = popcount(in->target_cpus, (int)ncpu);
    /* Over the hold window where there is one (start-up is not load), else
     * over the whole run. */
    double tool_pct = ts.cpu_avg_pct, target_pct = gs.cpu_avg_pct;
    const char *basis = "whole run";
    if (hold_to_ns > hold_from_ns) {
        double a = crosscheck_window_cpu(in->tool_pts, in->ntool_pts, hold_from_ns, hold_to_ns);
        double b = crosscheck_window_cpu(in->target_pts, in->ntarget_pts, hold_from_ns, hold_to_ns);
        if (!isnan(a) && !isnan(b)) {
            tool_pct = a;
            target_pct = b;
            basis = "hold window";
        }
    }
    double tool_share = tool_pct / (100.0 * tool_cpus), target_share = target_pct / (100.0 * target_cpus);
    const char *bottleneck = "none";
    if (target_share >= 0.9)
        bottleneck = "target";
    else if (tool_share >= 0.9)
        bottleneck = "tool";
    json_object_set_new(res, "limits",
                        json_pack("{s:s, s:f, s:f, s:f, s:f, s:i, s:i, s:s}", "bottleneck", bottleneck, "tool_cpu_pct",
                                  tool_pct, "target_cpu_pct", target_pct, "tool_cpu_share", tool_share,
                                  "target_cpu_share", target_share, "tool_cpus", tool_cpus, "target_cpus", target_cpus,
                                  "basis", basis));
    if (!strcmp(bottleneck, "target"))
        json_array_append_new(warnings, json_sprintf("target-bound: lb-target used %.0f%% of its CPU set; this row measures the target, not the tool",
                                                     target_share * 100));

    /* ---- latency: floor and the tool's own overhead ---- */
    json_t *lc = json_object();
    double floor_ms = (double)in->delay_ns / 1e6;
    json_object_set_new(lc, "floor_ms", json_real(floor_ms));
    if (in->lat && floor_ms > 0) {
        double lo = !isnan(in->lat->min) ? in->lat->min : in->lat->p50;
        int below = !isnan(lo) && lo < floor_ms - in->latency_resolution_ms;
        json_object_set_new(lc, "below_floor", json_boolean(below));
        if (below)
            json_array_append_new(warnings, json_sprintf("latency below the server's floor: the tool reports %.3f ms but every response is held %.3f ms; it measures something else",
                                                         lo, floor_ms));
    }
    if (in->lat && !isnan(in->lat->p50) && !isnan(st_p50)) {
        json_object_set_new(lc, "tool_p50_ms", json_real(in->lat->p50));
        json_object_set_new(lc, "server_p50_ms", json_real(st_p50));
        json_object_set_new(lc, "overhead_p50_ms", json_real(in->lat->p50 - st_p50));
    }
    if (in->lat && !isnan(in->lat->p99) && !isnan(st_p99)) {
        json_object_set_new(lc, "tool_p99_ms", json_real(in->lat->p99));
        json_object_set_new(lc, "server_p99_ms", json_real(st_p99));
        json_object_set_new(lc, "overhead_p99_ms", json_real(in->lat->p99 - st_p99));
    }
    json_object_set_new(res, "latency_check", lc);

    /* ---- efficiency ---- */
    json_object_set_new(res, "efficiency",
                        json_pack("{s:o, s:o}", "requests_per_cpu_second",
                                  num_or_null(in->cpu_seconds > 0 ? (double)server / in->cpu_seconds : NAN), "rps_per_mb",
                                  num_or_null(in->rss_peak_mb > 0 ? whole_rps / in->rss_peak_mb : NAN)));
}

json_t *crosscheck_machine_json(const struct sampler_machine *m0, const struct sampler_machine *m1, double tool_cpu_s,
                                double target_cpu_s, double self_cpu_s, json_t *warnings)
{
    double hz = (double)sysconf(_SC_CLK_TCK);
    double idle = (double)((m1->idle + m1->iowait) - (m0->idle + m0->iowait)) / hz;
    double total = (double)(m1->total - m0->total) / hz;
    double busy = total - idle;
    double unattributed = busy - tool_cpu_s - target_cpu_s - self_cpu_s;
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "busy_s", busy, "user_s",
                          (double)(m1->user + m1->nice - m0->user - m0->nice) / hz, "system_s",
                          (double)(m1->system - m0->system) / hz, "softirq_s", (double)(m1->softirq - m0->softirq) / hz,
                          "steal_s", (double)(m1->steal - m0->steal) / hz, "tool_s", tool_cpu_s, "target_s",
                          target_cpu_s, "loadbench_s", self_cpu_s, "unattributed_s", unattributed);
    /* Wall time of the interval: total ticks over all CPUs / CPUs. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double wall = ncpu > 0 ? total / (double)ncpu : 0;
    if (wall > 0) {
        double pct = unattributed / wall * 100;
        json_object_set_new(o, "unattributed_pct", json_real(pct));
        if (pct > 5)
            json_array_append_new(warnings, json_sprintf("unattributed CPU: %.1f%% of a core was busy outside the tool, the target and loadbench "
                                                         "(other processes, or kernel work charged to none; softirq, the kernel's network work, was %.1f%% of a core)",
                                                         pct, (double)(m1->softirq - m0->softirq) / hz / wall * 100));
    }
    return o;
}
