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
    uint64_t cpu_ticks;     /* sum of utime+stime (clock ticks) of live members */
    uint64_t cpu_user_ticks;
    uint64_t cpu_sys_ticks;
    uint64_t rss_bytes;     /* sum of VmRSS over the tree */
    uint64_t max_proc_rss_bytes; /* largest single member's VmRSS now */
    uint64_t hwm_bytes;     /* largest single member's VmHWM */
    uint64_t write_bytes;   /* sum of /proc/PID/io write_bytes (0 if unreadable) */
    uint64_t wchar_bytes;   /* sum of /proc/PID/io wchar */
    int nprocs;
    int nthreads;
};

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
};

/* Tracks one tree across readings. CPU of members that exited between two
 * readings is not lost: each member's last seen ticks are remembered, and
 * callers take the exact total from wait4 rusage or the cgroup at the end;
 * the series is the best /proc can do. */
struct sampler_tree;

/* Start tracking the tree rooted at root (or, if cgroup_procs is not NULL,
 * the members listed in that cgroup.procs file). Returns NULL with err
 * filled when root does not exist. */
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
};
void sampler_tree_summary(const struct sampler_tree *t, struct sampler_summary *s);

/* Whole-machine CPU from /proc/stat: busy/user/system/softirq/steal ticks. */
struct sampler_machine {
    uint64_t user, nice, system, idle, iowait, irq, softirq, steal, total;
};
int sampler_machine_read(struct sampler_machine *m, char *err);

/* CSV header and row for the time series file (samples/<tool>.csv). */
void sampler_csv_header(FILE *f);
void sampler_csv_row(FILE *f, const struct sampler_point *p);

/* The CPU seconds consumed so far by the calling process (loadbench's own
 * cost), from getrusage(RUSAGE_SELF). */
double sampler_self_cpu_s(void);

#endif
