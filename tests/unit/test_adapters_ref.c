/* Unit tests for the reference-generator adapters (go-fasthttp,
 * py-aiohttp): the lb-refgen/1 parser against the real output committed
 * under tests/fixtures/go-fasthttp/ and tests/fixtures/py-aiohttp/, checked
 * against the server counts in their counts*.tsv (drain: client == server),
 * malformed and missing output, and prepare()'s command line, environment
 * and settings for a closed load, a ramp (hold phase + warning), an open
 * load (refused: closed model only) and a request timeout. */
#include "adapters/adapter.h"
#include "spec/profile.h"
#include "adapters/refgen.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct adapter adapter_go_fasthttp, adapter_py_aiohttp, adapter_lb_gen;

/* ---- helpers ---------------------------------------------------------------- */

static int write_file(const char *dir, const char *name, const char *text)
{
    char e[UTIL_ERR_LEN];
    return adapter_write(dir, name, text, e);
}

/* Copy tests/fixtures/TOOL/NAME.stdout.txt to a fresh DIR/stdout.txt (the
 * name the harness gives the tool's stdout) with an empty stderr.txt. */
static const char *put(const char *tool, const char *name)
{
    char from[8192], e[UTIL_ERR_LEN], dname[128];
    snprintf(from, sizeof from, "%s/%s/%s.stdout.txt", fixtures, tool, name);
    snprintf(dname, sizeof dname, "%s-%s", tool, name);
    const char *dir = fresh_dir(dname);
    char *text = adapter_slurp(NULL, from, 1 << 20, e);
    if (!ok(text != NULL, "fixture %s/%s.stdout.txt is there", tool, name))
        return dir;
    write_file(dir, "stdout.txt", text);
    write_file(dir, "stderr.txt", "");
    free(text);
    return dir;
}

/* The server's count for NAME from tests/fixtures/TOOL/FILE (name, exit
 * code, server requests); -1 when absent. */
static long long server_count(const char *tool, const char *file, const char *name)
{
    char path[8192], line[256];
    snprintf(path, sizeof path, "%s/%s/%s", fixtures, tool, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long n = -1;
    while (fgets(line, sizeof line, f)) {
        char nm[64];
        int rc;
        long long served;
        if (sscanf(line, "%63s %d %lld", nm, &rc, &served) == 3 && !strcmp(nm, name))
            n = served;
    }
    fclose(f);
    return n;
}

static int parse_dir(const struct adapter *a, const char *dir, struct adapter_result *r, char *err)
{
    adapter_result_free(r);
    adapter_result_init(r);
    struct adapter_ctx c = {.dir = dir};
    err[0] = 0;
    return a->parse(&c, r, err);
}

static int ordered(const struct adapter_latency *l)
{
    return l->min <= l->p50 && l->p50 <= l->p90 && l->p90 <= l->p95 && l->p95 <= l->p99 && l->p99 <= l->p999 &&
           l->p999 <= l->max && l->min <= l->mean && l->mean <= l->max && l->min > 0;
}

/* ---- the table ---------------------------------------------------------------- */

static void test_table(void)
{
    const struct adapter *g = adapter_by_name("go-fasthttp"), *p = adapter_by_name("py-aiohttp");
    ok(g == &adapter_go_fasthttp, "go-fasthttp is registered");
    ok(p == &adapter_py_aiohttp, "py-aiohttp is registered");
    ok(adapter_go_fasthttp.caps == ADAPTER_CLOSED && adapter_py_aiohttp.caps == ADAPTER_CLOSED,
       "both: closed model only (no ramp, no rate)");
    ok(adapter_go_fasthttp.latency_resolution_ms == 0.001 && adapter_py_aiohttp.latency_resolution_ms == 0.001,
       "both: latency resolution 1 us");
    ok(strstr(adapter_go_fasthttp.latency_measures, "HostClient.Do") != NULL &&
       strstr(adapter_py_aiohttp.latency_measures, "event loop") != NULL, "latency_measures say what is timed");
    ok(strstr(adapter_go_fasthttp.install_hint, "golang-go") && strstr(adapter_go_fasthttp.install_hint, "fasthttp"),
       "go-fasthttp's install hint names both packages");
    ok(strstr(adapter_py_aiohttp.install_hint, "python3-aiohttp") != NULL, "py-aiohttp's install hint names the package");
}

/* ---- fixtures ------------------------------------------------------------------ */

/* The figures every fixture of either tool must show. */
static void test_tool(const struct adapter *a, const char *tool, struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d;
    long long served;

    /* success: nginx, 200, 10 connections, 3 s */
    d = put(tool, "success");
    ok(parse_dir(a, d, r, err) == 0 && r->parsed, "%s success: parsed (%s)", tool, err);
    served = server_count(tool, "counts.tsv", "success");
    ok(served > 1000, "%s success: the server counted %lld", tool, served);
    is_u64(r->requests, served, "%s success: completed == the server's count (drain)", tool);
    is_u64(r->ok, r->requests, "%s success: all 2xx", tool);
    is_u64(r->errors, 0, "%s success: no errors", tool);
    ok(r->duration_s > 3.0 && r->duration_s < 3.5, "%s success: elapsed %.3f s", tool, r->duration_s);
    ok(fabs(r->rps - (double)r->requests / r->duration_s) < 1e-6, "%s success: rps = completed / elapsed", tool);
    ok(ordered(&r->lat), "%s success: min <= p50 <= ... <= p999 <= max, mean inside", tool);
    ok(r->warnings.n == 0, "%s success: no warnings", tool);
    ok(json_is_object(r->extra) && json_integer_value(json_object_get(json_object_get(r->extra, "status"), "200")) ==
                                       (json_int_t)r->requests,
       "%s success: the summary is kept as extra (status 200 count)", tool);

    /* status-404: nginx /missing */
    d = put(tool, "status-404");
    ok(parse_dir(a, d, r, err) == 0, "%s 404: parsed (%s)", tool, err);
    served = server_count(tool, "counts.tsv", "status-404");
    is_u64(r->requests, served, "%s 404: every 404 counted as completed (== server)", tool);
    is_u64(r->ok, 0, "%s 404: none ok", tool);
    is_u64(r->err_status, r->requests, "%s 404: each one a status error", tool);
    is_u64(r->errors, r->requests, "%s 404: errors == requests (the harness calls that failed)", tool);
    ok(!isnan(r->lat.p50), "%s 404: latencies of the 404s are reported", tool);

    /* refused: nothing listens */
    d = put(tool, "refused");
    ok(parse_dir(a, d, r, err) == 0, "%s refused: parsed (%s)", tool, err);
    is_u64(server_count(tool, "counts.tsv", "refused"), 0, "%s refused: the server saw nothing", tool);
    is_u64(r->requests, 0, "%s refused: no requests completed", tool);
    ok(r->err_connect > 100, "%s refused: %llu connect errors", tool, (unsigned long long)r->err_connect);
    is_u64(r->errors, r->err_connect, "%s refused: connect errors only", tool);
    ok(isnan(r->lat.p50) && isnan(r->lat.max) && isnan(r->lat.mean), "%s refused: latency absent, not 0", tool);
    ok(has_warning(&r->warnings, "refused") || has_warning(&r->warnings, "Cannot connect"),
       "%s refused: the error message is in the warnings", tool);

    /* delay-20ms: lb-target */
    d = put(tool, "delay-20ms");
    ok(parse_dir(a, d, r, err) == 0, "%s delay: parsed (%s)", tool, err);
    served = server_count(tool, "counts-delay.tsv", "delay-20ms");
    ok(served > 100, "%s delay: lb-target counted %lld", tool, served);
    is_u64(r->requests, served, "%s delay: completed == lb-target's responses_completed", tool);
    ok(r->lat.min >= 20.0 && r->lat.p50 >= 20.0 && r->lat.p50 < 40.0, "%s delay: min %.3f, p50 %.3f ms cover the 20 ms",
       tool, r->lat.min, r->lat.p50);
    ok(ordered(&r->lat), "%s delay: percentiles ordered", tool);

    /* sigterm: 10 s asked, SIGTERM after 1.5 s */
    d = put(tool, "sigterm");
    ok(parse_dir(a, d, r, err) == 0, "%s sigterm: parsed (%s)", tool, err);
    served = server_count(tool, "counts-delay.tsv", "sigterm");
    is_u64(r->requests, served, "%s sigterm: drained: completed == the server's count", tool);
    ok(has_warning(&r->warnings, "stopped by a signal"), "%s sigterm: says it was stopped early", tool);
    ok(r->duration_s > 1.0 && r->duration_s < 3.0, "%s sigterm: elapsed %.3f s, not 10", tool, r->duration_s);
}

static void test_bad_output(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("missing");
    ok(parse_dir(&adapter_go_fasthttp, d, r, err) == -1 && !r->parsed, "no stdout.txt: no result (%s)", err);

    d = fresh_dir("traceback");
    write_file(d, "stdout.txt", "");
    write_file(d, "stderr.txt", "Traceback (most recent call last):\n  File \"lb_aiohttp.py\", line 1\n");
    ok(parse_dir(&adapter_py_aiohttp, d, r, err) == -1, "empty stdout: no result");
    ok(strstr(err, "no JSON summary") && strstr(err, "stderr: Traceback"), "the error quotes stderr (%s)", err);

    d = fresh_dir("schema");
    write_file(d, "stdout.txt", "{\"schema\":\"lb-gen/1\",\"requests\":{\"completed\":5},\"errors\":{}}\n");
    ok(parse_dir(&adapter_go_fasthttp, d, r, err) == -1 && strstr(err, "lb-refgen/1"), "another schema is refused (%s)",
       err);

    /* Fuzz regression (fuzz/corpus/fuzz_parsers/crash-lbgen-schema): the
     * message quoted the schema string after its JSON was freed. */
    d = fresh_dir("lbgen-schema");
    write_file(d, "summary.json", "{\"schema\":\"lb-gen/0\",\"requests\":{\"completed\":5},\"errors\":{}}\n");
    ok(parse_dir(&adapter_lb_gen, d, r, err) == -1 && strstr(err, "\"lb-gen/0\""),
       "lb-gen: another schema is refused, named in the error (%s)", err);

    /* issue #19: 512 of 17,000 connections came out as a clean row. */
    d = fresh_dir("lbgen-shortfall");
    write_file(d, "summary.json",
               "{\"schema\":\"lb-gen/1\",\"requests\":{\"completed\":512,\"ok\":512},\"errors\":{},"
               "\"connections\":{\"asked\":17000,\"max_open\":512},"
               "\"error\":\"only 512 of the 17000 connections asked for were open at once\"}\n");
    ok(parse_dir(&adapter_lb_gen, d, r, err) == -1 && strstr(err, "only 512 of the 17000"),
       "lb-gen: a run that did not deliver its connections fails, saying why (%s)", err);
    ok(r->parsed && r->requests == 512, "lb-gen: ... and its figures are kept to be seen (%llu)",
       (unsigned long long)r->requests);
    d = fresh_dir("lbgen-delivered");
    write_file(d, "summary.json",
               "{\"schema\":\"lb-gen/1\",\"requests\":{\"completed\":9,\"ok\":9},\"errors\":{},\"error\":null}\n");
    ok(parse_dir(&adapter_lb_gen, d, r, err) == 0 && r->requests == 9, "lb-gen: \"error\": null is a clean run (%s)", err);

    d = fresh_dir("truncated");
    write_file(d, "stdout.txt", "{\"schema\":\"lb-refgen/1\",\"requests\":{\"completed\":5");
    ok(parse_dir(&adapter_py_aiohttp, d, r, err) == -1, "truncated JSON: no result (%s)", err);

    /* Noise before the summary (a library's warning on stdout) is skipped;
     * unfinished requests and an interruption become warnings. */
    d = fresh_dir("noise");
    write_file(d, "stdout.txt",
               "some warning\n{not json\n"
               "{\"schema\":\"lb-refgen/1\",\"duration_s\":10,\"interrupted\":true,\"time\":{\"load_s\":2.5,"
               "\"elapsed_s\":3.5},\"requests\":{\"completed\":7,\"ok\":7,\"unfinished\":3},"
               "\"errors\":{\"timeout\":2,\"status\":0},\"latency_ms\":{\"count\":0,\"p50\":null}}\n");
    ok(parse_dir(&adapter_go_fasthttp, d, r, err) == 0, "noise before the summary: parsed (%s)", err);
    is_u64(r->requests, 7, "noise: completed read");
    is_u64(r->err_timeout, 2, "noise: timeouts read");
    is_u64(r->errors, 2, "noise: errors summed");
    ok(isnan(r->lat.p50), "noise: count 0 leaves latency absent");
    ok(has_warning(&r->warnings, "gave up on 3 request(s)"), "unfinished requests are a warning");
    ok(has_warning(&r->warnings, "stopped by a signal after 2.5 s"), "the interruption is a warning");
}

/* ---- prepare ------------------------------------------------------------------- */

static void prepare(const struct adapter *a, struct profile *p, size_t ti, struct prepared *out)
{
    struct adapter_found found;
    memset(&found, 0, sizeof found);
    if (a == &adapter_py_aiohttp) {
        snprintf(found.path, sizeof found.path, "/usr/bin/python3");
        snprintf(found.version, sizeof found.version, "3.8.4 (Python 3.11.2)");
    } else {
        snprintf(found.path, sizeof found.path, "/x/lb-go-fasthttp");
        snprintf(found.version, sizeof found.version, "go1.19.8 fasthttp 1.31.0");
    }
    prepare_found(a, p, ti, &found, out);
}

static void test_prepare(void)
{
    struct prepared P;
    char want[1024];
    struct profile *p = load_profile("load: {connections: 50, duration: 10s}\n"
                                     "tools: [go-fasthttp, py-aiohttp]\n"
                                     "cpus: {target: [1], tool: [0]}\n");
    if (!p)
        return;
    prepare(&adapter_go_fasthttp, p, 0, &P);
    ok(P.rc == 0, "go closed: prepared (%s)", P.err);
    is_str(P.plan.argv.v[0], "/x/lb-go-fasthttp", "go closed: runs the built program");
    is_str(P.argv, "-c 50 -d 10s http://127.0.0.1:8080/", "go closed: -c 50 -d 10s URL");
    is_str(P.plan.model, "closed", "go closed: model closed");
    is_u64(P.plan.load_ns, 10000000000ull, "go closed: load 10 s");
    ok(P.plan.env.n == 1 && !strcmp(P.plan.env.v[0], "GOMAXPROCS=1"), "go closed: GOMAXPROCS=1 from one pinned CPU");
    is_u64(json_integer_value(json_object_get(P.plan.settings, "GOMAXPROCS")), 1, "go closed: GOMAXPROCS in settings");
    ok(P.plan.warnings.n == 0, "go closed: no warnings");
    adapter_plan_free(&P.plan);

    prepare(&adapter_py_aiohttp, p, 1, &P);
    ok(P.rc == 0, "py closed: prepared (%s)", P.err);
    is_str(P.plan.argv.v[0], "/usr/bin/python3", "py closed: runs the interpreter found");
    snprintf(want, sizeof want, "%s/lb_aiohttp.py -c 50 -d 10s http://127.0.0.1:8080/", P.dir);
    is_str(P.argv, want, "py closed: the script copied into the run dir, -c 50 -d 10s URL");
    char script[1024];
    snprintf(script, sizeof script, "%s/lb_aiohttp.py", P.dir);
    ok(access(script, R_OK) == 0 && P.plan.files.n == 1 && !strcmp(P.plan.files.v[0], "lb_aiohttp.py"),
       "py closed: lb_aiohttp.py written and listed");
    is_str(json_string_value(json_object_get(P.plan.settings, "python")), "3.11.2", "py closed: Python version in settings");
    is_str(json_string_value(json_object_get(P.plan.settings, "aiohttp")), "3.8.4", "py closed: aiohttp version in settings");
    ok(P.plan.startup_allowance_ns >= 1000000000ull, "py closed: start-up allowance for the import");
    adapter_plan_free(&P.plan);
    profile_free(p);

    /* A ramp: the hold phase, said in a warning; the windows follow it. */
    p = load_profile("load:\n  stages:\n    - {duration: 5s, target: 100}\n    - {duration: 20s, target: 100}\n"
                     "    - {duration: 5s, target: 0}\n"
                     "  timeout: 2s\n"
                     "tools: [go-fasthttp, py-aiohttp]\n");
    if (!p)
        return;
    prepare(&adapter_go_fasthttp, p, 0, &P);
    ok(P.rc == 0, "go ramp: prepared (%s)", P.err);
    is_str(P.argv, "-c 100 -d 20s -timeout 2s http://127.0.0.1:8080/", "go ramp: holds 100 for 20 s, -timeout 2s");
    ok(P.plan.warnings.n == 1 && strstr(P.plan.warnings.v[0], "ramp not supported by go-fasthttp") &&
           strstr(P.plan.warnings.v[0], "hold phase"),
       "go ramp: a warning names what was dropped");
    ok(P.plan.as_run != NULL, "go ramp: the load as run is recorded");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(want, sizeof want, "GOMAXPROCS=%ld", online);
    ok(P.plan.env.n == 1 && !strcmp(P.plan.env.v[0], want), "go ramp: unpinned: GOMAXPROCS = online CPUs (%s)", want);
    adapter_plan_free(&P.plan);
    prepare(&adapter_py_aiohttp, p, 1, &P);
    ok(P.rc == 0 && strstr(P.argv, "-c 100 -d 20s --timeout 2s http://127.0.0.1:8080/"),
       "py ramp: holds 100 for 20 s, --timeout 2s (%s)", P.argv);
    ok(P.plan.warnings.n == 1 && strstr(P.plan.warnings.v[0], "ramp not supported by py-aiohttp"),
       "py ramp: the warning");
    adapter_plan_free(&P.plan);
    profile_free(p);

    /* An arrival rate: neither has one. */
    p = load_profile("load: {model: open, rate: 200, duration: 5s}\ntools: [go-fasthttp, py-aiohttp]\n");
    if (!p)
        return;
    prepare(&adapter_go_fasthttp, p, 0, &P);
    ok(P.rc == -1 && strstr(P.err, "closed model only"), "go open: refused (%s)", P.err);
    adapter_plan_free(&P.plan);
    prepare(&adapter_py_aiohttp, p, 1, &P);
    ok(P.rc == -1 && strstr(P.err, "closed model only"), "py open: refused (%s)", P.err);
    adapter_plan_free(&P.plan);
    profile_free(p);

    /* Sub-second durations pass through in Go's syntax, which both read. */
    p = load_profile("load: {connections: 3, duration: 1500ms}\ntools: [go-fasthttp]\n");
    if (!p)
        return;
    prepare(&adapter_go_fasthttp, p, 0, &P);
    is_str(P.argv, "-c 3 -d 1500ms http://127.0.0.1:8080/", "go: 1500ms as written");
    adapter_plan_free(&P.plan);
    profile_free(p);
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "/tmp/lb-test-ref.XXXXXX");
    if (!mkdtemp(tmproot)) {
        ok(0, "temp dir");
        return done_testing();
    }
    struct adapter_result r;
    adapter_result_init(&r);
    test_table();
    test_tool(&adapter_go_fasthttp, "go-fasthttp", &r);
    test_tool(&adapter_py_aiohttp, "py-aiohttp", &r);
    test_bad_output(&r);
    test_prepare();
    adapter_result_free(&r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
