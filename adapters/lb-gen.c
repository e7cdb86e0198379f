/* The adapter for lb-gen, loadbench's own generator (generator/README.md
 * documents its JSON summary, schema "lb-gen/1"). */
#include "adapters/adapter.h"
#include "common/fsutil.h"
#include "adapters/raw.h"
#include "common/hist.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* With several instances each writes its full distribution here, for an
 * exact merge. */
#define LBGEN_DIST "latency.txt"
#define LBGEN_SECONDS "latency-seconds.txt"

static int lbgen_detect(const char *bin, struct adapter_found *found, char *err)
{
    char cand[1100];
    if (bin) {
        if (adapter_which(bin, found->path, sizeof found->path))
            return util_err(err, "lb-gen binary \"%s\" not found or not executable", bin);
    } else {
        /* The lb-gen built beside this loadbench first, then PATH. */
        snprintf(cand, sizeof cand, "%s/lb-gen", adapter_bindir());
        if (adapter_which(cand, found->path, sizeof found->path) &&
            adapter_which("lb-gen", found->path, sizeof found->path))
            return util_err(err, "lb-gen not found beside loadbench (%s) or on PATH: run `make`", adapter_bindir());
    }
    const char *argv[] = {found->path, "--version", NULL};
    char out[256];
    if (adapter_capture(argv, out, sizeof out) != 0)
        return util_err(err, "%s --version failed: %s", found->path, out);
    /* "lb-gen 0.1.0 (git, build)": the second word. */
    char *v = strchr(out, ' ');
    v = v ? v + 1 : out;
    v[strcspn(v, " \n")] = 0;
    snprintf(found->version, sizeof found->version, "%.100s", v);
    return 0;
}

static int cpu_count(uint64_t mask)
{
    return mask ? __builtin_popcountll(mask) : 1;
}

static void stages_arg(struct strvec *argv, const char *flag, const struct profile_load *l)
{
    char arg[4096] = "", d[32];
    for (size_t i = 0; i < l->nstages; i++) {
        char part[64];
        snprintf(part, sizeof part, "%s%s:%.10g", i ? "," : "", units_format_duration(l->stages[i].duration_ns, d),
                 l->stages[i].target);
        strncat(arg, part, sizeof arg - strlen(arg) - 1);
    }
    strvec_push(argv, flag);
    strvec_push(argv, arg);
}

extern const struct adapter adapter_lb_gen;   /* below: its table names the TLS behaviour */

/* target.tls: verify against the run's CA, the one version lb-target
 * serves, and resumption as the profile says. */
static void tls_args(const struct adapter_ctx *c, struct adapter_plan *p)
{
    const struct profile_tls *t = &c->profile->target.tls;
    if (!c->ca_file)
        return;
    strvec_pushf(&p->argv, "--cacert=%s", c->ca_file);
    if (t->version)
        strvec_pushf(&p->argv, "--tls-version=%s", t->version == 13 ? "1.3" : "1.2");
    strvec_pushf(&p->argv, "--tls-resumption=%s", t->no_resumption ? "off" : "on");
    adapter_plan_tls(p, &adapter_lb_gen, c);
}

static int lbgen_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    (void)err;
    const struct profile_load *l = c->load;
    char d[32];
    strvec_push(&p->argv, c->found->path);
    strvec_pushf(&p->argv, "--threads=%d", cpu_count(c->tool_cpus));
    if (l->model == LOAD_CLOSED) {
        if (l->ramped) {
            stages_arg(&p->argv, "--stages", l);
        } else {
            strvec_pushf(&p->argv, "--connections=%.0f", l->stages[0].target);
            strvec_pushf(&p->argv, "--duration=%s", units_format_duration(l->stages[0].duration_ns, d));
        }
        p->model = "closed";
    } else {
        if (l->ramped) {
            stages_arg(&p->argv, "--rate-stages", l);
        } else {
            strvec_pushf(&p->argv, "--rate=%.10g", l->stages[0].target);
            strvec_pushf(&p->argv, "--duration=%s", units_format_duration(l->stages[0].duration_ns, d));
        }
        if (l->max_inflight)
            strvec_pushf(&p->argv, "--max-inflight=%llu", (unsigned long long)l->max_inflight);
        if (l->poisson) {
            strvec_push(&p->argv, "--arrivals=poisson");
            /* Each instance its own stream: copies with one seed would send in step. */
            strvec_pushf(&p->argv, "--seed=%llu", (unsigned long long)(l->arrivals_seed + c->instance));
        }
        p->model = "open";
    }
    if (l->request_timeout_ns)
        strvec_pushf(&p->argv, "--timeout=%s", units_format_duration(l->request_timeout_ns, d));
    if (l->no_keepalive)
        strvec_push(&p->argv, "--close");
    if (c->profile->check.status)
        strvec_pushf(&p->argv, "--expect-status=%d", c->profile->check.status);
    if (c->profile->request.post)
        strvec_pushf(&p->argv, "--post=%lluB", (unsigned long long)c->profile->request.body_bytes);
    tls_args(c, p);
    /* h2: ALPN h2 only over the https:// URL; h2c: prior knowledge over http://. */
    if (c->profile->target.protocol != PROFILE_H1)
        strvec_push(&p->argv, "--http2");
    strvec_push(&p->argv, "--json=summary.json");
    strvec_push(&p->argv, "--seconds-dist=" LBGEN_SECONDS);
    if (c->instances > 1)
        strvec_push(&p->argv, "--percentiles=" LBGEN_DIST);
    strvec_push(&p->argv, "--quiet");
    strvec_push(&p->argv, c->url);
    p->load_ns = profile_load_duration_ns(l);
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "threads", json_integer(cpu_count(c->tool_cpus)));
    return 0;
}

static void latency(json_t *o, struct adapter_latency *l)
{
    if (!json_is_object(o))
        return;
    l->min = adapter_json_num(o, "min");
    l->mean = adapter_json_num(o, "mean");
    l->p50 = adapter_json_num(o, "p50");
    l->p90 = adapter_json_num(o, "p90");
    l->p95 = adapter_json_num(o, "p95");
    l->p99 = adapter_json_num(o, "p99");
    l->p999 = adapter_json_num(o, "p999");
    l->max = adapter_json_num(o, "max");
}

static int lbgen_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    json_error_t je;
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", c->dir);
    json_t *j = fsutil_load_json(path, FSUTIL_CAP_RESULT, &je);
    if (!j && je.line < 1) /* no place in the text: the file cannot be opened */
        return util_err(err, "lb-gen wrote no readable summary.json: %s", je.text);
    if (!j)
        return util_err(err, "lb-gen wrote no readable summary.json: %s (line %d)", je.text, je.line);
    const char *schema = json_string_value(json_object_get(j, "schema"));
    if (!schema || strcmp(schema, "lb-gen/1")) {
        /* The message first: schema lives inside j. */
        util_err(err, "summary.json has schema \"%s\", expected lb-gen/1", schema ? schema : "(none)");
        json_decref(j);
        return -1;
    }
    json_t *req = json_object_get(j, "requests"), *e = json_object_get(j, "errors");
    if (!json_is_object(req) || !json_is_integer(json_object_get(req, "completed"))) {
        json_decref(j);
        return util_err(err, "summary.json has no requests.completed");
    }
    raw_gen_counts(req, e, r); /* lb-gen writes no errors.other: 0 */
    r->check_failed = adapter_json_uint(req, "check_failed"); /* --expect-status: also errors.status */
    r->duration_s = adapter_json_num(json_object_get(j, "time"), "load_s");
    if (r->duration_s > 0)
        r->rps = (double)r->requests / r->duration_s;
    latency(json_object_get(j, "latency_ms"), &r->lat);
    latency(json_object_get(j, "latency_uncorrected_ms"), &r->lat_uncorrected);
    json_t *open = json_object_get(j, "schedule");
    if (json_is_object(open)) {
        r->scheduled = adapter_json_uint(open, "scheduled");
        r->dropped = adapter_json_uint(open, "dropped");
        r->late = adapter_json_uint(open, "late");
        if (r->dropped)
            strvec_pushf(&r->warnings, "lb-gen dropped %llu scheduled requests (in-flight cap reached)",
                         (unsigned long long)r->dropped);
        if (adapter_json_uint(open, "inflight_cap_hits"))
            strvec_pushf(&r->warnings, "lb-gen hit its in-flight cap %llu times; %llu requests were sent more than 1 ms late",
                         (unsigned long long)adapter_json_uint(open, "inflight_cap_hits"), (unsigned long long)r->late);
    }
    r->extra = json_incref(j);
    r->parsed = 1;
    /* A run that did not deliver its load (fewer connections open than
     * asked) fails its row; its figures are kept (parsed) to be seen. */
    const char *gen_error = json_string_value(json_object_get(j, "error"));
    int rc = gen_error ? util_err(err, "lb-gen did not deliver the load: %s", gen_error) : 0;
    /* What it says it spoke (lb-target's counts judge it too, toolrun.c),
     * where the profile is known: a parse of captured output has none. */
    const char *spoke = json_string_value(json_object_get(j, "protocol"));
    const char *asked = c->profile ? profile_protocol_name(c->profile->target.protocol) : NULL;
    if (!rc && spoke && asked && strcmp(spoke, asked))
        rc = util_err(err, "lb-gen spoke %s, the profile asked for %s", spoke, asked);
    json_decref(j);
    return rc;
}

/* One instance's distribution file into h: each line's bucket value (ns,
 * printed in ms to the ns) recorded with the count its TotalCount adds.
 * Returns the count recorded, or -1 with err. */
static long long dist_add(struct hist *h, const char *dir, char *err)
{
    char *text = adapter_slurp(dir, LBGEN_DIST, 64u << 20, err);
    if (!text)
        return -1;
    unsigned long long seen = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        double ms, q;
        unsigned long long total;
        if (sscanf(line, "%lf %lf %llu", &ms, &q, &total) != 3)
            continue; /* the header and the #[...] footer */
        if (total < seen || !(ms >= 0)) {
            free(text);
            return util_err(err, "%s/" LBGEN_DIST ": counts out of order", dir);
        }
        hist_record_n(h, (uint64_t)llround(ms * 1e6), total - seen);
        seen = total;
    }
    free(text);
    return (long long)seen;
}

/* The histogram's shape and the exact min and mean of one instance, from
 * its summary. Returns 0, or -1 with err. */
static int dist_summary(const char *dir, double *highest_ms, int *digits, double *min, double *mean, char *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *j = fsutil_load_json(path, FSUTIL_CAP_RESULT, NULL);
    json_t *h = json_object_get(j, "histogram"), *l = json_object_get(j, "latency_ms");
    *highest_ms = adapter_json_num(h, "highest_ms");
    *digits = (int)adapter_json_num(h, "significant_digits");
    *min = adapter_json_num(l, "min");
    *mean = adapter_json_num(l, "mean");
    json_decref(j);
    if (!(*highest_ms > 0) || *digits < 1 || *digits > 5)
        return util_err(err, "%s/summary.json has no histogram shape", dir);
    return 0;
}

/* The instances' distributions merged into one histogram of lb-gen's own
 * shape: its percentiles are what one lb-gen that had seen every request
 * would report. Min and mean from the summaries (exact there). */
static int lbgen_merge_latency(const char *const *dirs, size_t n, struct adapter_latency *lat, char *err)
{
    double highest_ms, min, mean, wsum = 0;
    int digits;
    if (n == 0 || dist_summary(dirs[0], &highest_ms, &digits, &min, &mean, err))
        return -1;
    struct hist *h = hist_new((uint64_t)llround(highest_ms * 1e6), digits);
    if (!h)
        return util_err(err, "lb-gen's histogram shape (%g ms, %d digits) is not one common/hist makes", highest_ms, digits);
    lat->min = NAN;
    for (size_t i = 0; i < n; i++) {
        double hi, imin, imean;
        int d;
        long long cnt = dist_summary(dirs[i], &hi, &d, &imin, &imean, err) ? -1 : dist_add(h, dirs[i], err);
        if (cnt < 0 || hi != highest_ms || d != digits) {
            hist_free(h);
            return cnt < 0 ? -1 : util_err(err, "the instances' histograms differ in shape");
        }
        if (cnt > 0) {
            lat->min = isnan(lat->min) || imin < lat->min ? imin : lat->min;
            wsum += imean * (double)cnt;
        }
    }
    uint64_t total = hist_count(h);
    lat->mean = total ? wsum / (double)total : NAN;
    double *pv[] = {&lat->p50, &lat->p90, &lat->p95, &lat->p99, &lat->p999};
    static const double q[] = {50, 90, 95, 99, 99.9};
    for (int i = 0; i < 5; i++)
        *pv[i] = total ? (double)hist_percentile(h, q[i]) / 1e6 : NAN;
    lat->max = total ? (double)hist_max(h) / 1e6 : NAN;
    hist_free(h);
    return 0;
}

/* One line of LBGEN_SECONDS to fn: "SEC VALUE_NS COUNT" after
 * "start_wall_ms MS"; a comment skipped. Returns 0, or -1 (malformed). */
static int seconds_line(const char *line, uint64_t *start_ms,
                        void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count), void *arg)
{
    unsigned long long a, b, c;
    char extra;
    if (line[0] == '#')
        return 0;
    if (sscanf(line, "start_wall_ms %llu %c", &a, &extra) == 1)
        return *start_ms = a, 0;
    if (sscanf(line, "%llu %llu %llu %c", &a, &b, &c, &extra) != 3 || !*start_ms || a > 1000000000ull)
        return -1;
    fn(arg, (int64_t)(*start_ms * 1000000ull + a * 1000000000ull), b, c);
    return 0;
}

/* Each second's histogram (--seconds-dist) to fn (adapter.h's samples). */
static int lbgen_samples(const char *dir, void (*fn)(void *arg, int64_t t_unix_ns, uint64_t latency, uint64_t count),
                         void *arg, char *err)
{
    char path[1200], why[UTIL_ERR_LEN];
    snprintf(path, sizeof path, "%s/" LBGEN_SECONDS, dir);
    FILE *f = fsutil_fopen_input(path, FSUTIL_CAP_STREAM, why);
    if (!f)
        return util_err(err, "lb-gen's %s cannot be read: %s", LBGEN_SECONDS, why);
    char *line = NULL;
    size_t cap = 0;
    uint64_t start_ms = 0, n = 0;
    int rc = 0;
    while (!rc && fsutil_getline(&line, &cap, f, FSUTIL_LINE_MAX) > 0) {
        n++;
        if (seconds_line(line, &start_ms, fn, arg))
            rc = util_err(err, "%s line %llu is not \"SECOND VALUE_NS COUNT\" after start_wall_ms: \"%.60s\"",
                          LBGEN_SECONDS, (unsigned long long)n, line);
    }
    free(line);
    fclose(f);
    return rc;
}

const struct adapter adapter_lb_gen = {
    .name = "lb-gen",
    .parse_files = (const char *const[]){"summary.json", NULL},
    .description = "loadbench's native C generator (closed and open model; HTTP/1.1, HTTP/2 by nghttp2)",
    .install_hint = "built with loadbench: run `make`",
    .caps = ADAPTER_CLOSED | ADAPTER_OPEN | ADAPTER_RAMP | ADAPTER_POISSON | ADAPTER_TLS | ADAPTER_H2 | ADAPTER_H2C |
            ADAPTER_NOKEEPALIVE | ADAPTER_CHECK | ADAPTER_POST,
    .post_how = "--post SIZE: the request (head and body) built once, written whole on every request",
    .check_how = "--expect-status CODE: a response with another status is a status error (check_failed)",
    .tls_how = "verifies against the run's CA (--cacert; OpenSSL, the URL's IP address in the certificate)",
    .tls_verifies = 1,
    .tls_library = "OpenSSL 3 (libssl.so.3, dynamically linked)",
    .versions = "live: this build",
    .latency_measures = "request written to last response byte read (open model: from the intended send time)",
    .latency_resolution_ms = 0.001,
    .detect = lbgen_detect,
    .prepare = lbgen_prepare,
    .parse = lbgen_parse,
    .merge_latency = lbgen_merge_latency,
    .samples = lbgen_samples,
    .samples_period_ns = 1000000000ull,
    .samples_unit_ns = 1, /* its histograms' ns, 3 digits */
};
