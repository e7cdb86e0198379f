/* target-client: a raw HTTP/1.1 client the lb-target tests control.
 *
 *   target-client keepalive ADDR N            N requests, one keep-alive connection
 *   target-client pipeline ADDR N DEPTH       N requests, DEPTH in flight at a time
 *   target-client newconn ADDR N              N requests, a new connection each (Connection: close)
 *   target-client latency ADDR N [GAP_MS]     like keepalive, reports mean/median latency;
 *                                             with GAP_MS, sleeps that long before each
 *                                             request (untimed), so the server idles between
 *   target-client raw ADDR [--shutdown|--close] [--hold MS] [--pad N] TEXT
 *                                             send TEXT (\r \n \xHH escapes; --pad adds an
 *                                             N-byte header), wait MS, then half-close
 *                                             (--shutdown) or close (--close); print what
 *                                             comes back until EOF
 *   target-client idlecheck ADDR IDLE N ROUNDS [PID]
 *                                             keep-alive rate with and without IDLE idle connections;
 *                                             with the server's PID, its CPU time per response too
 *   target-client control ADDR METHOD PATH [FIELD...]
 *                                             control request; prints the JSON or the named
 *                                             fields (dotted paths), one per line
 *
 * Results are one line of key=value pairs. Exit status: 0 when every
 * response was a 200 with the announced body, 1 otherwise, 2 on usage or
 * connection errors. Every socket has a 10 s timeout, so nothing hangs. */
#include "common/net.h"
#include "common/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <dirent.h>
#include <sys/time.h>
#include <unistd.h>

static const char REQ[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: target-client\r\n\r\n";
static const char REQ_CLOSE[] = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

struct reader {
    int fd;
    char buf[1 << 16];
    size_t off, len;
};

static void die(const char *msg)
{
    fprintf(stderr, "target-client: %s\n", msg);
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

/* Fill more bytes; returns 0 at EOF. */
static int fill(struct reader *r)
{
    if (r->off == r->len)
        r->off = r->len = 0;
    else if (r->len == sizeof r->buf) {
        memmove(r->buf, r->buf + r->off, r->len - r->off);
        r->len -= r->off;
        r->off = 0;
    }
    ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
    if (n < 0)
        die(errno == EAGAIN ? "timed out waiting for a response" : strerror(errno));
    r->len += (size_t)n;
    return n > 0;
}

/* Read one response; returns its status (0 at EOF before any byte). */
static int read_response(struct reader *r)
{
    for (;;) {
        char *start = r->buf + r->off;
        size_t avail = r->len - r->off;
        char *end = avail ? memmem(start, avail, "\r\n\r\n", 4) : NULL;
        if (end) {
            size_t head = (size_t)(end + 4 - start);
            int status = 0;
            if (sscanf(start, "HTTP/1.%*d %d", &status) != 1)
                die("malformed status line");
            unsigned long long cl = 0;
            for (char *p = start; p < end; p++) {
                if ((p == start || p[-1] == '\n') && !strncasecmp(p, "content-length:", 15))
                    cl = strtoull(p + 15, NULL, 10);
            }
            /* Skip the body as it streams in (it may be larger than the
             * buffer). */
            r->off += head;
            while (cl) {
                size_t take = r->len - r->off;
                if (take > cl)
                    take = (size_t)cl;
                r->off += take;
                cl -= take;
                if (cl && !fill(r))
                    die("EOF inside a response body");
            }
            return status;
        }
        if (avail == sizeof r->buf)
            die("response head too large");
        if (!fill(r)) {
            if (avail)
                die("EOF inside a response head");
            return 0;
        }
    }
}

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

static void report(const char *mode, uint64_t n, uint64_t ok, uint64_t t0)
{
    uint64_t el = util_now_ns() - t0;
    printf("mode=%s requests=%llu ok=%llu errors=%llu elapsed_ns=%llu rps=%.0f\n", mode,
           (unsigned long long)n, (unsigned long long)ok, (unsigned long long)(n - ok),
           (unsigned long long)el, (double)ok / secs(el));
}

static uint64_t run_keepalive(const struct sockaddr_in *a, uint64_t n, uint64_t *lat_ns, long gap_ms)
{
    struct reader *r = util_xcalloc(1, sizeof *r);
    r->fd = dial(a);
    uint64_t ok = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (gap_ms > 0)
            util_sleep_until_ns(util_now_ns() + (uint64_t)gap_ms * 1000000ull);
        uint64_t t = lat_ns ? util_now_ns() : 0;
        send_all(r->fd, REQ, sizeof REQ - 1);
        int st = read_response(r);
        if (st == 0)
            die("connection closed early");
        if (lat_ns)
            lat_ns[i] = util_now_ns() - t;
        ok += st == 200;
    }
    close(r->fd);
    free(r);
    return ok;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The CPU time of every thread of process pid in ns, from the scheduler's
 * own count (/proc/PID/task/TID/schedstat, first field): exact, not in
 * clock ticks, and unchanged by time spent waiting for a CPU. */
static uint64_t task_cpu_ns(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        die("cannot read the server's /proc/PID/task");
    uint64_t sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[300];
        unsigned long long ns = 0;
        snprintf(p, sizeof p, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
        FILE *f = fopen(p, "r");
        if (f && fscanf(f, "%llu", &ns) == 1)
            sum += ns;
        if (f)
            fclose(f);
    }
    closedir(d);
    return sum;
}

/* One phase of idlecheck: the better of two half-length runs, for the rate
 * and (with the server's pid) for its CPU ns per response. */
struct phase {
    double rps, cpu_ns;
};

static struct phase best_phase(const struct sockaddr_in *a, uint64_t n, pid_t server)
{
    struct phase best = {0, 0};
    for (int i = 0; i < 2; i++) {
        uint64_t c0 = server > 0 ? task_cpu_ns(server) : 0, t0 = util_now_ns();
        uint64_t ok = run_keepalive(a, n / 2, NULL, 0);
        double r = (double)ok / secs(util_now_ns() - t0);
        double c = server > 0 && ok ? (double)(task_cpu_ns(server) - c0) / (double)ok : 0;
        if (r > best.rps)
            best.rps = r;
        if (i == 0 || c < best.cpu_ns)
            best.cpu_ns = c;
    }
    return best;
}

static double median(double *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (v[j] < v[i]) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
    return v[n / 2];
}

/* idlecheck: rounds of (a phase without idle connections, open IDLE, a
 * phase with them, close them); prints the medians and their ratios: the
 * rate's, and with the server's pid its CPU per response's. */
static int idlecheck(const struct sockaddr_in *a, uint64_t idle, uint64_t n, int rounds, pid_t server)
{
    double base[16], with[16], cbase[16], cwith[16];
    int *fds = util_xmalloc(idle * sizeof *fds);
    if (rounds > 16)
        rounds = 16;
    for (int k = 0; k < rounds; k++) {
        /* Other load only ever slows a run down or adds CPU (cache misses,
         * preemption): each phase's figure is the better of two half-length
         * runs. */
        struct phase b = best_phase(a, n, server);
        for (uint64_t i = 0; i < idle; i++)
            fds[i] = dial(a);
        struct phase w = best_phase(a, n, server);
        base[k] = b.rps, with[k] = w.rps, cbase[k] = b.cpu_ns, cwith[k] = w.cpu_ns;
        if (k == rounds - 1) {
            /* Let the caller see the server holding them: print and wait
             * for a line on stdin (or EOF) before closing. */
            printf("holding=%llu\n", (unsigned long long)idle);
            fflush(stdout);
            char line[16];
            if (!fgets(line, sizeof line, stdin)) {
                /* EOF: go on */
            }
        }
        for (uint64_t i = 0; i < idle; i++)
            close(fds[i]);
        fprintf(stderr, "# round %d: %.0f req/s alone, %.0f with %llu idle; server CPU %.0f ns/response alone, %.0f with\n",
                k + 1, base[k], with[k], (unsigned long long)idle, cbase[k], cwith[k]);
    }
    free(fds);
    double mb = median(base, rounds), mw = median(with, rounds);
    double cb = median(cbase, rounds), cw = median(cwith, rounds);
    printf("mode=idlecheck idle=%llu rps_alone=%.0f rps_with_idle=%.0f ratio=%.3f cpu_ns_alone=%.0f cpu_ns_with_idle=%.0f "
           "cpu_ratio=%.3f\n",
           (unsigned long long)idle, mb, mw, mw / mb, cb, cw, cb > 0 ? cw / cb : 0);
    return 0;
}

/* Decode \r \n \t \\ \xHH in s. */
static size_t unescape(const char *s, char *out)
{
    size_t n = 0;
    for (; *s; s++) {
        if (*s != '\\' || !s[1]) {
            out[n++] = *s;
            continue;
        }
        s++;
        switch (*s) {
        case 'r': out[n++] = '\r'; break;
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'x': {
            char hex[3] = {s[1], s[1] ? s[2] : 0, 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            s += 2;
            break;
        }
        default: out[n++] = *s; break;
        }
    }
    return n;
}

static int raw(const struct sockaddr_in *a, int argc, char **argv)
{
    int shut = 0, hold_ms = 0, just_close = 0;
    const char *text = NULL;
    size_t repeat_bytes = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--shutdown"))
            shut = 1;
        else if (!strcmp(argv[i], "--close"))
            just_close = 1;   /* send, (hold,) close without reading */
        else if (!strcmp(argv[i], "--hold") && i + 1 < argc)
            hold_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pad") && i + 1 < argc)
            repeat_bytes = strtoull(argv[++i], NULL, 10);   /* append a header of this many bytes */
        else
            text = argv[i];
    }
    if (!text)
        die("raw: no text");
    char *buf = util_xmalloc(strlen(text) + repeat_bytes + 64);
    size_t n = unescape(text, buf);
    if (repeat_bytes) {
        /* Insert "X-Pad: aaaa...\r\n" before the final blank line. */
        if (n < 2)
            die("raw: --pad needs a request");
        n -= 2;
        memcpy(buf + n, "X-Pad: ", 7);
        n += 7;
        memset(buf + n, 'a', repeat_bytes);
        n += repeat_bytes;
        memcpy(buf + n, "\r\n\r\n", 4);
        n += 4;
    }
    int fd = dial(a);
    send_all(fd, buf, n);
    if (hold_ms)
        usleep((useconds_t)hold_ms * 1000);
    if (just_close) {
        close(fd);
        free(buf);
        return 0;
    }
    if (shut)
        shutdown(fd, SHUT_WR);
    /* Print what comes back until EOF (or the 10 s timeout). */
    char rb[65536];
    for (;;) {
        ssize_t k = read(fd, rb, sizeof rb);
        if (k <= 0)
            break;
        fwrite(rb, 1, (size_t)k, stdout);
    }
    close(fd);
    free(buf);
    return 0;
}

static int control(const struct sockaddr_in *a, const char *method, const char *path, int nf, char **fields)
{
    int fd = dial(a);
    char *req = util_xasprintf("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                               method, path);
    send_all(fd, req, strlen(req));
    free(req);
    size_t cap = 1 << 16, len = 0;
    char *buf = util_xmalloc(cap);
    for (;;) {
        if (len + 1 >= cap)
            buf = util_xrealloc(buf, cap *= 2);
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0)
            die(strerror(errno));
        if (k == 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    buf[len] = 0;
    char *body = strstr(buf, "\r\n\r\n");
    if (!body || strncmp(buf, "HTTP/1.1 200", 12))
        die("control request failed");
    body += 4;
    if (nf == 0) {
        fputs(body, stdout);
        free(buf);
        return 0;
    }
    json_error_t je;
    json_t *root = json_loads(body, 0, &je);
    if (!root)
        die("control answer is not JSON");
    for (int i = 0; i < nf; i++) {
        json_t *v = root;
        char *path_copy = util_xstrdup(fields[i]), *save = NULL;
        for (char *tok = strtok_r(path_copy, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save))
            v = json_object_get(v, tok);
        free(path_copy);
        if (!v)
            die("no such field in the control answer");
        if (json_is_integer(v))
            printf("%lld\n", (long long)json_integer_value(v));
        else {
            char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            printf("%s\n", t);
            free(t);
        }
    }
    json_decref(root);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: target-client MODE ADDR ... (see the comment at the top of the source)");
    const char *mode = argv[1];
    struct sockaddr_in a;
    char err[UTIL_ERR_LEN];
    if (net_parse_addr(argv[2], &a, err) < 0)
        die(err);
    uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;

    if (!strcmp(mode, "keepalive") || !strcmp(mode, "latency")) {
        int lat = !strcmp(mode, "latency");
        uint64_t *l = lat ? util_xcalloc(n, sizeof *l) : NULL;
        uint64_t t0 = util_now_ns();
        long gap_ms = lat && argc > 4 ? atol(argv[4]) : 0;
        uint64_t ok = run_keepalive(&a, n, l, gap_ms);
        report(mode, n, ok, t0);
        if (lat) {
            long double sum = 0;
            for (uint64_t i = 0; i < n; i++)
                sum += l[i];
            qsort(l, n, sizeof *l, cmp_u64);
            printf("mean_ns=%.0Lf median_ns=%llu min_ns=%llu max_ns=%llu p99_ns=%llu\n", sum / n,
                   (unsigned long long)l[n / 2], (unsigned long long)l[0], (unsigned long long)l[n - 1],
                   (unsigned long long)l[n * 99 / 100]);
            free(l);
        }
        return ok == n ? 0 : 1;
    }
    if (!strcmp(mode, "pipeline")) {
        uint64_t depth = argc > 4 ? strtoull(argv[4], NULL, 10) : 16;
        if (!depth)
            die("depth must be at least 1");
        char *batch = util_xmalloc(depth * (sizeof REQ - 1));
        for (uint64_t i = 0; i < depth; i++)
            memcpy(batch + i * (sizeof REQ - 1), REQ, sizeof REQ - 1);
        struct reader *r = util_xcalloc(1, sizeof *r);
        r->fd = dial(&a);
        uint64_t t0 = util_now_ns(), ok = 0;
        for (uint64_t done = 0; done < n;) {
            uint64_t k = n - done < depth ? n - done : depth;
            send_all(r->fd, batch, k * (sizeof REQ - 1));
            for (uint64_t i = 0; i < k; i++) {
                int st = read_response(r);
                if (!st)
                    die("connection closed early");
                ok += st == 200;
            }
            done += k;
        }
        close(r->fd);
        free(r);
        free(batch);
        report(mode, n, ok, t0);
        return ok == n ? 0 : 1;
    }
    if (!strcmp(mode, "newconn")) {
        struct reader *r = util_xcalloc(1, sizeof *r);
        uint64_t t0 = util_now_ns(), ok = 0;
        for (uint64_t i = 0; i < n; i++) {
            r->fd = dial(&a);
            r->off = r->len = 0;
            send_all(r->fd, REQ_CLOSE, sizeof REQ_CLOSE - 1);
            int st = read_response(r);
            ok += st == 200;
            /* The server closes: wait for its FIN so we never reset it. */
            if (st && fill(r))
                die("data after a Connection: close response");
            close(r->fd);
        }
        free(r);
        report(mode, n, ok, t0);
        return ok == n ? 0 : 1;
    }
    if (!strcmp(mode, "raw"))
        return raw(&a, argc - 3, argv + 3);
    if (!strcmp(mode, "idlecheck")) {
        if (argc < 6)
            die("usage: target-client idlecheck ADDR IDLE N ROUNDS [PID]");
        return idlecheck(&a, n, strtoull(argv[4], NULL, 10), atoi(argv[5]), argc > 6 ? (pid_t)atoi(argv[6]) : 0);
    }
    if (!strcmp(mode, "control")) {
        if (argc < 5)
            die("usage: target-client control ADDR METHOD PATH [FIELD...]");
        return control(&a, argv[3], argv[4], argc - 5, argv + 5);
    }
    die("unknown mode (keepalive, pipeline, newconn, latency, raw, idlecheck, control)");
    return 2;
}
