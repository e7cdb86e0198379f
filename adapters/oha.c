/* The adapter for oha (hatoo/oha, tested on 1.13.0 from crates.io, installed
 * by scripts/registry/crates/oha/install; the fixtures in tests/fixtures/oha/
 * are its real output).
 *
 * Closed model: -c N -z D: N connections, each sending its next request
 * when its last one ended (src/client.rs fast::work_until, --no-tui's
 * path). Open model: -q R -z D --latency-correction -c W: a ticker puts
 * the i-th request's time, start + i / R, into an unbounded queue, and W
 * connections each take the next time and send (work_until_with_qps_
 * latency_correction); a request is timed from its time on that timetable,
 * so its wait for a free connection counts. Times still queued at the
 * deadline are dropped, uncounted.
 *
 * At -z, HTTP/1 requests still in flight are aborted and counted as the
 * error "aborted due to deadline" (-w would wait for them; not passed: the
 * studies ran oha's default). The server may have answered them: they are
 * neither requests nor errors here, and the engine's reconciliation
 * explains the server's extra count by the open connections, as for wrk.
 * With -q the same error also counts the connections that were idle,
 * waiting for a time from the queue, when the deadline came.
 *
 * The result: `--output-format json --output oha.json`, read by key name:
 * statusCodeDistribution ("200": n), errorDistribution (message: n),
 * latencyPercentiles ("p50" ... in seconds), summary (fastest, slowest,
 * average in seconds, total, totalData: body bytes). Only requests that
 * got a response, of any status, are in its latency. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OHA_JSON "oha.json"
/* ClientError::Deadline's message (src/client.rs). */
#define OHA_DEADLINE "aborted due to deadline"

static const char *const oha_options[] = {"connections", NULL};

static int oha_detect(const char *bin, struct adapter_found *found, char *err)
{
    /* Where scripts/install-tools puts it (cargo install into a tools
     * folder's bin/), then PATH. */
    static const char *const cands[] = {"T:bin/oha", "oha", NULL};
    if (raw_find("oha", bin, cands, found, err))
        return -1;
    /* "oha 1.13.0" */
    const char *argv[] = {found->path, "--version", NULL};
    char out[512];
    int rc = adapter_capture(argv, out, sizeof out);
    if (rc != 0 || strncmp(out, "oha ", 4))
        return util_err(err, "`%s --version` does not print \"oha VERSION\": not oha? (%.200s)", found->path, out);
    const char *v = out + 4;
    int vl = (int)strcspn(v, " \n");
    snprintf(found->version, sizeof found->version, "%.*s", vl > 100 ? 100 : vl, v);
    raw_origin(found);
    return 0;
}

/* Connections: a closed load's level; an open load's option connections,
 * else max_inflight, else enough for four times the requests in flight at
 * the delay's tail (raw_paced_workers). */
static int oha_connections(const struct adapter_ctx *c, const struct raw_load *l, uint64_t *out, char *err)
{
    if (raw_option_count(c, "connections", out, err))
        return -1;
    if (!l->open) {
        if (*out)
            return util_err(err, "oha: option connections applies to an open load; a closed load's connections "
                            "are its level");
        *out = (uint64_t)llround(l->level);
        return 0;
    }
    if (!*out)
        *out = c->load->max_inflight ? c->load->max_inflight : raw_paced_workers(c->profile, l->level);
    return 0;
}

extern const struct adapter adapter_oha;   /* below: its table names the TLS behaviour */

static int oha_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    uint64_t conns;
    if (raw_pick_load(c, "oha", p, &l, err) || oha_connections(c, &l, &conns, err))
        return -1;
    char d[32];
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "--no-tui");
    strvec_push(&p->argv, "-c");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
    strvec_push(&p->argv, "-z");
    strvec_push(&p->argv, units_format_duration(l.duration_ns, d));
    if (l.open) {
        strvec_push(&p->argv, "-q");
        strvec_pushf(&p->argv, "%.10g", l.level);
        strvec_push(&p->argv, "--latency-correction");
        p->model = "open";
        strvec_pushf(&p->warnings, "oha: %llu connections take the requests from its timetable; a request whose "
                     "time comes while all are busy waits in oha's queue, timed from its time on the timetable "
                     "(--latency-correction), and those still queued at the end are dropped uncounted",
                     (unsigned long long)conns);
    } else {
        p->model = "closed";
    }
    if (c->load->request_timeout_ns) {
        strvec_push(&p->argv, "-t");
        strvec_push(&p->argv, units_format_duration(c->load->request_timeout_ns, d));
    }
    /* a 3xx counted as it came, not followed (oha follows 10 by default) */
    strvec_push(&p->argv, "--redirect");
    strvec_push(&p->argv, "0");
    strvec_push(&p->argv, "--output-format");
    strvec_push(&p->argv, "json");
    strvec_push(&p->argv, "--output");
    strvec_push(&p->argv, OHA_JSON);
    if (c->profile->target.protocol == PROFILE_H2)
        strvec_push(&p->argv, "--http2");
    if (c->ca_file) {
        strvec_push(&p->argv, "--cacert");
        strvec_push(&p->argv, c->ca_file);
    }
    if (c->load->no_keepalive)
        strvec_push(&p->argv, "--disable-keepalive");
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post) /* oha --help: -m METHOD, -D BODY_PATH, -T CONTENT_TYPE */
        strvec_pushv(&p->argv, "-m", "POST", "-D", ADAPTER_BODY_FILE, "-T", ADAPTER_BODY_TYPE, NULL);
    adapter_plan_tls(p, &adapter_oha, c);
    strvec_push(&p->argv, c->url);
    p->load_ns = l.duration_ns;
    /* after the load it sorts every response's latency for its stats */
    p->startup_allowance_ns = 2000000000ull;
    json_object_set_new(p->settings, "connections", json_integer((json_int_t)conns));
    return 0;
}

/* Requests, ok and status errors from statusCodeDistribution ("404": n). */
static int status_counts(const struct adapter_ctx *c, json_t *dist, struct adapter_result *r, char *err)
{
    const char *key;
    json_t *n;
    json_object_foreach(dist, key, n)
    {
        long code;
        if (raw_status_key("oha", "statusCodeDistribution", key, &code, err))
            return -1;
        raw_count_status(c, r, code, adapter_json_count(dist, key), 200, 400);
    }
    return 0;
}

/* Errors from errorDistribution (message: n); returns the deadline's. */
static uint64_t error_counts(json_t *dist, struct adapter_result *r)
{
    const char *msg;
    json_t *n;
    uint64_t deadline = 0;
    json_object_foreach(dist, msg, n)
    {
        if (!strcmp(msg, OHA_DEADLINE))
            deadline += adapter_json_count(dist, msg);
        else
            raw_add_error(r, msg, adapter_json_count(dist, msg));
    }
    return deadline;
}

/* Latency figures: oha's are in seconds. */
static void latency(json_t *summary, json_t *pc, struct adapter_latency *out)
{
    out->min = adapter_json_num(summary, "fastest") * 1000;
    out->mean = adapter_json_num(summary, "average") * 1000;
    out->max = adapter_json_num(summary, "slowest") * 1000;
    out->p50 = adapter_json_num(pc, "p50") * 1000;
    out->p90 = adapter_json_num(pc, "p90") * 1000;
    out->p95 = adapter_json_num(pc, "p95") * 1000;
    out->p99 = adapter_json_num(pc, "p99") * 1000;
    out->p999 = adapter_json_num(pc, "p99.9") * 1000;
}

static int oha_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(c->dir, OHA_JSON, 4 << 20, e);
    json_error_t je;
    json_t *j = text ? json_loads(text, 0, &je) : NULL;
    free(text);
    json_t *summary = json_object_get(j, "summary"), *status = json_object_get(j, "statusCodeDistribution"),
           *errors = json_object_get(j, "errorDistribution");
    if (!json_is_object(summary) || !json_is_object(status) || !json_is_object(errors)) {
        json_decref(j);
        char *all = raw_output(c->dir, 1 << 20), line[160] = "";
        raw_line_with(all, "rror", line, sizeof line);
        free(all);
        return util_err(err, "oha wrote no " OHA_JSON " with summary, statusCodeDistribution and "
                        "errorDistribution%s%s", line[0] ? ": " : "", line);
    }
    if (status_counts(c, status, r, err)) {
        json_decref(j);
        return -1;
    }
    uint64_t deadline = error_counts(errors, r);
    raw_sum_errors(r);
    r->duration_s = adapter_json_num(summary, "total");
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    r->bytes_read = adapter_json_count(summary, "totalData");
    if (r->requests)
        latency(summary, json_object_get(j, "latencyPercentiles"), &r->lat);
    if (deadline)
        strvec_pushf(&r->warnings, "oha aborted %llu request%s at its -z deadline (\"" OHA_DEADLINE "\"): not "
                     "counted; the server may have answered those that were in flight (with -q the count also "
                     "holds connections idle at the deadline)",
                     (unsigned long long)deadline, deadline == 1 ? "" : "s");
    r->extra = j;
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_oha = {
    .name = "oha",
    .parse_files = (const char *const[]){OHA_JSON, NULL},
    .description = "oha (Rust, hyper): closed model (-c -z), open with -q --latency-correction; JSON result",
    .install_hint = "crates.io: scripts/install-tools (cargo install --locked --version 1.13.0 oha into the tools "
                    "folder; needs Rust >= 1.86)",
    .caps = ADAPTER_CLOSED | ADAPTER_OPEN | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_NOKEEPALIVE | ADAPTER_POST | ADAPTER_CHECK,
    .post_how = "-m POST -D body.bin -T application/octet-stream",
    .check_how = RAW_CHECK_HOW,
    .tls_how = "verifies against the run's CA (--cacert; rustls, the system store too)",
    .tls_verifies = 1,
    .tls_library = "rustls (compiled in)",
    .versions = "live: 1.13.0 (crates.io)",
    .latency_measures = "closed: from just before the request is sent (a new connection's connect included) to "
                        "its whole body read; open (-q with --latency-correction): from the request's time on "
                        "oha's timetable, so a wait for a free connection counts (corrected), no uncorrected "
                        "figure. Responses of any status; failed and deadline-aborted requests are not in it. "
                        "min, mean, max, p50/p90/p95/p99/p99.9, exact (every response kept)",
    .latency_resolution_ms = 0.001,
    .options = oha_options,
    .detect = oha_detect,
    .prepare = oha_prepare,
    .parse = oha_parse,
};
