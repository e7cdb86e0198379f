/* hostile-client: clients that misbehave on the wire, for target-hostile.t.
 *
 *   hostile-client flood ADDR N STALL_MS
 *       write N pipelined requests (GET, HEAD and HTTP/1.0 keep-alive GET in
 *       turn) without reading for STALL_MS (or until all are written), print
 *       "stalled sent=K", wait for a line on stdin, then read every answer
 *       (writing the rest meanwhile) and check each matches its request
 *   hostile-client resets-before|resets-during ADDR TOTAL BATCH DEPTH
 *       TOTAL connections, BATCH at a time, each sends DEPTH pipelined GETs
 *       and ends with a reset (SO_LINGER 0): at once (before), or once the
 *       first bytes of the response arrived (during)
 *   hostile-client slowloris ADDR CONNS SECONDS
 *       CONNS connections each send one byte of a request head per second
 *       for SECONDS (printing "dribbling" once all are open), then the rest
 *       of the head, and read the answer
 *   hostile-client halfclose ADDR N
 *       N connections at once each send a GET and shut their write side;
 *       each must get one whole 200 and then EOF
 *   hostile-client closers ADDR N
 *       N connections at once each send a GET and close (FIN) at once
 *   hostile-client stalled ADDR CONNS DEPTH
 *       CONNS connections (announcing an Ethernet MSS) each send DEPTH pipelined requests (GET, HEAD and HTTP/1.0 keep-alive GET
 *       in turn) without reading, print "stalled", wait for a line on
 *       stdin, then read every answer of every connection and check each
 *       matches its request, bodies whole
 *   hostile-client silent ADDR CONNS
 *       open CONNS connections that send nothing, print "silent", wait for
 *       a line on stdin, then report how many the server had closed
 *
 * Results are one line of key=value pairs. Exit status: 0 when everything
 * the mode checks held, 1 otherwise, 2 on usage or connection errors. */
#include "common/net.h"
#include "common/util.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static const char REQ_GET[] = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
static const char REQ_HEAD[] = "HEAD / HTTP/1.1\r\nHost: h\r\n\r\n";
static const char REQ_GET10[] = "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n";

static void die(const char *msg)
{
    fprintf(stderr, "hostile-client: %s\n", msg);
    exit(2);
}

static int dial(const struct sockaddr_in *a)
{
    char err[UTIL_ERR_LEN];
    int fd = net_connect_blocking(a, err);
    if (fd < 0)
        die(err);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return fd;
}

/* A blocking connect with one socket option set before it (so that it
 * shapes the handshake). */
static int dial_with(const struct sockaddr_in *a, int level, int name, int value)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        die(strerror(errno));
    setsockopt(fd, level, name, &value, sizeof value);
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) < 0)
        die(strerror(errno));
    return fd;
}

/* A small receive buffer: the small window it announces keeps the
 * server's send buffer small too (it sizes that from the peer's window),
 * so a large response is still being written, not already all in the
 * kernel, when the first bytes arrive. */
static int dial_small_window(const struct sockaddr_in *a)
{
    int fd = dial_with(a, SOL_SOCKET, SO_RCVBUF, 4096);
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    return fd;
}

/* An Ethernet MSS (1460), as a client on another host would announce: the
 * server's kernel sizes its send buffer from the MSS, and loopback's
 * 64 KiB MSS would let it take whole megabytes per connection, hiding what
 * the server itself holds for a slow reader. */
static int dial_ethernet_mss(const struct sockaddr_in *a)
{
    return dial_with(a, IPPROTO_TCP, TCP_MAXSEG, 1460);
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            die(w < 0 ? strerror(errno) : "write returned 0");
        p += w;
        n -= (size_t)w;
    }
}

static void reset_close(int fd)
{
    struct linger l = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    close(fd);
}

/* ---- flood ---- */

/* Request i's kind: 0 GET, 1 HEAD, 2 HTTP/1.0 keep-alive GET. */
static int kind_of(uint64_t i)
{
    return (int)(i % 3);
}

static const char *req_of(int kind, size_t *len)
{
    const char *r = kind == 0 ? REQ_GET : kind == 1 ? REQ_HEAD : REQ_GET10;
    *len = strlen(r);
    return r;
}

/* Streaming response checker: each response's head must fit what its
 * request asks (HEAD: no body; 1.0: Connection: keep-alive), bodies are
 * skipped as they stream. */
struct rstate {
    char head[4096];
    size_t hlen;
    uint64_t body_left;
    uint64_t done, bad;
    uint64_t body_bytes;   /* Content-Length of the first response */
};

static void head_done(struct rstate *s)
{
    int kind = kind_of(s->done);
    int status = 0;
    s->head[s->hlen] = 0;
    if (sscanf(s->head, "HTTP/1.1 %d", &status) != 1 || status != 200)
        s->bad++;
    char *cl = strcasestr(s->head, "\r\ncontent-length:");
    uint64_t len = cl ? strtoull(cl + 17, NULL, 10) : 0;
    if (s->done == 0)
        s->body_bytes = len;
    if (!cl || len != s->body_bytes)
        s->bad++;
    int ka = strcasestr(s->head, "\r\nconnection: keep-alive") != NULL;
    if (ka != (kind == 2))
        s->bad++;
    s->body_left = kind == 1 ? 0 : len;
    s->hlen = 0;
    if (!s->body_left)
        s->done++;
}

static void feed(struct rstate *s, const char *p, size_t n)
{
    while (n) {
        if (s->body_left) {
            size_t take = n < s->body_left ? n : (size_t)s->body_left;
            s->body_left -= take;
            p += take;
            n -= take;
            if (!s->body_left)
                s->done++;
            continue;
        }
        if (s->hlen == sizeof s->head - 1)
            die("response head too large");
        s->head[s->hlen++] = *p++;
        n--;
        if (s->hlen >= 4 && !memcmp(s->head + s->hlen - 4, "\r\n\r\n", 4))
            head_done(s);
    }
}

/* n pipelined requests (GET, HEAD, HTTP/1.0 GET in turn) in one heap
 * buffer; its length in *len. */
static char *requests(uint64_t n, size_t *len)
{
    char *buf = util_xmalloc((size_t)n * sizeof REQ_GET10);
    *len = 0;
    for (uint64_t i = 0; i < n; i++) {
        size_t l;
        const char *r = req_of(kind_of(i), &l);
        memcpy(buf + *len, r, l);
        *len += l;
    }
    return buf;
}

static int flood(const struct sockaddr_in *a, uint64_t n, int stall_ms)
{
    /* All requests in one buffer, written in large writes. */
    size_t len;
    char *buf = requests(n, &len);
    int fd = dial(a);
    char err[UTIL_ERR_LEN];
    if (net_nonblock(fd, err) < 0)
        die(err);
    size_t off = 0;
    uint64_t t0 = util_now_ns(), stall_end = t0 + (uint64_t)stall_ms * 1000000ull;
    while (off < len && util_now_ns() < stall_end) {
        ssize_t w = write(fd, buf + off, len - off < (1u << 20) ? len - off : (1u << 20));
        if (w > 0) {
            off += (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN)
            die(strerror(errno));
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        poll(&p, 1, 50);
    }
    /* How many whole requests went out before the first read. */
    uint64_t sent_req = 0;
    for (size_t o = 0; sent_req < n;) {
        size_t l;
        req_of(kind_of(sent_req), &l);
        if (o + l > off)
            break;
        o += l;
        sent_req++;
    }
    printf("stalled sent=%llu sent_bytes=%zu\n", (unsigned long long)sent_req, off);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) {
        /* EOF: go on */
    }
    struct rstate *s = util_xcalloc(1, sizeof *s);
    static char rb[1 << 16];
    int eof = 0;
    uint64_t deadline = util_now_ns() + 30000000000ull;
    while (s->done < n && !eof) {
        if (util_now_ns() > deadline)
            die("flood: timed out reading the answers");
        struct pollfd p = {.fd = fd, .events = POLLIN | (off < len ? POLLOUT : 0)};
        if (poll(&p, 1, 1000) < 0 && errno != EINTR)
            die(strerror(errno));
        if (off < len && (p.revents & POLLOUT)) {
            ssize_t w = write(fd, buf + off, len - off);
            if (w > 0)
                off += (size_t)w;
            else if (w < 0 && errno != EAGAIN)
                die(strerror(errno));
        }
        for (;;) {
            ssize_t r = read(fd, rb, sizeof rb);
            if (r > 0) {
                feed(s, rb, (size_t)r);
                continue;
            }
            if (r == 0)
                eof = 1;
            else if (errno != EAGAIN)
                die(strerror(errno));
            break;
        }
    }
    close(fd);
    printf("mode=flood requests=%llu read=%llu bad=%llu body_bytes=%llu elapsed_ns=%llu\n",
           (unsigned long long)n, (unsigned long long)s->done, (unsigned long long)s->bad,
           (unsigned long long)s->body_bytes, (unsigned long long)(util_now_ns() - t0));
    int rc = s->done == n && !s->bad && !s->hlen && !s->body_left ? 0 : 1;
    free(s);
    free(buf);
    return rc;
}

/* ---- resets ---- */

/* TOTAL connections, BATCH at a time, each sends DEPTH pipelined GETs and
 * resets: at once (before any response) or once the first response bytes
 * arrived (while the rest is still being written). */
static int resets(const struct sockaddr_in *a, uint64_t total, uint64_t batch, int during, uint64_t depth)
{
    int *fds = util_xmalloc(batch * sizeof *fds);
    struct pollfd *p = util_xmalloc(batch * sizeof *p);
    char *reqs = util_xmalloc(depth * (sizeof REQ_GET - 1));
    for (uint64_t i = 0; i < depth; i++)
        memcpy(reqs + i * (sizeof REQ_GET - 1), REQ_GET, sizeof REQ_GET - 1);
    uint64_t done_ok = 0, missed = 0;
    static char rb[1 << 16];
    for (uint64_t done = 0; done < total;) {
        uint64_t k = total - done < batch ? total - done : batch;
        if (!during) {
            /* Each resets right after its request, long before the delay. */
            for (uint64_t i = 0; i < k; i++) {
                fds[i] = dial(a);
                send_all(fds[i], reqs, depth * (sizeof REQ_GET - 1));
                reset_close(fds[i]);
            }
            done_ok += k;
            done += k;
            continue;
        }
        for (uint64_t i = 0; i < k; i++) {
            fds[i] = dial_small_window(a);
            send_all(fds[i], reqs, depth * (sizeof REQ_GET - 1));
            p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        }
        uint64_t deadline = util_now_ns() + 10000000000ull;
        size_t left = k;
        while (left && util_now_ns() < deadline) {
            if (poll(p, k, 1000) < 0 && errno != EINTR)
                die(strerror(errno));
            for (size_t j = 0; j < k; j++) {
                if (p[j].fd < 0 || !p[j].revents)
                    continue;
                ssize_t r = read(p[j].fd, rb, sizeof rb);
                if (r > 0 && !memcmp(rb, "HTTP/1.1 200", r < 12 ? (size_t)r : 12))
                    done_ok++;
                else
                    missed++;
                reset_close(p[j].fd);
                p[j].fd = -1;
                left--;
            }
        }
        for (size_t j = 0; j < k; j++)
            if (p[j].fd >= 0) {
                reset_close(p[j].fd);
                missed++;
            }
        done += k;
    }
    free(fds);
    free(p);
    free(reqs);
    printf("mode=resets total=%llu when=%s depth=%llu reset=%llu missed=%llu\n", (unsigned long long)total,
           during ? "during" : "before", (unsigned long long)depth, (unsigned long long)done_ok,
           (unsigned long long)missed);
    return missed ? 1 : 0;
}

/* ---- slowloris ---- */

static int slowloris(const struct sockaddr_in *a, uint64_t conns, int seconds)
{
    static const char head[] = "GET / HTTP/1.1\r\nX-Slow: ";
    int *fds = util_xmalloc(conns * sizeof *fds);
    for (uint64_t i = 0; i < conns; i++)
        fds[i] = dial(a);
    printf("dribbling conns=%llu\n", (unsigned long long)conns);
    fflush(stdout);
    /* Byte b of the dribble is head[b], then 'a's; each connection sends
     * one per second, the connections spread over the second. */
    size_t sent = 0;
    for (int sec = 0; sec < seconds; sec++) {
        uint64_t start = util_now_ns();
        for (int slice = 0; slice < 10; slice++) {
            for (uint64_t i = (uint64_t)slice; i < conns; i += 10) {
                char ch = sent < sizeof head - 1 ? head[sent] : 'a';
                send_all(fds[i], &ch, 1);
            }
            uint64_t until = start + (uint64_t)(slice + 1) * 100000000ull, now = util_now_ns();
            if (until > now)
                usleep((useconds_t)((until - now) / 1000));
        }
        sent++;
    }
    /* The rest of the head at once, then every answer. */
    uint64_t ok = 0;
    static char rb[1 << 16];
    for (uint64_t i = 0; i < conns; i++) {
        const char *rest = sent < sizeof head - 1 ? head + sent : "";
        char *tail = util_xasprintf("%s%s\r\nConnection: close\r\n\r\n", rest, sent < sizeof head - 1 ? "x" : "");
        send_all(fds[i], tail, strlen(tail));
        free(tail);
    }
    for (uint64_t i = 0; i < conns; i++) {
        size_t got = 0;
        for (;;) {
            ssize_t r = read(fds[i], rb + got, sizeof rb - got);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        ok += got >= 12 && !memcmp(rb, "HTTP/1.1 200", 12);
        close(fds[i]);
    }
    free(fds);
    printf("mode=slowloris conns=%llu seconds=%d bytes_each=%zu ok=%llu\n", (unsigned long long)conns, seconds,
           sent, (unsigned long long)ok);
    return ok == conns ? 0 : 1;
}

/* ---- half-close and close ---- */

static int halfclose(const struct sockaddr_in *a, uint64_t n, int shut)
{
    int *fds = util_xmalloc(n * sizeof *fds);
    for (uint64_t i = 0; i < n; i++) {
        fds[i] = dial(a);
        send_all(fds[i], REQ_GET, sizeof REQ_GET - 1);
        if (shut)
            shutdown(fds[i], SHUT_WR);
        else
            close(fds[i]);
    }
    uint64_t ok = 0;
    for (uint64_t i = 0; shut && i < n; i++) {
        struct rstate s = {0};
        static char rb[1 << 16];
        ssize_t r;
        while ((r = read(fds[i], rb, sizeof rb)) > 0)
            feed(&s, rb, (size_t)r);
        /* One whole 200, then EOF (r == 0, not a timeout or reset). */
        ok += r == 0 && s.done == 1 && !s.bad && !s.hlen && !s.body_left;
        close(fds[i]);
    }
    free(fds);
    if (!shut) {
        printf("mode=closers n=%llu\n", (unsigned long long)n);
        return 0;
    }
    printf("mode=halfclose n=%llu ok=%llu\n", (unsigned long long)n, (unsigned long long)ok);
    return ok == n ? 0 : 1;
}

/* ---- stalled readers ---- */

static int stalled(const struct sockaddr_in *a, uint64_t conns, uint64_t depth)
{
    size_t len;
    char *reqs = requests(depth, &len);
    struct pollfd *p = util_xmalloc(conns * sizeof *p);
    struct rstate *st = util_xcalloc(conns, sizeof *st);
    char err[UTIL_ERR_LEN];
    for (uint64_t i = 0; i < conns; i++) {
        int fd = dial_ethernet_mss(a);
        send_all(fd, reqs, len);
        if (net_nonblock(fd, err) < 0)
            die(err);
        p[i] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    printf("stalled conns=%llu depth=%llu\n", (unsigned long long)conns, (unsigned long long)depth);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) {
        /* EOF: go on */
    }
    static char rb[1 << 16];
    uint64_t t0 = util_now_ns(), deadline = t0 + 60000000000ull, left = conns, ok = 0;
    while (left && util_now_ns() < deadline) {
        if (poll(p, conns, 1000) < 0 && errno != EINTR)
            die(strerror(errno));
        for (uint64_t i = 0; i < conns; i++) {
            if (p[i].fd < 0 || !p[i].revents)
                continue;
            ssize_t r;
            while ((r = read(p[i].fd, rb, sizeof rb)) > 0)
                feed(&st[i], rb, (size_t)r);
            int gone = r == 0 || (r < 0 && errno != EAGAIN);
            if (st[i].done >= depth || gone) {
                ok += !gone && st[i].done == depth && !st[i].bad && !st[i].hlen && !st[i].body_left;
                close(p[i].fd);
                p[i].fd = -1;
                left--;
            }
        }
    }
    for (uint64_t i = 0; i < conns; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    printf("mode=stalled conns=%llu depth=%llu ok=%llu body_bytes=%llu elapsed_ns=%llu\n", (unsigned long long)conns,
           (unsigned long long)depth, (unsigned long long)ok, (unsigned long long)st[0].body_bytes,
           (unsigned long long)(util_now_ns() - t0));
    free(st);
    free(p);
    free(reqs);
    return ok == conns ? 0 : 1;
}

/* ---- silent clients ---- */

static int silent(const struct sockaddr_in *a, uint64_t conns)
{
    int *fds = util_xmalloc(conns * sizeof *fds);
    char err[UTIL_ERR_LEN];
    for (uint64_t i = 0; i < conns; i++) {
        fds[i] = dial(a);
        if (net_nonblock(fds[i], err) < 0)
            die(err);
    }
    printf("silent conns=%llu\n", (unsigned long long)conns);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) {
        /* EOF: go on */
    }
    uint64_t closed = 0;
    for (uint64_t i = 0; i < conns; i++) {
        char b[64];
        ssize_t r = read(fds[i], b, sizeof b);
        closed += r == 0 || (r < 0 && errno != EAGAIN);
        close(fds[i]);
    }
    free(fds);
    printf("mode=silent conns=%llu closed_by_server=%llu\n", (unsigned long long)conns, (unsigned long long)closed);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        die("usage: hostile-client MODE ADDR N ... (see the comment at the top of the source)");
    const char *mode = argv[1];
    struct sockaddr_in a;
    char err[UTIL_ERR_LEN];
    if (net_parse_addr(argv[2], &a, err) < 0)
        die(err);
    uint64_t n = strtoull(argv[3], NULL, 10);
    uint64_t x = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
    if (!strcmp(mode, "flood"))
        return flood(&a, n, (int)x);
    if (!strcmp(mode, "resets-before") || !strcmp(mode, "resets-during"))
        return resets(&a, n, x ? x : 100, !strcmp(mode, "resets-during"), argc > 5 ? strtoull(argv[5], NULL, 10) : 1);
    if (!strcmp(mode, "slowloris"))
        return slowloris(&a, n, (int)x);
    if (!strcmp(mode, "halfclose"))
        return halfclose(&a, n, 1);
    if (!strcmp(mode, "closers"))
        return halfclose(&a, n, 0);
    if (!strcmp(mode, "stalled"))
        return stalled(&a, n, x ? x : 1);
    if (!strcmp(mode, "silent"))
        return silent(&a, n);
    die("unknown mode (flood, resets-before, resets-during, slowloris, halfclose, closers, stalled, silent)");
    return 2;
}
