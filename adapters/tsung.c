/* The adapter for Tsung (Debian 1.7.0, Erlang; the fixtures in
 * tests/fixtures/tsung/ are its real output).
 *
 * Open: one <arrivalphase> of the load's duration whose users arrive as a
 * Poisson process at the rate (Tsung draws exponential inter-arrival
 * times); each user opens its own connection, sends one GET and ends. The
 * phase ends at its duration or at round(rate x duration) users, whichever
 * comes first, so the count is min(Poisson + 1, rate x duration): about
 * 491 of 500 on average (docs/versions.md).
 *
 * Closed: N users, all brought in at the start by one phase capped at
 * exactly N (maxnumber), each looping GET / on its own connection until its
 * own start + the duration, then ending after its last response: the final
 * stats dump counts every request the server answered.
 *
 * instances: N: Tsung's distributed mode, N <client> VMs of their own
 * (lbtsung1..N, 127.0.0.1 in the run's ERL_INETRC file) started by its
 * controller through adapters/tsung/lb-tsung-rsh (tsung -r), which runs
 * them here in the foreground: every VM in the tool's process tree, all on
 * the run's epmd (ERL_EPMD_PORT), each ending with the controller. One
 * instance runs in the controller's VM (use_controller_vm). Every VM runs
 * with the schedulers' busy-wait off (ERL_FLAGS=+sbwt none ...), which
 * otherwise inflates its CPU footprint. Client VMs on other hosts are
 * refused (harness/engine/runcheck.c).
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
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSUNG_XML "tsung.xml"
#define TSUNG_LOG "log"
/* Users one client VM holds (<client maxusers>): past it a VM of its own
 * starts another beam (over the remote shell) and the controller's own VM
 * silently runs no more (tried: maxusers 2, 4 closed users: 2 ran). */
#define TSUNG_MAXUSERS 60000
#define TSUNG_INETRC "tsung-hosts.inetrc"
#define TSUNG_HOST "lbtsung"   /* client hosts lbtsung1..N, 127.0.0.1 in TSUNG_INETRC */
/* Schedulers' busy-wait off (it inflates the CPU footprint); warm_time 0:
 * Tsung 1.7 waits warm_time (1 s) before the first arrival but starts the
 * first phase's clock Warm div 1000 whole seconds later (ts_launcher.erl,
 * wait_static), so a wait of 995 ms came out of the phase (about 1 s of
 * arrivals lost) and one of 1019 ms did not: the 426-497 of 500 asked. */
#define TSUNG_ERL_FLAGS "+sbwt none +sbwtdcpu none +sbwtdio none -tsung_controller warm_time 0"

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


/* Closed users' arrival phase: at 1000 N users/s all N are in within
 * milliseconds, long before it ends, even with a client VM slow to start;
 * maxnumber caps it at exactly N, split among the clients
 * (ts_config_server:get_client_cfg, the remainder to the last), and the
 * last phase ends once its users are in (ts_launcher:change_phase). */
#define TSUNG_CLOSED_PHASE_S 5

/* The session of one closed user: a deadline of its own start + secs,
 * then requests one after another on its connection while the clock is
 * before it. Each user ends after its last response, so the final stats
 * dump counts every request the server answered. */
/* The one request: a GET, or with request: POST the body file's contents
 * (Tsung's contents_from_file, an absolute path: every client VM reads it
 * on this machine) with its content_type. */
static const char *tsung_request(const struct adapter_ctx *c, char *buf, size_t len)
{
    if (!c->profile->request.post)
        return "<request><http url=\"/\" method=\"GET\" version=\"1.1\"/></request>";
    snprintf(buf, len, "<request><http url=\"/\" method=\"POST\" version=\"1.1\" contents_from_file=\"%s/"
             ADAPTER_BODY_FILE "\" content_type=\"" ADAPTER_BODY_TYPE "\"/></request>", c->dir);
    return buf;
}

static void tsung_closed_session(struct textbuf *x, uint64_t secs, const char *request)
{
    textbuf_printf(x, "  <sessions><session name=\"loop\" probability=\"100\" type=\"ts_http\">\n"
                   "    <setdynvars sourcetype=\"eval\" code=\"fun(_) -> erlang:monotonic_time(millisecond) + %llu "
                   "end.\"><var name=\"lb_end\"/></setdynvars>\n"
                   "    <repeat name=\"lb_loop\" max_repeat=\"2000000000\">\n"
                   "      %s\n"
                   "      <setdynvars sourcetype=\"eval\" code=\"fun({_, D}) -> {ok, E} = ts_dynvars:lookup(lb_end, D), "
                   "case E > erlang:monotonic_time(millisecond) of true -> 1; false -> 0 end end.\">"
                   "<var name=\"lb_go\"/></setdynvars>\n"
                   "      <while var=\"lb_go\" eq=\"1\"/>\n"
                   "    </repeat>\n"
                   "  </session></sessions>\n",
                   (unsigned long long)(secs * 1000), request);
}

/* The client VMs: the controller's own for one instance; N VMs of their
 * own otherwise, on host names the run's inetrc gives 127.0.0.1. */
static void tsung_clients(struct textbuf *x, unsigned n)
{
    if (n < 2) {
        textbuf_printf(x, "  <clients><client host=\"localhost\" use_controller_vm=\"true\" maxusers=\"%d\"/>"
                       "</clients>\n", TSUNG_MAXUSERS);
        return;
    }
    textbuf_printf(x, "  <clients>");
    for (unsigned k = 1; k <= n; k++)
        textbuf_printf(x, "<client host=\"" TSUNG_HOST "%u\" maxusers=\"%d\"/>", k, TSUNG_MAXUSERS);
    textbuf_printf(x, "</clients>\n");
}

/* <options>: the connect timeout; with target.tls 1.2 that one version
 * (ssl_versions, an Erlang atom: quoted, as Tsung's manual writes it). Not
 * 1.3: ts_ssl.erl passes {reuse_sessions, false} on a user's first connect,
 * which OTP 25's ssl refuses beside versions [tlsv1.3] (an option for TLS
 * 1.2 and older: every user dies in ts_client:reconnect, seen here), so
 * Erlang's default list (1.3 and 1.2) stays and lb-target's one version
 * holds it to 1.3. */
static void tsung_options(struct textbuf *x, const struct adapter_ctx *c)
{
    int pin12 = c->ca_file && c->profile->target.tls.version == 12;
    if (!c->load->request_timeout_ns && !pin12)
        return;
    textbuf_printf(x, "  <options>");
    if (c->load->request_timeout_ns)
        textbuf_printf(x, "<option name=\"connect_timeout\" value=\"%llu\"/>",
                       (unsigned long long)(c->load->request_timeout_ns / 1000000));
    if (pin12)
        textbuf_printf(x, "<option name=\"ssl_versions\" value=\"'tlsv1.2'\"/>");
    textbuf_printf(x, "</options>\n");
}

/* The scenario: clients, server, load, options, sessions. */
static char *tsung_xml(const struct adapter_ctx *c, const struct raw_load *l, uint64_t secs)
{
    struct textbuf x = {0};
    char req[PATH_MAX + 256];
    const char *request = tsung_request(c, req, sizeof req);
    textbuf_printf(&x, "<?xml version=\"1.0\"?>\n"
                   "<!DOCTYPE tsung SYSTEM \"/usr/share/tsung/tsung-1.0.dtd\">\n"
                   "<tsung loglevel=\"notice\" dumptraffic=\"false\">\n");
    tsung_clients(&x, c->instances);
    textbuf_printf(&x, "  <servers><server host=\"%s\" port=\"%d\" type=\"%s\"/></servers>\n", c->host, c->port,
                   c->ca_file ? "ssl" : "tcp");
    if (l->open)
        textbuf_printf(&x, "  <load><arrivalphase phase=\"1\" duration=\"%llu\" unit=\"second\">"
                       "<users arrivalrate=\"%.6f\" unit=\"second\"/></arrivalphase></load>\n",
                       (unsigned long long)secs, l->level);
    else
        textbuf_printf(&x, "  <load><arrivalphase phase=\"1\" duration=\"%d\" unit=\"second\">"
                       "<users maxnumber=\"%.0f\" arrivalrate=\"%.0f\" unit=\"second\"/></arrivalphase></load>\n",
                       TSUNG_CLOSED_PHASE_S, l->level, l->level * 1000);
    tsung_options(&x, c);
    if (l->open)
        textbuf_printf(&x, "  <sessions><session name=\"get\" probability=\"100\" type=\"ts_http\">%s</session></sessions>\n",
                       request);
    else
        tsung_closed_session(&x, secs, request);
    textbuf_printf(&x, "</tsung>\n");
    return x.s;
}

/* instances > 1: the inetrc naming the client hosts (every VM reads it
 * through ERL_INETRC) and the remote shell that runs their VMs here. */
static int tsung_distributed(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct textbuf x = {0};
    textbuf_printf(&x, "{host, {127,0,0,1}, [");
    for (unsigned k = 1; k <= c->instances; k++)
        textbuf_printf(&x, "%s\"" TSUNG_HOST "%u\"", k > 1 ? ", " : "", k);
    textbuf_printf(&x, "]}.\n{lookup, [file, native]}.\n");
    int rc = adapter_write(c->dir, TSUNG_INETRC, x.s, err);
    textbuf_free(&x);
    if (rc)
        return -1;
    strvec_push(&p->files, TSUNG_INETRC);
    char abs[PATH_MAX];
    if (!realpath(c->dir, abs))
        return util_err(err, "tsung: %s: %s", c->dir, strerror(errno));
    strvec_pushf(&p->env, "ERL_INETRC=%s/" TSUNG_INETRC, abs);
    strvec_push(&p->argv, "-r");
    strvec_pushf(&p->argv, "%s/adapters/tsung/lb-tsung-rsh", adapter_datadir());
    return 0;
}

extern const struct adapter adapter_tsung;   /* below: its table names the TLS behaviour */

static int tsung_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "tsung", p, &l, err))
        return -1;
    unsigned vms = c->instances > 1 ? c->instances : 1;
    if (!l.open && l.level > (double)TSUNG_MAXUSERS * vms)
        return util_err(err, "tsung: %g users on %u client VM%s: each holds at most %d (maxusers; the controller's "
                        "own VM runs no more, silently): give it instances: %.0f or more",
                        l.level, vms, vms > 1 ? "s" : "", TSUNG_MAXUSERS, ceil(l.level / TSUNG_MAXUSERS));
    if (!l.open && l.level < c->instances)
        return util_err(err, "tsung: %u instances need at least %u users (one each); the load asks for %g",
                        c->instances, c->instances, l.level);
    uint64_t secs = raw_whole_seconds(l.duration_ns, "tsung", "duration", p);
    char *xml = tsung_xml(c, &l, secs);
    int rc = adapter_write(c->dir, TSUNG_XML, xml, err);
    free(xml);
    if (rc)
        return -1;
    strvec_push(&p->files, TSUNG_XML);
    if (adapter_body_file(c, p, err) < 0)
        return -1;
    int epmd_port;
    if (adapter_free_ports(&epmd_port, 1, err))
        return -1;
    /* Erlang's distribution starts `epmd -daemon` on first use, which
     * detaches and outlives the run, outside the tool's tree. Ours runs in
     * the tree instead, on a port of its own (ERL_EPMD_PORT, inherited by
     * every VM of the run), so it is measured with the tool and stopped
     * with it. */
    strvec_push(&p->argv, "/bin/sh");
    strvec_push(&p->argv, "-c");
    strvec_push(&p->argv, TSUNG_WRAP);
    strvec_push(&p->argv, "tsung-with-epmd");
    strvec_pushf(&p->env, "ERL_EPMD_PORT=%d", epmd_port);
    strvec_push(&p->argv, c->found->path);
    if (c->instances > 1 && tsung_distributed(c, p, err))
        return -1;
    strvec_push(&p->argv, "-n");    /* no web dashboard */
    strvec_push(&p->argv, "-f");
    strvec_push(&p->argv, TSUNG_XML);
    strvec_push(&p->argv, "-l");
    strvec_push(&p->argv, TSUNG_LOG);
    strvec_push(&p->argv, "start");
    strvec_push(&p->env, "ERL_FLAGS=" TSUNG_ERL_FLAGS);
    if (l.open)
        strvec_push(&p->warnings, "tsung: arrivals are Poisson at the rate (not evenly spaced), each a new user on "
                    "its own connection, at most rate x duration of them and none after the duration, so a few "
                    "fewer than asked on average (docs/versions.md); its log has no percentiles");
    else
        strvec_push(&p->warnings, "tsung: closed users each loop GET / on one connection until the duration from "
                    "their own start, and finish their last request; its log has no percentiles");
    adapter_plan_tls(p, &adapter_tsung, c);
    p->model = l.open ? "open" : "closed";
    p->load_ns = secs * 1000000000ull;
    p->startup_allowance_ns = 10000000000ull;   /* Erlang VMs and controller start */
    json_object_set_new(p->settings, "erl_flags", json_string(TSUNG_ERL_FLAGS));
    json_object_set_new(p->settings, "client_vms", json_integer(c->instances > 1 ? c->instances : 0));
    return 0;
}

/* How many client VMs of their own wrote a log in run dir path: files
 * tsungK@HOST.log (the controller's is tsung_controller@HOST.log; with
 * use_controller_vm there are none). */
static int tsung_client_vms(const char *path)
{
    DIR *d = opendir(path);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += !strncmp(e->d_name, "tsung", 5) && isdigit((unsigned char)e->d_name[5]) && strchr(e->d_name, '@');
    if (d)
        closedir(d);
    return n;
}

/* The text of LOG/<newest run dir>/tsung.log, or NULL with err; *vms the
 * client VMs that logged there. */
static char *tsung_log(const char *dir, int *vms, char *err)
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
    *vms = tsung_client_vms(path);
    /* Below the run directory through no link (log/ or its run folder
     * linked elsewhere is refused, not read). */
    char rel[300];
    snprintf(rel, sizeof rel, TSUNG_LOG "/%s/tsung.log", best);
    return best[0] ? adapter_slurp(dir, rel, 64 << 20, err) : (util_err(err, "tsung wrote no run log"), NULL);
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
    } else if (nl == 5 && !strncmp(name, "users", 5) && n == 2) {
        /* users CURRENT MAX: the most users running at once so far */
        json_object_set_new(r->extra, "users_max", json_integer((json_int_t)v[1]));
    } else if (nl > 6 && !strncmp(name, "error_", 6) && n == 2) {
        char k[64];
        snprintf(k, sizeof k, "%.*s", (int)(nl < 63 ? nl : 63), name);
        json_object_set_new(json_object_get(r->extra, "errors"), k, json_integer((json_int_t)v[1]));
    }
}

static int tsung_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    int vms = 0;
    char *log = tsung_log(c->dir, &vms, err);
    if (!log)
        return -1;
    r->extra = json_pack("{s:{}, s:{}, s:i}", "status", "errors", "client_vms", vms);
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
    .description = "Tsung 1.7 (Erlang): open (Poisson arrivals of one-request users) or closed (users looping "
                   "on a connection), instances through its distributed mode (XML scenario); mean/min/max from "
                   "tsung.log, no percentiles",
    .install_hint = "apt-get install tsung (or scripts/install-tools)",
    .caps = ADAPTER_OPEN | ADAPTER_CLOSED | ADAPTER_POISSON_ONLY | ADAPTER_TLS | ADAPTER_POST,
    /* Tsung 1.7.0 src/tsung/ts_ssl.erl, ts_config.erl (ssl_versions,
     * ssl_ciphers, ssl_reuse_sessions); a CA only through a session's
     * <set_option name="certificate">, which sets cacertfile but never
     * verify, so it would verify nothing either. */
    .tls_how = "does not verify (<server type=\"ssl\">: Tsung passes no verify option, Erlang/OTP 25 ssl's "
               "client default is verify_none); TLS 1.2 pinned by <option name=\"ssl_versions\">, 1.3 held by lb-target "
               "offering only it (Tsung's ssl_versions 'tlsv1.3' fails on OTP 25 beside its reuse_sessions); a "
               "user's first connection sets reuse_sessions false (ts_ssl.erl), and each user here connects "
               "once: no session offered for resumption",
    .tls_library = "Erlang/OTP 25's ssl application (ssl 10.8.7, its own TLS in Erlang; OpenSSL's libcrypto for "
                   "the ciphers)",
    .no_h2_why = "Tsung 1.7's ts_http speaks HTTP/1.0 and HTTP/1.1 only",
    .post_how = "<http method=\"POST\" contents_from_file=\"DIR/body.bin\" content_type=...>",
    .versions = "live: 1.7.0 (Debian 1.7.0-3.1, Erlang/OTP 25); source read at v1.7.0",
    .spread = ADAPTER_SPREAD_INTERNAL,
    .spread_note = "Tsung in its distributed mode: one controller VM (no load) and N client VMs of its own, "
                   "started by its controller through loadbench's remote shell (adapters/tsung/lb-tsung-rsh) on "
                   "this machine; the load split among them, counts and means from the controller's one tsung.log",
    .latency_measures = "Tsung's request: from the request sent on an open connection to its response received "
                        "(connect apart, in its connect metric; closed users connect once and reuse it); mean, "
                        "min, max only (no percentiles)",
    .latency_resolution_ms = 0.001,
    .detect = tsung_detect,
    .prepare = tsung_prepare,
    .parse = tsung_parse,
};
