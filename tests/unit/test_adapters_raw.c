/* Unit tests for the raw-benchmarker adapters (wrk, hey, ab, h2load, siege,
 * autocannon, bombardier, httperf, Vegeta, oha): every parser against the real captured output committed
 * under tests/fixtures/<tool>/ (copied into a temp dir under the names
 * prepare() makes the tool write), with the exact figures the fixture
 * READMEs and counts.tsv give; and prepare()'s command lines for a closed
 * load, a ramp (hold phase + warning), an open load (paced, rate
 * converted) and a duration the tool cannot take. */
#include "adapters/adapter.h"
#include "spec/profile.h"
#include "tests/tap.h"
#include "tests/adapter_test.h"
#include "adapters/raw.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct adapter adapter_wrk, adapter_hey, adapter_ab, adapter_h2load, adapter_siege, adapter_autocannon,
    adapter_bombardier;
extern const struct adapter adapter_httperf;
extern const struct adapter adapter_wrk2, adapter_tsung, adapter_vegeta;
extern const struct adapter adapter_oha;

/* ---- helpers ---------------------------------------------------------------- */

static int near(double got, double want, double tol)
{
    return fabs(got - want) <= tol;
}

#define is_num(got, want, ...)                                  \
    do {                                                        \
        double g_ = (got), w_ = (want);                         \
        if (!ok(near(g_, w_, 1e-9 * (fabs(w_) > 1 ? fabs(w_) : 1)), __VA_ARGS__)) \
            diag("  got %.9g, want %.9g", g_, w_);              \
    } while (0)

#define is_nan(got, ...)                                        \
    do {                                                        \
        double g_ = (got);                                      \
        if (!ok(isnan(g_), __VA_ARGS__))                        \
            diag("  got %.9g, want NaN (absent)", g_);          \
    } while (0)

/* The server's count for a fixture run, from tests/fixtures/TOOL/counts.tsv. */
static uint64_t server_count(const char *tool, const char *name)
{
    char path[8192], line[256];
    snprintf(path, sizeof path, "%s/%s/counts.tsv", fixtures, tool);
    FILE *f = fopen(path, "r");
    uint64_t n = UINT64_MAX;
    if (!f)
        return n;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == '\t') {
            char *tab = strchr(line + len + 1, '\t');
            if (tab)
                n = strtoull(tab + 1, NULL, 10);
        }
    fclose(f);
    return n;
}

/* Run a's parser on dir. Returns its return value; r is re-initialised. */
static int parse_dir(const struct adapter *a, const char *dir, const struct profile_load *load,
                     struct adapter_result *r, char *err)
{
    adapter_result_free(r);
    adapter_result_init(r);
    struct adapter_ctx c = {.dir = dir, .load = load, .host = "127.0.0.1", .url = "http://127.0.0.1:1/"};
    err[0] = 0;
    return a->parse(&c, r, err);
}

/* The client count of a tool that stops hard at its deadline: at most one
 * uncounted response per connection below the server's. */
static void within_inflight(uint64_t client, uint64_t server, uint64_t conns, const char *what)
{
    if (!ok(client <= server && server - client <= conns, "%s: client %llu vs server %llu, within %llu in flight",
            what, (unsigned long long)client, (unsigned long long)server, (unsigned long long)conns))
        diag("  difference %lld", (long long)server - (long long)client);
}

/* ---- parsers ----------------------------------------------------------------- */

static void test_wrk(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("wrk-success");
    put_fixture("wrk", "success.json", d, "wrk.json");
    put_fixture("wrk", "success.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_wrk, d, NULL, r, err) == 0 && r->parsed, "wrk success parses (%s)", err);
    is_u64(r->requests, 198969, "wrk success: requests");
    is_u64(r->requests, server_count("wrk", "success"), "wrk success: equal to the server's count");
    is_u64(r->ok, 198969, "wrk success: ok");
    is_u64(r->errors, 0, "wrk success: no errors");
    is_num(r->lat.p50, 0.138, "wrk success: p50 138 µs");
    is_num(r->lat.p95, 1.335, "wrk success: p95");
    is_num(r->lat.p99, 3.343, "wrk success: p99");
    is_num(r->lat.p999, 4.810, "wrk success: p99.9");
    is_num(r->lat.min, 0.016, "wrk success: min");
    is_num(r->lat.max, 7.959, "wrk success: max");
    is_num(r->lat.mean, 0.275725, "wrk success: mean");
    is_num(r->duration_s, 3.001185, "wrk success: duration");
    is_u64(r->bytes_read, 43375242, "wrk success: bytes");

    d = fresh_dir("wrk-404");
    put_fixture("wrk", "status-404.json", d, "wrk.json");
    ok(parse_dir(&adapter_wrk, d, NULL, r, err) == 0, "wrk 404 parses (%s)", err);
    is_u64(r->requests, 114975, "wrk 404: every 404 is a completed request");
    is_u64(r->err_status, 114975, "wrk 404: and a status error");
    is_u64(r->ok, 0, "wrk 404: none ok");
    is_u64(r->errors, 114975, "wrk 404: errors total");
    within_inflight(r->requests, server_count("wrk", "status-404"), 10, "wrk 404");

    d = fresh_dir("wrk-refused");
    put_fixture("wrk", "refused.stdout.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_wrk, d, NULL, r, err) == -1 && !r->parsed, "wrk refused: no result");
    if (!ok(strstr(err, "unable to connect to 127.0.0.1:18399 Connection refused") != NULL,
            "wrk refused: the error quotes wrk"))
        diag("  err: %s", err);

    /* Issue 44, defect 12: a NaN in wrk.json is named as one, not as a
     * done() hook that never ran; a negative count is named negative, not
     * printed as 2^60. */
    d = fresh_dir("wrk-nan");
    char e2[UTIL_ERR_LEN];
    ok(adapter_write(d, "wrk.json", "{\"requests\": nan, \"errors\": {}}\n", e2) == 0, "wrk nan: planted");
    ok(parse_dir(&adapter_wrk, d, NULL, r, err) == -1, "wrk nan: no result");
    if (!ok(strstr(err, "NaN") && !strstr(err, "did not run"), "wrk nan: named NaN, not a hook that never ran"))
        diag("  err: %s", err);
    struct adapter_result neg;
    adapter_result_init(&neg);
    neg.requests = 10;
    neg.errors = ADAPTER_COUNT_NEGATIVE;
    ok(adapter_result_check(&neg, 0.001, 0, err) == -1 && strstr(err, "negative count of errors") &&
           !strstr(err, "1152921504606846976"),
       "a negative error count is named negative, not 2^60 (%s)", err);
    adapter_result_free(&neg);
}

static void test_hey(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("hey-success");
    put_fixture("hey", "success.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_hey, d, NULL, r, err) == 0 && r->parsed, "hey success parses (%s)", err);
    is_u64(r->requests, 77924, "hey success: requests");
    is_u64(r->requests, server_count("hey", "success"), "hey success: equal to the server's count");
    is_u64(r->ok, 77924, "hey success: ok");
    is_u64(r->errors, 0, "hey success: no errors");
    is_num(r->lat.p50, 0.3, "hey success: p50");
    is_num(r->lat.p90, 0.6, "hey success: p90");
    is_num(r->lat.p95, 0.8, "hey success: p95");
    is_num(r->lat.p99, 4.1, "hey success: p99");
    is_num(r->lat.max, 12.4, "hey success: max (Slowest)");
    is_num(r->lat.mean, 0.4, "hey success: mean (Average)");
    is_nan(r->lat.p999, "hey success: no p99.9");
    is_num(r->duration_s, 3.0007, "hey success: duration (Total)");
    is_u64(r->bytes_read, 4987136, "hey success: bytes");

    d = fresh_dir("hey-paced");
    put_fixture("hey", "paced.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_hey, d, NULL, r, err) == 0, "hey paced parses");
    is_u64(r->requests, 600, "hey paced: 10 workers x 20/s x 3 s");
    is_u64(r->requests, server_count("hey", "paced"), "hey paced: equal to the server's count");

    d = fresh_dir("hey-404");
    put_fixture("hey", "status-404.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_hey, d, NULL, r, err) == 0, "hey 404 parses");
    is_u64(r->requests, 38690, "hey 404: requests (any status)");
    is_u64(r->requests, server_count("hey", "status-404"), "hey 404: equal to the server's count");
    is_u64(r->err_status, 38690, "hey 404: non-2xx are status errors");
    is_u64(r->ok, 0, "hey 404: none ok");

    d = fresh_dir("hey-refused");
    put_fixture("hey", "refused.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_hey, d, NULL, r, err) == 0, "hey refused parses (hey exits 0)");
    is_u64(r->requests, 0, "hey refused: no request completed");
    is_u64(r->err_connect, 45148, "hey refused: its error lines are connect errors");
    is_u64(r->errors, 45148, "hey refused: errors total");
    is_nan(r->lat.p50, "hey refused: no latency");
    is_nan(r->lat.mean, "hey refused: no mean (hey prints NaN)");

    d = fresh_dir("hey-empty");
    ok(parse_dir(&adapter_hey, d, NULL, r, err) == -1, "hey with no output: no result (%s)", err);
}

static void test_ab(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("ab-success");
    put_fixture("ab", "success.stdout.txt", d, "stdout.txt");
    put_fixture("ab", "success.percentiles.csv", d, "percentiles.csv");
    ok(parse_dir(&adapter_ab, d, NULL, r, err) == 0 && r->parsed, "ab success parses (%s)", err);
    is_u64(r->requests, 220038, "ab success: requests");
    is_u64(r->errors, 0, "ab success: no errors");
    is_u64(r->ok, 220038, "ab success: ok");
    within_inflight(r->requests, server_count("ab", "success"), 10, "ab success");
    is_num(r->duration_s, 3.0, "ab success: time taken");
    is_u64(r->bytes_read, 47968284, "ab success: bytes");
    /* From the -e CSV (rows 0, 50, 90, 95, 99, 100). */
    is_num(r->lat.min, 0.045, "ab success: min from -e row 0");
    is_num(r->lat.p50, 0.134, "ab success: p50 from -e (the text says 0 ms)");
    is_num(r->lat.p90, 0.169, "ab success: p90");
    is_num(r->lat.p95, 0.183, "ab success: p95");
    is_num(r->lat.p99, 0.262, "ab success: p99");
    is_num(r->lat.max, 4.362, "ab success: max from -e row 100");
    is_nan(r->lat.mean, "ab success: no mean (whole ms only in ab's text)");

    d = fresh_dir("ab-404");
    put_fixture("ab", "status-404.stdout.txt", d, "stdout.txt");
    put_fixture("ab", "status-404.percentiles.csv", d, "percentiles.csv");
    ok(parse_dir(&adapter_ab, d, NULL, r, err) == 0, "ab 404 parses");
    is_u64(r->requests, 178557, "ab 404: requests");
    is_u64(r->err_status, 178557, "ab 404: Non-2xx responses are status errors");
    is_u64(r->ok, 0, "ab 404: none ok");
    within_inflight(r->requests, server_count("ab", "status-404"), 10, "ab 404");
    is_num(r->lat.max, 6.397, "ab 404: max from -e row 100 (the text rounds it to 6 ms)");

    d = fresh_dir("ab-fixed");
    put_fixture("ab", "fixed-count.stdout.txt", d, "stdout.txt");
    put_fixture("ab", "fixed-count.percentiles.csv", d, "percentiles.csv");
    ok(parse_dir(&adapter_ab, d, NULL, r, err) == 0, "ab fixed-count parses");
    is_u64(r->requests, 5000, "ab fixed-count: requests");
    is_u64(r->requests, server_count("ab", "fixed-count"), "ab fixed-count: equal to the server's count");

    d = fresh_dir("ab-refused");
    put_fixture("ab", "refused.stdout.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_ab, d, NULL, r, err) == -1 && !r->parsed, "ab refused: no result");
    if (!ok(strstr(err, "apr_socket_recv: Connection refused (111)") != NULL, "ab refused: the error quotes ab"))
        diag("  err: %s", err);

    /* Fuzz regression (fuzz/corpus/fuzz_parsers/crash-ab-bytes-cast): a byte
     * figure past uint64_t was cast to it (undefined); now it is no figure.
     * hey read its Total data the same way. */
    char path[1024];
    d = fresh_dir("ab-huge-bytes");
    snprintf(path, sizeof path, "%s/stdout.txt", d);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("Complete requests:      10\nFailed requests:        0\n"
              "Total transferred:      99999999999999999999999 bytes\nTime taken for tests:   1.000 seconds\n", f);
        fclose(f);
    }
    ok(parse_dir(&adapter_ab, d, NULL, r, err) == 0 && r->requests == 10 && r->bytes_read == 0,
       "ab: a byte count past 2^64 is dropped, not cast (%s)", err);
    d = fresh_dir("hey-huge-bytes");
    snprintf(path, sizeof path, "%s/stdout.txt", d);
    f = fopen(path, "w");
    if (f) {
        fputs("\nSummary:\n  Total:\t1.0000 secs\n  Total data:\t99999999999999999999999 bytes\n", f);
        fclose(f);
    }
    ok(parse_dir(&adapter_hey, d, NULL, r, err) == 0 && r->bytes_read == 0,
       "hey: a byte count past 2^64 is dropped, not cast (%s)", err);
    /* The same in autocannon's JSON counts (found with fuzz_parsers). */
    json_t *o = json_pack("{s:f, s:f}", "non2xx", 1e300, "total", 7.0);
    ok(adapter_json_count(o, "non2xx") == ADAPTER_COUNT_NEGATIVE && adapter_json_count(o, "total") == 7,
       "adapter_json_count: a count past 2^64 is refused (above ADAPTER_COUNT_MAX), not an undefined cast");
    json_decref(o);
}

/* The value at rank ceil(p/100 * n) of the log's status>0 durations (µs). */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double log_percentile_ms(const char *name, double p, size_t *nout)
{
    char path[8192], line[256];
    snprintf(path, sizeof path, "%s/h2load/%s", fixtures, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    uint64_t *v = NULL;
    size_t n = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long t, us;
        long st;
        if (sscanf(line, "%llu\t%ld\t%llu", &t, &st, &us) == 3 && st > 0) {
            if (n == cap)
                v = util_xrealloc(v, (cap = cap ? cap * 2 : 256) * sizeof *v);
            v[n++] = us;
        }
    }
    fclose(f);
    *nout = n;
    if (!n) {
        free(v);
        return NAN;
    }
    qsort(v, n, sizeof *v, cmp_u64);
    size_t rank = (size_t)ceil(p / 100 * (double)n);
    double ms = (double)v[rank ? rank - 1 : 0] / 1000;
    free(v);
    return ms;
}

static void test_h2load(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("h2-success");
    put_fixture("h2load", "success.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0 && r->parsed, "h2load success parses (%s)", err);
    is_u64(r->requests, 175614, "h2load success: requests (responses)");
    is_u64(r->ok, 175614, "h2load success: ok");
    is_u64(r->errors, 0, "h2load success: no errors");
    within_inflight(r->requests, server_count("h2load", "success"), 10, "h2load success");
    is_num(r->lat.min, 0.033, "h2load success, no log: min from the text (33us)");
    is_num(r->lat.max, 11.67, "h2load success, no log: max from the text (11.67ms)");
    is_num(r->lat.mean, 0.170, "h2load success, no log: mean from the text");
    is_nan(r->lat.p50, "h2load success, no log: no percentiles");
    is_num(r->duration_s, 3.0, "h2load success: finished in 3.00s");
    is_u64(r->bytes_read, 38283852, "h2load success: traffic bytes");

    d = fresh_dir("h2-success-log");
    put_fixture("h2load", "success-log.stdout.txt", d, "stdout.txt");
    put_fixture("h2load", "success-log.log", d, "h2load.log");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0, "h2load success-log parses");
    is_u64(r->requests, 400, "h2load success-log: requests");
    is_u64(r->requests, server_count("h2load", "success-log"), "h2load success-log: equal to the server's count");
    size_t n = 0;
    double p50 = log_percentile_ms("success-log.log", 50, &n), p99 = log_percentile_ms("success-log.log", 99, &n);
    is_u64(n, 400, "h2load success-log: 400 log lines");
    /* The histogram keeps 3 significant digits. */
    if (!ok(near(r->lat.p50, p50, p50 * 0.002 + 1e-9), "h2load success-log: p50 from the log (%.3f ms)", p50))
        diag("  got %.6f", r->lat.p50);
    if (!ok(near(r->lat.p99, p99, p99 * 0.002 + 1e-9), "h2load success-log: p99 from the log (%.3f ms)", p99))
        diag("  got %.6f", r->lat.p99);
    is_num(r->lat.min, 0.092, "h2load success-log: min from the log = the text's 92us");
    is_num(r->lat.max, 1.192, "h2load success-log: max from the log (the text rounds it to 1.19ms)");

    d = fresh_dir("h2-404");
    put_fixture("h2load", "status-404.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0, "h2load 404 parses");
    is_u64(r->requests, 105260, "h2load 404: requests");
    is_u64(r->err_status, 105260, "h2load 404: 4xx are status errors");
    is_u64(r->ok, 0, "h2load 404: none ok");
    within_inflight(r->requests, server_count("h2load", "status-404"), 10, "h2load 404");

    d = fresh_dir("h2-404-log");
    put_fixture("h2load", "status-404-log.stdout.txt", d, "stdout.txt");
    put_fixture("h2load", "status-404-log.log", d, "h2load.log");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0, "h2load 404-log parses");
    is_u64(r->requests, 50, "h2load 404-log: requests");
    is_u64(r->err_status, 50, "h2load 404-log: status errors");
    p50 = log_percentile_ms("status-404-log.log", 50, &n);
    ok(near(r->lat.p50, p50, p50 * 0.002), "h2load 404-log: p50 from the log (%.3f ms)", p50);

    d = fresh_dir("h2-paced");
    put_fixture("h2load", "paced.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0, "h2load paced parses");
    is_u64(r->requests, 600, "h2load paced: 10 clients x 20/s x 3 s");
    is_u64(r->requests, server_count("h2load", "paced"), "h2load paced: equal to the server's count");

    d = fresh_dir("h2-refused");
    put_fixture("h2load", "refused.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0, "h2load refused parses (exit 0, all zeros)");
    is_u64(r->requests, 0, "h2load refused: requests 0 (the harness marks it failed)");
    is_nan(r->lat.p50, "h2load refused: no latency");
    is_nan(r->lat.mean, "h2load refused: no mean (not the text's 0us)");
    ok(has_warning(&r->warnings, "sent no request"), "h2load refused: a warning says it sent nothing");

    d = fresh_dir("h2-refused-log");
    put_fixture("h2load", "refused-log.stdout.txt", d, "stdout.txt");
    put_fixture("h2load", "refused-log.log", d, "h2load.log");
    ok(parse_dir(&adapter_h2load, d, NULL, r, err) == 0 && r->requests == 0, "h2load refused-log: requests 0");
}

static void test_siege(struct adapter_result *r, const struct profile_load *load3s)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("siege-success");
    put_fixture("siege", "success.json.txt", d, "stdout.txt");
    put_fixture("siege", "success.stderr.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_siege, d, load3s, r, err) == 0 && r->parsed, "siege success parses (%s)", err);
    is_u64(r->requests, 49044, "siege success: transactions");
    is_u64(r->ok, 49044, "siege success: ok");
    is_u64(r->errors, 0, "siege success: no errors");
    within_inflight(r->requests, server_count("siege", "success"), 10, "siege success");
    is_num(r->lat.mean, 0.0, "siege success: mean 0.00 s");
    is_num(r->lat.max, 10.0, "siege success: longest 0.01 s");
    is_nan(r->lat.p50, "siege success: no percentiles");
    is_num(r->duration_s, 2.65, "siege success: elapsed_time");
    ok(has_warning(&r->warnings, "stopped after 2.65 s of the 3 s"), "siege success: its early stop is a warning");

    d = fresh_dir("siege-404");
    put_fixture("siege", "status-404.json.txt", d, "stdout.txt");
    put_fixture("siege", "status-404.stderr.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_siege, d, NULL, r, err) == 0, "siege 404 parses");
    is_u64(r->requests, 42522, "siege 404: transactions");
    is_u64(r->ok, 0, "siege 404: none successful");
    is_u64(r->err_status, 42522, "siege 404: status errors = transactions - successful");
    within_inflight(r->requests, server_count("siege", "status-404"), 10, "siege 404");

    d = fresh_dir("siege-refused");
    put_fixture("siege", "refused.json.txt", d, "stdout.txt");
    put_fixture("siege", "refused.stderr.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_siege, d, NULL, r, err) == 0, "siege refused parses (exit 0)");
    is_u64(r->requests, 0, "siege refused: no transaction");
    is_u64(r->err_connect, 1033, "siege refused: failed_transactions are connect errors (stderr)");
    is_u64(r->errors, 1033, "siege refused: errors total");
    ok(has_warning(&r->warnings, "gave up after 1033 socket failures"), "siege refused: its give-up is a warning");
}

static void test_autocannon(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("ac-success");
    put_fixture("autocannon", "success.json", d, "stdout.txt");
    put_fixture("autocannon", "success.stderr.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_autocannon, d, NULL, r, err) == 0 && r->parsed, "autocannon success parses (%s)", err);
    is_u64(r->requests, 71691, "autocannon success: requests.total");
    is_u64(r->ok, 71691, "autocannon success: 2xx");
    is_u64(r->errors, 0, "autocannon success: no errors");
    within_inflight(r->requests, server_count("autocannon", "success"), 10, "autocannon success");
    is_num(r->lat.p50, 0, "autocannon success: p50 0 ms");
    is_num(r->lat.p99, 1, "autocannon success: p99 1 ms");
    is_num(r->lat.p999, 4, "autocannon success: p99.9");
    is_num(r->lat.max, 28, "autocannon success: max");
    is_num(r->lat.min, 0, "autocannon success: min 0 (its own min skips zeros)");
    is_nan(r->lat.p95, "autocannon success: p95 absent");
    json_t *p975 = json_object_get(json_object_get(r->extra, "latency"), "p97_5");
    ok(json_is_number(p975) && json_number_value(p975) == 0, "autocannon success: p97.5 kept in the tool output");
    is_num(r->duration_s, 3.02, "autocannon success: duration");

    d = fresh_dir("ac-rate");
    put_fixture("autocannon", "rate.json", d, "stdout.txt");
    ok(parse_dir(&adapter_autocannon, d, NULL, r, err) == 0, "autocannon rate parses");
    is_u64(r->requests, 668, "autocannon rate: requests.total (not sent, not latency.totalCount)");
    within_inflight(r->requests, server_count("autocannon", "rate"), 10, "autocannon rate");
    ok(has_warning(&r->warnings, "1204 samples for 668 responses"), "autocannon rate: the latency count is flagged");
    is_nan(r->lat.p50, "autocannon rate: and its latency left absent");

    d = fresh_dir("ac-404");
    put_fixture("autocannon", "status-404.json", d, "stdout.txt");
    ok(parse_dir(&adapter_autocannon, d, NULL, r, err) == 0, "autocannon 404 parses");
    is_u64(r->requests, 34058, "autocannon 404: requests");
    is_u64(r->err_status, 34058, "autocannon 404: non2xx are status errors");
    is_u64(r->ok, 0, "autocannon 404: none ok");
    within_inflight(r->requests, server_count("autocannon", "status-404"), 10, "autocannon 404");

    d = fresh_dir("ac-refused");
    put_fixture("autocannon", "refused.json", d, "stdout.txt");
    ok(parse_dir(&adapter_autocannon, d, NULL, r, err) == 0, "autocannon refused parses (exit 0)");
    is_u64(r->requests, 0, "autocannon refused: no response");
    is_u64(r->err_connect, 12290, "autocannon refused: its errors are connect errors");
    is_nan(r->lat.p50, "autocannon refused: no latency (not its zeros)");

    d = fresh_dir("ac-garbage");
    char path[600];
    snprintf(path, sizeof path, "%s/stdout.txt", d);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("{\"url\": \"http://x/\", \"requests\":", f);
        fclose(f);
    }
    ok(parse_dir(&adapter_autocannon, d, NULL, r, err) == -1, "autocannon truncated JSON: no result (%s)", err);
}

/* bombardier v1.2.6 from the Go module proxy (tests/fixtures/bombardier/,
 * README.md there): counts equal to the server's, latency in µs. */
static void test_bombardier(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("bb-success");
    put_fixture("bombardier", "success.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_bombardier, d, NULL, r, err) == 0 && r->parsed, "bombardier success parses (%s)", err);
    is_u64(r->requests, 137482, "bombardier success: requests = req2xx");
    is_u64(r->requests, server_count("bombardier", "success"), "bombardier success: = the server's count");
    is_u64(r->ok, 137482, "bombardier success: 2xx ok");
    is_u64(r->errors, 0, "bombardier success: no errors");
    is_num(r->lat.p50, 0.199, "bombardier success: p50 199 us in ms");
    is_num(r->lat.p95, 0.358, "bombardier success: p95");
    is_num(r->lat.p99, 0.611, "bombardier success: p99");
    is_num(r->lat.max, 26.869, "bombardier success: max");
    is_num(r->lat.mean, 0.2169643371495905, "bombardier success: mean");
    is_nan(r->lat.min, "bombardier success: no min");
    is_nan(r->lat.p999, "bombardier success: no p99.9");
    is_num(r->duration_s, 2.999952761, "bombardier success: timeTakenSeconds");
    is_u64(r->bytes_read, 29971076, "bombardier success: bytesRead");
    ok(r->warnings.n == 0, "bombardier success: no warnings");

    d = fresh_dir("bb-delay");
    put_fixture("bombardier", "delay-20ms-paced.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_bombardier, d, NULL, r, err) == 0, "bombardier paced 20 ms parses");
    is_u64(r->requests, 301, "bombardier --rate 100 x 3 s: 301 requests (its bucket starts with one)");
    char path[8192];
    snprintf(path, sizeof path, "%s/bombardier/counts-delay.tsv", fixtures);
    FILE *f = fopen(path, "r");
    char line[256];
    int seen = 0;
    while (f && fgets(line, sizeof line, f))
        seen |= !strcmp(line, "delay-20ms-paced\t0\t301\n");
    if (f)
        fclose(f);
    ok(seen, "bombardier paced 20 ms: lb-target counted 301 too");
    is_num(r->lat.p50, 20.127, "bombardier paced 20 ms: p50 just above the 20 ms delay");

    d = fresh_dir("bb-404");
    put_fixture("bombardier", "status-404.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_bombardier, d, NULL, r, err) == 0, "bombardier 404 parses");
    is_u64(r->requests, 86790, "bombardier 404: requests");
    is_u64(r->requests, server_count("bombardier", "status-404"), "bombardier 404: = the server's count");
    is_u64(r->err_status, 86790, "bombardier 404: 4xx are status errors");
    is_u64(r->ok, 0, "bombardier 404: none ok");

    d = fresh_dir("bb-refused");
    put_fixture("bombardier", "refused.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_bombardier, d, NULL, r, err) == 0, "bombardier refused parses (exit 0)");
    is_u64(r->requests, 0, "bombardier refused: no response (its \"others\" are the failed requests)");
    is_u64(r->err_connect, 53775, "bombardier refused: connect errors from the error description");
    is_u64(r->errors, 53775, "bombardier refused: and nothing else");
    is_nan(r->lat.p50, "bombardier refused: no latency (its figures time the failures)");

    d = fresh_dir("bb-text");
    put_fixture("bombardier", "success-text.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_bombardier, d, NULL, r, err) == -1 && strstr(err, "-o json"),
       "bombardier text output: no result, the error names -o json (%s)", err);
}

/* ---- prepare ----------------------------------------------------------------- */

static void prepare(const struct adapter *a, struct profile *p, size_t ti, struct prepared *out)
{
    struct adapter_found found;
    memset(&found, 0, sizeof found);
    snprintf(found.path, sizeof found.path, "/usr/bin/%s", a->name);
    snprintf(found.version, sizeof found.version, "test");
    prepare_found(a, p, ti, &found, out);
}

static int file_in(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

static void test_prepare(void)
{
    struct prepared P;
    struct profile *p = load_profile("load: {connections: 50, duration: 10s}\n"
                                     "tools: [wrk, hey, ab, h2load, siege, autocannon]\n"
                                     "cpus: {target: [1], tool: [0]}\n");
    if (!p)
        return;
    prepare(&adapter_wrk, p, 0, &P);
    ok(P.rc == 0, "wrk closed: prepared (%s)", P.err);
    is_str(P.argv, "-t1 -c50 -d10s --latency -s done.lua http://127.0.0.1:8080/",
           "wrk closed: one thread per pinned CPU, connections, duration, the done() hook");
    ok(P.plan.env.n == 1 && !strcmp(P.plan.env.v[0], "LB_WRK_OUT=wrk.json"), "wrk closed: LB_WRK_OUT names wrk.json");
    ok(file_in(P.dir, "done.lua"), "wrk closed: done.lua copied into the run directory");
    is_str(P.plan.model, "closed", "wrk closed: model closed");
    is_u64(P.plan.load_ns, 10000000000ull, "wrk closed: load 10 s");
    is_u64(P.plan.warnings.n, 0, "wrk closed: no warning");
    adapter_plan_free(&P.plan);

    prepare(&adapter_hey, p, 1, &P);
    is_str(P.argv, "-z 10s -c 50 http://127.0.0.1:8080/", "hey closed: -z -c");
    is_str(P.plan.model, "closed", "hey closed: model closed");
    adapter_plan_free(&P.plan);

    prepare(&adapter_ab, p, 2, &P);
    is_str(P.argv, "-k -c 50 -t 10 -n 10000000 -e percentiles.csv http://127.0.0.1:8080/",
           "ab closed: -k -c, -t then a large -n, -e");
    adapter_plan_free(&P.plan);

    prepare(&adapter_h2load, p, 3, &P);
    is_str(P.argv, "--h1 -c 50 -t 1 -D 10s --log-file=h2load.log http://127.0.0.1:8080/",
           "h2load closed: --h1 -c -t -D, per-request log, no warm-up");
    adapter_plan_free(&P.plan);

    prepare(&adapter_siege, p, 4, &P);
    is_str(P.argv, "-R siegerc -c 50 -t 10S http://127.0.0.1:8080/", "siege closed: -R rc -c -t");
    ok(file_in(P.dir, "siegerc"), "siege closed: the rc file copied into the run directory");
    ok(P.plan.env.n == 1 && !strncmp(P.plan.env.v[0], "HOME=/", 6) && strstr(P.plan.env.v[0], "/home"),
       "siege closed: an absolute HOME in the run directory (%s)", P.plan.env.n ? P.plan.env.v[0] : "none");
    ok(has_warning(&P.plan.warnings, "no latency percentiles"), "siege closed: says it has no percentiles");
    ok(!has_warning(&P.plan.warnings, "JoeDog/siege#66"), "siege 50 users: no end-of-run hang warning");
    adapter_plan_free(&P.plan);
    {
        /* Debian 12's siege 4.0.7 hung at the end of study 2's 1000-user run. */
        struct profile *p1k = load_profile("load: {connections: 1000, duration: 10s}\ntools: [siege]\n");
        struct adapter_found f;
        memset(&f, 0, sizeof f);
        snprintf(f.path, sizeof f.path, "/usr/bin/siege");
        snprintf(f.version, sizeof f.version, "4.0.7-1+b1");
        prepare_found(&adapter_siege, p1k, 0, &f, &P);
        ok(has_warning(&P.plan.warnings, "JoeDog/siege#66"), "siege 4.0.7, 1000 users: warns of the end-of-run hang");
        adapter_plan_free(&P.plan);
        snprintf(f.version, sizeof f.version, "4.1.6");
        prepare_found(&adapter_siege, p1k, 0, &f, &P);
        ok(!has_warning(&P.plan.warnings, "JoeDog/siege#66"), "siege 4.1.6, 1000 users: fixed there, no warning");
        adapter_plan_free(&P.plan);
        profile_free(p1k);
    }

    prepare(&adapter_autocannon, p, 5, &P);
    is_str(P.argv, "-j -c 50 -d 10 http://127.0.0.1:8080/", "autocannon closed: -j -c -d");
    ok(P.plan.startup_allowance_ns >= 1000000000ull, "autocannon closed: node start-up allowed for");
    adapter_plan_free(&P.plan);
    profile_free(p);

    /* A ramp: the hold phase, with a warning. */
    p = load_profile("load:\n"
                     "  stages:\n"
                     "    - {duration: 10s, target: 100}\n"
                     "    - {duration: 30s, target: 100}\n"
                     "    - {duration: 5s, target: 0}\n"
                     "tools: [wrk, hey]\n"
                     "cpus: {target: [0], tool: [1, 2]}\n");
    if (p) {
        prepare(&adapter_wrk, p, 0, &P);
        is_str(P.argv, "-t2 -c100 -d30s --latency -s done.lua http://127.0.0.1:8080/",
               "wrk ramp: the hold phase (100 connections, 30 s), two threads for two CPUs");
        if (!ok(has_warning(&P.plan.warnings, "ramp not supported by wrk: held 100 connections for 30s (the hold phase)"),
                "wrk ramp: a warning says so"))
            diag("  %s", P.plan.warnings.n ? P.plan.warnings.v[0] : "(none)");
        is_u64(P.plan.load_ns, 30000000000ull, "wrk ramp: load_ns is the hold phase");
        adapter_plan_free(&P.plan);
        prepare(&adapter_hey, p, 1, &P);
        ok(has_warning(&P.plan.warnings, "ramp not supported by hey"), "hey ramp: a warning too");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* A ramp with no constant stage: its longest stage, said so. */
    p = load_profile("load:\n  stages:\n    - {duration: 10s, target: 50}\n    - {duration: 20s, target: 100}\n"
                     "tools: [ab]\n");
    if (p) {
        prepare(&adapter_ab, p, 0, &P);
        ok(strstr(P.argv, "-c 100 -t 20 ") != NULL, "ab, ramp without a hold: the longest stage (%s)", P.argv);
        ok(has_warning(&P.plan.warnings, "the longest stage: the load has no constant stage"),
           "ab, ramp without a hold: the warning says which stage ran");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* Fewer connections than CPUs: never more threads than connections. */
    p = load_profile("load: {connections: 1, duration: 2s}\ntools: [wrk, h2load]\ncpus: {target: [0], tool: [1, 2]}\n");
    if (p) {
        prepare(&adapter_wrk, p, 0, &P);
        ok(strstr(P.argv, "-t1 -c1 ") != NULL, "wrk: 1 connection, 1 thread (%s)", P.argv);
        adapter_plan_free(&P.plan);
        prepare(&adapter_h2load, p, 1, &P);
        ok(strstr(P.argv, "-c 1 -t 1 ") != NULL, "h2load: 1 client, 1 thread (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* An open load: paced where the tool has a rate knob, refused where not. */
    p = load_profile("load: {model: open, rate: 1000, duration: 5s}\n"
                     "tools: [hey, {tool: hey, label: hey10, options: {connections: \"10\"}}, autocannon, h2load, wrk, ab, "
                     "siege]\n");
    if (p) {
        prepare(&adapter_hey, p, 0, &P);
        is_str(P.argv, "-z 5s -c 50 -q 20 http://127.0.0.1:8080/", "hey open: 50 workers x -q 20 = 1000/s");
        is_str(P.plan.model, "paced", "hey open: model paced, not open");
        ok(has_warning(&P.plan.warnings, "per worker"), "hey open: the warning says -q is per worker");
        adapter_plan_free(&P.plan);
        prepare(&adapter_hey, p, 1, &P);
        is_str(P.argv, "-z 5s -c 10 -q 100 http://127.0.0.1:8080/", "hey open, 10 workers: -q 100");
        adapter_plan_free(&P.plan);
        prepare(&adapter_autocannon, p, 2, &P);
        is_str(P.argv, "-j -c 50 -d 5 -R 1000 http://127.0.0.1:8080/", "autocannon open: -R is the total rate");
        is_str(P.plan.model, "paced", "autocannon open: model paced");
        adapter_plan_free(&P.plan);
        prepare(&adapter_h2load, p, 3, &P);
        ok(strstr(P.argv, "-c 50 ") && strstr(P.argv, "--rps=20 "), "h2load open: --rps per client (%s)", P.argv);
        is_str(P.plan.model, "paced", "h2load open: model paced");
        adapter_plan_free(&P.plan);
        for (size_t i = 4; i < 7; i++) {
            const struct adapter *a = i == 4 ? &adapter_wrk : i == 5 ? &adapter_ab : &adapter_siege;
            prepare(a, p, i, &P);
            ok(P.rc == -1 && strstr(P.err, "closed model only"), "%s open: refused with a reason (%s)", a->name, P.err);
            adapter_plan_free(&P.plan);
        }
        profile_free(p);
    }
    p = load_profile("load: {model: open, rate: 1000, duration: 5s, max_inflight: 200}\ntools: [hey]\n");
    if (p) {
        prepare(&adapter_hey, p, 0, &P);
        is_str(P.argv, "-z 5s -c 200 -q 5 http://127.0.0.1:8080/", "hey open, max_inflight 200: -c 200 -q 5");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* A duration the tool cannot take. */
    p = load_profile("load: {connections: 10, duration: 1500ms, timeout: 5s}\ntools: [wrk, hey, h2load]\n");
    if (p) {
        prepare(&adapter_wrk, p, 0, &P);
        ok(strstr(P.argv, "-d2s --timeout=5s") != NULL, "wrk 1500ms: whole seconds, timeout passed (%s)", P.argv);
        ok(has_warning(&P.plan.warnings, "wrk takes whole seconds: duration 1500ms rounded to 2s"),
           "wrk 1500ms: the rounding is a warning");
        is_u64(P.plan.load_ns, 2000000000ull, "wrk 1500ms: load_ns is what wrk will run");
        adapter_plan_free(&P.plan);
        prepare(&adapter_hey, p, 1, &P);
        is_str(P.argv, "-z 1500ms -c 10 -t 5 http://127.0.0.1:8080/", "hey 1500ms: Go durations take it as is");
        adapter_plan_free(&P.plan);
        prepare(&adapter_h2load, p, 2, &P);
        ok(strstr(P.argv, "-D 1500ms") != NULL, "h2load 1500ms: -D takes ms (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* bombardier: Go durations as they are, JSON result with latencies;
     * a rate is --rate on the same closed connections. */
    p = load_profile("load: {connections: 20, duration: 1500ms, timeout: 5s}\ntools: [bombardier]\n");
    if (p) {
        prepare(&adapter_bombardier, p, 0, &P);
        is_str(P.argv, "-c 20 -d 1500ms -t 5s -l -o json -p r http://127.0.0.1:8080/",
               "bombardier closed: -c -d (1500ms as is) -t, -l -o json -p r");
        is_str(P.plan.model, "closed", "bombardier closed: model closed");
        is_u64(P.plan.load_ns, 1500000000ull, "bombardier closed: load 1.5 s");
        is_u64(P.plan.warnings.n, 0, "bombardier closed: no warning");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {model: open, rate: 300, duration: 5s}\n"
                     "tools: [bombardier, {tool: bombardier, label: b8, options: {connections: \"8\"}}]\n");
    if (p) {
        prepare(&adapter_bombardier, p, 0, &P);
        is_str(P.argv, "-c 125 -d 5s --rate=300 -l -o json -p r http://127.0.0.1:8080/",
               "bombardier open: --rate is the total rate, its default 125 connections");
        is_str(P.plan.model, "paced", "bombardier open: model paced");
        ok(has_warning(&P.plan.warnings, "paced, not open"), "bombardier open: the warning says paced");
        adapter_plan_free(&P.plan);
        prepare(&adapter_bombardier, p, 1, &P);
        ok(strstr(P.argv, "-c 8 ") != NULL, "bombardier open, option connections 8: -c 8 (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* A paced-only option on a closed load is not silently ignored. */
    p = load_profile("load: {connections: 10, duration: 2s}\ntools: [{tool: hey, options: {connections: \"5\"}}]\n");
    if (p) {
        prepare(&adapter_hey, p, 0, &P);
        ok(strstr(P.argv, "-c 10 ") && has_warning(&P.plan.warnings, "open-model load only"),
           "hey closed with option connections: the load's 10, and a warning (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }

    /* Options are checked. */
    p = load_profile("load: {connections: 10, duration: 2s}\ntools: [{tool: wrk, options: {threads: \"zero\"}}]\n");
    if (p) {
        prepare(&adapter_wrk, p, 0, &P);
        ok(P.rc == -1 && strstr(P.err, "t.yaml:2:") && strstr(P.err, "options.threads"),
           "wrk bad threads option: a located error (%s)", P.err);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
}

/* httperf: tests/fixtures/httperf/ (README.md there). One request per
 * connection; no percentiles; counts equal to the server's (it waits for
 * every connection it issued). */
static void test_httperf(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    ok(adapter_by_name("httperf") == &adapter_httperf && adapter_httperf.caps == (ADAPTER_OPEN | ADAPTER_TLS),
       "httperf is registered, open model only (HTTPS with --ssl)");
    struct profile_stage s = {.duration_ns = 3000000000ull, .target = 500};
    struct profile_load l = {.model = LOAD_OPEN, .nstages = 1, .stages = &s};
    const char *d = fresh_dir("httperf-success");
    put_fixture("httperf", "success.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_httperf, d, &l, r, err) == 0 && r->parsed, "httperf success parses (%s)", err);
    is_u64(r->requests, 1500, "httperf success: replies");
    is_u64(r->requests, server_count("httperf", "success"), "httperf success: equal to the server's count");
    is_u64(r->ok, 1500, "httperf success: 2xx");
    is_u64(r->errors, 0, "httperf success: no errors");
    is_num(r->duration_s, 3.013, "httperf success: test-duration");
    is_num(r->lat.min, 0.1, "httperf success: min connection time");
    is_num(r->lat.mean, 7.2, "httperf success: avg");
    is_num(r->lat.p50, 3.5, "httperf success: median (1 ms bin centre)");
    is_num(r->lat.max, 33.2, "httperf success: max");
    is_nan(r->lat.p90, "httperf success: no p90");
    is_nan(r->lat.p99, "httperf success: no p99 (never an estimate)");
    is_nan(r->lat.p999, "httperf success: no p99.9");
    is_u64(r->bytes_read, 1500 * 218, "httperf success: bytes (header + content per reply)");
    is_u64(r->warnings.n, 0, "httperf success: kept its rate, no warning");
    is_num(adapter_json_num(r->extra, "max_open_connections"), 26, "httperf success: its most connections open");
    ok(adapter_result_check(r, adapter_httperf.latency_resolution_ms, 0, err) == 0, "httperf success: in bounds");

    d = fresh_dir("httperf-404");
    put_fixture("httperf", "status-404.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_httperf, d, NULL, r, err) == 0, "httperf 404 parses (%s)", err);
    is_u64(r->requests, 1000, "httperf 404: every 4xx a completed request");
    is_u64(r->err_status, 1000, "httperf 404: and a status error");
    is_u64(r->ok, 0, "httperf 404: none ok");
    is_u64(r->requests, server_count("httperf", "status-404"), "httperf 404: equal to the server's count");

    d = fresh_dir("httperf-refused");
    put_fixture("httperf", "refused.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_httperf, d, NULL, r, err) == 0, "httperf refused parses (%s)", err);
    is_u64(r->requests, 0, "httperf refused: no reply");
    is_u64(r->err_connect, 200, "httperf refused: 200 connect errors");
    is_u64(r->errors, 200, "httperf refused: errors total");
    is_nan(r->lat.min, "httperf refused: no latency (its 0.0 is not a measurement)");
    is_nan(r->lat.mean, "httperf refused: no mean");

    s.target = 200000;
    s.duration_ns = 500000000ull;
    d = fresh_dir("httperf-fdcap");
    put_fixture("httperf", "fd-cap.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_httperf, d, &l, r, err) == 0, "httperf fd-cap parses (%s)", err);
    is_u64(r->requests, 1020, "httperf fd-cap: 1020 replies");
    is_u64(r->requests, server_count("httperf", "fd-cap"), "httperf fd-cap: equal to the server's count");
    is_u64(r->err_connect, 98980, "httperf fd-cap: fd-unavail counted as connections never opened");
    ok(has_warning(&r->warnings, "could not open 98980 of its 100000 connections"),
       "httperf fd-cap: warns that it ran out of descriptors");
    /* It tried each connection on time (a failed open is instant): no
     * "fell behind" on top. */
    ok(!has_warning(&r->warnings, "fell behind its rate"), "httperf fd-cap: its attempts kept the rate");

    d = fresh_dir("httperf-delay");
    put_fixture("httperf", "delay-20ms.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_httperf, d, NULL, r, err) == 0, "httperf delay-20ms parses (%s)", err);
    is_u64(r->requests, 600, "httperf delay-20ms: 600 replies");
    is_num(r->lat.min, 10.0, "httperf delay-20ms: min 10.0 ms below the 20 ms delay: its cached clock, as printed");

    d = fresh_dir("httperf-empty");
    ok(parse_dir(&adapter_httperf, d, NULL, r, err) == -1 && strstr(err, "no summary"),
       "httperf without output: no result (%s)", err);

    struct prepared P;
    struct profile *p = load_profile("target: {delay: 20ms}\n"
                                     "load: {model: open, rate: 250, duration: 4s}\n"
                                     "tools: [httperf]\n");
    if (p) {
        prepare(&adapter_httperf, p, 0, &P);
        is_str(P.argv, "--server=127.0.0.1 --port=8080 --uri=/ --rate=250 --num-conns=1000 --num-calls=1",
               "httperf open: --rate connections/s, rate x duration connections, one call each");
        is_str(P.plan.model, "open", "httperf open: model open");
        is_u64(P.plan.load_ns, 4000000000ull, "httperf open: load 4 s");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("target: {delay: 1s}\nload: {model: open, rate: 2000, duration: 4s}\ntools: [httperf]\n");
    if (p) {
        prepare(&adapter_httperf, p, 0, &P);
        ok(P.rc == -1 && strstr(P.err, "select()"), "httperf: 2000/s x 1 s open at once refused (%s)", P.err);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("target: {delay: 1s}\nload: {model: open, rate: 700, duration: 4s}\ntools: [httperf]\n");
    if (p) {
        prepare(&adapter_httperf, p, 0, &P);
        ok(P.rc == 0 && has_warning(&P.plan.warnings, "connections open at once"),
           "httperf: ~700 open at once warned (%s)", P.err);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
}

/* wrk2: its real output (tests/fixtures/wrk2/), and what prepare refuses. */
static void test_wrk2(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("wrk2-delay");
    put_fixture("wrk2", "delay-20ms.json", d, "wrk.json");
    put_fixture("wrk2", "delay-20ms.stdout.txt", d, "stdout.txt");
    ok(parse_dir(&adapter_wrk2, d, NULL, r, err) == 0 && r->parsed, "wrk2 delay parses (%s)", err);
    is_u64(r->requests, 3002, "wrk2 delay: requests over the whole run, calibration included");
    within_inflight(r->requests, server_count("wrk2", "delay-20ms"), 10, "wrk2 delay");
    is_u64(r->errors, 0, "wrk2 delay: no errors");
    is_num(r->lat.p50, 20.831, "wrk2 delay: corrected p50 from the hook, µs");
    is_num(r->lat.p999, 23.823, "wrk2 delay: corrected p99.9");
    is_num(r->lat.min, 20.048, "wrk2 delay: min");
    is_num(r->lat_uncorrected.p50, 20.08, "wrk2 delay: uncorrected p50 from -U's text");
    is_num(r->lat_uncorrected.p99, 20.77, "wrk2 delay: uncorrected p99");
    is_num(r->lat_uncorrected.p999, 22.37, "wrk2 delay: uncorrected p99.9");
    is_num(r->lat_uncorrected.max, 22.50, "wrk2 delay: uncorrected max (100 %%)");
    is_nan(r->lat_uncorrected.p95, "wrk2 delay: -U prints no p95: absent");
    d = fresh_dir("wrk2-refused");
    put_fixture("wrk2", "refused.stdout.txt", d, "stderr.txt");
    ok(parse_dir(&adapter_wrk2, d, NULL, r, err) == -1 && strstr(err, "wrk2 sent nothing: unable to connect"),
       "wrk2 refused: no result, wrk2's words (%s)", err);

    struct profile *p = load_profile("load: {model: open, rate: 200, duration: 40s}\n"
                                     "tools: [{tool: wrk2, options: {threads: 3, connections: 10}},\n"
                                     "        {tool: wrk2, label: short, load: {model: open, rate: 200, duration: 25s}},\n"
                                     "        {tool: wrk2, label: closed, load: {connections: 10, duration: 40s}}]\n");
    if (!p)
        return;
    struct prepared P;
    prepare(&adapter_wrk2, p, 0, &P);
    is_str(P.argv, "-t3 -c12 -d40s -R200 -U -s done.lua http://127.0.0.1:8080/", "wrk2: -R, connections x threads");
    ok(has_warning(&P.plan.warnings, "rounded up to 12"), "wrk2: says it rounded 10 connections up");
    ok(has_warning(&P.plan.warnings, "calibration"), "wrk2: says its percentiles follow calibration");
    uint64_t hs = 0, he = 0;
    ok(P.plan.as_run && profile_hold_window(P.plan.as_run, &hs, &he) == 0 && hs == 10020000000ull &&
           he == 40000000000ull, "wrk2: the hold window starts after 10 s + 5 ms x 4 (%llu..%llu ns)",
       (unsigned long long)hs, (unsigned long long)he);
    adapter_plan_free(&P.plan);
    prepare(&adapter_wrk2, p, 1, &P);
    ok(P.rc == -1 && strstr(P.err, "calibrates"), "wrk2 25 s at 200 connections: refused (%s)", P.err);
    adapter_plan_free(&P.plan);
    prepare(&adapter_wrk2, p, 2, &P);
    ok(P.rc == -1 && strstr(P.err, "constant request rate"), "wrk2 closed: refused (%s)", P.err);
    adapter_plan_free(&P.plan);
    profile_free(p);
}

/* Tsung: its real tsung.log (tests/fixtures/tsung/), under log/<date>/ as
 * it writes it; refused connects counted once per user, not per retry. */
static void test_tsung(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN], sub[700];
    const char *d = fresh_dir("tsung-delay");
    snprintf(sub, sizeof sub, "%s/log/20261203-0930", d);
    ok(fsutil_mkdir_p(sub, err) == 0, "tsung: log dir");
    put_fixture("tsung", "delay-20ms.tsung.log", sub, "tsung.log");
    ok(parse_dir(&adapter_tsung, d, NULL, r, err) == 0 && r->parsed, "tsung delay parses (%s)", err);
    is_u64(r->requests, 491, "tsung delay: requests = the 200s' total");
    is_u64(r->requests, server_count("tsung", "delay-20ms"), "tsung delay: = the server's count");
    is_u64(r->errors, 0, "tsung delay: no errors");
    is_num(r->lat.mean, (407 * 21.161601965601943 + 84 * 21.291976190476188) / 491, "tsung delay: mean over dumps");
    is_num(r->lat.min, 20.391, "tsung delay: min");
    is_num(r->lat.max, 26.011, "tsung delay: max");
    is_nan(r->lat.p50, "tsung delay: no p50 (never an estimate)");
    is_nan(r->lat.p99, "tsung delay: no p99");
    d = fresh_dir("tsung-refused");
    snprintf(sub, sizeof sub, "%s/log/20261203-0931", d);
    fsutil_mkdir_p(sub, err);
    put_fixture("tsung", "refused.tsung.log", sub, "tsung.log");
    ok(parse_dir(&adapter_tsung, d, NULL, r, err) == 0, "tsung refused parses (%s)", err);
    is_u64(r->err_connect, 465, "tsung refused: one connect error per user given up, not per retry");
    is_u64(r->requests, 0, "tsung refused: no requests");
    d = fresh_dir("tsung-none");
    ok(parse_dir(&adapter_tsung, d, NULL, r, err) == -1, "tsung without a log: no result (%s)", err);
}

/* Vegeta: tests/fixtures/vegeta/ (v12.13.0) and tests/fixtures/vegeta/v12.8.4/
 * (README.md in each): NAME.results.csv and NAME.report.json are what its
 * wrapper leaves as results.csv and report.json. Counts from the CSV rows,
 * equal to the server's; exact nearest-rank percentiles in ms from the ns
 * column (not the JSON report's t-digest: v12.13.0's closed p50 is 0.100986
 * there, 0.100970 the rows'). */
static int vegeta_dir(const char *folder, const char *name, struct adapter_result *r, char *err)
{
    char src[128], dname[96];
    snprintf(dname, sizeof dname, "vg-%s-%s", folder[6] ? folder + 7 : "live", name);
    const char *d = fresh_dir(dname);
    snprintf(src, sizeof src, "%s.results.csv", name);
    put_fixture(folder, src, d, "results.csv");
    snprintf(src, sizeof src, "%s.report.json", name);
    put_fixture(folder, src, d, "report.json");
    return parse_dir(&adapter_vegeta, d, NULL, r, err);
}

/* What one version's fixtures hold (README.md there; percentiles in ms
 * from the nearest rank of the CSV's responses). */
struct vegeta_fixtures {
    const char *folder, *v;
    uint64_t closed;                    /* closed: rows, every one a 200 */
    double p50, p50_tdigest, p99, p999, min, max, mean, duration_s;
    double open_p50, p50_404;
    uint64_t delay_closed;
    double delay_closed_p999, delay_open_p50;
};

static const struct vegeta_fixtures vegeta_versions[] = {
    /* v12.13.0 from the Go module proxy, as the tools folder has it */
    {"vegeta", "v12.13.0", 2541, 0.100970, 0.100986, 1.223735, 8.032605, 0.031187, 8.483699, 0.15251460173160172,
     0.199906239, 0.253076, 0.329318, 901, 42.055397, 20.361985},
    /* v12.8.4: a profile's bin: can name one */
    {"vegeta/v12.8.4", "v12.8.4", 530, 0.309628, 0.309485, 7.027294, 16.622189, 0.077315, 16.622189,
     0.7219254603773585, 0.19997559, 0.361585, 0.386943, 961, 31.418952, 20.760519},
};

static void test_vegeta(struct adapter_result *r, const struct vegeta_fixtures *x)
{
    char err[UTIL_ERR_LEN];
    const char *V = x->folder, *v = x->v;
    ok(vegeta_dir(V, "closed", r, err) == 0 && r->parsed, "vegeta %s closed parses (%s)", v, err);
    is_u64(r->requests, x->closed, "vegeta %s closed: %llu rows", v, (unsigned long long)x->closed);
    is_u64(r->requests, server_count(V, "closed"), "vegeta %s closed: = the server's count", v);
    is_u64(r->ok, x->closed, "vegeta %s closed: all 200", v);
    is_u64(r->errors, 0, "vegeta %s closed: no errors", v);
    is_num(r->lat.p50, x->p50, "vegeta %s closed: exact p50 in ms (not the t-digest's %g)", v, x->p50_tdigest);
    is_num(r->lat.p99, x->p99, "vegeta %s closed: p99", v);
    is_num(r->lat.p999, x->p999, "vegeta %s closed: p99.9", v);
    is_num(r->lat.min, x->min, "vegeta %s closed: min", v);
    is_num(r->lat.max, x->max, "vegeta %s closed: max = the report's", v);
    is_num(r->lat.mean, x->mean, "vegeta %s closed: mean", v);
    is_num(r->duration_s, x->duration_s, "vegeta %s closed: the report's duration, ns in s", v);
    ok(vegeta_dir(V, "open", r, err) == 0, "vegeta %s open parses (%s)", v, err);
    is_u64(r->requests, server_count(V, "open"), "vegeta %s open 200/s x 2 s: = the server's count", v);
    is_u64(r->requests, 400, "vegeta %s open: 400", v);
    is_num(r->lat.p50, x->open_p50, "vegeta %s open: p50", v);
    ok(vegeta_dir(V, "status-404", r, err) == 0, "vegeta %s 404 parses (%s)", v, err);
    is_u64(r->err_status, 100, "vegeta %s 404: status errors", v);
    is_u64(r->requests, server_count(V, "status-404"), "vegeta %s 404: responses = the server's count", v);
    is_u64(r->ok, 0, "vegeta %s 404: none ok", v);
    is_num(r->lat.p50, x->p50_404, "vegeta %s 404: responses timed", v);
    ok(vegeta_dir(V, "refused", r, err) == 0, "vegeta %s refused parses (%s)", v, err);
    is_u64(r->requests, 0, "vegeta %s refused: no response (status 0 rows)", v);
    is_u64(r->err_connect, 100, "vegeta %s refused: connect errors, from Go's message", v);
    is_u64(r->errors, 100, "vegeta %s refused: and nothing else", v);
    is_nan(r->lat.p50, "vegeta %s refused: no latency (failures are not responses)", v);
    ok(vegeta_dir(V, "delay-20ms-closed", r, err) == 0, "vegeta %s delay closed parses (%s)", v, err);
    is_u64(r->requests, x->delay_closed, "vegeta %s delay closed: %llu", v, (unsigned long long)x->delay_closed);
    ok(r->lat.min >= 20, "vegeta %s delay closed: min %g ms at least the 20 ms delay", v, r->lat.min);
    is_num(r->lat.p999, x->delay_closed_p999, "vegeta %s delay closed: p99.9", v);
    ok(vegeta_dir(V, "delay-20ms-open", r, err) == 0, "vegeta %s delay open parses (%s)", v, err);
    is_u64(r->requests, 300, "vegeta %s delay open 100/s x 3 s: 300", v);
    is_num(r->lat.p50, x->delay_open_p50, "vegeta %s delay open: p50 just above the delay", v);
}

/* The CSV and the report must agree; no CSV, no result. */
static void test_vegeta_mismatch(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("vg-mismatch");
    put_fixture("vegeta", "open.results.csv", d, "results.csv");
    put_fixture("vegeta", "closed.report.json", d, "report.json");
    ok(parse_dir(&adapter_vegeta, d, NULL, r, err) == -1 && strstr(err, "400 results"),
       "vegeta CSV of 400 with a report of 2541: no result (%s)", err);
    d = fresh_dir("vg-nocsv");
    put_fixture("vegeta", "open.report.json", d, "report.json");
    ok(parse_dir(&adapter_vegeta, d, NULL, r, err) == -1 && strstr(err, "wrote no results.csv"),
       "vegeta without results.csv: no result (%s)", err);
}

/* Detection refuses a binary that does not print Vegeta's -version lines
 * (echo prints "-version"), and reads the tools folder's where there is. */
static void test_vegeta_detect(void)
{
    struct adapter_found f;
    char err[UTIL_ERR_LEN] = "";
    memset(&f, 0, sizeof f);
    ok(adapter_vegeta.detect("/bin/echo", &f, err) == -1 && strstr(err, "not Vegeta"),
       "vegeta detect: /bin/echo refused (%s)", err);
    if (access("/opt/loadbench-tools/bin/vegeta", X_OK) == 0) {
        ok(adapter_vegeta.detect("/opt/loadbench-tools/bin/vegeta", &f, err) == 0 &&
               !strncmp(f.version, "v12.13.0", 8) && (!f.version[8] || f.version[8] == ' '),
           "vegeta detect: the tools folder's is v12.13.0 (%s)", f.version);
    } else {
        ok(1, "# SKIP no /opt/loadbench-tools/bin/vegeta (scripts/install-tools installs v12.13.0 there)");
    }
}

static void test_vegeta_prepare(void)
{
    struct prepared P;
    struct profile *p = load_profile("load: {connections: 6, duration: 1500ms, timeout: 5s}\ntools: [vegeta]\n");
    if (p) {
        prepare(&adapter_vegeta, p, 0, &P);
        ok(strstr(P.argv, "-targets=targets.txt -duration=1500ms -rate=0 -max-connections=6 -workers=6 "
                          "-max-workers=6 -timeout=5s -keepalive=true -http2=false -redirects=-1 -max-body=0") != NULL,
           "vegeta closed: -rate=0, 6 workers on 6 connections (%s)", P.argv);
        is_str(P.plan.model, "closed", "vegeta closed: model closed");
        is_u64(P.plan.load_ns, 1500000000ull, "vegeta closed: load 1.5 s");
        char *t = adapter_slurp(P.dir, "targets.txt", 4096, P.err);
        is_str(t ? t : "", "GET http://127.0.0.1:8080/\n", "vegeta: targets.txt names the URL");
        free(t);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {model: open, rate: 300, duration: 5s}\ntarget: {delay: 20ms}\n"
                     "tools: [vegeta, {tool: vegeta, label: w8, options: {workers: \"8\"}}]\n");
    if (p) {
        prepare(&adapter_vegeta, p, 0, &P);
        /* 300/s x (20 ms + 10 ms) x 4 = 36 workers */
        ok(strstr(P.argv, "-duration=5s -rate=300/s -workers=36 -max-workers=36 ") != NULL,
           "vegeta open: -rate=300/s, 36 workers for 300/s at 20 ms (%s)", P.argv);
        is_str(P.plan.model, "open", "vegeta open: model open");
        adapter_plan_free(&P.plan);
        prepare(&adapter_vegeta, p, 1, &P);
        ok(strstr(P.argv, "-workers=8 -max-workers=8 ") != NULL, "vegeta open, option workers 8 (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {model: open, rate: 2.5, duration: 2s}\ntools: [vegeta]\n");
    if (p) {
        prepare(&adapter_vegeta, p, 0, &P);
        ok(strstr(P.argv, "-rate=2500/1000s ") != NULL, "vegeta open 2.5/s: 2500 per 1000 s (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {connections: 4, duration: 2s}\ntools: [{tool: vegeta, options: {workers: \"8\"}}]\n");
    if (p) {
        prepare(&adapter_vegeta, p, 0, &P);
        ok(P.rc == -1 && strstr(P.err, "open load"), "vegeta closed with option workers: refused (%s)", P.err);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
}

/* Tsung closed and instances: 2, real logs (tests/fixtures/tsung/): the
 * most users at once, the client VMs that logged beside the controller. */
static void test_tsung_closed_logs(struct adapter_result *r)
{
    static const char *const runs[] = {"closed-20ms", "inst2-20ms"};
    for (int i = 0; i < 2; i++) {
        char err[UTIL_ERR_LEN], sub[700], src[64], line[256], path[8192];
        const char *d = fresh_dir(runs[i]);
        snprintf(sub, sizeof sub, "%s/log/20261203-1230", d);
        fsutil_mkdir_p(sub, err);
        snprintf(src, sizeof src, "%s.tsung.log", runs[i]);
        put_fixture("tsung", src, sub, "tsung.log");
        /* the run log directory's other files, as it was (empty here) */
        snprintf(path, sizeof path, "%s/tsung/%s.files.txt", fixtures, runs[i]);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            char to[1024];
            snprintf(to, sizeof to, "%s/%s", sub, line);
            FILE *o = strcmp(line, "tsung.log") ? fopen(to, "w") : NULL;
            if (o)
                fclose(o);
        }
        if (f)
            fclose(f);
        ok(parse_dir(&adapter_tsung, d, NULL, r, err) == 0 && r->parsed, "tsung %s parses (%s)", runs[i], err);
        is_u64(r->requests, server_count("tsung", runs[i]), "tsung %s: requests = the server's count", runs[i]);
        is_u64(r->errors, 0, "tsung %s: no errors", runs[i]);
        is_u64(adapter_json_count(r->extra, "users_max"), 4, "tsung %s: 4 users at once", runs[i]);
        is_u64(adapter_json_count(r->extra, "client_vms"), i ? 2 : 0,
               "tsung %s: client VMs of their own that logged (%d)", runs[i], i ? 2 : 0);
    }
    is_u64(r->requests, 974, "tsung inst2: 974 requests, the controller's sum of both VMs");
}

/* The scenario file a prepared Tsung run wrote, into buf. */
static const char *tsung_file(const char *dir, const char *name, char *buf, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

/* Tsung's generated XML: closed users in one arrival phase capped at
 * exactly N, looping until their own start + the duration; instances: N
 * as N client VMs on names the run's inetrc resolves, through our remote
 * shell; what it cannot express refused. */
static void test_tsung_prepare(void)
{
    struct prepared P;
    static char x[8192];
    struct profile *p = load_profile("load: {connections: 4, duration: 5s}\ntools: [tsung]\n");
    if (!p)
        return;
    prepare(&adapter_tsung, p, 0, &P);
    ok(P.rc == 0, "tsung closed: prepared (%s)", P.err);
    tsung_file(P.dir, "tsung.xml", x, sizeof x);
    ok(strstr(x, "<users maxnumber=\"4\" arrivalrate=\"4000\" unit=\"second\"/>") != NULL,
       "tsung closed: one phase, exactly 4 users, all at once");
    ok(strstr(x, "monotonic_time(millisecond) + 5000 end.") && strstr(x, "<repeat name=\"lb_loop\"") &&
           strstr(x, "<while var=\"lb_go\" eq=\"1\"/>"),
       "tsung closed: each user loops until its own start + 5 s");
    ok(strstr(x, "use_controller_vm=\"true\"") && !strstr(P.argv, " -r "),
       "tsung closed: one client, in the controller's VM, no remote shell");
    is_str(P.plan.model, "closed", "tsung closed: model closed");
    adapter_plan_free(&P.plan);

    struct adapter_found found = {.path = "/usr/bin/tsung", .version = "test"};
    struct adapter_ctx c = {.profile = p, .tool = &p->tools[0], .load = profile_tool_load(p, &p->tools[0]),
                            .found = &found, .dir = fresh_dir("tsung-inst"), .host = "127.0.0.1", .port = 8080,
                            .url = "http://127.0.0.1:8080/", .instances = 2};
    adapter_plan_init(&P.plan);
    ok(adapter_tsung.prepare(&c, &P.plan, P.err) == 0, "tsung instances 2: prepared (%s)", P.err);
    tsung_file(c.dir, "tsung.xml", x, sizeof x);
    ok(strstr(x, "<clients><client host=\"lbtsung1\" maxusers=\"60000\"/><client host=\"lbtsung2\" "
                 "maxusers=\"60000\"/></clients>") != NULL,
       "tsung instances 2: two clients, each a VM of its own");
    tsung_file(c.dir, "tsung-hosts.inetrc", x, sizeof x);
    is_str(x, "{host, {127,0,0,1}, [\"lbtsung1\", \"lbtsung2\"]}.\n{lookup, [file, native]}.\n",
           "tsung instances 2: the inetrc gives both names 127.0.0.1");
    int rsh = 0, inetrc = 0;
    for (size_t i = 0; i + 1 < P.plan.argv.n; i++)
        rsh |= !strcmp(P.plan.argv.v[i], "-r") && strstr(P.plan.argv.v[i + 1], "/adapters/tsung/lb-tsung-rsh");
    for (size_t i = 0; i < P.plan.env.n; i++)
        inetrc |= !strncmp(P.plan.env.v[i], "ERL_INETRC=/", 12);
    ok(rsh && inetrc, "tsung instances 2: -r our remote shell, ERL_INETRC absolute");
    adapter_plan_free(&P.plan);
    c.instances = 5;
    c.dir = fresh_dir("tsung-inst5");
    adapter_plan_init(&P.plan);
    ok(adapter_tsung.prepare(&c, &P.plan, P.err) == -1 && strstr(P.err, "at least 5 users"),
       "tsung 5 instances for 4 users: refused (%s)", P.err);
    adapter_plan_free(&P.plan);
    profile_free(p);
}

static void test_table(void)
{
    const struct adapter *all[] = {&adapter_wrk, &adapter_hey, &adapter_ab, &adapter_h2load, &adapter_siege,
                                   &adapter_autocannon, &adapter_bombardier};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const struct adapter *a = all[i];
        ok(adapter_by_name(a->name) == a, "%s is registered", a->name);
        ok(a->latency_measures && *a->latency_measures && a->latency_resolution_ms > 0,
           "%s declares what its latency measures and its resolution", a->name);
        ok((a->caps & ADAPTER_CLOSED) && !(a->caps & (ADAPTER_OPEN | ADAPTER_RAMP)),
           "%s: closed, no open model, no ramp", a->name);
    }
    is_num(adapter_siege.latency_resolution_ms, 10, "siege: 10 ms steps");
    is_num(adapter_autocannon.latency_resolution_ms, 1, "autocannon: whole ms");
    is_num(adapter_hey.latency_resolution_ms, 0.1, "hey: 0.1 ms");
    ok((adapter_hey.caps & ADAPTER_PACED) && (adapter_autocannon.caps & ADAPTER_PACED) &&
           (adapter_bombardier.caps & ADAPTER_PACED), "hey, autocannon and bombardier: paced");
}

/* ---- oha ------------------------------------------------------------------- */

/* Parse tests/fixtures/oha/NAME.json as a run directory's oha.json into r. */
static int oha_parse(const char *name, struct adapter_result *r, char *err)
{
    char src[128], dir[128];
    snprintf(src, sizeof src, "%s.json", name);
    snprintf(dir, sizeof dir, "oha-%s", name);
    const char *d = fresh_dir(dir);
    put_fixture("oha", src, d, "oha.json");
    return parse_dir(&adapter_oha, d, NULL, r, err);
}

static void test_oha(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    ok(oha_parse("success", r, err) == 0 && r->parsed, "oha success parses (%s)", err);
    is_u64(r->requests, 67657, "oha success: requests = statusCodeDistribution's 200");
    is_u64(r->ok, 67657, "oha success: 2xx ok");
    is_u64(r->errors, 0, "oha success: no errors (the 10 aborted at the deadline are none)");
    /* the server answered the 10 requests oha aborted at -z */
    is_u64(server_count("oha", "success"), r->requests + 10, "oha success: server = oha's count + the 10 aborted");
    within_inflight(r->requests, server_count("oha", "success"), 10, "oha success");
    is_num(r->lat.p50, 0.189391, "oha success: p50 189 us, seconds read as ms");
    is_num(r->lat.p90, 0.314177, "oha success: p90");
    is_num(r->lat.p95, 0.869621, "oha success: p95");
    is_num(r->lat.p99, 5.964541, "oha success: p99");
    is_num(r->lat.p999, 20.412641, "oha success: p99.9");
    is_num(r->lat.min, 0.048492, "oha success: min (fastest)");
    is_num(r->lat.max, 194.95692, "oha success: max (slowest)");
    is_num(r->lat.mean, 0.44163586546846443, "oha success: mean (average)");
    is_num(r->duration_s, 3.006585554, "oha success: total");
    is_u64(r->bytes_read, 4330048, "oha success: totalData (bodies: 64 B each)");
    ok(r->warnings.n == 1 && has_warning(&r->warnings, "aborted 10 requests at its -z deadline"),
       "oha success: one warning, naming the 10 aborted");

    ok(oha_parse("status-404", r, err) == 0, "oha 404 parses (%s)", err);
    is_u64(r->requests, 66593, "oha 404: every 404 a request");
    is_u64(r->err_status, 66593, "oha 404: and a status error");
    is_u64(r->ok, 0, "oha 404: none ok");
    is_u64(r->errors, 66593, "oha 404: errors total");
    within_inflight(r->requests, server_count("oha", "status-404"), 10, "oha status-404");
    is_num(r->lat.p50, 0.128591, "oha 404: its responses are timed too");

    ok(oha_parse("refused", r, err) == 0, "oha refused parses (exit 0, a result)");
    is_u64(r->requests, 0, "oha refused: no response");
    is_u64(r->err_connect, 19214, "oha refused: \"Connection refused (os error 111)\" is a connect error");
    is_u64(r->errors, 19214, "oha refused: and nothing else (the 9 aborted are none)");
    is_nan(r->lat.p50, "oha refused: no latency (null)");
    is_nan(r->lat.min, "oha refused: no min");

    ok(oha_parse("open", r, err) == 0, "oha open parses (%s)", err);
    is_u64(r->requests, 600, "oha -q 200 -z 3s: 600 requests");
    is_u64(r->requests, server_count("oha", "open"), "oha open: = the server's count (its 2 aborted were idle)");
    is_num(r->lat.p50, 0.223171, "oha open: p50");
    is_num(r->lat.p99, 16.11948, "oha open: p99");

    ok(oha_parse("delay-20ms", r, err) == 0, "oha delay 20 ms parses (%s)", err);
    is_u64(r->requests, 1258, "oha delay 20 ms: requests");
    within_inflight(r->requests, server_count("oha", "delay-20ms"), 10, "oha delay-20ms");
    ok(r->lat.min >= 20 && r->lat.p50 >= 20, "oha delay 20 ms: min %.3f and p50 %.3f ms at least the delay", r->lat.min,
       r->lat.p50);
    is_num(r->lat.p50, 20.364108, "oha delay 20 ms: p50");

    ok(oha_parse("delay-20ms-open", r, err) == 0, "oha open delay 20 ms parses (%s)", err);
    is_u64(r->requests, 298, "oha -q 100 -z 3s at 20 ms: 298 requests");
    within_inflight(r->requests, server_count("oha", "delay-20ms-open"), 10, "oha delay-20ms-open");
    ok(r->lat.min >= 20, "oha open delay 20 ms: min %.3f ms at least the delay, from the timetable", r->lat.min);
}

/* What oha writes when it fails, and a result that is not oha's. */
static void test_oha_faults(struct adapter_result *r)
{
    char err[UTIL_ERR_LEN];
    const char *d = fresh_dir("oha-no-json");
    char e[UTIL_ERR_LEN];
    adapter_write(d, "stderr.txt", "error: invalid value 'x' for '-c <N_CONNECTIONS>': invalid digit found in string\n", e);
    ok(parse_dir(&adapter_oha, d, NULL, r, err) == -1 && !r->parsed && strstr(err, "no oha.json") &&
           strstr(err, "invalid value 'x'"),
       "oha without oha.json: no result, its error quoted (%s)", err);

    d = fresh_dir("oha-odd-status");
    adapter_write(d, "oha.json", "{\"summary\": {\"total\": 1}, \"statusCodeDistribution\": {\"200\": 5, \"2x\": 1}, "
                  "\"errorDistribution\": {}}", e);
    ok(parse_dir(&adapter_oha, d, NULL, r, err) == -1 && strstr(err, "\"2x\""),
       "oha: a status key that is no HTTP status is refused (%s)", err);

    d = fresh_dir("oha-redirects");
    adapter_write(d, "oha.json", "{\"summary\": {\"total\": 1}, \"statusCodeDistribution\": {\"200\": 5, \"302\": 2, "
                  "\"503\": 3}, \"errorDistribution\": {\"timeout\": 4}}", e);
    ok(parse_dir(&adapter_oha, d, NULL, r, err) == 0, "oha: 200, 302, 503 and timeouts parse (%s)", err);
    is_u64(r->requests, 10, "oha: every status a request");
    is_u64(r->ok, 7, "oha: 2xx and 3xx ok (--redirect 0: a 3xx as it came)");
    is_u64(r->err_status, 3, "oha: 5xx a status error");
    is_u64(r->err_timeout, 4, "oha: \"timeout\" a timeout");
    is_u64(r->errors, 7, "oha: errors total");
}

static void test_oha_prepare(void)
{
    struct prepared P;
    struct profile *p = load_profile("load: {connections: 6, duration: 1500ms, timeout: 5s}\ntools: [oha]\n");
    if (p) {
        prepare(&adapter_oha, p, 0, &P);
        is_str(P.argv, "--no-tui -c 6 -z 1500ms -t 5s --redirect 0 --output-format json --output oha.json "
                       "http://127.0.0.1:8080/", "oha closed: -c 6 -z 1500ms, JSON into oha.json (%s)", P.argv);
        is_str(P.plan.model, "closed", "oha closed: model closed");
        is_u64(P.plan.load_ns, 1500000000ull, "oha closed: load 1.5 s");
        ok(P.plan.warnings.n == 0, "oha closed: no warning");
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {model: open, rate: 300, duration: 5s}\ntarget: {delay: 20ms}\n"
                     "tools: [oha, {tool: oha, label: c8, options: {connections: \"8\"}}]\n");
    if (p) {
        prepare(&adapter_oha, p, 0, &P);
        /* 300/s x (20 ms + 10 ms) x 4 = 36 connections */
        is_str(P.argv, "--no-tui -c 36 -z 5s -q 300 --latency-correction --redirect 0 --output-format json "
                       "--output oha.json http://127.0.0.1:8080/",
               "oha open: -q 300 --latency-correction on 36 connections for 300/s at 20 ms (%s)", P.argv);
        is_str(P.plan.model, "open", "oha open: model open");
        ok(has_warning(&P.plan.warnings, "timed from its time on the timetable"),
           "oha open: the warning says how a queued request is timed");
        adapter_plan_free(&P.plan);
        prepare(&adapter_oha, p, 1, &P);
        ok(strstr(P.argv, "-c 8 -z 5s -q 300 ") != NULL, "oha open, option connections 8 (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {model: open, rate: 2.5, duration: 2s, max_inflight: 3}\ntools: [oha]\n");
    if (p) {
        prepare(&adapter_oha, p, 0, &P);
        ok(strstr(P.argv, "-c 3 -z 2s -q 2.5 ") != NULL, "oha open 2.5/s: -q takes the fraction, max_inflight 3 (%s)",
           P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load: {connections: 4, duration: 2s}\ntools: [{tool: oha, options: {connections: \"8\"}}]\n");
    if (p) {
        prepare(&adapter_oha, p, 0, &P);
        ok(P.rc == -1 && strstr(P.err, "open load"), "oha closed with option connections: refused (%s)", P.err);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
    p = load_profile("load:\n  stages:\n    - {duration: 1s, target: 10}\n    - {duration: 3s, target: 10}\n"
                     "    - {duration: 1s, target: 0}\ntools: [oha]\n");
    if (p) {
        prepare(&adapter_oha, p, 0, &P);
        ok(strstr(P.argv, "-c 10 -z 3s ") != NULL && P.plan.warnings.n > 0,
           "oha ramp: the hold phase, with a warning (%s)", P.argv);
        adapter_plan_free(&P.plan);
        profile_free(p);
    }
}

/* Detection refuses a binary that does not say "oha VERSION" (echo prints
 * "--version"), and reads the installed one's where there is. */
static void test_oha_detect(void)
{
    struct adapter_found f;
    char err[UTIL_ERR_LEN] = "";
    memset(&f, 0, sizeof f);
    ok(adapter_oha.detect("/bin/echo", &f, err) == -1 && strstr(err, "not oha"), "oha detect: /bin/echo refused");
    if (access("/opt/loadbench-tools/bin/oha", X_OK) == 0) {
        ok(adapter_oha.detect("/opt/loadbench-tools/bin/oha", &f, err) == 0 &&
               !strcmp(f.version, "1.13.0 (crates.io 1.13.0)"),
           "oha detect: the installed one's version and origin (%s)", f.version);
    } else {
        ok(1, "# SKIP no /opt/loadbench-tools/bin/oha (scripts/install-tools)");
    }
}

/* request: POST: each raw tool's command line carries the body the way
 * its usage says, the body file is the profile's size in the run
 * directory, and a tool without the cap has none of it. */
static void test_post(void)
{
    static const struct {
        const struct adapter *a;
        const char *argv;       /* what the command line must contain */
    } want[] = {
        {&adapter_hey, "-m POST -D body.bin -T application/octet-stream http://127.0.0.1:8080/"},
        {&adapter_oha, "-m POST -D body.bin -T application/octet-stream http://127.0.0.1:8080/"},
        {&adapter_ab, "-p body.bin -T application/octet-stream http://127.0.0.1:8080/"},
        {&adapter_h2load, "-d body.bin -H Content-Type: application/octet-stream http://127.0.0.1:8080/"},
        {&adapter_bombardier, "-m POST -f body.bin -H Content-Type: application/octet-stream http://127.0.0.1:8080/"},
        {&adapter_autocannon, "-m POST -i body.bin -H content-type=application/octet-stream http://127.0.0.1:8080/"},
        {&adapter_siege, "-T application/octet-stream http://127.0.0.1:8080/ POST <body.bin"},
        {&adapter_wrk, "-s done.lua http://127.0.0.1:8080/"},
    };
    struct prepared P;
    struct profile *p = load_profile("load: {connections: 2, duration: 2s}\nrequest: {method: POST, body: 1KiB}\n"
                                     "tools: [lb-gen]\n");
    struct stat st;
    char path[1024];
    if (!p)
        return;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        prepare(want[i].a, p, 0, &P);
        snprintf(path, sizeof path, "%s/body.bin", P.dir);
        if (!ok(P.rc == 0 && strstr(P.argv, want[i].argv), "%s POST: the command line has \"%s\"", want[i].a->name,
                want[i].argv))
            diag("  rc %d (%s), argv: %s", P.rc, P.err, P.argv);
        ok(stat(path, &st) == 0 && st.st_size == 1024 && has_warning(&P.plan.files, "body.bin"),
           "%s POST: body.bin, 1024 bytes, in the run directory and its configs", want[i].a->name);
        ok(want[i].a->caps & ADAPTER_POST, "%s has ADAPTER_POST", want[i].a->name);
        adapter_plan_free(&P.plan);
    }
    prepare(&adapter_wrk, p, 0, &P);
    ok(has_warning(&P.plan.env, "LB_WRK_BODY=body.bin"), "wrk POST: done.lua reads the body from $LB_WRK_BODY");
    adapter_plan_free(&P.plan);
    prepare(&adapter_vegeta, p, 0, &P);
    snprintf(path, sizeof path, "%s/targets.txt", P.dir);
    char *t = adapter_slurp(NULL, path, 4096, P.err);
    is_str(t ? t : "", "POST http://127.0.0.1:8080/\nContent-Type: application/octet-stream\n@body.bin\n",
           "vegeta POST: the target, its Content-Type and @body.bin");
    free(t);
    adapter_plan_free(&P.plan);
    ok(!(adapter_httperf.caps & ADAPTER_POST) && adapter_httperf.no_post_why, "httperf: no POST, and says why");
    profile_free(p);
    p = load_profile("load: {connections: 2, duration: 2s}\ntools: [lb-gen]\n");
    prepare(&adapter_hey, p, 0, &P);
    snprintf(path, sizeof path, "%s/body.bin", P.dir);
    ok(P.rc == 0 && !strstr(P.argv, "POST") && stat(path, &st) != 0, "a GET profile: no -m POST, no body file");
    adapter_plan_free(&P.plan);
    profile_free(p);
}

/* target.tls as the harness prepares it (an https:// URL, the run's CA),
 * at TLS 1.2 (the live tests run 1.3): the tool is told the version where
 * it takes one, and the row's settings.tls says it does not verify. */
static void tls_prepare(const struct adapter *a, struct profile *p, struct prepared *P)
{
    struct adapter_found found = {.version = "test"};
    snprintf(found.path, sizeof found.path, "/usr/bin/%s", a->name);
    prepare_found_url(a, p, 0, &found, "https://127.0.0.1:8080/", "target-ca.pem", P);
    ok(P->rc == 0 && json_is_false(json_object_get(json_object_get(P->plan.settings, "tls"), "verified")),
       "%s over TLS: prepared, settings.tls.verified false (%s)", a->name, P->err);
}

static void test_tls(void)
{
    struct prepared P;
    static char x[8192];
    struct profile *p = load_profile("target: {tls: {version: 1.2}}\nload: {connections: 2, duration: 1s}\n"
                                     "tools: [ab]\n");
    if (!p)
        return;
    tls_prepare(&adapter_ab, p, &P);
    ok(strstr(P.argv, " -f TLS1.2 https://127.0.0.1:8080/") != NULL, "ab TLS 1.2: -f TLS1.2, the https URL (%s)",
       P.argv);
    adapter_plan_free(&P.plan);
    tls_prepare(&adapter_siege, p, &P);
    ok(strstr(P.argv, " https://127.0.0.1:8080/") != NULL, "siege TLS 1.2: the https URL (%s)", P.argv);
    adapter_plan_free(&P.plan);
    tls_prepare(&adapter_tsung, p, &P);
    tsung_file(P.dir, "tsung.xml", x, sizeof x);
    ok(strstr(x, "port=\"8080\" type=\"ssl\"") && strstr(x, "<option name=\"ssl_versions\" value=\"'tlsv1.2'\"/>"),
       "tsung TLS 1.2: <server type=\"ssl\">, ssl_versions 'tlsv1.2'");
    adapter_plan_free(&P.plan);
    profile_free(p);
    p = load_profile("target: {tls: {version: 1.3}}\nload: {model: open, rate: 10, duration: 1s}\n"
                     "tools: [httperf]\n");
    if (!p)
        return;
    tls_prepare(&adapter_httperf, p, &P);
    ok(strstr(P.argv, " --num-calls=1 --ssl") != NULL && has_warning(&P.plan.warnings, "a full TLS handshake"),
       "httperf TLS: --ssl, the warning says each latency holds a handshake (%s)", P.argv);
    adapter_plan_free(&P.plan);
    tls_prepare(&adapter_tsung, p, &P);
    tsung_file(P.dir, "tsung.xml", x, sizeof x);
    ok(strstr(x, "type=\"ssl\"") && !strstr(x, "ssl_versions"),
       "tsung TLS 1.3: no ssl_versions (OTP 25 refuses 'tlsv1.3' beside Tsung's reuse_sessions)");
    adapter_plan_free(&P.plan);
    profile_free(p);
    /* wrk2 (in no registry, not live here): wrk's own src/ssl.c, given the https URL */
    p = load_profile("target: {tls: {version: 1.3}}\nload: {model: open, rate: 10, duration: 40s}\n"
                     "tools: [wrk2]\n");
    if (!p)
        return;
    tls_prepare(&adapter_wrk2, p, &P);
    ok(strstr(P.argv, " https://127.0.0.1:8080/") != NULL, "wrk2 TLS: the https URL (%s)", P.argv);
    adapter_plan_free(&P.plan);
    profile_free(p);
}

int main(void)
{
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    snprintf(tmproot, sizeof tmproot, "/tmp/lb-test-raw.XXXXXX");
    if (!mkdtemp(tmproot)) {
        ok(0, "temp dir");
        return done_testing();
    }
    struct adapter_result r;
    adapter_result_init(&r);
    test_table();
    test_wrk(&r);
    test_hey(&r);
    test_ab(&r);
    test_h2load(&r);
    struct profile_load l3 = {.model = LOAD_CLOSED, .nstages = 1};
    struct profile_stage s3 = {.duration_ns = 3000000000ull, .target = 10};
    l3.stages = &s3;
    test_siege(&r, &l3);
    test_autocannon(&r);
    test_bombardier(&r);
    test_httperf(&r);
    test_wrk2(&r);
    test_tsung(&r);
    for (size_t i = 0; i < sizeof vegeta_versions / sizeof *vegeta_versions; i++)
        test_vegeta(&r, &vegeta_versions[i]);
    test_vegeta_mismatch(&r);
    test_vegeta_prepare();
    test_post();
    test_vegeta_detect();
    test_tsung_closed_logs(&r);
    test_tsung_prepare();
    test_tls();
    test_prepare();
    test_oha(&r);
    test_oha_faults(&r);
    test_oha_prepare();
    test_oha_detect();
    adapter_result_free(&r);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmproot);
    if (system(cmd) != 0)
        diag("could not remove %s", tmproot);
    return done_testing();
}
