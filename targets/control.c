/* control: lb-target's control channel, one thread apart from the
 * workers: GET /stats, /window, /series, /histogram, /stalls and
 * /arrivals, each
 * answered from the workers' figures through the command handshake.
 *
 * Histograms and the control channel: the histograms are plain memory
 * owned by their worker, so the control thread never reads them directly.
 * It sets a command bit and writes the worker's eventfd; the worker, in its
 * own loop (after the batch of events it is in), copies its counters and
 * histograms into its snapshot area, optionally starts a new window, and
 * bumps an ack counter (release) and the control thread's eventfd. The
 * control thread waits for every ack (acquire) and only then reads the
 * snapshot areas, which the workers do not touch again until the next
 * command - a handshake, so no data race and no lock on the hot path. The
 * same round trip makes /series exact: once a worker acked, every event of
 * a batch that began before the request has been recorded. */
#include "targets/server_impl.h"
#include "targets/peers.h"
#include "common/net.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* Ask every worker for cmd and wait for all acks. Returns 0, or -1 when a
 * worker did not answer in time. */
static int collect(struct server *s, int cmd)
{
    unsigned long before[SERVER_MAX_THREADS];
    for (int i = 0; i < s->nworkers; i++) {
        struct worker *w = &s->workers[i];
        before[i] = atomic_load_explicit(&w->acks, memory_order_relaxed);
        atomic_fetch_or_explicit(&w->cmd, cmd, memory_order_release);
        uint64_t one = 1;
        if (write(w->efd, &one, sizeof one) < 0)
            return -1;
    }
    uint64_t deadline = util_now_ns() + (uint64_t)CONTROL_TIMEOUT_MS * 1000000ull;
    for (int i = 0; i < s->nworkers;) {
        if (atomic_load_explicit(&s->workers[i].acks, memory_order_acquire) != before[i]) {
            i++;
            continue;
        }
        uint64_t now = util_now_ns();
        if (now >= deadline)
            return -1;
        struct pollfd p = {.fd = s->ack_efd, .events = POLLIN};
        if (poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1) > 0) {
            uint64_t v;
            if (read(s->ack_efd, &v, sizeof v) < 0 && errno != EAGAIN)
                return -1;
        }
    }
    return 0;
}

/* Merge the workers' snapshots (after collect or after the threads ended). */
json_t *server_merged_stats(struct server *s, uint64_t window_since_ns)
{
    struct tstats_view v;
    struct tls_view tv;
    struct h2_view hv;
    memset(&v, 0, sizeof v);
    memset(&tv, 0, sizeof tv);
    memset(&hv, 0, sizeof hv);
    hist_reset(s->m_total);
    hist_reset(s->m_window);
    for (int i = 0; i < s->nworkers; i++) {
        struct worker *w = &s->workers[i];
        tstats_view_add(&v, &w->snap_view);
        tls_view_add(&tv, &w->snap_tls);
        h2_view_add(&hv, &w->snap_h2);
        hist_add(s->m_total, w->snap_total);
        hist_add(s->m_window, w->snap_window);
    }
    v.window_since_ns = window_since_ns;
    uint64_t now = util_now_ns();
    json_t *o = tstats_json(&v, s->m_total, s->m_window, now, s->started_ns);
    json_object_set_new(o, "delay", delay_json(&s->delay));
    if (s->tls_ctx)
        json_object_set_new(o, "tls", tls_json(&tv, &s->cfg.tls));
    if (s->cfg.http2)
        json_object_set_new(o, "h2", h2_json(&hv));
    if (s->delay.spec.stall_every_ns)
        json_object_set_new(o, "stalls_begun", json_integer((json_int_t)delay_stalls_begun(&s->delay, now)));
    return o;
}

static json_t *series_json(struct server *s, uint64_t since)
{
    uint64_t now = util_now_ns();
    if (collect(s, CMD_SYNC) < 0)
        return NULL;
    struct tstats_second *rings[SERVER_MAX_THREADS];
    uint64_t open[SERVER_MAX_THREADS], inflight[SERVER_MAX_THREADS];
    for (int i = 0; i < s->nworkers; i++) {
        rings[i] = s->workers[i].ring;
        open[i] = tstats_get(&s->workers[i].ctr.connections_open);
        inflight[i] = tstats_get(&s->workers[i].ctr.inflight);
    }
    return tstats_series_json(rings, open, inflight, s->nworkers, since, now, s->started_ns);
}

/* GET /stalls: the shape, and every stall begun (the last
 * CONTROL_STALLS_MAX) with the arrivals the workers counted before, in and
 * after it (see delay_stall_windows); "partial" while its after window is
 * still running. Exact like /series: read after a CMD_SYNC round trip. */
_Static_assert(CONTROL_STALLS_MAX + 2 <= TSTATS_STALL_RING, "the stall ring holds every stall listed");

static json_t *stalls_json(struct server *s)
{
    const struct delay_model *m = &s->delay;
    uint64_t now = util_now_ns();
    json_t *list = delay_stalls_json(m, now, CONTROL_STALLS_MAX), *st;
    size_t i;
    if (m->spec.stall_every_ns && json_array_size(list) && collect(s, CMD_SYNC) < 0) {
        json_decref(list);
        return NULL;
    }
    uint64_t len = m->spec.stall_every_ns ? delay_stall_window_ns(m) : 0;
    json_array_foreach(list, i, st)
    {
        uint64_t start = (uint64_t)json_integer_value(json_object_get(st, "start_ns"));
        uint64_t k = (start - m->origin_ns) / m->spec.stall_every_ns, c[3] = {0, 0, 0};
        for (int w = 0; w < s->nworkers; w++)
            tstats_stall_read(s->workers[w].stalls, k, c);   /* a worker without a slot for k counted none */
        json_object_set_new(st, "before", json_integer((json_int_t)c[0]));
        json_object_set_new(st, "in", json_integer((json_int_t)c[1]));
        json_object_set_new(st, "after", json_integer((json_int_t)c[2]));
        if (start + m->spec.stall_for_ns + len > now)
            json_object_set_new(st, "partial", json_true());
    }
    json_t *o = json_pack("{s:o, s:o, s:I}", "delay", delay_json(m), "stalls", list, "now_ns", (json_int_t)now);
    if (len)
        json_object_set_new(o, "window_ns", json_integer((json_int_t)len));
    return o;
}

/* GET /arrivals?from_ns=A&to_ns=B: the arrivals of every worker per 1 ms
 * bin from A to B (CLOCK_MONOTONIC; bins whole, from A's), and the
 * requests per connection of every connection closed so far. Exact like
 * /series: read after a CMD_SYNC round trip. NULL with *why when it
 * cannot be answered. */
static json_t *arrivals_answer(struct server *s, const char *query, const char **why)
{
    unsigned long long a = 0, b = 0;
    int used = 0;
    if (!query || sscanf(query, "from_ns=%llu&to_ns=%llu%n", &a, &b, &used) != 2 || query[used])
        return *why = "use GET /arrivals?from_ns=A&to_ns=B (CLOCK_MONOTONIC ns)", NULL;
    if (a < s->started_ns || b <= a)
        return *why = "from_ns must be at or after the server's start and before to_ns", NULL;
    uint64_t first = (a - s->started_ns) / 1000000ull, end = (b - s->started_ns + 999999ull) / 1000000ull;
    if (end - first > ARRIVALS_RING_MS - ARRIVALS_MARGIN_MS)
        return *why = "the window is longer than the arrivals ring holds (260 s)", NULL;
    if (collect(s, CMD_SYNC) < 0)
        return *why = "a worker did not answer in time", NULL;
    uint64_t *bins = util_xcalloc(end - first, sizeof *bins), rpc[ARRIVALS_RPC_BUCKETS] = {0};
    uint64_t open = 0;
    for (int i = 0; i < s->nworkers; i++) {
        if (arrivals_read(&s->workers[i].arr, first, end - first, bins) < 0) {
            free(bins);
            return *why = "the arrivals ring no longer holds that window", NULL;
        }
        arrivals_rpc_read(&s->workers[i].arr, rpc);
        open += tstats_get(&s->workers[i].ctr.connections_open);
    }
    json_t *o = arrivals_json(bins, first, end - first, rpc);
    free(bins);
    json_object_set_new(o, "started_ns", json_integer((json_int_t)s->started_ns));
    json_object_set_new(o, "connections_open", json_integer((json_int_t)open));
    return o;
}

static json_t *control_error(const char *msg)
{
    return json_pack("{s:s}", "error", msg);
}

static json_t *answer(int *status, int code, json_t *body)
{
    *status = code;
    return body;
}

/* The answer to one control request; head is its request head,
 * NUL-terminated (and cut up here). Sets *status. */
static json_t *control_route(struct server *s, char *head, int *status)
{
    char *sp = strchr(head, ' ');
    char *path = sp ? sp + 1 : head;
    char *pend = strchr(path, ' ');
    if (pend)
        *pend = 0;
    size_t mlen = sp ? (size_t)(sp - head) : 0;
    int is_get = mlen == 3 && !memcmp(head, "GET", 3);
    int is_post = mlen == 4 && !memcmp(head, "POST", 4);
    char *query = strchr(path, '?');
    if (query)
        *query++ = 0;

    if (!strcmp(path, "/stats")) {
        if (!is_get)
            return answer(status, 405, control_error("use GET /stats"));
        if (collect(s, CMD_SNAPSHOT) < 0)
            return answer(status, 503, control_error("a worker did not answer in time"));
        return answer(status, 200, server_merged_stats(s, s->window_since_ns));
    }
    if (!strcmp(path, "/window")) {
        if (!is_post)
            return answer(status, 405, control_error("use POST /window"));
        uint64_t since = s->window_since_ns;
        if (collect(s, CMD_SNAPSHOT | CMD_WINDOW) < 0)
            return answer(status, 503, control_error("a worker did not answer in time"));
        /* The answer holds the window that just ended; the new one starts now. */
        json_t *o = server_merged_stats(s, since);
        s->window_since_ns = util_now_ns();
        json_object_set_new(o, "new_window_since_ns", json_integer((json_int_t)s->window_since_ns));
        return answer(status, 200, o);
    }
    if (!strcmp(path, "/series")) {
        if (!is_get)
            return answer(status, 405, control_error("use GET /series?since=K"));
        uint64_t since = 0;
        if (query && !strncmp(query, "since=", 6)) {
            char *end;
            since = strtoull(query + 6, &end, 10);
            if (end == query + 6 || *end)
                return answer(status, 400, control_error("since must be a whole number of seconds"));
        }
        json_t *o = series_json(s, since);
        if (!o)
            return answer(status, 503, control_error("a worker did not answer in time"));
        return answer(status, 200, o);
    }
    if (!strcmp(path, "/histogram")) {
        /* The whole server-time histogram since start, bucket by bucket
         * (each bucket's highest equivalent value in ns, and its count):
         * the difference of two snapshots is the exact histogram of the
         * time between them, e.g. a harness's hold window. */
        if (!is_get)
            return answer(status, 405, control_error("use GET /histogram"));
        if (collect(s, CMD_SNAPSHOT) < 0)
            return answer(status, 503, control_error("a worker did not answer in time"));
        json_decref(server_merged_stats(s, s->window_since_ns));
        json_t *b = json_array();
        size_t cur = 0;
        uint64_t v, c;
        while (hist_next(s->m_total, &cur, &v, &c))
            json_array_append_new(b, json_pack("[I, I]", (json_int_t)v, (json_int_t)c));
        return answer(status, 200, json_pack("{s:I, s:i, s:I, s:I, s:o}", "highest_ns",
                                                (json_int_t)TSTATS_HIST_HIGHEST_NS, "sigfigs", TSTATS_HIST_SIGFIGS,
                                                "count", (json_int_t)hist_count(s->m_total), "now_ns",
                                                (json_int_t)util_now_ns(), "buckets", b));
    }
    if (!strcmp(path, "/stalls")) {
        if (!is_get)
            return answer(status, 405, control_error("use GET /stalls"));
        json_t *o = stalls_json(s);
        if (!o)
            return answer(status, 503, control_error("a worker did not answer in time"));
        return answer(status, 200, o);
    }
    if (!strcmp(path, "/arrivals")) {
        if (!is_get)
            return answer(status, 405, control_error("use GET /arrivals?from_ns=A&to_ns=B"));
        const char *why = NULL;
        json_t *o = arrivals_answer(s, query, &why);
        if (!o)
            return answer(status, strstr(why, "in time") ? 503 : 400, control_error(why));
        return answer(status, 200, o);
    }
    if (!strcmp(path, "/peers"))
        return answer(status, is_get ? 200 : 405, is_get ? peers_json(s->peers) : control_error("use GET /peers"));
    if (!strcmp(path, "/health"))
        return answer(status, 200, json_pack("{s:s}", "status", "ok"));
    return answer(status, 404, control_error("unknown path: try GET /stats, POST /window, GET /series?since=K, "
                                             "GET /histogram, GET /stalls, GET /arrivals, GET /peers"));
}

/* The whole HTTP answer (heap; its length in *len). */
static char *control_http(int status, json_t *body, size_t *len)
{
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    const char *reason = status == 200 ? "OK" : status == 404 ? "Not Found"
                       : status == 405 ? "Method Not Allowed" : status == 400 ? "Bad Request"
                       : "Service Unavailable";
    char *resp = util_xasprintf("HTTP/1.1 %d %s\r\nServer: lb-target\r\nContent-Type: application/json\r\n"
                                "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
                                status, reason, strlen(text) + 1, text);
    free(text);
    *len = strlen(resp);
    return resp;
}

/* Control connections are served side by side by the control thread's
 * poll loop, each with its own state, never in turn: a client that
 * connects and stays silent (or does not read its answer) holds one slot,
 * not the channel. Slots are bounded; when all are taken, the connection
 * idle the longest is closed for the newcomer, so no number of silent
 * clients can keep the harness out. One request per connection. */
#define CONTROL_MAX_CONNS 64
#define CONTROL_IDLE_NS   (5000000000ull)   /* no progress this long: closed */
#define CONTROL_BODY_MAX  65536             /* larger request bodies are not drained */

struct cconn {
    int fd;                 /* -1: a free slot */
    uint64_t active_ns;     /* accepted, or last read or written */
    char *in;               /* MAX_HEAD_BYTES + 1: the request head */
    size_t in_len;
    uint64_t body_left;     /* request body still to drain before answering */
    char *out;              /* the answer, once made */
    size_t out_len, out_off;
};

static void cconn_close(struct cconn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    *c = (struct cconn){.fd = -1};
}

/* The request is whole (head in c->in, body drained): make the answer. */
static void cconn_answer(struct server *s, struct cconn *c, int bad)
{
    int status = 400;
    json_t *body;
    if (bad) {
        body = control_error("bad request");
    } else {
        c->in[c->in_len] = 0;
        body = control_route(s, c->in, &status);
    }
    c->out = control_http(status, body, &c->out_len);
}

/* Read what c sent; answer once its request is whole. */
static void cconn_read(struct server *s, struct cconn *c)
{
    char drain[4096];
    for (;;) {
        int heading = c->body_left == 0;
        char *dst = heading ? c->in + c->in_len : drain;
        size_t room = heading ? MAX_HEAD_BYTES - c->in_len : sizeof drain;
        ssize_t n = read(c->fd, dst, room);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            cconn_close(c);   /* gone before its request was whole */
            return;
        }
        if (n < 0)
            return;
        c->active_ns = util_now_ns();
        if (!heading) {
            c->body_left -= (uint64_t)n < c->body_left ? (uint64_t)n : c->body_left;
            if (!c->body_left)
                break;
            continue;
        }
        c->in_len += (size_t)n;
        struct h1_request req;
        int r = h1_parse_head(c->in, c->in_len, MAX_HEAD_BYTES, &req);
        if (r == H1_INCOMPLETE)
            continue;
        if (r != H1_OK) {
            cconn_answer(s, c, 1);
            return;
        }
        /* Drain a small body so that closing does not reset the answer. */
        uint64_t have = c->in_len - req.head_len;
        c->in_len = req.head_len;
        if (req.content_length > have && req.content_length <= CONTROL_BODY_MAX) {
            c->body_left = req.content_length - have;
            continue;
        }
        break;
    }
    cconn_answer(s, c, 0);
}

/* Write what is left of c's answer; close once it is all written. */
static void cconn_write(struct cconn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n <= 0)
            break;
        c->out_off += (size_t)n;
        c->active_ns = util_now_ns();
    }
    cconn_close(c);
}

static void control_accept(struct server *s, struct cconn *conns, int *reserve_fd)
{
    for (;;) {
        int fd = accept4(s->cfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && *reserve_fd >= 0) {
            /* Out of descriptors: take this one with the spare and drop
             * it, so the listener does not keep poll spinning. */
            close(*reserve_fd);
            fd = accept(s->cfd, NULL, NULL);
            if (fd >= 0)
                close(fd);
            *reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            return;
        }
        if (fd < 0)
            return;
        struct cconn *slot = NULL;
        for (int i = 0; i < CONTROL_MAX_CONNS; i++) {
            struct cconn *c = &conns[i];
            if (c->fd < 0) {
                slot = c;
                break;
            }
            if (!slot || c->active_ns < slot->active_ns)
                slot = c;
        }
        cconn_close(slot);   /* a free slot, or the one idle the longest */
        *slot = (struct cconn){.fd = fd, .active_ns = util_now_ns(), .in = util_xmalloc(MAX_HEAD_BYTES + 1)};
    }
}

void *server_control_main(void *arg)
{
    struct server *s = arg;
    struct cconn conns[CONTROL_MAX_CONNS];
    struct pollfd p[2 + CONTROL_MAX_CONNS];
    int which[2 + CONTROL_MAX_CONNS];
    int reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (int i = 0; i < CONTROL_MAX_CONNS; i++)
        conns[i] = (struct cconn){.fd = -1};
    for (;;) {
        int n = 2, timeout_ms = -1;
        uint64_t now = util_now_ns();
        p[0] = (struct pollfd){.fd = s->cfd, .events = POLLIN};
        p[1] = (struct pollfd){.fd = s->stop_efd, .events = POLLIN};
        for (int i = 0; i < CONTROL_MAX_CONNS; i++) {
            struct cconn *c = &conns[i];
            if (c->fd < 0)
                continue;
            if (now - c->active_ns >= CONTROL_IDLE_NS) {
                cconn_close(c);
                continue;
            }
            int left_ms = (int)((c->active_ns + CONTROL_IDLE_NS - now) / 1000000ull) + 1;
            if (timeout_ms < 0 || left_ms < timeout_ms)
                timeout_ms = left_ms;
            which[n] = i;
            p[n++] = (struct pollfd){.fd = c->fd, .events = c->out ? POLLOUT : POLLIN};
        }
        if (poll(p, (nfds_t)n, timeout_ms) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (p[1].revents)
            break;
        for (int k = 2; k < n; k++) {
            struct cconn *c = &conns[which[k]];
            if (!p[k].revents || c->fd < 0)
                continue;
            if (!c->out)
                cconn_read(s, c);
            if (c->fd >= 0 && c->out)
                cconn_write(c);   /* most answers go out at once */
        }
        if (p[0].revents)
            control_accept(s, conns, &reserve_fd);
    }
    for (int i = 0; i < CONTROL_MAX_CONNS; i++)
        cconn_close(&conns[i]);
    if (reserve_fd >= 0)
        close(reserve_fd);
    return NULL;
}
