/* The adapter for Tsung (Debian 1.7.0, Erlang; the fixtures in
 * tests/fixtures/tsung/ are its real output).
 *
 * Open model only: one <arrivalphase> of the load's duration whose users
 * arrive as a Poisson process at the rate (Tsung draws exponential
 * inter-arrival times); each user opens its own connection, sends one GET
 * and ends. Closed users (sessions looping on their connection) are not
 * mapped yet and are refused, as are several instances (Tsung's controller
 * starts its client nodes over ssh, outside loadbench's reach).
 *
 * The controller runs its one client in its own Erlang VM
 * (use_controller_vm), started with the schedulers' busy-wait off
 * (ERL_FLAGS=+sbwt none ...), which otherwise inflates its CPU footprint.
 *
 * Results from LOG/<date>/tsung.log: every 10 s and at the end a dump of
 * "stats: NAME COUNT MEAN STDDEV MAX MIN MEAN_BEFORE COUNT_BEFORE" for
 * sample metrics (request: ms from the request sent to its response) and
 * "stats: NAME COUNT TOTAL" for counters (HTTP status codes, error_*).
 * There are no percentiles: none is reported, never an estimate. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/util.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSUNG_XML "tsung.xml"
#define TSUNG_LOG "log"

static int tsung_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"tsung", NULL};
    if (raw_find("tsung", bin, cands, found, err))
        return -1;
    /* "Tsung version 1.7.0" */
    const char *argv[] = {found->path, "-v", NULL};
    char out[512];
    adapter_capture(argv, out, sizeof out);
    const char *v = strstr(out, "Tsung version ");
    if (!v)
        return util_err(err, "%s -v did not print \"Tsung version\": %.80s", found->path, out);
    v += strlen("Tsung version ");
    snprintf(found->version, sizeof found->version, "%.*s", (int)strcspn(v, " \n"), v);
    return 0;
}

/* The shell around tsung: epmd in the foreground of the tool's tree (no
 * -daemon), waited for, then tsung; epmd ends with it. */
#define TSUNG_WRAP \
    "epmd -port \"$ERL_EPMD_PORT\" & e=$!; i=0; " \
    "while [ $i -lt 50 ] && ! epmd -port \"$ERL_EPMD_PORT\" -names >/dev/null 2>&1; do sleep 0.1; i=$((i+1)); done; " \
    "\"$@\"; rc=$?; kill $e 2>/dev/null; wait $e 2>/dev/null; exit $rc"


static int tsung_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (c->instances > 1)
        return util_err(err, "tsung: instances > 1 would run Tsung's distributed mode, whose controller starts "
                        "its client nodes over ssh, outside loadbench's reach (and footprint): not supported");
    if (raw_pick_load(c, "tsung", p, &l, err))
        return -1;
    if (!l.open)
        return util_err(err, "tsung: closed users (sessions looping on one connection) are not mapped yet: "
                        "give it an open load (model: open, rate)");
    uint64_t secs = raw_whole_seconds(l.duration_ns, "tsung", "duration", p);
    struct textbuf x = {0};
    textbuf_printf(&x, "<?xml version=\"1.0\"?>\n"
                   "<!DOCTYPE tsung SYSTEM \"/usr/share/tsung/tsung-1.0.dtd\">\n"
                   "<tsung loglevel=\"notice\" dumptraffic=\"false\">\n"
                   "  <clients><client host=\"localhost\" use_controller_vm=\"true\" maxusers=\"60000\"/></clients>\n"
                   "  <servers><server host=\"%s\" port=\"%d\" type=\"tcp\"/></servers>\n"
                   "  <load><arrivalphase phase=\"1\" duration=\"%llu\" unit=\"second\">"
                   "<users arrivalrate=\"%.6f\" unit=\"second\"/></arrivalphase></load>\n",
                   c->host, c->port, (unsigned long long)secs, l.level);
    if (c->load->request_timeout_ns)
        textbuf_printf(&x, "  <options><option name=\"connect_timeout\" value=\"%llu\"/></options>\n",
                       (unsigned long long)(c->load->request_timeout_ns / 1000000));
    textbuf_printf(&x, "  <sessions><session name=\"get\" probability=\"100\" type=\"ts_http\">"
                   "<request><http url=\"/\" method=\"GET\" version=\"1.1\"/></request></session></sessions>\n"
                   "</tsung>\n");
    int rc = adapter_write(c->dir, TSUNG_XML, x.s, err);
    textbuf_free(&x);
    if (rc)
        return -1;
    strvec_push(&p->files, TSUNG_XML);
    int epmd_port;
    if (adapter_free_ports(&epmd_port, 1, err))
        return -1;
    /* Erlang's distribution starts `epmd -daemon` on first use, which
     * detaches and outlives the run, outside the tool's tree. Ours runs in
     * the tree instead, on a port of its own (ERL_EPMD_PORT), so it is
     * measured with the tool and stopped with it. */
    strvec_push(&p->argv, "/bin/sh");
    strvec_push(&p->argv, "-c");
    strvec_push(&p->argv, TSUNG_WRAP);
    strvec_push(&p->argv, "tsung-with-epmd");
    strvec_pushf(&p->env, "ERL_EPMD_PORT=%d", epmd_port);
    strvec_push(&p->argv, c->found->path);
    strvec_push(&p->argv, "-n");    /* no web dashboard */
    strvec_push(&p->argv, "-f");
    strvec_push(&p->argv, TSUNG_XML);
    strvec_push(&p->argv, "-l");
    strvec_push(&p->argv, TSUNG_LOG);
    strvec_push(&p->argv, "start");
    strvec_push(&p->env, "ERL_FLAGS=+sbwt none +sbwtdcpu none +sbwtdio none");
    strvec_push(&p->warnings, "tsung: arrivals are Poisson at the rate (not evenly spaced), each a new user on its "
                "own connection; its log has no percentiles (no p50/p99 reported)");
    p->model = "open";
    p->load_ns = secs * 1000000000ull;
    p->startup_allowance_ns = 10000000000ull;   /* Erlang VM and controller start */
    json_object_set_new(p->settings, "erl_flags", json_string("+sbwt none +sbwtdcpu none +sbwtdio none"));
    return 0;
}

/* The text of LOG/<newest run dir>/tsung.log, or NULL with err. */
static char *tsung_log(const char *dir, char *err)
{
    char path[1200], best[256] = "";
    snprintf(path, sizeof path, "%s/" TSUNG_LOG, dir);
    DIR *d = opendir(path);
    if (!d) {
        util_err(err, "tsung wrote no %s directory", TSUNG_LOG);
        return NULL;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (isdigit((unsigned char)e->d_name[0]) && strcmp(e->d_name, best) > 0)
            snprintf(best, sizeof best, "%s", e->d_name);
    closedir(d);
    snprintf(path, sizeof path, "%s/" TSUNG_LOG "/%s", dir, best);
    return best[0] ? adapter_slurp(path, "tsung.log", 64 << 20, err) : (util_err(err, "tsung wrote no run log"), NULL);
}

/* One "stats: NAME ..." line's numbers (at most 7) into v; returns how many. */
static int stats_numbers(const char *s, double *v)
{
    int n = 0;
    while (n < 7) {
        char *end;
        double x = strtod(s, &end);
        if (end == s)
            break;
        v[n++] = x;
        s = end;
    }
    return n;
}

/* Fold one "stats: NAME ..." line into r; request lines go into lat (sum of
 * count x mean in sum). The last dump's cumulative counts are the totals. */
static void tsung_line(const char *name, size_t nl, const double *v, int n, struct adapter_result *r, double *sum,
                       uint64_t *count)
{
    if (nl == 7 && !strncmp(name, "request", 7) && n == 7) {
        *sum += v[0] * v[1];
        *count += (uint64_t)v[0];
        if (v[0] > 0) {
            r->lat.max = isnan(r->lat.max) || v[3] > r->lat.max ? v[3] : r->lat.max;
            r->lat.min = isnan(r->lat.min) || v[4] < r->lat.min ? v[4] : r->lat.min;
        }
    } else if (nl == 3 && isdigit((unsigned char)name[0]) && n == 2) {
        /* status counters: the last dump's total replaces the earlier */
        int code = atoi(name);
        json_t *st = json_object_get(r->extra, "status");
        char k[8];
        snprintf(k, sizeof k, "%d", code);
        json_object_set_new(st, k, json_integer((json_int_t)v[1]));
    } else if (nl > 6 && !strncmp(name, "error_", 6) && n == 2) {
        char k[64];
        snprintf(k, sizeof k, "%.*s", (int)(nl < 63 ? nl : 63), name);
        json_object_set_new(json_object_get(r->extra, "errors"), k, json_integer((json_int_t)v[1]));
    }
}

static int tsung_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char *log = tsung_log(c->dir, err);
    if (!log)
        return -1;
    r->extra = json_pack("{s:{}, s:{}}", "status", "errors");
    double sum = 0, v[7];
    uint64_t count = 0;
    int dumps = 0;
    for (char *s = log; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
        if (!strncmp(s, "# stats: dump", 13))
            dumps++;
        if (strncmp(s, "stats: ", 7))
            continue;
        const char *name = s + 7;
        size_t nl = strcspn(name, " \n");
        tsung_line(name, nl, v, stats_numbers(name + nl, v), r, &sum, &count);
    }
    free(log);
    if (!dumps)
        return util_err(err, "tsung.log has no stats dump");
    const char *k;
    json_t *n;
    json_object_foreach(json_object_get(r->extra, "status"), k, n)
    {
        uint64_t x = adapter_json_count(json_object_get(r->extra, "status"), k);
        r->requests += x;
        int code = atoi(k);
        if (code >= 200 && code < 400)
            r->ok += x;
        else
            r->err_status += x;
    }
    /* A refused connect is retried (max_retries, default 3): each attempt
     * is an error_connect_*, the user given up error_abort_max_conn_retries,
     * the one counted (the attempts stay in tool_output). */
    json_object_foreach(json_object_get(r->extra, "errors"), k, n)
    {
        uint64_t x = adapter_json_count(json_object_get(r->extra, "errors"), k);
        if (!strcmp(k, "error_abort_max_conn_retries"))
            r->err_connect += x;
        else if (strncmp(k, "error_connect_", 14))
            raw_add_error(r, k + 6, x);
    }
    raw_sum_errors(r);
    if (count)
        r->lat.mean = sum / (double)count;
    strvec_push(&r->warnings, "tsung.log has mean, min and max per 10 s and no percentiles: no p50/p90/p99 reported");
    r->parsed = 1;
    return 0;
}

const struct adapter adapter_tsung = {
    .name = "tsung",
    .parse_files = (const char *const[]){"log/20261203-0930/tsung.log", NULL}, /* the newest run dir of log/ */
    .description = "Tsung 1.7 (Erlang): open model, Poisson arrivals of one-request users (XML scenario); "
                   "mean/min/max from tsung.log, no percentiles",
    .install_hint = "apt-get install tsung (or scripts/install-tools)",
    .caps = ADAPTER_OPEN,
    .latency_measures = "Tsung's request: from the request sent on an open connection to its response received "
                        "(connect apart, in its connect metric); mean, min, max only (no percentiles)",
    .latency_resolution_ms = 0.001,
    .detect = tsung_detect,
    .prepare = tsung_prepare,
    .parse = tsung_parse,
};
