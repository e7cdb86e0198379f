/* sampler: CPU, memory, processes and I/O of a process tree from /proc.
 *
 * Why direct /proc reads and not libproc2: per member we need three small
 * files (stat: ticks, threads, RSS; status: VmHWM; io: bytes written) plus
 * the children lists that find the tree. libproc2's pids API reads a fixed
 * set of files for every selected item and allocates result stacks each
 * time, has no children walk and no /proc/PID/io; reading the three files
 * into a stack buffer is fewer syscalls and no allocation, which matters at
 * 100 ms intervals (see bench/sampler.sh for the measured cost). */
#include "engine/sampler.h"
#include "engine/proc.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* What we remember of one member between readings. Its ticks include its
 * reaped children's (cutime/cstime) and its io includes theirs too (the
 * kernel adds both to the parent on wait), so a member reaped by another
 * member hands its whole total to the parent: see sampler_tree_sample. */
struct member {
    pid_t pid;
    pid_t ppid;
    uint64_t start_time; /* /proc/PID/stat field 22: tells a reused pid apart */
    uint64_t user_ticks, sys_ticks;
    uint64_t write_bytes, wchar_bytes;
    unsigned gen; /* reading in which it was last seen */
};

/* One thread's CPU so far, for the busiest-thread figure, and its time
 * so far runnable but waiting for a CPU (schedstat's run_delay). */
struct thr {
    pid_t tid;
    uint64_t cpu_ns;
    uint64_t wait_ns;
};

struct sampler_tree {
    pid_t root;
    uint64_t root_start; /* the root's start time: tells a reused root pid apart */
    pid_t adopt_pgrp;    /* our children in this process group belong to the tree (0: none) */
    char *cgroup_procs;
    uint64_t t0_ns;
    long hz;
    long page_bytes;
    unsigned gen;

    struct member *m;
    int n, cap;
    /* Totals of members that left without a member to inherit them. */
    uint64_t gone_user, gone_sys, gone_write, gone_wchar;

    /* Visit queue of the current reading. */
    pid_t *q;
    int nq, qcap;
    char *buf; /* for children / cgroup.procs lists, which can be long */
    size_t bufcap;

    /* CPU from the cgroup: v1 cpuacct.usage (+ cpuacct.stat for the
     * user/system split) or v2 cpu.stat (cg_usage NULL). */
    char *cg_usage, *cg_stat;

    /* This reading's threads and the last one's, both sorted by tid once
     * complete, and the largest CPU any one thread used in between. */
    struct thr *thr, *thr_prev;
    int nthr, nthr_prev, thr_cap, thr_prev_cap;
    int thr_prev_all;   /* the last reading exists and read every thread */
    uint64_t thr_max_ns;
    uint64_t thr_wait_ns; /* the run-queue wait of every thread in between, summed */

    int have_prev;
    struct sampler_reading prev, first;

    /* Summary accumulators. */
    int npoints;
    uint64_t sum_cpu_ns;
    double sum_s, cpu_peak_pct, rss_peak_mb, rss_mb_s, hwm_peak_mb;
    int procs_peak, threads_peak;
    double thr_peak_pct;
};

static void q_push(struct sampler_tree *t, pid_t pid)
{
    for (int i = 0; i < t->nq; i++)
        if (t->q[i] == pid)
            return;
    if (t->nq == t->qcap) {
        t->qcap = t->qcap ? t->qcap * 2 : 64;
        t->q = util_xrealloc(t->q, (size_t)t->qcap * sizeof *t->q);
    }
    t->q[t->nq++] = pid;
}

static void q_push_child(pid_t pid, void *arg)
{
    q_push(arg, pid);
}

/* Queue pid's children, from each of its threads' children file. */
static void q_push_children(struct sampler_tree *t, pid_t pid, int nthreads)
{
    proc_each_child(pid, nthreads, &t->buf, &t->bufcap, q_push_child, t);
}

struct pstat {
    char state;
    pid_t ppid, pgrp;
    uint64_t utime, stime, cutime, cstime, start_time, rss_pages;
    int nthreads;
};

static int read_stat(pid_t pid, struct pstat *ps)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (fsutil_read_small(path, buf, sizeof buf) <= 0)
        return -1;
    /* comm may hold spaces and ')': the fields start after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    unsigned long long ut, st, cut, cst, start, rss;
    int ppid, pgrp, nth;
    char state;
    /* fields 3..24: state ppid pgrp session tty tpgid flags minflt cminflt
     * majflt cmajflt utime stime cutime cstime priority nice num_threads
     * itrealvalue starttime vsize rss */
    if (sscanf(p + 1, " %c %d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu %*d %*d %d %*d %llu %*u %llu", &state,
               &ppid, &pgrp, &ut, &st, &cut, &cst, &nth, &start, &rss) != 10)
        return -1;
    ps->state = state;
    ps->ppid = ppid;
    ps->pgrp = pgrp;
    ps->utime = ut;
    ps->stime = st;
    ps->cutime = cut;
    ps->cstime = cst;
    ps->nthreads = nth;
    ps->start_time = start;
    ps->rss_pages = rss;
    return 0;
}

/* VmHWM from /proc/PID/status, bytes (0 if absent, e.g. kernel threads). */
static uint64_t read_hwm(pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (fsutil_read_small(path, buf, sizeof buf) <= 0)
        return 0;
    char *p = strstr(buf, "\nVmHWM:");
    if (!p)
        return 0;
    return strtoull(p + 7, NULL, 10) * 1024u;
}

/* write_bytes and wchar from /proc/PID/io (needs root or the same user). */
static void read_io(pid_t pid, uint64_t *write_bytes, uint64_t *wchar)
{
    char path[64], buf[512];
    *write_bytes = *wchar = 0;
    snprintf(path, sizeof path, "/proc/%d/io", (int)pid);
    if (fsutil_read_small(path, buf, sizeof buf) <= 0)
        return;
    char *p = strstr(buf, "wchar:");
    if (p)
        *wchar = strtoull(p + 6, NULL, 10);
    p = strstr(buf, "\nwrite_bytes:");
    if (p)
        *write_bytes = strtoull(p + 13, NULL, 10);
}

/* A thread's CPU so far in ns, read relative to task, its process's
 * /proc/PID/task (one path lookup less per thread): schedstat's first
 * field, the scheduler's exact runtime, and its second, the time spent
 * runnable on a run queue waiting for a CPU (*wait); where the kernel has
 * no schedstat, utime + stime from the thread's stat (10 ms ticks) and no
 * wait (0). Returns 0, or -1 when it is gone. */
static int read_thread_cpu(const struct sampler_tree *t, int task, const char *tid, uint64_t *ns, uint64_t *wait)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "%s/schedstat", tid);
    int fd = openat(task, path, O_RDONLY | O_CLOEXEC);
    int stat = fd < 0;
    if (stat) {
        snprintf(path, sizeof path, "%s/stat", tid);
        if ((fd = openat(task, path, O_RDONLY | O_CLOEXEC)) < 0)
            return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    *wait = 0;
    if (!stat) {
        char *end;
        *ns = strtoull(buf, &end, 10);
        *wait = strtoull(end, NULL, 10);
        return 0;
    }
    unsigned long long ut, st;
    const char *p = strrchr(buf, ')');
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    *ns = (ut + st) * 1000000000u / (uint64_t)t->hz;
    return 0;
}

static void thr_add(struct sampler_tree *t, struct sampler_reading *r, int task, const char *tid)
{
    uint64_t ns, wait;
    if (t->nthr >= SAMPLER_THREADS_MAX) {
        r->threads_unscanned++;
        return;
    }
    if (read_thread_cpu(t, task, tid, &ns, &wait) < 0)
        return;
    if (t->nthr == t->thr_cap) {
        t->thr_cap = t->thr_cap ? t->thr_cap * 2 : 64;
        t->thr = util_xrealloc(t->thr, (size_t)t->thr_cap * sizeof *t->thr);
    }
    t->thr[t->nthr++] = (struct thr){(pid_t)atoi(tid), ns, wait};
}

/* Every thread of pid into this reading's table (bounded by
 * SAMPLER_THREADS_MAX for the whole tree). */
static void scan_threads(struct sampler_tree *t, struct sampler_reading *r, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
            thr_add(t, r, dirfd(d), e->d_name);
    closedir(d);
}

static int thr_cmp(const void *a, const void *b)
{
    pid_t x = ((const struct thr *)a)->tid, y = ((const struct thr *)b)->tid;
    return (x > y) - (x < y);
}

/* The largest CPU one thread used since the last reading, and the
 * threads' run-queue wait since then summed, then this reading's table
 * becomes the last one. A thread the last reading did not see was born
 * since, when that reading saw every thread: all its CPU and wait are the
 * interval's (else it is left out: nothing to subtract). A thread that
 * exited in between takes its last interval's wait with it. */
static void threads_busiest(struct sampler_tree *t, const struct sampler_reading *r)
{
    if (t->nthr > 1) /* qsort and bsearch take no NULL table, even empty */
        qsort(t->thr, (size_t)t->nthr, sizeof *t->thr, thr_cmp);
    t->thr_max_ns = 0;
    t->thr_wait_ns = 0;
    for (int i = 0; i < t->nthr; i++) {
        const struct thr *p = t->nthr_prev > 0 ? bsearch(&t->thr[i], t->thr_prev, (size_t)t->nthr_prev,
                                                         sizeof *t->thr_prev, thr_cmp)
                                               : NULL;
        uint64_t was = p ? p->cpu_ns : t->thr_prev_all ? 0 : UINT64_MAX;
        if (was != UINT64_MAX && t->thr[i].cpu_ns > was && t->thr[i].cpu_ns - was > t->thr_max_ns)
            t->thr_max_ns = t->thr[i].cpu_ns - was;
        uint64_t waited = p ? p->wait_ns : 0;
        if (was != UINT64_MAX && t->thr[i].wait_ns > waited)
            t->thr_wait_ns += t->thr[i].wait_ns - waited;
    }
    t->thr_prev_all = r->threads_unscanned == 0;
    struct thr *swap = t->thr_prev;
    int cap = t->thr_prev_cap;
    t->thr_prev = t->thr;
    t->thr_prev_cap = t->thr_cap;
    t->nthr_prev = t->nthr;
    t->thr = swap;
    t->thr_cap = cap;
    t->nthr = 0;
}

static struct member *find_member(struct sampler_tree *t, pid_t pid)
{
    for (int i = 0; i < t->n; i++)
        if (t->m[i].pid == pid)
            return &t->m[i];
    return NULL;
}

/* A member is gone from /proc: if its last parent is a member still here,
 * that parent reaped it and the kernel moved the member's ticks and io into
 * the parent's (cutime/cstime, io): nothing to keep. Otherwise (reaped by
 * us, outside the tree) keep its last seen totals. What it did between our
 * last look and its exit is lost either way only in the second case; the
 * exact total comes from wait4 or the cgroup. (A parent that ignores
 * SIGCHLD reaps without inheriting: that child's ticks are lost here.) */
static void member_gone(struct sampler_tree *t, struct member *m)
{
    struct member *parent = find_member(t, m->ppid);
    if (parent && parent->gen == t->gen)
        return;
    t->gone_user += m->user_ticks;
    t->gone_sys += m->sys_ticks;
    t->gone_write += m->write_bytes;
    t->gone_wchar += m->wchar_bytes;
}

/* Queue our own children that are in the tool's process group: orphans of
 * the tool whose parent exited before any reading saw it. */
static void adopt_orphans(struct sampler_tree *t)
{
    int first = t->nq;
    q_push_children(t, getpid(), 2);
    int w = first;
    for (int i = first; i < t->nq; i++) {
        struct pstat ps;
        if (read_stat(t->q[i], &ps) == 0 && ps.pgrp == t->adopt_pgrp)
            t->q[w++] = t->q[i];
    }
    t->nq = w;
}

/* The cgroup's CPU counters in ns. Returns 0, or -1 when it has none.
 * v1: cpuacct.usage is the scheduler's exact runtime; cpuacct.usage_user
 * and _sys are only tick samples on current kernels (they do not even add
 * up to usage), so the exact total is split in the ratio of cpuacct.stat's
 * user and system ticks. */
static int read_cgroup_cpu(const struct sampler_tree *t, uint64_t *user_ns, uint64_t *sys_ns)
{
    char buf[1024];
    if (t->cg_usage) {
        if (fsutil_read_small(t->cg_usage, buf, sizeof buf) <= 0)
            return -1;
        uint64_t total = strtoull(buf, NULL, 10);
        uint64_t us = 0, sy = 0;
        if (fsutil_read_small(t->cg_stat, buf, sizeof buf) > 0) {
            char *u = strstr(buf, "user "), *s = strstr(buf, "system ");
            us = u ? strtoull(u + 5, NULL, 10) : 0;
            sy = s ? strtoull(s + 7, NULL, 10) : 0;
        }
        *user_ns = us + sy ? (uint64_t)((double)total * (double)us / (double)(us + sy)) : total;
        *sys_ns = total - *user_ns;
        return 0;
    }
    if (t->cg_stat) {
        if (fsutil_read_small(t->cg_stat, buf, sizeof buf) <= 0)
            return -1;
        char *u = strstr(buf, "user_usec "), *s = strstr(buf, "system_usec ");
        if (!u || !s)
            return -1;
        *user_ns = strtoull(u + 10, NULL, 10) * 1000u;
        *sys_ns = strtoull(s + 12, NULL, 10) * 1000u;
        return 0;
    }
    return -1;
}

struct sampler_tree *sampler_tree_new(pid_t root, const char *cgroup_procs, char *err)
{
    char path[64];
    if (cgroup_procs) {
        if (access(cgroup_procs, R_OK) < 0) {
            util_err(err, "cannot read cgroup members from %s: %s", cgroup_procs, strerror(errno));
            return NULL;
        }
    } else {
        snprintf(path, sizeof path, "/proc/%d/stat", (int)root);
        if (root <= 0 || access(path, R_OK) < 0) {
            util_err(err, "cannot sample process %d: it does not exist (exited already?)", (int)root);
            return NULL;
        }
    }
    struct sampler_tree *t = util_xcalloc(1, sizeof *t);
    t->root = root;
    if (cgroup_procs) {
        const char *slash = strrchr(cgroup_procs, '/');
        int dlen = slash ? (int)(slash - cgroup_procs) : 1;
        const char *dir = slash ? cgroup_procs : ".";
        char *u = util_xasprintf("%.*s/cpuacct.usage", dlen, dir);
        char *c = util_xasprintf("%.*s/cpuacct.stat", dlen, dir);
        char *st = util_xasprintf("%.*s/cpu.stat", dlen, dir);
        if (access(u, R_OK) == 0) {
            t->cg_usage = u;
            t->cg_stat = c;
            free(st);
        } else {
            free(u);
            free(c);
            if (access(st, R_OK) == 0)
                t->cg_stat = st;
            else
                free(st);
        }
    }
    struct pstat ps;
    if (!cgroup_procs && read_stat(root, &ps) == 0) {
        t->root_start = ps.start_time;
        /* A tool spawned by proc_spawn leads its own process group: its
         * orphans re-parented to us (a subreaper) that stayed in the group
         * are adopted even if we never saw their short-lived parent. */
        if (ps.pgrp == root && root != getpgrp())
            t->adopt_pgrp = root;
    }
    t->cgroup_procs = cgroup_procs ? util_xstrdup(cgroup_procs) : NULL;
    t->t0_ns = util_now_ns();
    t->hz = sysconf(_SC_CLK_TCK);
    if (t->hz <= 0)
        t->hz = 100;
    t->page_bytes = sysconf(_SC_PAGESIZE);
    if (t->page_bytes <= 0)
        t->page_bytes = 4096;
    return t;
}

void sampler_tree_free(struct sampler_tree *t)
{
    if (!t)
        return;
    free(t->cgroup_procs);
    free(t->cg_usage);
    free(t->cg_stat);
    free(t->m);
    free(t->q);
    free(t->buf);
    free(t->thr);
    free(t->thr_prev);
    free(t);
}

/* Who is in the tree: the cgroup's members, or a walk of children from
 * the root and from every member seen before (orphans re-parented to the
 * harness, a subreaper, are no longer below the root). */
static void sample_queue(struct sampler_tree *t)
{
    if (t->cgroup_procs) {
        proc_each_listed(t->cgroup_procs, &t->buf, &t->bufcap, q_push_child, t);
    } else {
        q_push(t, t->root);
        for (int i = 0; i < t->n; i++)
            q_push(t, t->m[i].pid);
        if (t->adopt_pgrp)
            adopt_orphans(t);
    }

}

/* Read every queued process (the walk queues children as it goes) into its
 * member entry and the reading's memory and counts. Returns how many are
 * alive (not zombies). */
static int sample_members(struct sampler_tree *t, struct sampler_reading *r)
{
    int live = 0;
    for (int i = 0; i < t->nq; i++) { /* t->nq grows as children are queued */
        pid_t pid = t->q[i];
        struct pstat ps;
        if (read_stat(pid, &ps) < 0)
            continue;
        if (pid == t->root && !t->cgroup_procs && ps.start_time != t->root_start)
            continue; /* the root's pid was reused by someone else */
        struct member *m = find_member(t, pid);
        if (m && m->start_time != ps.start_time) {
            /* The pid was reused. In a cgroup it is a new member; in a walk
             * only if its parent is a member (else it is not ours). The old
             * entry is folded in as gone below. */
            struct member *parent = find_member(t, ps.ppid);
            if (!t->cgroup_procs && !(parent && parent->gen == t->gen))
                continue;
            m->gen = t->gen - 1;
            m->pid = 0; /* so find_member no longer finds it */
            m = NULL;
        }
        int zombie = ps.state == 'Z' || ps.state == 'X';
        if (!m) {
            if (t->n == t->cap) {
                t->cap = t->cap ? t->cap * 2 : 16;
                t->m = util_xrealloc(t->m, (size_t)t->cap * sizeof *t->m);
            }
            m = &t->m[t->n++];
            memset(m, 0, sizeof *m);
            m->pid = pid;
            m->start_time = ps.start_time;
        }
        m->gen = t->gen;
        m->ppid = ps.ppid;
        m->user_ticks = ps.utime + ps.cutime;
        m->sys_ticks = ps.stime + ps.cstime;
        if (!zombie) {
            /* A zombie's io can no longer be read: keep its last values. */
            read_io(pid, &m->write_bytes, &m->wchar_bytes);
            uint64_t rss = ps.rss_pages * (uint64_t)t->page_bytes;
            uint64_t hwm = read_hwm(pid);
            r->rss_bytes += rss;
            if (rss > r->max_proc_rss_bytes)
                r->max_proc_rss_bytes = rss;
            if (hwm > r->hwm_bytes)
                r->hwm_bytes = hwm;
            r->nprocs++;
            r->nthreads += ps.nthreads;
            scan_threads(t, r, pid);
            live++;
            if (!t->cgroup_procs)
                q_push_children(t, pid, ps.nthreads);
        }
    }
    return live;
}

/* Members not seen now are gone: fold them in, drop them, and sum the
 * CPU and io totals (the cgroup's CPU where it has one). */
static void sample_totals(struct sampler_tree *t, struct sampler_reading *r)
{
    for (int i = 0; i < t->n; i++)
        if (t->m[i].gen != t->gen)
            member_gone(t, &t->m[i]);
    int w = 0;
    for (int i = 0; i < t->n; i++)
        if (t->m[i].gen == t->gen)
            t->m[w++] = t->m[i];
    t->n = w;

    r->cpu_user_ticks = t->gone_user;
    r->cpu_sys_ticks = t->gone_sys;
    r->write_bytes = t->gone_write;
    r->wchar_bytes = t->gone_wchar;
    for (int i = 0; i < t->n; i++) {
        r->cpu_user_ticks += t->m[i].user_ticks;
        r->cpu_sys_ticks += t->m[i].sys_ticks;
        r->write_bytes += t->m[i].write_bytes;
        r->wchar_bytes += t->m[i].wchar_bytes;
    }
    r->cpu_ticks = r->cpu_user_ticks + r->cpu_sys_ticks;
    if (read_cgroup_cpu(t, &r->cpu_user_ns, &r->cpu_sys_ns) == 0) {
        r->cpu_from_cgroup = 1;
    } else {
        r->cpu_user_ns = r->cpu_user_ticks * 1000000000u / (uint64_t)t->hz;
        r->cpu_sys_ns = r->cpu_sys_ticks * 1000000000u / (uint64_t)t->hz;
    }
    r->cpu_ns = r->cpu_user_ns + r->cpu_sys_ns;

}

/* The peaks so far, and the point since the previous reading. Returns 1
 * when point was filled, 0 on the first reading. */
static int sample_point(struct sampler_tree *t, const struct sampler_reading *r, struct sampler_point *point)
{
    double rss_mb = (double)r->rss_bytes / 1e6;
    if (rss_mb > t->rss_peak_mb)
        t->rss_peak_mb = rss_mb;
    if ((double)r->hwm_bytes / 1e6 > t->hwm_peak_mb)
        t->hwm_peak_mb = (double)r->hwm_bytes / 1e6;
    if (r->nprocs > t->procs_peak)
        t->procs_peak = r->nprocs;
    if (r->nthreads > t->threads_peak)
        t->threads_peak = r->nthreads;

    int filled = 0;
    if (t->have_prev) {
        const struct sampler_reading *p = &t->prev;
        double dt = (double)(r->t_ns - p->t_ns) / 1e9;
        /* Totals only grow; guard anyway against a member mis-attributed. */
        uint64_t du = r->cpu_user_ns > p->cpu_user_ns ? r->cpu_user_ns - p->cpu_user_ns : 0;
        uint64_t ds = r->cpu_sys_ns > p->cpu_sys_ns ? r->cpu_sys_ns - p->cpu_sys_ns : 0;
        uint64_t dw = r->write_bytes > p->write_bytes ? r->write_bytes - p->write_bytes : 0;
        memset(point, 0, sizeof *point);
        point->t_s = (double)(r->t_ns - t->t0_ns) / 1e9;
        point->interval_s = dt;
        if (dt > 0) {
            point->cpu_user_pct = 100.0 * (double)du / 1e9 / dt;
            point->cpu_sys_pct = 100.0 * (double)ds / 1e9 / dt;
            point->write_mb_s = (double)dw / 1e6 / dt;
        }
        point->cpu_pct = point->cpu_user_pct + point->cpu_sys_pct;
        if (dt > 0) {
            point->thread_max_pct = 100.0 * (double)t->thr_max_ns / 1e9 / dt;
            point->wait_pct = 100.0 * (double)t->thr_wait_ns / 1e9 / dt;
        }
        if (point->thread_max_pct > t->thr_peak_pct)
            t->thr_peak_pct = point->thread_max_pct;
        point->rss_mb = rss_mb;
        point->nprocs = r->nprocs;
        point->nthreads = r->nthreads;

        t->npoints++;
        t->sum_cpu_ns += du + ds;
        t->sum_s += dt;
        t->rss_mb_s += rss_mb * dt;
        if (point->cpu_pct > t->cpu_peak_pct)
            t->cpu_peak_pct = point->cpu_pct;
        filled = 1;
    } else {
        t->first = *r;
    }
    t->prev = *r;
    t->have_prev = 1;
    return filled;
}

int sampler_tree_sample(struct sampler_tree *t, struct sampler_reading *r, struct sampler_point *point)
{
    memset(r, 0, sizeof *r);
    t->gen++;
    t->nq = 0;
    sample_queue(t);
    int live = sample_members(t, r);
    r->t_ns = util_now_ns();
    threads_busiest(t, r);
    sample_totals(t, r);
    if (!live)
        return -1;
    return sample_point(t, r, point);
}

void sampler_tree_summary(const struct sampler_tree *t, struct sampler_summary *s)
{
    memset(s, 0, sizeof *s);
    s->npoints = t->npoints;
    if (t->sum_s > 0) {
        s->cpu_avg_pct = 100.0 * (double)t->sum_cpu_ns / 1e9 / t->sum_s;
        s->rss_avg_mb = t->rss_mb_s / t->sum_s;
    }
    s->cpu_peak_pct = t->cpu_peak_pct;
    s->rss_peak_mb = t->rss_peak_mb;
    s->max_proc_hwm_mb = t->hwm_peak_mb;
    s->procs_peak = t->procs_peak;
    s->threads_peak = t->threads_peak;
    s->thread_max_peak_pct = t->thr_peak_pct;
    if (t->have_prev && t->prev.write_bytes > t->first.write_bytes)
        s->write_mb = (double)(t->prev.write_bytes - t->first.write_bytes) / 1e6;
}

static int parse_cpu_line(const char *line, struct sampler_machine *m)
{
    unsigned long long v[8] = {0};
    const char *p = line;
    while (*p && *p != ' ')
        p++;
    if (sscanf(p, " %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 4)
        return -1;
    m->user = v[0];
    m->nice = v[1];
    m->system = v[2];
    m->idle = v[3];
    m->iowait = v[4];
    m->irq = v[5];
    m->softirq = v[6];
    m->steal = v[7];
    /* guest time is already inside user: not added again. */
    m->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    return 0;
}

int sampler_machine_read(struct sampler_machine *m, char *err)
{
    char buf[512];
    memset(m, 0, sizeof *m);
    if (fsutil_read_small("/proc/stat", buf, sizeof buf) <= 0)
        return util_err(err, "cannot read /proc/stat: %s", strerror(errno));
    if (strncmp(buf, "cpu ", 4) || parse_cpu_line(buf, m) < 0)
        return util_err(err, "cannot parse the first line of /proc/stat");
    return 0;
}

int sampler_machine_read_cpus(struct sampler_machine *cpus, int max, char *err)
{
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return util_err(err, "cannot read /proc/stat: %s", strerror(errno));
    /* /proc/stat can be long (interrupt counts): read just enough lines. */
    size_t cap = 65536, len = 0;
    char *buf = util_xmalloc(cap);
    int n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + len, cap - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len + 1 >= cap) {
            cap *= 2;
            buf = util_xrealloc(buf, cap);
        }
    }
    close(fd);
    buf[len] = '\0';
    for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "cpu", 3))
            break;
        if (line[3] < '0' || line[3] > '9')
            continue;
        struct sampler_machine m;
        memset(&m, 0, sizeof m);
        if (parse_cpu_line(line, &m) < 0)
            continue;
        if (n < max)
            cpus[n] = m;
        n++;
    }
    free(buf);
    if (!n)
        return util_err(err, "no per-CPU lines in /proc/stat");
    return n;
}

int sampler_wait_tick(uint64_t *deadline_ns, uint64_t interval_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(*deadline_ns / 1000000000u), .tv_nsec = (long)(*deadline_ns % 1000000000u)};
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    if (rc == EINTR)
        return -1;
    uint64_t now = util_now_ns();
    *deadline_ns += interval_ns;
    /* Late (a stalled machine): skip missed deadlines rather than burst. */
    if (*deadline_ns <= now && interval_ns)
        *deadline_ns += ((now - *deadline_ns) / interval_ns + 1) * interval_ns;
    return 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This thread's run-queue wait so far (ns), 0 without schedstat. */
static uint64_t self_run_delay_ns(void)
{
    char buf[128];
    unsigned long long run = 0, delay = 0;
    if (fsutil_read_small("/proc/thread-self/schedstat", buf, sizeof buf) <= 0 ||
        sscanf(buf, "%llu %llu", &run, &delay) != 2)
        return 0;
    return delay;
}

void sampler_gaps_start(struct sampler_gaps *g, uint64_t interval_ns)
{
    memset(g, 0, sizeof *g);
    g->interval_ns = interval_ns;
    g->mono_ns = clock_ns(CLOCK_MONOTONIC);
    g->boot_ns = clock_ns(CLOCK_BOOTTIME);
    g->delay_ns = self_run_delay_ns();
}

int sampler_gaps_look(struct sampler_gaps *g)
{
    uint64_t mono = clock_ns(CLOCK_MONOTONIC), boot = clock_ns(CLOCK_BOOTTIME), delay = self_run_delay_ns();
    uint64_t dboot = boot - g->boot_ns, dmono = mono - g->mono_ns;
    g->last_was_gap = g->interval_ns && dboot > 2 * g->interval_ns;
    if (g->last_was_gap) {
        g->n++;
        g->total_ns += dboot;
        g->longest_ns = dboot > g->longest_ns ? dboot : g->longest_ns;
        g->suspended_ns += dboot > dmono ? dboot - dmono : 0;
        g->queued_ns += delay > g->delay_ns ? delay - g->delay_ns : 0;
        g->gap_from_ns = g->mono_ns;
    }
    g->mono_ns = mono;
    g->boot_ns = boot;
    g->delay_ns = delay;
    return g->last_was_gap;
}

int sampler_gaps_say(const struct sampler_gaps *g, char *buf, size_t len)
{
    if (!g->n)
        return 0;
    char many[96] = "";
    uint64_t known = g->suspended_ns + g->queued_ns;
    double rest = g->total_ns > known ? (double)(g->total_ns - known) / 1e9 : 0;
    if (g->n > 1)
        snprintf(many, sizeof many, " in %d gaps, the longest %.1f s,", g->n, (double)g->longest_ns / 1e9);
    snprintf(buf, len,
             "loadbench was not scheduled for %.1f s: footprint figures not judged (its looks at the tool, every "
             "%.0f ms, stopped%s for more than 2 intervals: %.1f s neither running nor runnable (stopped, e.g. by "
             "SIGSTOP, or blocked), %.1f s waiting for a CPU, %.1f s with the machine suspended)",
             (double)g->total_ns / 1e9, (double)g->interval_ns / 1e6, many, rest, (double)g->queued_ns / 1e9,
             (double)g->suspended_ns / 1e9);
    return 1;
}

void sampler_csv_header(FILE *f)
{
    fputs("t_s,interval_s,cpu_pct,cpu_user_pct,cpu_sys_pct,rss_mb,nprocs,nthreads,write_mb_s,thread_max_pct,wait_pct\n", f);
}

void sampler_csv_row(FILE *f, const struct sampler_point *p)
{
    fprintf(f, "%.3f,%.4f,%.2f,%.2f,%.2f,%.3f,%d,%d,%.4f,%.2f,%.2f\n", p->t_s, p->interval_s, p->cpu_pct,
            p->cpu_user_pct, p->cpu_sys_pct, p->rss_mb, p->nprocs, p->nthreads, p->write_mb_s, p->thread_max_pct,
            p->wait_pct);
}

double sampler_self_cpu_s(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) < 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}
