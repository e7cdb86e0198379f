/* The adapter for hey 0.1.x (Debian 0.1.4): closed model (-c workers for
 * -z), paced with -q (a rate per worker: a closed loop slowed down, not an
 * arrival schedule). Results come from hey's text summary on stdout; see
 * tests/fixtures/hey/README.md for what it prints in each case, notably
 * exit 0 and an "Error distribution" when every connect fails. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/jsonutil.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* hey keeps at most this many results for its percentiles (report.go). */
#define HEY_MAX_RESULTS 1000000ull

static int hey_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"hey", NULL};
    if (raw_find("hey", bin, cands, found, err))
        return -1;
    /* hey has no version flag: ask dpkg which package owns the binary. */
    if (adapter_dpkg_version("hey", found))
        snprintf(found->version, sizeof found->version, "unknown (no version flag)");
    return 0;
}

static const char *const hey_options[] = {"connections", NULL};

extern const struct adapter adapter_hey;   /* below: its table names the TLS behaviour */

static int hey_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    char d[32];
    if (raw_pick_load(c, "hey", p, &l, err))
        return -1;
    uint64_t conns;
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "-z");
    strvec_push(&p->argv, units_format_duration(l.duration_ns, d));
    if (l.open) {
        /* No arrival schedule in hey: its -q paces each worker. */
        uint64_t def = (uint64_t)ceil(l.level) < 50 ? (uint64_t)ceil(l.level) : 50;
        if (raw_paced_connections(c, def, &conns, err))
            return -1;
        double q = l.level / (double)conns;
        strvec_pushf(&p->argv, "-c");
        strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
        strvec_push(&p->argv, "-q");
        strvec_pushf(&p->argv, "%.6g", q);
        strvec_pushf(&p->warnings, "hey has no arrival-rate model: %llu workers each paced to %.6g requests/s (-q is per "
                     "worker) for %.10g requests/s in all; a slow response delays that worker's next request (paced, "
                     "not open)",
                     (unsigned long long)conns, q, l.level);
        p->model = "paced";
        json_object_set_new(p->settings, "qps_per_worker", json_real(q));
    } else {
        conns = (uint64_t)llround(l.level);
        if (c->tool && json_object_get(c->tool->options, "connections"))
            strvec_push(&p->warnings, "option connections applies to an open-model load only: the closed load's "
                        "connections were used");
        strvec_push(&p->argv, "-c");
        strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
        p->model = "closed";
    }
    if (c->load->request_timeout_ns) {
        uint64_t ts = raw_whole_seconds(c->load->request_timeout_ns, "hey", "timeout", p);
        strvec_push(&p->argv, "-t");
        strvec_pushf(&p->argv, "%llu", (unsigned long long)ts);
    }
    if (c->profile->target.protocol == PROFILE_H2)
        strvec_push(&p->argv, "-h2");
    if (c->load->no_keepalive)
        strvec_push(&p->argv, "-disable-keepalive");
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post) /* hey's usage: -m method, -D body from file, -T content-type */
        strvec_pushv(&p->argv, "-m", "POST", "-D", ADAPTER_BODY_FILE, "-T", ADAPTER_BODY_TYPE, NULL);
    adapter_plan_tls(p, &adapter_hey, c);
    strvec_push(&p->argv, c->url);
    p->load_ns = l.duration_ns;
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "workers", json_integer((json_int_t)conns));
    /* Go sizes GOMAXPROCS from the CPU affinity the tool is pinned to. */
    json_object_set_new(p->settings, "gomaxprocs", json_integer((json_int_t)raw_threads(c->tool_cpus, UINT64_MAX)));
    return 0;
}

/* "  Label:\t0.0004 secs" in ms; NAN when absent or "NaN". */
static double secs_ms(const char *text, const char *label)
{
    double v;
    if (raw_number(text, label, &v))
        return NAN;
    return v * 1000;
}

/* Call fn for each "  [key]\tvalue" line of the section that starts with
 * header (up to the next line that is not such a line). */
static void each_bracket(const char *text, const char *header,
                         void (*fn)(const char *key, size_t klen, const char *rest, void *arg), void *arg)
{
    const char *s = strstr(text, header);
    if (!s)
        return;
    s = strchr(s, '\n');
    while (s && *s) {
        s++;
        const char *line = s;
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line != '[')
            break;
        const char *close = strchr(line, ']');
        const char *eol = strchr(line, '\n');
        if (!close || (eol && close > eol))
            break;
        size_t rl = eol ? (size_t)(eol - (close + 1)) : strlen(close + 1);
        char rest[1024];
        if (rl >= sizeof rest)
            rl = sizeof rest - 1;
        memcpy(rest, close + 1, rl);
        rest[rl] = 0;
        fn(line + 1, (size_t)(close - line - 1), rest, arg);
        s = eol;
    }
}

struct hey_acc {
    const struct adapter_ctx *c;
    struct adapter_result *r;
    json_t *codes, *errs;
};

static void on_status(const char *key, size_t klen, const char *rest, void *arg)
{
    struct hey_acc *a = arg;
    char code[16];
    snprintf(code, sizeof code, "%.*s", (int)(klen < 15 ? klen : 15), key);
    uint64_t n = strtoull(rest, NULL, 10);
    raw_count_status(a->c, a->r, atol(code), n, 200, 300);
    json_object_set_new(a->codes, code, json_integer((json_int_t)n));
}

static void on_error(const char *key, size_t klen, const char *rest, void *arg)
{
    (void)klen;
    struct hey_acc *a = arg;
    uint64_t n = strtoull(key, NULL, 10);
    const char *msg = rest;
    while (*msg == ' ' || *msg == '\t')
        msg++;
    raw_add_error(a->r, msg, n);
    if (json_object_size(a->errs) < 20)
        json_object_set_new(a->errs, msg, json_integer((json_int_t)n));
}

static int hey_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(c->dir, "stdout.txt", 16 << 20, e);
    if (!text)
        return util_err(err, "hey wrote nothing: %s", e);
    if (!strstr(text, "Summary:")) {
        char *all = raw_output(c->dir, 1 << 20), line[160] = "";
        const char *s = all;
        while (*s == '\n')
            s++;
        snprintf(line, sizeof line, "%.*s", (int)strcspn(s, "\n"), s);
        free(all);
        free(text);
        return util_err(err, "hey printed no summary%s%s", line[0] ? ": " : "", line);
    }
    struct hey_acc a = {.c = c, .r = r, .codes = json_object(), .errs = json_object()};
    each_bracket(text, "Status code distribution:", on_status, &a);
    each_bracket(text, "Error distribution:", on_error, &a);
    raw_sum_errors(r);
    double total_s = NAN, tool_rps = NAN, bytes = NAN;
    raw_number(text, "Total:", &total_s);
    raw_number(text, "Requests/sec:", &tool_rps);
    raw_number(text, "Total data:", &bytes);
    r->duration_s = total_s;
    if (total_s > 0)
        r->rps = (double)r->requests / total_s;
    if (bytes > 0 && bytes < 0x1p64) /* a figure past uint64_t is garbage, and UB to cast */
        r->bytes_read = (uint64_t)bytes;
    if (r->requests > 0) {
        r->lat.min = secs_ms(text, "Fastest:");
        r->lat.max = secs_ms(text, "Slowest:");
        r->lat.mean = secs_ms(text, "Average:");
        r->lat.p50 = secs_ms(text, "50% in");
        r->lat.p90 = secs_ms(text, "90% in");
        r->lat.p95 = secs_ms(text, "95% in");
        r->lat.p99 = secs_ms(text, "99% in");
    }
    if (r->requests > HEY_MAX_RESULTS)
        strvec_pushf(&r->warnings, "hey's latency figures cover only its first %llu of %llu responses",
                     HEY_MAX_RESULTS, (unsigned long long)r->requests);
    json_t *x = json_object();
    json_object_set_new(x, "total_s", jsonutil_num(total_s));
    /* hey's own rate counts failed attempts as requests. */
    json_object_set_new(x, "requests_per_sec", jsonutil_num(tool_rps));
    json_object_set_new(x, "status_codes", a.codes);
    json_object_set_new(x, "errors", a.errs);
    json_object_set_new(x, "p10_ms", jsonutil_num(secs_ms(text, "10% in")));
    json_object_set_new(x, "p25_ms", jsonutil_num(secs_ms(text, "25% in")));
    json_object_set_new(x, "p75_ms", jsonutil_num(secs_ms(text, "75% in")));
    r->extra = x;
    r->parsed = 1;
    free(text);
    return 0;
}

const struct adapter adapter_hey = {
    .name = "hey",
    .parse_files = (const char *const[]){"stdout.txt", NULL},
    .description = "hey: Go HTTP load generator, closed model (-c -z), paced with -q per worker",
    .install_hint = "apt-get install hey (or scripts/install-tools)",
    .caps = ADAPTER_CLOSED | ADAPTER_PACED | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_NOKEEPALIVE | ADAPTER_POST | ADAPTER_CHECK,
    .post_how = "-m POST -D body.bin -T application/octet-stream",
    .check_how = RAW_CHECK_HOW,
    .tls_how = "does not verify (hey's requester.go: InsecureSkipVerify: true)",
    .tls_library = "Go's crypto/tls (compiled in)",
    .no_h2_why = "hey's -h2 is HTTP/2 over TLS only (Go's http2.ConfigureTransport): no h2c",
    .versions = "live: 0.1.4 (Debian 0.1.4-2+b4)",
    .latency_measures = "request start (a new connection's dial included) to response body read; min, max and "
                        "percentiles from hey's first 1,000,000 responses only",
    .latency_resolution_ms = 0.1,
    .options = hey_options,
    .detect = hey_detect,
    .prepare = hey_prepare,
    .parse = hey_parse,
};
