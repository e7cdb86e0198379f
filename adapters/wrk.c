/* The adapter for wrk 4.x (Debian 4.1.0): closed model only, no ramp.
 * Results come from adapters/wrk/done.lua, a done() hook that writes wrk's
 * own end-of-run numbers as JSON (latency in µs) to $LB_WRK_OUT; the
 * fixtures in tests/fixtures/wrk/ show every case it meets. */
#include "adapters/wrk.h"
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "adapters/raw.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrk_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"wrk", NULL};
    if (raw_find("wrk", bin, cands, found, err))
        return -1;
    /* `wrk -v` prints "wrk debian/4.1.0-3+b2 [epoll] Copyright ..." and the
     * usage, and exits 1. */
    const char *argv[] = {found->path, "-v", NULL};
    char out[2048];
    adapter_capture(argv, out, sizeof out);
    if (strncmp(out, "wrk ", 4))
        return util_err(err, "%s -v did not print a wrk version: %.80s", found->path, out);
    /* wrk2 also says "wrk 4.0.0"; its usage has -R, --rate. */
    if (strstr(out, "--rate"))
        return util_err(err, "%s is wrk2 (its usage has -R, --rate), not wrk: run it as tool wrk2", found->path);
    char *v = out + 4;
    v[strcspn(v, " \n")] = 0;
    /* "debian/4.1.0-3+b2" -> "4.1.0-3+b2" */
    char *slash = strchr(v, '/');
    snprintf(found->version, sizeof found->version, "%.100s", slash ? slash + 1 : v);
    return 0;
}

static const char *const wrk_options[] = {"threads", NULL};

int wrk_command(const struct adapter_ctx *c, struct adapter_plan *p, const char *tool, uint64_t threads,
                uint64_t conns, uint64_t secs, uint64_t rate, const char *latency_flag, char *err)
{
    if (raw_copy_data(c, "wrk/done.lua", "done.lua", p, err))
        return -1;
    strvec_push(&p->argv, c->found->path);
    strvec_pushf(&p->argv, "-t%llu", (unsigned long long)threads);
    strvec_pushf(&p->argv, "-c%llu", (unsigned long long)conns);
    strvec_pushf(&p->argv, "-d%llus", (unsigned long long)secs);
    if (rate)
        strvec_pushf(&p->argv, "-R%llu", (unsigned long long)rate);
    if (c->load->request_timeout_ns) {
        uint64_t ts = raw_whole_seconds(c->load->request_timeout_ns, tool, "timeout", p);
        strvec_pushf(&p->argv, "--timeout=%llus", (unsigned long long)ts);
    }
    strvec_push(&p->argv, latency_flag);
    /* Names relative to the tool's cwd (the run directory): ctx->dir may
     * itself be relative to loadbench's cwd. */
    strvec_push(&p->argv, "-s");
    strvec_push(&p->argv, "done.lua");
    if (c->load->no_keepalive) { /* wrk reconnects after a response that closes */
        strvec_push(&p->argv, "-H");
        strvec_push(&p->argv, "Connection: close");
    }
    strvec_push(&p->argv, c->url);
    strvec_push(&p->env, "LB_WRK_OUT=" WRK_JSON);
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post)
        strvec_push(&p->env, "LB_WRK_BODY=" ADAPTER_BODY_FILE);
    return 0;
}

extern const struct adapter adapter_wrk;   /* below: its table names the TLS behaviour */

static int wrk_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "wrk", p, &l, err) || raw_closed_only("wrk", &l, err))
        return -1;
    uint64_t conns = (uint64_t)llround(l.level), threads = 0;
    if (raw_option_count(c, "threads", &threads, err))
        return -1;
    if (!threads)
        threads = raw_threads(c->tool_cpus, conns);
    if (threads > conns)
        return util_err(err, "wrk needs at least as many connections as threads (%llu threads, %llu connections)",
                        (unsigned long long)threads, (unsigned long long)conns);
    uint64_t secs = raw_whole_seconds(l.duration_ns, "wrk", "duration", p);
    if (wrk_command(c, p, "wrk", threads, conns, secs, 0, "--latency", err))
        return -1;
    adapter_plan_tls(p, &adapter_wrk, c);
    p->model = "closed";
    p->load_ns = secs * 1000000000ull;
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "threads", json_integer((json_int_t)threads));
    json_object_set_new(p->settings, "connections", json_integer((json_int_t)conns));
    return 0;
}

int wrk_read_summary(const struct adapter_ctx *c, const char *tool, struct adapter_result *r, char *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/" WRK_JSON, c->dir);
    json_error_t je;
    json_t *j = fsutil_load_json(path, FSUTIL_CAP_RESULT, &je);
    if (!j) {
        /* wrk checks one connection before it starts and exits 1 without
         * calling done() when that fails. */
        char *out = raw_output(c->dir, 1 << 20), line[160];
        int said = raw_line_with(out, "unable to connect", line, sizeof line);
        free(out);
        if (said)
            return util_err(err, "%s sent nothing: %s", tool, line);
        /* done() ran but wrote a figure JSON has no word for (Lua's nan,
         * inf): name it so, not as a hook that never ran. */
        if (strcasestr(je.text, "nan") || strcasestr(je.text, "inf"))
            return util_err(err, "%s's " WRK_JSON " holds a NaN or an infinity, which is no number: %s", tool, je.text);
        return util_err(err, "%s wrote no readable " WRK_JSON " (its done() hook did not run): %s", tool, je.text);
    }
    json_t *e = json_object_get(j, "errors"), *lat = json_object_get(j, "latency_us");
    if (!json_is_integer(json_object_get(j, "requests")) || !json_is_object(e)) {
        json_decref(j);
        return util_err(err, WRK_JSON " has no requests/errors: not written by adapters/wrk/done.lua?");
    }
    r->requests = adapter_json_count(j, "requests");
    r->err_connect = adapter_json_count(e, "connect");
    r->err_read = adapter_json_count(e, "read");
    r->err_write = adapter_json_count(e, "write");
    r->err_timeout = adapter_json_count(e, "timeout");
    /* wrk's status errors are responses with status > 399; they are also in
     * requests. */
    r->err_status = adapter_json_count(e, "status");
    raw_sum_errors(r);
    r->ok = r->requests > r->err_status ? r->requests - r->err_status : 0;
    r->bytes_read = adapter_json_count(j, "bytes");
    r->duration_s = adapter_json_num(j, "duration_us") / 1e6;
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    if (json_is_object(lat)) {
        json_t *pc = json_object_get(lat, "percentiles");
        r->lat.min = adapter_json_num(lat, "min") / 1000;
        r->lat.max = adapter_json_num(lat, "max") / 1000;
        r->lat.mean = adapter_json_num(lat, "mean") / 1000;
        r->lat.p50 = adapter_json_num(pc, "50") / 1000;
        r->lat.p90 = adapter_json_num(pc, "90") / 1000;
        r->lat.p95 = adapter_json_num(pc, "95") / 1000;
        r->lat.p99 = adapter_json_num(pc, "99") / 1000;
        r->lat.p999 = adapter_json_num(pc, "99.9") / 1000;
    }
    if (r->err_timeout)
        strvec_pushf(&r->warnings, "%s counted %llu timeouts (its --timeout, default 2 s): they are not in its latency",
                     tool, (unsigned long long)r->err_timeout);
    r->extra = j;
    r->parsed = 1;
    return 0;
}

static int wrk_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    return wrk_read_summary(c, "wrk", r, err);
}

const struct adapter adapter_wrk = {
    .name = "wrk",
    .parse_files = (const char *const[]){"wrk.json", NULL},
    .description = "wrk 4: event-driven HTTP/1.1 benchmark, closed model, Lua done() hook for results",
    .install_hint = "apt-get install wrk (or scripts/install-tools)",
    .caps = ADAPTER_CLOSED | ADAPTER_TLS | ADAPTER_NOKEEPALIVE | ADAPTER_POST,
    .post_how = "wrk.method, wrk.body and Content-Type set in done.lua from $LB_WRK_BODY (wrk's scripts/post.lua way)",
    .no_check_why = RAW_NO_CHECK_WHY,
    .tls_how = "does not verify (wrk's src/ssl.c: SSL_VERIFY_NONE)",
    .tls_library = "OpenSSL 3 (libssl.so.3, dynamically linked)",
    .versions = "live: 4.1.0 (Debian 4.1.0-3+b2)",
    .latency_measures = "request written to response parsed, per keep-alive connection (connect not included); "
                        "closed loop: a slow response delays the next send (coordinated omission)",
    .latency_resolution_ms = 0.001,
    .options = wrk_options,
    .detect = wrk_detect,
    .prepare = wrk_prepare,
    .parse = wrk_parse,
};
