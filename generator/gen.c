#include "generator/gen.h"
#include "common/hist.h"
#include "generator/h2.h"
#include "generator/http.h"
#include "common/util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Why the loop looks the way it does: on loopback ~95 % of a generator's
 * CPU is kernel time, so the cost per request is the number of syscalls.
 * Each connection is registered once, edge-triggered, for both directions
 * and never modified (no epoll_ctl per request, unlike wrk). A ready event
 * costs one read(); a complete response is followed at once by one write()
 * of the next request from the same buffer. The clock is read once per
 * epoll_wait batch, and every event of the batch is stamped with that time.
 * Timeouts are found by a scan every 100 ms, not by per-request timers.
 *
 * Connections are opened FILL_BATCH at a time between passes of the loop:
 * one burst of 17,000 connects kept the loop away for seconds, and the run
 * ended (closing every handshake whose event it had not read) before it
 * came back. Each socket gets the whole ephemeral range as its own
 * (IP_LOCAL_PORT_RANGE): for connect() without it the kernel tries the even
 * ports first, and once the ~14,000 even ports to one server are taken
 * every connect scans them all (8 ms each here), so 17,000 connections
 * took 25 s to open; with a socket range it scans from where the last one
 * stopped (0.25 ms each). */

#define TICK_NS 10000000ULL            /* stage levels, trims, stop checks */
#define TIMEOUT_SCAN_NS 100000000ULL
#define RETRY_NS 50000000ULL           /* after a failed connect */
#define READ_BUF_BYTES 16384
#define MAX_EVENTS 512
#define GROW_CONNECTING 8              /* open model: handshakes at once when growing the pool */
#define SIGNAL_DRAIN_NS 250000000ULL   /* after SIGINT/SIGTERM, the drain waits at most this */
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51         /* linux/in.h, Linux 6.3 */
#endif
#define FILL_BATCH 256                 /* connects per pass of the loop */
#define WARM_UP_MAX_NS 2000000000ULL   /* the warm-up gives up after this without progress */

/* C_DONE: connected, nothing in flight, not (yet) on the idle stack — the
 * moment between a response (or a handshake) and what follows it.
 * C_HANDSHAKE: TLS only, TCP connected and the TLS handshake under way; a
 * connection counts as opened when it is done. */
enum { C_FREE, C_CONNECTING, C_HANDSHAKE, C_IDLE, C_DONE, C_WRITING, C_READING };

/* TLS is a branch per connection, never work per plain request: ssl is
 * NULL on plain http:// connections. */
struct conn {
    int fd;
    SSL *ssl;              /* https: the connection's TLS; NULL: plain */
    uint32_t gen;          /* bumped on open and close: stale events are ignored */
    uint8_t state;
    uint32_t wpos;         /* bytes of the request written so far */
    uint32_t idle_pos;     /* index in the idle stack while C_IDLE (open model) */
    uint64_t sent_ns;      /* actual send, or connect start while C_CONNECTING */
    uint64_t intended_ns;  /* open model: when the schedule wanted it sent */
    struct http_resp resp; /* HTTP/2 too: its status and HTTP_RESP_CLOSE */
    struct gh2 h2;         /* --http2: the session (h2.s NULL before it is open) */
};

struct shared {
    _Atomic uint32_t open_now;
    _Atomic uint32_t max_open;
    _Atomic int abort;
    _Atomic int ready;      /* workers done with their warm-up */
    _Atomic int go;         /* start_ns is set: run */
    uint64_t start_ns;
};

struct worker {
    const struct gen_config *cfg;
    const volatile sig_atomic_t *stop;
    struct shared *sh;
    int id;
    pthread_t tid;
    int ep;
    int no_pwait2; /* epoll_pwait2 said ENOSYS: wait with epoll_wait */
    int no_port_range; /* IP_LOCAL_PORT_RANGE refused (Linux before 6.3) */
    int warming;   /* connecting before the start: nothing is sent */
    const char *req;
    size_t req_len;
    const struct gh2_request *h2req; /* --http2: every stream's request */
    char *buf;

    struct conn *conns;
    uint32_t cap_conns;
    uint32_t *free_slots, nfree;
    uint32_t *idle, nidle;
    uint32_t nopen;        /* connecting or connected */
    uint32_t nconnected;
    uint32_t ninflight;
    uint32_t target;       /* connections this thread should hold now */
    uint32_t asked;        /* the most it was asked to hold at once */
    uint32_t inflight_cap; /* open model */

    uint64_t start_ns, end_ns, stop_ns, done_ns;
    uint64_t signal_ns;    /* when this thread first saw the stop flag, 0 before */
    uint64_t next_tick, next_scan, next_sec_ns, retry_at;
    size_t cur_sec;
    struct series_row *row;
    int stopping;

    /* open model: this thread sends arrivals id, id+T, id+2T, ...;
     * cap_k/cap_t: the first arrival not yet counted as a cap hit */
    uint64_t next_k, k_total, next_t, cap_k, cap_t;
    /* --arrivals poisson: this thread's arrival pm sits at position ppos
     * of the schedule's integral (pvalid: computed) */
    uint64_t pm;
    double ppos;
    int pvalid;

    struct gtls_client tls;   /* https: this thread's context and newest session */
    const char *tls_version, *tls_cipher;  /* of its first completed handshake */
    char tls_failure[256];    /* why its first failed handshake failed */

    struct gen_counts c;
    struct hist *lat, *lat_uncorr;
    struct hist *sec_lat;  /* per_second_hist: this second's latencies, into sec_dist at its end */
    struct gen_sec_dist sec_dist;
    struct gen_sends sends;  /* record_sends: this thread's send times */
    struct series series;
};

static uint32_t share(uint64_t total, int threads, int id)
{
    return (uint32_t)(total / (uint64_t)threads + ((uint64_t)id < total % (uint64_t)threads ? 1 : 0));
}

static void open_count(struct worker *w, int delta)
{
    if (delta > 0) {
        uint32_t now_open = atomic_fetch_add_explicit(&w->sh->open_now, 1, memory_order_relaxed) + 1;
        uint32_t m = atomic_load_explicit(&w->sh->max_open, memory_order_relaxed);
        while (now_open > m &&
               !atomic_compare_exchange_weak_explicit(&w->sh->max_open, &m, now_open, memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
    } else {
        atomic_fetch_sub_explicit(&w->sh->open_now, 1, memory_order_relaxed);
    }
}

static void idle_push(struct worker *w, struct conn *c)
{
    c->state = C_IDLE;
    c->idle_pos = w->nidle;
    w->idle[w->nidle++] = (uint32_t)(c - w->conns);
}

static void idle_remove(struct worker *w, struct conn *c)
{
    uint32_t last = w->idle[--w->nidle];
    w->idle[c->idle_pos] = last;
    w->conns[last].idle_pos = c->idle_pos;
}

static struct conn *idle_pop(struct worker *w)
{
    return &w->conns[w->idle[--w->nidle]];
}

/* Connecting: the TCP connect or the TLS handshake not done yet. */
static int conn_pending(const struct conn *c)
{
    return c->state == C_CONNECTING || c->state == C_HANDSHAKE;
}

/* No close_notify: HTTP/1.1's framing ends every response, and a client
 * closing after one sends nothing more (gtls_conn_free). */
static void conn_close(struct worker *w, struct conn *c)
{
    if (c->state == C_WRITING || c->state == C_READING)
        w->ninflight--;
    if (c->state == C_IDLE && w->cfg->model == GEN_OPEN)
        idle_remove(w, c);
    if (!conn_pending(c)) {
        w->nconnected--;
        w->c.conn_closed++;
        open_count(w, -1);
    }
    if (c->h2.s) {
        w->c.h2_goaways += c->h2.goaways;
        gh2_close(&c->h2);
    }
    if (c->ssl) {
        gtls_conn_free(c->ssl);
        c->ssl = NULL;
    }
    close(c->fd);
    c->fd = -1;
    c->state = C_FREE;
    c->gen++;
    w->free_slots[w->nfree++] = (uint32_t)(c - w->conns);
    w->nopen--;
}

static void count_error(struct worker *w, uint64_t *counter)
{
    (*counter)++;
    w->row->errors++;
}

static void conn_open(struct worker *w, uint64_t now)
{
    uint32_t i = w->free_slots[--w->nfree];
    struct conn *c = &w->conns[i];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto err;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* 1..65535: the kernel narrows it to ip_local_port_range. */
    uint32_t range = 65535U << 16 | 1U;
    if (!w->no_port_range && setsockopt(fd, IPPROTO_IP, IP_LOCAL_PORT_RANGE, &range, sizeof range) < 0)
        w->no_port_range = 1;
    if (connect(fd, (const struct sockaddr *)&w->cfg->addr, sizeof w->cfg->addr) < 0 && errno != EINPROGRESS)
        goto err;
    if (w->cfg->tls && !(c->ssl = gtls_conn_new(&w->tls, fd)))
        goto err;
    c->fd = fd;
    c->gen++;
    c->state = C_CONNECTING;
    c->sent_ns = now;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                             .data.u64 = (uint64_t)c->gen << 32 | i};
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0)
        goto err;
    w->nopen++;
    return;
err:
    if (c->ssl)
        SSL_free(c->ssl);
    c->ssl = NULL;
    if (fd >= 0)
        close(fd);
    c->fd = -1;
    c->state = C_FREE;
    w->free_slots[w->nfree++] = i;
    count_error(w, &w->c.err_connect);
    w->retry_at = now + RETRY_NS;
}

/* send() or, on a TLS connection, SSL_write(), alike. */
/* Write what the socket takes of buf. TLS: OpenSSL's partial writes end
 * after one record (16 KiB) with the socket still writable, and an
 * edge-triggered EPOLLOUT would never come for the rest (a POST body of
 * 1 MiB stalled after 32 KiB): write on until all is written or OpenSSL
 * would block. A request of one record is one call, as before. */
static ssize_t conn_write(const struct conn *c, const char *buf, size_t len)
{
    if (!c->ssl)
        return send(c->fd, buf, len, MSG_NOSIGNAL);
    size_t done = 0;
    while (done < len) {
        ssize_t n = gtls_write(c->ssl, buf + done, len - done);
        if (n <= 0)
            return done ? (ssize_t)done : n;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* A request's send time onto s (record_sends), dropped past GEN_SENDS_MAX. */
static void sends_note(struct gen_sends *s, uint64_t now)
{
    if (s->n == s->cap) {
        if (s->cap >= GEN_SENDS_MAX) {
            s->dropped++;
            return;
        }
        s->cap = s->cap ? s->cap * 2 : 4096;
        s->v = util_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = now;
}

/* --http2: write what nghttp2 has serialized until it has nothing more or
 * the socket is full (its EPOLLOUT brings the rest). The request is sent
 * once the socket took its last frame. Returns 0, or -1 when a write
 * failed (counted; the connection is closed). */
static int h2_flush(struct worker *w, struct conn *c)
{
    const uint8_t *p;
    long len;
    while ((len = gh2_out(&c->h2, &p)) > 0) {
        ssize_t n = conn_write(c, (const char *)p, (size_t)len);
        if (n < 0) {
            len = errno == EAGAIN ? 0 : -1;
            break;
        }
        w->c.bytes_written += (uint64_t)n;
        gh2_wrote(&c->h2, (size_t)n);
        if (n < len)
            break;
    }
    if (len < 0) {
        count_error(w, &w->c.err_write);
        conn_close(w, c);
        return -1;
    }
    if (c->state == C_WRITING && c->h2.req_out && !c->h2.out_len) {
        c->state = C_READING;
        w->c.sent++;
        w->row->sent++;
    }
    return 0;
}

/* --http2: the request as a new stream, written as far as the socket and
 * the server's windows allow. */
static void h2_send(struct worker *w, struct conn *c)
{
    if (gh2_submit(&c->h2, w->h2req) < 0) {
        count_error(w, &w->c.err_write);
        conn_close(w, c);
        return;
    }
    h2_flush(w, c);
}

/* Write the request on an idle connection. */
static void conn_send(struct worker *w, struct conn *c, uint64_t now, uint64_t intended)
{
    http_resp_reset(&c->resp, 0);
    c->sent_ns = now;
    c->intended_ns = intended;
    c->wpos = 0;
    c->state = C_WRITING;
    w->ninflight++;
    if (w->cfg->record_sends)
        sends_note(&w->sends, now);
    if (w->cfg->model == GEN_OPEN && now - intended > GEN_LATE_NS && now > intended)
        w->c.late++;
    if (c->h2.s) {
        h2_send(w, c);
        return;
    }
    ssize_t n = conn_write(c, w->req, w->req_len);
    if (n == (ssize_t)w->req_len) {
        c->state = C_READING;
        w->c.sent++;
        w->row->sent++;
        w->c.bytes_written += (uint64_t)n;
    } else if (n >= 0) {
        c->wpos = (uint32_t)n;
        w->c.bytes_written += (uint64_t)n;
    } else if (errno != EAGAIN) {
        count_error(w, &w->c.err_write);
        conn_close(w, c);
    }
}

static void conn_write_more(struct worker *w, struct conn *c)
{
    ssize_t n = conn_write(c, w->req + c->wpos, w->req_len - c->wpos);
    if (n < 0) {
        if (errno != EAGAIN) {
            count_error(w, &w->c.err_write);
            conn_close(w, c);
        }
        return;
    }
    w->c.bytes_written += (uint64_t)n;
    c->wpos += (uint32_t)n;
    if (c->wpos == w->req_len) {
        c->state = C_READING;
        w->c.sent++;
        w->row->sent++;
    }
}

static int fill(struct worker *w, uint64_t now);

/* Poisson arrivals: this thread's m-th arrival sits at p_m, the sum of
 * m + 1 exponential gaps of mean T, on the schedule's integral (so the T
 * threads' streams superpose to one Poisson stream of the asked rate,
 * following its stages). Each gap is drawn from (seed, thread, m) alone,
 * so walking from the cached position gives the same p_m both ways. */
static double poisson_gap(const struct worker *w, uint64_t m)
{
    uint64_t x = w->cfg->seed * 0x9e3779b97f4a7c15ull + ((uint64_t)w->id << 40) + m + 1;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;   /* (0, 1) */
    return -log(u) * (double)w->cfg->threads;
}

static double poisson_position(struct worker *w, uint64_t m)
{
    if (!w->pvalid) {
        w->pm = 0;
        w->ppos = poisson_gap(w, 0);
        w->pvalid = 1;
    }
    while (w->pm < m)
        w->ppos += poisson_gap(w, ++w->pm);
    while (w->pm > m)
        w->ppos -= poisson_gap(w, w->pm--);
    return w->ppos;
}

/* Arrival k: its due time, or UINT64_MAX past the schedule. */
static uint64_t arrival_at(struct worker *w, uint64_t k)
{
    uint64_t off;
    if (w->cfg->poisson) {
        uint64_t m = (k - (uint64_t)w->id) / (uint64_t)w->cfg->threads;
        if (stages_position_time(&w->cfg->load, poisson_position(w, m), &off) < 0)
            return UINT64_MAX;
        return w->start_ns + off;
    }
    if (k >= w->k_total || stages_arrival_time(&w->cfg->load, k, &off) < 0)
        return UINT64_MAX;
    return w->start_ns + off;
}

/* Step arrival *k (due at *t) to this thread's next one. */
static void arrival_step(struct worker *w, uint64_t *k, uint64_t *t)
{
    *k += (uint64_t)w->cfg->threads;
    *t = arrival_at(w, *k);
}

static void arrival_next(struct worker *w)
{
    arrival_step(w, &w->next_k, &w->next_t);
}

/* Step (*k, *t) past every arrival of this thread due by now. Returns how
 * many it stepped over. At a rate far beyond what can be sent (1e12/s)
 * millions come due between two passes of the loop: after a few steps it
 * jumps by the schedule's integral (arrival k is due when the integral
 * reaches k), then corrects the rounding by the exact due times. */
static uint64_t arrival_skip(struct worker *w, uint64_t *k, uint64_t *t, uint64_t now)
{
    uint64_t n = 0, T = (uint64_t)w->cfg->threads, k0;
    for (int i = 0; i < 64 && *t <= now; i++, n++)
        arrival_step(w, k, t);
    if (*t > now)
        return n;
    k0 = *k;
    double a = floor(stages_arrivals(&w->cfg->load, now - w->start_ns)) + 1;
    uint64_t first = a >= (double)w->k_total ? w->k_total : (uint64_t)a; /* first index not due, about */
    uint64_t kk = first > k0 ? k0 + (first - k0 + T - 1) / T * T : k0 + T;
    while (kk - T > k0 && arrival_at(w, kk - T) > now)
        kk -= T;
    uint64_t tt = arrival_at(w, kk);
    while (tt <= now) {
        kk += T;
        tt = arrival_at(w, kk);
    }
    *k = kk;
    *t = tt;
    return n + (kk - k0) / T;
}

/* Every arrival that came due (up to now) while no connection was free or
 * the in-flight cap was reached is one cap hit. */
static void count_cap_hits(struct worker *w, uint64_t now)
{
    if (w->cap_k < w->next_k || w->cap_k == UINT64_MAX) {
        w->cap_k = w->next_k;
        w->cap_t = w->next_t;
    }
    w->c.cap_hits += arrival_skip(w, &w->cap_k, &w->cap_t, now);
}

/* Every connection is busy but the caps allow more: grow the pool by one
 * handshake for each arrival due now that no handshake under way will
 * carry, GROW_CONNECTING at most at once (each arrival waits for its
 * handshake, and counts late if that takes over GEN_LATE_NS). One per pass
 * of the loop was serial: when a stall held every connection, the
 * arrivals due in it waited a pass each. */
static void grow(struct worker *w, uint64_t now)
{
    uint32_t due = 0, connecting = w->nopen - w->nconnected;
    for (uint64_t k = w->next_k, t = w->next_t; t <= now && due < GROW_CONNECTING; due++)
        arrival_step(w, &k, &t);
    while (connecting < due && w->target < w->cap_conns && w->ninflight + connecting < w->inflight_cap) {
        w->target++;
        connecting++;
    }
    fill(w, now);
}

/* Send every due arrival there is a free connection for. */
static void dispatch(struct worker *w, uint64_t now)
{
    while (w->next_t <= now) {
        if (w->nidle == 0 || w->ninflight >= w->inflight_cap) {
            if (w->ninflight >= w->inflight_cap || w->target >= w->cap_conns) {
                count_cap_hits(w, now);
            } else {
                grow(w, now);
            }
            return;
        }
        struct conn *c = idle_pop(w);
        uint64_t intended = w->next_t;
        arrival_next(w);
        conn_send(w, c, now, intended);
    }
}

/* bench/gate.sh's planted regression: spin until this thread has used ns
 * more CPU. Thread CPU time, not wall time, so a preempted thread still
 * burns exactly the planted cost. */
static void plant_burn(uint64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    uint64_t end = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + ns, t;
    do {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    } while (t < end);
}

static void response_done(struct worker *w, struct conn *c, uint64_t now)
{
    const struct gen_config *cfg = w->cfg;
    w->ninflight--;
    c->state = C_DONE;
    w->c.completed++;
    w->row->completed++;
    uint64_t lat = now - c->sent_ns;
    if (cfg->model == GEN_OPEN) {
        hist_record(w->lat_uncorr, lat ? lat : 1);
        lat = now > c->intended_ns ? now - c->intended_ns : lat;
    }
    hist_record(w->lat, lat ? lat : 1);
    if (w->sec_lat)
        hist_record(w->sec_lat, lat ? lat : 1);
    w->row->lat[series_bucket(lat)]++;
    if (cfg->plant_ns) /* unset: one predictable branch */
        plant_burn(cfg->plant_ns);
    unsigned st = c->resp.status;
    int good = st >= 200 && st < 300;
    w->c.non2xx += !good;
    if (cfg->expect_status) { /* --expect-status: one integer compare decides */
        good = st == cfg->expect_status;
        w->c.check_failed += !good;
    }
    w->c.ok += (uint64_t)good;
    w->row->errors += (uint64_t)!good;

    if (c->resp.flags & HTTP_RESP_CLOSE || cfg->close_each) {
        conn_close(w, c);
        return;
    }
    if (cfg->model == GEN_CLOSED) {
        /* Ramp-down closes a connection only here, after its response:
         * nothing is left unread on the wire. */
        if (w->stopping || w->nopen > w->target)
            conn_close(w, c);
        else
            conn_send(w, c, now, now);
        return;
    }
    if (!w->stopping && w->next_t <= now && w->ninflight < w->inflight_cap) {
        uint64_t intended = w->next_t;
        arrival_next(w);
        conn_send(w, c, now, intended);
    } else if (w->stopping) {
        conn_close(w, c);
    } else {
        idle_push(w, c);
    }
}

/* read() or, on a TLS connection, SSL_read(), alike. */
static ssize_t conn_recv(const struct worker *w, const struct conn *c)
{
    if (c->ssl)
        return gtls_read(c->ssl, w->buf, READ_BUF_BYTES);
    return read(c->fd, w->buf, READ_BUF_BYTES);
}

/* events: the epoll event that woke us. Under edge triggering a close that
 * arrives with the last bytes raises no later edge: when the event says the
 * peer closed (EPOLLRDHUP), read on to the EOF instead of stopping at a
 * short read. SSL_read gives a record at a time, short or not, whatever
 * is left in the socket: TLS reads on until OpenSSL wants the socket. */
static void conn_read(struct worker *w, struct conn *c, uint64_t now, uint32_t events)
{
    for (;;) {
        ssize_t n = conn_recv(w, c);
        if (n > 0) {
            w->c.bytes_read += (uint64_t)n;
            size_t used;
            int r = http_resp_feed(&c->resp, w->buf, (size_t)n, &used);
            if (r < 0 || (r == 1 && used < (size_t)n)) {
                /* Not HTTP, or bytes nobody asked for. */
                count_error(w, &w->c.err_read);
                conn_close(w, c);
                return;
            }
            if (r == 1) {
                if (events & EPOLLRDHUP)
                    c->resp.flags |= HTTP_RESP_CLOSE; /* complete, and the server has closed */
                response_done(w, c, now);
                return;
            }
            /* A short read drained the socket; the next edge brings more,
             * unless the peer's close came with these bytes. */
            if ((size_t)n < READ_BUF_BYTES && !c->ssl && !(events & (EPOLLRDHUP | EPOLLHUP)))
                return;
            continue;
        }
        if (n == 0) {
            if (http_resp_eof(&c->resp)) {
                response_done(w, c, now);
            } else {
                count_error(w, &w->c.err_read);
                conn_close(w, c);
            }
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN) {
            count_error(w, &w->c.err_read);
            conn_close(w, c);
        }
        return;
    }
}

static void connected(struct worker *w, struct conn *c, uint64_t now)
{
    w->nconnected++;
    w->c.conn_opened++;
    open_count(w, 1);
    if (w->cfg->model == GEN_OPEN) {
        idle_push(w, c);
        return;
    }
    c->state = C_DONE;
    if (w->warming)
        return; /* its first request goes at the start */
    if (w->stopping || w->nopen > w->target)
        conn_close(w, c);
    else
        conn_send(w, c, now, now);
}

static void connect_failed(struct worker *w, struct conn *c, uint64_t now)
{
    count_error(w, &w->c.err_connect);
    conn_close(w, c);
    w->retry_at = now + RETRY_NS;
}

/* --http2: the stream in flight is settled. Reset (RST_STREAM, refused by
 * a GOAWAY): an error, and the connection closes and reopens as an
 * HTTP/1.1 one does on a close. Complete: a response like any other; the
 * connection closes after it when the session is over (a GOAWAY). */
static void h2_settle(struct worker *w, struct conn *c, uint64_t now)
{
    if (c->h2.done == GH2_RESET) {
        w->c.h2_resets++;
        count_error(w, &w->c.err_read);
        conn_close(w, c);
        return;
    }
    c->resp.status = c->h2.status;
    if (gh2_over(&c->h2))
        c->resp.flags |= HTTP_RESP_CLOSE;
    response_done(w, c, now);
}

/* --http2: read what the socket has into the session, up to the end of
 * the stream in flight, settled then (its response_done may send the next
 * request on the spot). Returns 0, or -1 when the connection was closed: the server's
 * EOF (an error with a stream in flight), a read error or bytes that are
 * not HTTP/2 (errors). The short-read rule is conn_read's. */
static int h2_read(struct worker *w, struct conn *c, uint64_t now, uint32_t events)
{
    uint32_t gen = c->gen;
    for (;;) {
        ssize_t n = conn_recv(w, c);
        if (n > 0) {
            w->c.bytes_read += (uint64_t)n;
            if (gh2_feed(&c->h2, (const uint8_t *)w->buf, (size_t)n) < 0)
                break;
            if (c->h2.done != GH2_PENDING && (c->state == C_WRITING || c->state == C_READING)) {
                /* Stop here, as conn_read does: reading on would stamp the
                 * next response, already sent, with this batch's clock
                 * (latency 0). Its bytes arrive with an edge of their own. */
                if (events & EPOLLRDHUP)
                    c->resp.flags |= HTTP_RESP_CLOSE; /* complete, and the server has closed */
                h2_settle(w, c, now);
                return c->gen != gen ? -1 : 0;
            }
            if ((size_t)n < READ_BUF_BYTES && !c->ssl && !(events & (EPOLLRDHUP | EPOLLHUP)))
                return 0;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return 0;
        if (n == 0 && c->state != C_WRITING && c->state != C_READING) {
            conn_close(w, c); /* an idle connection the server closed: reopened by fill() */
            return -1;
        }
        break;
    }
    count_error(w, &w->c.err_read);
    conn_close(w, c);
    return -1;
}

/* --http2: any event on an open session - the server's frames (responses,
 * SETTINGS, PING, WINDOW_UPDATE, GOAWAY) in, whatever nghttp2 has to say
 * out. An idle connection whose session is over closes, no error. */
static void h2_event(struct worker *w, struct conn *c, uint64_t now, uint32_t events)
{
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP) || c->ssl) && h2_read(w, c, now, events) < 0)
        return;
    if (h2_flush(w, c) < 0)
        return;
    if ((c->state == C_IDLE || c->state == C_DONE) && gh2_over(&c->h2))
        conn_close(w, c);
}

/* --http2: TCP (h2c) or TLS with ALPN h2 is up: the session opens, its
 * preface and SETTINGS go out, then the connection counts as open. */
static void h2_connected(struct worker *w, struct conn *c, uint64_t now)
{
    uint32_t gen = c->gen;
    if (gh2_open(&c->h2) < 0) {
        connect_failed(w, c, now);
        return;
    }
    if (h2_flush(w, c) < 0 || c->gen != gen)
        return;
    connected(w, c, now);
}

/* Connected over TCP or TLS: HTTP/2's session first, with --http2. */
static void conn_ready(struct worker *w, struct conn *c, uint64_t now)
{
    if (w->cfg->h2)
        h2_connected(w, c, now);
    else
        connected(w, c, now);
}

/* The TLS handshake, on from where the socket last stopped it. Done: the
 * connection is open (counted, and its session resumed or not). */
static void conn_handshake(struct worker *w, struct conn *c, uint64_t now)
{
    char why[sizeof w->tls_failure];
    int r = gtls_handshake(c->ssl, why, sizeof why);
    if (r == 0)
        return;
    if (r < 0) {
        w->c.tls_failed++;
        if (!w->tls_failure[0])
            memcpy(w->tls_failure, why, sizeof why);
        connect_failed(w, c, now);
        return;
    }
    w->c.tls_handshakes++;
    w->c.tls_resumed += SSL_session_reused(c->ssl) ? 1 : 0;
    if (!w->tls_version) {
        w->tls_version = SSL_get_version(c->ssl);
        w->tls_cipher = SSL_get_cipher_name(c->ssl);
    }
    conn_ready(w, c, now);
}

/* Data or EOF on a connection with nothing in flight: the server closed it
 * (keep-alive timeout) or misbehaves; reopened by fill(). Over TLS the
 * bytes may be the server's session tickets (TLS 1.3 sends them after the
 * handshake), which OpenSSL takes, leaving nothing to read. */
static void idle_readable(struct worker *w, struct conn *c)
{
    ssize_t n = conn_recv(w, c);
    if (n > 0)
        count_error(w, &w->c.err_read);
    if (n >= 0 || errno != EAGAIN)
        conn_close(w, c);
}

static void handle_event(struct worker *w, const struct epoll_event *ev, uint64_t now)
{
    uint32_t i = (uint32_t)ev->data.u64, gen = (uint32_t)(ev->data.u64 >> 32);
    struct conn *c = &w->conns[i];
    if (c->gen != gen || c->state == C_FREE)
        return; /* closed earlier in this batch */
    uint32_t e = ev->events;
    if (c->h2.s) {
        h2_event(w, c, now, e);
        return;
    }
    switch (c->state) {
    case C_CONNECTING:
        if (e & (EPOLLERR | EPOLLHUP)) {
            connect_failed(w, c, now);
        } else if (e & EPOLLOUT) {
            if (!c->ssl) {
                conn_ready(w, c, now);
                return;
            }
            c->state = C_HANDSHAKE;
            conn_handshake(w, c, now);
        }
        return;
    case C_HANDSHAKE:
        conn_handshake(w, c, now);
        return;
    case C_IDLE:
    case C_DONE: /* closed model, connected before the start */
        if (e & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))
            idle_readable(w, c);
        return;
    case C_WRITING:
        if (e & (EPOLLOUT | EPOLLERR | EPOLLHUP) || c->ssl)
            conn_write_more(w, c);
        if (c->gen != gen || c->state != C_READING)
            return;
        /* The response may already be here. */
        __attribute__((fallthrough));
    case C_READING:
        /* TLS: a read may have waited on the socket's writability. */
        if (e & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP) || c->ssl)
            conn_read(w, c, now, e);
        return;
    }
}

static int fill_wanted(const struct worker *w, uint64_t now)
{
    return w->nopen < w->target && w->nfree > 0 && now >= w->retry_at;
}

/* Open connections towards the thread's target, FILL_BATCH at most.
 * Returns how many connects it started (the caller's clock is then stale). */
static int fill(struct worker *w, uint64_t now)
{
    int n = 0;
    while (n < FILL_BATCH && fill_wanted(w, now)) {
        conn_open(w, now);
        n++;
    }
    return n;
}

/* Close connections with nothing in flight while above the target;
 * busy ones close after their response. */
static void trim(struct worker *w)
{
    for (uint32_t i = 0; i < w->cap_conns && w->nopen > w->target; i++) {
        struct conn *c = &w->conns[i];
        if (conn_pending(c) || c->state == C_IDLE)
            conn_close(w, c);
    }
}

static void timeouts(struct worker *w, uint64_t now)
{
    uint64_t limit = w->cfg->timeout_ns;
    for (uint32_t i = 0; i < w->cap_conns; i++) {
        struct conn *c = &w->conns[i];
        if (c->state == C_FREE || c->state == C_IDLE || now - c->sent_ns < limit)
            continue;
        if (conn_pending(c)) {
            count_error(w, &w->c.err_connect);
            w->retry_at = now + RETRY_NS;
        } else {
            count_error(w, &w->c.err_timeout);
        }
        conn_close(w, c);
    }
}

static void tick(struct worker *w, uint64_t now)
{
    const struct gen_config *cfg = w->cfg;
    if (cfg->model == GEN_CLOSED && !w->stopping) {
        w->target = share(stages_count(&cfg->load, now - w->start_ns), cfg->threads, w->id);
        if (w->target > w->asked)
            w->asked = w->target;
        if (w->nopen > w->target)
            trim(w);
    }
    if (now >= w->next_scan) {
        timeouts(w, now);
        w->next_scan = now + TIMEOUT_SCAN_NS;
    }
}

/* The second's histogram, bucket by bucket, onto sec_dist; then empty. */
static void sec_flush(struct worker *w)
{
    if (!w->sec_lat || !hist_count(w->sec_lat))
        return;
    size_t cursor = 0;
    uint64_t value, count, max = hist_max(w->sec_lat);
    while (hist_next(w->sec_lat, &cursor, &value, &count)) {
        struct gen_sec_dist *d = &w->sec_dist;
        if (d->n == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 1024;
            d->v = util_xrealloc(d->v, d->cap * sizeof *d->v);
        }
        d->v[d->n++] = (struct gen_sec_bucket){w->cur_sec, value < max ? value : max, count};
    }
    hist_reset(w->sec_lat);
}

static void rollover(struct worker *w, uint64_t now)
{
    if (now >= w->next_sec_ns)
        sec_flush(w);
    while (now >= w->next_sec_ns) {
        if (w->cur_sec < w->series.n)
            w->series.active[w->cur_sec] = w->nconnected;
        w->cur_sec++;
        w->next_sec_ns += 1000000000ULL;
    }
    w->row = series_row_at(&w->series, w->cur_sec);
}

/* Arrivals of this thread among the first k_due of the schedule. */
static uint64_t thread_arrivals(const struct worker *w, uint64_t k_due)
{
    uint64_t T = (uint64_t)w->cfg->threads, id = (uint64_t)w->id;
    return k_due > id ? (k_due - id - 1) / T + 1 : 0;
}

static void begin_stop(struct worker *w, uint64_t now)
{
    w->stopping = 1;
    w->stop_ns = now < w->end_ns ? now : w->end_ns;
    if (w->cfg->model == GEN_OPEN) {
        uint64_t k_due = w->k_total;
        if (w->stop_ns < w->end_ns) {
            double a = stages_arrivals(&w->cfg->load, w->stop_ns - w->start_ns);
            k_due = (uint64_t)ceil(a);
            if (k_due > w->k_total)
                k_due = w->k_total;
        }
        if (w->next_t < w->stop_ns && (w->nidle == 0 || w->ninflight >= w->inflight_cap))
            count_cap_hits(w, w->stop_ns - 1);
        if (w->cfg->poisson) {
            /* Poisson: the first of this thread's arrivals not due by the stop. */
            uint64_t t = w->next_t;
            for (k_due = w->next_k; t < w->stop_ns;)
                arrival_step(w, &k_due, &t);
        }
        uint64_t due = thread_arrivals(w, k_due);
        uint64_t taken = thread_arrivals(w, w->next_k);
        w->c.scheduled = due;
        w->c.dropped = due > taken ? due - taken : 0;
    }
    for (uint32_t i = 0; i < w->cap_conns; i++) {
        struct conn *c = &w->conns[i];
        if (conn_pending(c))
            w->c.conn_unfinished++;
        if (c->state == C_HANDSHAKE)
            w->c.tls_unfinished++;
        /* C_DONE: connected before a start that a signal cut short. */
        if (conn_pending(c) || c->state == C_IDLE || c->state == C_DONE)
            conn_close(w, c);
    }
}

static void finish(struct worker *w, uint64_t now)
{
    if (w->cur_sec < w->series.n)
        w->series.active[w->cur_sec] = w->nconnected;
    for (uint32_t i = 0; i < w->cap_conns; i++) {
        struct conn *c = &w->conns[i];
        if (c->state == C_FREE)
            continue;
        if (c->state == C_WRITING || c->state == C_READING) {
            count_error(w, &w->c.err_timeout);
            w->c.unfinished++;
        }
        conn_close(w, c);
    }
    w->done_ns = now;
}

static int aborted(const struct worker *w)
{
    return *w->stop || atomic_load_explicit(&w->sh->abort, memory_order_relaxed);
}

/* Connect the connections of the start before the clock starts: the open
 * model's pool (as k6 pre-allocates VUs), so arrival 0 does not wait for a
 * handshake; the closed model's first level, so its connections are held
 * for the whole duration (20,000 take seconds to open). Gives up when
 * --timeout (max 2 s) passes without a new connection; those still missing
 * are retried during the run. */
static void warm_up(struct worker *w, struct epoll_event *events)
{
    uint64_t now = util_now_ns(), limit = w->cfg->timeout_ns < WARM_UP_MAX_NS ? w->cfg->timeout_ns : WARM_UP_MAX_NS;
    uint64_t progress = now;
    uint32_t seen = 0;
    w->warming = 1;
    while (w->nconnected < w->target && now - progress < limit && !aborted(w)) {
        int more = fill(w, now) > 0 && fill_wanted(w, util_now_ns());
        int n = epoll_wait(w->ep, events, MAX_EVENTS, more ? 0 : 10);
        now = util_now_ns();
        for (int i = 0; i < n; i++)
            handle_event(w, &events[i], now);
        if (w->nconnected > seen) {
            seen = w->nconnected;
            progress = now;
        }
    }
    w->warming = 0;
}

/* epoll_pwait2 (Linux 5.11) times out to the nanosecond. Where it is
 * missing (older kernels, valgrind) it fails with ENOSYS on every call, and
 * the worker would spin without ever seeing an event: fall back to
 * epoll_wait with the timeout rounded up to a millisecond, so a deadline is
 * never woken early. */
static int wait_events(struct worker *w, struct epoll_event *events, const struct timespec *ts)
{
    if (!w->no_pwait2) {
        int n = epoll_pwait2(w->ep, events, MAX_EVENTS, ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        w->no_pwait2 = 1;
    }
    long long ms = (long long)ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
    return epoll_wait(w->ep, events, MAX_EVENTS, ms > INT_MAX ? INT_MAX : (int)ms);
}

/* The clock has started: set the thread's timers, and send the closed
 * model's first requests on the connections opened before. Returns now. */
static uint64_t start_load(struct worker *w)
{
    const struct gen_config *cfg = w->cfg;
    w->start_ns = w->sh->start_ns;
    w->end_ns = w->start_ns + cfg->duration_ns;
    uint64_t now = util_now_ns();
    w->next_tick = now;
    w->next_scan = now + TIMEOUT_SCAN_NS;
    w->next_sec_ns = w->start_ns + 1000000000ULL;
    if (cfg->model == GEN_OPEN) {
        w->next_k = (uint64_t)w->id - (uint64_t)cfg->threads; /* arrival_next steps onto id */
        arrival_next(w);
    } else if (!aborted(w)) {
        for (uint32_t i = 0; i < w->cap_conns; i++)
            if (w->conns[i].state == C_DONE)
                conn_send(w, &w->conns[i], now, now);
    }
    return now;
}

/* When the drain gives up on responses in flight: --grace after the stop,
 * and a signal ends the run within a second whatever --grace. */
static uint64_t drain_end(struct worker *w, uint64_t now)
{
    uint64_t end = w->stop_ns + w->cfg->grace_ns;
    if (*w->stop && !w->signal_ns)
        w->signal_ns = now;
    if (w->signal_ns && w->signal_ns + SIGNAL_DRAIN_NS < end)
        end = w->signal_ns + SIGNAL_DRAIN_NS;
    return end;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const struct gen_config *cfg = w->cfg;
    struct epoll_event events[MAX_EVENTS];

    if (cfg->ncpus > 0) {
        char err[UTIL_ERR_LEN];
        util_pin(0, 1ULL << cfg->cpus[w->id % cfg->ncpus], err); /* best effort; main checked the list */
    }
    w->row = series_row_at(&w->series, 0);
    if (cfg->model == GEN_CLOSED)
        w->asked = w->target = share(stages_count(&cfg->load, 0), cfg->threads, w->id);
    warm_up(w, events);
    /* Start together: main stamps the start once every thread is ready. */
    atomic_fetch_add(&w->sh->ready, 1);
    while (!atomic_load(&w->sh->go)) {
        if (atomic_load(&w->sh->abort))
            return NULL;
        nanosleep(&(struct timespec){0, 50000}, NULL);
    }
    uint64_t now = start_load(w);
    for (;;) {
        if (now >= w->next_sec_ns)
            rollover(w, now);
        if (!w->stopping && (now >= w->end_ns || aborted(w))) {
            /* Arrivals due before the end that a late wake-up has not sent
             * yet go out now (late) if a connection is free; only those
             * blocked by the cap are dropped. */
            if (cfg->model == GEN_OPEN && !aborted(w))
                dispatch(w, now);
            begin_stop(w, now);
        }
        if (now >= w->next_tick) {
            tick(w, now);
            w->next_tick = now + TICK_NS;
        }
        uint64_t deadline = w->next_tick < w->next_sec_ns ? w->next_tick : w->next_sec_ns;
        if (w->stopping) {
            uint64_t grace_end = drain_end(w, now);
            if (w->ninflight == 0 || now >= grace_end || *w->stop > 1) {
                finish(w, now);
                break;
            }
            if (grace_end < deadline)
                deadline = grace_end;
        } else {
            if (fill(w, now)) {
                now = util_now_ns();
                if (fill_wanted(w, now))
                    deadline = now; /* more to open: poll, do not wait */
            }
            if (cfg->model == GEN_OPEN) {
                dispatch(w, now);
                /* Wake for the next arrival when a connection is free, or
                 * when the pool may grow for it (a stall holding every
                 * connection: its handshake starts when it is due, not at
                 * the next tick, 10 ms late at worst). One already due
                 * waits for a handshake under way: its event wakes us. */
                if (w->next_t < deadline && w->ninflight < w->inflight_cap &&
                    (w->nidle > 0 || (w->next_t > now && w->target < w->cap_conns)))
                    deadline = w->next_t;
            }
            if (w->end_ns < deadline)
                deadline = w->end_ns;
        }
        struct timespec ts = {0, 0};
        if (deadline > now) {
            ts.tv_sec = (time_t)((deadline - now) / 1000000000ULL);
            ts.tv_nsec = (long)((deadline - now) % 1000000000ULL);
        }
        int n = wait_events(w, events, &ts);
        now = util_now_ns();
        for (int i = 0; i < n; i++)
            handle_event(w, &events[i], now);
    }
    return NULL;
}

static void worker_init(struct worker *w, const struct gen_config *cfg, int id, uint64_t seconds)
{
    w->cfg = cfg;
    w->id = id;
    w->ep = -1;
    w->buf = util_xmalloc(READ_BUF_BYTES);
    uint64_t conns;
    if (cfg->model == GEN_CLOSED) {
        conns = share((uint64_t)ceil(stages_max(&cfg->load) - 1e-9), cfg->threads, id);
        w->target = 0;
    } else {
        conns = share(cfg->max_inflight, cfg->threads, id);
        w->asked = w->target = share(cfg->connections, cfg->threads, id);
        w->inflight_cap = (uint32_t)conns;
        /* Poisson: the schedule's end, not a count, ends the arrivals. */
        w->k_total = cfg->poisson ? UINT64_MAX / 2 : stages_arrival_count(&cfg->load);
        w->cap_k = UINT64_MAX;
    }
    w->cap_conns = (uint32_t)conns;
    w->conns = util_xcalloc(conns ? conns : 1, sizeof *w->conns);
    w->free_slots = util_xcalloc(conns ? conns : 1, sizeof *w->free_slots);
    w->idle = util_xcalloc(conns ? conns : 1, sizeof *w->idle);
    for (uint32_t i = 0; i < conns; i++) {
        w->conns[i].fd = -1;
        w->free_slots[i] = (uint32_t)conns - 1 - i;
    }
    w->nfree = (uint32_t)conns;
    w->lat = hist_new(GEN_HIST_HIGHEST_NS, 3);
    if (cfg->model == GEN_OPEN)
        w->lat_uncorr = hist_new(GEN_HIST_HIGHEST_NS, 3);
    if (cfg->per_second_hist)
        w->sec_lat = hist_new(GEN_HIST_HIGHEST_NS, 3);
    series_init(&w->series, seconds);
}

static void worker_free(struct worker *w)
{
    if (w->ep >= 0)
        close(w->ep);
    gtls_client_free(&w->tls);
    free(w->buf);
    free(w->conns);
    free(w->free_slots);
    free(w->idle);
    hist_free(w->lat);
    hist_free(w->lat_uncorr);
    hist_free(w->sec_lat);
    free(w->sec_dist.v);
    free(w->sends.v);
    series_free(&w->series);
}

/* A finished thread's seconds (its last one flushed) onto d. */
static void sec_dist_add(struct gen_sec_dist *d, struct worker *w)
{
    sec_flush(w);
    if (!w->sec_dist.n)
        return;
    d->v = util_xrealloc(d->v, (d->n + w->sec_dist.n) * sizeof *d->v);
    memcpy(d->v + d->n, w->sec_dist.v, w->sec_dist.n * sizeof *d->v);
    d->n += w->sec_dist.n;
    d->cap = d->n;
}

static int sec_bucket_cmp(const void *a, const void *b)
{
    const struct gen_sec_bucket *x = a, *y = b;
    return x->sec != y->sec ? (x->sec < y->sec ? -1 : 1) : (x->value > y->value) - (x->value < y->value);
}

/* The threads' buckets in order, one line a second's bucket (their counts
 * added): a file half as long with two threads. */
static void sec_dist_merge(struct gen_sec_dist *d)
{
    if (!d->n)
        return;
    qsort(d->v, d->n, sizeof *d->v, sec_bucket_cmp);
    size_t k = 0;
    for (size_t i = 1; i < d->n; i++) {
        if (d->v[i].sec == d->v[k].sec && d->v[i].value == d->v[k].value)
            d->v[k].count += d->v[i].count;
        else
            d->v[++k] = d->v[i];
    }
    d->n = k + 1;
}

/* Every thread's send times onto d, in time order. */
static void sends_merge(struct gen_sends *d, struct worker *ws, int n)
{
    for (int i = 0; i < n; i++)
        d->n += ws[i].sends.n, d->dropped += ws[i].sends.dropped;
    if (!d->n)
        return;
    d->v = util_xmalloc(d->n * sizeof *d->v);
    d->cap = 0;
    for (int i = 0; i < n; i++) {
        memcpy(d->v + d->cap, ws[i].sends.v, ws[i].sends.n * sizeof *d->v);
        d->cap += ws[i].sends.n;
    }
    qsort(d->v, d->n, sizeof *d->v, util_cmp_u64);
}

static void counts_add(struct gen_counts *d, const struct gen_counts *s)
{
    const uint64_t *sp = (const uint64_t *)s;
    uint64_t *dp = (uint64_t *)d;
    for (size_t i = 0; i < sizeof *d / sizeof(uint64_t); i++)
        dp[i] += sp[i];
}

int gen_run(const struct gen_config *cfg, const volatile sig_atomic_t *stop, struct gen_result *out, char *err)
{
    int rc = -1, started = 0;
    size_t req_len;
    char *req = http_request_build(cfg->host, cfg->path, cfg->close_each, cfg->body_bytes, &req_len);
    struct gh2_request h2req = {0};
    if (cfg->h2)
        gh2_request_init(&h2req, cfg->host, cfg->path, cfg->tls, cfg->body_bytes);
    struct shared sh = {0};
    uint64_t seconds = (cfg->duration_ns + cfg->grace_ns) / 1000000000ULL + 2;
    struct worker *ws = util_xcalloc((size_t)cfg->threads, sizeof *ws);

    memset(out, 0, sizeof *out);
    for (int i = 0; i < cfg->threads; i++) {
        worker_init(&ws[i], cfg, i, seconds);
        ws[i].stop = stop;
        ws[i].sh = &sh;
        ws[i].req = req;
        ws[i].req_len = req_len;
        ws[i].h2req = &h2req;
        ws[i].ep = epoll_create1(EPOLL_CLOEXEC);
        if (ws[i].ep < 0) {
            util_err(err, "epoll_create1: %s", strerror(errno));
            goto out;
        }
        if (cfg->tls && gtls_client_init(&ws[i].tls, &cfg->tls_opts, err) < 0)
            goto out;
    }
    for (int i = 0; i < cfg->threads; i++) {
        int e = pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]);
        if (e) {
            util_err(err, "cannot start worker thread %d: %s", i, strerror(e));
            atomic_store(&sh.abort, 1);
            break;
        }
        started++;
    }
    if (started == cfg->threads) {
        while (atomic_load(&sh.ready) < cfg->threads)
            nanosleep(&(struct timespec){0, 100000}, NULL);
        out->start_wall_ms = util_wall_ms();
        out->start_ns = sh.start_ns = util_now_ns();
        atomic_store(&sh.go, 1);
    }
    for (int i = 0; i < started; i++)
        pthread_join(ws[i].tid, NULL);
    if (started < cfg->threads)
        goto out;

    out->end_wall_ms = util_wall_ms();
    out->lat = hist_new(GEN_HIST_HIGHEST_NS, 3);
    if (cfg->model == GEN_OPEN)
        out->lat_uncorr = hist_new(GEN_HIST_HIGHEST_NS, 3);
    series_init(&out->series, seconds);
    for (int i = 0; i < cfg->threads; i++) {
        struct worker *w = &ws[i];
        counts_add(&out->c, &w->c);
        hist_add(out->lat, w->lat);
        if (out->lat_uncorr)
            hist_add(out->lat_uncorr, w->lat_uncorr);
        series_add(&out->series, &w->series);
        sec_dist_add(&out->sec_dist, w);
        if (w->stop_ns > out->stop_ns)
            out->stop_ns = w->stop_ns;
        if (w->done_ns > out->end_ns)
            out->end_ns = w->done_ns;
        out->asked += w->asked;
        if (!out->tls_version) {
            out->tls_version = w->tls_version;
            out->tls_cipher = w->tls_cipher;
        }
        if (!out->tls_failure[0])
            memcpy(out->tls_failure, w->tls_failure, sizeof out->tls_failure);
    }
    sec_dist_merge(&out->sec_dist);
    sends_merge(&out->sends, ws, cfg->threads);
    out->max_open = atomic_load(&sh.max_open);
    out->interrupted = *stop != 0;
    /* Trim the series to the seconds the run lasted. */
    size_t last = (size_t)((out->end_ns - out->start_ns) / 1000000000ULL) + 1;
    if (last < out->series.n) {
        for (size_t i = last; i < out->series.n; i++)
            free(out->series.rows[i]);
        out->series.n = last;
    }
    rc = 0;
out:
    for (int i = 0; i < cfg->threads; i++)
        worker_free(&ws[i]);
    free(ws);
    free(req);
    gh2_request_free(&h2req);
    return rc;
}

void gen_result_free(struct gen_result *r)
{
    hist_free(r->lat);
    hist_free(r->lat_uncorr);
    free(r->sec_dist.v);
    free(r->sends.v);
    series_free(&r->series);
    memset(r, 0, sizeof *r);
}
