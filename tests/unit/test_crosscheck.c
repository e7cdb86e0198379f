/* crosscheck: the reconciliation rules (exact / explained / mismatch / no
 * client count), the hold window, the bottleneck, the latency floor and
 * the workload as delivered, computed from a captured lb-target /stats and
 * /series pair and lb-gen's own figures (tests/fixtures/crosscheck/), with
 * the tool's side varied case by case; and the run.json text they make,
 * against a committed copy. */
#include "engine/crosscheck.h"
#include "tests/tap.h"

#define TSTATS_HIST_HIGHEST 68719476736ull   /* lb-target's histogram range */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE "tests/fixtures/crosscheck/lbgen-c4-2ms.json"

/* One case: the fixture's inputs, owned here so a case may change them. */
struct fx {
    json_t *root;
    struct profile_stage stages[4];
    struct profile_load load;
    struct adapter_latency lat;
    struct crosscheck_point tool_pts[160], target_pts[160];
    struct crosscheck_in in;
};

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static int fx_load(struct fx *f)
{
    json_error_t je;
    memset(f, 0, sizeof *f);
    f->root = json_load_file(FIXTURE, 0, &je);
    if (!f->root)
        return diag("%s:%d: %s", FIXTURE, je.line, je.text), -1;
    json_t *load = json_object_get(f->root, "load"), *st, *tool = json_object_get(f->root, "tool");
    size_t i;
    json_array_foreach(json_object_get(load, "stages"), i, st)
    {
        f->stages[i] = (struct profile_stage){.duration_ns = (uint64_t)(num(st, "duration_s") * 1e9), .target = num(st, "target")};
        f->load.nstages = i + 1;
    }
    f->load.stages = f->stages;
    f->load.ramped = json_is_true(json_object_get(load, "ramped"));
    json_t *lat = json_object_get(tool, "latency_ms");
    f->lat = (struct adapter_latency){.min = num(lat, "min"), .p50 = num(lat, "p50"), .p99 = num(lat, "p99"),
                                      .mean = NAN, .p90 = NAN, .p95 = NAN, .p999 = NAN, .max = NAN};
    f->in = (struct crosscheck_in){
        .before = json_object_get(f->root, "before"), .after = json_object_get(f->root, "after"),
        .series = json_object_get(f->root, "series"), .load = &f->load,
        .delay_ns = (uint64_t)(num(f->root, "delay_ms") * 1e6), .model = json_string_value(json_object_get(f->root, "model")),
        .client_parsed = json_is_true(json_object_get(tool, "parsed")), .client_requests = (uint64_t)num(tool, "requests"),
        .open_at_stop = (uint64_t)num(tool, "open_at_stop"), .cpu_seconds = num(tool, "cpu_seconds"),
        .rss_peak_mb = num(tool, "rss_peak_mb"), .lat = &f->lat,
        .latency_resolution_ms = num(tool, "latency_resolution_ms"), .tool_spawned_ns = (uint64_t)num(tool, "spawned_ns"),
        /* One CPU each, so that shares do not depend on this machine. */
        .tool_cpus = 0x2, .target_cpus = 0x1};
    return 0;
}

/* CPU samples every 250 ms from from_ns to to_ns: pct_in inside [hold_a,
 * hold_b), pct_out outside. */
static size_t fx_points(struct crosscheck_point *pts, uint64_t from_ns, uint64_t to_ns, uint64_t hold_a, uint64_t hold_b,
                        double pct_in, double pct_out)
{
    size_t n = 0;
    for (uint64_t t = from_ns + 250000000; t <= to_ns && n < 160; t += 250000000) {
        int inside = t > hold_a && t - 250000000 < hold_b;
        pts[n++] = (struct crosscheck_point){.end_ns = t, .interval_s = 0.25, .cpu_pct = inside ? pct_in : pct_out};
    }
    return n;
}

/* CPU samples over span_ns from the target's start: tool_in/target_in
 * inside the hold window, tool_out/target_out outside. */
static void fx_cpu_span(struct fx *f, uint64_t span_ns, double tool_in, double tool_out, double target_in, double target_out)
{
    uint64_t started = (uint64_t)num(f->in.after, "started_ns");
    struct crosscheck_result r;
    crosscheck_compute(&f->in, &r);
    f->in.ntool_pts = fx_points(f->tool_pts, started, started + span_ns, r.windows.hold_from_ns, r.windows.hold_to_ns,
                                tool_in, tool_out);
    f->in.ntarget_pts = fx_points(f->target_pts, started, started + span_ns, r.windows.hold_from_ns,
                                  r.windows.hold_to_ns, target_in, target_out);
    f->in.tool_pts = f->tool_pts;
    f->in.target_pts = f->target_pts;
}

static void fx_cpu(struct fx *f, double tool_in, double tool_out, double target_in, double target_out)
{
    fx_cpu_span(f, 6000000000ull, tool_in, tool_out, target_in, target_out);
}

static void test_reconciliation(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    is_u64(r.reconciliation.server, 3855, "server count: responses_completed after - before");
    is_str(crosscheck_verdict_name(r.reconciliation.verdict), "exact", "client 3855 = server 3855: exact");
    is_u64(r.reconciliation.bound, 4, "bound: open connections in the last two seconds with traffic (4)");
    f.in.client_requests = 3852;
    crosscheck_compute(&f.in, &r);
    is_str(crosscheck_verdict_name(r.reconciliation.verdict), "explained", "3 fewer with 4 connections open: explained");
    f.in.client_requests = 3851;
    crosscheck_compute(&f.in, &r);
    is_str(crosscheck_verdict_name(r.reconciliation.verdict), "explained", "4 fewer with 4 open: still explained");
    f.in.client_requests = 3850;
    crosscheck_compute(&f.in, &r);
    is_str(crosscheck_verdict_name(r.reconciliation.verdict), "mismatch", "5 fewer with 4 open: mismatch");
    f.in.client_requests = 3856;
    crosscheck_compute(&f.in, &r);
    is_str(crosscheck_verdict_name(r.reconciliation.verdict), "mismatch", "one more than the server served: mismatch");
    f.in.client_requests = 3845;
    f.in.open_at_stop = 10;
    crosscheck_compute(&f.in, &r);
    ok(r.reconciliation.verdict == CROSSCHECK_EXPLAINED && r.reconciliation.bound == 10,
       "10 connections open when loadbench stopped the tool: 10 fewer explained");
    f.in.client_parsed = 0;
    crosscheck_compute(&f.in, &r);
    is_str(crosscheck_verdict_name(r.reconciliation.verdict), "no client count", "tool output not read: no client count");
    f.in.series = NULL;
    f.in.open_at_stop = 0;
    f.in.client_parsed = 1;
    f.in.client_requests = 3851;
    crosscheck_compute(&f.in, &r);
    ok(r.reconciliation.bound == 4 && r.reconciliation.verdict == CROSSCHECK_EXPLAINED,
       "without a series the bound is the most connections ever open (4)");
    json_decref(f.root);
}

static void test_windows(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    ok(near(r.windows.whole_s, 2.998143988), "whole window: first request to last response, 2.998143988 s (got %.9f)",
       r.windows.whole_s);
    ok(near(r.windows.whole_rps, 3855 / 2.998143988), "whole-window rate: 3855 / whole_s");
    ok(near(r.windows.load_start_s, 0.1), "load started 0.1 s after the tool was spawned (got %g)", r.windows.load_start_s);
    /* Load starts 1.2956 s into the server's clock; a 3 s hold covers the
     * whole seconds 2 and 3 (second 4 is partial). */
    ok(r.windows.hold_s == 2 && near(r.windows.hold_rps, (1329 + 1105) / 2.0),
       "constant 3 s load: hold = seconds 2-3, (1329 + 1105) / 2 req/s (got %g s, %g)", r.windows.hold_s, r.windows.hold_rps);
    uint64_t started = (uint64_t)num(f.in.after, "started_ns"), first = (uint64_t)num(f.in.after, "first_request_ns");
    ok(r.windows.hold_from_ns / 1000 == first / 1000 && (r.windows.hold_to_ns - started) / 1000000 == 4295,
       "hold window on the monotonic clock: first request + [0 s, 3 s)");
    /* A 1 s ramp then a 2 s hold: the hold starts at 2.2956 s, so only
     * second 3 is whole inside it. */
    f.stages[0] = (struct profile_stage){.duration_ns = 1000000000, .target = 4};
    f.stages[1] = (struct profile_stage){.duration_ns = 2000000000, .target = 4};
    f.load.nstages = 2;
    f.load.ramped = 1;
    crosscheck_compute(&f.in, &r);
    ok(r.windows.hold_s == 1 && r.windows.hold_rps == 1105, "1 s ramp + 2 s hold: only second 3 counts (got %g s, %g)",
       r.windows.hold_s, r.windows.hold_rps);
    f.load.nstages = 1;
    crosscheck_compute(&f.in, &r);
    ok(isnan(r.windows.hold_s) && isnan(r.windows.hold_rps) && r.windows.hold_to_ns == 0, "a ramp alone has no hold window");
    f.in.after = json_deep_copy(f.in.after);
    json_object_set_new(f.in.after, "first_request_ns", json_integer(0));
    crosscheck_compute(&f.in, &r);
    ok(r.windows.whole_s == 3 && isnan(r.windows.load_start_s),
       "no first-request time: the whole window is the series' busy full seconds (1-3)");
    json_decref(f.in.after);
    json_decref(f.root);
}

static void test_limits(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE && !r.limits.hold_basis && r.limits.tool_cpu_pct == 0,
       "no samples: no bottleneck, judged over the whole run");
    fx_cpu(&f, 40, 40, 95, 95);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TARGET && r.limits.hold_basis && near(r.limits.target_cpu_share, 0.95),
       "lb-target at 95 %% of its one CPU over the hold window: target-bound");
    fx_cpu(&f, 95, 95, 50, 50);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL, "the tool at 95 %% of its one CPU: tool-bound");
    fx_cpu(&f, 95, 95, 92, 92);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TARGET, "both at 90 %% or more: the target is named");
    fx_cpu(&f, 89, 89, 89, 89);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE, "both at 89 %%: none");
    f.in.tool_cpus = 0x6;
    fx_cpu(&f, 150, 150, 50, 50);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.tool_cpus == 2 && near(r.limits.tool_cpu_share, 0.75) && r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE,
       "150 %% on two CPUs is a 0.75 share: none");
    fx_cpu(&f, 50, 50, 50, 100);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE && near(r.limits.target_cpu_pct, 50),
       "the target busy only outside the hold window (start-up, drain): not target-bound");
    f.in.ntool_pts = 2;
    crosscheck_compute(&f.in, &r);
    ok(!r.limits.hold_basis, "samples covering less than half the hold window: the whole run is the basis");
    json_decref(f.root);
}

/* The target's run-queue wait at pct inside the hold window, 0 outside. */
static void fx_target_wait(struct fx *f, double pct)
{
    struct crosscheck_result r;
    crosscheck_compute(&f->in, &r);
    for (size_t i = 0; i < f->in.ntarget_pts; i++) {
        uint64_t end = f->target_pts[i].end_ns;
        f->target_pts[i].wait_pct = end > r.windows.hold_from_ns && end - 250000000 < r.windows.hold_to_ns ? pct : 0;
    }
}

/* The starved witness: a target that ran little of its pinned CPU but
 * waited for it the rest of the time (other work had the core) is the
 * bottleneck, which its CPU share alone does not show. */
static void test_starved_witness(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    fx_cpu(&f, 40, 40, 12, 12);
    fx_target_wait(&f, 85);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TARGET && r.limits.witness == CROSSCHECK_WITNESS_STARVED &&
           near(r.limits.target_wait_share, 0.85),
       "target ran 12 %% and waited 85 %% of its one CPU: target, starved");
    json_t *res = json_object(), *warnings = json_array();
    crosscheck_to_json(&r, res, warnings);
    json_t *lim = json_object_get(res, "limits");
    is_str(json_string_value(json_object_get(lim, "witness")), "starved", "limits.witness");
    is_str(json_string_value(json_object_get(lim, "reason")), "target (starved: ran 12%, waited 85% of its 1 CPU)",
           "limits.reason");
    ok(near(json_number_value(json_object_get(lim, "target_wait_pct")), 85), "limits.target_wait_pct");
    ok(json_array_size(warnings) == 1 && strstr(json_string_value(json_array_get(warnings, 0)), "starved"),
       "one warning says the target was starved");
    json_decref(res);
    json_decref(warnings);
    fx_target_wait(&f, 70);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE, "ran 12 %% and waited 70 %%: idle 18 %% of the time, none");
    fx_cpu(&f, 40, 40, 85, 85);
    fx_target_wait(&f, 8);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE,
       "ran 85 %% and waited 8 %%: 93 %% but less than 10 %% waiting, none (the wake-ups of a busy server)");
    fx_cpu(&f, 40, 40, 12, 12);
    fx_target_wait(&f, 0);
    for (size_t i = 0; i < f.in.ntarget_pts; i++)
        f.target_pts[i].wait_pct = 90;
    crosscheck_compute(&f.in, &r);
    ok(r.limits.witness == CROSSCHECK_WITNESS_STARVED, "waiting all the time, the hold window included: starved");
    json_decref(f.root);
}

/* The busiest thread of the tool at pct inside the hold window, 0 outside. */
static void fx_thread(struct fx *f, double pct)
{
    struct crosscheck_result r;
    crosscheck_compute(&f->in, &r);
    for (size_t i = 0; i < f->in.ntool_pts; i++) {
        uint64_t end = f->tool_pts[i].end_ns;
        f->tool_pts[i].thread_pct = end > r.windows.hold_from_ns && end - 250000000 < r.windows.hold_to_ns ? pct : 0;
    }
}

/* The thread witness: one thread at 90 % of a core in the hold window,
 * whatever the tree's share of its CPU set. */
static void test_thread_witness(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    ok(isnan(r.limits.tool_thread_pct) && r.limits.witness == CROSSCHECK_WITNESS_NONE, "no samples: no thread figure");
    f.in.tool_cpus = 0x3;
    fx_cpu(&f, 105, 10, 20, 20);
    fx_thread(&f, 99);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL && r.limits.witness == CROSSCHECK_WITNESS_THREAD &&
           near(r.limits.tool_thread_pct, 99) && near(r.limits.tool_cpu_share, 0.525),
       "one thread at 99 %% while the tree uses 52.5 %% of its 2 CPUs: tool, by thread");
    json_t *res = json_object(), *warnings = json_array();
    crosscheck_to_json(&r, res, warnings);
    json_t *lim = json_object_get(res, "limits");
    is_str(json_string_value(json_object_get(lim, "witness")), "thread", "limits.witness");
    is_str(json_string_value(json_object_get(lim, "reason")), "tool (one thread at 99%)", "limits.reason");
    ok(json_array_size(warnings) == 1 && strstr(json_string_value(json_array_get(warnings, 0)), "saturated event loop"),
       "one warning names the saturated event loop");
    json_decref(res);
    json_decref(warnings);
    fx_thread(&f, 89.9);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.witness == CROSSCHECK_WITNESS_NONE && r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE,
       "the busiest thread at 89.9 %%: none");
    fx_cpu(&f, 190, 10, 20, 20);
    fx_thread(&f, 99);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.witness == CROSSCHECK_WITNESS_CPU, "the tree at 95 %% of its CPU set as well: the cpu witness comes first");
    fx_cpu(&f, 60, 10, 95, 95);
    fx_thread(&f, 99);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TARGET, "a target-bound row stays target-bound");
    fx_cpu(&f, 60, 10, 20, 20);
    crosscheck_compute(&f.in, &r);
    ok(near(r.limits.tool_thread_pct, 0) && r.limits.witness == CROSSCHECK_WITNESS_NONE,
       "a thread busy only outside the hold window: none");
    json_decref(f.root);
}

static void test_latency_and_workload(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    ok(r.latency.floor_checked && !r.latency.below_floor && near(r.latency.floor_ms, 2),
       "lb-gen's min 2.012 ms against a 2 ms floor: not below");
    ok(near(r.latency.overhead_p50_ms, 2.136063 - 2.016255), "p50 overhead: tool p50 - server p50 (got %g)",
       r.latency.overhead_p50_ms);
    f.lat.min = 0.5;
    crosscheck_compute(&f.in, &r);
    ok(r.latency.below_floor && r.latency.lowest_ms == 0.5, "min 0.5 ms against a 2 ms floor: below");
    f.lat.min = NAN;
    f.lat.p50 = 1.5;
    f.in.latency_resolution_ms = 1;
    crosscheck_compute(&f.in, &r);
    ok(!r.latency.below_floor && r.latency.lowest_ms == 1.5,
       "no min: p50 1.5 ms with 1 ms resolution is within the floor's reach");
    f.in.latency_resolution_ms = 0.001;
    crosscheck_compute(&f.in, &r);
    ok(r.latency.below_floor, "the same p50 with 1 us resolution: below");
    f.in.delay_ns = 0;
    crosscheck_compute(&f.in, &r);
    ok(!r.latency.floor_checked && !r.latency.below_floor, "no server delay: no floor to check");
    ok(r.workload.nominal_concurrency == 4 && r.workload.delivered_concurrency == 4 && !r.workload.delivered_by_littles_law,
       "zero delay: delivered concurrency is the open connections (4 of 4)");
    f.in.delay_ns = 2000000;
    crosscheck_compute(&f.in, &r);
    ok(r.workload.delivered_by_littles_law && near(r.workload.delivered_concurrency, r.windows.whole_rps * 2.56657 / 1e3) &&
           !r.workload.concurrency_shortfall,
       "2 ms delay: Little's law, %.2f in flight of 4 asked", r.workload.delivered_concurrency);
    f.stages[0].target = 10;
    crosscheck_compute(&f.in, &r);
    ok(r.workload.concurrency_shortfall, "10 asked, %.2f delivered: a shortfall", r.workload.delivered_concurrency);
    f.in.model = "open";
    f.stages[0].target = 2000;
    crosscheck_compute(&f.in, &r);
    ok(r.workload.open_like && r.workload.offered_rps == 2000 && r.workload.achieved_rps == 1217 &&
           r.workload.generator_limited,
       "open model offering 2000 req/s, 1217 achieved over the hold: generator-limited");
    f.stages[0].target = 1220;
    crosscheck_compute(&f.in, &r);
    ok(!r.workload.generator_limited, "offering 1220 req/s, 1217 achieved (within 1 %%): not limited");
    json_decref(f.root);
}

#define SAMPLE_RUN "tests/fixtures/crosscheck/sample-run.json"

/* One row of results/published/sample-200vus as crosscheck's input: lb-target's series
 * and server time as committed, the tool's latency, the profile's stages
 * (tests/fixtures/crosscheck/sample-run.py made the fixture). */
static void sr_row(struct fx *f, json_t *root, json_t *row)
{
    json_t *st, *tool = json_object_get(row, "tool"), *lat = json_object_get(tool, "latency_ms");
    size_t i;
    memset(f, 0, sizeof *f);
    json_array_foreach(json_object_get(row, "stages"), i, st)
    {
        f->stages[i] = (struct profile_stage){.duration_ns = (uint64_t)(num(st, "duration_s") * 1e9), .target = num(st, "target")};
        f->load.nstages = i + 1;
    }
    f->load.stages = f->stages;
    f->load.ramped = f->load.nstages > 1;
    f->lat = (struct adapter_latency){.min = num(lat, "min"), .p50 = num(lat, "p50"), .p99 = num(lat, "p99"),
                                      .mean = NAN, .p90 = NAN, .p95 = NAN, .p999 = NAN, .max = NAN};
    f->in = (struct crosscheck_in){.before = json_object_get(row, "before"), .after = json_object_get(row, "after"),
                                   .series = json_object_get(row, "series"), .load = &f->load,
                                   .delay_ns = (uint64_t)(num(root, "delay_ms") * 1e6),
                                   .model = json_string_value(json_object_get(row, "model")), .lat = &f->lat,
                                   .tool_cpus = 0x1, .target_cpus = 0x2};
}

/* The sample run's rows through crosscheck_compute, by label. */
static int sr_compute(json_t *root, const char *label, struct fx *f, struct crosscheck_result *r)
{
    json_t *row;
    size_t i;
    json_array_foreach(json_object_get(root, "rows"), i, row)
    {
        if (strcmp(json_string_value(json_object_get(row, "label")), label))
            continue;
        sr_row(f, root, row);
        /* The CPU run.json averaged over the hold, flat over the run. */
        double tool = num(json_object_get(row, "tool"), "tool_cpu_pct"), target = num(json_object_get(row, "tool"), "target_cpu_pct");
        fx_cpu_span(f, 36000000000ull, tool, tool, target, target);
        crosscheck_compute(&f->in, r);
        return 0;
    }
    return -1;
}

/* The steadiness verdict on the sample run's real holds (20 s each, 19
 * whole seconds: 9 blocks of 2 s). */
static void test_steady_sample_run(json_t *root)
{
    struct fx f;
    struct crosscheck_result r;
    json_t *row;
    size_t i;
    char flag[160];
    int aligned = 1;
    json_array_foreach(json_object_get(root, "rows"), i, row)
    {
        const char *label = json_string_value(json_object_get(row, "label"));
        sr_compute(root, label, &f, &r);
        json_t *rj = json_object_get(row, "run_json");
        aligned &= r.windows.hold_s == num(rj, "hold_s") && near(r.windows.hold_rps, num(rj, "hold_rps"));
        const struct crosscheck_steady *s = &r.windows.steady;
        diag("%-11s hold %5.0f req/s  %d x %d s  change %+5.1f%%  ratio %.2f  p %.4f  %s", label, r.windows.hold_rps,
             s->blocks, s->block_s, s->change * 100, s->ratio, s->p, *crosscheck_steady_flag(s, flag, sizeof flag) ? flag : "steady");
    }
    ok(aligned, "every row's hold window: the same seconds and rate as results/published/sample-200vus/run.json");
    sr_compute(root, "lb-gen", &f, &r);
    ok(r.windows.steady.verdict == CROSSCHECK_STEADY_STEADY && r.windows.steady.blocks == 9 &&
           fabs(r.windows.steady.change) < 0.01,
       "lb-gen's hold (9,586-9,997 req/s): steady, Sen's change %+.2f%%", r.windows.steady.change * 100);
    sr_compute(root, "jmeter", &f, &r);
    ok(r.windows.steady.verdict == CROSSCHECK_STEADY_UNSHOWN && r.windows.steady.change > 0.5 && r.windows.steady.p > 0.05,
       "JMeter's hold (1,150 up to 3,022, then down to 1,068 req/s): change %+.0f%%, p %.2f: not shown steady",
       r.windows.steady.change * 100, r.windows.steady.p);
    is_str(crosscheck_steady_flag(&r.windows.steady, flag, sizeof flag),
           "not shown steady: rate moved +54% with no clear trend through the hold", "JMeter's flag");
    sr_compute(root, "locust", &f, &r);
    ok(r.windows.steady.verdict == CROSSCHECK_STEADY_NOT_STEADY && r.windows.steady.p < 0.01,
       "Locust's hold (1,173 down to 14 req/s): not steady, p %.4f", r.windows.steady.p);
    is_str(crosscheck_steady_flag(&r.windows.steady, flag, sizeof flag), "not steady: rate fell 64% through the hold",
           "Locust's flag");
    sr_compute(root, "wrk", &f, &r);
    ok(r.windows.steady.verdict == CROSSCHECK_STEADY_STEADY, "wrk's hold: steady");
}

/* The bottleneck and its witness for the sample run's rows: 200 users
 * against a 20 ms delay, each tool on one CPU. */
static void test_queueing_sample_run(json_t *root)
{
    struct fx f;
    struct crosscheck_result r;
    json_t *row;
    size_t i;
    const char *wn[] = {"none", "cpu", "queueing", "thread", "starved", "overhead"}, *bn[] = {"none", "tool", "target"};
    json_array_foreach(json_object_get(root, "rows"), i, row)
    {
        const char *label = json_string_value(json_object_get(row, "label"));
        sr_compute(root, label, &f, &r);
        const struct crosscheck_queueing *q = &r.limits.queueing;
        diag("%-11s cpu %5.1f%%  %6.1f in flight of %.0f  p50 tool %7.2f / server %.2f ms  -> %s (%s)", label,
             r.limits.tool_cpu_pct, q->in_flight, q->asked, q->tool_p50_ms, q->server_p50_ms, bn[r.limits.bottleneck],
             wn[r.limits.witness]);
    }
    sr_compute(root, "locust", &f, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL && r.limits.witness == CROSSCHECK_WITNESS_QUEUEING &&
           fabs(r.limits.queueing.in_flight - 412.3157895 * 20.294124 / 1e3) < 1e-6 && r.limits.queueing.asked == 200,
       "Locust (50 %% CPU, 412 req/s x 20.29 ms = %.1f in flight of 200, p50 180 ms): tool, by queueing",
       r.limits.queueing.in_flight);
    sr_compute(root, "artillery", &f, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL && r.limits.witness == CROSSCHECK_WITNESS_QUEUEING,
       "Artillery (84 %% CPU, %.1f in flight of 200, p50 125.2 ms): tool, by queueing", r.limits.queueing.in_flight);
    json_t *res = json_object(), *warnings = json_array();
    crosscheck_to_json(&r, res, warnings);
    is_str(json_string_value(json_object_get(json_object_get(res, "limits"), "reason")),
           "tool (queueing: 200 asked, 16 in flight at the server)", "Artillery's limits.reason");
    json_decref(res);
    json_decref(warnings);
    sr_compute(root, "lb-gen", &f, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE && r.limits.queueing.judged && !r.limits.queueing.fired &&
           r.limits.queueing.in_flight > 190,
       "lb-gen (%.1f in flight of 200, p50 20.19 ms against 20.04): none", r.limits.queueing.in_flight);
    sr_compute(root, "jmeter", &f, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL && r.limits.witness == CROSSCHECK_WITNESS_CPU,
       "JMeter at 99 %% of its CPU: tool, by cpu (the first witness)");
    sr_compute(root, "autocannon", &f, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_NONE && r.limits.queueing.in_flight > 100,
       "autocannon (%.0f in flight of 200, p50 23 ms): none", r.limits.queueing.in_flight);
}

/* The overhead witness on the captured lb-gen run (tool p99 15.87 ms,
 * the server's 10.34 for the same requests: +5.5 ms, 53 %) with the hold
 * window's server time given (mean 2.0 ms at 1,217 req/s). */
static void test_overhead_rules(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    const struct crosscheck_overhead *o = &r.limits.overhead;
    ok(o->judged_p99 && near(o->server_spread_ms, 10.338303 - 2.016255) && near(o->p99_floor_ms, 2 * o->server_spread_ms) &&
           !o->fired_p99,
       "p99 +5.5 ms (53 %%) but the server's own p99 is %.1f ms over its p50: under twice that, not fired",
       o->server_spread_ms);
    f.lat.p99 = 30.0;
    crosscheck_compute(&f.in, &r);
    ok(!o->judged_share && o->judged_p99 && o->fired_p99 && r.limits.witness == CROSSCHECK_WITNESS_NONE,
       "closed, no hold-window server time: the share is not judged, and the p99 alone names nobody");
    json_t *hold = json_pack("{s:f, s:f}", "mean", 2.0, "p50", 1.9);
    f.in.hold_server_time = hold;
    crosscheck_compute(&f.in, &r);
    ok(o->judged_share && near(o->cycle_ms, 4 / 1217.0 * 1e3) && near(o->share, 1 - 2.0 / (4 / 1217.0 * 1e3)) &&
           o->fired_share && o->fired_p99 && r.limits.witness == CROSSCHECK_WITNESS_OVERHEAD &&
           r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL,
       "4 users at 1,217 req/s (%.2f ms a turn, 2.0 at the server: %.1f %% outside) and p99 +19.7 ms: overhead",
       o->cycle_ms, o->share * 100);
    json_t *res = json_object(), *warnings = json_array();
    crosscheck_to_json(&r, res, warnings);
    is_str(json_string_value(json_object_get(json_object_get(res, "limits"), "reason")),
           "tool (overhead: 39.1% of each user's time inside the tool; p99 +20 ms over the server's)", "limits.reason");
    json_decref(res);
    json_decref(warnings);
    f.lat.p99 = 12.0;
    crosscheck_compute(&f.in, &r);
    ok(o->fired_share && !o->fired_p99 && r.limits.witness == CROSSCHECK_WITNESS_NONE,
       "the same with p99 12.0 ms (+1.7 ms): a closed model needs both, none");
    f.lat.p99 = 30.0;
    f.stages[0].target = 2.5;
    crosscheck_compute(&f.in, &r);
    ok(!o->fired_share && o->fired_p99 && r.limits.witness == CROSSCHECK_WITNESS_NONE,
       "2.5 users (%.1f %% outside, %.3f ms a request): the share is under its floor, none", o->share * 100, o->outside_ms);
    f.stages[0].target = 2.7;
    crosscheck_compute(&f.in, &r);
    ok(o->share >= CROSSCHECK_OVERHEAD_SHARE && o->outside_ms < CROSSCHECK_OVERHEAD_OUTSIDE_MS && !o->fired_share,
       "2.7 users: %.1f %% outside but %.2f ms a request (under 0.5 ms, a wake-up's cost): not fired", o->share * 100,
       o->outside_ms);
    f.in.model = "open";
    f.stages[0].target = 1217;
    crosscheck_compute(&f.in, &r);
    ok(!o->judged_share && o->fired_p99 && r.limits.witness == CROSSCHECK_WITNESS_OVERHEAD,
       "an open model: the p99 alone names the tool");
    json_t *stalls = json_pack("{s:{s:{s:I, s:I}}, s:[]}", "delay", "stall", "every_ns", (json_int_t)10000000000,
                               "for_ns", (json_int_t)1000000000, "stalls");
    f.in.stalls = stalls;
    crosscheck_compute(&f.in, &r);
    ok(!o->judged_p99 && r.limits.witness == CROSSCHECK_WITNESS_NONE,
       "a target that stalls: the p99 is the coordinated-omission verdict's, not judged");
    f.in.stalls = NULL;
    json_decref(stalls);
    f.in.delay_ns = 500000;
    crosscheck_compute(&f.in, &r);
    ok(!o->judged_p99 && !o->judged_share, "a 0.5 ms delay: not judged");
    f.in.hold_server_time = NULL;
    json_decref(hold);
    json_decref(f.root);
}

/* The queueing witness's rules on the captured lb-gen run (4 users, 2 ms
 * delay): each threshold on its own side. */
static void test_queueing_rules(void)
{
    struct fx f;
    struct crosscheck_result r;
    if (fx_load(&f))
        return;
    crosscheck_compute(&f.in, &r);
    ok(r.limits.queueing.judged && !r.limits.queueing.fired && r.limits.witness == CROSSCHECK_WITNESS_NONE,
       "4 users, %.2f in flight: judged, not fired", r.limits.queueing.in_flight);
    f.stages[0].target = 10;
    f.lat.p50 = 4.1;
    crosscheck_compute(&f.in, &r);
    ok(r.limits.queueing.fired && r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TOOL,
       "10 asked, %.2f in flight, p50 4.1 ms against 2.02: fired", r.limits.queueing.in_flight);
    f.lat.p50 = 4.0;
    crosscheck_compute(&f.in, &r);
    ok(!r.limits.queueing.fired, "the same with p50 4.0 ms (under twice 2.016): not fired");
    f.lat.p50 = 4.1;
    f.stages[0].target = 6;
    crosscheck_compute(&f.in, &r);
    ok(!r.limits.queueing.fired, "6 asked, %.2f in flight (more than half): not fired", r.limits.queueing.in_flight);
    f.stages[0].target = 10;
    json_t *hold = json_pack("{s:f, s:f}", "mean", 2.0, "p50", 1.9);
    f.in.hold_server_time = hold;
    crosscheck_compute(&f.in, &r);
    ok(r.limits.queueing.hold_server_time && near(r.limits.queueing.in_flight, 1217 * 2.0 / 1e3) && r.limits.queueing.fired,
       "the hold window's server time when given (2.0 ms mean: %.3f in flight)", r.limits.queueing.in_flight);
    f.in.hold_server_time = NULL;
    json_decref(hold);
    f.in.delay_ns = 500000;
    crosscheck_compute(&f.in, &r);
    ok(!r.limits.queueing.judged, "a 0.5 ms delay: not judged (the loopback round trip is not small against it)");
    f.in.delay_ns = 2000000;
    f.in.model = "open";
    crosscheck_compute(&f.in, &r);
    ok(!r.limits.queueing.judged, "an open model: not judged (no users to count)");
    f.in.model = "closed";
    fx_cpu(&f, 95, 95, 50, 50);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.witness == CROSSCHECK_WITNESS_CPU, "the tool's CPU at 95 %% and queueing both: cpu is named");
    fx_cpu(&f, 40, 40, 95, 95);
    crosscheck_compute(&f.in, &r);
    ok(r.limits.bottleneck == CROSSCHECK_BOTTLENECK_TARGET, "the target's CPU at 95 %%: target, whatever the queueing");
    json_decref(f.root);
}

/* The verdict's rules on made series: a doubling, a fall, noise, too
 * short. */
static void test_steady_rules(void)
{
    struct crosscheck_steady s;
    double v[40];
    char flag[160];
    for (int i = 0; i < 20; i++)
        v[i] = 1000 + 50.0 * i + (i % 3) * 40;
    crosscheck_steady_judge(v, 20, &s);
    ok(s.verdict == CROSSCHECK_STEADY_NOT_STEADY && s.block_s == 2 && s.blocks == 10 && s.ratio > 1.5,
       "1,000 rising to 2,000 over 20 s: not steady");
    is_str(crosscheck_steady_flag(&s, flag, sizeof flag), "not steady: rate rose 2.0x through the hold", "its flag");
    for (int i = 0; i < 40; i++)
        v[i] = 1000 + (i % 2 ? 30 : -30) + (i % 5) * 10;
    crosscheck_steady_judge(v, 40, &s);
    ok(s.verdict == CROSSCHECK_STEADY_STEADY && s.block_s == 5 && s.blocks == 8, "flat with noise over 40 s: 8 blocks of 5 s, steady");
    for (int i = 0; i < 40; i++)
        v[i] = 1000 + 2.0 * i;
    crosscheck_steady_judge(v, 40, &s);
    ok(s.verdict == CROSSCHECK_STEADY_STEADY && s.p < 0.05,
       "a significant trend of 8 %% across the hold is below the 10 %% bar: steady (p %.4f)", s.p);
    crosscheck_steady_judge(v, 9, &s);
    ok(s.verdict == CROSSCHECK_STEADY_NOT_JUDGED && s.blocks == 4, "9 s make 4 blocks of 2 s: not judged");
    crosscheck_steady_judge(v, 10, &s);
    ok(s.verdict != CROSSCHECK_STEADY_NOT_JUDGED && s.blocks == 5, "10 s make 5 blocks: judged");
    for (int i = 0; i < 20; i++)
        v[i] = i < 12 ? 0 : 500;
    crosscheck_steady_judge(v, 20, &s);
    ok(s.verdict == CROSSCHECK_STEADY_NOT_JUDGED && isnan(s.change), "a median of 0 req/s: not judged, no change computed");
}

/* crosscheck_fill's text, as run.json holds it, against the committed
 * copy (made by the code before it computed into structs). */
/* Percentile truth: the captured run's server percentiles (p50 2.016 ms,
 * p99 10.338 ms) against a tool that reports less than the server held. */
static void test_truth(struct fx *f)
{
    struct crosscheck_result r;
    f->lat.p50 = 1.5;
    f->lat.p99 = 10.33;
    f->in.latency_resolution_ms = 0.001;
    crosscheck_compute(&f->in, &r);
    ok(r.truth.judged && !strcmp(r.truth.rows[0].q, "p50") && r.truth.rows[0].below_server,
       "a tool p50 of 1.5 ms against the server's 2.016 ms: flagged below");
    ok(!r.truth.rows[2].below_server, "p99 10.33 against 10.338 ms: within the server's 0.1 %% bucket");
    ok(near(r.truth.rows[0].error_ms, 1.5 - 2.016255) && near(r.truth.rows[0].error_pct, (1.5 / 2.016255 - 1) * 100),
       "the error in ms and in %% of the server's (%.3f ms, %.1f %%)", r.truth.rows[0].error_ms,
       r.truth.rows[0].error_pct);
    is_u64((uint64_t)r.truth.nbelow, 1, "one row flagged");
    f->in.latency_resolution_ms = 1;
    crosscheck_compute(&f->in, &r);
    ok(!r.truth.rows[0].below_server, "the same p50 from a tool with 1 ms resolution: not flagged");
    f->in.lat = NULL;
    crosscheck_compute(&f->in, &r);
    ok(r.truth.judged == 0, "no tool latency: nothing judged");
    json_t *res = json_object(), *warnings = json_array();
    f->in.lat = &f->lat;
    f->in.latency_resolution_ms = 0.001;
    crosscheck_fill(&f->in, res, warnings);
    ok(json_array_size(warnings) && strstr(json_string_value(json_array_get(warnings, json_array_size(warnings) - 1)),
                                           "below the server's for the same requests (p50)"),
       "the warning names p50");
    json_decref(res);
    json_decref(warnings);

    /* With the server's histogram: 100 requests of 1..100 ms. Its p99 is
     * 99 ms; a tool may report one rank less (98 ms), and one more rank
     * for each response it did not count. */
    json_t *b = json_array();
    for (int v = 1; v <= 100; v++)
        json_array_append_new(b, json_pack("[I, i]", (json_int_t)v * 1000000, 1));
    f->in.server_histogram = json_pack("{s:I, s:i, s:o}", "highest_ns", (json_int_t)TSTATS_HIST_HIGHEST, "sigfigs", 3,
                                       "buckets", b);
    f->in.client_parsed = 1;
    f->in.client_requests = 100;
    f->lat.p99 = 98.5;
    crosscheck_compute(&f->in, &r);
    ok(fabs(r.truth.rows[2].server_ms - 99) < 0.1 && fabs(r.truth.rows[2].bound_ms - 98) < 0.1 &&
           !r.truth.rows[2].below_server,
       "histogram: server p99 99 ms, bound 98 ms; a tool p99 of 98.5 ms is not flagged");
    f->lat.p99 = 97;
    crosscheck_compute(&f->in, &r);
    ok(r.truth.rows[2].below_server, "a tool p99 of 97 ms is flagged");
    f->in.client_requests = 95;
    crosscheck_compute(&f->in, &r);
    /* Above its p99 lie 0.95 of the 95 it timed, plus the 5 it did not:
     * the bound is the server's rank 100 - 0.95 - 5 - 1 = 93.05 (94 ms). */
    ok(!r.truth.rows[2].below_server && fabs(r.truth.rows[2].bound_ms - 94) < 0.1,
       "5 responses the tool did not count lower the bound to 94 ms: 97 ms is not flagged");
    json_decref(f->in.server_histogram);
    f->in.server_histogram = NULL;
}

/* A server histogram of n requests at from_ms, from_ms + step, ... */
static json_t *hist_json(int n, double from_ms, double step_ms)
{
    json_t *b = json_array();
    for (int v = 0; v < n; v++)
        json_array_append_new(b, json_pack("[I, i]", (json_int_t)((from_ms + v * step_ms) * 1e6), 1));
    return json_pack("{s:I, s:i, s:o}", "highest_ns", (json_int_t)TSTATS_HIST_HIGHEST, "sigfigs", 3, "buckets", b);
}

/* The count reconciled before a row is suspect: more successes than the
 * server completed never pass; more requests only by errors the server's
 * counters or the kernel's drops explain. */
static void test_suspect_count(struct fx *f)
{
    struct crosscheck_result r;
    f->in.client_requests = 38550;          /* wrk's count x 10 */
    f->in.client_ok = 38550;
    crosscheck_compute(&f->in, &r);
    ok(r.suspect.count && strstr(r.suspect.reason, "counts 38550 successful responses, the server completed 3855"),
       "a count x10: suspect (%s)", r.suspect.reason);
    f->in.client_requests = 3865;           /* 10 failed connects counted as requests */
    f->in.client_ok = 3855;
    f->in.client_errors = 10;
    crosscheck_compute(&f->in, &r);
    ok(r.reconciliation.verdict == CROSSCHECK_MISMATCH && r.suspect.count,
       "10 requests more, 10 errors, nothing dropped: a mismatch no counter explains, suspect");
    f->in.kernel_drops = 10;
    crosscheck_compute(&f->in, &r);
    ok(r.reconciliation.verdict == CROSSCHECK_MISMATCH && !r.suspect.count && !r.suspect.reason[0],
       "the same with 10 listen-queue drops: reconciled, not suspect");
    f->in.client_errors = 5;
    crosscheck_compute(&f->in, &r);
    ok(r.suspect.count, "10 more with only 5 errors: suspect even with the drops");
    f->in.client_requests = 3855;
    f->in.client_errors = 0;
    f->in.kernel_drops = 0;
    crosscheck_compute(&f->in, &r);
    ok(!r.suspect.count && !r.suspect.latency && !r.suspect.reason[0], "the captured run as it was: not suspect");
    f->in.client_ok = 0;
}

/* The latency floor per percentile: a tool below what the server held
 * beyond both resolutions is suspect; one that timed failed connects (fast
 * samples the server never held) is judged only above their share; a
 * tool's step at the size judged (Locust: 10 ms from 100 ms) is its margin. */
static void test_suspect_latency(struct fx *f)
{
    struct crosscheck_result r;
    struct adapter_latency keep = f->lat;
    f->in.server_histogram = hist_json(100, 20, 0.1);   /* 20.0 .. 29.9 ms */
    f->in.client_requests = 100;
    f->lat = (struct adapter_latency){.min = 0.2, .p50 = 0.2045, .p90 = 0.2085, .p99 = 0.2095, .p999 = NAN,
                                      .max = 0.2099, .mean = NAN, .p95 = NAN};
    f->in.latency_resolution_ms = 0.001;
    crosscheck_compute(&f->in, &r);
    ok(r.suspect.latency && r.truth.nbelow == 4 && strstr(r.suspect.reason, "p50 0.204 ms < 24.8 ms"),
       "latencies / 100 against 20-30 ms held: suspect, every percentile named (%s)", r.suspect.reason);
    f->in.clock_stepped = 1;
    crosscheck_compute(&f->in, &r);
    ok(!r.suspect.latency && r.truth.nbelow == 4, "the same with the clock stepped: flagged, but not grounds for suspect");
    f->in.clock_stepped = 0;
    /* An honest tool whose one slowest request reads 0.2 ms under the
     * server's second slowest (the kernel's arrival stamp against the
     * tool's send: seen across namespaces): the max is flagged, the row
     * is not suspect. */
    f->lat = (struct adapter_latency){.min = 20.0, .p50 = 25.0, .p90 = 29.0, .p99 = 29.9, .p999 = NAN,
                                      .max = 29.6, .mean = NAN, .p95 = NAN};
    crosscheck_compute(&f->in, &r);
    ok(r.truth.rows[4].below_server && r.truth.nbelow == 1 && !r.suspect.latency && !strstr(r.suspect.reason, "latency"),
       "only the max below the server's: flagged (%d below, max %d), not suspect for it (%d)", r.truth.nbelow,
       r.truth.rows[4].below_server, r.suspect.latency);
    /* A p99 of 100 requests is one request: flagged, not grounds either. */
    f->lat.p99 = 29.0;
    f->lat.max = 29.9;
    crosscheck_compute(&f->in, &r);
    ok(r.truth.rows[2].below_server && !r.suspect.latency,
       "a p99 below the server's with 1 of 100 requests above it: flagged, not suspect");

    /* 40 held requests at 20..59 ms; the tool timed 60 failed connects at
     * 0.1 ms too: its p50 is 0.1 ms, legitimately. */
    json_decref(f->in.server_histogram);
    f->in.server_histogram = hist_json(40, 20, 1);
    f->in.client_requests = 100;
    f->in.client_errors = 60;
    f->lat = (struct adapter_latency){.min = 0.1, .p50 = 0.1, .p90 = 56, .p99 = 59, .p999 = NAN, .max = 59,
                                      .mean = NAN, .p95 = NAN};
    crosscheck_compute(&f->in, &r);
    ok(!r.truth.rows[0].judged && !r.truth.rows[0].below_server && r.truth.rows[1].judged && !r.suspect.latency,
       "60 %% failed connects timed: p50 0.1 ms not judged (below the unheld share), p90 judged, not suspect");
    ok(r.latency.below_floor, "the minimum-based floor still flags it (a warning only)");
    f->lat.p90 = 30;
    crosscheck_compute(&f->in, &r);
    ok(r.truth.rows[1].below_server && r.suspect.latency, "the same tool with a p90 of 30 ms: below the server, suspect");
    f->in.client_errors = 0;

    /* Locust: whole ms, two significant digits from 100 ms. 100 held
     * requests at 155..254 ms; it reports its p50 (204 ms) as 200 and its
     * max (254) as 250. */
    json_decref(f->in.server_histogram);
    f->in.server_histogram = hist_json(100, 155, 1);
    f->lat = (struct adapter_latency){.min = 160, .p50 = 200, .p90 = 240, .p99 = 250, .p999 = NAN, .max = 250,
                                      .mean = NAN, .p95 = NAN};
    f->in.latency_resolution_ms = 1;
    f->in.latency_digits = 2;
    crosscheck_compute(&f->in, &r);
    ok(!r.suspect.latency && r.truth.nbelow == 0, "Locust's 10 ms steps at 200 ms: honest, not suspect");
    f->in.latency_digits = 0;
    crosscheck_compute(&f->in, &r);
    ok(r.truth.nbelow > 0, "the same figures from a tool claiming whole ms alone: flagged");
    f->in.latency_digits = 0;

    /* Artillery: whole ms from Date.now(). Its captured 20 ms delay run
     * (tests/fixtures/artillery/delay-20ms.report.json: 150 requests, min
     * 20, p50 21.1, p90 24.8, p99 30.3, p99.9 30.9, max 34) against 150
     * requests the server held 20.9 ms each, the most a 20 ms delay takes. */
    json_decref(f->in.server_histogram);
    f->in.server_histogram = hist_json(150, 20.9, 0);
    f->in.client_requests = 150;
    f->lat = (struct adapter_latency){.min = 20, .p50 = 21.1, .p90 = 24.8, .p99 = 30.3, .p999 = 30.9, .max = 34,
                                      .mean = 22, .p95 = 26.8};
    crosscheck_compute(&f->in, &r);
    ok(!r.suspect.latency && r.truth.nbelow == 0, "Artillery's captured 20 ms run: honest, not suspect");
    f->lat.p50 = 20;
    crosscheck_compute(&f->in, &r);
    ok(!r.suspect.latency, "a whole-ms p50 of 20 against 20.9 ms held: within its 1 ms, not suspect");
    f->lat.p50 = 19;
    crosscheck_compute(&f->in, &r);
    ok(r.suspect.latency, "a p50 of 19 ms against 20.9 ms held: beyond 1 ms, suspect");
    json_decref(f->in.server_histogram);
    f->in.server_histogram = NULL;
    f->lat = keep;
    f->in.client_requests = 3855;
}

static void test_resolution_and_clock(void)
{
    ok(crosscheck_resolution_at(1, 2, 150) == 10 && crosscheck_resolution_at(1, 2, 1500) == 100 &&
           crosscheck_resolution_at(1, 2, 50) == 1 && crosscheck_resolution_at(1, 0, 1500) == 1,
       "a 2-digit tool steps by 1 ms below 100 ms, 10 ms to 1 s, 100 ms above");
    ok(!crosscheck_clock_stepped(0, 5000000, 1000000000ull), "5 ms in 1 s: not a step");
    ok(crosscheck_clock_stepped(0, -50000000, 1000000000ull), "-50 ms in 1 s: stepped");
    ok(!crosscheck_clock_stepped(0, 39000000, 60000000000ull), "39 ms in 60 s: within NTP's slew, not a step");
}

/* Coordinated omission on a made-up server view: 12 s of 100 arrivals a
 * second from start_ns 0, 1 s stalls at 5 s and 10 s. */
static void test_co(void)
{
    const json_int_t S = 1000000000;
    struct adapter_latency lat = {.p50 = 5, .p99 = 20};
    json_t *after = json_pack("{s:I, s:I}", "first_request_ns", (json_int_t)0, "last_response_ns", 12 * S);
    json_t *stalls = json_pack("{s:{s:{s:I, s:I}}, s:[{s:I, s:I}, {s:I, s:I}]}", "delay", "stall", "every_ns", 5 * S,
                               "for_ns", S, "stalls", "start_ns", 5 * S, "end_ns", 6 * S, "start_ns", 10 * S, "end_ns",
                               11 * S);
    struct profile_stage stage = {.duration_ns = 12 * S, .target = 100};
    struct profile_load load = {.model = LOAD_OPEN, .stages = &stage, .nstages = 1};
    struct crosscheck_in in = {.before = after, .after = after, .stalls = stalls, .lat = &lat, .load = &load,
                               .model = "open"};
    struct crosscheck_result r;
    for (int kept = 0; kept < 2; kept++) {
        json_t *secs = json_array();
        for (int t = 0; t < 12; t++)
            json_array_append_new(secs, json_pack("{s:i, s:i, s:i}", "t", t, "requests",
                                                  (t == 5 || t == 10) && !kept ? 2 : 100, "accepts", 0));
        in.series = json_pack("{s:I, s:o}", "start_ns", (json_int_t)0, "seconds", secs);
        crosscheck_compute(&in, &r);
        if (!kept) {
            ok(r.co.judged && r.co.stalls == 2 && r.co.sending == CROSSCHECK_SENDING_STOPPED &&
                   near(r.co.not_sent_per_stall, 98) && !r.co.p99_includes,
               "2 arrivals/s in the stalls against 100 outside: stopped, 98 not sent, p99 20 ms omits: %s", r.co.verdict);
        } else {
            lat.p99 = 900;
            crosscheck_compute(&in, &r);
            ok(r.co.sending == CROSSCHECK_SENDING_KEPT && r.co.p99_includes && near(r.co.open_p99_floor_ms, 950),
               "100 in and out: kept; p99 900 ms reaches half the 950 ms floor: %s", r.co.verdict);
        }
        json_decref(in.series);
    }
    /* 400 requests every 4th second (paced clients firing together): a
     * stall second with none in it says nothing about a schedule. */
    json_t *bursts = json_array();
    for (int t = 0; t < 12; t++)
        json_array_append_new(bursts, json_pack("{s:i, s:i, s:i}", "t", t, "requests", t % 4 == 0 ? 400 : 0, "accepts", 0));
    in.series = json_pack("{s:I, s:o}", "start_ns", (json_int_t)0, "seconds", bursts);
    crosscheck_compute(&in, &r);
    ok(r.co.present && !r.co.judged && strstr(r.co.why_not, "bursts") && strstr(r.co.why_not, "median second has 0"),
       "400 arrivals every 4th second: not judged, bursts (%s)", r.co.why_not);
    json_decref(in.series);
    in.series = NULL;
    crosscheck_compute(&in, &r);
    ok(r.co.present && !r.co.judged && r.co.why_not[0], "no series: not judged (%s)", r.co.why_not);
    json_t *runs = json_array(), *res[2];
    for (int i = 0; i < 2; i++) {
        res[i] = json_pack("{s:s, s:s, s:{s:s}}", "tool", i ? "wrk" : "lb-gen", "label", i ? "wrk" : "lb-gen",
                           "identity", "model", i ? "closed" : "open");
        json_t *warnings = json_array();
        lat.p99 = i ? 20 : 540;
        in.series = json_pack("{s:I, s:[{s:i,s:i}, {s:i,s:i}, {s:i,s:i}, {s:i,s:i}, {s:i,s:i}, {s:i,s:i}]}",
                              "start_ns", (json_int_t)0, "seconds", "t", 3, "requests", 100, "t", 4, "requests", 100,
                              "t", 5, "requests", i ? 0 : 100, "t", 6, "requests", 100, "t", 7, "requests", 100, "t",
                              10, "requests", i ? 0 : 100);
        crosscheck_fill(&in, res[i], warnings);
        json_decref(in.series);
        json_decref(warnings);
        json_array_append_new(runs, res[i]);
    }
    crosscheck_co_reference(runs);
    const char *v = json_string_value(json_object_get(
        json_object_get(json_object_get(res[1], "latency_check"), "coordinated_omission"), "verdict"));
    ok(v && strstr(v, "stopped sending for 1.0 s per stall") && strstr(v, "lb-gen open at the same rate: p99 540 ms"),
       "wrk's verdict names lb-gen's open p99: %s", v ? v : "(none)");
    /* A row of the reference rerun (--into): the verdicts quote its new p99, once. */
    json_object_set_new(json_object_get(json_object_get(res[0], "latency_check"), "coordinated_omission"), "tool_p99_ms",
                        json_real(610));
    crosscheck_co_reference(runs);
    v = json_string_value(json_object_get(
        json_object_get(json_object_get(res[1], "latency_check"), "coordinated_omission"), "verdict"));
    ok(v && strstr(v, "p99 610 ms") && !strstr(v, "540") && strstr(v, "open at the same rate") == strstr(v, "; lb-gen open at the same rate: p99 610 ms") + 9 &&
           !strstr(strstr(v, "open at the same rate") + 1, "open at the same rate"),
       "after a rerun of the reference, wrk's verdict quotes its new p99 once: %s", v ? v : "(none)");
    json_decref(runs);
    json_decref(after);
    json_decref(stalls);
}

/* stalls_counted(for_ms, before, in, after): lb-target's GET /stalls with
 * per-stall counts: stalls every 2 s from 2 s to 10 s, each with the same
 * counts, windows as long as the stall (the load: 0 to 12 s). */
static json_t *stalls_counted(int for_ms, int before, int in, int after)
{
    const json_int_t S = 1000000000, F = (json_int_t)for_ms * 1000000;
    json_t *list = json_array();
    for (int k = 1; k <= 5; k++)
        json_array_append_new(list, json_pack("{s:I, s:I, s:i, s:i, s:i}", "start_ns", 2 * k * S, "end_ns",
                                              2 * k * S + F, "before", before, "in", in, "after", after));
    return json_pack("{s:{s:{s:I, s:I}}, s:I, s:o}", "delay", "stall", "every_ns", 2 * S, "for_ns", F,
                     "window_ns", F, "stalls", list);
}

/* The verdict from lb-target's counts around 300 ms stalls: a Poisson
 * test of the five stalls' arrivals against those expected. */
static void test_co_counts(void)
{
    const json_int_t S = 1000000000;
    struct adapter_latency lat = {.p50 = 5, .p99 = 20};
    json_t *after = json_pack("{s:I, s:I}", "first_request_ns", (json_int_t)0, "last_response_ns", 12 * S);
    struct profile_stage stage = {.duration_ns = 12 * S, .target = 4};
    struct profile_load load = {.model = LOAD_CLOSED, .stages = &stage, .nstages = 1};
    struct crosscheck_in in = {.before = after, .after = after, .lat = &lat, .load = &load, .model = "closed"};
    struct crosscheck_result r;
    static const struct {
        int for_ms, before, in, after, judged;
        enum crosscheck_sending sending;
        const char *what;
    } cases[] = {
        {300, 60, 60, 60, 1, CROSSCHECK_SENDING_KEPT, "60 in each window: kept its schedule"},
        {300, 60, 52, 60, 1, CROSSCHECK_SENDING_KEPT, "260 of 300 expected (87 %): kept"},
        {300, 60, 40, 60, 1, CROSSCHECK_SENDING_SLOWED, "200 of 300 (67 %, P far below 0.001): slowed"},
        {300, 60, 2, 60, 1, CROSSCHECK_SENDING_STOPPED, "2 in each stall, after back to 60: stopped sending"},
        {300, 60, 2, 75, 1, CROSSCHECK_SENDING_STOPPED, "2 in, 75 after (15 extra of 58 missed): stopped, not caught up"},
        {300, 60, 2, 115, 1, CROSSCHECK_SENDING_CAUGHT_UP, "2 in, 115 after (55 extra of 58 missed): caught up"},
        {300, 3, 0, 3, 0, 0, "15 expected over five stalls: below the 20 a verdict needs"},
        {80, 60, 0, 60, 0, 0, "80 ms stalls: below 100 ms, not judged"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        in.stalls = stalls_counted(cases[i].for_ms, cases[i].before, cases[i].in, cases[i].after);
        crosscheck_compute(&in, &r);
        int good = r.co.present && r.co.judged == cases[i].judged &&
                   (!cases[i].judged ? r.co.why_not[0] != 0 : r.co.sending == cases[i].sending && r.co.stalls == 5);
        if (cases[i].for_ms < 100)
            good &= strstr(r.co.why_not, "below 100 ms") != NULL;
        else if (!cases[i].judged)
            good &= r.co.counted && strstr(r.co.why_not, "at least 20") != NULL;
        ok(good, "%s (%s)", cases[i].what, r.co.judged ? r.co.verdict : r.co.why_not);
        json_decref(in.stalls);
    }
    /* Bursts (h2load's 2000 paced clients firing together every 4 s):
     * 1000 in the window before each stall, none in it, and a series whose
     * median second outside the stalls is 0 against a mean of 500. */
    in.stalls = stalls_counted(300, 1000, 0, 0);
    in.series = json_pack("{s:I, s:[{s:i,s:i}, {s:i,s:i}, {s:i,s:i}, {s:i,s:i}]}", "start_ns", (json_int_t)0, "seconds",
                          "t", 1, "requests", 2000, "t", 3, "requests", 0, "t", 5, "requests", 0, "t", 7, "requests",
                          0);
    crosscheck_compute(&in, &r);
    ok(!r.co.judged && strstr(r.co.why_not, "bursts"), "arrivals in bursts, paced by the windows before: not judged (%s)",
       r.co.why_not);
    json_decref(in.series);
    in.series = NULL;
    json_decref(in.stalls);
    /* An open schedule at 200/s expects 60 per 300 ms stall whatever the
     * windows before held; the row counts them. */
    stage.target = 200;
    load.model = LOAD_OPEN;
    in.model = "open";
    in.stalls = stalls_counted(300, 10, 59, 61);
    json_t *res = json_object(), *warnings = json_array();
    crosscheck_fill(&in, res, warnings);
    json_t *co = json_object_get(json_object_get(res, "latency_check"), "coordinated_omission");
    ok(!strcmp(json_string_value(json_object_get(co, "sending")), "kept") &&
           !strcmp(json_string_value(json_object_get(json_object_get(co, "arrivals"), "expected_from")), "schedule"),
       "open at 200/s: 59 of 60 asked per stall, kept (expected from the schedule, not the 10 before)");
    ok(near(num(json_object_get(co, "arrivals"), "expected_per_stall"), 60) &&
           near(num(json_object_get(co, "arrivals"), "in_per_stall"), 59) &&
           json_array_size(json_object_get(json_object_get(co, "arrivals"), "per_stall")) == 5 &&
           near(num(json_object_get(co, "arrivals"), "after"), 305),
       "run.json's arrivals: 59 per stall against 60 asked, 5 stalls listed, 305 after");
    json_decref(res);
    json_decref(warnings);
    json_decref(in.stalls);
    json_decref(after);
}

static void test_json(const char *name, const char *expected_path, struct fx *f)
{
    json_t *res = json_object(), *warnings = json_array();
    crosscheck_fill(&f->in, res, warnings);
    json_object_set_new(res, "warnings", warnings);
    char *got = json_dumps(res, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
    FILE *fp = fopen(expected_path, "r");
    char want[16384];
    size_t n = fp ? fread(want, 1, sizeof want - 1, fp) : 0;
    want[n] = 0;
    if (fp)
        fclose(fp);
    if (n && want[n - 1] == '\n')
        want[n - 1] = 0;
    if (!ok(got && !strcmp(got, want), "%s: run.json text identical to %s", name, expected_path))
        diag("got:\n%s", got ? got : "(null)");
    free(got);
    json_decref(res);
}

/* Another host's machine CPU is shared out over its own CPUs: 4 CPU-s
 * of ticks of which 1 s unattributed is 100 % of a core over 1 s on 4
 * CPUs, 50 % over 2 s on 2. */
static void test_machine_ncpu(void)
{
    long hz = sysconf(_SC_CLK_TCK);
    struct sampler_machine m0 = {0}, m1 = {.user = (uint64_t)hz * 2, .idle = (uint64_t)hz * 2, .total = (uint64_t)hz * 4};
    json_t *w = json_array();
    json_t *a = crosscheck_machine_json_n(&m0, &m1, 4, 0.5, 0.5, 0.0, w);
    json_t *b = crosscheck_machine_json_n(&m0, &m1, 2, 0.5, 0.5, 0.0, w);
    double pa = json_number_value(json_object_get(a, "unattributed_pct"));
    double pb = json_number_value(json_object_get(b, "unattributed_pct"));
    ok(fabs(pa - 100) < 0.01 && fabs(pb - 50) < 0.01, "machine CPU over the host's own CPUs: %.1f %% on 4, %.1f %% on 2", pa, pb);
    json_t *c = crosscheck_machine_json_n(&m0, &m1, 4, NAN, 0.5, 0.0, w);
    ok(c && json_is_null(json_object_get(c, "tool_s")) && json_is_null(json_object_get(c, "unattributed_s")) &&
           !json_object_get(c, "unattributed_pct"),
       "a tool CPU not measured: tool_s and unattributed null, no share");
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(w);
}

/* The network witness on a row's NIC counters against the measured path. */
static const char *net_status_case(const char *status, unsigned retrans, unsigned probes, const char *nic,
                                   const char *path, const char *bottleneck)
{
    static char out[600];
    char row[800];
    snprintf(row, sizeof row,
             "{\"status\": \"%s\", \"limits\": {\"bottleneck\": \"%s\"}, \"warnings\": [], \"windows\": {\"whole_s\": 2.0},"
             " \"tcp\": {\"retrans_segs\": %u, \"loss_probes\": %u}, \"nic\": [%s]}", status, bottleneck, retrans,
             probes, nic);
    json_t *r = json_loads(row, 0, NULL), *pa = json_loads(path, 0, NULL);
    crosscheck_network(r, pa);
    json_t *l = json_object_get(r, "limits");
    const char *w = json_string_value(json_object_get(l, "witness"));
    snprintf(out, sizeof out, "%s/%s", json_string_value(json_object_get(l, "bottleneck")), w ? w : "-");
    json_decref(r);
    json_decref(pa);
    return out;
}

static const char *net_case(const char *nic, const char *path, const char *bottleneck)
{
    return net_status_case("ok", 0, 0, nic, path, bottleneck);
}

static void test_network_witness(void)
{
    const char *path = "{\"b\": {\"interface\": \"eth0\", \"bulk\": {\"bytes_per_s\": 100000000}}}";
    const char *nic95 = "{\"host\": \"b\", \"interfaces\": {\"eth0\": {\"rx_bytes\": 190000000}}}";
    const char *nic50 = "{\"host\": \"b\", \"interfaces\": {\"eth0\": {\"rx_bytes\": 100000000, \"rx_dropped\": 40}}}";
    const char *nicerr = "{\"host\": \"b\", \"interfaces\": {\"eth0\": {\"rx_bytes\": 1000, \"rx_missed_errors\": 3}}}";
    is_str(net_case(nic95, path, "tool"), "network/bytes", "95 %% of the measured capacity: network-bound");
    is_str(net_case(nic50, path, "none"), "none/-", "50 %%, with rx_dropped: not network-bound (rx_dropped is no witness)");
    is_str(net_case(nicerr, path, "none"), "network/nic", "missed frames: network-bound");
    is_str(net_case(nic95, path, "target"), "target/-", "a target-bound row stays target-bound");
    is_str(net_case(nic95, "{\"skipped\": \"one box\"}", "tool"), "tool/-", "no measured path: no network witness");
    is_str(net_case(nic95, "{\"b\": {\"interface\": \"eth1\", \"bulk\": {\"bytes_per_s\": 100000000}}}", "none"),
           "none/-", "bytes on another interface than the route's do not count");
    const char *quiet = "{\"host\": \"b\", \"interfaces\": {\"eth0\": {\"rx_bytes\": 1000}}}";
    is_str(net_status_case("ok", 6, 0, quiet, path, "none"), "network/retransmits", "an ok row with 6 retransmits: network-bound");
    /* a TLS row's retransmits are tail-loss probes, about one a
     * connection (study 6: 8,319 of 8,319 on a 3 s row): no loss */
    is_str(net_status_case("ok", 200, 200, quiet, path, "none"), "none/-",
           "200 retransmits, all tail-loss probes that recovered nothing: not network-bound");
    is_str(net_status_case("ok", 206, 200, quiet, path, "none"), "network/retransmits",
           "206 retransmits of which 200 probes: the other 6 are a witness");
    is_str(net_status_case("failed", 6, 0, quiet, path, "none"), "none/-",
           "a row that failed (at start: Locust's master port busy) is never network-bound, retransmits or not");
    is_str(net_status_case("failed", 0, 0, nic95, path, "none"), "none/-", "nor by its bytes");
}

int main(void)
{
    test_machine_ncpu();
    test_network_witness();
    test_reconciliation();
    test_windows();
    test_limits();
    test_thread_witness();
    test_starved_witness();
    test_latency_and_workload();
    test_steady_rules();
    test_co();
    test_co_counts();
    test_resolution_and_clock();
    json_error_t je;
    json_t *sample = json_load_file(SAMPLE_RUN, 0, &je);
    if (!ok(sample != NULL, "%s loads", SAMPLE_RUN))
        diag("%s:%d: %s", SAMPLE_RUN, je.line, je.text);
    else {
        test_steady_sample_run(sample);
        test_queueing_sample_run(sample);
    }
    test_queueing_rules();
    test_overhead_rules();
    struct fx f;
    if (fx_load(&f) == 0) {
        test_json("the captured run", "tests/fixtures/crosscheck/lbgen-c4-2ms.expected.json", &f);
        struct adapter_latency keep = f.lat;
        test_truth(&f);
        f.lat = keep;
        struct crosscheck_in keep_in = f.in;
        test_suspect_count(&f);
        test_suspect_latency(&f);
        f.lat = keep;
        f.in = keep_in;
        f.in.lat = &f.lat;
        /* Every warning at once: an open model short of its rate, a count
         * that does not reconcile, a target-bound row, latency below the
         * floor. */
        f.in.model = "open";
        f.stages[0].target = 2000;
        f.in.client_requests = 3000;
        f.lat.min = 0.5;
        fx_cpu(&f, 40, 40, 95, 95);
        test_json("every warning", "tests/fixtures/crosscheck/lbgen-c4-2ms-warnings.expected.json", &f);
        json_decref(f.root);
    }
    json_decref(sample);
    return done_testing();
}
