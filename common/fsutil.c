#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ssize_t fsutil_read_small(const char *path, char *buf, size_t cap_bytes)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    while (len + 1 < cap_bytes) {
        ssize_t r = read(fd, buf + len, cap_bytes - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    close(fd);
    buf[len] = '\0';
    return (ssize_t)len;
}

ssize_t fsutil_read_all(const char *path, char **buf, size_t *cap_bytes)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    for (;;) {
        if (*cap_bytes < len + 1024) {
            *cap_bytes = *cap_bytes ? *cap_bytes * 2 : 4096;
            *buf = util_xrealloc(*buf, *cap_bytes);
        }
        ssize_t n = read(fd, *buf + len, *cap_bytes - len - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    (*buf)[len] = '\0';
    return (ssize_t)len;
}

void fsutil_first_line(const char *path, char *out, size_t outlen)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(out, (int)outlen, f))
        out[strcspn(out, "\n")] = 0;
    fclose(f);
}

int fsutil_mkdir_p(const char *path, char *err)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                return util_err(err, "cannot create %s: %s", buf, strerror(errno));
            *p = '/';
        }
    }
    if (mkdir(buf, 0755) < 0 && errno != EEXIST)
        return util_err(err, "cannot create %s: %s", buf, strerror(errno));
    return 0;
}

int fsutil_write_text(const char *path, const char *text, char *err)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(text), off = 0;
    while (off < len) {
        ssize_t w = write(fd, text + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return util_err(err, "cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (fsync(fd) < 0 || close(fd) < 0) {
        unlink(tmp);
        return util_err(err, "cannot write %s: %s", path, strerror(errno));
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return util_err(err, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int fsutil_write_json(const char *path, json_t *j, char *err)
{
    return fsutil_write_json_flags(path, j, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII, err);
}

int fsutil_write_json_flags(const char *path, json_t *j, size_t flags, char *err)
{
    char *s = json_dumps(j, flags);
    if (!s)
        return util_err(err, "cannot encode %s", path);
    size_t n = strlen(s);
    s = util_xrealloc(s, n + 2);
    s[n] = '\n';
    s[n + 1] = 0;
    int rc = fsutil_write_text(path, s, err);
    free(s);
    return rc;
}
