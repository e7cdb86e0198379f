/* The adapter for Vegeta (tsenart/vegeta), run live here as v12.13.0 from
 * the Go module proxy (scripts/install-tools: go install
 * github.com/tsenart/vegeta/v12@v12.13.0 into the tools folder). Its real
 * output is in tests/fixtures/vegeta/, v12.8.4's in tests/fixtures/vegeta/
 * v12.8.4/ (a profile's bin: can still name one). Every flag below is in
 * both versions' own -h (v12.13.0's is tests/fixtures/vegeta/usage*.txt);
 * what v12.13.0 added (-dns-ttl, -connect-to, -prometheus-addr,
 * -session-tickets) is left at its default, which is off or, for -dns-ttl,
 * no lookup for the 127.0.0.1 of the URL.
 *
 * Open model: `vegeta attack -rate R/s -duration D` sends on a timetable
 * (lib/pacer.go: the i-th hit at i / R s, at once when behind) to a pool
 * of -workers goroutines. The pool is fixed (-workers = -max-workers): a
 * timetable whose hits find every worker busy waits for one, so it is
 * sized at four times the requests in flight at the delay's tail.
 * Closed model: -rate=0 is "no pacing" and needs -max-workers: N workers
 * each send their next request when their last one ended (lib/attack.go
 * Attack/attack), on at most N connections (-max-connections).
 *
 * The attack writes its binary results; the wrapper then runs `vegeta
 * encode -to csv` (one row per request, no header: `vegeta encode -h` names
 * its 12 columns, the same in v12.8.4 and v12.13.0, and Vegeta's own CSV
 * decoder wants all 12) and `vegeta report -type=json` (read by field
 * name). The counts, errors and exact percentiles come from the CSV (the
 * JSON report's percentiles are a t-digest's estimate); the JSON report
 * gives the duration and is checked to agree on the request count.
 *
 * HTTPS and HTTP/2 (attack.go tlsConfig, lib/attack.go): -root-certs=CA
 * makes the run's CA its tls.Config's only RootCAs, verified (-insecure
 * not passed). No flag pins the TLS version (Go's client offers 1.2-1.3,
 * lb-target serves the one the profile asks); -session-tickets is left
 * off, so no ClientSessionCache: it never offers to resume. -http2 is on
 * by default (x/net's http2.ConfigureTransport, ALPN h2): h1 passes
 * -http2=false, h2 -http2=true; h2c is -h2c, an http2.Transport dialling
 * plain TCP, which has no keep-alive switch of its own. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "adapters/toolver.h"
#include "common/fsutil.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEGETA_CSV "results.csv"
#define VEGETA_REPORT "report.json"
#define VEGETA_TARGETS "targets.txt"
#define VEGETA_MODULE "github.com/tsenart/vegeta/v12"
/* `vegeta encode -to csv`'s columns (encode.go's usage, lib/results.go
 * NewCSVEncoder): 0 timestamp (ns), 1 status, 2 latency (ns), 3 bytes out,
 * 4 bytes in, 5 error, 6 body (base64), 7 attack name, 8 seq, 9 method,
 * 10 URL, 11 headers (base64). */
enum { CSV_TS, CSV_CODE, CSV_LATENCY, CSV_ERROR = 5, CSV_METHOD = 9, CSV_URL, CSV_COLUMNS = 12 };
/* The longest row read: with -max-body=0 a row is its error text, the URL
 * and the response headers in base64 (about 300 bytes from lb-target). A
 * longer one is refused, never buffered whole (a 1 GB file with no newline
 * costs 64 KiB). */
#define VEGETA_ROW_MAX (64 << 10)

/* $1 the vegeta binary, then the attack's flags. A failed encode or report
 * is exit 70 (no result), else the attack's own exit status. */
#define VEGETA_WRAP                                                                      \
    "v=$1; shift; \"$v\" attack \"$@\" -output=results.bin; rc=$?; "                     \
    "\"$v\" encode -to csv -output " VEGETA_CSV " results.bin || exit 70; "              \
    "\"$v\" report -type=json -output " VEGETA_REPORT " results.bin || exit 70; exit $rc"

static const char *const vegeta_options[] = {"workers", NULL};

static int vegeta_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"T:bin/vegeta", "vegeta", NULL};
    if (raw_find("vegeta", bin, cands, found, err))
        return -1;
    /* "Version: v12.13.0\nCommit: \nRuntime: go1.26.8 linux/amd64\nDate: \n"
     * (v12.8.4's fixture: "Version: v12.8.4\nCommit: e04d9c0..."):
     * Version, Commit and Date are what the build stamped with -ldflags,
     * empty when it stamped none. */
    const char *argv[] = {found->path, "-version", NULL};
    char out[512];
    int rc = adapter_capture(argv, out, sizeof out);
    size_t len = strlen(out);
    while (len && (out[len - 1] == '\n' || out[len - 1] == ' '))
        out[--len] = 0;
    if (rc != 0 || strncmp(out, "Version: ", 9) || !strstr(out, "\nCommit: ") || !strstr(out, "\nRuntime: go"))
        return util_err(err, "`%s -version` does not print Vegeta's Version:/Commit:/Runtime: lines: not Vegeta? "
                        "(%.200s)", found->path, out);
    const char *v = out + 9;
    toolver_go_version(v, strcspn(v, " \n"), found->path, VEGETA_MODULE, found->version, sizeof found->version);
    raw_origin(found);
    return 0;
}

/* -rate as Vegeta takes it: a whole number per time unit. */
static void rate_flag(const struct raw_load *l, struct adapter_plan *p)
{
    double r = l->level;
    if (r == floor(r))
        strvec_pushf(&p->argv, "-rate=%llu/s", (unsigned long long)r);
    else {
        /* per 1000 s: the interval stays 1000 s / freq, to the ms of rate */
        unsigned long long f = (unsigned long long)llround(r * 1000);
        strvec_pushf(&p->argv, "-rate=%llu/1000s", f);
        if (fabs((double)f / 1000 - r) > 1e-9)
            strvec_pushf(&p->warnings, "vegeta: rate %g/s rounded to %llu per 1000 s", r, f);
    }
}

static int vegeta_workers(const struct adapter_ctx *c, const struct raw_load *l, uint64_t *out, char *err)
{
    if (raw_option_count(c, "workers", out, err))
        return -1;
    if (*out)
        return 0;
    *out = !l->open ? (uint64_t)llround(l->level)
           : c->load->max_inflight ? c->load->max_inflight
                                   : raw_paced_workers(c->profile, l->level);
    return 0;
}

extern const struct adapter adapter_vegeta;   /* below: its table names the TLS behaviour */

/* target.protocol and target.tls as flags; keepalive off with h2c is
 * refused: -h2c's http2.Transport has no DisableKeepAlives to honour it. */
static int vegeta_protocol(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    enum profile_protocol proto = c->profile->target.protocol;
    if (proto == PROFILE_H2C && c->load->no_keepalive)
        return util_err(err, "vegeta cannot run load.keepalive off with target.protocol h2c: its -h2c transport "
                        "(x/net http2.Transport) ignores -keepalive=false");
    strvec_push(&p->argv, proto == PROFILE_H2 ? "-http2=true" : "-http2=false");
    if (proto == PROFILE_H2C)
        strvec_push(&p->argv, "-h2c");
    if (proto != PROFILE_H1)
        strvec_push(&p->warnings, "vegeta over HTTP/2: its workers share the HTTP/2 connections Go's transport "
                    "opened, not one each (the row's target_protocol counts them)");
    if (c->ca_file)
        strvec_pushf(&p->argv, "-root-certs=%s", c->ca_file);
    adapter_plan_tls(p, &adapter_vegeta, c);
    return 0;
}

static int vegeta_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "vegeta", p, &l, err))
        return -1;
    uint64_t workers;
    if (vegeta_workers(c, &l, &workers, err))
        return -1;
    if (!l.open && c->tool && json_object_get(c->tool->options, "workers"))
        return util_err(err, "vegeta: option workers applies to an open load; a closed load's workers are its "
                        "connections");
    char targets[1200], d[32];
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    /* Vegeta's http target format: a header line, then @FILE for the body. */
    snprintf(targets, sizeof targets, post ? "POST %s\nContent-Type: " ADAPTER_BODY_TYPE "\n@" ADAPTER_BODY_FILE "\n" : "GET %s\n",
             c->url);
    if (adapter_write(c->dir, VEGETA_TARGETS, targets, err))
        return -1;
    strvec_push(&p->files, VEGETA_TARGETS);
    strvec_push(&p->argv, "/bin/sh");
    strvec_push(&p->argv, "-c");
    strvec_push(&p->argv, VEGETA_WRAP);
    strvec_push(&p->argv, "vegeta-run");
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "-targets=" VEGETA_TARGETS);
    strvec_pushf(&p->argv, "-duration=%s", units_format_duration(l.duration_ns, d));
    if (l.open) {
        rate_flag(&l, p);
        p->model = "open";
        strvec_pushf(&p->warnings, "vegeta: %llu workers; a request whose time comes while all are busy waits "
                     "for one and is timed from when it is sent, not from its time on the timetable",
                     (unsigned long long)workers);
    } else {
        strvec_push(&p->argv, "-rate=0");
        strvec_pushf(&p->argv, "-max-connections=%llu", (unsigned long long)workers);
        p->model = "closed";
    }
    strvec_pushf(&p->argv, "-workers=%llu", (unsigned long long)workers);
    strvec_pushf(&p->argv, "-max-workers=%llu", (unsigned long long)workers);
    if (c->load->request_timeout_ns)
        strvec_pushf(&p->argv, "-timeout=%s", units_format_duration(c->load->request_timeout_ns, d));
    /* keep-alive as the load says, redirects not followed (a 3xx is
     * counted as it came), bodies read whole but not kept in the results */
    strvec_push(&p->argv, c->load->no_keepalive ? "-keepalive=false" : "-keepalive=true");
    if (vegeta_protocol(c, p, err))
        return -1;
    strvec_push(&p->argv, "-redirects=-1");
    strvec_push(&p->argv, "-max-body=0");
    p->load_ns = l.duration_ns;
    p->startup_allowance_ns = 10000000000ull; /* the encode and report after the attack */
    json_object_set_new(p->settings, "workers", json_integer((json_int_t)workers));
    return 0;
}

/* Exact nearest-rank percentiles of the sorted latencies (ns) in ms. */
static void latency(uint64_t *v, size_t n, struct adapter_latency *out)
{
    qsort(v, n, sizeof *v, util_cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    static const double q[] = {50, 90, 95, 99, 99.9};
    double *dst[] = {&out->p50, &out->p90, &out->p95, &out->p99, &out->p999};
    for (int i = 0; i < 5; i++) {
        size_t rank = (size_t)ceil(q[i] / 100 * (double)n);
        *dst[i] = (double)v[rank ? rank - 1 : 0] / 1e6;
    }
    out->min = (double)v[0] / 1e6;
    out->max = (double)v[n - 1] / 1e6;
    out->mean = sum / (double)n / 1e6;
}

/* One CSV row into r; its latency into *lat and its start (ns since the
 * epoch) into *start when it got a response. Returns 1 for a row with a
 * response, 0 a failed one, -1 malformed: not Vegeta's 12 columns, or a
 * column not what it holds in them. */
static int csv_row(const struct adapter_ctx *c, char *line, struct adapter_result *r, uint64_t *lat, uint64_t *start)
{
    char *f[CSV_COLUMNS + 1], *end;
    if (adapter_csv_split(line, f, CSV_COLUMNS + 1) != CSV_COLUMNS)
        return -1;
    unsigned long long ts = strtoull(f[CSV_TS], &end, 10);
    if (*end || end == f[CSV_TS] || !ts)
        return -1;
    unsigned long code = strtoul(f[CSV_CODE], &end, 10);
    if (*end || end == f[CSV_CODE] || code > 999)
        return -1;
    unsigned long long ns = strtoull(f[CSV_LATENCY], &end, 10);
    if (*end || end == f[CSV_LATENCY])
        return -1;
    if (strncmp(f[CSV_URL], "http", 4) || !f[CSV_METHOD][0])
        return -1;
    if (code == 0) {    /* no response: the error is Go's */
        raw_add_error(r, f[CSV_ERROR], 1);
        return 0;
    }
    raw_count_status(c, r, (long)code, 1, 200, 400);
    *lat = ns;
    *start = ts;
    return 1;
}

/* The responses' latencies in ns; or, with fn set, each response given to
 * fn (its start and latency) instead of kept. */
struct lat_vec {
    uint64_t *v;
    size_t n, cap;
    void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count);
    void *arg;
};

/* Read DIR/results.csv into r (counts, errors), its rows into *rows and its
 * responses' latencies onto the end of lv. The file is opened as every
 * file a tool leaves (fsutil_open_input: a FIFO or a symbolic link there is
 * refused, not waited on or followed) and read a row of at most
 * VEGETA_ROW_MAX bytes at a time. */
static int read_csv(const struct adapter_ctx *c, const char *dir, struct adapter_result *r, uint64_t *rows,
                    struct lat_vec *lv, char *err)
{
    char path[1200], why[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s/" VEGETA_CSV, dir);
    FILE *fp = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, why);
    if (!fp && errno == ENOENT)
        return util_err(err, "vegeta wrote no %s (the wrapper's `vegeta encode` did not run)", VEGETA_CSV);
    if (!fp)
        return util_err(err, "vegeta's %s cannot be read: %s", VEGETA_CSV, why);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rc = 0;
    *rows = 0;
    while (!rc && (got = fsutil_getline(&line, &cap, fp, VEGETA_ROW_MAX - 1)) != 0) {
        if (got < 0 && errno == E2BIG) {
            rc = util_err(err, "%s line %llu is longer than %d bytes: not a Vegeta result row", VEGETA_CSV,
                          (unsigned long long)*rows + 1, VEGETA_ROW_MAX - 1);
            break;
        }
        if (got < 0)
            break;
        if (lv->n == lv->cap) {
            lv->cap = lv->cap ? lv->cap * 2 : 1024;
            lv->v = util_xrealloc(lv->v, lv->cap * sizeof *lv->v);
        }
        uint64_t start;
        int k = csv_row(c, line, r, &lv->v[lv->n], &start);
        if (k > 0 && lv->fn) {
            lv->fn(lv->arg, (int64_t)start, lv->v[lv->n], 1);
            k = 0;
        }
        if (k < 0)
            rc = util_err(err, "%s line %llu is not a Vegeta result row (`vegeta encode -to csv`'s 12 columns)",
                          VEGETA_CSV, (unsigned long long)*rows + 1);
        else
            lv->n += (size_t)k;
        ++*rows;
    }
    if (!rc && ferror(fp))
        rc = util_err(err, "vegeta's %s: %s", VEGETA_CSV, strerror(errno));
    free(line);
    fclose(fp);
    return rc;
}

/* instances: N: every copy's rows together, so the percentiles stay exact. */
static int vegeta_merge(const char *const *dirs, size_t n, struct adapter_latency *lat, char *err)
{
    struct lat_vec lv = {0};
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        struct adapter_result scratch;
        adapter_result_init(&scratch);
        uint64_t rows;
        rc = read_csv(NULL, dirs[i], &scratch, &rows, &lv, err);
        adapter_result_free(&scratch);
    }
    if (!rc && !lv.n)
        rc = util_err(err, "no responses in the instances' %s", VEGETA_CSV);
    if (!rc)
        latency(lv.v, lv.n, lat);
    free(lv.v);
    return rc;
}

/* Each response of DIR/results.csv to fn (adapter.h's samples). */
static int vegeta_samples(const char *dir, void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count),
                          void *arg, char *err)
{
    struct lat_vec lv = {.fn = fn, .arg = arg};
    struct adapter_result scratch;
    adapter_result_init(&scratch);
    uint64_t rows;
    int rc = read_csv(NULL, dir, &scratch, &rows, &lv, err);
    adapter_result_free(&scratch);
    free(lv.v);
    return rc;
}

static int vegeta_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(c->dir, VEGETA_REPORT, 1 << 20, e);
    if (!text)
        return util_err(err, "vegeta wrote no JSON report: %s", e);
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    free(text);
    if (!json_is_object(j) || !json_is_number(json_object_get(j, "requests"))) {
        json_decref(j);
        return util_err(err, "vegeta's %s is not a `vegeta report -type=json` report", VEGETA_REPORT);
    }
    uint64_t rows = 0;
    struct lat_vec lv = {0};
    int rc = read_csv(c, c->dir, r, &rows, &lv, err);
    if (!rc && lv.n)
        latency(lv.v, lv.n, &r->lat);
    free(lv.v);
    if (rc) {
        json_decref(j);
        return -1;
    }
    uint64_t reported = adapter_json_count(j, "requests");
    if (rows != reported) {
        json_decref(j);
        return util_err(err, "vegeta's CSV has %llu results but its JSON report counts %llu requests",
                        (unsigned long long)rows, (unsigned long long)reported);
    }
    raw_sum_errors(r);
    /* duration: first to last request sent (ns); the last one's wait is apart */
    r->duration_s = adapter_json_num(j, "duration") / 1e9;
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    r->extra = j;
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_vegeta = {
    .name = "vegeta",
    .parse_files = (const char *const[]){VEGETA_CSV, VEGETA_REPORT, NULL},
    .description = "Vegeta (Go, net/http): open model (-rate R/s), closed with -rate=0 and N workers; exact "
                   "percentiles from its per-request CSV",
    .install_hint = "Go module proxy: scripts/install-tools (go install github.com/tsenart/vegeta/v12@v12.13.0 "
                    "into the tools folder)",
    .caps = ADAPTER_CLOSED | ADAPTER_OPEN | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_H2C | ADAPTER_NOKEEPALIVE |
            ADAPTER_POST | ADAPTER_CHECK,
    .post_how = "a target \"POST URL\", Content-Type, @body.bin",
    .tls_how = "verifies against the run's CA (-root-certs); no flag pins the version (lb-target serves only the "
               "profile's); offers no resumption (-session-tickets off)",
    .tls_verifies = 1,
    .tls_library = "Go's crypto/tls (compiled in)",
    .check_how = RAW_CHECK_HOW,
    .versions = "live: v12.13.0 (Go module proxy); v12.8.4 (fixtures)",
    .latency_measures = "per request, from when a worker starts it (before the request is built and a pooled or "
                        "new connection is taken) to the end of reading the body (lib/attack.go hit()); in the "
                        "open model not from its time on the timetable; responses only (failed requests apart)",
    .latency_resolution_ms = 0.000001,
    .options = vegeta_options,
    .detect = vegeta_detect,
    .prepare = vegeta_prepare,
    .parse = vegeta_parse,
    .merge_latency = vegeta_merge,
    .samples = vegeta_samples,
};
