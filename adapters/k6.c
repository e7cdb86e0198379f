/* The adapter for k6: run here with v0.48.0 (the fixtures in
 * tests/fixtures/k6/ are its real output), and checked against the sources
 * of v1.0.0-v1.8.1 and v2.0.0-v2.2.0 (adapters/toolver.c; the fixtures in
 * tests/fixtures/k6/v2.2.0-source/ are taken from v2.2.0's source). Other
 * versions run with a warning.
 *
 * The profile becomes one scenario in a generated script.js: closed model
 * constant-vus / ramping-vus, open model constant-arrival-rate /
 * ramping-arrival-rate. Results come from --summary-export (the legacy flat
 * format, unchanged across k6 versions, unlike handleSummary's data, which
 * changed in v1) and from k6's log lines: k6 counts a request that got no
 * response (refused, reset, timed out) in http_reqs with zero timings and
 * logs one "Request Failed" warning for it, so those lines are what tell
 * a completed response from an attempt.
 *
 * HTTPS (k6's js/runner.go newVU): each VU's tls.Config takes
 * insecureSkipTLSVerify (not set: it verifies), tlsVersion {min, max} and
 * no RootCAs, so Go's crypto/x509 verifies against the system roots, which
 * it reads from SSL_CERT_FILE when set (root_unix.go): the run's CA goes
 * there. No ClientSessionCache: it never offers to resume. Every VU's
 * transport has x/net's http2.ConfigureTransport, so HTTP/2 is negotiated
 * by ALPN over TLS: an h2 row needs only the https:// URL, and an h1 row
 * stays HTTP/1.1 because lb-target offers only http/1.1 without h2. k6
 * has no h2c. */
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "adapters/raw.h"
#include "adapters/toolver.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K6_SUMMARY "summary.json"
#define K6_SCRIPT "script.js"
#define K6_TREND_STATS "avg,min,med,max,p(90),p(95),p(99),p(99.9),count"

static const char *const k6_options[] = {"discard_bodies", NULL};

static int k6_detect(const char *bin, struct adapter_found *found, char *err)
{
    /* k6 is in no registry loadbench installs from: the user's own k6 on
     * PATH (or a tools folder's bin/, where a user may put one). */
    static const char *const cands[] = {"k6", "T:bin/k6", NULL};
    if (raw_find("k6", bin, cands, found, err))
        return -1;
    const char *argv[] = {found->path, "version", NULL};
    char out[512];
    if (adapter_capture(argv, out, sizeof out) != 0)
        return util_err(err, "`%s version` failed: %.200s", found->path, out);
    if (toolver_k6(out, found->version, sizeof found->version))
        return util_err(err, "`%s version` printed no version: %.200s", found->path, out);
    raw_origin(found);
    return 0;
}

/* A rate as an integer count per time unit: k6's rate is an integer, so a
 * fractional rate is written per 10, 100 or 1000 seconds. */
static unsigned rate_unit_s(const struct profile_load *l)
{
    static const unsigned units[] = {1, 10, 100, 1000};
    for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
        int exact = 1;
        for (size_t i = 0; i < l->nstages; i++) {
            double x = l->stages[i].target * units[u];
            if (fabs(x - round(x)) > 1e-6)
                exact = 0;
        }
        if (exact)
            return units[u];
    }
    return 1000;
}

/* Instance i of n runs the segment i/n:(i+1)/n of the whole schedule, in
 * the sequence 0,1/n,...,1 that every instance is given, as k6-operator
 * splits a test: together they run exactly the profile's VUs and
 * arrivals, each VU and iteration in one segment only. */
static void k6_segment_args(const struct adapter_ctx *c, struct adapter_plan *p)
{
    struct textbuf seq = {0};
    for (unsigned i = 0; i <= c->instances; i++)
        textbuf_printf(&seq, i == 0 ? "0" : i == c->instances ? ",1" : ",%u/%u", i, c->instances);
    strvec_push(&p->argv, "--execution-segment");
    if (c->instance == 0)
        strvec_pushf(&p->argv, "0:1/%u", c->instances);
    else if (c->instance + 1 == c->instances)
        strvec_pushf(&p->argv, "%u/%u:1", c->instance, c->instances);
    else
        strvec_pushf(&p->argv, "%u/%u:%u/%u", c->instance, c->instances, c->instance + 1, c->instances);
    strvec_push(&p->argv, "--execution-segment-sequence");
    strvec_push(&p->argv, seq.s);
    textbuf_free(&seq);
}

/* The closed model's scenario: constant-vus, or ramping-vus over stages. */
static void k6_closed_scenario(const struct profile_load *l, struct textbuf *js, struct adapter_plan *p)
{
    char d[32];
    p->model = "closed";
    if (!l->ramped) {
        textbuf_printf(js,
                "      executor: 'constant-vus',\n"
                "      vus: %.0f,\n"
                "      duration: '%s',\n",
                l->stages[0].target, units_format_duration(l->stages[0].duration_ns, d));
    } else {
        textbuf_printf(js,
                "      executor: 'ramping-vus',\n"
                "      startVUs: 0,\n"
                "      stages: [\n");
        for (size_t i = 0; i < l->nstages; i++)
            textbuf_printf(js, "        { duration: '%s', target: %.0f },\n",
                    units_format_duration(l->stages[i].duration_ns, d), l->stages[i].target);
        textbuf_printf(js, "      ],\n");
    }
    json_object_set_new(p->settings, "executor", json_string(l->ramped ? "ramping-vus" : "constant-vus"));
}

/* The VUs an open load needs: maxVUs bounds the requests in flight;
 * without load.max_inflight, allow one second of latency at the peak rate.
 * preAllocatedVUs: twice what the target's delay needs, so k6 need not
 * create VUs during the load (it warns when it must), plus one per request
 * due during a stall of the target: a VU created while the others wait is
 * created late (study 5: 504 iterations dropped, k6 slowed to 75 % of its
 * rate in the stalls with 35 VUs preallocated). */
static void k6_open_vus(const struct adapter_ctx *c, struct adapter_plan *p, uint64_t *pre_out, uint64_t *max_out)
{
    const struct profile_load *l = c->load;
    double peak = profile_load_peak(l);
    const struct profile_shape *sh = &c->profile->target.shape;
    double delay_s = raw_delay_tail_s(c->profile); /* where the VUs pile up */
    uint64_t max_vus = l->max_inflight ? l->max_inflight : (uint64_t)ceil(peak);
    if (max_vus < 10 && !l->max_inflight)
        max_vus = 10;
    uint64_t pre = (uint64_t)ceil(peak * (delay_s + 0.01)) * 2 + 5 +
                   (uint64_t)ceil(peak * (double)sh->stall_for_ns / 1e9);
    if (pre > max_vus)
        pre = max_vus;
    if (!l->max_inflight)
        strvec_pushf(&p->warnings,
                     "k6 needs a VU per request in flight: maxVUs %llu (one second of latency at %.10g/s; set "
                     "load.max_inflight to choose)",
                     (unsigned long long)max_vus, peak);
    *pre_out = pre;
    *max_out = max_vus;
}

/* The open model's scenario: constant- or ramping-arrival-rate, rates as
 * whole iterations per time unit. */
static void k6_open_scenario(const struct adapter_ctx *c, struct textbuf *js, struct adapter_plan *p)
{
    const struct profile_load *l = c->load;
    char d[32];
    unsigned unit = rate_unit_s(l);
    uint64_t pre, max_vus;
    p->model = "open";
    k6_open_vus(c, p, &pre, &max_vus);
    for (size_t i = 0; i < l->nstages; i++) {
        double x = l->stages[i].target * unit;
        if (fabs(x - round(x)) > 1e-6) {
            strvec_pushf(&p->warnings, "k6 rates are integers per time unit: %.10g/s written as %.0f per %us",
                         l->stages[i].target, round(x), unit);
            break;
        }
    }
    if (!l->ramped) {
        textbuf_printf(js,
                "      executor: 'constant-arrival-rate',\n"
                "      rate: %.0f,\n"
                "      timeUnit: '%us',\n"
                "      duration: '%s',\n",
                round(l->stages[0].target * unit), unit, units_format_duration(l->stages[0].duration_ns, d));
    } else {
        textbuf_printf(js,
                "      executor: 'ramping-arrival-rate',\n"
                "      startRate: 0,\n"
                "      timeUnit: '%us',\n"
                "      stages: [\n",
                unit);
        for (size_t i = 0; i < l->nstages; i++)
            textbuf_printf(js, "        { duration: '%s', target: %.0f },\n",
                    units_format_duration(l->stages[i].duration_ns, d), round(l->stages[i].target * unit));
        textbuf_printf(js, "      ],\n");
    }
    textbuf_printf(js,
            "      preAllocatedVUs: %llu,\n"
            "      maxVUs: %llu,\n",
            (unsigned long long)pre, (unsigned long long)max_vus);
    json_object_set_new(p->settings, "executor", json_string(l->ramped ? "ramping-arrival-rate" : "constant-arrival-rate"));
    json_object_set_new(p->settings, "preAllocatedVUs", json_integer((json_int_t)pre));
    json_object_set_new(p->settings, "maxVUs", json_integer((json_int_t)max_vus));
}

/* The command line: the script, the summary export with our trend stats,
 * no REST API, the segment of this instance. */
static void k6_command(const struct adapter_ctx *c, struct adapter_plan *p)
{
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "run");
    strvec_push(&p->argv, "--no-color");
    strvec_push(&p->argv, "--no-usage-report");
    strvec_push(&p->argv, "--quiet");
    strvec_push(&p->argv, "--address="); /* no REST API listener */
    strvec_push(&p->argv, "--summary-export");
    strvec_push(&p->argv, K6_SUMMARY);
    strvec_push(&p->argv, "--summary-trend-stats");
    strvec_push(&p->argv, K6_TREND_STATS);
    if (c->instances > 1)
        k6_segment_args(c, p);
    strvec_push(&p->argv, K6_SCRIPT);
    strvec_push(&p->env, "K6_NO_USAGE_REPORT=true");
    p->load_ns = profile_load_duration_ns(c->load);
    p->startup_allowance_ns = 3000000000ull;
}

/* The iteration: one GET; with check: k6's check() on its response, as
 * k6's users write it (its failures are the checks metric's fails). */
/* The iteration: one GET, or with request: POST one http.post() of the
 * body open() read at init (k6's init context) from the run directory. */
static void k6_default_fn(struct textbuf *js, const char *url, int status, int post)
{
    char call[1200];
    snprintf(call, sizeof call, post ? "http.post('%s', body, params)" : "http.get('%s', params)", url);
    if (!status)
        textbuf_printf(js, "export default function () {\n  %s;\n}\n", call);
    else
        textbuf_printf(js,
                "export default function () {\n"
                "  const res = %s;\n"
                "  check(res, { 'status is %d': (r) => r.status === %d });\n"
                "}\n",
                call, status, status);
}

extern const struct adapter adapter_k6;   /* below: its table names the TLS behaviour */

/* target.tls: the one TLS version lb-target serves, as k6's tlsVersion
 * option ("tls1.2"/"tls1.3"), and the run's CA through SSL_CERT_FILE. */
static void k6_tls(const struct adapter_ctx *c, struct textbuf *js, struct adapter_plan *p)
{
    int v = c->profile->target.tls.version;
    if (!c->ca_file)
        return;
    if (v)
        textbuf_printf(js, "  tlsVersion: { min: 'tls1.%d', max: 'tls1.%d' },\n", v % 10, v % 10);
    strvec_pushf(&p->env, "SSL_CERT_FILE=%s", c->ca_file);
    adapter_plan_tls(p, &adapter_k6, c);
}

static int k6_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    const struct profile_load *l = c->load;
    struct textbuf js = {0};
    char d[32];
    const char *discard = adapter_option(c, "discard_bodies");
    int discard_bodies = discard && (!strcmp(discard, "true") || !strcmp(discard, "1") || !strcmp(discard, "yes"));

    if (toolver_k6_known(c->found->version) == TOOLVER_UNKNOWN)
        strvec_pushf(&p->warnings,
                     "k6 %s: this adapter ran k6 v0.48.0 and was checked against the sources of v1.0.0-v1.8.1 and "
                     "v2.0.0-v2.2.0, not this version: --summary-export and the log lines it reads may differ",
                     c->found->version);

    textbuf_printf(&js,
            "// Generated by loadbench for profile \"%s\": one scenario, one GET per iteration.\n"
            "%s"
            "import http from 'k6/http';\n\n"
            "export const options = {\n"
            "  discardResponseBodies: %s,\n"
            "%s",
            c->profile->name ? c->profile->name : "", c->profile->check.status ? "import { check } from 'k6';\n" : "",
            discard_bodies ? "true" : "false", l->no_keepalive ? "  noConnectionReuse: true,\n" : "");
    k6_tls(c, &js, p);
    textbuf_printf(&js,
            "  scenarios: {\n"
            "    lb: {\n");
    if (l->model == LOAD_CLOSED)
        k6_closed_scenario(l, &js, p);
    else
        k6_open_scenario(c, &js, p);
    textbuf_printf(&js,
            "    },\n"
            "  },\n"
            "};\n\n");
    int post = adapter_body_file(c, p, err);
    if (post < 0) {
        textbuf_free(&js);
        return -1;
    }
    if (post)
        textbuf_printf(&js, "const body = open('" ADAPTER_BODY_FILE "');\n");
    textbuf_printf(&js, "const params = {");
    if (l->request_timeout_ns)
        textbuf_printf(&js, " timeout: '%s'%s", units_format_duration(l->request_timeout_ns, d), post ? "," : "");
    if (post)
        textbuf_printf(&js, " headers: { 'Content-Type': '" ADAPTER_BODY_TYPE "' }");
    textbuf_printf(&js, "%s};\n\n", l->request_timeout_ns || post ? " " : "");
    k6_default_fn(&js, c->url, c->profile->check.status, post);
    int rc = adapter_write(c->dir, K6_SCRIPT, js.s, err);
    textbuf_free(&js);
    if (rc)
        return -1;
    strvec_push(&p->files, K6_SCRIPT);
    k6_command(c, p);
    json_object_set_new(p->settings, "discardResponseBodies", json_boolean(discard_bodies));
    return 0;
}

/* ---- parse ------------------------------------------------------------------ */

static void trend(json_t *t, struct adapter_latency *l)
{
    l->min = adapter_json_num(t, "min");
    l->mean = adapter_json_num(t, "avg");
    l->p50 = adapter_json_num(t, "med");
    l->p90 = adapter_json_num(t, "p(90)");
    l->p95 = adapter_json_num(t, "p(95)");
    l->p99 = adapter_json_num(t, "p(99)");
    l->p999 = adapter_json_num(t, "p(99.9)");
    l->max = adapter_json_num(t, "max");
}

/* k6's own log messages, counted once each. */
struct k6_logs {
    uint64_t failed, refused, reset, timeout, other;
    struct strvec msgs;     /* distinct level=warning/error messages, "msg" */
    uint64_t counts[32];
};

/* The value of key="..." (or key=word) in a logfmt line, into out. */
static int logfmt_get(const char *line, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    for (const char *s = line; (s = strstr(s, key)); s++) {
        if ((s != line && s[-1] != ' ') || s[klen] != '=')
            continue;
        const char *v = s + klen + 1;
        size_t n = 0;
        if (*v == '"') {
            v++;
            while (v[0] && v[0] != '"' && n + 1 < outlen) {
                if (v[0] == '\\' && v[1])
                    v++;
                out[n++] = *v++;
            }
        } else {
            while (*v && *v != ' ' && *v != '\n' && n + 1 < outlen)
                out[n++] = *v++;
        }
        out[n] = 0;
        return 0;
    }
    return -1;
}

static void scan_log(const char *dir, const char *name, struct k6_logs *lg)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX) > 0) {
        if (strncmp(line, "time=", 5) || !strstr(line, " level="))
            continue;
        char level[16], msg[512], error[512];
        if (logfmt_get(line, "level", level, sizeof level) || logfmt_get(line, "msg", msg, sizeof msg))
            continue;
        if (!strcmp(msg, "Request Failed")) {
            lg->failed++;
            if (logfmt_get(line, "error", error, sizeof error))
                error[0] = 0;
            if (strstr(error, "connection refused") || strstr(error, "dial"))
                lg->refused++;
            else if (strstr(error, "timeout") || strstr(error, "deadline exceeded"))
                lg->timeout++;
            else if (strstr(error, "reset") || strstr(error, "EOF") || strstr(error, "broken pipe"))
                lg->reset++;
            else
                lg->other++;
            continue;
        }
        if (strcmp(level, "warning") && strcmp(level, "error") && strcmp(level, "fatal"))
            continue;
        char key[600];
        snprintf(key, sizeof key, "%s: %s", level, msg);
        size_t i;
        for (i = 0; i < lg->msgs.n; i++)
            if (!strcmp(lg->msgs.v[i], key))
                break;
        if (i < lg->msgs.n) {
            lg->counts[i]++;
        } else if (lg->msgs.n < sizeof lg->counts / sizeof *lg->counts) {
            strvec_push(&lg->msgs, key);
            lg->counts[lg->msgs.n - 1] = 1;
        }
    }
    free(line);
    fclose(f);
}

/* With check: the checks metric (a Rate: passes are checks that held,
 * fails those that did not) judges each response instead of
 * http_req_failed's 2xx/3xx: its fails less the requests that got no
 * response (their status 0 fails the check too) are status errors. */
static void k6_checks(const struct adapter_ctx *c, json_t *m, uint64_t transport, struct adapter_result *r)
{
    if (!c->profile || !c->profile->check.status)
        return;
    json_t *ck = json_object_get(m, "checks");
    if (!json_is_object(ck)) {
        strvec_pushf(&r->warnings, "check: k6's summary has no checks metric: no check() ran");
        return;
    }
    r->check_failed = adapter_json_count(ck, "fails");
    uint64_t bad = r->check_failed > transport ? r->check_failed - transport : 0;
    r->err_status = bad < r->requests ? bad : r->requests;
    r->ok = r->requests - r->err_status;
}

static int k6_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char path[4200];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", c->dir, K6_SUMMARY);
    json_t *j = fsutil_load_json(path, FSUTIL_CAP_RESULT, &je);
    if (!j)
        return util_err(err, "k6 wrote no readable %s: %s", K6_SUMMARY, je.text);
    json_t *m = json_object_get(j, "metrics");
    json_t *reqs = json_object_get(m, "http_reqs");
    if (!json_is_object(m) || !json_is_object(reqs)) {
        json_decref(j);
        return util_err(err, "%s has no metrics.http_reqs: k6 sent no request (see stderr.txt)", K6_SUMMARY);
    }
    struct k6_logs lg;
    memset(&lg, 0, sizeof lg);
    scan_log(c->dir, "stdout.txt", &lg);
    scan_log(c->dir, "stderr.txt", &lg);

    uint64_t attempts = adapter_json_count(reqs, "count");
    json_t *failed = json_object_get(m, "http_req_failed");
    json_t *dur = json_object_get(m, "http_req_duration");
    json_t *dur_ok = json_object_get(m, "http_req_duration{expected_response:true}");
    uint64_t transport = lg.failed;
    /* Without k6's log (or with it cut short) the summary still tells when
     * nothing was answered: every timing is zero and nothing was read. */
    if (attempts && adapter_json_num(dur, "max") == 0 &&
        adapter_json_count(json_object_get(m, "data_received"), "count") == 0)
        transport = attempts;
    if (transport > attempts)
        transport = attempts;
    r->requests = attempts - transport;
    /* http_req_failed is a Rate: "passes" are requests that FAILED. */
    uint64_t not_failed = adapter_json_count(failed, "fails");
    r->ok = not_failed <= r->requests ? not_failed : r->requests;
    r->err_status = r->requests - r->ok;
    if (transport == lg.failed) {
        r->err_connect = lg.refused;
        r->err_timeout = lg.timeout;
        r->err_read = lg.reset;
        r->err_other = lg.other;
    } else {
        r->err_other = transport;
    }
    k6_checks(c, m, transport, r);
    r->errors = r->err_status + transport;

    double rate = adapter_json_num(reqs, "rate");
    if (rate > 0 && attempts) {
        r->duration_s = (double)attempts / rate;
        r->rps = (double)r->requests / r->duration_s;
    }
    r->bytes_read = adapter_json_count(json_object_get(m, "data_received"), "count");

    if (r->requests && transport == 0 && json_is_object(dur)) {
        trend(dur, &r->lat);
    } else if (r->requests && json_is_object(dur_ok)) {
        trend(dur_ok, &r->lat);
        strvec_pushf(&r->warnings,
                     "latency from the %llu expected (2xx/3xx) responses only: k6 puts zero timings for the %llu "
                     "requests that got no response into http_req_duration",
                     (unsigned long long)adapter_json_count(dur_ok, "count"), (unsigned long long)transport);
    }

    json_t *dropped = json_object_get(m, "dropped_iterations");
    if (json_is_object(dropped)) {
        r->dropped = adapter_json_count(dropped, "count");
        r->scheduled = adapter_json_count(json_object_get(m, "iterations"), "count") + r->dropped;
        if (r->dropped)
            strvec_pushf(&r->warnings,
                         "k6 dropped %llu of %llu scheduled iterations (no free VU at their start time: raise "
                         "load.max_inflight)",
                         (unsigned long long)r->dropped, (unsigned long long)r->scheduled);
    } else if (c->load && c->load->model == LOAD_OPEN) {
        r->scheduled = adapter_json_count(json_object_get(m, "iterations"), "count");
    }

    /* Thresholds in the summary export: true means crossed. */
    const char *mname;
    json_t *mv;
    json_object_foreach(m, mname, mv)
    {
        json_t *th = json_object_get(mv, "thresholds");
        const char *expr;
        json_t *crossed;
        json_object_foreach(th, expr, crossed)
        {
            if (json_is_true(crossed))
                strvec_pushf(&r->warnings, "k6 threshold crossed: %s %s", mname, expr);
        }
    }
    if (transport)
        strvec_pushf(&r->warnings, "k6 counted %llu requests that got no response in http_reqs (%llu refused, %llu "
                     "timed out, %llu reset, %llu other); they are errors here, not requests",
                     (unsigned long long)transport, (unsigned long long)lg.refused, (unsigned long long)lg.timeout,
                     (unsigned long long)lg.reset, (unsigned long long)(transport - lg.refused - lg.timeout - lg.reset));
    for (size_t i = 0; i < lg.msgs.n; i++) {
        if (lg.counts[i] > 1)
            strvec_pushf(&r->warnings, "k6 %s (%llu times)", lg.msgs.v[i], (unsigned long long)lg.counts[i]);
        else
            strvec_pushf(&r->warnings, "k6 %s", lg.msgs.v[i]);
    }
    strvec_free(&lg.msgs);

    r->extra = json_incref(m);
    r->parsed = 1;
    json_decref(j);
    return 0;
}

const struct adapter adapter_k6 = {
    .name = "k6",
    .parse_files = (const char *const[]){"summary.json", "stderr.txt", "stdout.txt", NULL},
    .description = "Grafana k6: JavaScript VUs (Go), closed and open (arrival-rate) executors",
    .install_hint = "in no registry loadbench installs from: install it from k6's own packages; loadbench uses "
                    "the k6 on PATH",
    .caps = ADAPTER_CLOSED | ADAPTER_OPEN | ADAPTER_RAMP | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_NOKEEPALIVE |
            ADAPTER_CHECK | ADAPTER_POST,
    .tls_how = "verifies against the run's CA (SSL_CERT_FILE: no insecureSkipTLSVerify, Go's system roots); "
               "tlsVersion pinned to the profile's; offers no resumption (no ClientSessionCache)",
    .tls_verifies = 1,
    .tls_library = "Go's crypto/tls (compiled in)",
    .no_h2_why = "k6 negotiates HTTP/2 by ALPN over TLS only: no h2c",
    .post_how = "http.post(url, body, params): body open()ed at init from body.bin, a Content-Type header in params",
    .check_how = "check(res, {'status is CODE': (r) => r.status === CODE}) on every response; failures from the "
                 "checks metric's fails",
    .versions = "live: v0.48.0 (the user's own build, fixtures only); by source: v1.0.0-v1.8.1, v2.0.0-v2.2.0",
    .latency_measures = "http_req_duration: request sending started to last response byte received "
                        "(excludes DNS, connect and TLS; open model: from the actual send, not the schedule)",
    .latency_resolution_ms = 0.001,
    .options = k6_options,
    .spread = ADAPTER_SPREAD_SEGMENTS,
    .spread_note = "k6 as execution segments: each instance runs its segment of the whole schedule (VUs and "
                   "arrivals split by k6 itself); the instances start one after another, without a start "
                   "barrier, so their schedules are offset by their start-up (milliseconds to a second)",
    .detect = k6_detect,
    .prepare = k6_prepare,
    .parse = k6_parse,
};
