/* gen-faults: a misbehaving HTTP server for lb-gen's error tests.
 *
 *   gen-faults MODE
 *
 * Listens on a free loopback port and prints "port=P" as its first line.
 * For every request (a head ending in a blank line) it answers by MODE:
 *   404      404 with a body, keep-alive
 *   chunked  200 with a chunked body, keep-alive
 *   close    200 with Connection: close, then closes
 *   garbage  bytes that are not HTTP, then closes
 *   reset    closes with a TCP reset (SO_LINGER 0)
 *   silent   never answers
 *   eof        200 without a length (the body ends at the close), then
 *              closes at once: the close arrives with the last bytes
 *   eof-delay  the same, closing 50 ms after the response
 *   truncated  200 with Content-Length: 100 and 5 body bytes, then closes
 *              (not counted: no complete response was written)
 *   continue   100 Continue and 103 Early Hints, then a 200, keep-alive
 *   no-accept  listens with a backlog of 4 and never accepts: a few
 *              handshakes complete in the kernel, the rest never do
 * On SIGTERM it prints "responses=N" (complete responses written) and exits
 * 0. One thread, level-triggered epoll; it exits by itself after 60 s. */
#include "common/net.h"
#include "common/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static const char R404[] = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found";
static const char RCHUNKED[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n";
static const char RCLOSE[] = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok";
static const char RGARBAGE[] = "this is not http\r\n\r\n";
static const char REOF[] = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nbody until the close";
static const char RTRUNCATED[] = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort";
static const char RCONTINUE[] = "HTTP/1.1 100 Continue\r\n\r\n"
                                "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
#define EOF_DELAY_NS 50000000ULL

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen-faults 404|chunked|close|garbage|reset|silent|eof|eof-delay|truncated|continue|no-accept\n");
        return 2;
    }
    const char *mode = argv[1];
    char err[UTIL_ERR_LEN];
    struct sockaddr_in addr;
    net_parse_addr("127.0.0.1:0", &addr, err);
    int no_accept = !strcmp(mode, "no-accept");
    int ls = net_listen(&addr, no_accept ? 4 : 1024, 0, err);
    if (ls < 0) {
        fprintf(stderr, "gen-faults: %s\n", err);
        return 1;
    }
    printf("port=%d\n", net_local_port(ls));
    fflush(stdout);
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    alarm(60);

    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
    if (!no_accept)
        epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    unsigned long long responses = 0;
    /* Per fd: how many bytes of "\r\n\r\n" matched so far. */
    int *match = util_xcalloc(65536, sizeof *match);
    /* eof-delay: when each fd is to be closed (0: not pending). */
    uint64_t *close_at = util_xcalloc(65536, sizeof *close_at);
    int pending = 0;
    char buf[65536];
    while (!stop) {
        struct epoll_event evs[64];
        int n = epoll_wait(ep, evs, 64, pending ? 5 : 100);
        if (pending) {
            uint64_t now = util_now_ns();
            for (int fd = 0; fd < 65536; fd++)
                if (close_at[fd] && close_at[fd] <= now) {
                    close_at[fd] = 0;
                    pending--;
                    close(fd);
                }
        }
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                int c;
                while ((c = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (c >= 65536) {
                        close(c);
                        continue;
                    }
                    match[c] = 0;
                    struct epoll_event ce = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
                }
                continue;
            }
            if (close_at[fd])
                continue; /* answered, closing soon */
            ssize_t r = read(fd, buf, sizeof buf);
            if (r <= 0) {
                if (r == 0 || errno != EAGAIN)
                    close(fd);
                continue;
            }
            int requests = 0;
            for (ssize_t k = 0; k < r; k++) {
                int want = "\r\n\r\n"[match[fd]];
                if (buf[k] == want) {
                    if (++match[fd] == 4) {
                        requests++;
                        match[fd] = 0;
                    }
                } else {
                    match[fd] = buf[k] == '\r' ? 1 : 0;
                }
            }
            for (int q = 0; q < requests; q++) {
                if (!strcmp(mode, "404") || !strcmp(mode, "chunked")) {
                    const char *resp = mode[0] == '4' ? R404 : RCHUNKED;
                    size_t len = strlen(resp);
                    if (write(fd, resp, len) == (ssize_t)len)
                        responses++;
                } else if (!strcmp(mode, "close") || !strcmp(mode, "garbage")) {
                    const char *resp = mode[0] == 'c' ? RCLOSE : RGARBAGE;
                    size_t len = strlen(resp);
                    if (write(fd, resp, len) == (ssize_t)len && mode[0] == 'c')
                        responses++;
                    close(fd);
                    break;
                } else if (!strcmp(mode, "reset")) {
                    struct linger lg = {1, 0};
                    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
                    close(fd);
                    break;
                } else if (!strcmp(mode, "continue")) {
                    if (write(fd, RCONTINUE, strlen(RCONTINUE)) == (ssize_t)strlen(RCONTINUE))
                        responses++;
                } else if (!strncmp(mode, "eof", 3) || !strcmp(mode, "truncated")) {
                    const char *resp = mode[0] == 'e' ? REOF : RTRUNCATED;
                    size_t len = strlen(resp);
                    if (write(fd, resp, len) == (ssize_t)len && mode[0] == 'e')
                        responses++;
                    if (!strcmp(mode, "eof-delay")) {
                        close_at[fd] = util_now_ns() + EOF_DELAY_NS;
                        pending++;
                    } else {
                        close(fd);
                    }
                    break;
                }
                /* silent: nothing */
            }
        }
    }
    printf("responses=%llu\n", responses);
    fflush(stdout);
    free(match);
    free(close_at);
    return 0;
}
