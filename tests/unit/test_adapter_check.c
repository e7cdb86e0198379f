/* Unit tests for the adapter layer's one check on every tool's result
 * (adapter_parse, issue #19) and its text helper (adapter_json_text): real
 * captured output (tests/fixtures/lb-gen/summary.json, wrk's and hey's
 * success fixtures) passes; the same lb-gen summary with an impossible
 * figure planted in it (a negative count, P50 = 1e300 ms, percentiles out of
 * order, a mean beyond the max, a negative duration) is refused as
 * unparseable output with parsed = 0; any bytes become a valid JSON string
 * that keeps them. */
#include "adapters/adapter.h"
#include "tests/adapter_test.h"
#include "tests/tap.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct adapter adapter_lb_gen, adapter_wrk, adapter_hey, adapter_oha, adapter_vegeta, adapter_autocannon;

static int parse_in(const struct adapter *a, const char *dir, struct adapter_result *r, char *err)
{
    adapter_result_free(r);
    adapter_result_init(r);
    struct adapter_ctx c = {.dir = dir, .host = "127.0.0.1", .url = "http://127.0.0.1:1/"};
    err[0] = 0;
    return adapter_parse(a, &c, r, err);
}

/* The lb-gen fixture with value planted at obj.key (obj "" = top level),
 * parsed: must be refused, naming needle. */
static void planted(const char *what, const char *obj, const char *key, json_t *value, const char *needle)
{
    char path[8192], err[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s/lb-gen/summary.json", fixtures);
    json_t *j = json_load_file(path, 0, NULL);
    json_t *o = *obj ? json_object_get(j, obj) : j;
    json_object_set_new(o, key, value);
    const char *d = fresh_dir(what);
    snprintf(path, sizeof path, "%s/summary.json", d);
    json_dump_file(j, path, JSON_REAL_PRECISION(17));
    json_decref(j);
    struct adapter_result r;
    adapter_result_init(&r);
    int rc = parse_in(&adapter_lb_gen, d, &r, err);
    if (!ok(rc == -1 && !r.parsed && strstr(err, "unparseable output") && strstr(err, needle),
            "%s is refused as unparseable output", what))
        diag("  rc %d, parsed %d, err: %s", rc, r.parsed, err);
    adapter_result_free(&r);
}

static void test_bounds(void)
{
    char err[UTIL_ERR_LEN];
    struct adapter_result r;
    adapter_result_init(&r);
    const char *d = fresh_dir("lbgen-real");
    put_fixture("lb-gen", "summary.json", d, "summary.json");
    ok(parse_in(&adapter_lb_gen, d, &r, err) == 0 && r.parsed && r.requests == 4391,
       "a real lb-gen summary passes (%s)", err);
    ok(fabs(r.lat.p50 - 1.129471) < 1e-9 && fabs(r.lat.max - 15.276847) < 1e-9, "with its latencies as reported");
    d = fresh_dir("wrk-real");
    put_fixture("wrk", "success.json", d, "wrk.json");
    put_fixture("wrk", "success.stdout.txt", d, "stdout.txt");
    ok(parse_in(&adapter_wrk, d, &r, err) == 0 && r.parsed, "a real wrk result passes (%s)", err);
    d = fresh_dir("hey-real");
    put_fixture("hey", "success.stdout.txt", d, "stdout.txt");
    ok(parse_in(&adapter_hey, d, &r, err) == 0 && r.parsed, "a real hey result passes (%s)", err);
    adapter_result_free(&r);

    planted("a negative request count", "requests", "completed", json_integer(-5), "requests");
    planted("a negative error count", "errors", "timeout", json_integer(-1), "negative");
    planted("a count beyond any run", "requests", "completed", json_integer(1ll << 62), "beyond any run");
    planted("an error count of 1e300 (not an integer)", "errors", "timeout", json_real(1e300), "negative");
    planted("p50 = 1e300 ms", "latency_ms", "p50", json_real(1e300), "p50 = 1e+300");
    planted("p50 above p99", "latency_ms", "p50", json_real(50), "out of order");
    planted("a mean above the max", "latency_ms", "mean", json_real(400), "mean");
    planted("a negative latency", "latency_ms", "min", json_real(-1), "min = -1");
    planted("a negative duration", "time", "load_s", json_real(-2), "duration");

    /* Rounding is not a fault: a percentile a hair above the max (HdrHistogram
     * reads a bucket's top) still passes. */
    adapter_result_init(&r);
    r.lat.p50 = 1;
    r.lat.p99 = 10.003;
    r.lat.max = 10.0;
    ok(adapter_result_check(&r, 0.001, 0, err) == 0, "p99 0.03 %% above the max is rounding, not a fault (%s)", err);
    r.lat.p50 = NAN;
    ok(adapter_result_check(&r, 0.001, 0, err) == 0, "absent figures (NAN) are absent, not a fault");
    r.lat.p50 = 11;
    ok(adapter_result_check(&r, 0.001, 0, err) == -1, "but p50 11 ms above a p99 of 10 ms is out of order");
    /* Locust's own output against a 1140 ms delay: times rounded to two
     * significant digits, its min exact. */
    adapter_result_init(&r);
    r.lat.min = 1142.56;
    r.lat.p50 = 1100;
    r.lat.p99 = 1200;
    r.lat.max = 1200;
    ok(adapter_result_check(&r, 1, 0, err) == -1, "p50 1100 below a min of 1142.56 is out of order for an exact tool");
    ok(adapter_result_check(&r, 1, 5, err) == 0, "but not for a tool that rounds to two digits (5 %%): %s", err);
    r.lat.p50 = 1000;
    ok(adapter_result_check(&r, 1, 5, err) == -1, "and p50 1000 below 1142.56 is more than its rounding");
}

static void is_text(const char *in, const char *want, const char *what)
{
    json_t *j = adapter_json_text(in);
    const char *got = json_string_value(j);
    if (!ok(got && !strcmp(got, want), "%s", what))
        diag("  got \"%s\", want \"%s\"", got ? got : "(null)", want);
    json_decref(j);
}

static void test_text(void)
{
    is_text("plain ascii", "plain ascii", "ASCII is kept");
    is_text("caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80", "valid UTF-8 (2 and 4 bytes) is kept");
    is_text("not-a-tool \xff\xfe caf\xe9", "not-a-tool \\xFF\\xFE caf\\xE9", "invalid bytes are escaped, the rest kept");
    is_text("\xc0\xaf", "\\xC0\\xAF", "an overlong form is escaped");
    is_text("\xed\xa0\x80", "\\xED\\xA0\\x80", "a surrogate is escaped");
    is_text("end \xe2\x82", "end \\xE2\\x82", "a sequence cut at the end is escaped");
    json_t *n = adapter_json_text(NULL);
    ok(json_is_null(n), "NULL is JSON null");
    json_decref(n);
}

/* The raw generators with a count per status (hey, oha, Vegeta,
 * autocannon) check: by it. Their real 404 and 200 captures, parsed under
 * check: {status: S}: the responses of S are ok, every other one a status
 * error and a check failure; nothing is lost or counted twice. */
struct raw_capture {
    const struct adapter *a;
    const char *tool, *dir;
    const char *files[3][2];   /* fixture, name in the run directory */
};

static void parse_checked(const struct raw_capture *k, int status, struct adapter_result *r, char *err)
{
    char name[96];
    snprintf(name, sizeof name, "%s-%s-check%d", k->tool, k->dir, status);
    const char *d = fresh_dir(name);
    for (int i = 0; i < 3 && k->files[i][0]; i++)
        put_fixture(k->tool, k->files[i][0], d, k->files[i][1]);
    struct profile p = {0};
    p.check.status = status;
    adapter_result_free(r);
    adapter_result_init(r);
    struct adapter_ctx c = {.profile = &p, .dir = d, .host = "127.0.0.1", .url = "http://127.0.0.1:1/"};
    err[0] = 0;
    if (adapter_parse(k->a, &c, r, err))
        diag("  %s: %s", name, err);
}

static void test_raw_check(void)
{
    static const struct raw_capture caps[] = {
        {&adapter_hey, "hey", "status-404", {{"status-404.stdout.txt", "stdout.txt"}}},
        {&adapter_hey, "hey", "success", {{"success.stdout.txt", "stdout.txt"}}},
        {&adapter_oha, "oha", "status-404", {{"status-404.json", "oha.json"}}},
        {&adapter_vegeta, "vegeta", "status-404",
         {{"status-404.report.json", "report.json"}, {"status-404.results.csv", "results.csv"}}},
        {&adapter_autocannon, "autocannon", "status-404", {{"status-404.json", "stdout.txt"}}},
        {&adapter_autocannon, "autocannon", "success", {{"success.json", "stdout.txt"}}},
    };
    char err[UTIL_ERR_LEN];
    struct adapter_result r;
    adapter_result_init(&r);
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        const struct raw_capture *k = &caps[i];
        int got = strstr(k->dir, "404") ? 404 : 200, other = got == 404 ? 200 : 404;
        ok(k->a->caps & ADAPTER_CHECK, "%s has ADAPTER_CHECK (its own count per status)", k->tool);
        parse_checked(k, got, &r, err);
        uint64_t n = r.requests;
        ok(r.parsed && n > 0 && r.ok == n && r.err_status == 0 && r.check_failed == 0,
           "%s %s under check: {status: %d}: all %llu ok, none failed (ok %llu, status errors %llu)", k->tool,
           k->dir, got, (unsigned long long)n, (unsigned long long)r.ok, (unsigned long long)r.err_status);
        parse_checked(k, other, &r, err);
        ok(r.parsed && r.requests == n && r.ok == 0 && r.err_status == n && r.check_failed == n,
           "%s %s under check: {status: %d}: all %llu fail the check, as status errors (failed %llu)", k->tool,
           k->dir, other, (unsigned long long)n, (unsigned long long)r.check_failed);
    }
    adapter_result_free(&r);
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "/tmp/lb-test-check.XXXXXX");
    if (!mkdtemp(tmproot)) {
        ok(0, "temp dir");
        return done_testing();
    }
    test_bounds();
    test_text();
    test_raw_check();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
