/* server_impl: what lb-target's event loops (server.c) and its control
 * channel (control.c) share, and nobody else reads: the limits, the
 * prebuilt response variants, the worker commands, and the structures of a
 * connection, a worker and the server. Each worker owns its own; the
 * control thread reads a worker's figures only through the command
 * handshake (control.c's top comment). Private to targets/: lb-target's
 * users include targets/server.h. */
#ifndef LB_SERVER_IMPL_H
#define LB_SERVER_IMPL_H

#include "targets/server.h"
#include "targets/h1.h"
#include "targets/tstats.h"
#include "targets/arrivals.h"
#include "targets/tls.h"
#include "targets/h2.h"
#include "common/hist.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define IBUF_BYTES        65536     /* one read's worth of requests */
#define MAX_HEAD_BYTES    8192      /* longer request heads get 431 */
#define OBUF_SOFT_BYTES   262144    /* flush pipelined responses beyond this */
#define OUT_IOV           1024      /* iovecs per writev (IOV_MAX) */
#define MAX_QUEUED        1024      /* delayed responses per connection before reads pause */
#define MAX_QUEUED_BYTES  (4u << 20) /* ... or this many bytes of them (large bodies) */
#define LINGER_MAX_BYTES  (1u << 20)
#define EVENTS_PER_WAIT   512
#define CONN_CHUNK        256
#define CONTROL_TIMEOUT_MS 5000
#define CONTROL_STALLS_MAX 4096     /* GET /stalls lists the last this many */

/* epoll tags that are not connections (connections are pointers). */
#define TAG_LISTEN 1
#define TAG_TIMER  2
#define TAG_CTRL   3

/* Response variants, prebuilt once. */
enum { V_PLAIN, V_CLOSE, V_KEEPALIVE, V_HEAD_PLAIN, V_HEAD_CLOSE, V_HEAD_KEEPALIVE, V_400, V_431, V_413, V_CONTINUE,
       V_COUNT };
#define V_IS_ERROR(v) ((v) == V_400 || (v) == V_431 || (v) == V_413)
#define V_IS_OK(v) ((v) <= V_HEAD_KEEPALIVE)
#define V_IS_CLOSE(v) ((v) == V_CLOSE || (v) == V_HEAD_CLOSE)
#define V_HEAD_OFFSET (V_HEAD_PLAIN - V_PLAIN)   /* HEAD: the same headers, no body */

/* Worker commands (bits). */
#define CMD_SYNC     1
#define CMD_SNAPSHOT 2
#define CMD_WINDOW   4

enum { PS_HEAD, PS_BODY };   /* parsing a request head, or its body (c->body) */

/* A response to write: a reference into the shared prebuilt one. */
struct oref {
    uint64_t parsed_ns;
    uint32_t sent;       /* bytes of it already written */
    uint8_t variant;
};

/* Responses to write, in order: entries [head, len) of ents. */
struct outq {
    struct oref *ents;
    size_t head, len, cap;
    size_t bytes;        /* bytes still to write */
    size_t pending_ok;   /* OK responses not yet completed */
};

struct conn {
    int fd;
    uint32_t gen;
    uint8_t is_free, pstate, variant;
    uint8_t closing;          /* no more requests are parsed */
    uint8_t close_when_done;  /* close once queued and pending output are done */
    uint8_t extra_input;      /* input arrived after the last request we answer */
    uint8_t lingering;        /* write side shut, discarding input until EOF */
    uint8_t peer_fin;         /* the peer sent FIN */
    uint8_t want_read;        /* reading paused (backpressure) with input maybe waiting */
    uint8_t in_ready;         /* c->in holds complete unprocessed input */
    uint8_t resp_since_input; /* a response completed after the last input */
    uint8_t wrote_after_fin;  /* a response completed after the peer's FIN */
    uint8_t handshaking;      /* TLS: the handshake is not complete yet */
    uint8_t sniffed;          /* --http2: the first input was looked at for the h2 preface */
    uint32_t queued, queued_ok;
    uint32_t nreq;            /* requests parsed on it (arrivals.h) */
    int peer;                 /* its address's slot in srv->peers (peers.h), -1: none */
    uint64_t queued_bytes;    /* bytes of the queued (delayed) responses */
    uint64_t linger_bytes;
    uint64_t last_due_ns;     /* drawn delays: a response never goes before an earlier one */
    struct h1_body body;      /* PS_BODY: the request body being read (counted, not kept) */
    char *in;
    size_t in_len, in_cap;
    struct outq *out;         /* what could not be written yet */
    SSL *ssl;                 /* TLS (tls.h); NULL: plain HTTP */
    struct h2_conn *h2;       /* HTTP/2 (h2.h); NULL: HTTP/1.x */
    struct conn *next;
};

struct dent {
    struct conn *c;
    uint32_t gen;
    int variant;
    uint64_t parsed_ns;
    uint64_t due_ns;
    uint64_t seq;             /* heap order among equal deadlines: arrival */
    int32_t stream;           /* HTTP/2: the stream to answer (0: HTTP/1.x) */
};

struct server;

struct worker {
    struct tstats_counters ctr;          /* first: its own cache lines */
    struct server *srv;
    int id;
    pthread_t thread;
    int started;
    int epfd, tfd, efd, reserve_fd;
    uint64_t now;
    uint64_t timer_fire_ns;   /* when the FIFO head wants the loop awake */
    int use_pwait2;           /* wait with epoll_pwait2's ns timeout, else the timerfd */
    int64_t real_minus_mono_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at this batch */
    uint64_t req_base_ns;     /* when the request being parsed arrived (delay mode) */
    uint64_t h2_write_ns;     /* when the latest HTTP/2 write began (its streams' end) */
    uint64_t fifo_last_base_ns;
    uint64_t timer_early_ns;  /* estimated wake-up latency: fire this much early */
    uint64_t cur_sec;
    struct tstats_second *slot;
    struct tstats_second *ring;
    struct tstats_stall *stalls;          /* arrivals around stalls (NULL without stalls) */
    struct arrivals arr;                  /* arrivals per 1 ms, requests per connection */
    struct hist *h_total, *h_window;     /* total holds closed windows */
    uint64_t window_since_ns;
    uint64_t window_inflight_max, window_open_max;

    /* Command handshake with the control thread (see the top comment). */
    atomic_int cmd;
    atomic_ulong acks;
    struct tstats_view snap_view;
    struct tls_counters tls;             /* written by this worker only, like ctr */
    struct tls_view snap_tls;
    struct h2_counters h2;
    struct h2_view snap_h2;
    struct hist *snap_total, *snap_window;
    uint64_t snap_now_ns;

    struct conn *free_conns, *dead_conns;
    struct conn **chunks;
    size_t nchunks;

    struct dent *fifo;        /* the delay queue: a FIFO, or a heap for drawn delays */
    size_t fhead, flen, fcap;
    uint64_t fseq;
    uint64_t rng;             /* this worker's delay draws */

    char *ibuf;
    struct outq batch;        /* the responses produced for one connection, before its writev */
};

struct server {
    struct server_config cfg;
    int lfd, cfd;
    int port, control_port;
    uint64_t started_ns;
    struct delay_model delay;            /* read-only once started */
    int delayed;                         /* responses are held (a delay, draws or stalls) */
    int heap;                            /* drawn delays: deadlines come out of order */
    char *resp[V_COUNT];
    size_t resp_len[V_COUNT];
    struct worker *workers;
    int nworkers;
    pthread_t control_thread;
    int control_started;
    int stop_efd, ack_efd;
    atomic_int stop;
    int stopped;
    uint64_t window_since_ns;            /* control thread only */
    struct hist *m_total, *m_window;     /* control thread (or after stop) only */
    struct peers *peers;                 /* first/last request per client address (peers.c) */
    SSL_CTX *tls_ctx;                    /* NULL: plain HTTP */
};

/* control.c: the control thread's loop (its argument is the server), and
 * the stats of every worker merged for a window since window_since_ns
 * (after a CMD_SNAPSHOT, or once the workers have stopped). */
void *server_control_main(void *arg);
json_t *server_merged_stats(struct server *s, uint64_t window_since_ns);

#endif
