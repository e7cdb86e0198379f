#include "generator/report.h"
#include "common/hist.h"
#include "common/util.h"

#include <errno.h>
#include <string.h>

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static json_t *latency_json(const struct hist *h)
{
    if (hist_count(h) == 0)
        return json_null();
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
                     "count", (json_int_t)hist_count(h),
                     "min", ms(hist_min(h)),
                     "mean", hist_mean(h) / 1e6,
                     "stddev", hist_stddev(h) / 1e6,
                     "p50", ms(hist_percentile(h, 50)),
                     "p90", ms(hist_percentile(h, 90)),
                     "p95", ms(hist_percentile(h, 95)),
                     "p99", ms(hist_percentile(h, 99)),
                     "p999", ms(hist_percentile(h, 99.9)),
                     "p9999", ms(hist_percentile(h, 99.99)),
                     "max", ms(hist_max(h)));
}

static json_t *stages_json(const struct stages *st)
{
    json_t *a = json_array();
    for (size_t i = 0; i < st->n; i++)
        json_array_append_new(a, json_pack("{s:f, s:f}", "duration_s", (double)st->v[i].duration_ns / 1e9,
                                           "target", st->v[i].target));
    return a;
}

static json_t *config_json(const struct gen_config *cfg)
{
    int closed = cfg->model == GEN_CLOSED;
    json_t *c = json_pack("{s:s, s:i, s:f, s:f, s:f, s:b}",
                          "url", cfg->url,
                          "threads", cfg->threads,
                          "duration_s", (double)cfg->duration_ns / 1e9,
                          "timeout_s", (double)cfg->timeout_ns / 1e9,
                          "grace_s", (double)cfg->grace_ns / 1e9,
                          "close", cfg->close_each);
    json_object_set_new(c, "threads_requested", json_integer(cfg->threads_requested));
    json_object_set_new(c, "keepalive", json_boolean(!cfg->close_each));
    if (cfg->expect_status)
        json_object_set_new(c, "expect_status", json_integer(cfg->expect_status));
    if (cfg->body_bytes)
        json_object_set_new(c, "post_body_bytes", json_integer((json_int_t)cfg->body_bytes));
    if (closed) {
        if (cfg->load_from_stages)
            json_object_set_new(c, "stages", stages_json(&cfg->load));
        else
            json_object_set_new(c, "connections", json_integer((json_int_t)cfg->load.start));
    } else {
        if (cfg->load_from_stages)
            json_object_set_new(c, "rate_stages", stages_json(&cfg->load));
        else
            json_object_set_new(c, "rate", json_real(cfg->load.start));
        json_object_set_new(c, "connections", json_integer(cfg->connections));
        json_object_set_new(c, "max_inflight", json_integer(cfg->max_inflight));
    }
    if (cfg->ncpus > 0) {
        json_t *a = json_array();
        for (int i = 0; i < cfg->ncpus; i++)
            json_array_append_new(a, json_integer(cfg->cpus[i]));
        json_object_set_new(c, "cpus", a);
    } else {
        json_object_set_new(c, "cpus", json_null());
    }
    return c;
}

/* https: what was asked and what came of it; null for plain http://. */
static json_t *tls_json(const struct gen_config *cfg, const struct gen_result *r)
{
    if (!cfg->tls)
        return json_null();
    const struct gen_counts *c = &r->c;
    const struct gtls_opts *t = &cfg->tls_opts;
    json_t *o = json_pack("{s:s, s:s, s:b, s:s, s:s?, s:I, s:I, s:I, s:I}",
                          "version_asked", gtls_version_asked(t),
                          "verify", gtls_verify_name(t),
                          "resumption", t->resumption,
                          "host", t->host,
                          "cafile", t->cafile,
                          "handshakes", (json_int_t)c->tls_handshakes,
                          "resumed", (json_int_t)c->tls_resumed,
                          "failed", (json_int_t)c->tls_failed,
                          "unfinished", (json_int_t)c->tls_unfinished);
    json_object_set_new(o, "version", r->tls_version ? json_string(r->tls_version) : json_null());
    json_object_set_new(o, "cipher", r->tls_cipher ? json_string(r->tls_cipher) : json_null());
    json_object_set_new(o, "first_failure", r->tls_failure[0] ? json_string(r->tls_failure) : json_null());
    return o;
}

/* What was spoken: "h2" (HTTP/2 over TLS, ALPN h2), "h2c" (HTTP/2 with
 * prior knowledge) or "h1" (HTTP/1.1, plain or over TLS). */
static const char *protocol_name(const struct gen_config *cfg)
{
    return !cfg->h2 ? "h1" : cfg->tls ? "h2" : "h2c";
}

/* --http2: the streams the server reset (RST_STREAM, or cut off by a
 * GOAWAY; each also a read error) and the GOAWAYs; null over HTTP/1.1. */
static json_t *h2_json(const struct gen_config *cfg, const struct gen_result *r)
{
    if (!cfg->h2)
        return json_null();
    return json_pack("{s:I, s:I}", "resets", (json_int_t)r->c.h2_resets, "goaways", (json_int_t)r->c.h2_goaways);
}

static json_t *series_json(const struct gen_result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->series.n; i++) {
        const struct series_row *row = r->series.rows[i];
        json_t *o = json_pack("{s:I, s:I, s:I, s:I}",
                              "t", (json_int_t)i,
                              "sent", (json_int_t)(row ? row->sent : 0),
                              "completed", (json_int_t)(row ? row->completed : 0),
                              "errors", (json_int_t)(row ? row->errors : 0));
        /* Absent stays absent: a second without responses has no latency. */
        if (row && row->completed) {
            json_object_set_new(o, "p50_ms", json_real(ms(series_percentile_ns(row, 50))));
            json_object_set_new(o, "p99_ms", json_real(ms(series_percentile_ns(row, 99))));
        } else {
            json_object_set_new(o, "p50_ms", json_null());
            json_object_set_new(o, "p99_ms", json_null());
        }
        json_object_set_new(o, "active_connections", json_integer(r->series.active[i]));
        json_array_append_new(a, o);
    }
    return a;
}

int report_shortfall(const struct gen_result *r, char *err)
{
    const struct gen_counts *c = &r->c;
    if (r->max_open >= r->asked)
        return 0;
    return util_err(err,
                    "only %u of the %u connections asked for were open at once (%llu connects failed, %llu still "
                    "in progress when the load ended): %s",
                    r->max_open, r->asked, (unsigned long long)c->err_connect, (unsigned long long)c->conn_unfinished,
                    r->interrupted ? "the run was interrupted before they were all open" : "the load was not delivered");
}

json_t *report_json(const struct gen_config *cfg, const struct gen_result *r)
{
    const struct gen_counts *c = &r->c;
    int open = cfg->model == GEN_OPEN;
    double load_s = (double)(r->stop_ns - r->start_ns) / 1e9;
    double elapsed_s = (double)(r->end_ns - r->start_ns) / 1e9;
    /* With --expect-status a response's status error is the check's. */
    uint64_t status = cfg->expect_status ? c->check_failed : c->non2xx;
    uint64_t errors = c->err_connect + c->err_read + c->err_write + c->err_timeout + status;

    json_t *j = json_pack("{s:s, s:{s:s, s:s, s:s}, s:s, s:o}",
                          "schema", REPORT_SCHEMA,
                          "tool", "name", "lb-gen", "version", LB_VERSION, "git", LB_GIT_REV,
                          "model", open ? "open" : "closed",
                          "config", config_json(cfg));
    /* Top-level for readers that want one number: start to last response. */
    json_object_set_new(j, "duration_s", json_real(elapsed_s));
    json_object_set_new(j, "time", json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f}",
        "start_wall_ms", (json_int_t)r->start_wall_ms,
        "end_wall_ms", (json_int_t)r->end_wall_ms,
        "start_mono_ns", (json_int_t)r->start_ns,
        "stop_mono_ns", (json_int_t)r->stop_ns,
        "end_mono_ns", (json_int_t)r->end_ns,
        "load_s", load_s,
        "drain_s", (double)(r->end_ns - r->stop_ns) / 1e9,
        "elapsed_s", elapsed_s));
    json_object_set_new(j, "requests", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
        "sent", (json_int_t)c->sent,
        "completed", (json_int_t)c->completed,
        "ok", (json_int_t)c->ok,
        "non2xx", (json_int_t)c->non2xx,
        "check_failed", (json_int_t)c->check_failed,
        "unfinished", (json_int_t)c->unfinished,
        "per_s", elapsed_s > 0 ? (double)c->completed / elapsed_s : 0.0));
    json_object_set_new(j, "errors", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}",
        "connect", (json_int_t)c->err_connect,
        "read", (json_int_t)c->err_read,
        "write", (json_int_t)c->err_write,
        "timeout", (json_int_t)c->err_timeout,
        "status", (json_int_t)status,
        "total", (json_int_t)errors));
    json_object_set_new(j, "protocol", json_string(protocol_name(cfg)));
    json_object_set_new(j, "h2", h2_json(cfg, r));
    json_object_set_new(j, "latency_from", json_string(open ? "intended_send" : "send"));
    json_object_set_new(j, "latency_ms", latency_json(r->lat));
    if (open) {
        json_object_set_new(j, "latency_uncorrected_ms", latency_json(r->lat_uncorr));
        json_object_set_new(j, "schedule", json_pack("{s:I, s:I, s:I, s:I, s:I, s:f}",
            "scheduled", (json_int_t)c->scheduled,
            "sent", (json_int_t)c->sent,
            "late", (json_int_t)c->late,
            "dropped", (json_int_t)c->dropped,
            "inflight_cap_hits", (json_int_t)c->cap_hits,
            "late_threshold_ms", ms(GEN_LATE_NS)));
        /* Offered vs achieved: a rate the generator cannot keep is a result. */
        json_t *sch = json_object_get(j, "schedule");
        json_object_set_new(sch, "offered_per_s", json_real(load_s > 0 ? (double)c->scheduled / load_s : 0.0));
        json_object_set_new(sch, "arrivals", json_string(cfg->poisson ? "poisson" : "timetable"));
        if (cfg->poisson)
            json_object_set_new(sch, "seed", json_integer((json_int_t)cfg->seed));
        json_object_set_new(sch, "sent_per_s", json_real(load_s > 0 ? (double)c->sent / load_s : 0.0));
    }
    json_object_set_new(j, "histogram", json_pack("{s:i, s:f, s:f, s:I}",
        "significant_digits", 3,
        "resolution", hist_resolution(r->lat),
        "highest_ms", ms(GEN_HIST_HIGHEST_NS),
        "saturated", (json_int_t)hist_saturated(r->lat)));
    json_object_set_new(j, "connections", json_pack("{s:I, s:I, s:I, s:I, s:I}",
        "asked", (json_int_t)r->asked,
        "opened", (json_int_t)c->conn_opened,
        "closed", (json_int_t)c->conn_closed,
        "max_open", (json_int_t)r->max_open,
        "unfinished", (json_int_t)c->conn_unfinished));
    json_object_set_new(j, "tls", tls_json(cfg, r));
    char err[UTIL_ERR_LEN];
    json_object_set_new(j, "error", report_shortfall(r, err) < 0 ? json_string(err) : json_null());
    json_object_set_new(j, "bytes", json_pack("{s:I, s:I}",
        "read", (json_int_t)c->bytes_read, "written", (json_int_t)c->bytes_written));
    json_object_set_new(j, "series_precision", json_string(
        "per-second p50/p99 from a coarse histogram: within 3.2 % or 1 us; whole-run latency_ms is 3 significant digits"));
    json_object_set_new(j, "series", series_json(r));
    return j;
}

static void human_latency(FILE *f, const char *label, const struct hist *h)
{
    if (!hist_count(h)) {
        fprintf(f, "  %-22s none\n", label);
        return;
    }
    fprintf(f, "  %-22s min %.3f  mean %.3f  p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f ms\n", label,
            ms(hist_min(h)), hist_mean(h) / 1e6, ms(hist_percentile(h, 50)), ms(hist_percentile(h, 90)),
            ms(hist_percentile(h, 99)), ms(hist_percentile(h, 99.9)), ms(hist_max(h)));
}

void report_human(FILE *f, const struct gen_config *cfg, const struct gen_result *r)
{
    const struct gen_counts *c = &r->c;
    double elapsed_s = (double)(r->end_ns - r->start_ns) / 1e9;
    fprintf(f, "lb-gen %s: %s model, %d thread(s), %s, %s\n", LB_VERSION, cfg->model == GEN_OPEN ? "open" : "closed",
            cfg->threads, protocol_name(cfg), cfg->url);
    fprintf(f, "  requests: %llu sent, %llu completed (%llu 2xx, %llu other) in %.3f s = %.1f/s\n",
            (unsigned long long)c->sent, (unsigned long long)c->completed, (unsigned long long)c->ok,
            (unsigned long long)c->non2xx, elapsed_s, elapsed_s > 0 ? (double)c->completed / elapsed_s : 0.0);
    fprintf(f, "  errors: connect %llu, read %llu, write %llu, timeout %llu, status %llu\n",
            (unsigned long long)c->err_connect, (unsigned long long)c->err_read, (unsigned long long)c->err_write,
            (unsigned long long)c->err_timeout, (unsigned long long)(cfg->expect_status ? c->check_failed : c->non2xx));
    if (cfg->expect_status)
        fprintf(f, "  check: %llu responses with a status other than %u\n", (unsigned long long)c->check_failed,
                cfg->expect_status);
    if (cfg->model == GEN_OPEN) {
        human_latency(f, "latency (corrected):", r->lat);
        human_latency(f, "latency (uncorrected):", r->lat_uncorr);
        fprintf(f, "  schedule: %llu scheduled, %llu sent, %llu late, %llu dropped, in-flight cap hit %llu times\n",
                (unsigned long long)c->scheduled, (unsigned long long)c->sent, (unsigned long long)c->late,
                (unsigned long long)c->dropped, (unsigned long long)c->cap_hits);
    } else {
        human_latency(f, "latency:", r->lat);
    }
    fprintf(f, "  connections: %u asked, %llu opened, %llu closed, at most %u open%s\n", r->asked,
            (unsigned long long)c->conn_opened, (unsigned long long)c->conn_closed, r->max_open,
            cfg->close_each ? " (no keep-alive: one per request)" : "");
    if (cfg->tls)
        fprintf(f, "  tls: %s %s, verify %s, %llu handshakes (%llu resumed), %llu failed%s%s\n",
                r->tls_version ? r->tls_version : "(none completed)", r->tls_cipher ? r->tls_cipher : "",
                gtls_verify_name(&cfg->tls_opts), (unsigned long long)c->tls_handshakes,
                (unsigned long long)c->tls_resumed, (unsigned long long)c->tls_failed,
                r->tls_failure[0] ? ": " : "", r->tls_failure);
    if (cfg->h2)
        fprintf(f, "  h2: %llu streams reset by the server, %llu GOAWAY\n", (unsigned long long)c->h2_resets,
                (unsigned long long)c->h2_goaways);
}

/* path opened for lb-gen's own output file (--percentiles,
 * --seconds-dist), or NULL with err. */
static FILE *open_out(const char *path, char *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        util_err(err, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int report_seconds(const char *path, const struct gen_result *r, char *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    fprintf(f, "# lb-gen: each second's latency histogram (1 ns..100 s, 3 significant digits), one bucket a "
               "line: the second from the load's start (start_wall_ms), the bucket's highest equivalent value "
               "in ns (the second's max in its top bucket), the count\n");
    fprintf(f, "start_wall_ms %llu\n", (unsigned long long)r->start_wall_ms);
    for (size_t i = 0; i < r->sec_dist.n; i++)
        fprintf(f, "%llu %llu %llu\n", (unsigned long long)r->sec_dist.v[i].sec,
                (unsigned long long)r->sec_dist.v[i].value, (unsigned long long)r->sec_dist.v[i].count);
    if (fclose(f) != 0)
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int report_sends(const char *path, const struct gen_result *r, char *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    fprintf(f, "# lb-gen: each request's send time, CLOCK_MONOTONIC ns, in order (the clock of lb-target's GET "
               "/arrivals); dropped: past %u a thread\ndropped %llu\n", GEN_SENDS_MAX,
            (unsigned long long)r->sends.dropped);
    for (size_t i = 0; i < r->sends.n; i++)
        fprintf(f, "%llu\n", (unsigned long long)r->sends.v[i]);
    if (fclose(f) != 0)
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int report_percentiles(const char *path, const struct gen_result *r, char *err)
{
    FILE *f = open_out(path, err);
    if (!f)
        return -1;
    uint64_t total = hist_count(r->lat), seen = 0, value, count;
    size_t cursor = 0;
    fprintf(f, "%12s %14s %12s %14s\n\n", "Value(ms)", "Percentile", "TotalCount", "1/(1-Percentile)");
    while (hist_next(r->lat, &cursor, &value, &count)) {
        seen += count;
        if (value > hist_max(r->lat))
            value = hist_max(r->lat);
        double q = (double)seen / (double)total;
        if (q < 1)
            fprintf(f, "%12.6f %14.12f %12llu %14.2f\n", ms(value), q, (unsigned long long)seen, 1 / (1 - q));
        else
            fprintf(f, "%12.6f %14.12f %12llu %14s\n", ms(value), q, (unsigned long long)seen, "inf");
    }
    fprintf(f, "#[Mean = %.6f, StdDeviation = %.6f]\n#[Max = %.6f, Total count = %llu]\n", hist_mean(r->lat) / 1e6,
            hist_stddev(r->lat) / 1e6, ms(hist_max(r->lat)), (unsigned long long)total);
    if (fclose(f) != 0)
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}
