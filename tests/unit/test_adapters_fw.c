/* Unit tests for the scripting-framework adapters (k6, JMeter, Artillery,
 * Locust): every parser against the real captured output committed under
 * tests/fixtures/<tool>/ (copied into a temp dir under the names prepare()
 * makes the tool write), with the exact figures the fixture READMEs and
 * counts.tsv give; and every generated config checked by a parser of its
 * own language where one is installed (node --check, xmllint, python3). */
#include "adapters/adapter.h"
#include "adapters/group.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern const struct adapter adapter_k6;
extern const struct adapter adapter_artillery;
extern const struct adapter adapter_locust;
extern const struct adapter adapter_jmeter;
extern const struct adapter adapter_gatling, adapter_tsung;

/* ---- helpers ---------------------------------------------------------------- */

/* s with newlines shown as \\n, for a one-line TAP description. */
static const char *oneline(const char *s)
{
    static char buf[256];
    size_t n = 0;
    for (; *s && n + 3 < sizeof buf; s++) {
        if (*s == '\n') {
            buf[n++] = '\\';
            buf[n++] = 'n';
        } else {
            buf[n++] = *s;
        }
    }
    buf[n] = 0;
    return buf;
}

/* dir/name in a static buffer. */
static const char *dirname_join(const char *dir, const char *name)
{
    static char buf[1024];
    snprintf(buf, sizeof buf, "%s/%s", dir, name);
    return buf;
}

static int near(double got, double want)
{
    return fabs(got - want) < 1e-6 * (fabs(want) > 1 ? fabs(want) : 1);
}

#define is_num(got, want, ...)                                  \
    do {                                                        \
        double g_ = (got), w_ = (want);                         \
        if (!ok(near(g_, w_), __VA_ARGS__))                     \
            diag("  got %.9g, want %.9g", g_, w_);              \
    } while (0)

/* Run a command line through sh; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have(const char *prog)
{
    return sh("command -v %s >/dev/null 2>&1", prog) == 0;
}

static struct profile *profile_text(const char *text)
{
    char err[UTIL_ERR_LEN] = "";
    struct profile *p = profile_load_string("t.yaml", text, strlen(text), err);
    if (!p)
        diag("profile: %s", err);
    return p;
}

/* prepare() of adapter a for profile text into a fresh dir; fills plan.
 * Returns 0 when prepare succeeded. */
static int prepare(const struct adapter *a, const char *text, const char *dirname, const char *version,
                   struct profile **pp, struct adapter_plan *plan, const char **dirp)
{
    struct profile *p = profile_text(text);
    *pp = p;
    adapter_plan_init(plan);
    if (!p)
        return -1;
    static struct adapter_found found;
    snprintf(found.path, sizeof found.path, "/usr/bin/%s", a->name);
    snprintf(found.version, sizeof found.version, "%s", version);
    const char *dir = fresh_dir(dirname);
    *dirp = dir;
    struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                            .found = &found, .dir = dir, .host = "127.0.0.1", .port = 18080,
                            .url = "http://127.0.0.1:18080/", .tool_cpus = 0};
    char err[UTIL_ERR_LEN] = "";
    if (a->prepare(&c, plan, err)) {
        diag("prepare: %s", err);
        return -1;
    }
    return 0;
}

/* 1 when plan's argv holds arg. */
static int argv_has(const struct adapter_plan *plan, const char *arg)
{
    for (size_t i = 0; i < plan->argv.n; i++)
        if (!strcmp(plan->argv.v[i], arg))
            return 1;
    return 0;
}

/* parse() of adapter a on dir with a constant load of level for dur_s
 * seconds in the given model. */
static int parse_at(const struct adapter *a, const char *dir, enum load_model model, double level, double dur_s,
                    struct adapter_result *r, char *err)
{
    struct profile_stage st = {.duration_ns = (uint64_t)(dur_s * 1e9), .target = level};
    struct profile_load l = {.model = model, .stages = &st, .nstages = 1};
    struct profile p;
    memset(&p, 0, sizeof p);
    p.load = l;
    struct profile_tool t;
    memset(&t, 0, sizeof t);
    t.tool = (char *)a->name;
    t.options = json_object();
    struct adapter_found found = {.path = "/usr/bin/tool", .version = "0"};
    struct adapter_ctx c = {.profile = &p, .tool = &t, .load = &l, .found = &found, .dir = dir,
                            .host = "127.0.0.1", .port = 18080, .url = "http://127.0.0.1:18080/"};
    adapter_result_init(r);
    int rc = a->parse(&c, r, err);
    json_decref(t.options);
    return rc;
}

static int parse(const struct adapter *a, const char *dir, enum load_model model, struct adapter_result *r, char *err)
{
    return parse_at(a, dir, model, 20, 5, r, err);
}

static char *slurp(const char *dir, const char *name)
{
    char err[UTIL_ERR_LEN];
    return adapter_slurp(dir, name, 1 << 20, err);
}

/* ---- k6 --------------------------------------------------------------------- */

struct k6_case {
    const char *name;
    enum load_model model;
    uint64_t requests, ok, errors;     /* requests = nginx's count in counts.tsv */
    double p50, p99;                   /* http_req_duration med, p(99); NAN = absent */
};

/* check: the closed-vus capture with a checks metric planted in k6's
 * summary-export layout for a Rate (passes held, fails did not, as its
 * http_req_failed): the fails are the status errors and check_failed. */
static void k6_checks_parse(void)
{
    const char *dir = fresh_dir("k6-checks");
    char err[UTIL_ERR_LEN] = "", path[4200];
    put_fixture("k6", "closed-vus.summary-export.json", dir, "summary.json");
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *j = json_load_file(path, 0, NULL);
    json_object_set_new(json_object_get(j, "metrics"), "checks",
                        json_pack("{s:i, s:i, s:f}", "passes", 4700, "fails", 37, "value", 4700.0 / 4737));
    json_dump_file(j, path, 0);
    json_decref(j);
    struct profile *p = profile_text("load: {connections: 20, duration: 5s}\ncheck: {status: 200}\ntools: [k6]\n");
    struct adapter_found found = {.path = "/usr/bin/k6", .version = "v0.48.0"};
    struct adapter_result r;
    adapter_result_init(&r);
    if (p) {
        struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = &p->load, .found = &found, .dir = dir,
                                .host = "127.0.0.1", .port = 18080, .url = "http://127.0.0.1:18080/"};
        ok(adapter_parse(&adapter_k6, &c, &r, err) == 0, "k6 checks: parsed (%s)", err);
        ok(r.requests == 4737 && r.check_failed == 37 && r.err_status == 37 && r.ok == 4700 && r.errors == 37,
           "k6 checks: 37 failed checks are status errors (requests %llu, ok %llu, errors %llu, check_failed %llu)",
           (unsigned long long)r.requests, (unsigned long long)r.ok, (unsigned long long)r.errors,
           (unsigned long long)r.check_failed);
    }
    adapter_result_free(&r);
    profile_free(p);
}

static void k6_parsers(void)
{
    k6_checks_parse();
    static const struct k6_case cases[] = {
        {"closed-vus", LOAD_CLOSED, 4737, 4737, 0, 20.857371, 24.15200820000002},
        {"ramping-vus", LOAD_CLOSED, 4287, 4287, 0, 20.897245, 23.8522019},
        {"constant-arrival", LOAD_OPEN, 1500, 1500, 0, 20.552574, 22.861329},
        {"arrival-dropped", LOAD_OPEN, 933, 933, 0, 20.557187, 22.17362748},
        {"status-404", LOAD_CLOSED, 25402, 0, 25402, 0.367118, 4.406078379999987},
        {"refused", LOAD_CLOSED, 0, 0, 150, NAN, NAN},
        {"threshold-fail", LOAD_CLOSED, 715, 715, 0, 20.763284, 22.84030484},
        {"fast-closed", LOAD_CLOSED, 46487, 46487, 0, 4.219552, 21.54114193999999},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct k6_case *k = &cases[i];
        char dname[64], src[128];
        snprintf(dname, sizeof dname, "k6-%s", k->name);
        const char *dir = fresh_dir(dname);
        snprintf(src, sizeof src, "%s.summary-export.json", k->name);
        put_fixture("k6", src, dir, "summary.json");
        snprintf(src, sizeof src, "%s.stdout.txt", k->name);
        put_fixture("k6", src, dir, "stdout.txt");
        struct adapter_result r;
        char err[UTIL_ERR_LEN] = "";
        int rc = parse(&adapter_k6, dir, k->model, &r, err);
        if (!ok(rc == 0 && r.parsed, "k6 %s: parsed", k->name))
            diag("  %s", err);
        is_u64(r.requests, k->requests, "k6 %s: requests = completed responses = the server's count", k->name);
        is_u64(r.ok, k->ok, "k6 %s: ok (http_req_failed.fails)", k->name);
        is_u64(r.errors, k->errors, "k6 %s: errors", k->name);
        if (isnan(k->p50)) {
            ok(isnan(r.lat.p50) && isnan(r.lat.p99), "k6 %s: no latency when nothing was answered", k->name);
        } else {
            is_num(r.lat.p50, k->p50, "k6 %s: p50 = http_req_duration med", k->name);
            is_num(r.lat.p99, k->p99, "k6 %s: p99", k->name);
        }
        ok(isnan(r.lat.p999), "k6 %s: p99.9 absent (not in --summary-trend-stats)", k->name);
        if (!strcmp(k->name, "status-404"))
            is_u64(r.err_status, 25402, "k6 status-404: the 404s are status errors");
        if (!strcmp(k->name, "refused")) {
            is_u64(r.err_connect, 150, "k6 refused: 150 connect errors from the Request Failed lines");
            ok(has_warning(&r.warnings, "got no response"), "k6 refused: says what it did not count");
        }
        if (!strcmp(k->name, "arrival-dropped")) {
            is_u64(r.dropped, 7068, "k6 arrival-dropped: dropped_iterations");
            is_u64(r.scheduled, 933 + 7068, "k6 arrival-dropped: scheduled = iterations + dropped");
            ok(has_warning(&r.warnings, "dropped 7068"), "k6 arrival-dropped: dropped iterations are a warning");
            ok(has_warning(&r.warnings, "Insufficient VUs"), "k6 arrival-dropped: k6's Insufficient VUs warning");
        }
        if (!strcmp(k->name, "threshold-fail")) {
            ok(has_warning(&r.warnings, "threshold crossed: http_req_duration p(95)<1"),
               "k6 threshold-fail: the crossed threshold is reported");
            ok(has_warning(&r.warnings, "have been crossed"), "k6 threshold-fail: and k6's own error line");
        }
        if (!strcmp(k->name, "closed-vus"))
            ok(r.warnings.n == 0, "k6 closed-vus: no warnings on a clean run");
        adapter_result_free(&r);
    }
    /* A summary without http_reqs (k6 died in init) is no result. */
    const char *dir = fresh_dir("k6-empty");
    char err[UTIL_ERR_LEN] = "";
    adapter_write(dir, "summary.json", "{\"metrics\": {}}", err);
    struct adapter_result r;
    ok(parse(&adapter_k6, dir, LOAD_CLOSED, &r, err) == -1 && strstr(err, "http_reqs"),
       "k6: a summary without http_reqs is an error");
    adapter_result_free(&r);
    dir = fresh_dir("k6-none");
    ok(parse(&adapter_k6, dir, LOAD_CLOSED, &r, err) == -1, "k6: no summary is an error");
    adapter_result_free(&r);
}

/* prepare() for each load form; the script must parse as an ES module. */
static void k6_script(const char *what, const char *yaml, const char *version, const char *const *needles)
{
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    char dname[64];
    snprintf(dname, sizeof dname, "k6-gen-%s", what);
    if (!ok(prepare(&adapter_k6, yaml, dname, version, &p, &plan, &dir) == 0, "k6 %s: prepare", what))
        goto out;
    char *js = slurp(dir, "script.js");
    ok(js != NULL, "k6 %s: script.js written", what);
    for (const char *const *n = needles; js && *n; n++)
        if (!ok(strstr(js, *n) != NULL, "k6 %s: script has %s", what, oneline(*n)))
            diag("%s", js);
    free(js);
    if (have("node")) {
        ok(sh("cp '%s/script.js' '%s/script.mjs' && node --check '%s/script.mjs'", dir, dir, dir) == 0,
           "k6 %s: node --check accepts the script as a module", what);
    } else {
        ok(1, "# SKIP node not installed: k6 %s script not syntax-checked", what);
    }
    int usage = 0, summary = 0;
    for (size_t i = 0; i < plan.argv.n; i++) {
        usage |= !strcmp(plan.argv.v[i], "--no-usage-report");
        summary |= !strcmp(plan.argv.v[i], "--summary-export");
    }
    ok(usage && summary, "k6 %s: argv has --no-usage-report and --summary-export", what);
    ok(plan.env.n && !strcmp(plan.env.v[0], "K6_NO_USAGE_REPORT=true"), "k6 %s: K6_NO_USAGE_REPORT=true", what);
out:
    adapter_plan_free(&plan);
    profile_free(p);
}

static void k6_generated(void)
{
    static const char *const closed[] = {"'constant-vus'", "vus: 20,", "duration: '5s'", "http.get('http://127.0.0.1:18080/', params)", NULL};
    k6_script("closed", "load: {connections: 20, duration: 5s}\ntools: [k6]\n", "v0.48.0", closed);
    static const char *const check[] = {"import { check } from 'k6';", "const res = http.get('http://127.0.0.1:18080/', params);",
                                        "check(res, { 'status is 404': (r) => r.status === 404 });", NULL};
    k6_script("check", "load: {connections: 2, duration: 1s}\ncheck: {status: 404}\ntools: [k6]\n", "v0.48.0", check);
    static const char *const post[] = {"const body = open('body.bin');",
                                       "const params = { timeout: '2s', headers: { 'Content-Type': 'application/octet-stream' } };",
                                       "http.post('http://127.0.0.1:18080/', body, params);", NULL};
    k6_script("post", "load: {connections: 2, duration: 1s, timeout: 2s}\nrequest: {method: POST, body: 1KiB}\ntools: [k6]\n",
              "v0.48.0", post);
    static const char *const ramp[] = {"'ramping-vus'", "startVUs: 0", "{ duration: '30s', target: 200 }",
                                       "{ duration: '10s', target: 0 }", NULL};
    k6_script("ramp",
              "load:\n  stages:\n    - {duration: 30s, target: 200}\n    - {duration: 1m, target: 200}\n"
              "    - {duration: 10s, target: 0}\ntools: [k6]\n",
              "v0.48.0", ramp);
    static const char *const open[] = {"'constant-arrival-rate'", "rate: 100,", "timeUnit: '1s'", "maxVUs: 50,",
                                       "timeout: '2s'", NULL};
    k6_script("open", "load: {model: open, rate: 100, duration: 5s, max_inflight: 50, timeout: 2s}\ntools: [k6]\n",
              "v0.48.0", open);
    static const char *const oramp[] = {"'ramping-arrival-rate'", "startRate: 0", "timeUnit: '10s'",
                                        "{ duration: '2s', target: 105 }", NULL};
    k6_script("open-ramp",
              "load:\n  model: open\n  stages:\n    - {duration: 2s, target: 10.5}\n    - {duration: 3s, target: 10.5}\n"
              "tools: [{tool: k6, options: {discard_bodies: \"true\"}}]\n",
              "v0.48.0", oramp);

    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    /* Checked by source (v1.0.0-v1.8.1, v2.0.0-v2.2.0): no warning; outside
     * them one that names what ran and what was checked. */
    static const struct { const char *v; int warned; } k6v[] = {
        {"v1.0.0", 0}, {"v1.8.1", 0}, {"v2.2.0 (source, go1.24.4)", 0}, {"v0.47.0", 1}, {"v2.3.0", 1}, {"v3.0.0", 1}};
    for (size_t i = 0; i < sizeof k6v / sizeof k6v[0]; i++) {
        prepare(&adapter_k6, "load: {connections: 2, duration: 1s}\ntools: [k6]\n", "k6-v1", k6v[i].v, &p, &plan,
                &dir);
        ok(has_warning(&plan.warnings, "ran k6 v0.48.0 and was checked against the sources") == k6v[i].warned,
           "k6 %s: %s", k6v[i].v, k6v[i].warned ? "a warning names what ran and what was checked" : "no warning");
        ok(argv_has(&plan, "avg,min,med,max,p(90),p(95),p(99),p(99.9),count"),
           "k6 %s: asks for p(99.9) in --summary-trend-stats", k6v[i].v);
        adapter_plan_free(&plan);
        profile_free(p);
    }
    prepare(&adapter_k6, "load: {connections: 2, duration: 1s}\ntools: [k6]\n", "k6-v0", "v0.48.0", &p, &plan, &dir);
    ok(plan.warnings.n == 0, "k6 v0.48.0 closed: no plan warning");
    ok(!strcmp(plan.model, "closed"), "k6 closed: model closed");
    adapter_plan_free(&plan);
    profile_free(p);
}

/* ---- Artillery -------------------------------------------------------------- */

struct art_case {
    const char *name;
    enum load_model model;
    double level, dur_s;               /* the load it ran (open: arrivals/s) */
    uint64_t requests, ok, errors;     /* requests = nginx's count in counts.tsv */
    double p50, p99, p999, max;
};

static void art_parsers(void)
{
    static const struct art_case cases[] = {
        {"success", LOAD_OPEN, 50, 3, 150, 150, 0, 1, 12.1, 23.8, 24},
        {"status-404", LOAD_OPEN, 50, 3, 150, 0, 150, 0, 6, 10.1, 11},
        {"refused", LOAD_OPEN, 50, 3, 0, 0, 150, NAN, NAN, NAN, NAN},
        {"ramp", LOAD_OPEN, 55, 3, 165, 165, 0, 0, 3, 7, 9},
        {"closed-loop", LOAD_CLOSED, 10, 3, 2524, 2524, 0, 7, 26.8, 36.2, 40},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct art_case *k = &cases[i];
        char dname[64], src[128];
        snprintf(dname, sizeof dname, "art-%s", k->name);
        const char *dir = fresh_dir(dname);
        snprintf(src, sizeof src, "%s.report.json", k->name);
        put_fixture("artillery", src, dir, "report.json");
        snprintf(src, sizeof src, "%s.stdout.txt", k->name);
        put_fixture("artillery", src, dir, "stdout.txt");
        struct adapter_result r;
        char err[UTIL_ERR_LEN] = "";
        int rc = parse_at(&adapter_artillery, dir, k->model, k->level, k->dur_s, &r, err);
        if (!ok(rc == 0 && r.parsed, "artillery %s: parsed", k->name))
            diag("  %s", err);
        is_u64(r.requests, k->requests, "artillery %s: requests (http.responses) = the server's count", k->name);
        is_u64(r.ok, k->ok, "artillery %s: ok (2xx/3xx codes)", k->name);
        is_u64(r.errors, k->errors, "artillery %s: errors", k->name);
        if (isnan(k->p50)) {
            ok(isnan(r.lat.p50) && isnan(r.lat.max), "artillery %s: no latency when nothing was answered", k->name);
        } else {
            is_num(r.lat.p50, k->p50, "artillery %s: p50", k->name);
            is_num(r.lat.p99, k->p99, "artillery %s: p99", k->name);
            is_num(r.lat.p999, k->p999, "artillery %s: p99.9", k->name);
            is_num(r.lat.max, k->max, "artillery %s: max", k->name);
        }
        if (k->model == LOAD_OPEN)
            is_u64(r.scheduled, (uint64_t)(k->level * k->dur_s), "artillery %s: scheduled arrivals", k->name);
        if (!strcmp(k->name, "refused"))
            is_u64(r.err_connect, 150, "artillery refused: errors.ECONNREFUSED are connect errors");
        if (!strcmp(k->name, "status-404"))
            is_u64(r.err_status, 150, "artillery status-404: the 404s are status errors");
        if (!strcmp(k->name, "success")) {
            ok(r.warnings.n == 0, "artillery success: no warnings");
            is_num(r.duration_s, (1795992605758.0 - 1795992602777.0) / 1000, "artillery success: span from first to last metric");
        }
        adapter_result_free(&r);
    }
    /* The same report against a schedule twice as fast: it fell behind. */
    const char *dir = fresh_dir("art-behind");
    put_fixture("artillery", "success.report.json", dir, "report.json");
    struct adapter_result r;
    char err[UTIL_ERR_LEN] = "";
    parse_at(&adapter_artillery, dir, LOAD_OPEN, 100, 3, &r, err);
    ok(has_warning(&r.warnings, "fell behind its schedule: 150 VUs created of 300"),
       "artillery: fewer VUs than scheduled arrivals is a warning");
    adapter_result_free(&r);
    dir = fresh_dir("art-none");
    ok(parse(&adapter_artillery, dir, LOAD_OPEN, &r, err) == -1 && strstr(err, "report.json"),
       "artillery: no report.json is an error");
    adapter_result_free(&r);
}

/* check: with an artillery that has no expect plugin beside it (the
 * helper's /usr/bin/artillery): prepare refuses, naming the plugin. */
static void art_check_refused(void)
{
    struct profile *p = profile_text("load: {connections: 2, duration: 1s}\ncheck: {status: 200}\ntools: [artillery]\n");
    struct adapter_plan plan;
    adapter_plan_init(&plan);
    struct adapter_found found = {.path = "/nonexistent/artillery/bin/run", .version = "2.0.34"};
    char err[UTIL_ERR_LEN] = "";
    if (p) {
        struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                                .found = &found, .dir = fresh_dir("art-check"), .host = "127.0.0.1", .port = 18080,
                                .url = "http://127.0.0.1:18080/"};
        ok(adapter_artillery.prepare(&c, &plan, err) == -1 && strstr(err, "artillery-plugin-expect is not installed"),
           "artillery check without the expect plugin: refused (%s)", err);
    }
    adapter_plan_free(&plan);
    profile_free(p);
}

static void art_config(const char *what, const char *yaml, const char *const *needles)
{
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    char dname[64];
    snprintf(dname, sizeof dname, "art-gen-%s", what);
    if (!ok(prepare(&adapter_artillery, yaml, dname, "2.0.34", &p, &plan, &dir) == 0, "artillery %s: prepare", what))
        goto out;
    char *y = slurp(dir, "artillery.yml"), *js = slurp(dir, "lb-closed.js");
    size_t both = (y ? strlen(y) : 0) + (js ? strlen(js) : 0) + 2;
    char *all = util_xmalloc(both);
    snprintf(all, both, "%s\n%s", y ? y : "", js ? js : "");
    for (const char *const *n = needles; *n; n++)
        if (!ok(strstr(all, *n) != NULL, "artillery %s: config has %s", what, oneline(*n)))
            diag("%s", all);
    free(all);
    if (have("python3") && sh("python3 -c 'import yaml' 2>/dev/null") == 0)
        ok(sh("python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' '%s/artillery.yml'", dir) == 0,
           "artillery %s: the YAML parses", what);
    if (js && have("node"))
        ok(sh("node --check '%s/lb-closed.js'", dir) == 0, "artillery %s: node --check accepts lb-closed.js", what);
    free(y);
    free(js);
    ok(plan.env.n && !strcmp(plan.env.v[0], "ARTILLERY_DISABLE_TELEMETRY=true"),
       "artillery %s: ARTILLERY_DISABLE_TELEMETRY=true", what);
out:
    adapter_plan_free(&plan);
    profile_free(p);
}

static void art_generated(void)
{
    static const char *const open[] = {"duration: 5\n", "arrivalRate: 100\n", "maxVusers: 300", "timeout: 2.5",
                                       "url: \"/\"", NULL};
    art_config("open", "load: {model: open, rate: 100, duration: 5s, max_inflight: 300, timeout: 2500ms}\ntools: [artillery]\n",
               open);
    static const char *const oramp[] = {"arrivalRate: 0\n      rampTo: 50", "duration: \"1500ms\"\n      arrivalRate: 50\n",
                                        "pool: 8", NULL};
    art_config("open-ramp",
               "load:\n  model: open\n  stages:\n    - {duration: 3s, target: 50}\n    - {duration: 1500ms, target: 50}\n"
               "tools: [{tool: artillery, options: {pool: \"8\"}}]\n",
               oramp);
    static const char *const closed[] = {"arrivalCount: 20", "processor: \"./lb-closed.js\"", "whileTrue: \"lbContinue\"",
                                         "const total = 5000;", "const startVUs = 20;", NULL};
    art_config("closed", "load: {connections: 20, duration: 5s}\ntools: [artillery]\n", closed);
    art_check_refused();
    static const char *const cramp[] = {"duration: 30\n      arrivalCount: 200", "pause: 60", "pause: 10",
                                        "[[30000, 200], [60000, 200], [10000, 0]]", "const startVUs = 0;", NULL};
    art_config("closed-ramp",
               "load:\n  stages:\n    - {duration: 30s, target: 200}\n    - {duration: 1m, target: 200}\n"
               "    - {duration: 10s, target: 0}\ntools: [artillery]\n",
               cramp);
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    ok(prepare(&adapter_artillery, "load: {connections: 2, duration: 1s}\ntools: [{tool: artillery, options: {pool: x}}]\n",
               "art-badpool", "2.0.34", &p, &plan, &dir) == -1,
       "artillery: a pool that is not a number is refused");
    adapter_plan_free(&plan);
    profile_free(p);
}

/* ---- Locust ----------------------------------------------------------------- */

struct loc_case {
    const char *name;
    enum load_model model;
    uint64_t requests, ok, errors, server;  /* server: counts.tsv, counts-delay.tsv */
    double p50, p99, max, duration_s;
};

/* Every case of one version's fixtures (folder under tests/fixtures/:
 * locust for PyPI's 2.47.0, locust/2.12.1 for Debian's): refused is
 * connect errors, answered never more than the server served nor short of
 * it by more than the 10 users in flight. */
static void loc_parse_version(const char *folder, const char *version, const struct loc_case *cases, size_t n,
                              uint64_t refused, uint64_t status404)
{
    for (size_t i = 0; i < n; i++) {
        const struct loc_case *k = &cases[i];
        char dname[64], src[128];
        snprintf(dname, sizeof dname, "loc-%s-%s", version, k->name);
        const char *dir = fresh_dir(dname);
        snprintf(src, sizeof src, "%s.json", k->name);
        put_fixture(folder, src, dir, "locust.json");
        snprintf(src, sizeof src, "%s.stderr.txt", k->name);
        put_fixture(folder, src, dir, "stderr.txt");
        struct adapter_result r;
        char err[UTIL_ERR_LEN] = "";
        int rc = parse_at(&adapter_locust, dir, k->model, 10, 3, &r, err);
        if (!ok(rc == 0 && r.parsed, "locust %s %s: parsed", version, k->name))
            diag("  %s", err);
        is_u64(r.requests, k->requests, "locust %s %s: requests (answered)", version, k->name);
        ok(r.requests <= k->server && k->server - r.requests <= 10,
           "locust %s %s: short of the server's %llu by at most the 10 users in flight", version, k->name,
           (unsigned long long)k->server);
        is_u64(r.ok, k->ok, "locust %s %s: ok", version, k->name);
        is_u64(r.errors, k->errors, "locust %s %s: errors", version, k->name);
        is_num(r.duration_s, k->duration_s, "locust %s %s: Locust's own span", version, k->name);
        if (isnan(k->p50)) {
            ok(isnan(r.lat.p50) && isnan(r.lat.max), "locust %s %s: no latency when nothing was answered", version,
               k->name);
        } else {
            is_num(r.lat.p50, k->p50, "locust %s %s: p50", version, k->name);
            is_num(r.lat.p99, k->p99, "locust %s %s: p99", version, k->name);
            is_num(r.lat.max, k->max, "locust %s %s: max (unrounded)", version, k->name);
        }
        if (!strcmp(k->name, "refused"))
            is_u64(r.err_connect, refused, "locust %s refused: [Errno 111] are connect errors, not requests", version);
        if (!strcmp(k->name, "status-404"))
            is_u64(r.err_status, status404, "locust %s status-404: the 404s are status errors", version);
        if (!strcmp(k->name, "paced"))
            is_u64(r.scheduled, 30, "locust %s paced: offered = the profile's rate x duration", version);
        if (!strcmp(k->name, "success") || !strcmp(k->name, "delay-20ms"))
            ok(r.warnings.n == 0, "locust %s %s: no warnings", version, k->name);
        adapter_result_free(&r);
    }
}

static void loc_parsers(void)
{
    /* PyPI's 2.47.0 (the default), then Debian's 2.12.1 (bin:): folder,
     * version, refused's connect errors, status-404's status errors, the
     * cases. */
    static const struct {
        const char *folder, *version;
        uint64_t refused, status404;
        struct loc_case cases[6];
    } versions[] = {
        {"locust", "2.47.0", 2471, 2243,
         {{"success", LOAD_CLOSED, 3734, 3734, 0, 3741, 5, 12, 50.29250500001581, 2.8312289714813232},
          {"paced", LOAD_OPEN, 554, 554, 0, 560, 5, 29, 46.596200000067256, 2.7821595668792725},
          {"status-404", LOAD_CLOSED, 2243, 0, 2243, 2253, 5, 12, 39.061410000044816, 1.7514138221740723},
          {"refused", LOAD_CLOSED, 0, 0, 2471, 0, NAN, NAN, NAN, 1.8305320739746094},
          {"sigterm", LOAD_CLOSED, 3812, 3812, 0, 3815, 5, 11, 39.36984099993879, 2.6440846920013428},
          {"delay-20ms", LOAD_CLOSED, 1211, 1211, 0, 1211, 22, 34, 59.97341099998721, 2.8075644969940186}}},
        {"locust/2.12.1", "2.12.1", 924, 1703,
         {{"success", LOAD_CLOSED, 2711, 2711, 0, 2721, 9, 17, 20.856892999972843, 2.7499382495880127},
          {"paced", LOAD_OPEN, 550, 550, 0, 550, 8, 18, 24.465584999916246, 2.7405035495758057},
          {"status-404", LOAD_CLOSED, 1703, 0, 1703, 1713, 9, 16, 45.077067999955034, 1.7129037380218506},
          {"refused", LOAD_CLOSED, 0, 0, 924, 0, NAN, NAN, NAN, 1.5426342487335205},
          {"sigterm", LOAD_CLOSED, 1830, 1830, 0, 1840, 9, 20, 27.421882999988156, 2.1258137226104736},
          {"delay-20ms", LOAD_CLOSED, 987, 987, 0, 997, 23, 43, 55.1374990000113, 2.5278544425964355}}},
    };
    for (size_t v = 0; v < sizeof versions / sizeof *versions; v++)
        loc_parse_version(versions[v].folder, versions[v].version, versions[v].cases, 6, versions[v].refused,
                          versions[v].status404);
    /* A file still marked "quitting": Locust died while stopping. */
    const char *dir = fresh_dir("loc-quitting");
    char *text = NULL, err[UTIL_ERR_LEN] = "";
    char path[8192];
    snprintf(path, sizeof path, "%s/locust/success.json", fixtures);
    text = adapter_slurp(NULL, path, 1 << 20, err);
    char *ev = text ? strstr(text, "\"event\": \"quit\"") : NULL;
    if (ev) {
        memmove(ev + strlen("\"event\": \"quitting\""), ev + strlen("\"event\": \"quit\""),
                strlen(ev + strlen("\"event\": \"quit\"")) + 1);
        /* the text only grows by "ting": the buffer has room (slurp's 64 KiB) */
        memcpy(ev, "\"event\": \"quitting\"", strlen("\"event\": \"quitting\""));
        adapter_write(dir, "locust.json", text, err);
    }
    free(text);
    struct adapter_result r;
    ok(parse(&adapter_locust, dir, LOAD_CLOSED, &r, err) == 0 && has_warning(&r.warnings, "not at its final quit"),
       "locust: totals written at quitting only are flagged");
    adapter_result_free(&r);
    /* The CPU warning, from the hook's flag and from the log line. */
    dir = fresh_dir("loc-cpu");
    adapter_write(dir, "locust.json",
                  "{\"event\": \"quit\", \"cpu_warning\": true, \"duration_s\": 1.0, \"errors\": [],"
                  " \"total\": {\"num_requests\": 10, \"num_failures\": 0, \"min_ms\": 20.5, \"max_ms\": 25.0,"
                  " \"avg_ms\": 21.0, \"percentiles_ms\": {\"50\": 21, \"99\": 25}}}",
                  err);
    adapter_write(dir, "stderr.txt",
                  "[2026-11-29 22:48:23,688] vm/WARNING/locust.runners: CPU usage above 90%! This may constrain "
                  "your throughput and may even give inconsistent response time measurements!\n",
                  err);
    ok(parse(&adapter_locust, dir, LOAD_CLOSED, &r, err) == 0 && has_warning(&r.warnings, "Locust: CPU usage above 90%"),
       "locust: its CPU warning reaches the result");
    adapter_result_free(&r);
    /* 2.47's master says its workers' CPU was too high in words of its own:
     * that line is the warning, not repeated from the hook's flag. */
    adapter_write(dir, "stderr.txt",
                  "[2026-12-04 08:49:29,185] vm/WARNING/locust.runners: CPU usage threshold was exceeded on workers "
                  "during the test!\n",
                  err);
    ok(parse(&adapter_locust, dir, LOAD_CLOSED, &r, err) == 0 && r.warnings.n == 1 &&
           has_warning(&r.warnings, "Locust: CPU usage threshold was exceeded on workers"),
       "locust: its workers' CPU warning (2.47) reaches the result once");
    adapter_result_free(&r);
    dir = fresh_dir("loc-none");
    ok(parse(&adapter_locust, dir, LOAD_CLOSED, &r, err) == -1, "locust: no hook output is an error");
    adapter_result_free(&r);
}

/* Whether python imports Locust, asked once per interpreter: an import of
 * Locust takes a second or two, and each locustfile below is imported in
 * both interpreters anyway. */
static int imports_locust(const char *python)
{
    static char asked[4][PATH_MAX];
    static int answer[4];
    size_t i = 0;
    for (; i < 4 && asked[i][0]; i++)
        if (!strcmp(asked[i], python))
            return answer[i];
    int yes = sh("%s -c 'import locust' 2>/dev/null", python) == 0;
    if (i < 4) {
        snprintf(asked[i], sizeof asked[i], "%s", python);
        answer[i] = yes;
    }
    return yes;
}

static void loc_config(const char *what, const char *yaml, const char *model, const char *const *needles,
                       const char *const *args)
{
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    char dname[64];
    snprintf(dname, sizeof dname, "loc-gen-%s", what);
    if (!ok(prepare(&adapter_locust, yaml, dname, "2.12.1-1", &p, &plan, &dir) == 0, "locust %s: prepare", what))
        goto out;
    is_str(plan.model, model, "locust %s: model", what);
    char *py = slurp(dir, "locustfile.py");
    for (const char *const *n = needles; py && *n; n++)
        if (!ok(strstr(py, *n) != NULL, "locust %s: locustfile has %s", what, oneline(*n)))
            diag("%s", py);
    free(py);
    for (const char *const *a = args; *a; a++) {
        int found = 0;
        for (size_t i = 0; i < plan.argv.n; i++)
            found |= !strcmp(plan.argv.v[i], *a);
        ok(found, "locust %s: argv has %s", what, *a);
    }
    ok(access(dirname_join(dir, "lb_hook.py"), R_OK) == 0, "locust %s: lb_hook.py copied beside it", what);
    /* The locustfile compiles, and loads in each Locust's own interpreter:
     * Debian's (2.12.1) and the tools folder's venv (PyPI's 2.47.0). */
    char venv[PATH_MAX];
    const char *pys[] = {"/usr/bin/python3",
                         adapter_tools_file("venv/locust/bin/python3", venv, sizeof venv) ? NULL : venv, NULL};
    for (size_t i = 0; pys[i]; i++) {
        if (access(pys[i], X_OK) != 0)
            continue;
        ok(sh("%s -m py_compile '%s/locustfile.py'", pys[i], dir) == 0, "locust %s: locustfile compiles (%s)", what,
           pys[i]);
        if (imports_locust(pys[i]))
            ok(sh("cd '%s' && LB_LOCUST_OUT=/dev/null PYTHONDONTWRITEBYTECODE=1 %s -c 'import locustfile' >/dev/null "
                  "2>&1", dir, pys[i]) == 0,
               "locust %s: locustfile imports with the Locust of %s", what, pys[i]);
    }
out:
    adapter_plan_free(&plan);
    profile_free(p);
}

/* detect: the version from `locust --version` (PyPI's), the interpreter
 * named in the #! line by path only, and a bin: that is not a regular file
 * refused at once (a FIFO is never waited on). The scripts are fake
 * Locusts, named as such. */
static void loc_detect_cases(void)
{
    const char *dir = fresh_dir("loc-detect");
    char path[PATH_MAX], err[UTIL_ERR_LEN] = "";
    struct adapter_found f;
    snprintf(path, sizeof path, "%s/fake-locust-247", dir);
    adapter_write(dir, "fake-locust-247",
                  "#!/bin/sh\necho 'locust 2.47.0 from /x/site-packages/locust (Python 3.11.2)'\n", err);
    chmod(path, 0755);
    memset(&f, 0, sizeof f);
    ok(adapter_locust.detect(path, &f, err) == 0 && !strcmp(f.version, "2.47.0"),
       "locust detect: the version is the word after \"locust \" (got \"%s\" %s)", f.version, err);
    snprintf(path, sizeof path, "%s/fake-locust-env", dir);
    adapter_write(dir, "fake-locust-env", "#!/usr/bin/env python3\nimport sys\n", err);
    chmod(path, 0755);
    err[0] = 0;
    ok(adapter_locust.detect(path, &f, err) == -1 && strstr(err, "never the first python3 on PATH"),
       "locust detect: a #! through /usr/bin/env is refused (%s)", err);
    snprintf(path, sizeof path, "%s/fake-locust-fifo", dir);
    if (mkfifo(path, 0755) == 0 && chmod(path, 0755) == 0) {
        err[0] = 0;
        uint64_t t0 = util_now_ns();
        ok(adapter_locust.detect(path, &f, err) == -1 && strstr(err, "FIFO"), "locust detect: a FIFO bin: is refused (%s)",
           err);
        ok(util_now_ns() - t0 < 5000000000ull, "locust detect: ... without waiting on it");
    }
}

static void loc_generated(void)
{
    static const char *const closed[] = {"import lb_hook", "wait_time = constant(0)", "self.client.get(\"/\")", NULL};
    static const char *const closed_args[] = {"--headless", "-u", "20", "-t", "5s", "--stop-timeout", "10",
                                              "http://127.0.0.1:18080", NULL};
    loc_config("closed", "load: {connections: 20, duration: 5s}\ntools: [locust]\n", "closed", closed, closed_args);
    static const char *const check[] = {"with self.client.get(\"/\", timeout=2, catch_response=True) as r:",
                                        "if r.status_code == 404:\n                r.success()",
                                        "elif r.status_code:\n                r.failure(\"%d status, not 404\" % r.status_code)",
                                        NULL};
    static const char *const check_args[] = {"--headless", NULL};
    loc_config("check", "load: {connections: 2, duration: 1s, timeout: 2s}\ncheck: {status: 404}\ntools: [locust]\n",
               "closed", check, check_args);
    static const char *const ramp[] = {"class LbShape(LoadTestShape)", "(30, 200, 6.666666667)", "(90, 200, 1)",
                                       "(100, 0, 20)", NULL};
    static const char *const ramp_args[] = {"--headless", "--only-summary", NULL};
    loc_config("ramp",
               "load:\n  stages:\n    - {duration: 30s, target: 200}\n    - {duration: 1m, target: 200}\n"
               "    - {duration: 10s, target: 0}\ntools: [locust]\n",
               "closed", ramp, ramp_args);
    static const char *const paced[] = {"constant_throughput(10)", "(5, 10, 10)", "timeout=2", NULL};
    static const char *const paced_args[] = {"--stop-timeout", "2", NULL};
    loc_config("paced",
               "target: {delay: 20ms}\nload: {model: open, rate: 100, duration: 5s, timeout: 2s}\n"
               "tools: [{tool: locust, options: {users: \"10\"}}]\n",
               "paced", paced, paced_args);
}

/* ---- JMeter ----------------------------------------------------------------- */

struct jm_case {
    const char *dir;                    /* jmeter (2.13) or jmeter/5.6.3 */
    const char *name;
    enum load_model model;
    uint64_t requests, ok, errors;      /* requests = the server's count, but sigterm (950: 6 in flight lost) */
    double p50, p90, p99, p999, min, max;
};

/* The fixture folder's NAME.* output of one run (from: "jmeter" for 2.13,
 * "jmeter/5.6.3") into dir as the adapter's files. */
static void jm_put_from(const char *from, const char *name, const char *dir)
{
    char src[128];
    snprintf(src, sizeof src, "%s.stdout.txt", name);
    put_fixture(from, src, dir, "stdout.txt");
    snprintf(src, sizeof src, "%s.stderr.txt", name);
    put_fixture(from, src, dir, "stderr.txt");
    snprintf(src, sizeof src, "%s.jmeter.log", name);
    put_fixture(from, src, dir, "jmeter.log");
}

static void jm_put(const char *name, const char *dir)
{
    jm_put_from("jmeter", name, dir);
}

static void jm_parsers(void)
{
    static const struct jm_case cases[] = {
        {"jmeter", "success", LOAD_CLOSED, 1193, 1193, 0, 13, 33, 66, 176, 0, 177},
        {"jmeter", "paced", LOAD_OPEN, 250, 250, 0, 2, 8, 133, 144, 0, 144},
        {"jmeter", "status-404", LOAD_CLOSED, 851, 0, 851, 8, 23, 112, 132, 0, 132},
        {"jmeter", "refused", LOAD_CLOSED, 0, 0, 1324, NAN, NAN, NAN, NAN, NAN, NAN},
        {"jmeter", "sigterm", LOAD_OPEN, 944, 944, 0, 1, 2, 68, 80, 0, 80},
        {"jmeter", "udp-shutdown", LOAD_OPEN, 900, 900, 0, 1, 3, 93, 109, 0, 109},
        {"jmeter", "delay-20ms", LOAD_CLOSED, 925, 925, 0, 22, 29, 116, 128, 20, 128},
        /* 5.6.3 (Maven Central), live against lb-target (20 ms) and nginx;
         * the figures are the JTL's rows, ranked (ceil(p * n)): the server
         * counted the same (counts.tsv), but sigterm (1291: 8 in flight lost). */
        {"jmeter/5.6.3", "delay-20ms", LOAD_CLOSED, 1059, 1059, 0, 22, 33, 67, 80, 20, 80},
        {"jmeter/5.6.3", "paced", LOAD_OPEN, 259, 259, 0, 22, 39, 99, 105, 20, 105},
        {"jmeter/5.6.3", "status-404", LOAD_CLOSED, 1771, 0, 1771, 4, 22, 79, 98, 0, 118},
        {"jmeter/5.6.3", "refused", LOAD_CLOSED, 0, 0, 630, NAN, NAN, NAN, NAN, NAN, NAN},
        {"jmeter/5.6.3", "sigterm", LOAD_OPEN, 1283, 1283, 0, 21, 30, 73, 87, 20, 87},
        {"jmeter/5.6.3", "udp-shutdown", LOAD_OPEN, 172, 172, 0, 23, 40, 213, 220, 20, 220},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct jm_case *k = &cases[i];
        char dname[64], src[128];
        int v5 = strcmp(k->dir, "jmeter") != 0;
        snprintf(dname, sizeof dname, "jm%s-%s", v5 ? "5" : "", k->name);
        const char *dir = fresh_dir(dname);
        jm_put_from(k->dir, k->name, dir);
        snprintf(src, sizeof src, "%s.jtl", k->name);
        put_fixture(k->dir, src, dir, "results.jtl");
        struct adapter_result r;
        char err[UTIL_ERR_LEN] = "";
        int rc = parse(&adapter_jmeter, dir, k->model, &r, err);
        const char *v = v5 ? "5.6.3" : "2.13";
        if (!ok(rc == 0 && r.parsed, "jmeter %s %s: parsed", v, k->name))
            diag("  %s", err);
        is_u64(r.requests, k->requests, "jmeter %s %s: requests (JTL rows with an HTTP response)", v, k->name);
        is_u64(r.ok, k->ok, "jmeter %s %s: ok (success true)", v, k->name);
        is_u64(r.errors, k->errors, "jmeter %s %s: errors", v, k->name);
        if (isnan(k->p50)) {
            ok(isnan(r.lat.p50) && isnan(r.lat.max), "jmeter %s %s: no latency when nothing was answered", v, k->name);
        } else {
            is_num(r.lat.p50, k->p50, "jmeter %s %s: p50 from elapsed", v, k->name);
            is_num(r.lat.p90, k->p90, "jmeter %s %s: p90", v, k->name);
            is_num(r.lat.p99, k->p99, "jmeter %s %s: p99", v, k->name);
            is_num(r.lat.p999, k->p999, "jmeter %s %s: p99.9", v, k->name);
            is_num(r.lat.min, k->min, "jmeter %s %s: min", v, k->name);
            is_num(r.lat.max, k->max, "jmeter %s %s: max", v, k->name);
        }
        if (!strcmp(k->name, "refused")) /* 5.6.3: ...HttpHostConnectException */
            is_u64(r.err_connect, k->errors, "jmeter %s refused: ConnectException rows are connect errors", v);
        if (!strcmp(k->name, "status-404"))
            is_u64(r.err_status, k->errors, "jmeter %s status-404: the 404s are status errors", v);
        if (!strcmp(k->name, "sigterm"))
            ok(has_warning(&r.warnings, "without its final summary"), "jmeter %s sigterm: the lost in-flight samples are said",
               v);
        if (v5 && !strcmp(k->name, "delay-20ms")) {
            is_num(r.lat.mean, 24.694995278564683, "jmeter 5.6.3 delay-20ms: mean elapsed");
            json_t *jvm = json_object_get(r.extra, "jvm");
            is_str(json_string_value(json_object_get(jvm, "gc")), "G1GC", "jmeter 5.6.3 delay-20ms: G1, its GC_ALGO");
            is_u64(json_integer_value(json_object_get(jvm, "max_heap_bytes")), 1073741824,
                   "jmeter 5.6.3 delay-20ms: its HEAP, 1 GB");
            ok(r.warnings.n == 0, "jmeter 5.6.3 delay-20ms: no warnings (its jmeter.log has no ERROR)");
        }
        if (!v5 && !strcmp(k->name, "delay-20ms")) {
            is_num(r.lat.mean, 24.70918918918919, "jmeter delay-20ms: mean elapsed");
            json_t *jvm = json_object_get(r.extra, "jvm");
            is_str(json_string_value(json_object_get(jvm, "gc")), "G1GC", "jmeter delay-20ms: the collector in effect");
            is_u64(json_integer_value(json_object_get(jvm, "max_heap_bytes")), 536870912,
                   "jmeter delay-20ms: the heap in effect");
        }
        if (!strcmp(k->name, "success"))
            ok(r.warnings.n == 0, "jmeter success: no warnings");
        adapter_result_free(&r);
    }
    /* Exit 0 without a loaded plan is never a result. */
    struct adapter_result r;
    char err[UTIL_ERR_LEN] = "";
    const char *dir = fresh_dir("jm-stock-debian");
    jm_put("stock-debian", dir);
    ok(parse(&adapter_jmeter, dir, LOAD_CLOSED, &r, err) == -1 && strstr(err, "ForbiddenClassException"),
       "jmeter stock-debian: ForbiddenClassException is an error, not a run");
    adapter_result_free(&r);
    /* Even if a JTL were left there from something else. */
    put_fixture("jmeter", "success.jtl", dir, "results.jtl");
    ok(parse(&adapter_jmeter, dir, LOAD_CLOSED, &r, err) == -1, "jmeter stock-debian: a stray JTL does not make it ok");
    adapter_result_free(&r);
    dir = fresh_dir("jm-load-error");
    jm_put("load-error", dir);
    ok(parse(&adapter_jmeter, dir, LOAD_CLOSED, &r, err) == -1 && strstr(err, "could not load the plan"),
       "jmeter load-error: a plan JMeter cannot load is an error");
    adapter_result_free(&r);
    /* 5.6.3 exits 1 there, with log4j2's "... ERROR o.a.j.JMeter: ..." lines. */
    dir = fresh_dir("jm5-load-error");
    jm_put_from("jmeter/5.6.3", "load-error", dir);
    ok(parse(&adapter_jmeter, dir, LOAD_CLOSED, &r, err) == -1 && strstr(err, "could not load the plan") &&
           strstr(err, "NumberFormatException") == NULL && strstr(err, "Problem loading XML"),
       "jmeter 5.6.3 load-error: a plan JMeter cannot load is an error (%s)", err);
    ok(has_warning(&r.warnings, "jmeter.log: ERROR o.a.j.JMeter: Error in NonGUIDriver"),
       "jmeter 5.6.3 load-error: log4j2's ERROR lines reach the warnings");
    adapter_result_free(&r);
    /* An ERROR line in jmeter.log of an otherwise complete run: a warning. */
    dir = fresh_dir("jm-log-error");
    jm_put("success", dir);
    put_fixture("jmeter", "success.jtl", dir, "results.jtl");
    FILE *f = fopen(dirname_join(dir, "jmeter.log"), "a");
    if (f) {
        fputs("2026/11/29 22:58:23 ERROR - jmeter.threads.JMeterThread: Test failed! java.lang.OutOfMemoryError\n", f);
        fclose(f);
    }
    ok(parse(&adapter_jmeter, dir, LOAD_CLOSED, &r, err) == 0 && has_warning(&r.warnings, "jmeter.log: ERROR"),
       "jmeter: ERROR lines in jmeter.log reach the warnings");
    adapter_result_free(&r);
    /* Fuzz regression (fuzz/corpus/fuzz_parsers/crash-jmeter-ts-overflow):
     * a timestamp whose end overflows, or a negative one, is a bad row, not
     * signed overflow. */
    dir = fresh_dir("jm-ts-overflow");
    jm_put("success", dir);
    f = fopen(dirname_join(dir, "results.jtl"), "w");
    if (f) {
        fputs("timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,bytes,allThreads\n"
              "1795993101046,158,GET,200,OK,t 1-1,text,true,218,1\n"
              "9223372036854775807,15,GET,200,OK,t 1-1,text,true,218,1\n"
              "-9223372036854775807,15,GET,200,OK,t 1-1,text,true,218,1\n",
              f);
        fclose(f);
    }
    ok(parse(&adapter_jmeter, dir, LOAD_CLOSED, &r, err) == 0 && r.requests == 1,
       "jmeter: rows with an overflowing or negative timestamp are skipped (%s)", err);
    adapter_result_free(&r);
}

/* The thread groups of a generated plan, as "threads/delay/ramp/end" joined by spaces. */
static void groups_str(json_t *settings, char *out, size_t outlen)
{
    out[0] = 0;
    json_t *g;
    size_t i;
    json_array_foreach(json_object_get(settings, "thread_groups"), i, g)
    {
        size_t len = strlen(out);
        snprintf(out + len, outlen - len, "%s%lld/%lld/%lld/%lld", i ? " " : "",
                 (long long)json_integer_value(json_object_get(g, "threads")),
                 (long long)json_integer_value(json_object_get(g, "delay_s")),
                 (long long)json_integer_value(json_object_get(g, "ramp_s")),
                 (long long)json_integer_value(json_object_get(g, "end_s")));
    }
}

static void jm_config(const char *what, const char *yaml, const char *model, const char *groups,
                      const char *const *needles)
{
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    char dname[64], got[512];
    snprintf(dname, sizeof dname, "jm-gen-%s", what);
    if (!ok(prepare(&adapter_jmeter, yaml, dname, "2.13.19691222", &p, &plan, &dir) == 0, "jmeter %s: prepare", what))
        goto out;
    is_str(plan.model, model, "jmeter %s: model", what);
    groups_str(plan.settings, got, sizeof got);
    is_str(got, groups, "jmeter %s: thread groups (threads/delay/ramp/end)", what);
    char *x = slurp(dir, "plan.jmx");
    for (const char *const *n = needles; x && *n; n++)
        if (!ok(strstr(x, *n) != NULL, "jmeter %s: plan has %s", what, oneline(*n)))
            diag("%s", x);
    free(x);
    if (have("xmllint"))
        ok(sh("xmllint --noout '%s/plan.jmx'", dir) == 0, "jmeter %s: plan.jmx is well-formed XML (xmllint)", what);
    else if (have("python3"))
        ok(sh("python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' '%s/plan.jmx'", dir) == 0,
           "jmeter %s: plan.jmx is well-formed XML (python3)", what);
    ok(json_is_string(json_object_get(plan.settings, "heap")) && json_is_string(json_object_get(plan.settings, "gc")),
       "jmeter %s: heap and GC are in the settings", what);
out:
    adapter_plan_free(&plan);
    profile_free(p);
}

static void jm_generated(void)
{
    static const char *const closed[] = {"<stringProp name=\"ThreadGroup.num_threads\">20</stringProp>",
                                         "<stringProp name=\"ThreadGroup.duration\">5</stringProp>",
                                         "<stringProp name=\"HTTPSampler.port\">18080</stringProp>",
                                         "<boolProp name=\"ThreadGroup.scheduler\">true</boolProp>", NULL};
    jm_config("closed", "load: {connections: 20, duration: 5s}\ntools: [jmeter]\n", "closed", "20/0/0/5", closed);
    static const char *const check[] = {"</HTTPSamplerProxy>\n        <hashTree>\n          <ResponseAssertion",
                                        "testname=\"status is 404\"",
                                        "<collectionProp name=\"Asserion.test_strings\">\n"
                                        "              <stringProp name=\"status\">404</stringProp>",
                                        "<stringProp name=\"Assertion.test_field\">Assertion.response_code</stringProp>",
                                        "<boolProp name=\"Assertion.assume_success\">true</boolProp>",
                                        "<intProp name=\"Assertion.test_type\">8</intProp>", NULL};
    jm_config("check", "load: {connections: 2, duration: 1s}\ncheck: {status: 404}\ntools: [jmeter]\n", "closed",
              "2/0/0/1", check);
    static const char *const ramp[] = {"<stringProp name=\"ThreadGroup.ramp_time\">30</stringProp>",
                                       "<stringProp name=\"ThreadGroup.duration\">95</stringProp>", NULL};
    jm_config("ramp",
              "load:\n  stages:\n    - {duration: 30s, target: 200}\n    - {duration: 1m, target: 200}\n"
              "    - {duration: 10s, target: 0}\ntools: [jmeter]\n",
              "closed", "200/0/30/95", ramp);
    static const char *const steps[] = {"ThreadGroup.delay\">2</stringProp>", NULL};
    jm_config("steps",
              "load:\n  stages:\n    - {duration: 2s, target: 10}\n    - {duration: 2s, target: 20}\n"
              "    - {duration: 2s, target: 5}\n    - {duration: 2s, target: 5}\n    - {duration: 2s, target: 0}\n"
              "tools: [jmeter]\n",
              "closed", "5/0/2/9 10/2/2/5 5/0/2/5", steps);
    static const char *const paced[] = {"<stringProp name=\"throughput\">6000</stringProp>",
                                        "<intProp name=\"calcMode\">2</intProp>",
                                        "<stringProp name=\"HTTPSampler.response_timeout\">2000</stringProp>", NULL};
    jm_config("paced", "target: {delay: 20ms}\nload: {model: open, rate: 100, duration: 5s, timeout: 2s}\ntools: [jmeter]\n",
              "paced", "12/0/0/5", paced);
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    prepare(&adapter_jmeter, "load: {connections: 2, duration: 1s}\ntools: [{tool: jmeter, options: {heap: 1g}}]\n",
            "jm-heap", "2.13", &p, &plan, &dir);
    is_str(json_string_value(json_object_get(plan.settings, "heap")), "-Xms1g -Xmx1g", "jmeter heap option: recorded");
    adapter_plan_free(&plan);
    profile_free(p);
}

/* JMeter's distributed mode (instances: N): a controller and N engines
 * prepared as a group; yaml's one tool entry is jmeter. Returns 0 when the
 * group was prepared (g then needs adapter_group_free), -1 with err. */
static int jm_group(const char *yaml, const char *dname, struct profile **pp, struct adapter_group *g, char *err)
{
    static struct adapter_found found = {.path = "/usr/share/jmeter/bin/ApacheJMeter.jar", .version = "2.13"};
    *pp = profile_text(yaml);
    memset(g, 0, sizeof *g);
    if (!*pp)
        return util_err(err, "bad profile");
    struct profile *p = *pp;
    struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                            .found = &found, .dir = fresh_dir(dname), .host = "127.0.0.1", .port = 18080,
                            .url = "http://127.0.0.1:18080/", .instances = 1};
    return adapter_group_prepare(&adapter_jmeter, &c, g, err);
}

static void jm_engines(void)
{
    struct profile *p;
    struct adapter_group g;
    char err[UTIL_ERR_LEN] = "", want[128];
    int rc = jm_group("load: {connections: 9, duration: 3s}\ntools: [{tool: jmeter, instances: 2}]\n", "jm-eng", &p, &g,
                      err);
    if (!ok(rc == 0 && g.n == 3, "jmeter 2 engines: a controller and 2 engines (%s)", err))
        goto out;
    is_str(g.procs[0].role, "controller", "jmeter 2 engines: process 0 is the controller");
    ok(!strcmp(g.procs[1].role, "engine") && !strcmp(g.procs[2].role, "engine"), "jmeter 2 engines: 1 and 2 are engines");
    ok(g.procs[0].has_result && !g.procs[1].has_result && !g.procs[2].has_result,
       "jmeter 2 engines: only the controller holds a result");
    int p1 = g.procs[1].plan.ready_port, p2 = g.procs[2].plan.ready_port;
    ok(p1 > 0 && p2 > 0 && p1 != p2, "jmeter 2 engines: each listens on a port of its own (%d, %d)", p1, p2);
    ok(g.procs[0].plan.ready_port == 0, "jmeter 2 engines: the controller waits for no one");
    snprintf(want, sizeof want, "127.0.0.1:%d,127.0.0.1:%d", p1, p2);
    ok(argv_has(&g.procs[0].plan, "-R") && argv_has(&g.procs[0].plan, want), "jmeter 2 engines: the controller's -R %s",
       want);
    ok(argv_has(&g.procs[0].plan, "-n") && argv_has(&g.procs[0].plan, "results.jtl"),
       "jmeter 2 engines: the controller runs non-GUI and writes the result file");
    for (int k = 1; k <= 2; k++) {
        const struct adapter_plan *e = &g.procs[k].plan;
        snprintf(want, sizeof want, "-Dserver_port=%d", e->ready_port);
        ok(argv_has(e, want) && argv_has(e, "-s") && !argv_has(e, "-n"), "jmeter engine %d: jmeter-server's %s -s", k,
           want);
        ok(argv_has(e, "-Jserver.exitaftertest=true") && argv_has(e, "-Jjmeterengine.remote.system.exit=true"),
           "jmeter engine %d: exits after its test", k);
        snprintf(want, sizeof want, "-Jlb.g1.threads=%d", k == 1 ? 5 : 4);
        ok(argv_has(e, want), "jmeter engine %d: its share of 9 threads, %s", k, want);
    }
    for (size_t k = 0; k < g.n; k++) {
        const struct adapter_plan *pl = &g.procs[k].plan;
        int rmi = 0;
        for (size_t i = 0; i < pl->env.n; i++)
            rmi |= !strcmp(pl->env.v[i], "LB_JMETER_RMI_HOST=127.0.0.1");
        ok(rmi, "jmeter process %zu: RMI on 127.0.0.1 only (LB_JMETER_RMI_HOST)", k);
    }
    char *x = slurp(g.procs[0].dir, "plan.jmx");
    ok(x && strstr(x, "<stringProp name=\"ThreadGroup.num_threads\">${__P(lb.g1.threads)}</stringProp>"),
       "jmeter 2 engines: the plan's threads are each engine's property");
    free(x);
    ok(has_warning(&g.procs[0].plan.warnings, "the controller (jmeter -n -R) sends no load"),
       "jmeter 2 engines: the plan warns that the controller sends no load");
    adapter_group_free(&g);
    profile_free(p);

    rc = jm_group("target: {delay: 20ms}\nload: {model: open, rate: 100, duration: 3s}\n"
                  "tools: [{tool: jmeter, instances: 2, options: {threads: \"3\"}}]\n",
                  "jm-eng-paced", &p, &g, err);
    if (!ok(rc == 0 && g.n == 3, "jmeter 2 engines paced: prepared (%s)", err))
        goto out;
    ok(argv_has(&g.procs[1].plan, "-Jlb.g1.threads=2") && argv_has(&g.procs[1].plan, "-Jlb.g1.rate_per_min=4000"),
       "jmeter 2 engines paced: engine 1 runs 2 of 3 threads at 2/3 of 6000/min");
    ok(argv_has(&g.procs[2].plan, "-Jlb.g1.threads=1") && argv_has(&g.procs[2].plan, "-Jlb.g1.rate_per_min=2000"),
       "jmeter 2 engines paced: engine 2 runs 1 thread at 1/3");
    x = slurp(g.procs[0].dir, "plan.jmx");
    ok(x && strstr(x, "<stringProp name=\"throughput\">${__P(lb.g1.rate_per_min)}</stringProp>"),
       "jmeter 2 engines paced: the timer's rate is each engine's property");
    free(x);
    adapter_group_free(&g);
    profile_free(p);

    rc = jm_group("load: {connections: 2, duration: 3s}\ntools: [{tool: jmeter, instances: 3}]\n", "jm-eng-few", &p, &g,
                  err);
    ok(rc == -1 && strstr(err, "3 JMeter engines need at least 3 threads"), "jmeter 3 engines, 2 threads: refused (%s)",
       err);
out:
    adapter_group_free(&g);
    profile_free(p);
}

/* Locust's -t reads "1500ms" as 1500 minutes: a sub-second duration must
 * reach it as whole seconds (a --scale'd run hung to its deadline). */
static void loc_seconds(void)
{
    struct profile *p;
    struct adapter_plan plan;
    const char *dir;
    if (!ok(prepare(&adapter_locust, "load: {connections: 2, duration: 1500ms}\ntools: [locust]\n", "loc-sec", "2.12.1",
                    &p, &plan, &dir) == 0, "locust 1500ms: prepare"))
        return;
    const char *t = NULL;
    for (size_t i = 0; i + 1 < plan.argv.n; i++)
        if (!strcmp(plan.argv.v[i], "-t"))
            t = plan.argv.v[i + 1];
    ok(t && !strcmp(t, "2s"), "locust 1500ms: -t is whole seconds (got %s)", t ? t : "none");
    ok(has_warning(&plan.warnings, "whole seconds"), "locust 1500ms: the rounding is a warning");
    adapter_plan_free(&plan);
    profile_free(p);
}

/* request: POST in each scripted tool's generated file: the POST the
 * way its users write one, and body.bin (1024 bytes) in the run directory. */
static void post_generated(void)
{
    static const struct {
        const struct adapter *a;
        const char *file, *needles[3];
    } want[] = {
        {&adapter_locust, "locustfile.py", {"BODY = f.read()", "self.client.post(\"/\", data=BODY, headers=HEADERS)",
                                            "\"Content-Type\": \"application/octet-stream\""}},
        {&adapter_jmeter, "plan.jmx", {"<stringProp name=\"HTTPSampler.method\">POST</stringProp>",
                                       "<boolProp name=\"HTTPSampler.postBodyRaw\">true</boolProp>",
                                       "<stringProp name=\"Argument.value\">xxxxxxxx"}},
        {&adapter_artillery, "artillery.yml", {"- post:\n", "Content-Type: \"application/octet-stream\"", "body: \"xxxx"}},
        {&adapter_gatling, "LbSimulation.java", {".post(\"/\").body(RawFileBody(\"", "/body.bin\"))",
                                                 ".header(\"Content-Type\", \"application/octet-stream\")"}},
        {&adapter_tsung, "tsung.xml", {"method=\"POST\"", "/body.bin\" content_type=\"application/octet-stream\"", ""}},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        struct profile *p;
        struct adapter_plan plan;
        const char *dir;
        char name[64], text[256];
        snprintf(name, sizeof name, "post-%s", want[i].a->name);
        snprintf(text, sizeof text, "load: {connections: 2, duration: 5s}\nrequest: {method: POST, body: 1KiB}\n"
                 "tools: [%s]\n", want[i].a->name);
        int rc = prepare(want[i].a, text, name, want[i].a == &adapter_jmeter ? "5.6.3" : "test", &p, &plan, &dir);
        char *f = rc ? NULL : slurp(dir, want[i].file), *body = rc ? NULL : slurp(dir, "body.bin");
        ok(f && want[i].a->caps & ADAPTER_POST, "%s POST: prepared, %s written, ADAPTER_POST", want[i].a->name,
           want[i].file);
        for (int k = 0; k < 3 && f; k++)
            if (!ok(strstr(f, want[i].needles[k]) != NULL, "%s POST: %s has %s", want[i].a->name, want[i].file,
                    oneline(want[i].needles[k])))
                diag("%.2000s", f);
        ok(body && strlen(body) == 1024 && strspn(body, "x") == 1024, "%s POST: body.bin, 1024 bytes", want[i].a->name);
        free(f);
        free(body);
        adapter_plan_free(&plan);
        profile_free(p);
    }
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "%s/lb-adapters-fw.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmproot)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    k6_parsers();
    k6_generated();
    art_parsers();
    art_generated();
    loc_parsers();
    loc_generated();
    loc_detect_cases();
    loc_seconds();
    jm_parsers();
    jm_generated();
    jm_engines();
    post_generated();
    if (!getenv("LB_KEEP_TMP"))
        sh("rm -rf '%s'", tmproot);
    return done_testing();
}
