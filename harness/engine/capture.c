/* capture: a tool's output through a pipe, into a file of bounded size.
 * See capture.h for why. */
#include "engine/capture.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void file_write(struct capture *c, const char *buf, size_t len)
{
    while (len > 0 && !c->write_errno) {
        ssize_t w = write(c->file_fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            c->write_errno = w < 0 ? errno : EIO;
            return;
        }
        buf += w;
        len -= (size_t)w;
    }
}

static void take(struct capture *c, const char *buf, size_t len)
{
    if (c->total_bytes < c->head_bytes) {
        uint64_t room = c->head_bytes - c->total_bytes;
        size_t n = len < room ? len : (size_t)room;
        file_write(c, buf, n);
        c->total_bytes += n;
        buf += n;
        len -= n;
    }
    if (!len)
        return;
    c->total_bytes += len;
    if (!c->tail_bytes)
        return;
    if (!c->ring)
        c->ring = util_xmalloc(c->tail_bytes);
    if (len > c->tail_bytes) {
        buf += len - c->tail_bytes;
        len = c->tail_bytes;
    }
    while (len) {
        size_t n = c->tail_bytes - c->ring_pos;
        if (n > len)
            n = len;
        memcpy(c->ring + c->ring_pos, buf, n);
        c->ring_pos = (c->ring_pos + n) % c->tail_bytes;
        c->ring_fill = c->ring_fill + n > c->tail_bytes ? c->tail_bytes : c->ring_fill + n;
        buf += n;
        len -= n;
    }
}

static void *reader(void *arg)
{
    struct capture *c = arg;
    char *buf = util_xmalloc(1 << 16);
    for (;;) {
        struct pollfd pf = {.fd = c->read_fd, .events = POLLIN};
        int r = poll(&pf, 1, 100);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            /* Quiet for 100 ms: stop only once told to (the tool is gone
             * and whatever still holds the pipe is not ours to wait for). */
            if (__atomic_load_n(&c->finish, __ATOMIC_ACQUIRE))
                break;
            continue;
        }
        ssize_t n = read(c->read_fd, buf, 1 << 16);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break; /* EOF: every writer is gone */
        take(c, buf, (size_t)n);
    }
    free(buf);
    return NULL;
}

int capture_start(struct capture *c, const char *path, uint64_t head_bytes, uint64_t tail_bytes, char *err)
{
    int pfd[2];
    memset(c, 0, sizeof *c);
    c->write_fd = c->read_fd = c->file_fd = -1;
    c->head_bytes = head_bytes;
    c->tail_bytes = tail_bytes;
    snprintf(c->path, sizeof c->path, "%s", path);
    c->file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (c->file_fd < 0)
        return util_err(err, "cannot create output file %s: %s", path, strerror(errno));
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        util_err(err, "cannot create a pipe for %s: %s", path, strerror(errno));
        goto fail;
    }
    c->read_fd = pfd[0];
    c->write_fd = pfd[1];
    /* A larger pipe lets a chatty tool write on while the thread is busy
     * with the disk; the default is fine where this is refused. */
    fcntl(c->write_fd, F_SETPIPE_SZ, 1 << 20);
    if (pthread_create(&c->thread, NULL, reader, c)) {
        util_err(err, "cannot start a thread to read %s", path);
        goto fail;
    }
    c->started = 1;
    return 0;
fail:
    for (int *fd = &c->write_fd; fd <= &c->file_fd; fd++)
        if (*fd >= 0) {
            close(*fd);
            *fd = -1;
        }
    return -1;
}

void capture_close_writer(struct capture *c)
{
    if (c->write_fd >= 0)
        close(c->write_fd);
    c->write_fd = -1;
}

int capture_finish(struct capture *c, char *err)
{
    int rc = 0;
    if (!c->started)
        return 0;
    capture_close_writer(c);
    {
        __atomic_store_n(&c->finish, 1, __ATOMIC_RELEASE);
        pthread_join(c->thread, NULL);
        c->started = 0;
        uint64_t dropped = capture_dropped(c);
        if (dropped) {
            char line[256];
            int n = snprintf(line, sizeof line,
                             "\n[loadbench: output truncated: %llu bytes left out here; the first %llu and the last %llu bytes of %llu are kept]\n",
                             (unsigned long long)dropped, (unsigned long long)c->head_bytes,
                             (unsigned long long)c->ring_fill, (unsigned long long)c->total_bytes);
            file_write(c, line, (size_t)n);
        }
        if (c->ring_fill) {
            uint64_t start = c->ring_fill < c->tail_bytes ? 0 : c->ring_pos;
            file_write(c, c->ring + start, (size_t)(c->ring_fill - start));
            if (start)
                file_write(c, c->ring, (size_t)start);
        }
    }
    if (c->write_errno)
        rc = util_err(err, "cannot write %s: %s", c->path, strerror(c->write_errno));
    if (c->read_fd >= 0)
        close(c->read_fd);
    if (c->file_fd >= 0 && close(c->file_fd) < 0 && !rc)
        rc = util_err(err, "cannot write %s: %s", c->path, strerror(errno));
    c->read_fd = c->file_fd = -1;
    free(c->ring);
    c->ring = NULL;
    return rc;
}

uint64_t capture_dropped(const struct capture *c)
{
    uint64_t kept = c->total_bytes < c->head_bytes ? c->total_bytes : c->head_bytes;
    return c->total_bytes - kept - c->ring_fill;
}

/* 1 when line (len bytes) reads as a fatal message. */
static int reads_fatal(const char *line, size_t len)
{
    static const char *const words[] = {"error", "fatal", "exception", "busy", "refused", "cannot", "could not",
                                        "failed", "denied", "no such", "not found", "invalid", "usage"};
    char low[512];
    size_t n = len < sizeof low - 1 ? len : sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(line[i] >= 'A' && line[i] <= 'Z' ? line[i] + 32 : line[i]);
    low[n] = 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strstr(low, words[i]))
            return 1;
    return 0;
}

int capture_fatal_line(const char *path, char *out, size_t len)
{
    char buf[16384 + 1];
    struct stat st;
    out[0] = 0;
    int fd = fsutil_open_input(path, FSUTIL_CAP_STREAM, NULL);
    if (fd < 0)
        return 0;
    off_t from = !fstat(fd, &st) && st.st_size > 16384 ? st.st_size - 16384 : 0;
    ssize_t n = pread(fd, buf, sizeof buf - 1, from);
    close(fd);
    if (n <= 0)
        return 0;
    const char *best = NULL, *last = NULL;
    size_t best_len = 0, last_len = 0;
    for (ssize_t i = 0; i < n;) {
        ssize_t j = i;
        while (j < n && buf[j] != '\n')
            j++;
        ssize_t e = j;
        while (e > i && (buf[e - 1] == '\r' || buf[e - 1] == ' ' || buf[e - 1] == '\t'))
            e--;
        if (e > i && !(from && i == 0)) { /* a line cut by the 16 KiB start is not one */
            last = buf + i, last_len = (size_t)(e - i);
            if (reads_fatal(last, last_len))
                best = last, best_len = last_len;
        }
        i = j + 1;
    }
    if (!best)
        best = last, best_len = last_len;
    if (!best)
        return 0;
    const char *e = best_len > 2 && best[0] == '[' && best[1] >= '0' && best[1] <= '9' ? memchr(best, ']', best_len)
                                                                                    : NULL;
    if (e) { /* a log line's "[time] " */
        best_len -= (size_t)(e + 1 - best);
        best = e + 1;
        while (best_len && *best == ' ')
            best++, best_len--;
    }
    size_t k = best_len < len - 1 ? best_len : len - 1;
    memcpy(out, best, k);
    out[k] = 0;
    for (size_t i = 0; i < k; i++) /* one line, printable */
        if ((unsigned char)out[i] < 0x20)
            out[i] = ' ';
    return 1;
}
