/* The adapter for httperf (Debian 0.9.0; tests/fixtures/httperf/ are its
 * real output, README.md there says how they were taken).
 *
 * httperf's load is a schedule of connections: --rate new connections per
 * second, --num-conns of them, each sending --num-calls requests one after
 * another. With --num-calls 1 every request opens its own connection on a
 * fixed timetable (--period is deterministic by default), which is the open
 * model: arrivals that do not wait for responses. So an open profile runs
 * as --rate R --num-conns R x duration --num-calls 1. A closed profile has
 * no honest mapping: httperf holds no fixed number of connections for a
 * duration (--num-calls N on a connection is a closed loop, but only until
 * its N calls are done), so it is refused with the reason.
 *
 * What it cannot do, and what is said about it:
 * - it prints no percentiles: min, mean, max, stddev and a median from a
 *   histogram of 1 ms bins, all of the connection's lifetime (connect to
 *   close). p90..p99.9 stay absent ("no p99"), never estimated.
 * - its event loop stamps events with a time it read at the loop's last
 *   pass (timer_now() in 0.9.0 is a cached value), so a lifetime can be
 *   short or long by a pass: against lb-target's 20 ms delay its minimum
 *   was 20.0 ms at 10/s, 3.6 ms at 200/s, 2.7 ms at 1000/s (see
 *   tests/fixtures/httperf/README.md). Said in latency_measures.
 * - it falls behind its rate without saying so (one thread, select()):
 *   the parser compares the connections it issued per second of its test
 *   with the rate asked, and warns when it fell short.
 * - select() caps its open sockets at FD_SETSIZE (1024): a load that needs
 *   more connections open at once than that (rate x the target's delay) is
 *   refused, and one that comes near it warned. */
#include "adapters/adapter.h"
#include "adapters/raw.h"
#include "common/jsonutil.h"
#include "common/units.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HTTPERF_FD_MAX 1024            /* FD_SETSIZE: select()'s limit */
#define HTTPERF_OPEN_MAX 1000          /* refused above: stdio and its own files take some */
#define HTTPERF_OPEN_WARN 500          /* warned above */
#define HTTPERF_BEHIND_PCT 5.0         /* achieved rate this far below the asked one: a warning */
#define HTTPERF_BIN_MS 1.0             /* the width of its lifetime histogram's bins (stat/basic.c) */

static int httperf_detect(const char *bin, struct adapter_found *found, char *err)
{
    static const char *const cands[] = {"httperf", NULL};
    if (raw_find("httperf", bin, cands, found, err))
        return -1;
    /* `httperf --version` prints "httperf: httperf-0.9.0 compiled ..." and
     * then runs its default test (one connection to localhost:80): never
     * run it. Debian's package version instead. */
    if (adapter_dpkg_version("httperf", found))
        snprintf(found->version, sizeof found->version, "unknown (not from Debian's package)");
    return 0;
}

/* Connections open at once that rate needs: each lives about the target's
 * delay (a drawn delay: its tail) plus a millisecond of connect and reply. */
static double httperf_open_estimate(const struct adapter_ctx *c, double rate)
{
    return rate * (raw_delay_tail_s(c->profile) + 0.001);
}

extern const struct adapter adapter_httperf;   /* below: its table names the TLS behaviour */

static int httperf_prepare(const struct adapter_ctx *c, struct adapter_plan *p, char *err)
{
    struct raw_load l;
    if (raw_pick_load(c, "httperf", p, &l, err))
        return -1;
    if (!l.open)
        return util_err(err, "httperf cannot hold %.10g connections for a duration (the closed model): its load is "
                        "a rate of new connections (--rate); give it an open load (rate + duration) in its tools "
                        "entry", l.level);
    double open = httperf_open_estimate(c, l.level);
    if (open > HTTPERF_OPEN_MAX)
        return util_err(err, "httperf waits on select(), at most %d sockets: %.10g requests/s against the target's "
                        "delay need about %.0f connections open at once; lower the rate or the delay",
                        HTTPERF_FD_MAX, l.level, open);
    if (open > HTTPERF_OPEN_WARN)
        strvec_pushf(&p->warnings, "httperf: about %.0f connections open at once of the %d select() allows: a "
                     "slower response makes it run out of sockets (fd-unavail errors)", open, HTTPERF_FD_MAX);
    double secs = (double)l.duration_ns / 1e9;
    uint64_t conns = (uint64_t)llround(l.level * secs);
    if (conns < 1)
        conns = 1;
    strvec_push(&p->argv, c->found->path);
    strvec_pushf(&p->argv, "--server=%s", c->host);
    strvec_pushf(&p->argv, "--port=%d", c->port);
    strvec_push(&p->argv, "--uri=/");
    strvec_pushf(&p->argv, "--rate=%.10g", l.level);
    strvec_pushf(&p->argv, "--num-conns=%llu", (unsigned long long)conns);
    strvec_push(&p->argv, "--num-calls=1");
    if (c->ca_file)
        strvec_push(&p->argv, "--ssl");
    adapter_plan_tls(p, &adapter_httperf, c);
    if (c->load->request_timeout_ns)
        strvec_pushf(&p->argv, "--timeout=%.6g", (double)c->load->request_timeout_ns / 1e9);
    strvec_pushf(&p->warnings, "httperf opens one connection per request (--num-calls 1): its latency includes the "
                 "TCP connect%s, and it reports no percentiles but a median in 1 ms bins (no p99)",
                 c->ca_file ? " and a full TLS handshake" : "");
    p->model = "open";
    p->load_ns = (uint64_t)llround((double)conns / l.level * 1e9);
    p->startup_allowance_ns = 1000000000ull;
    json_object_set_new(p->settings, "rate_conn_per_s", json_real(l.level));
    json_object_set_new(p->settings, "num_conns", json_integer((json_int_t)conns));
    json_object_set_new(p->settings, "num_calls", json_integer(1));
    return 0;
}

/* The number after " key " on the first line starting with label. Returns
 * 0, or -1 when the line or the key is missing. */
static int httperf_field(const char *text, const char *label, const char *key, double *out)
{
    const char *line = raw_after(text, label);
    if (!line)
        return -1;
    char buf[512], k[64];
    snprintf(buf, sizeof buf, "%.*s", (int)strcspn(line, "\n"), line);
    snprintf(k, sizeof k, " %s ", key);
    const char *at = strstr(buf, k);
    if (!at)
        return -1;
    char *end;
    double v = strtod(at + strlen(k), &end);
    if (end == at + strlen(k))
        return -1;
    *out = v;
    return 0;
}

static uint64_t httperf_count(const char *text, const char *label, const char *key)
{
    double v = 0;
    if (httperf_field(text, label, key, &v))
        return 0;
    return v >= 0 && v < 0x1p60 ? (uint64_t)v : ADAPTER_COUNT_NEGATIVE;
}

/* "Reply status: 1xx=0 2xx=6000 3xx=0 4xx=0 5xx=0": the count of class k. */
static uint64_t httperf_status(const char *text, int k)
{
    const char *line = raw_after(text, "Reply status:");
    char key[8];
    snprintf(key, sizeof key, "%dxx=", k);
    const char *at = line ? strstr(line, key) : NULL;
    if (!at || at > line + strcspn(line, "\n"))
        return 0;
    return strtoull(at + strlen(key), NULL, 10);
}

/* The latencies: the connection lifetimes' min, mean and max, and their
 * median when it is one (a bin centre outside min..max is not). */
static void httperf_latency(const char *text, struct adapter_result *r)
{
    double min = NAN, avg = NAN, max = NAN, med = NAN;
    httperf_field(text, "Connection time [ms]:", "min", &min);
    httperf_field(text, "Connection time [ms]:", "avg", &avg);
    httperf_field(text, "Connection time [ms]:", "max", &max);
    httperf_field(text, "Connection time [ms]:", "median", &med);
    r->lat.min = min;
    r->lat.mean = avg;
    r->lat.max = max;
    if (med >= min && med <= max)
        r->lat.p50 = med;
    else if (!isnan(med))
        strvec_pushf(&r->warnings, "httperf's median (%.1f ms) is the centre of its 1 ms histogram bin and lies "
                     "outside its own min..max (%.1f..%.1f ms): not reported", med, min, max);
}

/* Warn when httperf opened fewer connections than asked, or issued them
 * slower: it says neither itself. fd_failed: the connections it could not
 * open for lack of descriptors (attempts all the same). */
static void httperf_behind(const struct adapter_ctx *c, double issued, uint64_t fd_failed, double duration,
                           struct adapter_result *r, json_t *x)
{
    if (!c->load)
        return;
    struct adapter_plan scratch;
    struct raw_load l;
    char e[UTIL_ERR_LEN];
    adapter_plan_init(&scratch);
    if (raw_pick_load(c, "httperf", &scratch, &l, e) == 0 && l.open && duration > 0) {
        uint64_t asked = (uint64_t)llround(l.level * (double)l.duration_ns / 1e9);
        double tried = issued + (double)fd_failed;
        /* The test lasts from the first connection to the end of the last
         * one: the last one's lifetime is not part of the schedule. */
        double sched_s = duration - (isnan(r->lat.mean) ? 0 : r->lat.mean / 1e3);
        double achieved = sched_s > 0 ? tried / sched_s : NAN;
        json_object_set_new(x, "asked_conn_per_s", json_real(l.level));
        json_object_set_new(x, "achieved_conn_per_s", jsonutil_num(achieved));
        if (fd_failed)
            strvec_pushf(&r->warnings, "httperf could not open %llu of its %llu connections: out of descriptors "
                         "(select() allows %d sockets at once)", (unsigned long long)fd_failed,
                         (unsigned long long)asked, HTTPERF_FD_MAX);
        if (tried < (double)asked)
            strvec_pushf(&r->warnings, "httperf issued %.0f of the %llu connections asked for", tried,
                         (unsigned long long)asked);
        else if (achieved < l.level * (1 - HTTPERF_BEHIND_PCT / 100))
            strvec_pushf(&r->warnings, "httperf fell behind its rate: asked %.10g connections/s, issued %.1f/s "
                         "(%.1f %% short; it does not say so itself)", l.level, achieved,
                         100 * (1 - achieved / l.level));
    }
    adapter_plan_free(&scratch);
}

static int httperf_parse(const struct adapter_ctx *c, struct adapter_result *r, char *err)
{
    char *text = raw_output(c->dir, 1 << 20);
    double conns = NAN, duration = NAN;
    if (httperf_field(text, "Total:", "connections", &conns) ||
        httperf_field(text, "Total:", "test-duration", &duration)) {
        char line[160] = "";
        raw_line_with(text, "httperf:", line, sizeof line);
        free(text);
        return util_err(err, "httperf printed no summary%s%s", line[0] ? ": " : "", line);
    }
    uint64_t cls[6] = {0};
    for (int k = 1; k <= 5; k++)
        cls[k] = httperf_status(text, k);
    r->requests = cls[1] + cls[2] + cls[3] + cls[4] + cls[5];
    r->ok = cls[2] + cls[3];
    r->err_status = cls[1] + cls[4] + cls[5];
    r->err_timeout = httperf_count(text, "Errors: total", "client-timo") +
                     httperf_count(text, "Errors: total", "socket-timo");
    r->err_connect = httperf_count(text, "Errors: total", "connrefused") +
                     httperf_count(text, "Errors: fd-unavail", "addrunavail") +
                     httperf_count(text, "Errors: fd-unavail", "ftab-full");
    uint64_t fd = 0; /* out of descriptors: the connection was never opened */
    if (raw_count(text, "Errors: fd-unavail", &fd) == 0 && fd < ADAPTER_COUNT_MAX)
        r->err_connect += fd;
    r->err_read = httperf_count(text, "Errors: total", "connreset");
    r->err_other = httperf_count(text, "Errors: fd-unavail", "other");
    raw_sum_errors(r);
    r->duration_s = duration;
    if (duration > 0)
        r->rps = (double)r->requests / duration;
    double hdr = 0, content = 0;
    httperf_field(text, "Reply size [B]:", "header", &hdr);
    httperf_field(text, "Reply size [B]:", "content", &content);
    if (hdr + content > 0 && (hdr + content) * (double)r->requests < 0x1p60)
        r->bytes_read = (uint64_t)llround((hdr + content) * (double)r->requests);
    if (r->requests > 0)
        httperf_latency(text, r);
    json_t *x = json_object();
    double v = NAN;
    json_object_set_new(x, "connections", jsonutil_num(conns));
    /* "Connection rate: 1986.6 conn/s (0.5 ms/conn, <=187 concurrent connections)" */
    const char *at = raw_after(text, "Connection rate:");
    const char *le = at ? strstr(at, "<=") : NULL;
    if (le && le < at + strcspn(at, "\n"))
        json_object_set_new(x, "max_open_connections", jsonutil_num(strtod(le + 2, NULL)));
    v = NAN;
    httperf_field(text, "Connection time [ms]:", "stddev", &v);
    json_object_set_new(x, "lifetime_stddev_ms", jsonutil_num(r->requests ? v : NAN));
    v = NAN;
    raw_number(text, "Connection time [ms]: connect", &v);
    json_object_set_new(x, "connect_mean_ms", jsonutil_num(r->requests ? v : NAN));
    v = NAN;
    httperf_field(text, "Reply time [ms]:", "response", &v);
    json_object_set_new(x, "response_mean_ms", jsonutil_num(r->requests ? v : NAN));
    v = NAN;
    httperf_field(text, "Reply time [ms]:", "transfer", &v);
    json_object_set_new(x, "transfer_mean_ms", jsonutil_num(r->requests ? v : NAN));
    httperf_behind(c, conns, fd, duration, r, x);
    r->extra = x;
    r->parsed = 1;
    free(text);
    return 0;
}

const struct adapter adapter_httperf = {
    .name = "httperf",
    .parse_files = (const char *const[]){"stdout.txt", NULL},
    .description = "httperf 0.9.0: new connections on a fixed timetable (--rate, one request each), open model",
    .install_hint = "apt-get install httperf (or scripts/install-tools)",
    .caps = ADAPTER_OPEN | ADAPTER_TLS,
    /* httperf 0.9.0 (Debian's build, TLS_client_method): --ssl, --ssl-ciphers
     * and --ssl-no-reuse only; --ssl-protocol and --ssl-verify came later. */
    .tls_how = "does not verify (--ssl: httperf 0.9.0 sets no SSL_CTX_set_verify, OpenSSL's SSL_VERIFY_NONE; no CA "
               "option); no version option, held to the profile's by lb-target offering only that one; a new "
               "connection per request and a full handshake each: it offers a session again only within "
               "--wsess sessions (gen/session.c), which loadbench does not use",
    .tls_library = "OpenSSL 3 (libssl.so.3, dynamically linked)",
    .no_h2_why = "httperf 0.9.0 speaks HTTP/1.0 and HTTP/1.1 only (--http-version)",
    .no_post_why = "httperf sends a body only from a --wsesslog session file (contents=), which replaces the "
                   "--rate/--num-conns arrivals loadbench runs it with",
    .versions = "live: 0.9.0 (Debian 0.9.0-9+b2)",
    .latency_measures = "connection lifetime: connect start to close after the one reply (--num-calls 1), so the "
                        "TCP connect is included; min, mean and max to 0.1 ms, median from 1 ms histogram bins; "
                        "no percentiles (no p99); stamped with the time its event loop cached at its last pass, "
                        "so a figure can be off by a pass (against a 20 ms delay here: min 2.7 ms at 1000/s)",
    .latency_resolution_ms = HTTPERF_BIN_MS,
    .detect = httperf_detect,
    .prepare = httperf_prepare,
    .parse = httperf_parse,
};
