/* toolrun: one tool run, in phases. A fresh lb-target, the tool's plan
 * from its adapter, the tool started and sampled on absolute deadlines,
 * stopped at its deadline, its output parsed, its footprint measured and
 * its counts reconciled with the server's. The profile-level loop (run.c)
 * calls tool_run once per sweep level x repeat x tool. */
#ifndef LB_TOOLRUN_H
#define LB_TOOLRUN_H

#include "engine/exec.h"
#include "spec/profile.h"
#include "common/util.h"

#include <jansson.h>
#include <signal.h>

/* How a tool run ended, best first: the order is the downgrade order. */
enum tool_run_status {
    TOOL_RUN_OK,
    TOOL_RUN_SKIPPED,       /* the tool is not here (no adapter, not installed) */
    TOOL_RUN_SUSPECT,       /* ran, but the server's evidence contradicts its figures */
    TOOL_RUN_FAILED,
    TOOL_RUN_TIMEOUT,       /* still running at its deadline: stopped */
    TOOL_RUN_INTERRUPTED,   /* loadbench was interrupted */
    TOOL_RUN_OOM,           /* OOM-killed in its memory-capped cgroup */
};

/* A run's status and the reason for it. */
struct tool_run_verdict {
    enum tool_run_status status;
    char reason[UTIL_ERR_LEN * 2];  /* "" while ok */
};

/* Downgrade v to s (never TOOL_RUN_OK) for the reason in fmt: a status
 * worse than v's replaces it and its reason; an equal or better one leaves
 * the status and adds its reason after "; " (a run that timed out and then
 * gave no result stays "timeout", with both reasons). The status never
 * goes back up. */
void tool_run_downgrade(struct tool_run_verdict *v, enum tool_run_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The status as run.json spells it ("ok", "skipped", "suspect", "failed",
 * "timeout", "interrupted", "oom"). */
const char *tool_run_status_name(enum tool_run_status s);

/* What the profile-level loop hands every tool run. */
struct tool_run_opts {
    const struct profile *profile;
    const char *run_dir;            /* absolute: tools run with their own directory as cwd */
    const char *target_bin;         /* lb-target */
    volatile sig_atomic_t *stop;    /* set by the caller's SIGINT/SIGTERM handler */
    const struct executor *ex;      /* where the tool runs (exec_local, or a host's exec_remote) */
    const struct executor *const *host_ex; /* a tool entry on several hosts: the executor of each of
                                     * its hosts, parallel to pt->hosts, process k on
                                     * host_ex[its host_index]; NULL: ex for every process */
    struct exec_host *target_host;  /* where lb-target runs (NULL: here) */
    const char *target_addr;        /* the address it serves load on, which the tool is given
                                     * (NULL: 127.0.0.1) */
    const json_t *peer_addrs;       /* the addresses the row's hosts load from (peercheck_expected),
                                     * or NULL: not judged, for peer_why */
    const char *peer_why;
    int *cgroup_ok;                 /* in/out: 1 while cgroups work here; a run that finds
                                     * they do not clears it (one warning, not one per run) */
    /* Called after every sample (may be NULL): the live figures. */
    void (*progress)(void *arg, const char *label, double elapsed_s, double total_s, double rps, double cpu_pct,
                     double rss_mb);
    void *progress_arg;
};

/* Run tool entry pt once at load (level: the sweep level or NAN; rep: the
 * repeat, from 1) in <run_dir>/<subdir>. Returns its result object for
 * run.json (always: failures are results too, with "status" and
 * "reason"). */
json_t *tool_run(const struct tool_run_opts *o, const struct profile_tool *pt, const struct profile_load *load,
                 double level, unsigned rep, const char *subdir);

#endif
