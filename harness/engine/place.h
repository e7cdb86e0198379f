/* place: where a run's lb-target and tools go when its profile has hosts:,
 * the seam between the run (engine/run.c) and the hosts (remote/placement.c,
 * which reaches them over ssh and opens their agents). A run without
 * hosts: has none (run_opts.place NULL): every tree runs here through
 * exec_local, lb-target on this machine, and no host code is on its path. */
#ifndef LB_PLACE_H
#define LB_PLACE_H

#include "spec/profile.h"

#include <jansson.h>

struct executor;
struct tool_run_opts;
struct place;

struct place_ops {
    /* Before the run directory: every host placed on answers, and each
     * one's agent is up (same build, clock measured). Returns 0, or -1
     * with err (nothing run). */
    int (*open)(struct place *pl, char *err);

    /* The run directory dir is made: every agent's host makes it too and
     * proves it can write there. Returns 0, or -1 with err. */
    int (*begin)(struct place *pl, const char *dir, char *err);

    /* Into run.json (run): "hosts" (each host's clock, agent and
     * machine) and "path" (the data path, measured before the first row;
     * stop cuts it short). */
    void (*record)(struct place *pl, json_t *run);

    /* A row of t: its executors into to (to->ex, to->host_ex pointing at
     * host_ex, room for PROFILE_MAX_INSTANCES, and to->target_host), an
     * agent lost since the last row opened again. Returns the NIC
     * counters of the row's hosts now, for row_end. */
    json_t *(*row_start)(struct place *pl, const struct profile_tool *t, struct tool_run_opts *to,
                         const struct executor **host_ex);

    /* The row's "placement" and "nic" (its hosts' counters since
     * row_start, whose nic_before it takes) into row; path: run.json's. */
    void (*row_end)(struct place *pl, const struct profile_tool *t, json_t *row, json_t *nic_before,
                    const json_t *path);

    /* Let the hosts go (every agent says goodbye); idempotent. */
    void (*close)(struct place *pl);
};

/* What an implementation begins with. log (set by the run before open,
 * may be NULL): one line of the run's log, without "loadbench: ". */
struct place {
    const struct place_ops *ops;
    void (*log)(void *arg, const char *line);
    void *log_arg;
};

#endif
