/* The adapter for bombardier (codesenberg/bombardier), run live here as
 * v1.2.6 from the Go module proxy (scripts/install-tools: go install
 * github.com/codesenberg/bombardier@v1.2.6 into the tools folder, with
 * fasthttp v1.46.0 as its go.mod asks); the fixtures in
 * tests/fixtures/bombardier/ are its real output, and every flag below is
 * in its own --help (usage.txt there).
 *
 * Closed model: -c connections for -d (a Go duration, so no rounding to
 * whole seconds). A rate: --rate caps the same closed connections with a
 * token bucket (paced, not open: a connection waits for its response).
 * The result comes from `-o json -p r -l`: one JSON object on stdout with
 * counts per status class, the errors by description and, with -l, the
 * latency mean/max and p50/75/90/95/99 in microseconds.
 *
 * HTTPS (v1.2.6's client_cert.go generateTLSConfig): its tls.Config sets
 * only InsecureSkipVerify (-k, not passed) and client certificates, so
 * RootCAs is nil and Go's crypto/x509 verifies against the system roots,
 * which it reads from SSL_CERT_FILE when set (root_unix.go): the run's CA
 * goes there. No flag pins the TLS version (Go's client offers 1.2-1.3,
 * lb-target serves the one the profile asks) and no ClientSessionCache is
 * set, so it never offers to resume. HTTP/1.1 over TLS is its default
 * fasthttp client (no ALPN offered); target.protocol h2 is --http2: the
 * net/http client with x/net's http2.ConfigureTransport (ALPN h2). */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "adapters/toolver.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bombardier_options[] = {"connections", NULL};

static int bombardier_detect(const char *bin, struct adapter_found *found, char *err)
{
    /* Where scripts/install-tools puts it (go install into a tools
     * folder's bin/), then PATH. */
    static const char *const cands[] = {"T:bin/bombardier", "bombardier", NULL};
    if (raw_find("bombardier", bin, cands, found, err))
        return -1;
    /* "bombardier version v1.2.6 linux/amd64" (kingpin prints it on
     * stderr); "unspecified" when the build stamped no main.version with
     * -ldflags: the module version in the binary then. */
    const char *argv[] = {found->path, "--version", NULL};
    char out[512];
    int rc = adapter_capture(argv, out, sizeof out);
    const char *v = strstr(out, "bombardier version ");
    if (rc != 0 || !v)
        return util_err(err, "`%s --version` failed: %.200s", found->path, out);
    v += strlen("bombardier version ");
    toolver_go_version(v, strcspn(v, " \n"), found->path, "github.com/codesenberg/bombardier", found->version,
                       sizeof found->version);
    raw_origin(found);
    return 0;
}

extern const struct adapter adapter_bombardier;   /* below: its table names the TLS behaviour */

/* --http2 (the net/http client) for h2, else its default fasthttp client;
 * keepalive off as each client takes it; the CA through SSL_CERT_FILE. */
static void bombardier_client(const struct adapter_ctx *c, struct adapter_plan *p)
{
    int h2 = c->profile->target.protocol == PROFILE_H2;
    if (h2)
        strvec_push(&p->argv, "--http2");
    if (c->load->no_keepalive && h2) /* -a: net/http's DisableKeepAlives (x/net http2: one request a connection) */
        strvec_push(&p->argv, "-a");
    else if (c->load->no_keepalive) { /* fasthttp has no -a (bombardier --help): it closes on the header */
        strvec_push(&p->argv, "-H");
        strvec_push(&p->argv, "Connection: close");
    }
    if (c->ca_file)
        strvec_pushf(&p->env, "SSL_CERT_FILE=%s", c->ca_file);
    adapter_plan_tls(p, &adapter_bombardier, c);
    json_object_set_new(p->settings, "client", json_string(h2 ? "net/http (--http2)" : "fasthttp"));
    if (h2)
        strvec_push(&p->warnings, "bombardier --http2: its -c goroutines share the HTTP/2 connections Go's "
                    "transport opened (as many as it dialled before the first was up, more only past the server's "
                    "stream limit): -c counts requests in flight, not connections (the row's target_protocol "
                    "counts them)");
}

static int bombardier_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "bombardier", p, &l, err))
        return -1;
    /* bombardier's own default is 125 connections. */
    uint64_t conns;
    if (raw_connections(c, &l, 125, p, &conns, err))
        return -1;
    char d[32];
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "-c");
    strvec_pushf(&p->argv, "%llu", (unsigned long long)conns);
    strvec_push(&p->argv, "-d");
    strvec_push(&p->argv, units_format_duration(l.duration_ns, d));
    if (l.open)
        strvec_pushf(&p->argv, "--rate=%llu", (unsigned long long)raw_paced_rate("bombardier", "--rate", &l, conns, p));
    else
        p->model = "closed";
    if (c->load->request_timeout_ns) {
        strvec_push(&p->argv, "-t");
        strvec_push(&p->argv, units_format_duration(c->load->request_timeout_ns, d));
    }
    strvec_push(&p->argv, "-l");
    strvec_push(&p->argv, "-o");
    strvec_push(&p->argv, "json");
    strvec_push(&p->argv, "-p");
    strvec_push(&p->argv, "r");
    bombardier_client(c, p);
    int post = adapter_body_file(c, p, err);
    if (post < 0)
        return -1;
    if (post) /* bombardier --help: -m method, -f body file, -H header */
        strvec_pushv(&p->argv, "-m", "POST", "-f", ADAPTER_BODY_FILE, "-H", "Content-Type: " ADAPTER_BODY_TYPE, NULL);
    strvec_push(&p->argv, c->url);
    p->load_ns = l.duration_ns;
    json_object_set_new(p->settings, "connections", json_integer((json_int_t)conns));
    return 0;
}

/* Latency figures: bombardier's are in microseconds. */
static void latency(json_t *lat, struct adapter_latency *out)
{
    json_t *pc = json_object_get(lat, "percentiles");
    out->mean = adapter_json_num(lat, "mean") / 1000;
    out->max = adapter_json_num(lat, "max") / 1000;
    out->p50 = adapter_json_num(pc, "50") / 1000;
    out->p90 = adapter_json_num(pc, "90") / 1000;
    out->p95 = adapter_json_num(pc, "95") / 1000;
    out->p99 = adapter_json_num(pc, "99") / 1000;
}

static int bombardier_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char e[UTIL_ERR_LEN];
    char *text = adapter_slurp(c->dir, "stdout.txt", 4 << 20, e);
    if (!text)
        return util_err(err, "bombardier wrote nothing: %s", e);
    const char *brace = strchr(text, '{');
    json_error_t je;
    json_t *j = brace ? json_loads(brace, JSON_DISABLE_EOF_CHECK, &je) : NULL;
    free(text);
    json_t *res = json_object_get(j, "result");
    if (!json_is_object(res) || !json_is_number(json_object_get(res, "req2xx"))) {
        json_decref(j);
        char *all = raw_output(c->dir, 1 << 20), line[160] = "";
        raw_line_with(all, "rror", line, sizeof line);
        free(all);
        return util_err(err, "bombardier printed no -o json result%s%s", line[0] ? ": " : "", line);
    }
    /* Counts by status class. A request that got no response is counted
     * twice: under its error description and in "others" (its status is
     * -1), as are status codes outside 100-599. */
    uint64_t s1 = adapter_json_count(res, "req1xx"), s2 = adapter_json_count(res, "req2xx"),
             s3 = adapter_json_count(res, "req3xx"), s4 = adapter_json_count(res, "req4xx"),
             s5 = adapter_json_count(res, "req5xx"), so = adapter_json_count(res, "others");
    size_t i;
    json_t *er;
    json_array_foreach(json_object_get(res, "errors"), i, er)
    {
        const char *desc = json_string_value(json_object_get(er, "description"));
        raw_add_error(r, desc ? desc : "", adapter_json_count(er, "count"));
    }
    uint64_t failed = r->err_connect + r->err_read + r->err_write + r->err_timeout + r->err_other;
    uint64_t odd = so > failed ? so - failed : 0;
    r->requests = s1 + s2 + s3 + s4 + s5 + odd;
    r->ok = s2 + s3;
    r->err_status = s1 + s4 + s5 + odd;
    raw_sum_errors(r);
    r->duration_s = adapter_json_num(res, "timeTakenSeconds");
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    r->bytes_read = adapter_json_count(res, "bytesRead");
    json_t *lat = json_object_get(res, "latency");
    /* Its latency holds the failed requests' times too: only a run where
     * every request got a response has a latency of responses. */
    if (r->requests && !failed && json_is_object(lat))
        latency(lat, &r->lat);
    else if (r->requests && json_is_object(lat))
        strvec_pushf(&r->warnings, "bombardier's latency mixes the %llu requests that got no response with the "
                     "responses: its latency figures are not reported",
                     (unsigned long long)failed);
    r->extra = j;
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_bombardier = {
    .name = "bombardier",
    .parse_files = (const char *const[]){"stdout.txt", NULL},
    .description = "bombardier (Go, fasthttp; net/http with --http2): closed model (-c -d), paced with --rate; JSON "
                   "result",
    .install_hint = "Go module proxy: scripts/install-tools (go install github.com/codesenberg/bombardier@v1.2.6 "
                    "into the tools folder)",
    .caps = ADAPTER_CLOSED | ADAPTER_PACED | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_NOKEEPALIVE | ADAPTER_POST,
    .post_how = "-m POST -f body.bin -H Content-Type",
    .tls_how = "verifies against the run's CA (SSL_CERT_FILE: its tls.Config leaves RootCAs to Go's system roots); "
               "no flag pins the version (lb-target serves only the profile's); offers no resumption (no "
               "ClientSessionCache)",
    .tls_verifies = 1,
    .tls_library = "Go's crypto/tls (compiled in)",
    .no_h2_why = "bombardier's --http2 is net/http's HTTP/2 over TLS (ALPN): no h2c",
    .no_check_why = RAW_NO_CHECK_WHY,
    .versions = "live: v1.2.6 (Go module proxy)",
    .latency_measures = "per request, from before the fasthttp client's Do to its return (with --http2: net/http's "
                        "Do and the body read; includes waiting for a connection from its pool and connecting); "
                        "mean, max and p50/p90/p95/p99, no min; not reported when some requests failed (their "
                        "times are in the same histogram)",
    .latency_resolution_ms = 0.001,
    .options = bombardier_options,
    .detect = bombardier_detect,
    .prepare = bombardier_prepare,
    .parse = bombardier_parse,
};
