/* group: one tool entry as the processes that run it. `instances: 1` is
 * one process in the tool run's own directory, as always; `instances: N`
 * is N (or a master and N workers) each in a folder of its own
 * (<dir>/p0, p1, ...), prepared by the adapter one by one with
 * ctx->instance of ctx->instances, and their results merged into one
 * client result. The adapter's spread (adapter.h) says how. */
#ifndef LB_GROUP_H
#define LB_GROUP_H

#include "adapters/adapter.h"

#include <limits.h>

/* One process of the group. */
struct adapter_proc {
    char dir[PATH_MAX];             /* its directory and cwd */
    const char *role;               /* "tool" (alone), "copy", "segment", "master", "worker",
                                     * "controller" or "engine" */
    int has_result;                 /* 1: parse reads this one */
    const char *host;               /* the hosts: entry it runs on (adapter_group_place), or NULL:
                                     * this machine */
    unsigned host_index;            /* host's index in the tool entry's hosts (0 without host:) */
    struct profile_load *share;     /* its share of the load (copies), or NULL: the whole load */
    struct adapter_ctx ctx;
    struct adapter_plan plan;
    struct adapter_result ar;
};

struct adapter_group {
    struct adapter_proc *procs;
    size_t n;                       /* processes: instances, or instances + 1 with a master or
                                     * a controller */
    unsigned instances;
    int *ports;                     /* engines: their ports (ctx.engine_ports), or NULL */
    char nonce[33];                 /* a master's tool: ctx.group_nonce */
};

/* How many processes tool entry t runs under a: its instances, one more
 * for a master or a controller. */
size_t adapter_group_size(const struct adapter *a, const struct profile_tool *t);

/* Where process k of tool entry t runs: returns its role ("tool" alone,
 * "copy", "segment", "master", "worker", "controller", "engine") and sets
 * *host to the index in t->hosts of its host (0 without host:). Instance
 * i runs on t->hosts[i % t->nhosts] (profile_tool_host); a master or a
 * controller, which sends no load, runs with instance 0 (so with host:
 * [a, b], Locust's master and its first worker on a, the second on b). */
const char *adapter_group_place(const struct adapter *a, const struct profile_tool *t, size_t k, unsigned *host);

/* Prepare every process of tool entry base->tool (instances from it, 0
 * read as 1) from base (the one-process context: dir, load, url, ...):
 * directories made, loads split, a->prepare called for each. Returns 0,
 * or -1 with err naming the process that could not be prepared (g is
 * filled as far as it got; free it either way). Each process gets its
 * host (adapter_group_place); a master or engines listen on the group's
 * host (ctx.group_host): the load address of the master's host when the
 * tool entry names hosts, else 127.0.0.1; engines always on 127.0.0.1
 * (JMeter's RMI is bound to loopback: engines run where their controller
 * does). */
int adapter_group_prepare(const struct adapter *a, const struct adapter_ctx *base, struct adapter_group *g, char *err);

/* Parse every process that holds a result (adapter_parse, bounds
 * checked) and merge them into sum (adapter_group_merge; a controller's
 * result, which holds every engine's samples, is marked exact). Returns 0
 * with sum->parsed set, or -1 with err naming the process whose result could
 * not be read (sum then holds no figures). */
int adapter_group_parse(const struct adapter *a, struct adapter_group *g, struct adapter_result *sum, char *err);

/* The directories of the processes parse reads (has_result), *n of them:
 * an array the caller frees, of strings it does not. */
const char **adapter_group_result_dirs(const struct adapter_group *g, size_t *n);

/* The merge alone: counts summed; the duration the longest; the rate the
 * sum of the rates; min the lowest, max the highest, mean weighted by
 * requests; each percentile the highest of the parts' (an upper bound of
 * the merged percentile, marked not exact: *how says so), or, where the
 * adapter merges distributions itself (lb-gen), exact. One part is copied
 * as it is. extra becomes {"instances": [each part's extra]}. */
void adapter_group_merge(const struct adapter_result *parts, size_t n, struct adapter_result *sum);

/* Release every process's plan, result and share. */
void adapter_group_free(struct adapter_group *g);

#endif
