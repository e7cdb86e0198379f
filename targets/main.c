/* lb-target: the benchmark target server. Answers every HTTP/1.x request
 * with a fixed JSON body after a fixed delay, and counts exactly.
 * See targets/README.md. */
#include "common/net.h"
#include "targets/server.h"
#include "common/units.h"
#include "common/util.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
"usage: lb-target [options]\n"
"  --listen HOST:PORT     where to serve HTTP (default 127.0.0.1:8080)\n"
"  --port N               only the port of --listen (0 picks a free one)\n"
"  --control HOST:PORT    control channel, never counted (default 127.0.0.1:8081)\n"
"  --control-port N       only the port of --control (0 picks a free one)\n"
"  --threads N            worker threads, one epoll loop each (default 1)\n"
"  --cpus LIST            pin workers round-robin to these CPUs, e.g. 1 or 0-3\n"
"  --delay DUR            hold every response this long, e.g. 20ms (default 0)\n"
"  --delay-dist NAME      draw each response's delay instead: lognormal (with\n"
"                         --delay-p50 DUR --delay-p99 DUR), exponential (with\n"
"                         --delay-mean DUR) or uniform (--delay-min DUR --delay-max DUR)\n"
"  --seed N               seed of the draws, so a run repeats (default: from the\n"
"                         clock; printed in the first line and in /stats either way)\n"
"  --stall-every DUR      stall every DUR (first one DUR after start) ...\n"
"  --stall-for DUR        ... for this long: every response due in a stall waits\n"
"                         until it ends (a GC pause, a failover); see GET /stalls\n"
"  --work DUR             burn this much CPU per request before answering, on the\n"
"                         worker's own loop, like a CPU-bound backend (default 0)\n"
"  --body SIZE            JSON body size, e.g. 64B, 800B, 16KiB (default 64B)\n"
"  --max-body SIZE        refuse request bodies over SIZE with 413, counted in\n"
"                         body_too_large (default 1MiB); bodies are counted, never kept\n"
"  --expect-body SIZE     count requests whose body is not exactly SIZE (0: none)\n"
"                         in body_mismatch; they are answered as usual\n"
"  --stats-out FILE       on SIGTERM/SIGINT write final stats here (default stdout)\n"
"  --backlog N            listen backlog (default 4096)\n"
"  --tls 1.3|1.2          serve HTTPS with this one TLS version (OpenSSL), with a\n"
"                         certificate made for this run by a CA of its own\n"
"  --tls-key ecdsa|rsa    the certificate's key: ECDSA P-256 (default) or RSA 2048\n"
"  --tls-ca FILE          write the run's CA certificate (PEM) here\n"
"  --tls-resumption on|off  session tickets and cache (default on)\n"
"  --http2                also speak HTTP/2 (nghttp2): h2 by ALPN over --tls, h2c\n"
"                         with prior knowledge on plain connections\n"
"  --exit-with-parent[=PID]\n"
"                         stop (as on SIGTERM) when the parent process exits, even\n"
"                         when it is SIGKILLed; PID: the parent it must have (its\n"
"                         own PID, given by the parent): if lb-target's parent is\n"
"                         another process already, that one is gone: exit 1\n"
"  --help                 this text\n"
"First stdout line: {\"event\":\"listening\",\"port\":P,\"control_port\":C,...}.\n"
"Control channel: GET /stats, POST /window, GET /series?since=K, GET /histogram,\n"
"GET /stalls, GET /arrivals?from_ns=A&to_ns=B, GET /health.\n"
"Exit status: 0 after SIGTERM/SIGINT (or the parent's exit), 1 when the parent\n"
"was gone at start, 2 for bad arguments or a busy port.\n");
}

static int fail(const char *msg)
{
    fprintf(stderr, "lb-target: %s\n", msg);
    return 2;
}

static int parse_port(const char *s, const char *what, int *port, char *err)
{
    uint64_t v;
    if (units_parse_count(s, what, &v, err) < 0)
        return -1;
    if (v > 65535)
        return util_err(err, "%s must be 0-65535", what);
    *port = (int)v;
    return 0;
}

static int parse_dur(const char *s, uint64_t *ns, char *err)
{
    if (!strcmp(s, "0")) {
        *ns = 0;
        return 0;
    }
    return units_parse_duration_ns(s, ns, err);
}

enum { O_LISTEN = 1, O_PORT, O_CONTROL, O_CONTROL_PORT, O_THREADS, O_CPUS, O_DELAY, O_BODY,
       O_STATS_OUT, O_BACKLOG, O_WORK, O_EXIT_WITH_PARENT, O_HELP, O_DELAY_DIST, O_DELAY_P50,
       O_DELAY_P99, O_DELAY_MEAN, O_DELAY_MIN, O_DELAY_MAX, O_SEED, O_STALL_EVERY, O_STALL_FOR,
       O_TLS, O_TLS_KEY, O_TLS_CA, O_TLS_RESUMPTION, O_HTTP2, O_MAX_BODY, O_EXPECT_BODY };

/* One of the latency-shape options into d. Returns 0, or -1 with err. */
static int delay_option(int opt, const char *arg, struct delay_spec *d, int *seeded, char *err)
{
    switch (opt) {
    case O_DELAY: return parse_dur(arg, &d->fixed_ns, err);
    case O_DELAY_DIST: return delay_dist_parse(arg, &d->dist, err);
    case O_DELAY_P50: return parse_dur(arg, &d->p50_ns, err);
    case O_DELAY_P99: return parse_dur(arg, &d->p99_ns, err);
    case O_DELAY_MEAN: return parse_dur(arg, &d->mean_ns, err);
    case O_DELAY_MIN: return parse_dur(arg, &d->min_ns, err);
    case O_DELAY_MAX: return parse_dur(arg, &d->max_ns, err);
    case O_STALL_EVERY: return parse_dur(arg, &d->stall_every_ns, err);
    case O_STALL_FOR: return parse_dur(arg, &d->stall_for_ns, err);
    default:
        *seeded = 1;
        if (units_parse_count(arg, "--seed", &d->seed, err) < 0)
            return -1;
        if (d->seed > (1ull << 53))
            return util_err(err, "--seed must be 0-9007199254740992 (JSON readers keep it exact)");
        return 0;
    }
}

/* The delay options together: parameters only with their distribution,
 * the fixed --delay only without one; an unseeded draw gets a seed from
 * the clock (recorded, so the run can still be repeated). */
static int delay_finish(struct delay_spec *d, int seeded, char *err)
{
    int params = d->p50_ns || d->p99_ns || d->mean_ns || d->min_ns || d->max_ns;
    if (d->dist == DELAY_FIXED && params)
        return util_err(err, "--delay-p50/-p99/-mean/-min/-max need --delay-dist (lognormal, exponential, uniform)");
    if (d->dist != DELAY_FIXED && d->fixed_ns)
        return util_err(err, "--delay is the fixed delay: with --delay-dist give only the distribution's parameters");
    if (!seeded)
        d->seed = (util_now_ns() ^ (uint64_t)getpid() << 20) & 0xffffffffull;
    return delay_spec_check(d, err);
}

/* --exit-with-parent: the kernel sends SIGTERM when the parent goes
 * (PR_SET_PDEATHSIG; it follows the parent thread that forked us, so the
 * parent must fork from a thread that lives as long as we should). A
 * parent that died before the prctl is seen in getppid(): we were
 * re-parented already. Returns 0, or -1 when the parent is gone. */
static int exit_with_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    return getppid() == parent ? 0 : -1;
}

/* What the command line says. */
struct cli {
    struct server_config cfg;
    const char *listen, *control, *stats_out;
    int port, control_port, seeded, with_parent;
    pid_t parent;
};

static const struct option opts[] = {
    {"listen", required_argument, NULL, O_LISTEN},
    {"port", required_argument, NULL, O_PORT},
    {"control", required_argument, NULL, O_CONTROL},
    {"control-port", required_argument, NULL, O_CONTROL_PORT},
    {"threads", required_argument, NULL, O_THREADS},
    {"cpus", required_argument, NULL, O_CPUS},
    {"delay", required_argument, NULL, O_DELAY},
    {"delay-dist", required_argument, NULL, O_DELAY_DIST},
    {"delay-p50", required_argument, NULL, O_DELAY_P50},
    {"delay-p99", required_argument, NULL, O_DELAY_P99},
    {"delay-mean", required_argument, NULL, O_DELAY_MEAN},
    {"delay-min", required_argument, NULL, O_DELAY_MIN},
    {"delay-max", required_argument, NULL, O_DELAY_MAX},
    {"seed", required_argument, NULL, O_SEED},
    {"stall-every", required_argument, NULL, O_STALL_EVERY},
    {"stall-for", required_argument, NULL, O_STALL_FOR},
    {"work", required_argument, NULL, O_WORK},
    {"body", required_argument, NULL, O_BODY},
    {"max-body", required_argument, NULL, O_MAX_BODY},
    {"expect-body", required_argument, NULL, O_EXPECT_BODY},
    {"stats-out", required_argument, NULL, O_STATS_OUT},
    {"backlog", required_argument, NULL, O_BACKLOG},
    {"tls", required_argument, NULL, O_TLS},
    {"tls-key", required_argument, NULL, O_TLS_KEY},
    {"tls-ca", required_argument, NULL, O_TLS_CA},
    {"tls-resumption", required_argument, NULL, O_TLS_RESUMPTION},
    {"http2", no_argument, NULL, O_HTTP2},
    {"exit-with-parent", optional_argument, NULL, O_EXIT_WITH_PARENT},
    {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0},
};

/* A count option between lo and hi into *out. Returns 0, or -1 with err. */
static int count_option(const char *arg, const char *name, uint64_t lo, uint64_t hi, uint64_t *out, char *err)
{
    if (units_parse_count(arg, name, out, err) < 0)
        return -1;
    if (*out < lo || *out > hi)
        return util_err(err, "%s must be %llu-%llu", name, (unsigned long long)lo, (unsigned long long)hi);
    return 0;
}

/* The request bodies: --max-body, --expect-body. Returns 0, or -1. */
static int request_body_option(int opt, const char *arg, struct server_config *cfg, char *err)
{
    uint64_t *v = opt == O_MAX_BODY ? &cfg->max_body : &cfg->expect_body;
    const char *name = opt == O_MAX_BODY ? "--max-body" : "--expect-body";
    if (units_parse_size_bytes(arg, v, err) < 0)
        return -1;
    if (*v > 1ull << 40)
        return util_err(err, "%s must be at most 1TiB", name);
    if (opt == O_EXPECT_BODY)
        cfg->expect_body_on = 1;
    return 0;
}

/* The sizes of the work: --work, --body, --backlog. Returns 0, or -1. */
static int size_option(int opt, const char *arg, struct server_config *cfg, char *err)
{
    uint64_t v;
    switch (opt) {
    case O_WORK:
        if (!strcmp(arg, "0"))
            cfg->work_ns = 0;
        else if (units_parse_duration_ns(arg, &cfg->work_ns, err) < 0)
            return -1;
        if (cfg->work_ns > 1000000000ull)
            return util_err(err, "--work must be at most 1s");
        return 0;
    case O_BODY:
        if (units_parse_size_bytes(arg, &cfg->body_bytes, err) < 0)
            return -1;
        if (cfg->body_bytes > 64ull << 20)
            return util_err(err, "--body must be at most 64MiB");
        return 0;
    default: /* O_BACKLOG */
        if (count_option(arg, "--backlog", 1, 1000000, &v, err) < 0)
            return -1;
        cfg->backlog = (int)v;
        return 0;
    }
}

/* --tls, --tls-key, --tls-ca, --tls-resumption. Returns 0, or -1 with err. */
static int tls_option(int opt, const char *arg, struct tls_config *t, char *err)
{
    switch (opt) {
    case O_TLS:
        if (strcmp(arg, "1.3") && strcmp(arg, "1.2"))
            return util_err(err, "--tls must be 1.3 or 1.2, not \"%s\"", arg);
        t->version = arg[2] == '3' ? TLS_V13 : TLS_V12;
        return 0;
    case O_TLS_KEY:
        if (strcmp(arg, "ecdsa") && strcmp(arg, "rsa"))
            return util_err(err, "--tls-key must be ecdsa or rsa, not \"%s\"", arg);
        t->key = !strcmp(arg, "rsa") ? TLS_KEY_RSA : TLS_KEY_ECDSA;
        return 0;
    case O_TLS_CA:
        t->ca_out = arg;
        return 0;
    default: /* O_TLS_RESUMPTION */
        if (strcmp(arg, "on") && strcmp(arg, "off"))
            return util_err(err, "--tls-resumption must be on or off, not \"%s\"", arg);
        t->no_resumption = !strcmp(arg, "off");
        return 0;
    }
}

/* One option (opt from getopt_long, its argument arg). Returns 0, 1 when
 * the program should stop with status 0 (--help), or -1 with err. */
static int one_option(int opt, const char *arg, struct cli *c, char *err)
{
    uint64_t v;
    switch (opt) {
    case O_LISTEN: c->listen = arg; return 0;
    case O_CONTROL: c->control = arg; return 0;
    case O_STATS_OUT: c->stats_out = arg; return 0;
    case O_PORT: return parse_port(arg, "--port", &c->port, err);
    case O_CONTROL_PORT: return parse_port(arg, "--control-port", &c->control_port, err);
    case O_THREADS:
        if (count_option(arg, "--threads", 1, SERVER_MAX_THREADS, &v, err) < 0)
            return -1;
        c->cfg.threads = (int)v;
        return 0;
    case O_CPUS: return util_parse_cpulist(arg, &c->cfg.cpu_mask, err);
    case O_DELAY: case O_DELAY_DIST: case O_DELAY_P50: case O_DELAY_P99: case O_DELAY_MEAN:
    case O_DELAY_MIN: case O_DELAY_MAX: case O_SEED: case O_STALL_EVERY: case O_STALL_FOR:
        return delay_option(opt, arg, &c->cfg.delay, &c->seeded, err);
    case O_WORK: case O_BODY: case O_BACKLOG:
        return size_option(opt, arg, &c->cfg, err);
    case O_MAX_BODY: case O_EXPECT_BODY:
        return request_body_option(opt, arg, &c->cfg, err);
    case O_TLS: case O_TLS_KEY: case O_TLS_CA: case O_TLS_RESUMPTION:
        return tls_option(opt, arg, &c->cfg.tls, err);
    case O_HTTP2:
        c->cfg.http2 = c->cfg.tls.alpn_h2 = 1;
        return 0;
    case O_EXIT_WITH_PARENT:
        c->with_parent = 1;
        if (arg) {
            if (count_option(arg, "--exit-with-parent=PID: PID", 1, 4194304, &v, err) < 0)
                return -1;
            c->parent = (pid_t)v;
        }
        return 0;
    default: /* O_HELP */
        usage(stdout);
        return 1;
    }
}

/* The command line into c. Returns 0, 1 for --help (printed), or -1 with
 * err. */
static int parse_cli(int argc, char **argv, struct cli *c, char *err)
{
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (opt == '?' || opt == ':')
            return util_err(err, "unknown or incomplete option \"%s\" (see --help)", argv[optind - 1]);
        int rc = one_option(opt, optarg, c, err);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return util_err(err, "unexpected argument \"%s\" (see --help)", argv[optind]);
    if (delay_finish(&c->cfg.delay, c->seeded, err) < 0)
        return -1;
    const struct tls_config *t = &c->cfg.tls;
    if (!t->version && (t->key || t->ca_out || t->no_resumption))
        return util_err(err, "--tls-key, --tls-ca and --tls-resumption need --tls 1.3 or --tls 1.2");
    if (net_parse_addr(c->listen, &c->cfg.listen_addr, err) < 0 ||
        net_parse_addr(c->control, &c->cfg.control_addr, err) < 0)
        return -1;
    if (c->port >= 0)
        c->cfg.listen_addr.sin_port = htons((uint16_t)c->port);
    if (c->control_port >= 0)
        c->cfg.control_addr.sin_port = htons((uint16_t)c->control_port);
    return 0;
}

/* The process before any thread: file limit, timer slack, signals taken by
 * sigwait (into sigs), the parent watched. Returns 0, or -1 when the
 * parent is already gone. */
static int prepare_process(const struct cli *c, sigset_t *sigs)
{
    /* 10,000 connections need more than the usual soft limit of 1024. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    /* Timer slack is per thread and inherited: set it before the workers
     * exist so their timers fire when due, not up to 50 us late. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    signal(SIGPIPE, SIG_IGN);
    /* SIGTERM/SIGINT are taken by sigwait below; every thread inherits the
     * blocked mask, so no worker is interrupted. */
    sigemptyset(sigs);
    sigaddset(sigs, SIGTERM);
    sigaddset(sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, sigs, NULL);
    /* After the mask: the parent's death is then a SIGTERM for sigwait. */
    if (c->with_parent && exit_with_parent(c->parent) < 0) {
        fprintf(stderr, "lb-target: the parent process %d is gone (--exit-with-parent): not starting\n", (int)c->parent);
        return -1;
    }
    return 0;
}

/* The one line a starter waits for: where the server listens, and how. */
static void announce(struct server *s, const struct server_config *cfg)
{
    json_t *dj = server_delay_json(s);
    char *shape = json_dumps(dj, JSON_COMPACT);
    json_decref(dj);
    char tls[32] = "";   /* only with --tls: the plain line stays as it was */
    if (cfg->tls.version)
        snprintf(tls, sizeof tls, ",\"tls\":\"%s\"", tls_version_name(cfg->tls.version));
    if (cfg->http2)
        snprintf(tls + strlen(tls), sizeof tls - strlen(tls), ",\"http2\":true");
    printf("{\"event\":\"listening\",\"port\":%d,\"control_port\":%d,\"pid\":%d,\"threads\":%d,"
           "\"delay_ns\":%llu,\"work_ns\":%llu,\"body_bytes\":%llu,\"delay\":%s%s}\n",
           server_port(s), server_control_port(s), (int)getpid(), cfg->threads,
           (unsigned long long)cfg->delay.fixed_ns, (unsigned long long)cfg->work_ns,
           (unsigned long long)cfg->body_bytes, shape, tls);
    free(shape);
    fflush(stdout);
}

/* The final stats after signal sig, to --stats-out or stdout. Returns the
 * exit status: 0, or 1 when they could not be written. */
static int write_final(struct server *s, const struct cli *c, int sig)
{
    json_t *final = server_final_stats(s);
    json_object_set_new(final, "event", json_string("stopped"));
    json_object_set_new(final, "signal", json_string(sig == SIGINT ? "SIGINT" : "SIGTERM"));
    if (c->with_parent && getppid() != c->parent)
        json_object_set_new(final, "parent_exited", json_true());
    int rc = 0;
    FILE *f = c->stats_out ? fopen(c->stats_out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "lb-target: cannot write final stats to %s\n", c->stats_out);
        rc = 1;
    } else {
        json_dumpf(final, f, JSON_COMPACT);
        fputc('\n', f);
        if ((c->stats_out ? fclose(f) : fflush(f)) != 0) {
            fprintf(stderr, "lb-target: cannot write final stats to %s\n", c->stats_out ? c->stats_out : "stdout");
            rc = 1;
        }
    }
    json_decref(final);
    return rc;
}

int main(int argc, char **argv)
{
    /* The parent as early as possible: --exit-with-parent without a PID
     * covers the time from here on. */
    struct cli c = {.cfg = {.threads = 1, .body_bytes = 64, .backlog = 4096, .max_body = 1ull << 20},
                    .listen = "127.0.0.1:8080", .control = "127.0.0.1:8081",
                    .port = -1, .control_port = -1, .parent = getppid()};
    char err[UTIL_ERR_LEN];
    int rc = parse_cli(argc, argv, &c, err);
    if (rc)
        return rc > 0 ? 0 : fail(err);
    sigset_t sigs;
    if (prepare_process(&c, &sigs) < 0)
        return 1;
    if (c.cfg.cpu_mask && util_pin(0, c.cfg.cpu_mask, err) < 0)
        return fail(err);
    struct server *s = server_new(&c.cfg, err);
    if (!s)
        return fail(err);
    if (server_start(s, err) < 0) {
        server_free(s);
        return fail(err);
    }
    announce(s, &c.cfg);
    int sig = 0;
    sigwait(&sigs, &sig);
    rc = write_final(s, &c, sig);
    server_free(s);
    return rc;
}
