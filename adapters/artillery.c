/* The adapter for Artillery (tested on 2.0.34 from npm, on Node 20; the
 * fixtures in tests/fixtures/artillery/ are its real output).
 *
 * The open model is Artillery's own: one phase per stage (arrivalRate, or
 * arrivalRate + rampTo for a ramp), each arrival a VU that sends one GET.
 * Artillery has no closed model: it is built from VUs that arrive through
 * arrivalCount phases (all at the start for a constant load; spread over
 * each rising stage for a ramp) and each loop GET until the load's end
 * (lb-closed.js, a processor written beside the YAML); in a falling stage a
 * VU leaves when more are alive than the stage's target at that moment.
 * Results come from --output report.json: aggregate.counters and
 * aggregate.summaries["http.response_time"]. */
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "common/units.h"
#include "common/util.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ART_YAML "artillery.yml"
#define ART_PROC "lb-closed.js"
#define ART_REPORT "report.json"

static const char *const art_options[] = {"pool", NULL};

static int art_detect(const char *bin, struct adapter_found *found, char *err)
{
    char cand[PATH_MAX + 64];
    if (bin) {
        if (adapter_which(bin, found->path, sizeof found->path))
            return util_err(err, "artillery binary \"%s\" not found or not executable", bin);
    } else {
        /* scripts/install-tools puts the pinned npm tree in the tools
         * folder's npm/. */
        adapter_tools_file("npm/node_modules/.bin/artillery", cand, sizeof cand);
        if (adapter_which(cand, found->path, sizeof found->path) &&
            adapter_which("artillery", found->path, sizeof found->path))
            return util_err(err, "artillery not found in %s or on PATH", cand);
    }
    /* `artillery --version` prints a banner and "Artillery: 2.0.34"; the
     * variable keeps even the version command from phoning home. */
    const char *argv[] = {"/usr/bin/env", "ARTILLERY_DISABLE_TELEMETRY=true", found->path, "--version", NULL};
    char out[2048];
    int rc = adapter_capture(argv, out, sizeof out);
    char *v = strstr(out, "Artillery: ");
    if (rc != 0 || !v) {
        /* Node may be too slow to answer within the limit on a busy core:
         * the package's own version, beside the resolved binary, still
         * names what runs. */
        char real[PATH_MAX], pkg[PATH_MAX + 32];
        const char *pv = NULL;
        json_t *j = NULL;
        if (realpath(found->path, real)) {
            char *slash = strrchr(real, '/');
            if (slash)
                *slash = 0;
            snprintf(pkg, sizeof pkg, "%s/../package.json", real);
            j = fsutil_load_json(pkg, FSUTIL_CAP_RESULT, NULL);
            pv = json_string_value(json_object_get(j, "version"));
        }
        if (pv)
            snprintf(found->version, sizeof found->version, "%.60s (package.json; --version failed)", pv);
        json_decref(j);
        if (pv)
            return 0;
        return util_err(err, "`%s --version` failed (exit %d): %.150s", found->path, rc, out);
    }
    v += strlen("Artillery: ");
    v[strcspn(v, " \r\n")] = 0;
    snprintf(found->version, sizeof found->version, "%.100s", v);
    return 0;
}

/* A phase duration: whole seconds as a number, else "NNNms" (Artillery
 * reads a non-integer number as milliseconds through `ms`). */
static void duration_field(struct textbuf *b, const char *key, uint64_t ns)
{
    if (ns % 1000000000ull == 0)
        textbuf_printf(b, "%s: %llu", key, (unsigned long long)(ns / 1000000000ull));
    else
        textbuf_printf(b, "%s: \"%llums\"", key, (unsigned long long)((ns + 500000) / 1000000));
}

/* Expected arrivals of an open load (Artillery's ramp sends
 * duration*(from+to)/2, the same as the integral). */
static double open_expected(const struct profile_load *l)
{
    double n = 0, from = l->ramped ? 0 : l->stages[0].target;
    for (size_t i = 0; i < l->nstages; i++) {
        double d = (double)l->stages[i].duration_ns / 1e9, to = l->stages[i].target;
        n += l->ramped ? d * (from + to) / 2 : d * to;
        from = to;
    }
    return n;
}

/* The open model's phases: an arrivalRate per stage, rampTo when it moves. */
static void art_open_phases(const struct profile_load *l, unsigned long pool_n, struct textbuf *y,
                            struct adapter_plan *p)
{
    p->model = "open";
    double from = l->ramped ? 0 : l->stages[0].target;
    int rounded = 0;
    for (size_t i = 0; i < l->nstages; i++) {
        double to = l->stages[i].target;
        uint64_t ns = l->stages[i].duration_ns;
        if (from != to && ns % 1000000000ull) {
            /* A ramp moves once a second: whole seconds only. */
            uint64_t s = (ns + 500000000ull) / 1000000000ull;
            ns = (s ? s : 1) * 1000000000ull;
            rounded = 1;
        }
        textbuf_printf(y, "    - ");
        duration_field(y, "duration", ns);
        if (from == to)
            textbuf_printf(y, "\n      arrivalRate: %.10g\n", to);
        else
            textbuf_printf(y, "\n      arrivalRate: %.10g\n      rampTo: %.10g\n", from, to);
        if (l->max_inflight)
            textbuf_printf(y, "      maxVusers: %llu\n", (unsigned long long)l->max_inflight);
        from = to;
    }
    if (rounded)
        strvec_push(&p->warnings, "Artillery ramps change rate once a second: ramp stages rounded to whole seconds");
    strvec_pushf(&p->warnings,
                 "open model: each arrival is a new Artillery VU sending one GET%s",
                 pool_n ? " over the shared connection pool" : " on a connection of its own (no pool option)");
    json_object_set_new(p->settings, "expected_arrivals", json_real(open_expected(l)));
}

/* The closed model's phases. Arrivals: the whole first target at once for
 * a constant load (over its first second: arrivalCount needs a duration),
 * the rise of each rising stage spread over that stage, a pause otherwise. */
static void art_closed_phases(const struct profile_load *l, struct textbuf *y)
{
    double from = 0;
    for (size_t i = 0; i < l->nstages; i++) {
        double to = l->stages[i].target;
        uint64_t ns = l->stages[i].duration_ns;
        if (!l->ramped) {
            textbuf_printf(y, "    - duration: 1\n      arrivalCount: %.0f\n", to);
            break;
        }
        textbuf_printf(y, "    - ");
        if (to > from) {
            duration_field(y, "duration", ns);
            textbuf_printf(y, "\n      arrivalCount: %.0f\n", to - from);
        } else {
            duration_field(y, "pause", ns);
            textbuf_printf(y, "\n");
        }
        from = to;
    }
}

/* The closed model's processor (lb-closed.js): VUs loop until the load's
 * end and leave a falling stage. Returns 0, or -1 with err. */
static int art_closed_processor(const struct adapter_ctx *c, const struct profile_load *l, struct adapter_plan *p,
                                char *err)
{
    struct textbuf js = {0};
    textbuf_printf(&js,
            "// Generated by loadbench: Artillery's closed model. VUs arrive through the\n"
            "// arrivalCount phases of %s; each loops GET / (whileTrue: lbContinue) until\n"
            "// the load's end; in a falling stage a VU leaves when more are alive than the\n"
            "// stage's target. Times count from the first VU's start.\n"
            "const stages = [",
            ART_YAML);
    uint64_t total_ms = 0;
    for (size_t i = 0; i < l->nstages; i++) {
        uint64_t ms = l->stages[i].duration_ns / 1000000ull;
        textbuf_printf(&js, "%s[%llu, %.0f]", i ? ", " : "", (unsigned long long)ms, l->stages[i].target);
        total_ms += ms;
    }
    textbuf_printf(&js,
            "]; // [duration ms, VUs]\n"
            "const total = %llu;\n"
            "const startVUs = %.0f;\n"
            "let t0 = 0;\n"
            "let alive = 0;\n\n"
            "// The stage at t: its target now and whether it is falling.\n"
            "function at(t) {\n"
            "  let start = 0, from = startVUs;\n"
            "  for (const [d, to] of stages) {\n"
            "    if (t < start + d) return { target: from + (to - from) * (t - start) / d, falling: to <= from };\n"
            "    start += d;\n"
            "    from = to;\n"
            "  }\n"
            "  return { target: 0, falling: true };\n"
            "}\n\n"
            "module.exports = {\n"
            "  lbStart(context, events, next) {\n"
            "    if (!t0) t0 = Date.now();\n"
            "    alive++;\n"
            "    return next();\n"
            "  },\n"
            "  lbContinue(context, next) {\n"
            "    const t = Date.now() - t0;\n"
            "    const s = at(t);\n"
            "    if (t >= total || (s.falling && alive > Math.ceil(s.target - 1e-9))) {\n"
            "      alive--;\n"
            "      return next(false);\n"
            "    }\n"
            "    return next(true);\n"
            "  },\n"
            "};\n",
            (unsigned long long)total_ms, l->ramped ? 0.0 : l->stages[0].target);
    int rc = adapter_write(c->dir, ART_PROC, js.s, err);
    textbuf_free(&js);
    if (rc)
        return -1;
    strvec_push(&p->files, ART_PROC);
    p->model = "closed";
    if (l->ramped)
        strvec_push(&p->warnings,
                    "closed model built from Artillery VUs that loop GET until the load's end (lb-closed.js): "
                    "rising stages are arrivalCount phases (VUs spread evenly over the stage), falling stages "
                    "make VUs leave when more are alive than the target; a VU whose request fails ends");
    else
        strvec_pushf(&p->warnings,
                     "closed model built from Artillery VUs that loop GET until the load's end (lb-closed.js): "
                     "the %.0f VUs arrive over the first second (arrivalCount); a VU whose request fails ends",
                     l->stages[0].target);
    if (l->max_inflight)
        strvec_push(&p->warnings, "load.max_inflight ignored in the closed model");
    return 0;
}

/* With check: Artillery's expect plugin, as its users write it: the
 * plugin enabled (silent: no line printed per request) and an expect:
 * statusCode on the GET. A failed expectation is counted
 * (plugins.expect.failed), not made an error that would end the VU. */
static const char *art_expect(int status, const char *indent, char *buf, size_t len)
{
    if (!status)
        return "";
    snprintf(buf, len, "%sexpect:\n%s  - statusCode: %d\n", indent, indent, status);
    return buf;
}

/* The script's http settings and its one scenario. */
/* The flow's one request at indent: a GET, or with request: POST a post
 * with the body inline (body: is sent as it is, no JSON encoding) and its
 * Content-Type, as Artillery's users write one. */
static void art_request(struct textbuf *y, const char *indent, uint64_t body)
{
    textbuf_printf(y, "%s- %s:\n%s    url: \"/\"\n", indent, body ? "post" : "get", indent);
    if (!body)
        return;
    char *x = util_xmalloc(body + 1);
    memset(x, 'x', body);
    x[body] = 0;
    textbuf_printf(y, "%s    headers:\n%s      Content-Type: \"" ADAPTER_BODY_TYPE "\"\n%s    body: \"%s\"\n", indent,
                   indent, indent, x);
    free(x);
}

static void art_http_and_flow(const struct profile_load *l, unsigned long pool_n, int status, uint64_t body,
                              struct textbuf *y)
{
    char ex[128];
    textbuf_printf(y, "  http:\n");
    if (l->request_timeout_ns)
        textbuf_printf(y, "    timeout: %.10g\n", (double)l->request_timeout_ns / 1e9);
    else
        textbuf_printf(y, "    timeout: 10\n");
    if (pool_n)
        textbuf_printf(y, "    pool: %lu\n", pool_n);
    if (status)
        textbuf_printf(y, "  plugins:\n    expect:\n      outputFormat: silent\n");
    textbuf_printf(y, "scenarios:\n  - name: lb\n    flow:\n");
    if (l->model == LOAD_OPEN) {
        art_request(y, "      ", body);
        textbuf_printf(y, "%s", art_expect(status, "          ", ex, sizeof ex));
    } else {
        textbuf_printf(y, "      - function: \"lbStart\"\n      - loop:\n");
        art_request(y, "          ", body);
        textbuf_printf(y, "%s        whileTrue: \"lbContinue\"\n", art_expect(status, "              ", ex, sizeof ex));
    }
}

/* The command line and the settings run.json records. */
static void art_command(const struct adapter_ctx *c, const struct profile_load *l, unsigned long pool_n,
                        struct adapter_plan *p)
{
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "run");
    strvec_push(&p->argv, "--output");
    strvec_push(&p->argv, ART_REPORT);
    strvec_push(&p->argv, ART_YAML);
    strvec_push(&p->env, "ARTILLERY_DISABLE_TELEMETRY=true");
    p->load_ns = profile_load_duration_ns(l);
    /* Node and Artillery's workers start slowly on a busy core, and
     * Artillery waits for its last 10-second report window. */
    p->startup_allowance_ns = 15000000000ull;
    if (!l->request_timeout_ns)
        json_object_set_new(p->settings, "http_timeout_s", json_integer(10));
    else
        json_object_set_new(p->settings, "http_timeout_s", json_real((double)l->request_timeout_ns / 1e9));
    json_object_set_new(p->settings, "http_pool", pool_n ? json_integer((json_int_t)pool_n) : json_null());
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    json_object_set_new(p->settings, "workers",
                        json_integer(l->model == LOAD_CLOSED || ncpu <= 2 ? 1 : (json_int_t)(ncpu - 1)));
}

/* The expect plugin beside the artillery at bin (its bin/run): bundled
 * in its dist/builtin-packages (Artillery 2), or a package in the same
 * node_modules. */
static int art_has_expect(const char *bin)
{
    char real[PATH_MAX], path[PATH_MAX + 96];
    if (!realpath(bin, real))
        return 0;
    char *slash = strrchr(real, '/');
    if (slash)
        *slash = 0; /* .../artillery/bin */
    snprintf(path, sizeof path, "%s/../dist/builtin-packages/artillery-plugin-expect/package.json", real);
    if (access(path, R_OK) == 0)
        return 1;
    snprintf(path, sizeof path, "%s/../../artillery-plugin-expect/package.json", real);
    return access(path, R_OK) == 0;
}

extern const struct adapter adapter_artillery;   /* below: its table names the TLS behaviour */

/* target.tls: Node verifies by default (Artillery turns it off only with
 * -k), against its roots and NODE_EXTRA_CA_CERTS, read once at start-up:
 * the run's CA. config.tls is merged into got's https options (engine_http.js),
 * whose minVersion and maxVersion hold Node's TLS to the profile's version. */
static void art_tls(const struct adapter_ctx *c, struct textbuf *y, struct adapter_plan *p)
{
    if (!c->ca_file)
        return;
    const char *v = c->profile->target.tls.version == 12 ? "TLSv1.2" : "TLSv1.3";
    textbuf_printf(y, "  tls:\n    minVersion: \"%s\"\n    maxVersion: \"%s\"\n", v, v);
    strvec_pushf(&p->env, "NODE_EXTRA_CA_CERTS=%s", c->ca_file);
    adapter_plan_tls(p, &adapter_artillery, c);
}

static int art_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    if (c->profile->check.status && !art_has_expect(c->found->path))
        return util_err(err, "artillery cannot run check: artillery-plugin-expect is not installed beside %s",
                        c->found->path);
    const struct profile_load *l = c->load;
    const char *pool = adapter_option(c, "pool");
    unsigned long pool_n = 0;
    if (pool) {
        char *end;
        pool_n = strtoul(pool, &end, 10);
        if (!*pool || *end || pool_n == 0)
            return util_err(err, "artillery option pool=\"%s\": want a positive number of connections", pool);
    }
    struct textbuf y = {0};
    textbuf_printf(&y,
            "# Generated by loadbench for profile \"%s\".\n"
            "config:\n"
            "  target: \"%s://%s:%d\"\n",
            c->profile->name ? c->profile->name : "", c->ca_file ? "https" : "http", c->host, c->port);
    art_tls(c, &y, p);
    if (l->model == LOAD_CLOSED)
        textbuf_printf(&y, "  processor: \"./%s\"\n", ART_PROC);
    textbuf_printf(&y, "  phases:\n");
    if (l->model == LOAD_OPEN) {
        art_open_phases(l, pool_n, &y, p);
    } else {
        art_closed_phases(l, &y);
        if (art_closed_processor(c, l, p, err) < 0) {
            textbuf_free(&y);
            return -1;
        }
    }
    art_http_and_flow(l, pool_n, c->profile->check.status, c->profile->request.post ? c->profile->request.body_bytes : 0,
                      &y);
    int rc = adapter_write(c->dir, ART_YAML, y.s, err);
    textbuf_free(&y);
    if (rc)
        return -1;
    strvec_push(&p->files, ART_YAML);
    if (adapter_body_file(c, p, err) < 0)
        return -1;
    art_command(c, l, pool_n, p);
    return 0;
}

/* ---- parse ------------------------------------------------------------------ */

/* Lines of the tool's output that look like warnings, at most a few. */
static void scan_output(const char *dir, const char *name, struct strvec *w)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    while (n < 5 && fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX) > 0) {
        const char *s = line + strspn(line, " \t");
        if (strncasecmp(s, "warning", 7) && strncasecmp(s, "error:", 6) && strncmp(s, "⚠", strlen("⚠")))
            continue;
        s = line + strspn(line, " \t");
        size_t len = strcspn(s, "\r\n");
        strvec_pushf(w, "Artillery: %.*s", (int)(len > 300 ? 300 : len), s);
        n++;
    }
    free(line);
    fclose(f);
}

/* With check: the expect plugin's counts judge each response in place of
 * its status class: plugins.expect.failed are the status errors (the
 * plugin runs after a response only: no response, no expectation). */
static void art_checks(const struct adapter_ctx *c, json_t *cn, struct adapter_result *r)
{
    if (!c->profile || !c->profile->check.status)
        return;
    uint64_t passed = adapter_json_count(cn, "plugins.expect.ok"), failed = adapter_json_count(cn, "plugins.expect.failed");
    if (passed + failed < r->requests)
        strvec_pushf(&r->warnings, "check: the expect plugin judged %llu of %llu responses",
                     (unsigned long long)(passed + failed), (unsigned long long)r->requests);
    r->check_failed = failed;
    r->err_status = failed < r->requests ? failed : r->requests;
    r->ok = r->requests - r->err_status;
}

static int art_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char path[PATH_MAX + 64];
    json_error_t je;
    snprintf(path, sizeof path, "%s/%s", c->dir, ART_REPORT);
    json_t *j = fsutil_load_json(path, FSUTIL_CAP_RESULT, &je);
    if (!j)
        return util_err(err, "Artillery wrote no readable %s: %s", ART_REPORT, je.text);
    json_t *agg = json_object_get(j, "aggregate");
    json_t *cn = json_object_get(agg, "counters");
    if (!json_is_object(cn)) {
        json_decref(j);
        return util_err(err, "%s has no aggregate.counters", ART_REPORT);
    }
    uint64_t attempts = adapter_json_count(cn, "http.requests");
    r->requests = adapter_json_count(cn, "http.responses");
    const char *key;
    json_t *v;
    json_object_foreach(cn, key, v)
    {
        uint64_t n = json_is_number(v) ? (uint64_t)llround(json_number_value(v)) : 0;
        if (!strncmp(key, "http.codes.", 11)) {
            int code = atoi(key + 11);
            if (code >= 200 && code < 400)
                r->ok += n;
            else
                r->err_status += n;
        } else if (!strncmp(key, "errors.", 7)) {
            const char *e = key + 7;
            if (!strcmp(e, "ECONNREFUSED") || !strcmp(e, "EHOSTUNREACH") || !strcmp(e, "ENETUNREACH") ||
                !strcmp(e, "EADDRNOTAVAIL") || !strcmp(e, "ENOTFOUND"))
                r->err_connect += n;
            else if (!strcmp(e, "ETIMEDOUT") || !strcmp(e, "ESOCKETTIMEDOUT") || strstr(e, "Timeout") ||
                     strstr(e, "TIMEDOUT"))
                r->err_timeout += n;
            else if (!strcmp(e, "ECONNRESET") || !strcmp(e, "ERR_STREAM_PREMATURE_CLOSE"))
                r->err_read += n;
            else if (!strcmp(e, "EPIPE"))
                r->err_write += n;
            else
                r->err_other += n;
        }
    }
    art_checks(c, cn, r);
    r->errors = r->err_status + r->err_connect + r->err_timeout + r->err_read + r->err_write + r->err_other;
    r->bytes_read = adapter_json_count(cn, "http.downloaded_bytes");
    double first = adapter_json_num(agg, "firstMetricAt"), last = adapter_json_num(agg, "lastMetricAt");
    if (last > first) {
        r->duration_s = (last - first) / 1000.0;
        r->rps = (double)r->requests / r->duration_s;
    }
    json_t *rt = json_object_get(json_object_get(agg, "summaries"), "http.response_time");
    if (json_is_object(rt) && r->requests) {
        r->lat.min = adapter_json_num(rt, "min");
        r->lat.mean = adapter_json_num(rt, "mean");
        r->lat.p50 = adapter_json_num(rt, "p50");
        r->lat.p90 = adapter_json_num(rt, "p90");
        r->lat.p95 = adapter_json_num(rt, "p95");
        r->lat.p99 = adapter_json_num(rt, "p99");
        r->lat.p999 = adapter_json_num(rt, "p999");
        r->lat.max = adapter_json_num(rt, "max");
    }

    uint64_t created = adapter_json_count(cn, "vusers.created"), skipped = adapter_json_count(cn, "vusers.skipped");
    uint64_t failed = adapter_json_count(cn, "vusers.failed");
    if (c->load && c->load->model == LOAD_OPEN) {
        double expected = open_expected(c->load);
        r->scheduled = (uint64_t)llround(expected);
        r->dropped = skipped;
        if (skipped)
            strvec_pushf(&r->warnings, "Artillery skipped %llu arrivals (maxVusers reached)",
                         (unsigned long long)skipped);
        if (expected >= 1 && (double)(created + skipped) < 0.99 * expected)
            strvec_pushf(&r->warnings,
                         "Artillery fell behind its schedule: %llu VUs created of %.0f arrivals scheduled",
                         (unsigned long long)created, expected);
    }
    if (attempts > r->requests + r->errors - r->err_status)
        strvec_pushf(&r->warnings, "Artillery sent %llu requests but reports %llu responses and %llu errors",
                     (unsigned long long)attempts, (unsigned long long)r->requests,
                     (unsigned long long)(r->errors - r->err_status));
    if (failed && c->load && c->load->model == LOAD_CLOSED)
        strvec_pushf(&r->warnings, "%llu Artillery VUs ended on an error (their loops stopped early)",
                     (unsigned long long)failed);
    scan_output(c->dir, "stdout.txt", &r->warnings);
    scan_output(c->dir, "stderr.txt", &r->warnings);

    r->extra = json_pack("{s:O, s:O}", "counters", cn, "rates", json_object_get(agg, "rates") ?
                                                               json_object_get(agg, "rates") : json_null());
    r->parsed = 1;
    json_decref(j);
    return 0;
}

const struct adapter adapter_artillery = {
    .name = "artillery",
    .parse_files = (const char *const[]){"report.json", "stdout.txt", "stderr.txt", NULL},
    .description = "Artillery (Node.js): open model native (arrival phases); closed model from looping VUs",
    .install_hint = "npm: scripts/install-tools (Artillery 2.0.34, pinned in scripts/registry/npm, into the "
                    "tools folder's npm/; PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 on Node 20)",
    .caps = ADAPTER_CLOSED | ADAPTER_OPEN | ADAPTER_RAMP | ADAPTER_TLS | ADAPTER_CHECK | ADAPTER_POST,
    .tls_how = "verifies against the run's CA (NODE_EXTRA_CA_CERTS; Node's default, no -k); config.tls minVersion "
               "and maxVersion hold it to the profile's version; each agent offers its cached session on its later "
               "connections (Node's https.Agent, agentkeepalive)",
    .tls_verifies = 1,
    .tls_library = ADAPTER_NODE_TLS_LIBRARY,
    .no_h2_why = "Artillery 2's http engine has no documented HTTP/2 setting (got's http2: passes through "
                 "undocumented, beside its HTTP/1.1 agents)",
    .post_how = "a post: step with the body inline (body:, sent as it is) and a Content-Type header",
    .check_how = "the expect plugin (artillery-plugin-expect, bundled in Artillery 2's dist/builtin-packages): "
                 "expect: [statusCode: CODE] on the GET, outputFormat silent; failures from plugins.expect.failed",
    .versions = "live: 2.0.34 (npm)",
    .latency_measures = "http.response_time: request fully sent to first response byte (got's firstByte phase; "
                        "excludes connect and the body), Date.now() whole ms per sample, DDSketch percentiles "
                        "(about 1 % relative error)",
    .latency_resolution_ms = 1,
    /* DDSketch, relativeAccuracy 0.01 (artillery's dist/lib/core/ssms.js):
     * a percentile is within 1 % of the true one; 2 significant digits'
     * step (at least 1 % of the value) is the margin that covers it. Study
     * 5 called a p99 of 925.4 ms against the server's 928.0 ms suspect. */
    .latency_digits = 2,
    .options = art_options,
    .detect = art_detect,
    .prepare = art_prepare,
    .parse = art_parse,
};
