/* The adapter for ApacheBench (ab 2.3, Debian apache2-utils): closed model
 * only, keep-alive (-k), time-bound (-t) with an explicit large -n after it
 * (-t alone caps the run at 50,000 requests). HTTPS with the one version
 * the profile asks (-f TLS1.3 / TLS1.2), unverified. Totals come from ab's text
 * summary, percentiles from its -e CSV (µs resolution, unlike the text's
 * whole ms); see tests/fixtures/ab/README.md. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/jsonutil.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AB_CSV "percentiles.csv"
#define AB_MAX_CONCURRENCY 20000        /* ab's MAX_CONCURRENCY */
/* ab callocs one 32-byte record per -n up front: enough for 500k
 * requests/s over the run, between 10M and 50M records (0.3-1.6 GB of
 * address space, touched only as requests complete). */
#define AB_N_MIN 10000000ull
#define AB_N_MAX 50000000ull
#define AB_N_PER_S 500000ull

static int ab_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"ab", NULL};
    if (raw_find("ab", bin, cands, found, err))
        return -1;
    /* "This is ApacheBench, Version 2.3 <$Revision$>" */
    const char *argv[] = {found->path, "-V", NULL};
    char out[1024];
    adapter_capture(argv, out, sizeof out);
    const char *v = strstr(out, "Version ");
    if (!strstr(out, "ApacheBench") || !v)
        return util_err(err, "%s -V did not print an ApacheBench version: %.80s", found->path, out);
    v += 8;
    snprintf(found->version, sizeof found->version, "%.*s", (int)strcspn(v, " \n<"), v);
    return 0;
}

extern const struct adapter adapter_ab;   /* below: its table names the TLS behaviour */

/* target.tls: -f pins min and max to the profile's version (ab.c:
 * SSL_CTX_set_{min,max}_proto_version), so it never offers another. */
static void ab_tls(const struct adapter_ctx *c, struct adapter_plan *p)
{
    if (!c->ca_file)
        return;
    strvec_push(&p->argv, "-f");
    strvec_push(&p->argv, c->profile->target.tls.version == 12 ? "TLS1.2" : "TLS1.3");
    adapter_plan_tls(p, &adapter_ab, c);
}

static uint64_t ab_max_requests(uint64_t secs)
{
    uint64_t n = secs * AB_N_PER_S;
    return n < AB_N_MIN ? AB_N_MIN : n > AB_N_MAX ? AB_N_MAX : n;
}

static int ab_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "ab", p, &l, err) || raw_closed_only("ab", &l, err))
        return -1;
    uint64_t conns = (uint64_t)llround(l.level);
    if (conns > AB_MAX_CONCURRENCY)
        return util_err(err, "ab allows at most %d concurrent requests (the load asks for %llu)", AB_MAX_CONCURRENCY,
                        (unsigned long long)conns);
    uint64_t secs = raw_whole_seconds(l.duration_ns, "ab", "duration", p);
    uint64_t n = ab_max_requests(secs);
    strvec_push(&p->argv, c->found->path);
    if (!c->load->no_keepalive) /* without -k, ab opens a connection per request */
        strvec_push(&p->argv, "-k");
    strvec_push(&p->argv, "-c");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
    /* -n after -t: -t sets the 50,000 cap, a later -n replaces it. */
    strvec_push(&p->argv, "-t");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)secs);
    strvec_push(&p->argv, "-n");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)n);
    if (c->load->request_timeout_ns) {
        uint64_t ts = raw_whole_seconds(c->load->request_timeout_ns, "ab", "timeout", p);
        strvec_push(&p->argv, "-s");
        strvec_pushf(&p->argv, "%llu", (unsigned long long)ts);
    }
    strvec_push(&p->argv, "-e");
    strvec_push(&p->argv, AB_CSV);
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post) /* ab -h: -p postfile, "Remember also to set -T" */
        strvec_pushv(&p->argv, "-p", ADAPTER_BODY_FILE, "-T", ADAPTER_BODY_TYPE, NULL);
    ab_tls(c, p);
    strvec_push(&p->argv, c->url);
    p->model = "closed";
    p->load_ns = secs * 1000000000ull;
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "concurrency", json_integer((json_int_t)conns));
    json_object_set_new(p->settings, "max_requests", json_integer((json_int_t)n));
    json_object_set_new(p->settings, "keepalive", json_true());
    return 0;
}

/* The -e CSV: "Percentage served,Time in ms", then rows "0..100,ms". Fills
 * pct[0..100] (NAN where absent); returns the rows read. */
static int read_csv(const char *dir, double pct[101])
{
    char e[UTIL_ERR_LEN];
    for (int i = 0; i <= 100; i++)
        pct[i] = NAN;
    char *csv = adapter_slurp(dir, AB_CSV, 1 << 16, e);
    if (!csv)
        return 0;
    int rows = 0;
    for (char *line = strtok(csv, "\n"); line; line = strtok(NULL, "\n")) {
        int i;
        double ms;
        if (sscanf(line, "%d,%lf", &i, &ms) == 2 && i >= 0 && i <= 100) {
            pct[i] = ms;
            rows++;
        }
    }
    free(csv);
    return rows;
}

static int ab_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char *text = raw_output(c->dir, 4 << 20);
    uint64_t complete = 0;
    if (raw_count(text, "Complete requests:", &complete)) {
        /* ab stops at the first connect/receive error ("apr_socket_recv:
         * Connection refused (111)", exit 111) and prints no summary. */
        char line[160] = "";
        if (!raw_line_with(text, "apr_", line, sizeof line))
            raw_line_with(text, "ab: ", line, sizeof line);
        free(text);
        return util_err(err, "ab printed no summary%s%s", line[0] ? ": " : "", line);
    }
    uint64_t failed = 0, non2xx = 0, write_err = 0, keepalive = 0;
    raw_count(text, "Failed requests:", &failed);
    raw_count(text, "Non-2xx responses:", &non2xx);
    raw_count(text, "Write errors:", &write_err);
    raw_count(text, "Keep-Alive requests:", &keepalive);
    /* "   (Connect: 0, Receive: 0, Length: 12, Exceptions: 0)" follows
     * Failed requests when it is not 0. */
    unsigned long long fc = 0, fr = 0, fl = 0, fe = 0;
    const char *br = raw_after(text, "(Connect:");
    if (br)
        sscanf(br, " %llu, Receive: %llu, Length: %llu, Exceptions: %llu", &fc, &fr, &fl, &fe);
    r->requests = complete;
    r->err_connect = fc;
    r->err_read = fr;
    r->err_write = write_err;
    r->err_status = non2xx;
    /* A "Length" failure is a response whose size differs from the first
     * one's; an "Exception" an unexpected state. Neither has a better kind. */
    r->err_other = fl + fe;
    raw_sum_errors(r);
    uint64_t bad = non2xx + fl + fe;
    r->ok = complete > bad ? complete - bad : 0;
    double taken = NAN, tool_rps = NAN, tpr = NAN, bytes = NAN;
    raw_number(text, "Time taken for tests:", &taken);
    raw_number(text, "Requests per second:", &tool_rps);
    raw_number(text, "Time per request:", &tpr);
    raw_number(text, "Total transferred:", &bytes);
    r->duration_s = taken;
    if (taken > 0)
        r->rps = (double)complete / taken;
    if (bytes > 0 && bytes < 0x1p64) /* a figure past uint64_t is garbage, and UB to cast */
        r->bytes_read = (uint64_t)bytes;
    double pct[101];
    int rows = read_csv(c->dir, pct);
    if (complete > 0 && rows > 0) {
        r->lat.min = pct[0];
        r->lat.p50 = pct[50];
        r->lat.p90 = pct[90];
        r->lat.p95 = pct[95];
        r->lat.p99 = pct[99];
        r->lat.max = pct[100];
    } else if (complete > 0) {
        strvec_pushf(&r->warnings, "ab wrote no %s: no latency percentiles", AB_CSV);
    }
    if (fl)
        strvec_pushf(&r->warnings, "ab counted %llu responses as failed because their length differed from the first "
                     "response's", fl);
    /* Completing exactly -n requests means ab ended before -t. */
    if (c->load) {
        struct adapter_plan scratch;
        struct raw_load l;
        char e[UTIL_ERR_LEN];
        adapter_plan_init(&scratch);
        if (raw_pick_load(c, "ab", &scratch, &l, e) == 0) {
            uint64_t n = ab_max_requests(raw_whole_seconds(l.duration_ns, "ab", "duration", &scratch));
            if (complete >= n)
                strvec_pushf(&r->warnings, "ab reached its -n cap (%llu requests) before the end of -t",
                             (unsigned long long)n);
        }
        adapter_plan_free(&scratch);
    }
    json_t *x = json_object();
    json_object_set_new(x, "requests_per_sec", jsonutil_num(tool_rps));
    json_object_set_new(x, "time_per_request_ms", jsonutil_num(tpr));
    json_object_set_new(x, "failed_requests", json_integer((json_int_t)failed));
    json_object_set_new(x, "keepalive_requests", json_integer((json_int_t)keepalive));
    if (rows > 0) {
        json_t *pj = json_object();
        static const int keep[] = {10, 25, 66, 75, 80, 98};
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
            char k[8];
            snprintf(k, sizeof k, "p%d", keep[i]);
            json_object_set_new(pj, k, jsonutil_num(pct[keep[i]]));
        }
        json_object_set_new(x, "percentiles_ms", pj);
    }
    r->extra = x;
    r->parsed = 1;
    free(text);
    return 0;
}

const struct adapter adapter_ab = {
    .name = "ab",
    .parse_files = (const char *const[]){"stdout.txt", "percentiles.csv", NULL},
    .description = "ApacheBench 2.3: keep-alive, closed model (-c, -t with a large -n)",
    .install_hint = "apt-get install apache2-utils (or scripts/install-tools)",
    .caps = ADAPTER_CLOSED | ADAPTER_TLS | ADAPTER_NOKEEPALIVE | ADAPTER_POST,
    .post_how = "-p body.bin -T application/octet-stream",
    .tls_how = "does not verify (ab.c sets no SSL_CTX_set_verify: OpenSSL's SSL_VERIFY_NONE; no CA option); "
               "-f TLS1.3/TLS1.2 pins the version; a fresh SSL per connection, no session offered for "
               "resumption (keepalive: off is a full handshake per request)",
    .tls_library = "OpenSSL 3 (libssl.so.3, dynamically linked)",
    .no_h2_why = "ab sends HTTP/1.0 requests (ab.c), it has no HTTP/2 client",
    .no_check_why = RAW_NO_CHECK_WHY,
    .versions = "live: 2.3 (Debian apache2-utils 2.4.71-1~deb12u1)",
    .latency_measures = "request start (connect for a new connection, else request write on the kept-alive one) to "
                        "response complete; percentiles from ab's -e table (µs); mean not reported (ab's text rounds "
                        "it to whole ms)",
    .latency_resolution_ms = 0.001,
    .detect = ab_detect,
    .prepare = ab_prepare,
    .parse = ab_parse,
};
