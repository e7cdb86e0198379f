/* rundirs: what an agent made for a run, removed by it and only by it, and
 * the run directories every file it touches must lie below. */
#include "agent/rundirs.h"
#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNDIRS_DEPTH_MAX 64 /* directories below a run directory a remove descends */

/* 1 when path is dir or lies below it. */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strncmp(path, dir, n) && (path[n] == 0 || path[n] == '/');
}

static int rundirs_ours(const struct rundirs *d, const char *path)
{
    for (size_t i = 0; i < d->n; i++)
        if (below(path, d->made[i]))
            return 1;
    return 0;
}

static void rundirs_note(struct rundirs *d, const char *dir)
{
    if (rundirs_ours(d, dir))
        return;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 4;
        d->made = util_xrealloc(d->made, d->cap * sizeof *d->made);
    }
    d->made[d->n++] = util_xstrdup(dir);
}

/* 0 when path is absolute and plain (no empty, "." or ".." component, no
 * trailing '/': "D/made/.." once removed D's own files), else -1 with err. */
static int plain_path(const char *path, char *err)
{
    if (!path || path[0] != '/' || strlen(path) >= PATH_MAX - 32)
        return util_err(err, "not an absolute path shorter than %d bytes: %.200s", PATH_MAX - 32,
                        path ? path : "(none)");
    for (const char *s = path + 1;; s++) {
        const char *e = strchrnul(s, '/');
        size_t len = (size_t)(e - s);
        if (!len || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
            return util_err(err, "%.200s: a path with an empty, \".\" or \"..\" component is refused", path);
        if (!*e)
            return 0;
        s = e;
    }
}

/* The run directory path lies strictly below (the deepest), or -1. */
static long root_of(const struct rundirs *d, const char *path)
{
    long best = -1;
    for (size_t i = 0; i < d->nroots; i++) {
        size_t n = strlen(d->roots[i]);
        if (!strncmp(path, d->roots[i], n) && path[n] == '/' && (best < 0 || n > strlen(d->roots[best])))
            best = (long)i;
    }
    return best;
}

/* A directory below the one of fd, opened without following a link. */
static int open_dir_at(int fd, const char *name)
{
    return openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* One step of parent_fd: the directory name (path's first end - path
 * bytes) below fd, made when create. Returns its descriptor, or -1 with
 * err. */
static int step(struct rundirs *d, int fd, const char *path, const char *c, const char *end, int create, char *err)
{
    char name[NAME_MAX + 1];
    if ((size_t)(end - c) > NAME_MAX)
        return util_err(err, "%.200s: a name longer than %d bytes", path, NAME_MAX);
    memcpy(name, c, (size_t)(end - c));
    name[end - c] = 0;
    int next = open_dir_at(fd, name);
    if (next < 0 && errno == ENOENT && create) {
        if (mkdirat(fd, name, 0755) == 0) {
            char *made = util_xasprintf("%.*s", (int)(end - path), path);
            rundirs_note(d, made);
            free(made);
        }
        next = open_dir_at(fd, name);
    }
    if (next >= 0)
        return next;
    int e = errno;
    util_err(err, "%.*s: %s", (int)(end - path), path,
             e == ELOOP || e == ENOTDIR ? "a symbolic link or not a directory: refused (nothing below the run "
                                          "directory is reached through a link)"
                                        : strerror(e));
    errno = e; /* ENOENT: a directory missing (rundirs_remove: gone already) */
    return -1;
}

/* path's run directory: its index, or -1 with err when path is not
 * plain or lies below none. */
static long confined(const struct rundirs *d, const char *path, char *err)
{
    if (plain_path(path, err))
        return -1;
    long r = root_of(d, path);
    if (r < 0)
        util_err(err, "%.200s is outside the run directory: the agent reads, writes and removes files only below a "
                 "directory given by mkdir", path);
    return r;
}

/* The directory holding path's last component, reached from path's run
 * directory one component at a time (O_NOFOLLOW: a link refused), its
 * missing directories made (and noted) when create; *leaf is the last
 * component, in path. Returns a descriptor, or -1 with err (errno ENOENT
 * when a directory on the way is missing). */
static int parent_fd(struct rundirs *d, const char *path, int create, const char **leaf, char *err)
{
    long r = confined(d, path, err);
    if (r < 0) {
        errno = EACCES;
        return -1;
    }
    int fd = fcntl(d->root_fds[r], F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return util_err(err, "%s: %s", d->roots[r], strerror(errno));
    for (const char *c = path + strlen(d->roots[r]) + 1;;) {
        const char *e = strchr(c, '/');
        if (!e) {
            *leaf = c;
            return fd;
        }
        int next = step(d, fd, path, c, e, create, err);
        close(fd);
        if (next < 0)
            return -1;
        fd = next;
        c = e + 1;
    }
}

int rundirs_mkdir(struct rundirs *d, const char *dir, int probe, char *err)
{
    char buf[PATH_MAX];
    if (plain_path(dir, err))
        return util_err(err, "the run directory must be a plain absolute path: %.200s", dir ? dir : "(none)");
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p)
            continue;
        char c = *p;
        *p = 0;
        if (mkdir(buf, 0755) == 0)
            rundirs_note(d, buf);
        else if (errno != EEXIST)
            return util_err(err, "cannot create %s: %s", buf, strerror(errno));
        *p = c;
        if (!c)
            break;
    }
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return util_err(err, "cannot create %s: %s", dir, errno ? strerror(errno) : "Not a directory");
    if (!probe)
        return 0;
    snprintf(buf, sizeof buf, "%s/.lb-probe.%d", dir, (int)getpid());
    int fd = open(buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return util_err(err, "cannot write in %s: %s", dir, strerror(errno));
    close(fd);
    unlink(buf);
    return 0;
}

int rundirs_root(struct rundirs *d, const char *dir, char *err)
{
    if (rundirs_mkdir(d, dir, 1, err))
        return -1;
    for (size_t i = 0; i < d->nroots; i++)
        if (!strcmp(d->roots[i], dir))
            return 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return util_err(err, "cannot open %s: %s", dir, strerror(errno));
    if (d->nroots == d->caproots) {
        d->caproots = d->caproots ? d->caproots * 2 : 4;
        d->roots = util_xrealloc(d->roots, d->caproots * sizeof *d->roots);
        d->root_fds = util_xrealloc(d->root_fds, d->caproots * sizeof *d->root_fds);
    }
    d->roots[d->nroots] = util_xstrdup(dir);
    d->root_fds[d->nroots++] = fd;
    return 0;
}

int rundirs_open_read(struct rundirs *d, const char *path, char *err)
{
    const char *leaf;
    int pfd = parent_fd(d, path, 0, &leaf, err);
    if (pfd < 0)
        return -1;
    char e[UTIL_ERR_LEN];
    int fd = fsutil_open_input_at(pfd, leaf, FSUTIL_CAP_STREAM, e);
    close(pfd);
    if (fd < 0)
        util_err(err, "cannot read %.200s: %s", path, e);
    return fd;
}

int rundirs_put(struct rundirs *d, const char *path, uint64_t off, const char *buf, size_t n, int last, mode_t mode,
                char *err)
{
    const char *leaf;
    int pfd = parent_fd(d, path, 1, &leaf, err);
    if (pfd < 0)
        return -1;
    char part[NAME_MAX + 16];
    snprintf(part, sizeof part, "%s.lb-part", leaf);
    int fd = openat(pfd, part, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (off == 0 ? O_TRUNC : 0), 0600);
    int ok = fd >= 0 && pwrite(fd, buf, n, (off_t)off) == (ssize_t)n && (!last || fchmod(fd, mode & 07777) == 0);
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (ok && last && renameat(pfd, part, pfd, leaf))
        ok = 0, e = errno;
    close(pfd);
    return ok ? 0 : util_err(err, "cannot write %.200s: %s", path, strerror(e));
}

int rundirs_check_dir(struct rundirs *d, const char *dir, char *err)
{
    for (size_t i = 0; dir && i < d->nroots; i++)
        if (!strcmp(d->roots[i], dir))
            return 0;
    const char *leaf;
    int pfd = parent_fd(d, dir, 0, &leaf, err);
    if (pfd < 0)
        return -1;
    int fd = open_dir_at(pfd, leaf);
    int e = errno;
    close(pfd);
    if (fd < 0)
        return util_err(err, "%.200s: %s", dir, e == ELOOP || e == ENOTDIR ? "not a directory (a link is not followed)"
                                                                            : strerror(e));
    close(fd);
    return 0;
}

/* Remove name below dirfd, a directory with everything under it, never
 * through a link. Returns 0, or -1 (errno set). */
static int remove_at(int dirfd, const char *name, int depth)
{
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dirfd, name, 0) && errno != ENOENT ? -1 : 0;
    if (depth >= RUNDIRS_DEPTH_MAX) {
        errno = ELOOP;
        return -1;
    }
    int fd = open_dir_at(dirfd, name);
    DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dp) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc |= remove_at(fd, e->d_name, depth + 1);
    closedir(dp);
    return unlinkat(dirfd, name, AT_REMOVEDIR) && errno != ENOENT ? -1 : rc;
}

int rundirs_remove(struct rundirs *d, const char *path, char *err)
{
    if (confined(d, path, err) < 0)
        return -1;
    if (!rundirs_ours(d, path))
        return 0;
    const char *leaf;
    int pfd = parent_fd(d, path, 0, &leaf, err);
    if (pfd < 0)
        return errno == ENOENT ? 1 : -1; /* a missing directory on the way: gone already */
    int rc = remove_at(pfd, leaf, 0) ? util_err(err, "cannot remove %.200s: %s", path, strerror(errno)) : 1;
    close(pfd);
    return rc;
}

static int rmdir_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    if (flag == FTW_DP)
        rmdir(path); /* fails, and stays, while it holds a file */
    return 0;
}

void rundirs_tidy(struct rundirs *d)
{
    for (size_t i = 0; i < d->n; i++) {
        nftw(d->made[i], rmdir_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(d->made[i]);
    }
    for (size_t i = 0; i < d->nroots; i++) {
        close(d->root_fds[i]);
        free(d->roots[i]);
    }
    free(d->made);
    free(d->roots);
    free(d->root_fds);
    *d = (struct rundirs){0};
}
