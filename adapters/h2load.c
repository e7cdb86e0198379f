/* The adapter for h2load (nghttp2 1.52, Debian nghttp2-client) over
 * HTTP/1.1 (--h1): closed model (-c clients for -D), paced with --rps (a
 * rate per client on a closed loop). No --warm-up-time: every request sent
 * is counted. Totals from the text summary; latency percentiles from the
 * per-request --log-file, read line by line into a histogram (constant
 * memory whatever the request count). See tests/fixtures/h2load/README.md. */
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "common/hist.h"
#include "adapters/raw.h"
#include "common/jsonutil.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H2_LOG "h2load.log"

static int h2load_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"h2load", NULL};
    if (raw_find("h2load", bin, cands, found, err))
        return -1;
    /* "h2load nghttp2/1.52.0" */
    const char *argv[] = {found->path, "--version", NULL};
    char out[256];
    adapter_capture(argv, out, sizeof out);
    const char *v = strstr(out, "nghttp2/");
    if (!v)
        return util_err(err, "%s --version did not print an nghttp2 version: %.80s", found->path, out);
    v += 8;
    snprintf(found->version, sizeof found->version, "%.*s", (int)strcspn(v, " \n"), v);
    return 0;
}

static const char *const h2load_options[] = {"threads", "connections", "log", NULL};

/* h2load durations: an integer with h, m, s or ms. */
static void push_duration(struct strvec *argv, uint64_t ns)
{
    uint64_t ms = (ns + 500000ull) / 1000000ull;
    if (ms == 0)
        ms = 1;
    if (ms % 1000 == 0)
        strvec_pushf(argv, "%llus", (unsigned long long)(ms / 1000));
    else
        strvec_pushf(argv, "%llums", (unsigned long long)ms);
}

extern const struct adapter adapter_h2load;   /* below: its table names the TLS behaviour */

static int h2load_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "h2load", p, &l, err))
        return -1;
    uint64_t conns, threads = 0;
    int log = 1;
    if (raw_option_count(c, "threads", &threads, err) || raw_option_bool(c, "log", 1, &log, err))
        return -1;
    double rps = 0;
    if (l.open) {
        uint64_t def = (uint64_t)ceil(l.level) < 50 ? (uint64_t)ceil(l.level) : 50;
        if (raw_paced_connections(c, def, &conns, err))
            return -1;
        rps = l.level / (double)conns;
    } else {
        conns = (uint64_t)llround(l.level);
        if (c->tool && json_object_get(c->tool->options, "connections"))
            strvec_push(&p->warnings, "option connections applies to an open-model load only: the closed load's "
                        "connections were used");
    }
    if (!threads)
        threads = raw_threads(c->tool_cpus, conns);
    if (threads > conns)
        return util_err(err, "h2load needs at least as many clients as threads (%llu threads, %llu clients)",
                        (unsigned long long)threads, (unsigned long long)conns);
    strvec_push(&p->argv, c->found->path);
    if (c->profile->target.protocol == PROFILE_H1)
        strvec_push(&p->argv, "--h1");   /* HTTP/1.1 over plain TCP and over TLS (ALPN http/1.1) */
    adapter_plan_tls(p, &adapter_h2load, c);
    strvec_push(&p->argv, "-c");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
    strvec_push(&p->argv, "-t");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)threads);
    strvec_push(&p->argv, "-D");
    push_duration(&p->argv, l.duration_ns);
    if (l.open) {
        strvec_pushf(&p->argv, "--rps=%.6g", rps);
        strvec_pushf(&p->warnings, "h2load has no arrival-rate model: %llu clients each paced to %.6g requests/s "
                     "(--rps is per client) for %.10g requests/s in all (paced, not open)",
                     (unsigned long long)conns, rps, l.level);
        json_object_set_new(p->settings, "rps_per_client", json_real(rps));
        p->model = "paced";
    } else {
        p->model = "closed";
    }
    if (c->load->request_timeout_ns)
        strvec_push(&p->warnings, "h2load has no per-request timeout: the profile's timeout is not applied");
    if (log) {
        strvec_push(&p->argv, "--log-file=" H2_LOG);
    } else {
        strvec_push(&p->warnings, "h2load runs without --log-file (option log: false): no latency percentiles");
    }
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post) /* h2load --help: -d FILE posts it (the method becomes POST), -H adds a header */
        strvec_pushv(&p->argv, "-d", ADAPTER_BODY_FILE, "-H", "Content-Type: " ADAPTER_BODY_TYPE, NULL);
    strvec_push(&p->argv, c->url);
    p->load_ns = (l.duration_ns + 500000ull) / 1000000ull * 1000000ull;
    if (!p->load_ns)
        p->load_ns = 1000000ull;
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "threads", json_integer((json_int_t)threads));
    json_object_set_new(p->settings, "clients", json_integer((json_int_t)conns));
    json_object_set_new(p->settings, "log_file", json_boolean(log));
    return 0;
}

/* "33us", "11.67ms", "1.2s" (h2load picks the unit per value) in ms. */
static double dur_ms(const char *s, const char **end)
{
    char *e;
    double v = strtod(s, &e);
    if (e == s) {
        *end = s;
        return NAN;
    }
    double ms = NAN;
    if (!strncmp(e, "us", 2)) {
        ms = v / 1000;
        e += 2;
    } else if (!strncmp(e, "ms", 2)) {
        ms = v;
        e += 2;
    } else if (*e == 's') {
        ms = v * 1000;
        e += 1;
    }
    *end = e;
    return ms;
}

/* Read the --log-file: "<start µs since epoch>\t<status>\t<µs to end of
 * response>", status -1 for a failed stream. Returns the lines with a
 * status, recorded in h (µs); 0 when there is no log; -1 with err when
 * the log is there but cannot be read whole (refused: a FIFO, a link; or
 * a line over 1 MiB, which no log of h2load's has). */
static int64_t read_log(const char *dir, struct hist *h, char *err)
{
    char path[1200], why[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s/" H2_LOG, dir);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, why);
    if (!f)
        return errno == ENOENT ? 0 : util_err(err, "h2load's log: %s", why);
    char *line = NULL;
    size_t cap = 0;
    int64_t n = 0;
    ssize_t len;
    while ((len = fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX)) > 0) {
        char *p = strchr(line, '\t');
        if (!p)
            continue;
        long status = strtol(p + 1, &p, 10);
        if (status < 100 || *p != '\t')
            continue;
        unsigned long long us = strtoull(p + 1, NULL, 10);
        hist_record(h, us);
        n++;
    }
    int e = errno;
    free(line);
    fclose(f);
    if (len < 0)
        return util_err(err, "h2load's log %s: %s", H2_LOG, e == E2BIG ? "a line over 1 MiB: not h2load's" : strerror(e));
    return n;
}

static int h2load_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(c->dir, "stdout.txt", 16 << 20, e);
    if (!text)
        return util_err(err, "h2load wrote nothing: %s", e);
    /* Progress lines of several threads interleave: only what follows
     * "finished in" is the summary. */
    char *sum = strstr(text, "\nfinished in ");
    unsigned long long total = 0, started = 0, done = 0, succeeded = 0, failed = 0, errored = 0, timeout = 0;
    const char *req = sum ? raw_after(sum, "requests:") : NULL;
    if (!req || sscanf(req, " %llu total, %llu started, %llu done, %llu succeeded, %llu failed, %llu errored, "
                            "%llu timeout",
                       &total, &started, &done, &succeeded, &failed, &errored, &timeout) != 7) {
        char *all = raw_output(c->dir, 1 << 20), line[160] = "";
        if (!raw_line_with(all, "rror", line, sizeof line))
            raw_line_with(all, "nvalid", line, sizeof line);
        free(all);
        free(text);
        return util_err(err, "h2load printed no summary%s%s", line[0] ? ": " : "", line);
    }
    unsigned long long s2 = 0, s3 = 0, s4 = 0, s5 = 0;
    const char *sc = raw_after(sum, "status codes:");
    if (sc)
        sscanf(sc, " %llu 2xx, %llu 3xx, %llu 4xx, %llu 5xx", &s2, &s3, &s4, &s5);
    r->requests = s2 + s3 + s4 + s5;
    r->ok = s2;
    r->err_status = s3 + s4 + s5;
    /* "errored" are streams closed without a response (connection errors);
     * h2load counts its timeouts apart and, where it also counts them as
     * errored, they are taken out here. */
    r->err_timeout = timeout;
    r->err_other = errored > timeout ? errored - timeout : 0;
    raw_sum_errors(r);
    const char *fin = sum + 1 + strlen("finished in ");
    const char *end;
    double secs = dur_ms(fin, &end) / 1000;
    r->duration_s = secs;
    if (secs > 0)
        r->rps = (double)r->requests / secs;
    const char *tr = raw_after(sum, "traffic:");
    if (tr && (tr = strchr(tr, '(')))
        r->bytes_read = strtoull(tr + 1, NULL, 10);

    struct hist *h = hist_new(3600ull * 1000000ull, 3);
    int64_t logged = read_log(c->dir, h, err);
    if (logged < 0) {
        hist_free(h);
        free(text);
        return -1;
    }
    if (logged) {
        r->lat.min = (double)hist_min(h) / 1000;
        r->lat.max = (double)hist_max(h) / 1000;
        r->lat.mean = hist_mean(h) / 1000;
        r->lat.p50 = (double)hist_percentile(h, 50) / 1000;
        r->lat.p90 = (double)hist_percentile(h, 90) / 1000;
        r->lat.p95 = (double)hist_percentile(h, 95) / 1000;
        r->lat.p99 = (double)hist_percentile(h, 99) / 1000;
        r->lat.p999 = (double)hist_percentile(h, 99.9) / 1000;
        if ((uint64_t)logged != r->requests)
            strvec_pushf(&r->warnings, "h2load's log has %llu responses, its summary %llu",
                         (unsigned long long)logged, (unsigned long long)r->requests);
    } else if (r->requests) {
        /* No log: min, max and mean of h2load's own (sampled) statistics. */
        const char *t = raw_after(sum, "time for request:");
        if (t) {
            r->lat.min = dur_ms(t + strspn(t, " "), &end);
            t = end;
            r->lat.max = dur_ms(t + strspn(t, " "), &end);
            t = end;
            r->lat.mean = dur_ms(t + strspn(t, " "), &end);
        }
    }
    hist_free(h);
    if (total == 0)
        strvec_push(&r->warnings, "h2load sent no request (it prints no error when connections are refused)");
    json_t *x = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "total", (json_int_t)total, "started",
                          (json_int_t)started, "done", (json_int_t)done, "succeeded", (json_int_t)succeeded, "failed",
                          (json_int_t)failed, "errored", (json_int_t)errored, "timeout", (json_int_t)timeout,
                          "log_lines", (json_int_t)logged);
    double tool_rps = NAN;
    const char *comma = strchr(fin, ',');
    if (comma)
        tool_rps = strtod(comma + 1, NULL);
    json_object_set_new(x, "requests_per_sec", jsonutil_num(tool_rps));
    json_object_set_new(x, "status_codes",
                        json_pack("{s:I, s:I, s:I, s:I}", "2xx", (json_int_t)s2, "3xx", (json_int_t)s3, "4xx",
                                  (json_int_t)s4, "5xx", (json_int_t)s5));
    r->extra = x;
    r->parsed = 1;
    free(text);
    return 0;
}

const struct adapter adapter_h2load = {
    .name = "h2load",
    .parse_files = (const char *const[]){"stdout.txt", "h2load.log", NULL},
    .description = "h2load (nghttp2) over HTTP/1.1: closed model (-c -D), paced with --rps per client",
    .install_hint = "apt-get install nghttp2-client (or scripts/install-tools)",
    .caps = ADAPTER_CLOSED | ADAPTER_PACED | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_H2C | ADAPTER_POST,
    .post_how = "-d body.bin (POST) -H Content-Type",
    .no_check_why = RAW_NO_CHECK_WHY,
    /* h2load has no option for a CA: it does not check the server's certificate. */
    .tls_how = "does not verify (h2load has no CA option)",
    .tls_library = "OpenSSL 3 (libssl.so.3, dynamically linked)",
    .versions = "live: 1.52.0 (Debian nghttp2-client)",
    .latency_measures = "request submitted to response complete (h2load's per-request log, µs), responses only",
    .latency_resolution_ms = 0.001,
    .options = h2load_options,
    .detect = h2load_detect,
    .prepare = h2load_prepare,
    .parse = h2load_parse,
};
