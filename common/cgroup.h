/* cgroup: one cgroup per tool run for exact CPU, peak memory, membership
 * and kill. cgroup v1 (cpuacct + memory controllers, as mounted on these
 * machines) or a delegated cgroup v2 with cpu and memory controllers;
 * callers fall back to /proc tree sampling when cgroup_create fails. */
#ifndef LB_CGROUP_H
#define LB_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

struct cgroup {
    int v2;                 /* 1: cgroup v2 paths below */
    char cpu_dir[512];      /* v1 cpuacct dir, or the v2 dir */
    char mem_dir[512];      /* v1 memory dir, or the v2 dir */
    char procs[2][560];     /* cgroup.procs file(s) a child must join: see proc_spec.cgroup_procs */
    int nprocs;
};

/* Who hears of each cgroup cgroup_create makes and cgroup_destroy
 * removes: guard_start registers the guardian here (common/guard.h), so
 * a cgroup is emptied and removed if loadbench dies. Without a watcher
 * (NULL, the default) nobody is told. The hook keeps cgroup.c below
 * guard.c: the guardian uses cgroups, cgroups do not know the guardian. */
struct cgroup_watcher {
    void (*watch)(const struct cgroup *cg);
    void (*forget)(const struct cgroup *cg);
};
void cgroup_set_watcher(const struct cgroup_watcher *w);

/* Create a fresh cgroup named name (e.g. "loadbench-1234-wrk-1") below the
 * calling process's own cgroups; memory_limit_bytes > 0 sets a hard limit.
 * Returns 0, or -1 with err filled (no writable hierarchy, ...). */
int cgroup_create(struct cgroup *cg, const char *name, uint64_t memory_limit_bytes, char *err);

/* The same with the hierarchy chosen: version 1 (v1 cpuacct + memory),
 * 2 (v2 with cpu and memory enabled for our children), or 0 (auto: v1 when
 * both controllers are mounted as v1, else v2). Returns 0, or -1 with err. */
int cgroup_create_version(struct cgroup *cg, const char *name, uint64_t memory_limit_bytes, int version, char *err);

struct cgroup_usage {
    uint64_t cpu_ns;        /* cpuacct.usage / cpu.stat usage_usec*1000: exact */
    uint64_t cpu_user_ns;   /* v1: cpu_ns split in the ratio of cpuacct.stat's user/system ticks
                             * (cpuacct.usage_user/_sys are tick samples that do not add up) */
    uint64_t cpu_sys_ns;
    uint64_t mem_bytes;     /* current usage */
    uint64_t mem_peak_bytes;/* max_usage_in_bytes / memory.peak (0 if unknown) */
    uint64_t mem_rss_bytes; /* what /proc's RSS counts, each page once: memory.stat
                             * total_rss + total_mapped_file (v1) / anon + file_mapped (v2) */
    uint64_t mem_cache_bytes; /* page cache, shown apart */
    uint64_t oom_kills;     /* memory.oom_control oom_kill / memory.events oom_kill */
    int nprocs;             /* members now */
};

/* Read the cgroup's accounting. Returns 0, or -1 with err filled. */
int cgroup_read(const struct cgroup *cg, struct cgroup_usage *u, char *err);

/* Members now (pids from cgroup.procs; out may be NULL with max 0).
 * Returns count (may exceed max). */
int cgroup_pids(const struct cgroup *cg, pid_t *out, int max);

/* SIGKILL every member until none is alive (3 s at most; v2 uses
 * cgroup.kill where present). Killed members stay zombies until their
 * parent (for a tool: we, through proc_poll/proc_stop_tree) reaps them.
 * Returns 0, or -1 with err when some survive. */
int cgroup_kill_all(const struct cgroup *cg, char *err);

/* Remove the (empty) cgroup directories. Returns 0 or -1 with err. */
int cgroup_destroy(struct cgroup *cg, char *err);

/* Clean up after a crashed run: every cgroup below ours named
 * "<prefix><tag>-..." (tag from runlock_tag, e.g. prefix "loadbench-" for
 * "loadbench-1234.5678.4026531836-wrk") whose owner owner_dead proves
 * dead (1 for the tag after prefix, with *rest set just past the tag;
 * runlock_tag_dead) has its members SIGKILLed and is removed; a live
 * loadbench's cgroups, and names the predicate cannot judge, are kept.
 * Returns how many cgroup directories were removed (a v1 cgroup has two:
 * cpuacct and memory; 0 when there is nothing to look in), or -1 with err
 * when one could not be cleaned. */
int cgroup_sweep_stale(const char *prefix, int (*owner_dead)(const char *tag, const char **rest), char *err);

#endif
