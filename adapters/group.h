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
};

/* Prepare every process of tool entry base->tool (instances from it, 0
 * read as 1) from base (the one-process context: dir, load, url, ...):
 * directories made, loads split, a->prepare called for each. Returns 0,
 * or -1 with err naming the process that could not be prepared (g is
 * filled as far as it got; free it either way). */
int adapter_group_prepare(const struct adapter *a, const struct adapter_ctx *base, struct adapter_group *g, char *err);

/* Parse every process that holds a result (adapter_parse, bounds
 * checked) and merge them into sum (adapter_group_merge; a controller's
 * result, which holds every engine's samples, is marked exact). Returns 0
 * with sum->parsed set, or -1 with err naming the process whose result could
 * not be read (sum then holds no figures). */
int adapter_group_parse(const struct adapter *a, struct adapter_group *g, struct adapter_result *sum, char *err);

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
