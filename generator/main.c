/* lb-gen: the native HTTP/1.1 and HTTP/2 load generator. Parses the command line into
 * a gen_config, checks the target answers one connect, runs, and writes the
 * reports. Exit status: 0 after a run (errors during it are in the report),
 * 2 for a bad command line, 1 when the run could not start or the report
 * could not be written, 3 when the run did not deliver its connections (the
 * report is written, its "error" says what fell short). */
#include "generator/gen.h"
#include "generator/http.h"
#include "common/fsutil.h"
#include "common/net.h"
#include "generator/report.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    if (stop_flag < 2)
        stop_flag++;
}

static const char usage[] =
    "usage: lb-gen [options] URL\n"
    "\n"
    "Closed model (a number of connections, each sending its next request when\n"
    "the previous response is complete):\n"
    "  -c, --connections N     connections held for --duration (default 10)\n"
    "  -s, --stages LIST       ramp connections like k6 ramping-vus, from 0:\n"
    "                          DURATION:TARGET,... e.g. 30s:200,60s:200,10s:0\n"
    "Open model (requests on a fixed timetable, whatever the responses do):\n"
    "  -R, --rate R            requests per second for --duration\n"
    "      --rate-stages LIST  ramp the rate from 0, e.g. 10s:1000,30s:1000,5s:0\n"
    "  -c, --connections N     connections opened before the start (default 100, or\n"
    "                          --max-inflight if lower)\n"
    "      --max-inflight N    cap on requests in flight; the pool grows on demand up\n"
    "                          to it (default: --connections if given, else 1000)\n"
    "      --arrivals KIND     timetable (default: evenly spaced) or poisson (random,\n"
    "                          exponential gaps, drawn from --seed N, default 1)\n"
    "Common:\n"
    "  -d, --duration T        how long to send (default 10s; not with stages)\n"
    "  -t, --threads N         worker threads, each with its own event loop (default 1;\n"
    "                          never more than the connections)\n"
    "      --timeout T         a request (or connect) slower than this is an error (default 10s)\n"
    "      --grace T           after the end, wait at most this for responses in flight (default 5s)\n"
    "      --no-keepalive      a new connection for every request: Connection: close, closed\n"
    "                          after the response (also --keepalive off, --close)\n"
    "      --post SIZE         every request a POST with a body of SIZE bytes (1B-1MiB,\n"
    "                          e.g. 1KiB; built once), Content-Length framed\n"
    "      --expect-status CODE  a response with any other status (100-599) is an error,\n"
    "                          counted as check_failed (default: any 2xx is ok)\n"
    "      --cpus LIST         pin worker i to the i-th CPU of LIST (e.g. 0 or 0-3)\n"
    "      --json FILE         write the JSON summary to FILE (default: stdout; - is stdout)\n"
    "      --percentiles FILE  write the full latency distribution to FILE\n"
    "      --seconds-dist FILE write each second's latency histogram to FILE\n"
    "      --sends FILE        write each request's send time (CLOCK_MONOTONIC ns) to FILE\n"
    "  -q, --quiet             no human summary on stderr\n"
    "HTTPS (an https:// URL; OpenSSL, ALPN http/1.1):\n"
    "      --tls-version V     1.3 or 1.2 only (default: negotiate, at least 1.2)\n"
    "      --cacert FILE       verify the server against this CA (PEM; default: the\n"
    "                          system's CAs); the certificate must name the URL's host\n"
    "      --insecure          do not verify the server's certificate\n"
    "      --tls-resumption on|off  offer each thread's newest session (TLS 1.3 ticket,\n"
    "                          TLS 1.2 session) on its new connections (default on)\n"
    "HTTP/2 (nghttp2; one stream at a time per connection, like h2load -m 1):\n"
    "      --http2             speak HTTP/2: over https:// ALPN h2 only (a server that\n"
    "                          does not choose h2 fails the connection, never HTTP/1.1);\n"
    "                          over http:// h2c with prior knowledge\n"
    "  -h, --help              this text;  --version  the version\n"
    "\n"
    "Durations take units: 500ms, 2s, 1m30s. The JSON summary (schema lb-gen/1)\n"
    "is described in generator/README.md. Exit status: 0 after a run, 1 when it\n"
    "could not start, 2 for a bad command line, 3 when fewer connections than\n"
    "asked were open at once (the JSON's \"error\" says so).\n";

enum { O_RATE_STAGES = 256, O_MAX_INFLIGHT, O_TIMEOUT, O_GRACE, O_CLOSE, O_CPUS, O_JSON, O_PERCENTILES, O_SECONDS, O_VERSION,
       O_ARRIVALS, O_SEED, O_KEEPALIVE, O_TLS_VERSION, O_CACERT, O_INSECURE, O_TLS_RESUMPTION, O_SENDS,
       O_EXPECT_STATUS, O_POST, O_HTTP2 };

static const struct option long_opts[] = {
    {"connections", required_argument, NULL, 'c'},
    {"stages", required_argument, NULL, 's'},
    {"rate", required_argument, NULL, 'R'},
    {"rate-stages", required_argument, NULL, O_RATE_STAGES},
    {"max-inflight", required_argument, NULL, O_MAX_INFLIGHT},
    {"duration", required_argument, NULL, 'd'},
    {"threads", required_argument, NULL, 't'},
    {"timeout", required_argument, NULL, O_TIMEOUT},
    {"grace", required_argument, NULL, O_GRACE},
    {"close", no_argument, NULL, O_CLOSE},
    {"no-keepalive", no_argument, NULL, O_CLOSE},
    {"keepalive", required_argument, NULL, O_KEEPALIVE},
    {"expect-status", required_argument, NULL, O_EXPECT_STATUS},
    {"post", required_argument, NULL, O_POST},
    {"http2", no_argument, NULL, O_HTTP2},
    {"tls-version", required_argument, NULL, O_TLS_VERSION},
    {"cacert", required_argument, NULL, O_CACERT},
    {"insecure", no_argument, NULL, O_INSECURE},
    {"tls-resumption", required_argument, NULL, O_TLS_RESUMPTION},
    {"arrivals", required_argument, NULL, O_ARRIVALS},
    {"seed", required_argument, NULL, O_SEED},
    {"cpus", required_argument, NULL, O_CPUS},
    {"json", required_argument, NULL, O_JSON},
    {"percentiles", required_argument, NULL, O_PERCENTILES},
    {"seconds-dist", required_argument, NULL, O_SECONDS},
    {"sends", required_argument, NULL, O_SENDS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, O_VERSION},
    {NULL, 0, NULL, 0},
};

struct args {
    const char *connections, *stages, *rate, *rate_stages, *max_inflight, *duration, *threads;
    const char *timeout, *grace, *cpus, *json, *percentiles, *seconds, *url, *arrivals, *seed;
    const char *keepalive, *tls_version, *cacert, *tls_resumption, *sends, *expect_status, *post;
    int close_each, insecure, quiet, http2;
};

static int parse_count(const char *s, const char *what, uint64_t min, uint64_t max, uint64_t *out, char *err)
{
    if (units_parse_count(s, what, out, err) < 0)
        return -1;
    if (*out < min || *out > max)
        return util_err(err, "%s must be between %llu and %llu, not %s", what, (unsigned long long)min,
                        (unsigned long long)max, s);
    return 0;
}

static int parse_duration(const char *s, const char *what, uint64_t *out, char *err)
{
    char e[UTIL_ERR_LEN];
    if (units_parse_duration_ns(s, out, e) < 0)
        return util_err(err, "%s: %s", what, e);
    return 0;
}

/* The sections of the config, in the order build_config fills them; each
 * returns 0, or -1 with err filled. */

/* The URL: where to connect and what to ask for. */
static int config_url(const struct args *a, struct gen_config *cfg, char *err)
{
    if (!a->url)
        return util_err(err, "no URL given (e.g. lb-gen -c 10 -d 5s http://127.0.0.1:8080/)");
    char *hostport = NULL, *path = NULL;
    if (http_url_split(a->url, &hostport, &path, &cfg->tls, err) < 0)
        return -1;
    cfg->url = a->url;
    cfg->host = hostport;
    cfg->path = path;
    cfg->tls_opts.host = util_xasprintf("%.*s", (int)(strrchr(hostport, ':') - hostport), hostport);
    char e[UTIL_ERR_LEN];
    if (net_parse_addr(hostport, &cfg->addr, e) < 0)
        return util_err(err, "URL %s: %s", a->url, e);
    if (cfg->addr.sin_port == 0)
        return util_err(err, "URL %s: port 0 cannot be connected to", a->url);
    return 0;
}

/* Threads, the request timeout, the grace and the duration (10 s unless
 * given; stages set their own length). */
static int config_timing(const struct args *a, struct gen_config *cfg, uint64_t *duration, char *err)
{
    uint64_t n;
    cfg->threads = 1;
    if (a->threads && parse_count(a->threads, "--threads", 1, 1024, &n, err) < 0)
        return -1;
    if (a->threads)
        cfg->threads = (int)n;
    cfg->threads_requested = cfg->threads;

    cfg->timeout_ns = 10000000000ULL;
    if (a->timeout && parse_duration(a->timeout, "--timeout", &cfg->timeout_ns, err) < 0)
        return -1;
    if (cfg->timeout_ns == 0)
        return util_err(err, "--timeout must be more than 0s");
    cfg->grace_ns = 5000000000ULL;
    if (a->grace && parse_duration(a->grace, "--grace", &cfg->grace_ns, err) < 0)
        return -1;

    *duration = 10000000000ULL;
    if (a->duration) {
        if (a->stages || a->rate_stages)
            return util_err(err, "--duration cannot be combined with --stages/--rate-stages (the stages set the length)");
        if (parse_duration(a->duration, "--duration", duration, err) < 0)
            return -1;
        if (*duration == 0)
            return util_err(err, "--duration must be more than 0s");
    }
    return 0;
}

/* The closed model: connections held, or ramped by --stages. */
static int config_closed(const struct args *a, struct gen_config *cfg, uint64_t duration, char *err)
{
    if (a->max_inflight)
        return util_err(err, "--max-inflight belongs to the open model (--rate or --rate-stages)");
    if (a->stages && a->connections)
        return util_err(err, "give either --connections or --stages, not both");
    if (a->stages) {
        if (stages_parse(&cfg->load, a->stages, 1, "--stages", err) < 0)
            return -1;
        cfg->load_from_stages = 1;
        if (stages_max(&cfg->load) < 1)
            return util_err(err, "--stages never reach 1 connection");
    } else {
        uint64_t conns = 10;
        if (a->connections && parse_count(a->connections, "--connections", 1, 1000000, &conns, err) < 0)
            return -1;
        stages_constant(&cfg->load, (double)conns, duration);
    }
    /* More threads than connections would leave threads idle: use
     * fewer (the summary shows both numbers). */
    if ((double)cfg->threads > stages_max(&cfg->load))
        cfg->threads = (int)stages_max(&cfg->load);
    return 0;
}

/* The open model's rate: constant (--rate) or ramped (--rate-stages). */
static int config_rate(const struct args *a, struct gen_config *cfg, uint64_t duration, char *err)
{
    if (a->stages)
        return util_err(err, "--stages ramps connections (closed model); with --rate use --rate-stages");
    if (a->rate && a->rate_stages)
        return util_err(err, "give either --rate or --rate-stages, not both");
    if (a->rate) {
        char *end;
        errno = 0;
        double r = strtod(a->rate, &end);
        if (!a->rate[0] || *end || errno || !isfinite(r) || r <= 0)
            return util_err(err, "--rate must be a number of requests per second above 0, not \"%s\"", a->rate);
        stages_constant(&cfg->load, r, duration);
        return 0;
    }
    if (stages_parse(&cfg->load, a->rate_stages, 0, "--rate-stages", err) < 0)
        return -1;
    cfg->load_from_stages = 1;
    if (stages_arrival_count(&cfg->load) == 0)
        return util_err(err, "--rate-stages schedule no request at all");
    return 0;
}

/* The open model: the rate, and the pool of connections it may use. */
static int config_open(const struct args *a, struct gen_config *cfg, uint64_t duration, char *err)
{
    if (config_rate(a, cfg, duration, err) < 0)
        return -1;
    uint64_t pool = 0, cap = 0;
    if (a->max_inflight && parse_count(a->max_inflight, "--max-inflight", 1, 1000000, &cap, err) < 0)
        return -1;
    if (a->connections && parse_count(a->connections, "--connections", 1, 1000000, &pool, err) < 0)
        return -1;
    /* --connections: opened before the start; --max-inflight: the
     * cap, up to which the pool grows on demand (k6's preAllocatedVUs
     * and maxVUs). Only --connections: a fixed pool. */
    if (!cap)
        cap = pool ? pool : 1000;
    if (!pool)
        pool = cap < 100 ? cap : 100;
    if (pool > cap)
        return util_err(err, "--connections %llu is more than --max-inflight %llu (HTTP/1.1 sends one request at a time per connection)",
                        (unsigned long long)pool, (unsigned long long)cap);
    if ((uint64_t)cfg->threads > cap)
        cfg->threads = (int)cap;
    cfg->connections = (uint32_t)pool;
    cfg->max_inflight = (uint32_t)cap;
    return 0;
}

/* One descriptor per connection plus a few: raise the soft limit towards
 * the hard one, or say so before any load. */
static int config_files(const struct args *a, struct gen_config *cfg, char *err)
{
    uint64_t conns = cfg->model == GEN_OPEN ? cfg->max_inflight : (uint64_t)ceil(stages_max(&cfg->load));
    rlim_t need = (rlim_t)conns + (rlim_t)cfg->threads + 32;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need && cfg->model == GEN_OPEN && !a->max_inflight &&
            rl.rlim_cur > (rlim_t)cfg->connections + (rlim_t)cfg->threads + 32) {
            /* The default cap (1000) shrinks to fit the limit. */
            cfg->max_inflight = (uint32_t)(rl.rlim_cur - (rlim_t)cfg->threads - 32);
            need = rl.rlim_cur;
        }
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < need)
            return util_err(err, "%llu connections need %llu open files but the limit is %llu: raise it (ulimit -n) or use fewer",
                            (unsigned long long)conns, (unsigned long long)need, (unsigned long long)rl.rlim_cur);
    }
    return 0;
}

/* The benchmark-only cost switch and the CPUs to pin to. */
static int config_extras(const struct args *a, struct gen_config *cfg, char *err)
{
    /* Benchmark-only switch (bench/gate.sh): a known CPU cost per response,
     * to measure what the nightly gate can see. Not a command-line option:
     * nobody should find it by accident. */
    const char *plant = getenv("LB_GEN_PLANT_NS");
    if (plant && *plant && parse_count(plant, "LB_GEN_PLANT_NS", 0, 1000000000, &cfg->plant_ns, err) < 0)
        return -1;
    if (a->cpus) {
        uint64_t mask;
        char e[UTIL_ERR_LEN];
        if (util_parse_cpulist(a->cpus, &mask, e) < 0)
            return util_err(err, "--cpus: %s", e);
        for (int i = 0; i < 64; i++)
            if (mask & (1ULL << i))
                cfg->cpus[cfg->ncpus++] = i;
        if (util_pin(0, mask, e) < 0)
            return util_err(err, "--cpus %s: %s", a->cpus, e);
    }
    return 0;
}

/* --arrivals and --seed: the open model's arrival process. */
static int config_arrivals(const struct args *a, struct gen_config *cfg, char *err)
{
    cfg->seed = 1;
    if ((a->arrivals || a->seed) && cfg->model != GEN_OPEN)
        return util_err(err, "--arrivals and --seed belong to the open model (--rate or --rate-stages)");
    if (a->arrivals && strcmp(a->arrivals, "poisson") && strcmp(a->arrivals, "timetable"))
        return util_err(err, "--arrivals must be timetable or poisson, not \"%s\"", a->arrivals);
    cfg->poisson = a->arrivals && !strcmp(a->arrivals, "poisson");
    if (a->seed && parse_count(a->seed, "--seed", 0, UINT64_MAX, &cfg->seed, err) < 0)
        return -1;
    if (a->seed && !cfg->poisson)
        return util_err(err, "--seed draws Poisson arrivals: add --arrivals poisson");
    return 0;
}

/* --expect-status CODE: the status every response must have; --post
 * SIZE: the body every request carries. */
static int config_check(const struct args *a, struct gen_config *cfg, char *err)
{
    uint64_t st = 0, body = 0;
    char e[UTIL_ERR_LEN];
    if (a->expect_status && parse_count(a->expect_status, "--expect-status", 100, 599, &st, err) < 0)
        return -1;
    cfg->expect_status = (unsigned)st;
    if (a->post && units_parse_size_bytes(a->post, &body, e) < 0)
        return util_err(err, "--post: %s", e);
    if (a->post && (body < 1 || body > (1u << 20)))
        return util_err(err, "--post must be between 1B and 1MiB");
    cfg->body_bytes = (size_t)body;
    return 0;
}

/* --keepalive, --no-keepalive (--close). */
static int config_keepalive(const struct args *a, struct gen_config *cfg, char *err)
{
    cfg->close_each = a->close_each;
    if (!a->keepalive)
        return 0;
    if (strcmp(a->keepalive, "on") && strcmp(a->keepalive, "off"))
        return util_err(err, "--keepalive must be on or off, not \"%s\"", a->keepalive);
    if (a->close_each && !strcmp(a->keepalive, "on"))
        return util_err(err, "--keepalive on contradicts --no-keepalive/--close");
    cfg->close_each = !strcmp(a->keepalive, "off");
    return 0;
}

/* --tls-version, --cacert, --insecure, --tls-resumption: with an https://
 * URL only. */
static int config_tls(const struct args *a, struct gen_config *cfg, char *err)
{
    struct gtls_opts *t = &cfg->tls_opts;
    if (!cfg->tls && (a->tls_version || a->cacert || a->insecure || a->tls_resumption))
        return util_err(err, "--tls-version, --cacert, --insecure and --tls-resumption need an https:// URL");
    if (a->tls_version && strcmp(a->tls_version, "1.3") && strcmp(a->tls_version, "1.2"))
        return util_err(err, "--tls-version must be 1.3 or 1.2, not \"%s\"", a->tls_version);
    t->version = !a->tls_version ? 0 : !strcmp(a->tls_version, "1.3") ? 13 : 12;
    if (a->tls_resumption && strcmp(a->tls_resumption, "on") && strcmp(a->tls_resumption, "off"))
        return util_err(err, "--tls-resumption must be on or off, not \"%s\"", a->tls_resumption);
    t->resumption = !a->tls_resumption || !strcmp(a->tls_resumption, "on");
    if (a->cacert && a->insecure)
        return util_err(err, "give either --cacert (verify) or --insecure (do not), not both");
    t->cafile = a->cacert;
    t->insecure = a->insecure;
    cfg->h2 = a->http2;
    t->h2 = cfg->h2 && cfg->tls;
    return 0;
}

/* Turn the options into a config. Returns 0, or -1 with err filled. */
static int build_config(const struct args *a, struct gen_config *cfg, char *err)
{
    uint64_t duration;
    memset(cfg, 0, sizeof *cfg);
    cfg->model = a->rate || a->rate_stages ? GEN_OPEN : GEN_CLOSED;
    cfg->per_second_hist = a->seconds != NULL;
    cfg->record_sends = a->sends != NULL;
    if (config_url(a, cfg, err) < 0 || config_keepalive(a, cfg, err) < 0 || config_check(a, cfg, err) < 0 ||
        config_tls(a, cfg, err) < 0 || config_timing(a, cfg, &duration, err) < 0)
        return -1;
    if (cfg->model == GEN_CLOSED ? config_closed(a, cfg, duration, err) : config_open(a, cfg, duration, err))
        return -1;
    cfg->duration_ns = stages_total_ns(&cfg->load);
    if (config_arrivals(a, cfg, err) < 0)
        return -1;
    if (config_files(a, cfg, err) < 0 || config_extras(a, cfg, err) < 0)
        return -1;
    return 0;
}

static void config_free(struct gen_config *cfg)
{
    stages_free(&cfg->load);
    free((char *)cfg->host);
    free((char *)cfg->path);
    free((char *)cfg->tls_opts.host);
    cfg->host = cfg->path = cfg->tls_opts.host = NULL;
}

/* One probe connect, so an unreachable target is one clear error before
 * any load rather than a report full of connect errors; over https the
 * probe's handshake, so that a certificate that does not verify, or a
 * version the server does not speak, is one too (bounded by --timeout, at
 * most 10 s). Returns 0, or -1 with err filled. */
static int probe_target(const struct gen_config *cfg, char *err)
{
    char e[UTIL_ERR_LEN];
    int fd = net_connect_blocking(&cfg->addr, err);
    if (fd < 0)
        return stop_flag ? 0 : -1; /* a signal's EINTR is a stopped run, not an unreachable target */
    uint64_t ms = cfg->timeout_ns / 1000000;
    int rc = 0;
    if (cfg->tls && gtls_probe(&cfg->tls_opts, fd, ms > 10000 ? 10000 : ms < 1 ? 1 : (int)ms, e) < 0)
        rc = util_err(err, "%s: %s", cfg->url, e);
    close(fd);
    return rc;
}

/* The command line into a. Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "c:s:R:d:t:qh", long_opts, NULL)) != -1) {
        switch (opt) {
        case 'c': a->connections = optarg; break;
        case 's': a->stages = optarg; break;
        case 'R': a->rate = optarg; break;
        case O_RATE_STAGES: a->rate_stages = optarg; break;
        case O_MAX_INFLIGHT: a->max_inflight = optarg; break;
        case 'd': a->duration = optarg; break;
        case 't': a->threads = optarg; break;
        case O_TIMEOUT: a->timeout = optarg; break;
        case O_GRACE: a->grace = optarg; break;
        case O_CLOSE: a->close_each = 1; break;
        case O_KEEPALIVE: a->keepalive = optarg; break;
        case O_EXPECT_STATUS: a->expect_status = optarg; break;
        case O_POST: a->post = optarg; break;
        case O_HTTP2: a->http2 = 1; break;
        case O_TLS_VERSION: a->tls_version = optarg; break;
        case O_CACERT: a->cacert = optarg; break;
        case O_INSECURE: a->insecure = 1; break;
        case O_TLS_RESUMPTION: a->tls_resumption = optarg; break;
        case O_ARRIVALS: a->arrivals = optarg; break;
        case O_SEED: a->seed = optarg; break;
        case O_CPUS: a->cpus = optarg; break;
        case O_JSON: a->json = optarg; break;
        case O_PERCENTILES: a->percentiles = optarg; break;
        case O_SECONDS: a->seconds = optarg; break;
        case O_SENDS: a->sends = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        case O_VERSION: printf("lb-gen %s (%s, %s)\n", LB_VERSION, LB_GIT_REV, LB_BUILD_TYPE); return 0;
        default:
            if (optopt && optopt < 256)
                fprintf(stderr, "lb-gen: option -%c %s (see lb-gen --help)\n", optopt,
                        strchr("csRdt", optopt) ? "needs a value" : "is unknown");
            else
                fprintf(stderr, "lb-gen: option %s is unknown or needs a value (see lb-gen --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc)
        a->url = argv[optind];
    if (optind + 1 < argc) {
        fprintf(stderr, "lb-gen: one URL only, got also \"%s\" (see lb-gen --help)\n", argv[optind + 1]);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    struct args a = {0};
    char err[UTIL_ERR_LEN];
    /* First of all, so that a signal at any moment ends the run with its
     * JSON: one before the load starts makes a run that stops at once. */
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int done = parse_args(argc, argv, &a);
    if (done >= 0)
        return done;

    struct gen_config cfg;
    if (build_config(&a, &cfg, err) < 0) {
        fprintf(stderr, "lb-gen: %s\n", err);
        config_free(&cfg);
        return 2;
    }
    if (probe_target(&cfg, err) < 0) {
        fprintf(stderr, "lb-gen: %s\n", err);
        config_free(&cfg);
        return 1;
    }

    struct gen_result res;
    if (gen_run(&cfg, &stop_flag, &res, err) < 0) {
        fprintf(stderr, "lb-gen: %s\n", err);
        config_free(&cfg);
        return 1;
    }

    int rc = 0;
    if (!a.quiet)
        report_human(stderr, &cfg, &res);
    json_t *j = report_json(&cfg, &res);
    json_object_set_new(j, "interrupted", json_boolean(stop_flag != 0));
    int jflags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10);
    if (!a.json || !strcmp(a.json, "-")) {
        if (json_dumpf(j, stdout, jflags) < 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
            fprintf(stderr, "lb-gen: cannot write the JSON summary to stdout\n");
            rc = 1;
        }
    } else if (fsutil_write_json_flags(a.json, j, jflags, err) < 0) {
        /* whole or not at all: a kill mid-write (a CI timeout, a dying
         * loadbench's parent-death SIGKILL) leaves no half summary */
        fprintf(stderr, "lb-gen: %s (the JSON summary)\n", err);
        rc = 1;
    }
    json_decref(j);
    if (report_shortfall(&res, err) < 0) {
        fprintf(stderr, "lb-gen: %s\n", err);
        if (rc == 0)
            rc = 3;
    }
    if (a.percentiles && report_percentiles(a.percentiles, &res, err) < 0) {
        fprintf(stderr, "lb-gen: %s\n", err);
        rc = 1;
    }
    if ((a.seconds && report_seconds(a.seconds, &res, err) < 0) || (a.sends && report_sends(a.sends, &res, err) < 0)) {
        fprintf(stderr, "lb-gen: %s\n", err);
        rc = 1;
    }
    gen_result_free(&res);
    config_free(&cfg);
    return rc;
}
