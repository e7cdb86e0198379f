#include "common/fsutil.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* Why the opened fd cannot be read as an input of at most max_bytes (a
 * sentence), or NULL when it can. */
static const char *input_refusal(int fd, uint64_t max_bytes, char *why, size_t len)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        snprintf(why, len, "cannot stat it: %s", strerror(errno));
    else if (S_ISFIFO(st.st_mode))
        snprintf(why, len, "is a FIFO, not a regular file: refused (reading it could wait for ever)");
    else if (S_ISDIR(st.st_mode))
        snprintf(why, len, "is a directory, not a regular file");
    else if (!S_ISREG(st.st_mode))
        snprintf(why, len, "is a %s, not a regular file: refused",
                 S_ISCHR(st.st_mode) ? "character device" : S_ISBLK(st.st_mode) ? "block device" : "socket");
    else if ((uint64_t)st.st_size > max_bytes)
        snprintf(why, len, "is %llu bytes, over the %llu-byte limit for this kind of file: refused",
                 (unsigned long long)st.st_size, (unsigned long long)max_bytes);
    else
        return NULL;
    return why;
}

#define INPUT_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* path below dirfd opened with INPUT_FLAGS, no component of it a link nor
 * leading out (".."): openat2 where the kernel has it (5.6), else one
 * directory at a time with O_NOFOLLOW. Returns a descriptor, or -1. */
static int open_beneath(int dirfd, const char *path)
{
    struct open_how how = {.flags = INPUT_FLAGS, .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                                                            RESOLVE_NO_MAGICLINKS};
    int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0 || errno != ENOSYS)
        return fd;
    char part[PATH_MAX];
    int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    for (const char *c = path; cur >= 0;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n >= sizeof part || *path == '/' || (n == 2 && c[0] == '.' && c[1] == '.')) {
            close(cur);
            errno = EXDEV;
            return -1;
        }
        memcpy(part, c, n);
        part[n] = 0;
        int next = openat(cur, part, e ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : INPUT_FLAGS);
        close(cur);
        if (!e || next < 0)
            return next;
        cur = next;
        c = e + 1;
    }
    return -1;
}

/* fsutil_open_input_at with the reason alone (no path) in why; beneath:
 * every component of path checked (open_beneath), not only the last. */
static int open_input_at(int dirfd, const char *path, uint64_t max_bytes, char *why, size_t len, int beneath)
{
    int fd = beneath ? open_beneath(dirfd, path) : openat(dirfd, path, INPUT_FLAGS);
    if (fd < 0 && beneath && (errno == ELOOP || errno == EXDEV)) {
        int e = errno;
        snprintf(why, len, "%s: refused (loadbench reaches no file it reads through a link, nor out of its "
                           "directory)", e == ELOOP ? "is reached through a symbolic link" : "leads out of its directory");
        errno = e;
        return -1;
    }
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            snprintf(why, len, "is a symbolic link: refused (loadbench does not follow a link in a file it reads; "
                               "give the file itself)");
        else
            snprintf(why, len, "%s", strerror(e));
        errno = e;
        return -1;
    }
    if (input_refusal(fd, max_bytes, why, len)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

static int open_input(const char *path, uint64_t max_bytes, char *why, size_t len)
{
    return open_input_at(AT_FDCWD, path, max_bytes, why, len, 0);
}

int fsutil_open_input(const char *path, uint64_t max_bytes, char *err)
{
    return fsutil_open_input_at(AT_FDCWD, path, max_bytes, err);
}

int fsutil_open_input_beneath(const char *dir, const char *rel, uint64_t max_bytes, char *err)
{
    char why[200];
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = dfd < 0 ? -1 : open_input_at(dfd, rel, max_bytes, why, sizeof why, 1);
    int e = errno;
    if (dfd < 0)
        snprintf(why, sizeof why, "%s", strerror(e));
    else
        close(dfd);
    if (fd < 0) {
        util_err(err, "%s/%s: %s", dir, rel, why);
        errno = e;
    }
    return fd;
}

int fsutil_open_input_at(int dirfd, const char *path, uint64_t max_bytes, char *err)
{
    char why[200];
    int fd = open_input_at(dirfd, path, max_bytes, why, sizeof why, 0);
    if (fd < 0) {
        int e = errno;
        util_err(err, "%s: %s", path, why);
        errno = e;
    }
    return fd;
}

FILE *fsutil_fopen_input(const char *path, uint64_t max_bytes, char *err)
{
    int fd = fsutil_open_input(path, max_bytes, err);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (fd >= 0 && !f) {
        util_err(err, "%s: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

char *fsutil_slurp(const char *path, uint64_t max_bytes, size_t *len, char *err)
{
    int fd = fsutil_open_input(path, max_bytes, err);
    if (fd < 0)
        return NULL;
    size_t n = 0, cap = 4096;
    char *buf = util_xmalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) /* grew since the fstat: what the cap allows */
                break;
            cap = cap * 2 > max_bytes ? (size_t)max_bytes : cap * 2;
            buf = util_xrealloc(buf, cap + 1);
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            util_err(err, "%s: %s", path, strerror(errno));
            close(fd);
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    if (len)
        *len = n;
    return buf;
}

ssize_t fsutil_getline(char **line, size_t *cap, FILE *f, size_t max_line)
{
    size_t n = 0;
    int c = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        if (n == max_line) {
            errno = E2BIG;
            return -1;
        }
        if (n + 2 > *cap) {
            *cap = *cap < 128 ? 128 : *cap * 2;
            if (*cap > max_line + 1) /* n < max_line: n + 2 still fits */
                *cap = max_line + 1;
            *line = util_xrealloc(*line, *cap);
        }
        (*line)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (c == EOF && ferror(f))
        return -1;
    if (*line)
        (*line)[n] = 0;
    return (ssize_t)n;
}

/* jansson's json_loadfd reads its input one byte per read(2): a 23 MB
 * run.json cost 23 million system calls (10 s of system time in `loadbench
 * report`, tests/e2e/report_scale.t). This hands it the same bytes in the
 * chunks its own buffer asks for. */
static size_t json_fd_read(void *buf, size_t len, void *data)
{
    ssize_t r;
    do
        r = read(*(int *)data, buf, len);
    while (r < 0 && errno == EINTR);
    return r < 0 ? (size_t)-1 : (size_t)r;
}

json_t *fsutil_load_json(const char *path, uint64_t max_bytes, json_error_t *je)
{
    char why[200];
    json_error_t none;
    if (!je)
        je = &none;
    int fd = open_input(path, max_bytes, why, sizeof why);
    if (fd < 0) {
        memset(je, 0, sizeof *je);
        je->line = je->column = -1;
        je->position = -1;
        snprintf(je->source, sizeof je->source, "%.*s", (int)sizeof je->source - 1, path);
        snprintf(je->text, sizeof je->text, "%.150s", why);
        return NULL;
    }
    json_t *j = json_load_callback(json_fd_read, &fd, 0, je);
    close(fd);
    return j;
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

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void fsutil_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
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

/* err for a failed write of path: "disk full: " first when it is one. */
static int write_error(char *err, const char *path, int e)
{
    if (e == ENOSPC || e == EDQUOT)
        util_err(err, "disk full: cannot write %s: %s", path, strerror(e));
    else
        util_err(err, "cannot write %s: %s", path, strerror(e));
    errno = e;
    return -1;
}

/* fsync the directory that holds path, so a rename in it is on disk. */
static int sync_parent(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd) < 0 && errno != EINVAL ? -1 : 0; /* EINVAL: a filesystem without directory sync */
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* What an existing st is, for a refusal ("a character device"). */
static const char *kind_name(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device"
           : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int fsutil_output_check(const char *path, char *err)
{
    struct stat st;
    if (lstat(path, &st) < 0 || S_ISREG(st.st_mode)) /* absent: created; a regular file: replaced */
        return 0;
    util_err(err, "%s is %s, not a regular file: refused (loadbench replaces only a regular file it writes; "
                  "give - for standard output)", path, kind_name(st.st_mode));
    errno = EEXIST;
    return -1;
}

/* realpath of path's folder, then "/NAME", into out (PATH_MAX); -1 when
 * the folder does not resolve (then nothing can be written there). */
static int resolve_parent(const char *path, char *out)
{
    char dir[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *name = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (!realpath(dir, real))
        return -1;
    int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(real, "/") ? real : "", name);
    return n < PATH_MAX ? 0 : -1;
}

int fsutil_output_check_outside(const char *path, const char *const *inside, const char *what, char *err)
{
    if (fsutil_output_check(path, err))
        return -1;
    char full[PATH_MAX], real[PATH_MAX];
    if (!inside || resolve_parent(path, full))
        return 0;
    for (const char *const *d = inside; *d; d++) {
        size_t n;
        if (!realpath(*d, real) || strncmp(full, real, n = strlen(real)) || (full[n] != '/' && n > 1))
            continue;
        util_err(err, "%s is inside %s %s: refused (it would overwrite the evidence it reads)", path, what, *d);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

int fsutil_write_output(const char *path, const char *text, const char *const *inside, const char *what, char *err)
{
    if (!strcmp(path, "-")) {
        if (fputs(text, stdout) < 0 || fflush(stdout) < 0)
            return write_error(err, "standard output", errno);
        return 0;
    }
    if (fsutil_output_check_outside(path, inside, what, err))
        return -1;
    return fsutil_write_text(path, text, err);
}

int fsutil_replace(const char *tmp, const char *path, char *err)
{
    if (fsutil_output_check(path, err)) {
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return write_error(err, path, e);
    }
    return 0;
}

/* All of text (len bytes) written to fd from offset 0. Returns 0, or the
 * errno (ENOSPC for a write that wrote nothing). */
static int write_full(int fd, const char *text, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = pwrite(fd, text + off, len - off, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        off += (size_t)w;
    }
    return 0;
}

int fsutil_write_text(const char *path, const char *text, char *err)
{
    char tmp[PATH_MAX];
    if (fsutil_output_check(path, err))
        return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return write_error(err, path, errno);
    int e = write_full(fd, text, strlen(text));
    if (e) {
        close(fd);
        unlink(tmp);
        return write_error(err, path, e);
    }
    /* A full disk can surface only here (delayed allocation, NFS). */
    e = fsync(fd) < 0 ? errno : 0;
    if (close(fd) < 0 && !e)
        e = errno;
    if (e) {
        unlink(tmp);
        return write_error(err, path, e);
    }
    if (fsutil_replace(tmp, path, err))
        return -1;
    if (sync_parent(path) < 0)
        return write_error(err, path, errno);
    return 0;
}

int fsutil_overwrite_in_place(const char *path, const char *text, char *err)
{
    struct stat st;
    size_t len = strlen(text);
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return write_error(err, path, errno);
    int bad = fstat(fd, &st) < 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : (uint64_t)st.st_size < len ? ENOSPC : 0;
    if (bad) {
        close(fd);
        return write_error(err, path, bad);
    }
    int e = write_full(fd, text, len);
    if (!e)
        e = ftruncate(fd, (off_t)len) < 0 || fsync(fd) < 0 ? errno : 0;
    if (close(fd) < 0 && !e)
        e = errno;
    return e ? write_error(err, path, e) : 0;
}

int fsutil_reserve(const char *path, uint64_t bytes, char *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return write_error(err, path, errno);
    int e = posix_fallocate(fd, 0, (off_t)bytes);
    close(fd);
    if (e == EOPNOTSUPP || e == EINVAL)
        return 0;
    return e ? write_error(err, path, e) : 0;
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
