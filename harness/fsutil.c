#include "fsutil.h"
#include "util.h"

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
