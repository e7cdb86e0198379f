/* server: lb-target's event loops.
 *
 * Each worker thread owns an epoll loop, its connections, its counters, its
 * per-second ring, its histograms and its queue of delayed responses;
 * nothing a worker touches per request is shared, and nothing on that path
 * locks or allocates. The listener is shared: every worker adds it to its
 * epoll with EPOLLEXCLUSIVE (SO_REUSEPORT would let a second process bind
 * the same port silently, and a busy port must be an error).
 *
 * Per ready connection the fast path is one read() and one write(): the
 * request(s) are parsed in a per-thread buffer, and references to the
 * prebuilt responses are queued in a per-thread batch and written at once
 * (pipelined requests get their responses in order, in one writev).
 *
 * Output is never copied: the prebuilt responses are immutable and shared
 * by every connection of every worker, and what a connection could not
 * write yet is kept as references to them (which response, how much of it
 * is written), so a slow reader of 1 MiB bodies costs 16 bytes a response
 * of its own, not a copy of the body.
 *
 * Delayed responses: the delay is the same for every request and a worker's
 * clock only moves forward, so deadlines are reached in the order requests
 * arrived. A FIFO per worker therefore is the timer queue (a heap would
 * order what is already ordered), and the loop's wait times out at the
 * head's deadline: epoll_pwait2 with a nanosecond timeout and 1 ns timer
 * slack (a timerfd armed at the head where epoll_pwait2 is missing) - never
 * a sleeping thread, and 10,000 waiting requests cost one timeout. Stalls
 * keep that order (a deadline inside a stall moves to its end). Drawn
 * delays do not: then the same array is a binary heap on (deadline,
 * arrival), and a connection's response never goes before its earlier
 * ones (HTTP/1.1 answers in order), so a pipelined request's deadline is
 * at least its predecessor's.
 *
 * The control channel (GET /stats, /series, ...) is targets/control.c;
 * the structures both share are targets/server_impl.h. */
#include "targets/server.h"
#include "targets/server_impl.h"
#include "targets/h1.h"
#include "targets/peers.h"
#include "common/hist.h"
#include "common/net.h"
#include "targets/tstats.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- counters ---- */

static void worker_tick(struct worker *w)
{
    uint64_t sec = (w->now - w->srv->started_ns) / 1000000000ull;
    if (sec != w->cur_sec || !w->slot) {
        w->cur_sec = sec;
        w->slot = tstats_second_begin(w->ring, sec, &w->ctr);
    }
    arrivals_tick(&w->arr, (w->now - w->srv->started_ns) / 1000000ull);
}

static void count_open(struct worker *w, int delta)
{
    uint64_t open = tstats_get(&w->ctr.connections_open) + (uint64_t)(int64_t)delta;
    tstats_set(&w->ctr.connections_open, open);
    tstats_set(&w->slot->open, open);
    if (delta > 0) {
        tstats_max(&w->ctr.connections_open_max, open);
        if (open > w->window_open_max)
            w->window_open_max = open;
    }
}

static void count_inflight_up(struct worker *w)
{
    uint64_t v = tstats_get(&w->ctr.inflight) + 1;
    tstats_set(&w->ctr.inflight, v);
    tstats_max(&w->ctr.inflight_max, v);
    tstats_max(&w->slot->inflight_max, v);
    if (v > w->window_inflight_max)
        w->window_inflight_max = v;
}

static void count_inflight_down(struct worker *w, uint64_t n)
{
    tstats_set(&w->ctr.inflight, tstats_get(&w->ctr.inflight) - n);
}

/* The request just parsed, in the windows around a stall (counted from its
 * arrival in the kernel, as its delay is). */
static void count_stall_arrival(struct worker *w)
{
    uint64_t t = w->req_base_ns && w->req_base_ns <= w->now ? w->req_base_ns : w->now, k;
    unsigned win = delay_stall_windows(&w->srv->delay, t, &k);
    if (win)
        tstats_stall_arrival(w->stalls, win, k);
}

static void count_bad(struct worker *w)
{
    tstats_add(&w->ctr.bad_requests, 1);
    tstats_add(&w->slot->bad, 1);
}

/* ---- buffers ---- */

static void outq_push(struct outq *q, int variant, size_t len, uint64_t parsed_ns)
{
    if (q->len == q->cap) {
        if (q->head) {   /* compact first */
            memmove(q->ents, q->ents + q->head, (q->len - q->head) * sizeof *q->ents);
            q->len -= q->head;
            q->head = 0;
        }
        if (q->len == q->cap) {
            q->cap = q->cap ? q->cap * 2 : 16;
            q->ents = util_xrealloc(q->ents, q->cap * sizeof *q->ents);
        }
    }
    q->ents[q->len++] = (struct oref){.parsed_ns = parsed_ns, .variant = (uint8_t)variant};
    q->bytes += len;
    if (V_IS_OK(variant))
        q->pending_ok++;
}

static void outq_clear(struct outq *q)
{
    q->head = q->len = q->bytes = q->pending_ok = 0;
}

static void outq_free(struct outq *q)
{
    if (q) {
        free(q->ents);
        free(q);
    }
}

static int out_pending(const struct conn *c)
{
    return c->out && c->out->head < c->out->len;
}

/* Write as much of q to fd as the socket takes, straight from the shared
 * responses. Returns the bytes written (0 when none fit), or -1 with errno
 * set when the peer is gone. */
static ssize_t outq_writev(const struct conn *c, char *const *resp, const size_t *resp_len, const struct outq *q)
{
    struct iovec iov[OUT_IOV];
    size_t total = 0;
    size_t i = q->head;
    while (i < q->len) {
        int n = 0;
        size_t want = 0;
        for (; i < q->len && n < OUT_IOV; i++, n++) {
            const struct oref *e = &q->ents[i];
            iov[n].iov_base = resp[e->variant] + e->sent;
            iov[n].iov_len = resp_len[e->variant] - e->sent;
            want += iov[n].iov_len;
        }
        /* One response (the usual case): write(), the kernel's leaner path. */
        ssize_t w = c->ssl ? tls_writev(c->ssl, iov, n)
                    : n == 1 ? write(c->fd, iov[0].iov_base, iov[0].iov_len) : writev(c->fd, iov, n);
        if (w < 0) {
            if (errno == EAGAIN)
                break;
            return -1;
        }
        total += (size_t)w;
        if ((size_t)w < want)
            break;
    }
    return (ssize_t)total;
}

static void in_save(struct conn *c, const char *data, size_t len)
{
    if (len > c->in_cap) {
        c->in_cap = len < 1024 ? 1024 : len;
        c->in = util_xrealloc(c->in, c->in_cap);
    }
    memcpy(c->in, data, len);
    c->in_len = len;
}

/* ---- connections ---- */

static struct conn *conn_alloc(struct worker *w)
{
    if (!w->free_conns) {
        struct conn *chunk = util_xcalloc(CONN_CHUNK, sizeof *chunk);
        w->chunks = util_xrealloc(w->chunks, (w->nchunks + 1) * sizeof *w->chunks);
        w->chunks[w->nchunks++] = chunk;
        for (int i = CONN_CHUNK - 1; i >= 0; i--) {
            chunk[i].next = w->free_conns;
            chunk[i].is_free = 1;
            w->free_conns = &chunk[i];
        }
    }
    struct conn *c = w->free_conns;
    w->free_conns = c->next;
    uint32_t gen = c->gen;
    memset(c, 0, sizeof *c);
    c->gen = gen;
    return c;
}

enum { CLOSE_NORMAL, CLOSE_RESET };

static void conn_close(struct worker *w, struct conn *c, int how)
{
    if (c->is_free)
        return;
    /* Responses that will never be written. */
    uint64_t lost = c->h2 ? h2_unanswered(c->h2) : c->queued_ok + (c->out ? c->out->pending_ok : 0);
    if (lost) {
        tstats_add(&w->ctr.responses_aborted, lost);
        count_inflight_down(w, lost);
    }
    /* A request cut off by the peer is a bad request too - but not input
     * held unparsed while this connection's answers wait (in_ready): like
     * bytes still in the socket, those requests were never seen. Cut off
     * in its body, it also fell short (HTTP/2: each stream mid-body). */
    if (!c->closing && !c->in_ready && (c->pstate != PS_HEAD || c->in_len)) {
        count_bad(w);
        if (c->pstate == PS_BODY)
            tstats_add(&w->ctr.body_short, 1);
    }
    if (c->h2)
        tstats_add(&w->ctr.body_short, h2_body_open(c->h2));
    if (c->wrote_after_fin || (how == CLOSE_RESET && c->resp_since_input))
        tstats_add(&w->ctr.closed_unread, 1);
    tstats_add(&w->ctr.connections_closed, 1);
    tstats_add(&w->slot->closes, 1);
    arrivals_conn_closed(&w->arr, c->nreq);
    count_open(w, -1);
    h2_free(c->h2);
    c->h2 = NULL;
    tls_conn_free(c->ssl);
    c->ssl = NULL;
    close(c->fd);
    c->fd = -1;
    c->gen++;
    c->is_free = 1;
    free(c->in);
    c->in = NULL;
    outq_free(c->out);
    c->out = NULL;
    c->next = w->dead_conns;
    w->dead_conns = c;
}

static void conn_linger(struct worker *w, struct conn *c)
{
    /* Closing with unread input would send a RST that can destroy the
     * response we just wrote before the client reads it; shut the write
     * side and discard input until the peer closes. */
    if (c->peer_fin) {
        conn_close(w, c, CLOSE_NORMAL);
        return;
    }
    c->lingering = 1;
    tls_close_notify(c->ssl);
    shutdown(c->fd, SHUT_WR);
}

static void linger_read(struct worker *w, struct conn *c)
{
    for (;;) {
        ssize_t n = read(c->fd, w->ibuf, IBUF_BYTES);
        if (n > 0) {
            tstats_add(&w->ctr.bytes_in, (uint64_t)n);
            c->linger_bytes += (uint64_t)n;
            if (c->linger_bytes > LINGER_MAX_BYTES) {
                conn_close(w, c, CLOSE_NORMAL);
                return;
            }
            continue;
        }
        if (n < 0 && errno == EAGAIN)
            return;
        conn_close(w, c, n == 0 ? CLOSE_NORMAL : CLOSE_RESET);
        return;
    }
}

/* n more bytes of q were written by a write that began at done_ns: count
 * the responses they completed. A response's server time ends when its
 * write began, never after it returns: the write hands the bytes to the
 * client, which may read them and stamp its own end while this thread is
 * still in the write or kept off the CPU after it (a busy machine: 0.1-2
 * ms), and a server time past the client's would make an honest tool's
 * latency read below what the server held. Returns -1 when the connection
 * was closed (a response asked for it). */
static int out_advance(struct worker *w, struct conn *c, struct outq *q, size_t n, uint64_t done_ns)
{
    const size_t *resp_len = w->srv->resp_len;
    int stamped = 0;
    q->bytes -= n;
    while (n) {
        struct oref *e = &q->ents[q->head];
        size_t left = resp_len[e->variant] - e->sent;
        if (n < left) {
            e->sent += (uint32_t)n;
            break;
        }
        n -= left;
        q->head++;
        if (V_IS_OK(e->variant)) {
            if (!stamped) {
                stamped = 1;
                tstats_set(&w->ctr.last_response_ns, done_ns);
            }
            q->pending_ok--;
            tstats_add(&w->ctr.responses_completed, 1);
            tstats_add(&w->slot->completions, 1);
            count_inflight_down(w, 1);
            hist_record(w->h_window, done_ns > e->parsed_ns ? done_ns - e->parsed_ns : 1);
            c->resp_since_input = 1;
            if (c->peer_fin)
                c->wrote_after_fin = 1;
        }
        if (V_IS_CLOSE(e->variant)) {
            if (c->extra_input)
                conn_linger(w, c);
            else
                conn_close(w, c, CLOSE_NORMAL);
            return -1;
        }
        if (V_IS_ERROR(e->variant)) {
            conn_linger(w, c);
            return c->is_free ? -1 : 0;
        }
    }
    if (q->head == q->len)
        q->head = q->len = 0;
    return 0;
}

static void conn_maybe_done(struct worker *w, struct conn *c)
{
    if (!c->is_free && c->close_when_done && !c->queued && !out_pending(c))
        conn_close(w, c, CLOSE_NORMAL);
}

/* Write what the batch produced for c (w->batch) in one writev; keep
 * references to what did not fit in c->out. Returns -1 when c was closed. */
static int conn_h2_flush(struct worker *w, struct conn *c);

static int conn_flush(struct worker *w, struct conn *c)
{
    struct server *s = w->srv;
    struct outq *q = &w->batch;
    if (c->h2)
        return conn_h2_flush(w, c);
    if (q->len == 0)
        return 0;
    if (!out_pending(c)) {
        uint64_t t = util_now_ns();
        ssize_t n = outq_writev(c, s->resp, s->resp_len, q);
        if (n < 0) {
            /* The peer is gone: what we produced is lost. */
            tstats_add(&w->ctr.responses_aborted, q->pending_ok);
            count_inflight_down(w, q->pending_ok);
            outq_clear(q);
            conn_close(w, c, CLOSE_RESET);
            return -1;
        }
        if (n > 0) {
            tstats_add(&w->ctr.bytes_out, (uint64_t)n);
            if (out_advance(w, c, q, (size_t)n, t) < 0) {
                outq_clear(q);
                return -1;
            }
            if (q->len == 0)
                return 0;
        }
    }
    /* Keep the unwritten rest: references, never the bytes. */
    if (!c->out)
        c->out = util_xcalloc(1, sizeof *c->out);
    for (size_t i = q->head; i < q->len; i++) {
        const struct oref *e = &q->ents[i];
        outq_push(c->out, e->variant, s->resp_len[e->variant] - e->sent, e->parsed_ns);
        c->out->ents[c->out->len - 1].sent = e->sent;
    }
    outq_clear(q);
    return 0;
}

/* EPOLLOUT: write pending output. Returns -1 when c was closed. */
static int conn_write_pending(struct worker *w, struct conn *c)
{
    struct server *s = w->srv;
    struct outq *q = c->out;
    while (q->head < q->len) {
        uint64_t t = util_now_ns();
        ssize_t n = outq_writev(c, s->resp, s->resp_len, q);
        if (n < 0) {
            conn_close(w, c, CLOSE_RESET);
            return -1;
        }
        if (n == 0)
            return 0;
        tstats_add(&w->ctr.bytes_out, (uint64_t)n);
        if (out_advance(w, c, q, (size_t)n, t) < 0)
            return -1;
    }
    conn_maybe_done(w, c);
    return c->is_free ? -1 : 0;
}

/* ---- delayed responses ---- */

/* The timer fires timer_early_ns before the deadline and fifo_expire spins
 * the rest: a woken thread reaches its loop tens to hundreds of
 * microseconds after the timer (more on a busy or virtual machine), and
 * responses must be neither early nor late. The estimate follows the
 * measured wake-up latency (rising fast, falling slowly, capped), so a busy
 * worker, which wakes promptly, spins little. */
#define TIMER_EARLY_MAX_NS 250000ull

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void timer_arm(struct worker *w, uint64_t deadline_ns)
{
    uint64_t fire = deadline_ns > w->timer_early_ns ? deadline_ns - w->timer_early_ns : deadline_ns;
    w->timer_fire_ns = fire;
    /* With epoll_pwait2 the wait itself times out at fire (one syscall
     * less per expiry); the timerfd is the fallback for older kernels. */
    if (w->use_pwait2)
        return;
    struct itimerspec its = {
        .it_value = {.tv_sec = (time_t)(fire / 1000000000ull), .tv_nsec = (long)(fire % 1000000000ull)},
    };
    timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void timer_learn(struct worker *w, uint64_t woke_ns)
{
    if (woke_ns < w->timer_fire_ns)
        return;
    uint64_t lat = woke_ns - w->timer_fire_ns, est = w->timer_early_ns;
    if (lat > est)
        est += (lat - est) / 4;
    else
        est -= (est - lat) / 16;
    w->timer_early_ns = est > TIMER_EARLY_MAX_NS ? TIMER_EARLY_MAX_NS : est;
}

/* A connection's delayed responses are bounded in number and in bytes:
 * a client that pipelines without reading would otherwise have every
 * request of each 64 KiB read queued, and then copied out as responses
 * (thousands of large bodies held for one connection). Beyond the bound
 * its input stays unparsed until responses are written. */
static int queue_full(const struct conn *c)
{
    return c->queued >= MAX_QUEUED || c->queued_bytes >= MAX_QUEUED_BYTES;
}

/* ---- the delay queue: a FIFO, or a min-heap on (due_ns, seq) ---- */

static void dq_grow(struct worker *w)
{
    size_t ncap = w->fcap ? w->fcap * 2 : 1024;
    struct dent *n = util_xmalloc(ncap * sizeof *n);
    for (size_t i = 0; i < w->flen; i++)
        n[i] = w->fifo[(w->fhead + i) % w->fcap];
    free(w->fifo);
    w->fifo = n;
    w->fcap = ncap;
    w->fhead = 0;
}

static int dent_before(const struct dent *a, const struct dent *b)
{
    return a->due_ns < b->due_ns || (a->due_ns == b->due_ns && a->seq < b->seq);
}

static void dq_push(struct worker *w, struct dent e)
{
    if (w->flen == w->fcap)
        dq_grow(w);
    if (!w->srv->heap) {
        w->fifo[(w->fhead + w->flen++) % w->fcap] = e;
        return;
    }
    size_t i = w->flen++;
    while (i > 0 && dent_before(&e, &w->fifo[(i - 1) / 2])) {
        w->fifo[i] = w->fifo[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->fifo[i] = e;
}

/* The entry due first (the queue is not empty). */
static const struct dent *dq_head(const struct worker *w)
{
    return &w->fifo[w->fhead];
}

static void dq_pop(struct worker *w)
{
    if (!w->srv->heap) {
        w->fhead = (w->fhead + 1) % w->fcap;
        w->flen--;
        return;
    }
    struct dent last = w->fifo[--w->flen];
    size_t i = 0, n = w->flen;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n)
            break;
        if (k + 1 < n && dent_before(&w->fifo[k + 1], &w->fifo[k]))
            k++;
        if (!dent_before(&w->fifo[k], &last))
            break;
        w->fifo[i] = w->fifo[k];
        i = k;
    }
    w->fifo[i] = last;
}

/* When c's response to the request parsed now goes out. */
static uint64_t due_of(struct worker *w, struct conn *c)
{
    const struct server *s = w->srv;
    /* The delay counts from the request's arrival in the kernel (see
     * conn_recv), kept non-decreasing so that a FIFO stays in deadline
     * order (a request can only be held longer by that, never less). */
    uint64_t base = w->req_base_ns && w->req_base_ns <= w->now ? w->req_base_ns : w->now;
    if (base < w->fifo_last_base_ns)
        base = w->fifo_last_base_ns;
    w->fifo_last_base_ns = base;
    uint64_t due = delay_release_ns(&s->delay, base + delay_draw_ns(&s->delay, &w->rng));
    if (s->heap) {
        if (due < c->last_due_ns)
            due = c->last_due_ns;
        c->last_due_ns = due;
    }
    return due;
}

static void fifo_push(struct worker *w, struct conn *c, int variant, int32_t stream)
{
    uint64_t due = due_of(w, c);
    dq_push(w, (struct dent){.c = c, .gen = c->gen, .variant = variant, .parsed_ns = w->now, .due_ns = due,
                             .seq = w->fseq++, .stream = stream});
    if (dq_head(w)->seq == w->fseq - 1)
        timer_arm(w, due);   /* a new head */
    c->queued++;
    c->queued_bytes += w->srv->resp_len[variant];
    if (V_IS_OK(variant))
        c->queued_ok++;
}

static void conn_read(struct worker *w, struct conn *c);

static void fifo_expire(struct worker *w)
{
    struct server *s = w->srv;
    uint64_t now = util_now_ns();
    timer_learn(w, w->now);
    if (w->flen) {
        uint64_t due = dq_head(w)->due_ns;
        if (due > now && due - now <= TIMER_EARLY_MAX_NS + 50000)
            while ((now = util_now_ns()) < due)
                cpu_relax();
    }
    struct conn *cur = NULL;
    while (w->flen) {
        struct dent e = *dq_head(w);
        if (e.due_ns > now)
            break;
        dq_pop(w);
        if (e.c->is_free || e.c->gen != e.gen)
            continue;   /* closed meanwhile; counted as aborted then */
        if (cur && cur != e.c) {
            if (conn_flush(w, cur) == 0) {
                conn_maybe_done(w, cur);
                if (!cur->is_free && cur->want_read && !queue_full(cur))
                    conn_read(w, cur);
            }
        }
        cur = e.c;
        e.c->queued--;
        e.c->queued_bytes -= s->resp_len[e.variant];
        if (V_IS_OK(e.variant))
            e.c->queued_ok--;
        if (e.c->h2)
            h2_respond(e.c->h2, e.stream);   /* a stream reset meanwhile is gone: counted then */
        else
            outq_push(&w->batch, e.variant, s->resp_len[e.variant], e.parsed_ns);
    }
    if (cur && conn_flush(w, cur) == 0) {
        conn_maybe_done(w, cur);
        if (!cur->is_free && cur->want_read && !queue_full(cur))
            conn_read(w, cur);
    }
    if (w->flen)
        timer_arm(w, dq_head(w)->due_ns);
}

/* ---- requests ---- */

static size_t s_resp_len(const struct worker *w, int v)
{
    return w->srv->resp_len[v];
}

static void emit(struct worker *w, struct conn *c, int variant)
{
    struct server *s = w->srv;
    if (s->delayed)
        fifo_push(w, c, variant, 0);
    else
        outq_push(&w->batch, variant, s->resp_len[variant], w->now);
}

/* Spin on the thread's CPU clock: the request costs work_ns of CPU
 * whatever else runs on the core, as real server work would. */
static void burn_cpu(uint64_t work_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    uint64_t end = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + work_ns;
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    while ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec < end);
}

/* A complete request's body of body bytes (0: none): with a body, and
 * against --expect-body. */
static void count_request_body(struct worker *w, uint64_t body)
{
    const struct server_config *cfg = &w->srv->cfg;
    if (body)
        tstats_add(&w->ctr.requests_with_body, 1);
    if (cfg->expect_body_on && body != cfg->expect_body)
        tstats_add(&w->ctr.body_mismatch, 1);
}

/* A request complete (HTTP/1.x or a stream of HTTP/2) with a body of body
 * bytes, to be answered with variant: counted, and its --work burnt. */
static void count_request(struct worker *w, struct conn *c, int variant, uint64_t body)
{
    /* One branch for a request without a body, whatever the options. */
    if (body | (uint64_t)w->srv->cfg.expect_body_on)
        count_request_body(w, body);
    if (!tstats_get(&w->ctr.requests_parsed))
        tstats_set(&w->ctr.first_request_ns, w->now ? w->now : util_now_ns());
    tstats_add(&w->ctr.requests_parsed, 1);
    tstats_add(&w->slot->requests, 1);
    arrivals_note(&w->arr);
    c->nreq++;
    if (w->stalls)
        count_stall_arrival(w);
    peers_note(w->srv->peers, c->peer, w->now ? w->now : util_now_ns());
    count_inflight_up(w);
    if (w->srv->cfg.work_ns && V_IS_OK(variant))
        burn_cpu(w->srv->cfg.work_ns);
}

static void request_done(struct worker *w, struct conn *c, uint64_t body)
{
    c->pstate = PS_HEAD;
    count_request(w, c, c->variant, body);
    emit(w, c, c->variant);
    if (V_IS_CLOSE(c->variant))
        c->closing = 1;
}

static void bad_request(struct worker *w, struct conn *c, int variant)
{
    count_bad(w);
    c->closing = 1;
    c->pstate = PS_HEAD;
    emit(w, c, variant);
}

/* A body over --max-body: 413, counted (in bad_requests too), and the
 * connection closed after the answer; the rest of the body is not read
 * (the connection lingers, discarding at most LINGER_MAX_BYTES). */
static void body_refused(struct worker *w, struct conn *c)
{
    tstats_add(&w->ctr.body_too_large, 1);
    bad_request(w, c, V_413);
}

/* A request head with a body (req): refused over --max-body, else 100
 * Continue when asked (see below), and the body is read next. pos is
 * where the body starts in the len bytes read. */
static void body_begin(struct worker *w, struct conn *c, const struct h1_request *req, size_t pos, size_t len)
{
    if (req->content_length > w->srv->cfg.max_body) {
        body_refused(w, c);
        return;
    }
    /* Expect: 100-continue (curl sends it with larger bodies and waits a
     * second for it): answer at once when the body is not here yet and no
     * earlier answer is still to come on this connection (an interim
     * answer must not overtake them). */
    if (req->expect_continue && pos == len && !c->queued)
        outq_push(&w->batch, V_CONTINUE, s_resp_len(w, V_CONTINUE), w->now);
    c->pstate = PS_BODY;
    h1_body_start(&c->body, req, w->srv->cfg.max_body);
}

/* Body bytes at buf[0..len) for c: counted as they come. Returns the bytes
 * consumed, or -1 when c's request was answered with an error (a bad
 * chunked body: 400; over --max-body: 413) and the rest is to be dropped. */
static ssize_t body_input(struct worker *w, struct conn *c, const char *buf, size_t len)
{
    uint64_t before = c->body.seen;
    int done = 0;
    ssize_t r = h1_body_feed(&c->body, buf, len, &done);
    tstats_add(&w->ctr.body_bytes, c->body.seen - before);   /* read, even before a malformed chunk */
    if (r < 0) {
        bad_request(w, c, V_400);
        return -1;
    }
    if (h1_body_promised(&c->body) > w->srv->cfg.max_body) {
        body_refused(w, c);
        return -1;
    }
    if (done)
        request_done(w, c, c->body.seen);
    return r;
}

/* Parse buf[0..len) for c, producing responses into w->batch (or the delay
 * FIFO) and writing them. Returns -1 when c was closed. */
static int conn_process(struct worker *w, struct conn *c, const char *buf, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        if (c->closing) {
            c->extra_input = 1;   /* ignored: the connection ends after the last answer */
            break;
        }
        if (w->batch.bytes >= OBUF_SOFT_BYTES) {
            if (conn_flush(w, c) < 0)
                return -1;
            if (out_pending(c)) {
                in_save(c, buf + pos, len - pos);
                c->in_ready = 1;
                c->want_read = 1;
                return 0;
            }
        }
        if (c->pstate == PS_HEAD && queue_full(c)) {
            /* Delay mode: enough is held for this connection already;
             * parse the rest once some of it has been written. */
            in_save(c, buf + pos, len - pos);
            c->in_ready = 1;
            c->want_read = 1;
            break;
        }
        if (c->pstate == PS_HEAD) {
            struct h1_request req;
            int r = h1_parse_head(buf + pos, len - pos, MAX_HEAD_BYTES, &req);
            if (r == H1_INCOMPLETE) {
                in_save(c, buf + pos, len - pos);
                break;
            }
            if (r != H1_OK) {
                bad_request(w, c, r == H1_TOO_LARGE ? V_431 : V_400);
                pos = len;
                break;
            }
            pos += req.head_len;
            c->variant = (uint8_t)((!req.keep_alive ? V_CLOSE : req.version_minor ? V_PLAIN : V_KEEPALIVE) +
                                   (req.head_only ? V_HEAD_OFFSET : 0));
            /* Only a head that announces a body takes the body path. */
            if (req.content_length || req.chunked)
                body_begin(w, c, &req, pos, len);
            else
                request_done(w, c, 0);
        } else {
            ssize_t r = body_input(w, c, buf + pos, len - pos);
            if (r < 0)
                break;
            pos += (size_t)r;
        }
    }
    return conn_flush(w, c);
}

static void conn_eof(struct worker *w, struct conn *c)
{
    c->peer_fin = 1;
    if (!c->closing && (c->pstate != PS_HEAD || c->in_len)) {
        /* Half a request and then EOF: answer 400 (the peer may still be
         * reading), then close. Within its body: the body fell short. */
        if (c->pstate == PS_BODY)
            tstats_add(&w->ctr.body_short, 1);
        c->in_len = 0;
        bad_request(w, c, V_400);
        if (conn_flush(w, c) < 0)
            return;
    }
    c->closing = 1;
    c->close_when_done = 1;
    conn_maybe_done(w, c);
}

/* Delay mode: read with the kernel's receive timestamp (SO_TIMESTAMPNS,
 * inherited from the listener) so that the delay is measured from when the
 * request arrived, not from when this thread got round to it - otherwise
 * every response would be late by the thread's wake-up latency. The same
 * single syscall as read(). Sets w->req_base_ns (0: no timestamp). */
static ssize_t conn_recv(struct worker *w, struct conn *c, char *buf, size_t len)
{
    union {
        char buf[CMSG_SPACE(sizeof(struct timespec))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {.iov_base = buf, .iov_len = len};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    ssize_t n = recvmsg(c->fd, &msg, 0);
    w->req_base_ns = 0;
    if (n <= 0)
        return n;
    w->now = util_now_ns();   /* conn_input: this read's clock, not the batch's */
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(cm), sizeof ts);
            int64_t real = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
            int64_t mono = real - w->real_minus_mono_ns;
            /* Trust it only if it is plausible (a stepped wall clock is
             * not): at most 50 ms before now, never after. */
            if (mono > 0 && (uint64_t)mono <= w->now && w->now - (uint64_t)mono < 50000000ull)
                w->req_base_ns = (uint64_t)mono;
        }
    }
    return n;
}

/* The next input of c: TLS, or the socket (delay mode: with its receive
 * time; TLS input counts its delay from when it is read).
 *
 * A request's time counts from its read, so each read refreshes the
 * clock (w->now) instead of keeping the batch's, from epoll's return: a
 * connection is read until EAGAIN, its answers written in between, so a
 * later read of the batch can hold a request the client sent after
 * epoll returned. Stamped with the batch's clock it was charged with
 * time from before it existed: h2load over h2c, with another process
 * holding a core, read p99 0.10 ms against a server p99 of 0.31 ms for
 * the same requests, a suspect row that was the server's error (TLS: a
 * ramp of +45 us a request from decrypting the batch's earlier events). */
static ssize_t conn_input(struct worker *w, struct conn *c, char *buf, size_t len)
{
    if (c->ssl) {
        w->now = util_now_ns();
        w->req_base_ns = 0;
        return tls_read(c->ssl, buf, len);
    }
    if (w->srv->delayed)
        return conn_recv(w, c, buf, len);
    ssize_t n = read(c->fd, buf, len);
    if (n > 0)
        w->now = util_now_ns();
    return n;
}

/* ---- HTTP/2 (h2.c): hooks and the connection's events ---- */

static uint64_t h2_request_hook(void *wv, void *cv, int32_t stream, uint64_t body)
{
    struct worker *w = wv;
    struct conn *c = cv;
    count_request(w, c, V_PLAIN, body);
    if (w->srv->delayed)
        fifo_push(w, c, V_PLAIN, stream);
    else
        h2_respond(c->h2, stream);
    return w->now;
}

static void h2_closed_hook(void *wv, void *cv, uint64_t parsed_ns, int completed)
{
    struct worker *w = wv;
    (void)cv;
    count_inflight_down(w, 1);
    if (!completed) {
        tstats_add(&w->ctr.responses_aborted, 1);
        return;
    }
    /* A stream completes right after the write of its last byte: its
     * time ends when that write began (see out_advance). */
    uint64_t done_ns = w->h2_write_ns;
    tstats_set(&w->ctr.last_response_ns, done_ns);
    tstats_add(&w->ctr.responses_completed, 1);
    tstats_add(&w->slot->completions, 1);
    hist_record(w->h_window, done_ns > parsed_ns ? done_ns - parsed_ns : 1);
}

static ssize_t h2_send_hook(void *wv, void *cv, const uint8_t *data, size_t len)
{
    struct worker *w = wv;
    struct conn *c = cv;
    struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
    w->h2_write_ns = util_now_ns();
    ssize_t n = c->ssl ? tls_writev(c->ssl, &iov, 1) : write(c->fd, data, len);
    if (n > 0)
        tstats_add(&w->ctr.bytes_out, (uint64_t)n);
    return n;
}

static void h2_body_hook(void *wv, void *cv, int event, uint64_t n)
{
    struct worker *w = wv;
    (void)cv;
    if (event == H2_BODY_DATA) {
        tstats_add(&w->ctr.body_bytes, n);
    } else if (event == H2_BODY_TOO_LARGE) {
        tstats_add(&w->ctr.body_too_large, 1);
        count_bad(w);
    } else {
        tstats_add(&w->ctr.body_short, n);
    }
}

static const struct h2_hooks h2_hooks = {
    .request = h2_request_hook,
    .body = h2_body_hook,
    .closed = h2_closed_hook,
    .send = h2_send_hook,
};

/* c speaks HTTP/2 from now on. Returns 0, or -1 when c was closed (out
 * of memory in nghttp2). */
static int conn_h2_start(struct worker *w, struct conn *c)
{
    struct server *s = w->srv;
    uint64_t body = s->cfg.body_bytes;
    /* The input buffer is free whenever h2_send runs (input is handled
     * whole before), so it is the frames' scratch buffer too. */
    c->h2 = h2_new(&h2_hooks, w, c, &w->h2, s->resp[V_PLAIN] + s->resp_len[V_PLAIN] - body, (size_t)body,
                   (uint8_t *)w->ibuf, IBUF_BYTES, s->cfg.max_body);
    if (!c->h2) {
        conn_close(w, c, CLOSE_RESET);
        return -1;
    }
    return 0;
}

/* Write what nghttp2 has queued; close c when it broke or is finished.
 * Returns -1 when c was closed. */
static int conn_h2_flush(struct worker *w, struct conn *c)
{
    if (h2_send(c->h2) < 0 || h2_finished(c->h2)) {
        conn_close(w, c, CLOSE_NORMAL);
        return -1;
    }
    return 0;
}

/* HTTP/2 input buf[0..len). Returns -1 when c was closed (a protocol
 * error: what nghttp2 has to say, e.g. GOAWAY, is sent first). */
static int conn_h2_input(struct worker *w, struct conn *c, const char *buf, size_t len)
{
    tstats_add(&w->ctr.bytes_in, len);
    if (h2_recv(c->h2, (const uint8_t *)buf, len) < 0) {
        h2_send(c->h2);
        conn_close(w, c, CLOSE_NORMAL);
        return -1;
    }
    return conn_h2_flush(w, c);
}

/* An event on an HTTP/2 connection: read until the socket (or OpenSSL)
 * is drained, then write. nghttp2 bounds what a connection holds: at most
 * H2_MAX_STREAMS open streams, flood limits on what it must answer. */
static void conn_h2_event(struct worker *w, struct conn *c)
{
    for (;;) {
        ssize_t n = conn_input(w, c, w->ibuf, IBUF_BYTES);
        if (n > 0) {
            if (conn_h2_input(w, c, w->ibuf, (size_t)n) < 0)
                return;
            continue;
        }
        if (n == 0 || errno != EAGAIN) {
            conn_close(w, c, n == 0 ? CLOSE_NORMAL : CLOSE_RESET);
            return;
        }
        break;
    }
    conn_h2_flush(w, c);
}

/* --http2 on a plain connection: does its first input (w->ibuf[0..len))
 * start with the HTTP/2 preface (prior knowledge)? Then c speaks h2c and
 * that input is handled. Returns 1 when c went HTTP/2 (or was closed), 0
 * to go on with HTTP/1.x. */
static int conn_h2c_sniff(struct worker *w, struct conn *c, size_t len)
{
    if (len < 3)
        return 0;   /* too short to tell: kept as a partial head, looked at again */
    c->sniffed = 1;
    if (c->ssl || !h2_is_preface(w->ibuf, len))
        return 0;
    tstats_add(&w->h2.h2c, 1);
    if (conn_h2_start(w, c) < 0 || conn_h2_input(w, c, w->ibuf, len) < 0)
        return 1;
    conn_h2_event(w, c);
    return 1;
}

static void conn_read(struct worker *w, struct conn *c)
{
    for (;;) {
        if (c->is_free || c->lingering)
            return;
        if (c->closing) {
            if (c->peer_fin)
                return;
            /* Still watch for EOF/reset so that a closed peer frees its
             * connection even while its answers wait. */
            ssize_t n = c->ssl ? tls_read(c->ssl, w->ibuf, IBUF_BYTES) : read(c->fd, w->ibuf, IBUF_BYTES);
            if (n > 0) {
                tstats_add(&w->ctr.bytes_in, (uint64_t)n);
                c->extra_input = 1;
                continue;
            }
            if (n == 0)
                conn_eof(w, c);
            else if (errno != EAGAIN)
                conn_close(w, c, CLOSE_RESET);
            return;
        }
        if (out_pending(c) || queue_full(c)) {
            c->want_read = 1;
            return;
        }
        c->want_read = 0;
        size_t plen = c->in_len;
        if (plen)
            memcpy(w->ibuf, c->in, plen);
        ssize_t n = 0;
        int more;
        if (c->in_ready) {
            c->in_ready = 0;
            w->req_base_ns = 0;   /* held input: no receive time of its own (count from now) */
            more = 1;   /* the socket may hold more: read it next round */
        } else {
            n = conn_input(w, c, w->ibuf + plen, IBUF_BYTES - plen);
            if (n == 0) {
                conn_eof(w, c);
                return;
            }
            if (n < 0) {
                if (errno != EAGAIN)
                    conn_close(w, c, CLOSE_RESET);
                return;
            }
            tstats_add(&w->ctr.bytes_in, (uint64_t)n);
            c->resp_since_input = 0;
            /* Edge-triggered: a short read drained the socket, unless the
             * peer's FIN came with the data (EPOLLRDHUP) - then read on to
             * see the EOF, no new event will come for it. TLS: OpenSSL may
             * hold decrypted input, so read on until it says EAGAIN. */
            more = (size_t)n == IBUF_BYTES - plen || c->peer_fin || c->ssl;
        }
        c->in_len = 0;
        if (w->srv->cfg.http2 && !c->sniffed && conn_h2c_sniff(w, c, plen + (size_t)n))
            return;
        if (conn_process(w, c, w->ibuf, plen + (size_t)n) < 0)
            return;
        if (!more)
            return;
    }
}

static void conn_event(struct worker *w, struct conn *c, uint32_t ev)
{
    if (c->is_free)
        return;
    if (ev & EPOLLRDHUP)
        c->peer_fin = 1;
    if (c->handshaking) {
        int r = tls_handshake(c->ssl, &w->tls);
        if (r <= 0) {
            if (r < 0)
                conn_close(w, c, CLOSE_RESET);
            return;
        }
        c->handshaking = 0;
        if (w->srv->cfg.http2 && tls_alpn_is_h2(c->ssl) && conn_h2_start(w, c) < 0)
            return;
        if (c->h2)
            conn_h2_event(w, c);
        else
            conn_read(w, c);   /* a request may have come with the handshake's end */
        return;
    }
    if (c->h2) {
        conn_h2_event(w, c);
        return;
    }
    if (out_pending(c) && conn_write_pending(w, c) < 0)
        return;
    if (c->lingering) {
        linger_read(w, c);
        return;
    }
    if ((ev & (EPOLLIN | EPOLLERR | EPOLLHUP | EPOLLRDHUP)) || c->want_read)
        conn_read(w, c);
}

/* A connection just accepted that cannot be served: an accept error. */
static void accept_drop(struct worker *w, struct conn *c)
{
    tstats_add(&w->ctr.accept_errors, 1);
    SSL_free(c->ssl);
    c->ssl = NULL;
    close(c->fd);
    c->is_free = 1;
    c->next = w->free_conns;
    w->free_conns = c;
}

static void do_accept(struct worker *w)
{
    struct server *s = w->srv;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE) {
                /* Out of descriptors: accept and drop one with the spare
                 * so the listener does not spin. */
                tstats_add(&w->ctr.accept_errors, 1);
                if (w->reserve_fd >= 0) {
                    close(w->reserve_fd);
                    int x = accept(s->lfd, NULL, NULL);
                    if (x >= 0)
                        close(x);
                    w->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                }
            }
            return;
        }
        struct conn *c = conn_alloc(w);
        c->fd = fd;
        if (s->tls_ctx && !(c->ssl = tls_conn_new(s->tls_ctx, fd))) {
            accept_drop(w, c);
            continue;
        }
        c->handshaking = c->ssl != NULL;
        c->peer = peers_slot(s->peers, fd);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = c};
        if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            accept_drop(w, c);
            continue;
        }
        tstats_add(&w->ctr.connections_accepted, 1);
        tstats_add(&w->slot->accepts, 1);
        count_open(w, +1);
    }
}

/* ---- snapshots ---- */

static void worker_snapshot(struct worker *w, int new_window)
{
    tstats_view_read(&w->snap_view, &w->ctr);
    tls_view_read(&w->snap_tls, &w->tls);
    h2_view_read(&w->snap_h2, &w->h2);
    w->snap_view.window_since_ns = w->window_since_ns;
    w->snap_view.window_inflight_max = w->window_inflight_max;
    w->snap_view.window_open_max = w->window_open_max;
    hist_reset(w->snap_total);
    hist_add(w->snap_total, w->h_total);
    hist_add(w->snap_total, w->h_window);
    hist_reset(w->snap_window);
    hist_add(w->snap_window, w->h_window);
    w->snap_now_ns = util_now_ns();
    if (new_window) {
        hist_add(w->h_total, w->h_window);
        hist_reset(w->h_window);
        w->window_inflight_max = tstats_get(&w->ctr.inflight);
        w->window_open_max = tstats_get(&w->ctr.connections_open);
        w->window_since_ns = w->snap_now_ns;
    }
}

/* ---- stop: GOAWAY to the HTTP/2 clients ---- */

/* How long one stop may wait for its HTTP/2 clients (every worker at
 * once): their GOAWAY written and their FIN seen, or this long. A client
 * that neither reads nor closes costs the stop this much, never more. */
#define STOP_GOAWAY_NS 100000000ull

/* One step of HTTP/2 connection c's stop: write what is left (the GOAWAY
 * last), then FIN, then read and drop input until the peer's FIN, so that
 * the close at exit sends no RST that could destroy a GOAWAY the client
 * has not read yet. Never waits. Returns 1 when c is done. */
static int conn_h2_stop_step(struct worker *w, struct conn *c)
{
    if (!c->lingering) {
        if (h2_send(c->h2) < 0)
            return 1;
        if (!h2_finished(c->h2))
            return 0;
        tstats_add(&w->h2.goaway, 1);
        tls_close_notify(c->ssl);
        shutdown(c->fd, SHUT_WR);
        c->lingering = 1;
    }
    for (;;) {
        ssize_t n = c->ssl ? tls_read(c->ssl, w->ibuf, IBUF_BYTES) : read(c->fd, w->ibuf, IBUF_BYTES);
        if (n <= 0)
            return n == 0 || errno != EAGAIN;
        tstats_add(&w->ctr.bytes_in, (uint64_t)n);
    }
}

/* Steps every HTTP/2 connection of w (the first pass queues its GOAWAY).
 * Returns how many are not done. */
static int worker_goaway_pass(struct worker *w, int first)
{
    int left = 0;
    for (size_t k = 0; k < w->nchunks; k++) {
        for (int j = 0; j < CONN_CHUNK; j++) {
            struct conn *c = &w->chunks[k][j];
            if (c->is_free || !c->h2)
                continue;
            if (first && h2_goaway(c->h2) < 0)
                continue;   /* out of memory: it closes without one */
            left += !conn_h2_stop_step(w, c);
        }
    }
    return left;
}

/* The server stops: every open HTTP/2 connection gets GOAWAY (NO_ERROR),
 * flushed to the socket (TLS too) within STOP_GOAWAY_NS. No new
 * connection is taken meanwhile; nothing read is parsed or counted but
 * bytes_in, so the counts stay as they were at the stop, except responses
 * whose bytes were already queued and now reach the socket (completed,
 * as any response the socket takes). */
static void worker_goaway(struct worker *w)
{
    struct epoll_event evs[64];
    epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->srv->lfd, NULL);
    uint64_t deadline = util_now_ns() + STOP_GOAWAY_NS;
    for (int first = 1; worker_goaway_pass(w, first); first = 0) {
        uint64_t now = util_now_ns();
        if (now >= deadline)
            return;
        epoll_wait(w->epfd, evs, 64, (int)((deadline - now + 999999) / 1000000));
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct server *s = w->srv;
    struct epoll_event evs[EVENTS_PER_WAIT];
    for (;;) {
        int n;
        if (w->use_pwait2) {
            struct timespec ts, *tsp = NULL;
            if (w->flen) {
                uint64_t now = util_now_ns();
                uint64_t wait = w->timer_fire_ns > now ? w->timer_fire_ns - now : 0;
                ts.tv_sec = (time_t)(wait / 1000000000ull);
                ts.tv_nsec = (long)(wait % 1000000000ull);
                tsp = &ts;
            }
            n = epoll_pwait2(w->epfd, evs, EVENTS_PER_WAIT, tsp, NULL);
            if (n < 0 && errno == ENOSYS) {
                w->use_pwait2 = 0;
                if (w->flen)
                    timer_arm(w, dq_head(w)->due_ns);
                continue;
            }
        } else {
            n = epoll_wait(w->epfd, evs, EVENTS_PER_WAIT, -1);
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        w->now = util_now_ns();
        worker_tick(w);
        if (s->delayed) {
            struct timespec rt;
            clock_gettime(CLOCK_REALTIME, &rt);
            uint64_t mono = util_now_ns();
            w->real_minus_mono_ns = ((int64_t)rt.tv_sec * 1000000000ll + rt.tv_nsec) - (int64_t)mono;
        }
        int timer = 0, ctrl = 0;
        for (int i = 0; i < n; i++) {
            uint64_t tag = evs[i].data.u64;
            if (tag == TAG_LISTEN)
                do_accept(w);
            else if (tag == TAG_TIMER)
                timer = 1;
            else if (tag == TAG_CTRL)
                ctrl = 1;
            else
                conn_event(w, evs[i].data.ptr, evs[i].events);
        }
        if (w->flen && (timer || w->now >= w->timer_fire_ns))
            fifo_expire(w);
        while (w->dead_conns) {
            struct conn *c = w->dead_conns;
            w->dead_conns = c->next;
            c->next = w->free_conns;
            w->free_conns = c;
        }
        if (ctrl) {
            uint64_t v;
            if (read(w->efd, &v, sizeof v) < 0 && errno != EAGAIN)
                break;
            int cmd = atomic_exchange_explicit(&w->cmd, 0, memory_order_acquire);
            if (cmd & CMD_SNAPSHOT)
                worker_snapshot(w, cmd & CMD_WINDOW);
            if (cmd) {
                atomic_fetch_add_explicit(&w->acks, 1, memory_order_release);
                uint64_t one = 1;
                if (write(s->ack_efd, &one, sizeof one) < 0) {
                    /* cannot happen short of a counter overflow */
                }
            }
            if (atomic_load(&s->stop)) {
                worker_goaway(w);
                break;
            }
        }
    }
    return NULL;
}

/* ---- lifecycle ---- */

struct server *server_new(const struct server_config *cfg, char *err)
{
    if (cfg->threads < 1 || cfg->threads > SERVER_MAX_THREADS) {
        util_err(err, "--threads must be 1-%d", SERVER_MAX_THREADS);
        return NULL;
    }
    struct server *s = util_xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    s->lfd = s->cfd = s->stop_efd = s->ack_efd = -1;
    if (delay_spec_check(&cfg->delay, err) < 0)
        goto err;
    s->heap = cfg->delay.dist != DELAY_FIXED;
    s->delayed = cfg->delay.fixed_ns || s->heap || cfg->delay.stall_every_ns;
    s->lfd = net_listen(&cfg->listen_addr, cfg->backlog, 0, err);
    if (s->lfd < 0)
        goto err;
    /* Accepted sockets inherit TCP_NODELAY: responses written back to back
     * (pipelined, delayed) must not wait for an ACK. */
    int one = 1;
    setsockopt(s->lfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    /* Delay mode holds responses from the kernel's receive time (conn_recv). */
    if (s->delayed)
        setsockopt(s->lfd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    s->cfd = net_listen(&cfg->control_addr, 64, 0, err);
    if (s->cfd < 0) {
        char e2[UTIL_ERR_LEN];
        snprintf(e2, sizeof e2, "control channel: %s", err);
        memcpy(err, e2, UTIL_ERR_LEN);
        goto err;
    }
    if (cfg->tls.version && !(s->tls_ctx = tls_ctx_new(&cfg->tls, err)))
        goto err;
    s->port = net_local_port(s->lfd);
    s->control_port = net_local_port(s->cfd);
    s->resp[V_PLAIN] = h1_response_200(cfg->body_bytes, NULL, &s->resp_len[V_PLAIN]);
    s->resp[V_CLOSE] = h1_response_200(cfg->body_bytes, "close", &s->resp_len[V_CLOSE]);
    s->resp[V_KEEPALIVE] = h1_response_200(cfg->body_bytes, "keep-alive", &s->resp_len[V_KEEPALIVE]);
    for (int v = V_PLAIN; v <= V_KEEPALIVE; v++) {
        size_t head = s->resp_len[v] - cfg->body_bytes;
        s->resp[v + V_HEAD_OFFSET] = util_xmalloc(head);
        memcpy(s->resp[v + V_HEAD_OFFSET], s->resp[v], head);
        s->resp_len[v + V_HEAD_OFFSET] = head;
    }
    s->resp[V_400] = h1_response_error(400, &s->resp_len[V_400]);
    s->resp[V_431] = h1_response_error(431, &s->resp_len[V_431]);
    s->resp[V_413] = h1_response_error(413, &s->resp_len[V_413]);
    s->resp[V_CONTINUE] = util_xstrdup("HTTP/1.1 100 Continue\r\n\r\n");
    s->resp_len[V_CONTINUE] = strlen(s->resp[V_CONTINUE]);
    s->stop_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->ack_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->stop_efd < 0 || s->ack_efd < 0) {
        util_err(err, "eventfd: %s", strerror(errno));
        goto err;
    }
    s->m_total = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
    s->m_window = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
    s->peers = peers_new();
    s->started_ns = util_now_ns();
    s->window_since_ns = s->started_ns;
    delay_model_init(&s->delay, &cfg->delay, s->started_ns);

    s->nworkers = cfg->threads;
    s->workers = util_xcalloc((size_t)s->nworkers, sizeof *s->workers);
    for (int i = 0; i < s->nworkers; i++) {
        struct worker *w = &s->workers[i];
        w->srv = s;
        w->id = i;
        w->epfd = epoll_create1(EPOLL_CLOEXEC);
        w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        w->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (w->epfd < 0 || w->tfd < 0 || w->efd < 0) {
            util_err(err, "epoll/timerfd/eventfd: %s", strerror(errno));
            goto err;
        }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.u64 = TAG_LISTEN};
        if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, s->lfd, &ev) < 0) {
            util_err(err, "epoll_ctl(listener): %s", strerror(errno));
            goto err;
        }
        ev = (struct epoll_event){.events = EPOLLIN | EPOLLET, .data.u64 = TAG_TIMER};
        epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->tfd, &ev);
        ev = (struct epoll_event){.events = EPOLLIN, .data.u64 = TAG_CTRL};
        epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->efd, &ev);
        w->ring = util_xcalloc(TSTATS_RING_SECONDS, sizeof *w->ring);
        arrivals_init(&w->arr);
        if (cfg->delay.stall_every_ns)
            w->stalls = util_xcalloc(TSTATS_STALL_RING, sizeof *w->stalls);
        w->h_total = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
        w->h_window = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
        w->snap_total = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
        w->snap_window = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
        w->ibuf = util_xmalloc(IBUF_BYTES);
        w->window_since_ns = s->started_ns;
        w->use_pwait2 = 1;
        w->rng = delay_rng_seed(&s->delay, i);
        w->now = s->started_ns;
        worker_tick(w);
    }
    return s;
err:
    server_free(s);
    return NULL;
}

int server_port(const struct server *s)
{
    return s->port;
}

int server_control_port(const struct server *s)
{
    return s->control_port;
}

json_t *server_delay_json(const struct server *s)
{
    return delay_json(&s->delay);
}

static void cpuset_from_mask(cpu_set_t *set, uint64_t mask)
{
    CPU_ZERO(set);
    for (int c = 0; c < 64; c++)
        if (mask & (1ull << c))
            CPU_SET(c, set);
}

int server_start(struct server *s, char *err)
{
    int cpus[64], ncpus = 0;
    for (int c = 0; c < 64; c++)
        if (s->cfg.cpu_mask & (1ull << c))
            cpus[ncpus++] = c;
    for (int i = 0; i < s->nworkers; i++) {
        struct worker *w = &s->workers[i];
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (ncpus) {
            cpu_set_t set;
            cpuset_from_mask(&set, 1ull << cpus[i % ncpus]);
            pthread_attr_setaffinity_np(&attr, sizeof set, &set);
        }
        int rc = pthread_create(&w->thread, &attr, worker_main, w);
        pthread_attr_destroy(&attr);
        if (rc) {
            util_err(err, "cannot start worker %d: %s%s", i, strerror(rc),
                     ncpus ? " (is every CPU in --cpus online?)" : "");
            server_stop(s);
            return -1;
        }
        w->started = 1;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (ncpus) {
        cpu_set_t set;
        cpuset_from_mask(&set, s->cfg.cpu_mask);
        pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    }
    int rc = pthread_create(&s->control_thread, &attr, server_control_main, s);
    pthread_attr_destroy(&attr);
    if (rc) {
        util_err(err, "cannot start the control thread: %s", strerror(rc));
        server_stop(s);
        return -1;
    }
    s->control_started = 1;
    return 0;
}

void server_stop(struct server *s)
{
    if (s->stopped)
        return;
    s->stopped = 1;
    uint64_t one = 1;
    if (s->control_started) {
        if (write(s->stop_efd, &one, sizeof one) < 0) {
            /* an eventfd write of 1 cannot fail here */
        }
        pthread_join(s->control_thread, NULL);
    }
    atomic_store(&s->stop, 1);
    /* Every worker told first, then joined: their GOAWAY waits
     * (worker_goaway) overlap instead of adding up. */
    for (int i = 0; i < s->nworkers; i++) {
        if (s->workers[i].started && write(s->workers[i].efd, &one, sizeof one) < 0) {
            /* as above */
        }
    }
    for (int i = 0; i < s->nworkers; i++) {
        struct worker *w = &s->workers[i];
        if (w->started)
            pthread_join(w->thread, NULL);
        w->started = 0;
    }
}

json_t *server_final_stats(struct server *s)
{
    server_stop(s);
    for (int i = 0; i < s->nworkers; i++)
        worker_snapshot(&s->workers[i], 0);
    return server_merged_stats(s, s->window_since_ns);
}

void server_free(struct server *s)
{
    if (!s)
        return;
    server_stop(s);
    for (int i = 0; s->workers && i < s->nworkers; i++) {
        struct worker *w = &s->workers[i];
        for (size_t k = 0; k < w->nchunks; k++) {
            for (int j = 0; j < CONN_CHUNK; j++) {
                struct conn *c = &w->chunks[k][j];
                if (!c->is_free) {
                    h2_free(c->h2);
                    SSL_free(c->ssl);
                    close(c->fd);
                }
                free(c->in);
                outq_free(c->out);
            }
            free(w->chunks[k]);
        }
        free(w->chunks);
        free(w->fifo);
        free(w->ibuf);
        free(w->batch.ents);
        free(w->ring);
        arrivals_free(&w->arr);
        free(w->stalls);
        hist_free(w->h_total);
        hist_free(w->h_window);
        hist_free(w->snap_total);
        hist_free(w->snap_window);
        if (w->epfd > 0)
            close(w->epfd);
        if (w->tfd > 0)
            close(w->tfd);
        if (w->efd > 0)
            close(w->efd);
        if (w->reserve_fd > 0)
            close(w->reserve_fd);
    }
    free(s->workers);
    for (int v = 0; v < V_COUNT; v++)
        free(s->resp[v]);
    hist_free(s->m_total);
    hist_free(s->m_window);
    peers_free(s->peers);
    SSL_CTX_free(s->tls_ctx);
    delay_model_free(&s->delay);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->cfd >= 0)
        close(s->cfd);
    if (s->stop_efd >= 0)
        close(s->stop_efd);
    if (s->ack_efd >= 0)
        close(s->ack_efd);
    free(s);
}
