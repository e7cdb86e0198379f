/* cgroup: one cgroup per tool run, for exact CPU (ns), peak memory, an
 * OOM-enforced memory cap, membership and kill.
 *
 * cgroup v1 is preferred when both the cpuacct and the memory controllers
 * are mounted as v1 hierarchies (as on these machines, where the unified
 * hierarchy holds no cpu/memory controller). The new cgroups are created
 * below our own cgroup in each hierarchy (our memory cgroup is a nested
 * path), found through /proc/self/cgroup and /proc/self/mountinfo. */
#include "common/cgroup.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Write s to an existing control file. Returns 0 or -1 (errno set). */
static int write_text(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(s);
    ssize_t w = write(fd, s, len);
    int e = errno;
    close(fd);
    errno = e;
    return w == (ssize_t)len ? 0 : -1;
}

static int read_u64(const char *path, uint64_t *v)
{
    char buf[64];
    if (fsutil_read_small(path, buf, sizeof buf) <= 0)
        return -1;
    char *end;
    *v = strtoull(buf, &end, 10);
    return end == buf ? -1 : 0;
}

/* "key value" lines (memory.stat, cpu.stat, memory.events, oom_control). */
static uint64_t stat_key(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, key, klen) && p[klen] == ' ')
            return strtoull(p + klen + 1, NULL, 10);
    return 0;
}

/* Is word one of the comma-separated items of list? */
static int has_item(const char *list, size_t list_len, const char *word)
{
    size_t wl = strlen(word);
    const char *p = list, *end = list + list_len;
    while (p < end) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t n = c ? (size_t)(c - p) : (size_t)(end - p);
        if (n == wl && !memcmp(p, word, wl))
            return 1;
        p += n + 1;
    }
    return 0;
}

/* Is word one of the space-separated words of text (cgroup.subtree_control)? */
static int has_word(const char *text, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = text; (p = strstr(p, word)); p += wl)
        if ((p == text || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\n' || p[wl] == '\0'))
            return 1;
    return 0;
}

/* Our cgroup path in the v1 hierarchy holding controller (or, with
 * controller NULL, in the v2 hierarchy). Returns 0 or -1. */
static int own_path(const char *controller, char *out, size_t cap)
{
    char buf[4096];
    if (fsutil_read_small("/proc/self/cgroup", buf, sizeof buf) <= 0)
        return -1;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        const char *ctrls = c1 + 1;
        size_t clen = (size_t)(c2 - ctrls);
        int match = controller ? has_item(ctrls, clen, controller) : (clen == 0 && !strncmp(line, "0:", 2));
        if (match) {
            snprintf(out, cap, "%s", c2 + 1);
            return 0;
        }
    }
    return -1;
}

/* Mount point (and its root within the hierarchy) of the v1 hierarchy
 * holding controller, or of the v2 hierarchy (controller NULL). */
static int mount_of(const char *controller, char *mnt, size_t mcap, char *root, size_t rcap)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char line[4096];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char r[1024], m[1024], fstype[64], opts[1024];
        char *sep = strstr(line, " - ");
        if (!sep || sscanf(line, "%*s %*s %*s %1023s %1023s", r, m) != 2 ||
            sscanf(sep + 3, "%63s %*s %1023s", fstype, opts) != 2)
            continue;
        if (controller ? (!strcmp(fstype, "cgroup") && has_item(opts, strlen(opts), controller))
                       : !strcmp(fstype, "cgroup2")) {
            snprintf(mnt, mcap, "%s", m);
            snprintf(root, rcap, "%s", r);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* The directory of our own cgroup in that hierarchy. */
static int own_dir(const char *controller, char *dir, size_t cap)
{
    char path[1024], mnt[1024], root[1024];
    if (own_path(controller, path, sizeof path) < 0 || mount_of(controller, mnt, sizeof mnt, root, sizeof root) < 0)
        return -1;
    /* A hierarchy mounted from a sub-cgroup shows paths relative to it. */
    const char *rel = path;
    size_t rl = strlen(root);
    if (strcmp(root, "/") && !strncmp(path, root, rl))
        rel = path + rl;
    if (!strcmp(rel, "/"))
        rel = "";
    if ((size_t)snprintf(dir, cap, "%s%s", mnt, rel) >= cap)
        return -1;
    return 0;
}

/* mkdir, replacing a stale empty cgroup of the same name (a crashed run). */
static int make_dir(const char *dir, char *err)
{
    if (mkdir(dir, 0755) == 0)
        return 0;
    if (errno == EEXIST && rmdir(dir) == 0 && mkdir(dir, 0755) == 0)
        return 0;
    return util_err(err, "cannot create cgroup %s: %s%s", dir, strerror(errno),
                    errno == EACCES || errno == EPERM || errno == EROFS
                        ? " (needs root or a delegated cgroup; loadbench falls back to /proc sampling)"
                        : "");
}

static int create_v1(struct cgroup *cg, const char *name, uint64_t limit, char *err)
{
    char cpu_parent[512], mem_parent[512];
    if (own_dir("cpuacct", cpu_parent, sizeof cpu_parent) < 0 || own_dir("memory", mem_parent, sizeof mem_parent) < 0)
        return util_err(err, "no cgroup v1 cpuacct and memory hierarchies are mounted");
    if ((size_t)snprintf(cg->cpu_dir, sizeof cg->cpu_dir, "%s/%s", cpu_parent, name) >= sizeof cg->cpu_dir ||
        (size_t)snprintf(cg->mem_dir, sizeof cg->mem_dir, "%s/%s", mem_parent, name) >= sizeof cg->mem_dir)
        return util_err(err, "cgroup path too long for %s", name);
    if (make_dir(cg->cpu_dir, err) < 0)
        return -1;
    if (make_dir(cg->mem_dir, err) < 0) {
        rmdir(cg->cpu_dir);
        return -1;
    }
    if (limit) {
        char file[600], num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)limit);
        snprintf(file, sizeof file, "%s/memory.limit_in_bytes", cg->mem_dir);
        if (write_text(file, num) < 0) {
            util_err(err, "cannot set the memory limit in %s: %s", file, strerror(errno));
            rmdir(cg->mem_dir);
            rmdir(cg->cpu_dir);
            return -1;
        }
        /* With swap, the cap must cover memory+swap too, or the tool swaps
         * instead of being OOM-killed. Absent without swap accounting. */
        snprintf(file, sizeof file, "%s/memory.memsw.limit_in_bytes", cg->mem_dir);
        if (access(file, W_OK) == 0)
            write_text(file, num);
    }
    cg->v2 = 0;
    snprintf(cg->procs[0], sizeof cg->procs[0], "%s/cgroup.procs", cg->cpu_dir);
    snprintf(cg->procs[1], sizeof cg->procs[1], "%s/cgroup.procs", cg->mem_dir);
    cg->nprocs = 2;
    return 0;
}

static int create_v2(struct cgroup *cg, const char *name, uint64_t limit, char *err)
{
    char parent[512], file[600], buf[512];
    if (own_dir(NULL, parent, sizeof parent) < 0)
        return util_err(err, "no cgroup v2 hierarchy is mounted");
    snprintf(file, sizeof file, "%s/cgroup.subtree_control", parent);
    if (fsutil_read_small(file, buf, sizeof buf) < 0)
        return util_err(err, "cannot read %s: %s", file, strerror(errno));
    int has_cpu = has_word(buf, "cpu"), has_mem = has_word(buf, "memory");
    if ((!has_cpu || !has_mem) && write_text(file, "+cpu +memory") < 0)
        return util_err(err,
                        "cgroup v2: cpu and memory are not enabled for children of %s (%s); delegate a cgroup with "
                        "them enabled, or loadbench falls back to /proc sampling",
                        parent, strerror(errno));
    if ((size_t)snprintf(cg->cpu_dir, sizeof cg->cpu_dir, "%s/%s", parent, name) >= sizeof cg->cpu_dir)
        return util_err(err, "cgroup path too long for %s", name);
    snprintf(cg->mem_dir, sizeof cg->mem_dir, "%s", cg->cpu_dir);
    if (make_dir(cg->cpu_dir, err) < 0)
        return -1;
    if (limit) {
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)limit);
        snprintf(file, sizeof file, "%s/memory.max", cg->mem_dir);
        if (write_text(file, num) < 0) {
            util_err(err, "cannot set the memory limit in %s: %s", file, strerror(errno));
            rmdir(cg->cpu_dir);
            return -1;
        }
        snprintf(file, sizeof file, "%s/memory.swap.max", cg->mem_dir);
        if (access(file, W_OK) == 0)
            write_text(file, "0");
    }
    cg->v2 = 1;
    snprintf(cg->procs[0], sizeof cg->procs[0], "%s/cgroup.procs", cg->cpu_dir);
    cg->nprocs = 1;
    return 0;
}

int cgroup_create_version(struct cgroup *cg, const char *name, uint64_t memory_limit_bytes, int version, char *err)
{
    memset(cg, 0, sizeof *cg);
    if (!name || !*name || strchr(name, '/'))
        return util_err(err, "bad cgroup name \"%s\"", name ? name : "");
    if (version == 1)
        return create_v1(cg, name, memory_limit_bytes, err);
    if (version == 2)
        return create_v2(cg, name, memory_limit_bytes, err);
    char d1[512], d2[512], e1[UTIL_ERR_LEN];
    if (own_dir("cpuacct", d1, sizeof d1) == 0 && own_dir("memory", d2, sizeof d2) == 0)
        return create_v1(cg, name, memory_limit_bytes, err);
    if (own_dir(NULL, d1, sizeof d1) == 0) {
        if (create_v2(cg, name, memory_limit_bytes, e1) == 0)
            return 0;
        return util_err(err, "%s", e1);
    }
    return util_err(err, "no usable cgroup hierarchy (neither v1 cpuacct+memory nor v2 is mounted)");
}

static const struct cgroup_watcher *watcher;

void cgroup_set_watcher(const struct cgroup_watcher *w)
{
    watcher = w;
}

int cgroup_create(struct cgroup *cg, const char *name, uint64_t memory_limit_bytes, char *err)
{
    int rc = cgroup_create_version(cg, name, memory_limit_bytes, 0, err);
    if (rc == 0 && watcher)
        watcher->watch(cg); /* the guardian (#18): emptied if loadbench dies */
    return rc;
}

/* pids listed in one cgroup.procs file; returns count (may exceed max). */
static int list_pids(const char *procs, pid_t *out, int max)
{
    int fd = open(procs, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[8192], part[16];
    int n = 0;
    size_t plen = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                if (plen < sizeof part - 1)
                    part[plen++] = buf[i];
            } else if (plen) {
                part[plen] = '\0';
                if (n < max)
                    out[n] = (pid_t)atoi(part);
                n++;
                plen = 0;
            }
        }
    }
    if (plen) {
        part[plen] = '\0';
        if (n < max)
            out[n] = (pid_t)atoi(part);
        n++;
    }
    close(fd);
    return n;
}

int cgroup_pids(const struct cgroup *cg, pid_t *out, int max)
{
    return list_pids(cg->procs[0], out, max);
}

int cgroup_read(const struct cgroup *cg, struct cgroup_usage *u, char *err)
{
    char file[600], buf[8192];
    memset(u, 0, sizeof *u);
    if (!cg->v2) {
        snprintf(file, sizeof file, "%s/cpuacct.usage", cg->cpu_dir);
        if (read_u64(file, &u->cpu_ns) < 0)
            return util_err(err, "cannot read %s: %s", file, strerror(errno));
        /* cpuacct.usage is exact; cpuacct.usage_user/_sys are tick samples
         * on current kernels that do not add up to it: split the exact
         * total in the ratio of cpuacct.stat's user and system ticks. */
        snprintf(file, sizeof file, "%s/cpuacct.stat", cg->cpu_dir);
        u->cpu_user_ns = u->cpu_ns;
        if (fsutil_read_small(file, buf, sizeof buf) > 0) {
            uint64_t us = stat_key(buf, "user"), sy = stat_key(buf, "system");
            if (us + sy)
                u->cpu_user_ns = (uint64_t)((double)u->cpu_ns * (double)us / (double)(us + sy));
        }
        u->cpu_sys_ns = u->cpu_ns - u->cpu_user_ns;
        snprintf(file, sizeof file, "%s/memory.usage_in_bytes", cg->mem_dir);
        if (read_u64(file, &u->mem_bytes) < 0)
            return util_err(err, "cannot read %s: %s", file, strerror(errno));
        snprintf(file, sizeof file, "%s/memory.max_usage_in_bytes", cg->mem_dir);
        read_u64(file, &u->mem_peak_bytes);
        snprintf(file, sizeof file, "%s/memory.stat", cg->mem_dir);
        if (fsutil_read_small(file, buf, sizeof buf) > 0) {
            /* What /proc's RSS counts: anonymous plus mapped file pages. */
            u->mem_rss_bytes = stat_key(buf, "total_rss") + stat_key(buf, "total_mapped_file");
            u->mem_cache_bytes = stat_key(buf, "total_cache");
        }
        snprintf(file, sizeof file, "%s/memory.oom_control", cg->mem_dir);
        if (fsutil_read_small(file, buf, sizeof buf) > 0)
            u->oom_kills = stat_key(buf, "oom_kill");
    } else {
        snprintf(file, sizeof file, "%s/cpu.stat", cg->cpu_dir);
        if (fsutil_read_small(file, buf, sizeof buf) <= 0)
            return util_err(err, "cannot read %s: %s", file, strerror(errno));
        u->cpu_ns = stat_key(buf, "usage_usec") * 1000u;
        u->cpu_user_ns = stat_key(buf, "user_usec") * 1000u;
        u->cpu_sys_ns = stat_key(buf, "system_usec") * 1000u;
        snprintf(file, sizeof file, "%s/memory.current", cg->mem_dir);
        if (read_u64(file, &u->mem_bytes) < 0)
            return util_err(err, "cannot read %s: %s", file, strerror(errno));
        snprintf(file, sizeof file, "%s/memory.peak", cg->mem_dir); /* Linux 5.19+ */
        read_u64(file, &u->mem_peak_bytes);
        snprintf(file, sizeof file, "%s/memory.stat", cg->mem_dir);
        if (fsutil_read_small(file, buf, sizeof buf) > 0) {
            u->mem_rss_bytes = stat_key(buf, "anon") + stat_key(buf, "file_mapped");
            u->mem_cache_bytes = stat_key(buf, "file");
        }
        snprintf(file, sizeof file, "%s/memory.events", cg->mem_dir);
        if (fsutil_read_small(file, buf, sizeof buf) > 0)
            u->oom_kills = stat_key(buf, "oom_kill");
    }
    u->nprocs = list_pids(cg->procs[0], NULL, 0);
    return 0;
}

/* Members still alive (zombies waiting for their reaper do not count). */
static int live_members(const struct cgroup *cg, int do_kill)
{
    int live = 0;
    for (int k = 0; k < cg->nprocs; k++) {
        pid_t pids[1024];
        int n = list_pids(cg->procs[k], pids, 1024);
        if (n > 1024)
            n = 1024; /* the rest are seen on the next round */
        for (int i = 0; i < n; i++) {
            char path[64], buf[512];
            snprintf(path, sizeof path, "/proc/%d/stat", (int)pids[i]);
            if (fsutil_read_small(path, buf, sizeof buf) <= 0)
                continue;
            char *p = strrchr(buf, ')');
            if (p && (p[2] == 'Z' || p[2] == 'X'))
                continue;
            live++;
            if (do_kill)
                kill(pids[i], SIGKILL);
        }
    }
    return live;
}

int cgroup_kill_all(const struct cgroup *cg, char *err)
{
    char file[600];
    if (cg->v2) {
        /* Linux 5.14+: the kernel kills every member at once, forks included. */
        snprintf(file, sizeof file, "%s/cgroup.kill", cg->cpu_dir);
        if (access(file, W_OK) == 0)
            write_text(file, "1");
    }
    /* Kill until none is left: members may fork while we kill them. */
    uint64_t deadline = util_now_ns() + 3000000000ull;
    for (;;) {
        int live = live_members(cg, 1);
        if (!live)
            return 0;
        if (util_now_ns() >= deadline)
            return util_err(err, "%d process(es) in cgroup %s survive SIGKILL after 3 s", live, cg->cpu_dir);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

int cgroup_destroy(struct cgroup *cg, char *err)
{
    const char *dirs[2] = {cg->cpu_dir, cg->v2 ? NULL : cg->mem_dir};
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        if (!dirs[i] || !dirs[i][0])
            continue;
        /* Just-killed members leave the cgroup asynchronously: retry a bit. */
        int ok = 0;
        for (int tries = 0; tries < 200; tries++) {
            if (rmdir(dirs[i]) == 0 || errno == ENOENT) {
                ok = 1;
                break;
            }
            if (errno != EBUSY)
                break;
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
        if (!ok && rc == 0)
            rc = util_err(err, "cannot remove cgroup %s: %s (a member still running?)", dirs[i], strerror(errno));
    }
    if (rc == 0 && watcher)
        watcher->forget(cg); /* the guardian (#18) */
    return rc;
}

/* Sweep one parent directory; v2 tells how to fill a struct cgroup. */
static int sweep_dir(const char *parent, const char *prefix, int v2, int (*owner_dead)(const char *, const char **),
                     int *removed, char *err)
{
    DIR *d = opendir(parent);
    if (!d)
        return 0;
    size_t plen = strlen(prefix);
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, prefix, plen))
            continue;
        /* "<prefix>PID.START.PIDNS-..." (runlock_tag): swept only when
         * its loadbench is proven dead by pid and start time in our pid
         * namespace. The older "<prefix>PID-..." proves nothing (a pid is
         * reused; the hierarchy may be shared with other containers): kept. */
        const char *rest;
        if (owner_dead(de->d_name + plen, &rest) != 1 || *rest != '-')
            continue;
        struct cgroup cg;
        memset(&cg, 0, sizeof cg);
        cg.v2 = v2;
        if ((size_t)snprintf(cg.cpu_dir, sizeof cg.cpu_dir, "%s/%s", parent, de->d_name) >= sizeof cg.cpu_dir)
            continue;
        snprintf(cg.mem_dir, sizeof cg.mem_dir, "%s", cg.cpu_dir);
        snprintf(cg.procs[0], sizeof cg.procs[0], "%s/cgroup.procs", cg.cpu_dir);
        cg.nprocs = 1;
        /* One hierarchy at a time: mem_dir == cpu_dir, rmdir'd once. */
        if (cgroup_kill_all(&cg, err) < 0 || cgroup_destroy(&cg, err) < 0) {
            rc = -1;
            continue;
        }
        (*removed)++;
    }
    closedir(d);
    return rc;
}

int cgroup_sweep_stale(const char *prefix, int (*owner_dead)(const char *tag, const char **rest), char *err)
{
    char dir[512];
    int removed = 0, rc = 0;
    if (!prefix || !*prefix || strchr(prefix, '/'))
        return util_err(err, "bad cgroup prefix \"%s\"", prefix ? prefix : "");
    if (own_dir("cpuacct", dir, sizeof dir) == 0 && sweep_dir(dir, prefix, 0, owner_dead, &removed, err) < 0)
        rc = -1;
    if (own_dir("memory", dir, sizeof dir) == 0 && sweep_dir(dir, prefix, 0, owner_dead, &removed, err) < 0)
        rc = -1;
    if (own_dir(NULL, dir, sizeof dir) == 0 && sweep_dir(dir, prefix, 1, owner_dead, &removed, err) < 0)
        rc = -1;
    return rc < 0 ? -1 : removed;
}
