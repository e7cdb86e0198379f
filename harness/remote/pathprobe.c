/* pathprobe: echo and bulk over plain TCP, a thread per probe connection
 * on the serving side, blocking sockets on the measuring side. */
#include "remote/pathprobe.h"
#include "adapters/adapter.h"
#include "common/net.h"
#include "common/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROBE_MSG_BYTES 32
#define PROBE_WARMUP 50
#define PROBE_CHUNK_BYTES 65536

struct pathprobe_server {
    int fd;
    int stop_pipe[2];
    pthread_t th;
};

static void *probe_conn_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char mode = 0;
    if (recv(fd, &mode, 1, MSG_WAITALL) == 1 && mode == 'E') {
        char buf[256];
        ssize_t n;
        while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
            if (send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
                break;
    } else if (mode == 'B') {
        char *buf = util_xcalloc(1, PROBE_CHUNK_BYTES);
        while (send(fd, buf, PROBE_CHUNK_BYTES, MSG_NOSIGNAL) > 0)
            ;
        free(buf);
    }
    close(fd);
    return NULL;
}

static void *probe_accept_main(void *arg)
{
    struct pathprobe_server *s = arg;
    struct pollfd p[2] = {{.fd = s->fd, .events = POLLIN}, {.fd = s->stop_pipe[0], .events = POLLIN}};
    while (poll(p, 2, -1) >= 0 || errno == EINTR) {
        if (p[1].revents)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        int one = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&th, &at, probe_conn_main, (void *)(intptr_t)c))
            close(c);
        pthread_attr_destroy(&at);
    }
    return NULL;
}

struct pathprobe_server *pathprobe_serve(const char *addr, int *port, char *err)
{
    char a[96];
    struct sockaddr_in sa;
    snprintf(a, sizeof a, "%s:0", addr);
    if (net_parse_addr(a, &sa, err))
        return NULL;
    struct pathprobe_server *s = util_xcalloc(1, sizeof *s);
    s->fd = net_listen(&sa, 64, 0, err);
    if (s->fd < 0 || pipe2(s->stop_pipe, O_CLOEXEC)) {
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        return NULL;
    }
    *port = net_local_port(s->fd);
    if (pthread_create(&s->th, NULL, probe_accept_main, s)) {
        close(s->fd);
        close(s->stop_pipe[0]);
        close(s->stop_pipe[1]);
        free(s);
        util_err(err, "cannot start the path probe's thread");
        return NULL;
    }
    return s;
}

void pathprobe_stop(struct pathprobe_server *s)
{
    if (!s)
        return;
    if (write(s->stop_pipe[1], "x", 1) < 0) {
        /* the thread then ends at the close below */
    }
    pthread_join(s->th, NULL);
    close(s->fd);
    close(s->stop_pipe[0]);
    close(s->stop_pipe[1]);
    free(s);
}

/* A blocking connection that announced its mode, or -1 with err. */
static int probe_connect(const struct sockaddr_in *sa, char mode, char *err)
{
    int fd = net_connect_blocking(sa, err);
    if (fd < 0)
        return -1;
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (send(fd, &mode, 1, MSG_NOSIGNAL) != 1) {
        close(fd);
        return util_err(err, "cannot write to the path probe: %s", strerror(errno));
    }
    return fd;
}

static int probe_rtts(const struct sockaddr_in *sa, unsigned n, struct pathprobe_result *r, char *err)
{
    int fd = probe_connect(sa, 'E', err);
    if (fd < 0)
        return -1;
    struct sockaddr_in self;
    socklen_t slen = sizeof self;
    if (!getsockname(fd, (struct sockaddr *)&self, &slen))
        inet_ntop(AF_INET, &self.sin_addr, r->source, sizeof r->source);
    uint64_t *t = util_xcalloc(n, sizeof *t);
    char msg[PROBE_MSG_BYTES] = "loadbench path probe", back[PROBE_MSG_BYTES];
    int rc = 0;
    for (unsigned i = 0; i < n + PROBE_WARMUP && !rc; i++) {
        uint64_t t0 = util_now_ns();
        if (send(fd, msg, sizeof msg, MSG_NOSIGNAL) != (ssize_t)sizeof msg ||
            recv(fd, back, sizeof back, MSG_WAITALL) != (ssize_t)sizeof back)
            rc = util_err(err, "the path probe's echo stopped after %u round trips: %s", i,
                          errno ? strerror(errno) : "closed");
        else if (i >= PROBE_WARMUP)
            t[i - PROBE_WARMUP] = util_now_ns() - t0;
    }
    close(fd);
    if (!rc) {
        qsort(t, n, sizeof *t, util_cmp_u64);
        r->rtts = n;
        r->rtt_min_us = (double)t[0] / 1e3;
        r->rtt_p50_us = (double)t[(n - 1) / 2] / 1e3;
        r->rtt_p99_us = (double)t[(size_t)((n - 1) * 0.99)] / 1e3;
    }
    free(t);
    return rc;
}

static int probe_bulk(const struct sockaddr_in *sa, unsigned flows, uint64_t ns, struct pathprobe_result *r,
                      char *err)
{
    int *fd = util_xcalloc(flows, sizeof *fd);
    unsigned open = 0;
    int rc = 0;
    for (; open < flows && !rc; open++)
        if ((fd[open] = probe_connect(sa, 'B', err)) < 0)
            rc = -1;
    if (rc)
        open--;
    struct pollfd *p = util_xcalloc(flows, sizeof *p);
    char *buf = util_xmalloc(PROBE_CHUNK_BYTES);
    uint64_t bytes = 0, t0 = util_now_ns(), end = t0 + ns;
    for (unsigned i = 0; i < open; i++)
        p[i] = (struct pollfd){.fd = fd[i], .events = POLLIN};
    while (!rc && util_now_ns() < end) {
        if (poll(p, open, 100) < 0 && errno != EINTR)
            rc = util_err(err, "poll: %s", strerror(errno));
        for (unsigned i = 0; i < open && !rc; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = recv(fd[i], buf, PROBE_CHUNK_BYTES, MSG_DONTWAIT);
            if (got > 0)
                bytes += (uint64_t)got;
            else if (got == 0 || (errno != EAGAIN && errno != EINTR))
                rc = util_err(err, "a bulk flow of the path probe ended: %s", got ? strerror(errno) : "closed");
        }
    }
    double s = (double)(util_now_ns() - t0) / 1e9;
    uint64_t segs = 0;
    for (unsigned i = 0; i < open; i++) {
        struct tcp_info ti;
        socklen_t len = sizeof ti;
        if (!getsockopt(fd[i], IPPROTO_TCP, TCP_INFO, &ti, &len))
            segs += ti.tcpi_segs_in;
        close(fd[i]);
    }
    if (!rc) {
        r->flows = flows;
        r->bulk_s = s;
        r->bytes_per_s = (double)bytes / s;
        r->packets_per_s = (double)segs / s;
    }
    free(buf);
    free(p);
    free(fd);
    return rc;
}

/* The interface `ip route get ADDR` names ("" when it says none). */
static void probe_iface(const char *addr, char *out, size_t len)
{
    char text[1024];
    const char *argv[] = {"ip", "route", "get", addr, NULL};
    out[0] = 0;
    if (adapter_capture(argv, text, sizeof text) != 0)
        return;
    const char *dev = strstr(text, " dev ");
    if (dev)
        snprintf(out, len, "%.*s", (int)strcspn(dev + 5, " \n"), dev + 5);
}

int pathprobe_measure(const char *addr, int port, unsigned rtts, unsigned flows, uint64_t bulk_ns,
                      struct pathprobe_result *r, char *err)
{
    char a[96];
    struct sockaddr_in sa;
    memset(r, 0, sizeof *r);
    snprintf(a, sizeof a, "%s:%d", addr, port);
    if (!rtts || !flows || net_parse_addr(a, &sa, err))
        return rtts && flows ? -1 : util_err(err, "a path probe needs round trips and flows");
    probe_iface(addr, r->iface, sizeof r->iface);
    return probe_rtts(&sa, rtts, r, err) || probe_bulk(&sa, flows, bulk_ns, r, err) ? -1 : 0;
}

json_t *pathprobe_json(const struct pathprobe_result *r)
{
    return json_pack("{s:s?, s:s?, s:{s:i, s:f, s:f, s:f}, s:{s:i, s:f, s:f, s:f}}", "interface",
                     r->iface[0] ? r->iface : NULL, "source", r->source[0] ? r->source : NULL, "rtt", "count",
                     (int)r->rtts, "p50_us", r->rtt_p50_us, "p99_us", r->rtt_p99_us, "min_us", r->rtt_min_us, "bulk",
                     "flows", (int)r->flows, "seconds", r->bulk_s, "bytes_per_s", r->bytes_per_s, "packets_per_s",
                     r->packets_per_s);
}
