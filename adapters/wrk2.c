/* The adapter for wrk2 (github.com/giltene/wrk2, in no registry: the user's own
 * install on PATH; the fixtures in tests/fixtures/wrk2/ are
 * its real output). wrk2 is wrk with a constant request rate (-R, total
 * requests/s) and HdrHistogram latency measured from each request's
 * intended start: an open model on a fixed set of connections.
 *
 * What it does, from its source (src/wrk.c):
 *   - each connection has at most one request in flight and its own share
 *     of the rate; when every connection waits on a response, arrivals stop,
 *     then catch up, and the latency still counts from the intended start.
 *     The schedule holds while responses take at most connections / rate s.
 *   - each thread calibrates for 10 s + 5 ms x its connections, then resets
 *     its latency histograms but not its request count: the count covers the
 *     whole run, the percentiles only what followed calibration. The plan
 *     says so, and as_run is two constant stages (calibration, then the
 *     rest) so that the server's hold window is the part after calibration.
 *   - threads split the connections evenly (connections / threads each; a
 *     remainder would be dropped), so connections are made a multiple.
 *   - `-v` prints "wrk 4.0.0" like a wrk: its usage's -R, --rate tells it
 *     apart (and adapters/wrk.c refuses wrk2 the same way).
 * Results: the done() hook of wrk (adapters/wrk/done.lua, wrk2 keeps wrk's
 * Lua API) for counts and the corrected histogram in µs; the uncorrected
 * one (from the actual send) from the text -U prints, in two decimals of
 * us/ms/s. */
#include "adapters/wrk.h"
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* wrk2's CALIBRATE_DELAY_MS (src/wrk.h) and its 5 ms per connection. */
#define WRK2_CALIBRATE_MS 10000ull
#define WRK2_CALIBRATE_PER_CONN_MS 5ull
/* The least time measured after calibration. */
#define WRK2_MIN_HOLD_S 20ull

static int wrk2_detect(const char *bin, struct adapter_found *found, char *err)
{
    /* The user's own wrk2 on PATH (wrk2 is in no registry), or a tools folder's bin/. */
    static const char *const cands[] = {"wrk2", "T:bin/wrk2", NULL};
    if (raw_find("wrk2", bin, cands, found, err))
        return -1;
    /* "wrk 4.0.0 [epoll] Copyright (C) 2012 Will Glozer" and the usage,
     * which has "-R, --rate"; exit 1. */
    const char *argv[] = {found->path, "-v", NULL};
    char out[4096];
    adapter_capture(argv, out, sizeof out);
    if (strncmp(out, "wrk ", 4) || !strstr(out, "--rate"))
        return util_err(err, "%s -v did not print wrk2's version and usage (with -R, --rate): %.80s", found->path,
                        out);
    char *v = out + 4;
    v[strcspn(v, " \n")] = 0;
    snprintf(found->version, sizeof found->version, "%.100s", v);
    raw_origin(found);
    return 0;
}

static const char *const wrk2_options[] = {"threads", "connections", NULL};

/* Threads and connections: connections a multiple of threads (a warning
 * when rounded up). */
static int wrk2_threads(const struct adapter_ctx *c, struct adapter_plan *p, uint64_t *conns, uint64_t *threads,
                        char *err)
{
    if (raw_option_count(c, "threads", threads, err))
        return -1;
    if (!*threads)
        *threads = raw_threads(c->tool_cpus, *conns);
    if (*threads > *conns)
        return util_err(err, "wrk2 needs at least as many connections as threads (%llu threads, %llu connections)",
                        (unsigned long long)*threads, (unsigned long long)*conns);
    if (*conns % *threads) {
        uint64_t up = (*conns / *threads + 1) * *threads;
        strvec_pushf(&p->warnings, "wrk2 gives each of its %llu threads connections / threads and drops the rest: "
                     "%llu connections rounded up to %llu",
                     (unsigned long long)*threads, (unsigned long long)*conns, (unsigned long long)up);
        *conns = up;
    }
    return 0;
}

/* The run's shape as applied: calibration, then the measured rest, both at
 * the rate (the hold window is the longer, the second). */
static void wrk2_as_run(const struct adapter_ctx *c, struct adapter_plan *p, double rate, uint64_t secs,
                        uint64_t calib_ms)
{
    adapter_plan_constant(p, c->load, rate, secs * 1000000000ull);
    struct profile_load *a = p->as_run;
    a->stages = util_xrealloc(a->stages, 2 * sizeof *a->stages);
    a->nstages = 2;
    a->stages[0].duration_ns = calib_ms * 1000000ull;
    a->stages[0].target = rate;
    a->stages[1].duration_ns = secs * 1000000000ull - calib_ms * 1000000ull;
    a->stages[1].target = rate;
}

extern const struct adapter adapter_wrk2;   /* below: its table names the TLS behaviour */

static int wrk2_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "wrk2", p, &l, err))
        return -1;
    if (!l.open)
        return util_err(err, "wrk2 runs a constant request rate only (-R): a closed load of users cannot be "
                        "expressed (use wrk, or model: open with a rate)");
    uint64_t rate = (uint64_t)llround(l.level), conns, threads;
    if (!rate)
        return util_err(err, "wrk2 takes a whole rate of at least 1 request/s (-R), not %.10g/s", l.level);
    if ((double)rate != l.level)
        strvec_pushf(&p->warnings, "wrk2 takes a whole rate: %.10g requests/s rounded to %llu", l.level,
                     (unsigned long long)rate);
    /* Default: one connection per request/s (at most 1000), so that the
     * schedule holds for responses up to about 1 s. */
    if (raw_connections(c, &l, 1000, p, &conns, err) || wrk2_threads(c, p, &conns, &threads, err))
        return -1;
    uint64_t secs = raw_whole_seconds(l.duration_ns, "wrk2", "duration", p);
    uint64_t calib_ms = WRK2_CALIBRATE_MS + WRK2_CALIBRATE_PER_CONN_MS * (conns / threads);
    if (secs * 1000 < calib_ms + WRK2_MIN_HOLD_S * 1000 || secs * 1000 - calib_ms <= calib_ms)
        return util_err(err, "wrk2 calibrates for its first %.3f s (10 s + 5 ms x %llu connections per thread) and "
                        "its percentiles cover only what follows: the duration must be at least %.3f s to measure "
                        "%llu s and more than the calibration (it is %llu s)",
                        calib_ms / 1e3, (unsigned long long)(conns / threads),
                        (calib_ms > WRK2_MIN_HOLD_S * 1000 ? 2 * calib_ms + 1000 : calib_ms + WRK2_MIN_HOLD_S * 1000) / 1e3,
                        (unsigned long long)WRK2_MIN_HOLD_S, (unsigned long long)secs);
    /* -U: --latency and the uncorrected histogram. */
    if (wrk_command(c, p, "wrk2", threads, conns, secs, rate, "-U", err))
        return -1;
    adapter_plan_tls(p, &adapter_wrk2, c);
    strvec_pushf(&p->warnings, "wrk2's first %.3f s are its calibration: its request count covers the whole run, "
                 "its latency percentiles only the %.3f s after (the server's hold window is placed there)",
                 calib_ms / 1e3, secs - calib_ms / 1e3);
    p->model = "open";
    p->load_ns = secs * 1000000000ull;
    p->startup_allowance_ns = 1000000000ull;
    wrk2_as_run(c, p, (double)rate, secs, calib_ms);
    json_object_set_new(p->settings, "threads", json_integer((json_int_t)threads));
    json_object_set_new(p->settings, "connections", json_integer((json_int_t)conns));
    json_object_set_new(p->settings, "calibration_s", json_real(calib_ms / 1e3));
    /* Past this response time every connection is waiting: arrivals stop. */
    json_object_set_new(p->settings, "schedule_holds_to_s", json_real((double)conns / (double)rate));
    return 0;
}

/* The value of a wrk2 text latency ("812.00us", "1.23ms", "1.05s", "2.00m")
 * in ms, or NAN. */
static double text_ms(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return NAN;
    if (!strncmp(end, "us", 2))
        return v / 1000;
    if (!strncmp(end, "ms", 2))
        return v;
    if (*end == 's')
        return v * 1000;
    if (*end == 'm')
        return v * 60000;
    if (*end == 'h')
        return v * 3600000;
    return NAN;
}

/* The percentiles of the uncorrected histogram -U prints: lines
 * " 50.000%    1.23ms" after its "Uncorrected Latency" header. */
static void wrk2_uncorrected(const char *out, struct adapter_latency *u)
{
    const char *s = strstr(out, "HdrHistogram - Uncorrected Latency");
    if (!s)
        return;
    for (s = strchr(s, '\n'); s; s = strchr(s + 1, '\n')) {
        char *end;
        double q = strtod(s + 1, &end);
        if (*end != '%')
            break;
        double ms = text_ms(end + 1 + strspn(end + 1, " "));
        if (q == 50)
            u->p50 = ms;
        else if (q == 90)
            u->p90 = ms;
        else if (q == 99)
            u->p99 = ms;
        else if (q == 99.9)
            u->p999 = ms;
        else if (q == 100)
            u->max = ms;
    }
}

static int wrk2_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    if (wrk_read_summary(c, "wrk2", r, err))
        return -1;
    char *out = raw_output(c->dir, 4 << 20);
    wrk2_uncorrected(out, &r->lat_uncorrected);
    free(out);
    return 0;
}

const struct adapter adapter_wrk2 = {
    .name = "wrk2",
    .parse_files = (const char *const[]){"wrk.json", "stdout.txt", NULL},
    .description = "wrk2: wrk with a constant request rate (-R) and HdrHistogram latency corrected for "
                   "coordinated omission; open model on fixed connections, done() hook for results",
    .install_hint = "in no registry: install your own wrk2 (it may call itself wrk) as wrk2 on PATH; loadbench "
                    "uses the wrk2 on PATH",
    .caps = ADAPTER_OPEN | ADAPTER_TLS | ADAPTER_POST,
    .tls_how = "does not verify (wrk2's src/ssl.c, wrk's: SSL_VERIFY_NONE, no CA option; checked by source, "
               "not live)",
    .tls_library = "OpenSSL, as the user's own wrk2 build links it",
    .post_how = "wrk's done.lua: wrk.method, wrk.body from $LB_WRK_BODY (checked by source, not live)",
    .latency_measures = "from the request's intended start on wrk2's schedule (rate / connections per connection) "
                        "to response parsed, so a stall's queueing counts (corrected); latency_uncorrected_ms from "
                        "the actual send. Only after calibration (10 s + 5 ms per connection per thread). Each "
                        "connection has one request in flight: past connections / rate s per response arrivals "
                        "stop, then catch up. HdrHistogram of µs, 3 significant digits",
    .latency_resolution_ms = 0.001,
    .options = wrk2_options,
    .detect = wrk2_detect,
    .prepare = wrk2_prepare,
    .parse = wrk2_parse,
};
