/* gen: the load generator's engine — worker threads, each with its own
 * epoll loop, connections, counters, histograms and per-second series,
 * merged by gen_run after join. No locks on the hot path: the only shared
 * writes are two atomics updated when a connection opens or closes. */
#ifndef LB_GEN_GEN_H
#define LB_GEN_GEN_H

#include "generator/series.h"
#include "generator/stages.h"
#include "generator/tls.h"

#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

enum gen_model { GEN_CLOSED, GEN_OPEN };

struct gen_config {
    enum gen_model model;
    struct sockaddr_in addr;
    const char *url;
    const char *host;          /* Host header */
    const char *path;
    int threads;
    int threads_requested;     /* --threads before capping at the connections */
    /* closed: connections over time; open: arrivals per second over time */
    struct stages load;
    int load_from_stages;      /* given as stages (else a constant) */
    uint64_t duration_ns;      /* = stages_total_ns(&load) */
    uint32_t connections;      /* open model: connections opened before the start */
    uint32_t max_inflight;     /* open model: cap on requests in flight, and so on
                                * connections (the pool grows on demand up to it) */
    uint64_t timeout_ns;       /* per request (and per connect) */
    uint64_t grace_ns;         /* drain bound after the schedule ends */
    int close_each;            /* Connection: close on every request (--no-keepalive): a new
                                * connection per request */
    size_t body_bytes;         /* --post SIZE: every request a POST with a body of this many
                                * bytes; 0 = GET */
    unsigned expect_status;    /* --expect-status: a response with another status is an error
                                * (check_failed); 0 = the default, 2xx is ok */
    int tls;                   /* an https:// URL: every connection speaks TLS */
    int h2;                    /* --http2: HTTP/2, h2 by ALPN over TLS, else h2c with prior
                                * knowledge; one stream at a time per connection */
    struct gtls_opts tls_opts; /* ... how */
    int poisson;               /* open model: Poisson arrivals (seeded) instead of the timetable */
    uint64_t seed;             /* ... their seed: the same seed, the same arrivals */
    int ncpus;                 /* pin worker i to cpus[i % ncpus] */
    int cpus[64];
    int per_second_hist;       /* keep a 3-digit histogram per second (gen_result.sec_dist) */
    int record_sends;          /* keep each request's send time (gen_result.sends), at most
                                * GEN_SENDS_MAX a thread */
    uint64_t plant_ns;         /* benchmark only (bench/gate.sh, LB_GEN_PLANT_NS): thread CPU
                                * burnt per response, a known regression; 0 = off */
};

struct gen_counts {
    uint64_t sent;             /* requests fully written */
    uint64_t completed;        /* responses fully received */
    uint64_t ok;               /* 2xx */
    uint64_t non2xx;
    uint64_t check_failed;     /* --expect-status: responses with another status */
    uint64_t err_connect, err_read, err_write, err_timeout;
    uint64_t unfinished;       /* in flight when the grace ran out (also in err_timeout) */
    uint64_t scheduled, late, dropped, cap_hits; /* open model */
    uint64_t conn_opened, conn_closed;
    uint64_t conn_unfinished;  /* connects still in progress when the load ended */
    uint64_t bytes_read, bytes_written;
    uint64_t tls_handshakes, tls_resumed, tls_failed; /* completed (resumed among them), failed */
    uint64_t tls_unfinished;   /* handshakes under way when the load ended (in conn_unfinished) */
    uint64_t h2_resets;        /* --http2: streams the server reset or a GOAWAY refused (in err_read) */
    uint64_t h2_goaways;       /* --http2: GOAWAY frames received */
};

/* One bucket of one second's latency histogram: the second (from the load's
 * start) its responses completed in, the bucket's highest equivalent value
 * (ns; the second's exact max in its top bucket) and its count. */
struct gen_sec_bucket {
    uint64_t sec, value, count;
};

struct gen_sec_dist {
    struct gen_sec_bucket *v;
    size_t n, cap;
};

/* Send times (CLOCK_MONOTONIC ns) of requests written, in order; dropped:
 * those past a thread's GEN_SENDS_MAX. */
struct gen_sends {
    uint64_t *v;
    size_t n, cap;
    uint64_t dropped;
};
#define GEN_SENDS_MAX (4u << 20)

struct gen_result {
    struct gen_counts c;
    struct hist *lat;          /* closed: send→response; open: intended send→response */
    struct hist *lat_uncorr;   /* open model: actual send→response; NULL in closed */
    struct series series;
    uint32_t max_open;         /* most connections open at once, all threads */
    uint32_t asked;            /* most the load asked for at once (closed: the highest level
                                * reached; open: the pool opened before the start) */
    int interrupted;           /* a signal stopped the run */
    uint64_t start_ns, stop_ns, end_ns;  /* monotonic: load start, schedule end, drain end */
    uint64_t start_wall_ms, end_wall_ms;
    struct gen_sec_dist sec_dist;  /* with per_second_hist: every thread's, second by second */
    struct gen_sends sends;    /* with record_sends: every thread's, sorted */
    const char *tls_version;   /* TLS: OpenSSL's names of the version and cipher negotiated
                                * (static strings; NULL before a handshake completed) */
    const char *tls_cipher;
    char tls_failure[256];     /* TLS: why the first failed handshake failed ("" none) */
};

/* Latency histograms cover 1 ns .. this, at 3 significant digits. */
#define GEN_HIST_HIGHEST_NS (100ULL * 1000000000ULL)
/* An open-model request sent later than this after its intended time is
 * counted late. */
#define GEN_LATE_NS 1000000ULL

/* Run the load described by cfg to the end (or until *stop becomes
 * non-zero), drain, and fill out. Returns 0, or -1 with err filled when the
 * run could not start (threads, epoll); errors during the run are counted,
 * never fatal. */
int gen_run(const struct gen_config *cfg, const volatile sig_atomic_t *stop,
            struct gen_result *out, char *err);

/* Free what gen_run put in r (histograms, series). */
void gen_result_free(struct gen_result *r);

#endif
