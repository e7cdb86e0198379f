/* exec: the executor seam. A tool run starts the tool's process tree,
 * waits for it, samples it, stops it and reads what it wrote only through
 * a `const struct executor` (a table of function pointers, like wrk's
 * struct sock or redis's connection types), so that nothing above the
 * seam (toolrun, crosscheck, reports) knows where the tree runs.
 *
 * One implementation today: exec_local, this machine (fork/exec in a
 * process group, the tool's cgroup, /proc sampling, pipes into bounded
 * files). The multi-host layer adds a second behind the same table: a
 * `loadbench agent` at the other end of ssh, which runs the sampling loop
 * on its side and streams the samples, so that `sample` there reads the
 * next streamed reading, not a round trip. What the seam carries is
 * therefore: spawn a tree, signal (stop) it, wait for it, sample it, read
 * its accounting, fetch its files.
 *
 * Times are CLOCK_MONOTONIC of the machine running loadbench run (a remote
 * executor converts with the clock offset it measured). */
#ifndef LB_EXEC_H
#define LB_EXEC_H

#include "engine/sampler.h"
#include "common/util.h"

#include <jansson.h>
#include <stdint.h>
#include <sys/types.h>

/* What to start. */
struct exec_spec {
    const char *name;               /* the tool run's name (e.g. "wrk@100#2"): names its cgroup */
    const char *const *argv;        /* argv[0] run as given, or looked up in the clean PATH */
    const char *const *env;         /* NAME=value added to the clean environment (NULL-terminated,
                                     * may be NULL); nothing else of loadbench's is inherited */
    const char *dir;                /* the tool's directory and cwd (must exist): HOME is
                                     * <dir>/home, TMPDIR <dir>/home/tmp (both created), and its
                                     * stdout and stderr go to <dir>/stdout.txt and stderr.txt,
                                     * bounded (capture.h) */
    uint64_t cpus_mask;             /* pin the tree to these CPUs; 0 = all */
    int want_cgroup;                /* 1: give the tree a cgroup of its own (exact CPU, peak
                                     * memory, the memory cap, a kill of every member) */
    uint64_t memory_limit_bytes;    /* > 0: the cap, enforced only in a cgroup */
    uint64_t sample_interval_ns;    /* the sampling interval: a remote executor samples on its
                                     * side at this interval from started_ns and streams the
                                     * points (0: 1 s); local samples when asked */
};

/* How the tree's root ended (valid once exec_tree.ended is set). */
struct exec_exit {
    int exited;                     /* 1: exited normally, code valid */
    int code;
    int signaled;                   /* 1: killed by a signal, sig valid */
    int sig;
    double cpu_s;                   /* user + system CPU of the root and the children it reaped */
    uint64_t maxrss_kb;             /* the largest single process's peak RSS (ru_maxrss) */
    int unknown;                    /* 1: it ended, but its status and rusage were lost (wait4 said
                                     * ECHILD: taken elsewhere); the fields above are 0, not its own */
};

struct proc_exit;
/* A locally reaped root's exit (proc.h) as an exec_exit: its status, the
 * CPU and peak RSS of its wait4 rusage, and the lost-exit flag. The local
 * executor and the agent (for lb-target's tree) both take it from here. */
struct exec_exit exec_exit_of(const struct proc_exit *pe);

/* A started tree: the part every executor fills; its own state follows. */
struct exec_tree {
    const struct executor *ex;      /* the table that started it: call through t->ex */
    uint64_t started_ns;            /* when the root was started */
    pid_t pid;                      /* the root's pid, on the host that runs it */
    int cgroup;                     /* 1: the tree has its own cgroup */
    char no_cgroup[UTIL_ERR_LEN];   /* why not, when spec.want_cgroup was 1 and cgroup is 0 */
    int ended;                      /* 1: the root has exited and been reaped: exit is valid
                                     * (or the host was lost: see lost) */
    char lost[UTIL_ERR_LEN];        /* non-empty: the host running the tree was lost (link down,
                                     * no heartbeat, agent gone): ended is set, exit is not valid,
                                     * and this says what happened ("host lost: ...") */
    struct exec_exit exit;
    const struct sampler_tree *samples; /* the sampled series; crosscheck_in reads its summary
                                         * (goes when crosscheck takes a summary instead) */
};

/* The tree's cgroup accounting, exact. */
struct exec_usage {
    uint64_t cpu_ns;
    uint64_t mem_peak_bytes;        /* 0 when the kernel does not say */
    uint64_t mem_cache_bytes;       /* page cache, apart */
    uint64_t oom_kills;             /* members the memory cap killed */
};

/* One of the tree's output streams, once ended. */
struct exec_output {
    uint64_t total_bytes;           /* everything the tool wrote to it */
    uint64_t dropped_bytes;         /* left out of the file (its middle; 0 = all kept) */
};

enum exec_stream { EXEC_STDOUT = 1, EXEC_STDERR = 2 };

struct exec_host_ops;

struct executor {
    const char *name;               /* "local", or the host's name */

    /* Start spec->argv as the root of a new tree with its own process
     * group (and cgroup when asked and possible: a cgroup that cannot be
     * made is not an error, t->no_cgroup says why). Returns 0 with *out a
     * tree to release with free, or -1 with err filled and nothing left
     * running (exec failures in the child are reported here too). */
    int (*spawn)(const struct executor *ex, const struct exec_spec *spec, struct exec_tree **out, char *err);

    /* Optional (NULL: spawn does everything): a tool on many hosts is
     * started together, not one round trip and one file copy after
     * another. spawn_prepare does the spawn's slow part ahead (a remote
     * executor copies spec->dir there); spawn_begin sends the start and
     * does not wait; spawn with the same spec (spec->name is the key)
     * then takes its outcome. A spec prepared or begun must still be
     * spawned: its tree may be running. */
    int (*spawn_prepare)(const struct executor *ex, const struct exec_spec *spec, char *err);
    void (*spawn_begin)(const struct executor *ex, const struct exec_spec *spec);

    /* Wait without blocking. Returns 1 once the root has exited (t->ended
     * and t->exit set; its orphans may still run), 0 while it runs. */
    int (*poll)(struct exec_tree *t);

    /* One reading of the whole tree now (as sampler_tree_sample): returns
     * 1 with point filled for the interval since the last reading, 0 for
     * the first reading, -1 when there is nothing to sample. */
    int (*sample)(struct exec_tree *t, struct sampler_reading *r, struct sampler_point *point);

    /* Aggregates over every point so far (zeros when none). */
    void (*summary)(const struct exec_tree *t, struct sampler_summary *s);

    /* Signal the whole tree to stop: SIGTERM to every member (once),
     * term_grace_ns for them to go, then SIGKILL, and reap (t->exit is
     * then set). Processes in keep[] (nkeep pids: e.g. lb-target, started
     * beside the tool) are spared with their subtrees. Returns how many
     * needed SIGKILL, or -1 with err when something survived. Idempotent.
     * keep[] are pids of this machine: a remote executor ignores them and
     * its agent spares the other trees it runs instead. */
    int (*stop)(struct exec_tree *t, const pid_t *keep, int nkeep, uint64_t term_grace_ns, char *err);

    /* Optional (NULL: nothing to do ahead): start stopping t without
     * waiting, so that stop() on many trees in a row overlaps their
     * graces. stop() must still be called; it then waits for this one.
     * A remote executor sends its agent the stop now (one round trip and
     * one grace for all hosts, not one per host). */
    void (*stop_begin)(struct exec_tree *t, uint64_t term_grace_ns);

    /* End the capture of one output stream (call once the tree is
     * stopped): returns 0 with o filled, 1 when it had ended already (o
     * untouched), or -1 with err when its file could not be written
     * completely (o filled still). */
    int (*output)(struct exec_tree *t, enum exec_stream s, struct exec_output *o, char *err);

    /* The cgroup's accounting. Returns 0, or -1 with err (no cgroup, or
     * unreadable). */
    int (*usage)(const struct exec_tree *t, struct exec_usage *u, char *err);

    /* Make the files the tree wrote under spec->dir readable at the same
     * paths here (for the adapter's parser). Returns 0, or -1 with err.
     * Local: they are already. */
    int (*fetch)(struct exec_tree *t, char *err);

    /* Stop the tree if its root has not been reaped yet (1 s grace,
     * nothing spared), kill what is left in its cgroup, remove the cgroup
     * and release t. NULL does nothing. */
    void (*free)(struct exec_tree *t);

    /* NULL for this machine. For another host: what the engine asks of
     * that host besides its trees (below). */
    const struct exec_host_ops *host;
};

/* ---- the seam to other hosts ---------------------------------------------
 * A host (remote/exec.c) is opaque here: the engine holds a struct
 * exec_host *, gets it from a tree's executor (exec_host_of) and reaches
 * it only through the table its executor carries, so nothing of the
 * engine links the transport, and a run without hosts: has none. A host
 * begins with its executor, whose `name` is the host's name. */
struct exec_host;
struct hostread;
struct target;
struct target_opts;

struct exec_host_ops {
    /* One request to the host's agent (docs/agent-protocol.md; req is
     * taken). Returns the reply (new reference), or NULL with err. */
    json_t *(*call)(struct exec_host *h, json_t *req, char *err);

    /* Its machine and network readings now, TCP counters from pid's
     * namespace there (engine/hostread.h). Returns 0, or -1 (out->err). */
    int (*reading)(struct exec_host *h, pid_t pid, struct hostread *out);

    /* The target-placement interface: lb-target on the host, started by
     * its agent (engine/target.h's functions, there: target_start with
     * o->host, target_call_at, target_stop, target_rebase,
     * target_sample_now, on a target whose host is this one). */
    int (*target_start)(struct exec_host *h, struct target *t, const struct target_opts *o, char *err);
    json_t *(*target_call_at)(const struct target *t, const char *method, const char *path, uint64_t at_ns,
                              uint64_t *done_ns, char *err);
    int (*target_stop)(struct target *t, char *err);
    int (*target_rebase)(struct target *t, struct sampler_reading *rd, char *err);
    int (*target_sample_now)(struct target *t, char *err);
};

/* The host whose agent runs ex's trees, or NULL (exec_local, NULL). */
static inline struct exec_host *exec_host_of(const struct executor *ex)
{
    return ex && ex->host ? (struct exec_host *)(void *)(uintptr_t)ex : NULL;
}

/* h's executor, its table and its name (h not NULL). */
static inline const struct executor *exec_host_executor(const struct exec_host *h)
{
    return (const struct executor *)(const void *)h;
}
static inline const struct exec_host_ops *exec_host_table(const struct exec_host *h)
{
    return exec_host_executor(h)->host;
}
static inline const char *exec_host_name(const struct exec_host *h)
{
    return exec_host_executor(h)->name;
}

/* This machine. */
extern const struct executor exec_local;

/* Other hosts: remote/exec.h (exec_remote_open gives a table per host,
 * with its exec_host_ops). */

#endif
