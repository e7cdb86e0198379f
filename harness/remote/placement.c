#include "remote/placement.h"
#include "adapters/group.h"
#include "engine/crosscheck.h"
#include "engine/toolrun.h"
#include "remote/exec.h"
#include "remote/runpath.h"
#include "remote/ssh.h"
#include "common/util.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run's hosts: what engine/place.h's run asks of them. */
struct placement {
    struct place base;
    const struct profile *p;
    const char *only;               /* --only: the tool entry whose hosts are used (NULL: all) */
    volatile sig_atomic_t *stop;
    char dir[PATH_MAX];             /* the run directory ("" until begin) */
    char ssh_dir[PATH_MAX];         /* the ssh control sockets' directory ("" until open) */
    struct exec_host **agents;      /* per hosts: entry, the agent there (NULL: local or unused) */
};

static void plog(struct placement *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void plog(struct placement *R, const char *fmt, ...)
{
    char line[UTIL_ERR_LEN * 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (R->base.log)
        R->base.log(R->base.log_arg, line);
}

/* The hosts whose NIC counters a tool run reads: each of the tool's
 * (in the order of its host:), and the target's when that is another;
 * NULL is this machine. h has room for t->nhosts + 1. Returns how many. */
static int placement_hosts(const struct placement *R, const struct profile_tool *t, const struct profile_host **h)
{
    int n = 0;
    for (unsigned k = 0; k < (t->nhosts ? t->nhosts : 1); k++)
        h[n++] = profile_host_by_name(R->p, profile_tool_host(t, k));
    const struct profile_host *th = profile_host_by_name(R->p, R->p->target_host);
    for (int k = 0; k < n; k++)
        if (h[k] == th)
            return n;
    h[n++] = th;
    return n;
}

/* The NIC counters of the tool's and the target's hosts now, as an array
 * parallel to placement_hosts (null where unreadable, the reason in the
 * log), or, with before, their change since before: [{host, interfaces}].
 * NULL without hosts: (nothing is read: today's record). */
static json_t *placement_nic_read(struct placement *R, const struct profile_tool *t, const json_t *before)
{
    const struct profile_host *h[PROFILE_MAX_INSTANCES + 1];
    if (!R->p->nhosts)
        return NULL;
    int n = placement_hosts(R, t, h);
    json_t *out = json_array();
    for (int i = 0; i < n; i++) {
        char err[UTIL_ERR_LEN];
        struct exec_host *a = h[i] && !h[i]->local && R->agents ? R->agents[h[i] - R->p->hosts] : NULL;
        json_t *now = hosts_nic_read(h[i], a, R->ssh_dir, err), *b = before ? json_array_get(before, (size_t)i) : NULL;
        if (!now)
            plog(R, "%s: %s", t->label, err);
        if (!before) {
            json_array_append_new(out, now ? now : json_null());
            continue;
        }
        json_t *e = json_pack("{s:s?}", "host", h[i] ? h[i]->name : NULL);
        if (now && json_is_object(b))
            json_object_set_new(e, "interfaces", hosts_nic_delta(b, now));
        else /* the record says why there are no counters */
            json_object_set_new(e, "error", json_string(now ? "the counters could not be read before the run" : err));
        json_array_append_new(out, e);
        json_decref(now);
    }
    return out;
}

static json_t *placement_json(const struct profile_host *h)
{
    char dest[300];
    profile_host_destination(h, dest, sizeof dest);
    return json_pack("{s:s?, s:s, s:s}", "host", h ? h->name : NULL, "ssh", dest, "address",
                     profile_host_load_address(h));
}

/* The row's "placement" (which host the target's and the tool's trees ran
 * on: host null is this machine; "tool" is the first of the tool's hosts,
 * where its first process runs, and "tools" all of them when it names
 * several) and "nic" (each host's counters over the tool run). Nothing
 * without hosts:. Takes nic_before. */
static void placement_record(struct placement *R, const struct profile_tool *t, json_t *row, json_t *nic_before,
                             const json_t *path)
{
    if (!R->p->nhosts)
        return;
    json_t *pl = json_pack("{s:o, s:o}", "target", placement_json(profile_host_by_name(R->p, R->p->target_host)),
                           "tool", placement_json(profile_host_by_name(R->p, t->host)));
    if (t->nhosts > 1) {
        json_t *all = json_array();
        for (unsigned k = 0; k < t->nhosts; k++)
            json_array_append_new(all, placement_json(profile_host_by_name(R->p, t->hosts[k])));
        json_object_set_new(pl, "tools", all);
    }
    json_object_set_new(row, "placement", pl);
    json_object_set_new(row, "nic", placement_nic_read(R, t, nic_before));
    json_decref(nic_before);
    crosscheck_network(row, path);
}

/* The hosts: entry's index, or -1. */
static long host_index(const struct profile *p, const struct profile_host *h)
{
    return h ? (long)(h - p->hosts) : -1;
}

/* Start the agent on hosts entry i (through its ssh transport; this
 * build from the host's cache, else this binary's path there, else
 * loadbench on its PATH: hosts_agent_command). Returns 0, or -1 with err. */
static int agent_open(struct placement *R, size_t i, char *err)
{
    R->agents[i] = hosts_agent_open(R->p, &R->p->hosts[i], R->ssh_dir, err);
    /* One opened again after a loss: the run directory is given anew (its
     * files are fetched and removed only below it). */
    if (R->agents[i] && R->dir[0])
        json_decref(exec_remote_call(R->agents[i], json_pack("{s:s, s:s}", "op", "mkdir", "dir", R->dir), NULL));
    return R->agents[i] ? 0 : -1;
}

/* Open an agent on every host the target or a tool is placed on (not local). */
static int agents_open(struct placement *R, char *err)
{
    const struct profile *p = R->p;
    R->agents = util_xcalloc(p->nhosts, sizeof *R->agents);
    const struct profile_host *th = profile_host_by_name(p, p->target_host);
    if (th && !th->local && agent_open(R, (size_t)host_index(p, th), err))
        return -1;
    for (size_t t = 0; t < p->ntools; t++) {
        if (!profile_only_selects(R->only, p->tools[t].label))
            continue;
        for (unsigned k = 0; k < p->tools[t].nhosts; k++) {
            const struct profile_host *h = profile_host_by_name(p, p->tools[t].hosts[k]);
            long i = host_index(p, h);
            if (!h || h->local || R->agents[i])
                continue;
            if (agent_open(R, (size_t)i, err))
                return -1;
        }
    }
    return 0;
}

static void agents_close(struct placement *R)
{
    for (size_t i = 0; R->agents && i < R->p->nhosts; i++)
        exec_remote_close_begin(R->agents[i]);
    for (size_t i = 0; R->agents && i < R->p->nhosts; i++)
        exec_remote_close(R->agents[i]);
    free(R->agents);
    R->agents = NULL;
}

/* Each agent's host: its clock against ours and its machine facts, into
 * run.json's "hosts" (with hosts: only). */
static void agents_record(struct placement *R, json_t *run)
{
    json_t *o = json_object();
    for (size_t i = 0; R->agents && i < R->p->nhosts; i++) {
        struct exec_host *a = R->agents[i];
        char e[UTIL_ERR_LEN], dest[300];
        profile_host_destination(&R->p->hosts[i], dest, sizeof dest);
        json_t *h = json_pack("{s:s, s:s}", "ssh", dest, "address", profile_host_load_address(&R->p->hosts[i]));
        if (a) {
            struct exec_remote_clock c;
            struct exec_remote_ident id;
            exec_remote_clock_get(a, &c);
            exec_remote_ident_get(a, &id);
            json_t *m = exec_remote_machine(a, e);
            json_object_set_new(h, "clock", json_pack("{s:I, s:I, s:i}", "offset_ns", (json_int_t)c.offset_ns, "rtt_ns",
                                                      (json_int_t)c.rtt_ns, "pings", c.pings));
            json_object_set_new(h, "agent", json_pack("{s:s, s:s, s:i, s:s}", "version", id.version, "hostname",
                                                      id.hostname, "pid", (int)id.pid, "path", id.path));
            json_object_set_new(h, "machine", m ? m : json_string(e));
        }
        json_object_set_new(o, R->p->hosts[i].name, h);
    }
    json_object_set_new(run, "hosts", o);
}

/* Every agent's host makes the run directory (the same path) and proves
 * it can write there, before any load: an unwritable path stops the run
 * here, not when a tool starts. Returns 0, or -1 with err. */
static int agents_mkdir(struct placement *R, char *err)
{
    for (size_t i = 0; R->agents && i < R->p->nhosts; i++) {
        char e[UTIL_ERR_LEN], where[600];
        json_t *rep = R->agents[i] ? exec_remote_call(R->agents[i], json_pack("{s:s, s:s}", "op", "mkdir", "dir",
                                                                             R->dir), e)
                                   : json_object();
        json_decref(rep);
        if (!rep) {
            /* e is "host NAME: why": where names the host already */
            const char *why = strncmp(e, "host ", 5) || !strstr(e, ": ") ? e : strstr(e, ": ") + 2;
            hosts_where(R->p, &R->p->hosts[i], where, sizeof where);
            return util_err(err, "%s cannot hold the run directory %s: %s", where, R->dir, why);
        }
    }
    return 0;
}

/* The executor for processes on hosts: entry name: this machine's (name
 * NULL, or a local host), or that host's agent. An agent whose link was
 * lost (a row before failed as "host lost") is opened again; when that
 * fails, the lost one stays and the row fails at spawn with its reason. */
static const struct executor *placement_executor(struct placement *R, const char *name)
{
    const struct profile_host *h = profile_host_by_name(R->p, name);
    if (!h || h->local || !R->agents)
        return &exec_local;
    size_t i = (size_t)host_index(R->p, h);
    char e[UTIL_ERR_LEN];
    if (R->agents[i] && exec_remote_check(R->agents[i], e) < 0) {
        struct exec_host *lost = R->agents[i];
        plog(R, "%s; connecting again", e);
        if (agent_open(R, i, e)) {
            plog(R, "host %s: %s", h->name, e);
            R->agents[i] = lost;
        } else {
            exec_remote_close(lost);
        }
    }
    return R->agents[i] ? exec_remote_executor(R->agents[i]) : &exec_local;
}

/* Before the run directory: every host placed on answers over ssh, and
 * every tool host's agent is up (same build, clock measured). Returns 0,
 * or -1 with err. */
static int placement_preflight(struct placement *R, char *err)
{
    if (!R->p->nhosts)
        return 0;
    if (hosts_control_dir(R->ssh_dir, err))
        return -1;
    if (hosts_check_reachable(R->p, R->only, R->ssh_dir, err))
        return -1;
    return agents_open(R, err);
}

/* ---- engine/place.h's table ------------------------------------------------ */

static int place_open(struct place *pl, char *err)
{
    return placement_preflight((struct placement *)pl, err);
}

static int place_begin(struct place *pl, const char *dir, char *err)
{
    struct placement *R = (struct placement *)pl;
    snprintf(R->dir, sizeof R->dir, "%s", dir);
    return agents_mkdir(R, err);
}

static void place_record(struct place *pl, json_t *run)
{
    struct placement *R = (struct placement *)pl;
    agents_record(R, run);
    /* The data path, before the first row (remote/runpath.h). */
    json_object_set_new(run, "path", runpath_measure(R->p, R->agents, R->only, R->stop));
}

static json_t *place_row_start(struct place *pl, const struct profile_tool *t, struct tool_run_opts *to,
                               const struct executor **host_ex)
{
    struct placement *R = (struct placement *)pl;
    to->ex = placement_executor(R, t->host);
    for (unsigned k = 0; k < t->nhosts && t->nhosts > 1; k++)
        host_ex[k] = placement_executor(R, t->hosts[k]);
    to->host_ex = t->nhosts > 1 ? host_ex : NULL;
    const struct profile_host *th = profile_host_by_name(R->p, R->p->target_host);
    placement_executor(R, R->p->target_host); /* a lost target host is connected again, as a tool's */
    to->target_host = th && !th->local && R->agents ? R->agents[host_index(R->p, th)] : NULL;
    return placement_nic_read(R, t, NULL);
}

static void place_row_end(struct place *pl, const struct profile_tool *t, json_t *row, json_t *nic_before,
                          const json_t *path)
{
    placement_record((struct placement *)pl, t, row, nic_before, path);
}

static void place_close(struct place *pl)
{
    agents_close((struct placement *)pl);
}

static const struct place_ops placement_ops = {
    .open = place_open,
    .begin = place_begin,
    .record = place_record,
    .row_start = place_row_start,
    .row_end = place_row_end,
    .close = place_close,
};

struct place *placement_new(const struct profile *p, const char *only, volatile sig_atomic_t *stop)
{
    struct placement *R = util_xcalloc(1, sizeof *R);
    R->base.ops = &placement_ops;
    R->p = p;
    R->only = only;
    R->stop = stop;
    return &R->base;
}

void placement_free(struct place *pl)
{
    struct placement *R = (struct placement *)pl;
    if (!R)
        return;
    agents_close(R);
    if (R->ssh_dir[0])
        hosts_control_dir_remove(R->ssh_dir);
    free(R);
}
