/* sampler: CPU, memory, processes and I/O of a process tree from /proc,
 * sampled on absolute CLOCK_MONOTONIC deadlines. */
#ifndef LB_SAMPLER_H
#define LB_SAMPLER_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* One reading of a whole tree (root and all its descendants alive now). */
struct sampler_reading {
    uint64_t t_ns;          /* CLOCK_MONOTONIC when read */
    uint64_t cpu_ticks;     /* utime+stime (clock ticks) of the tree so far: each member's own
                             * plus its reaped children's (cutime+cstime), plus the last seen
                             * totals of members that left without a member to inherit them;
                             * only deltas between readings mean anything */
    uint64_t cpu_user_ticks;
    uint64_t cpu_sys_ticks;
    uint64_t cpu_ns;        /* CPU of the tree so far in ns: from the cgroup's counter
                             * (cpuacct.usage, cpu.stat) when sampling a cgroup that has one,
                             * else cpu_ticks converted; points are computed from it */
    uint64_t cpu_user_ns;
    uint64_t cpu_sys_ns;
    int cpu_from_cgroup;    /* 1: cpu_*_ns came from the cgroup (ns-exact, nothing lost) */
    uint64_t rss_bytes;     /* sum of VmRSS over the tree (a page several members map, e.g.
                             * libc or copy-on-write pages after fork, counts once per member) */
    uint64_t max_proc_rss_bytes; /* largest single member's VmRSS now */
    uint64_t hwm_bytes;     /* largest single member's VmHWM */
    uint64_t write_bytes;   /* /proc/PID/io write_bytes of the tree so far, kept like cpu_ticks
                             * (0 if unreadable) */
    uint64_t wchar_bytes;   /* /proc/PID/io wchar, the same way */
    int nprocs;
    int nthreads;
    int threads_unscanned;  /* threads past SAMPLER_THREADS_MAX, not read this time */
};

/* The per-thread scan reads at most this many threads per reading: a
 * JMeter has hundreds, and a reading of 300 costs 2-8 ms of loadbench's
 * CPU (test_sampler), so 1024 bound it near 25 ms. */
#define SAMPLER_THREADS_MAX 1024

/* One interval between two readings, as written to the time series. */
struct sampler_point {
    double t_s;             /* seconds since the tracker's start */
    double interval_s;      /* measured, not nominal */
    double cpu_pct;         /* 100 = one core, over the measured interval */
    double cpu_user_pct;
    double cpu_sys_pct;
    double rss_mb;          /* MB = 10^6 bytes */
    int nprocs;
    int nthreads;
    double write_mb_s;
    double thread_max_pct;  /* the busiest single thread of the tree over the interval (100 = one
                             * core), from /proc/PID/task/TID/schedstat (ns); a thread born
                             * during it counts with all its CPU */
    double wait_pct;        /* the tree's threads' time runnable but waiting for a CPU over the
                             * interval, summed (100 = one core's worth of waiting), from
                             * schedstat's run_delay; 0 where the kernel has no schedstat */
};

/* Tracks one tree across readings. CPU of members that exited between two
 * readings is not lost: each member's last seen ticks are remembered, and
 * callers take the exact total from wait4 rusage or the cgroup at the end;
 * the series is the best /proc can do. */
struct sampler_tree;

/* Start tracking the tree rooted at root (or, if cgroup_procs is not NULL,
 * the members listed in that cgroup.procs file; when that cgroup is a v1
 * cpuacct or a v2 cgroup, e.g. struct cgroup's procs[0], CPU comes from its
 * ns counter instead of the members' clock ticks, which /proc rounds down
 * to 10 ms: up to ±2 ticks per process per point, ±4 CPU points at 0.5 s).
 * Without a cgroup, members seen once stay tracked (and their children
 * walked) after they leave the root's subtree, and our own children in
 * the root's process group are adopted, so orphans re-parented to us (a
 * subreaper) still count.
 * Returns NULL with err filled when root does not exist (or cgroup_procs
 * cannot be read). */
struct sampler_tree *sampler_tree_new(pid_t root, const char *cgroup_procs, char *err);
void sampler_tree_free(struct sampler_tree *t);

/* Take one reading now and, when a previous reading exists, fill point with
 * the interval since it. Returns 1 when point was filled, 0 for the first
 * reading, -1 when the tree is gone (root exited and no members left). */
int sampler_tree_sample(struct sampler_tree *t, struct sampler_reading *r, struct sampler_point *point);

/* Aggregates over all points so far: average and peak CPU %, peak and
 * average RSS (MB), peak processes and threads, total bytes written. */
struct sampler_summary {
    int npoints;
    double cpu_avg_pct, cpu_peak_pct;
    double rss_peak_mb, rss_avg_mb;
    double max_proc_hwm_mb;
    int procs_peak, threads_peak;
    double write_mb;
    double thread_max_peak_pct;     /* the highest thread_max_pct of any point */
};
void sampler_tree_summary(const struct sampler_tree *t, struct sampler_summary *s);

/* Whole-machine CPU from /proc/stat: busy/user/system/softirq/steal ticks. */
struct sampler_machine {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal, total;
};
int sampler_machine_read(struct sampler_machine *m, char *err);

/* The same per CPU ("cpuN" lines): fills up to max entries of cpus, in CPU
 * order. Returns the number of CPUs (may exceed max), or -1 with err. */
int sampler_machine_read_cpus(struct sampler_machine *cpus, int max, char *err);

/* Sleep until *deadline_ns (absolute CLOCK_MONOTONIC), then advance it by
 * interval_ns, skipping deadlines already missed (a late sample is not
 * followed by a burst of short intervals). Returns 0, or -1 when a signal
 * interrupted the sleep (deadline unchanged: check the stop flag, call
 * again). Start with *deadline_ns = util_now_ns() + interval_ns. */
int sampler_wait_tick(uint64_t *deadline_ns, uint64_t interval_ns);

/* The sampling loop's own clock (issue #44): whether loadbench itself ran
 * when it meant to. Two looks more than 2 intervals apart are a gap: the
 * samples of that stretch are missing, whatever the tool did. Why is told
 * from the clocks: CLOCK_BOOTTIME runs through a suspend, CLOCK_MONOTONIC
 * does not; /proc/thread-self/schedstat's run_delay is the time this
 * thread was runnable but waited for a CPU (a busy machine); the rest it
 * was neither (stopped, SIGSTOP, or blocked). A tool that is idle leaves
 * no gap: the looks go on. */
struct sampler_gaps {
    uint64_t interval_ns;
    uint64_t mono_ns, boot_ns, delay_ns; /* at the last look */
    int n;                               /* gaps so far */
    uint64_t longest_ns;                 /* the longest (CLOCK_BOOTTIME) */
    uint64_t total_ns;                   /* all of them, summed */
    uint64_t suspended_ns, queued_ns;    /* of total: the machine suspended; waiting for a CPU */
    int last_was_gap;                    /* the latest look ended a gap */
    uint64_t gap_from_ns;                /* the latest gap's first moment (CLOCK_MONOTONIC): the look before it */
};

/* Start watching, now, a loop that means to look every interval_ns or
 * sooner. */
void sampler_gaps_start(struct sampler_gaps *g, uint64_t interval_ns);

/* One look, now. Returns 1 when it ends a gap, else 0. */
int sampler_gaps_look(struct sampler_gaps *g);

/* "loadbench was not scheduled for 15.0 s: footprint figures not judged
 * (...)" into buf, with what the clocks tell of why. Returns 0 (buf
 * untouched) when there was no gap, else 1. */
int sampler_gaps_say(const struct sampler_gaps *g, char *buf, size_t len);

/* CSV header and row for the time series file (samples/<tool>.csv). */
void sampler_csv_header(FILE *f);
void sampler_csv_row(FILE *f, const struct sampler_point *p);

/* The CPU seconds consumed so far by the calling process (loadbench's own
 * cost), from getrusage(RUSAGE_SELF). */
double sampler_self_cpu_s(void);

#endif
