/* rundirs: what an agent made for a run, removed by it and only by it. */
#include "agent/rundirs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int rundirs_mkdir(struct rundirs *d, const char *dir, int probe, char *err)
{
    char buf[PATH_MAX];
    if (dir[0] != '/' || strlen(dir) >= sizeof buf - 32)
        return util_err(err, "the run directory must be an absolute path shorter than %zu bytes: %s",
                        sizeof buf - 32, dir);
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

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) && errno != ENOENT ? -1 : 0;
}

int rundirs_remove(struct rundirs *d, const char *path, char *err)
{
    if (!path || path[0] != '/' || strstr(path, "/../") || !rundirs_ours(d, path))
        return 0;
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
        return util_err(err, "cannot remove %s: %s", path, strerror(errno));
    return 1;
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
    free(d->made);
    *d = (struct rundirs){0};
}
