/* hostread: a host's own machine and network readings, taken where the
 * process they describe runs. A row whose tool or target runs on another
 * host reads that host's TCP counters (its network namespace's, through
 * /proc/PID/net), TIME_WAIT sockets, /proc/stat and CPU pressure there,
 * through its agent (docs/agent-protocol.md, op "reading"), never the
 * controller's; run.json records them per host (the row's "hosts"). */
#ifndef LB_HOSTREAD_H
#define LB_HOSTREAD_H

#include "engine/exec.h"
#include "engine/netstat.h"
#include "engine/quiet.h"
#include "engine/sampler.h"
#include "common/util.h"

#include <jansson.h>
#include <signal.h>
#include <sys/types.h>

/* One reading of one host. */
struct hostread {
    int ok;                         /* 1: read; 0: err says why (nothing else is valid) */
    char err[UTIL_ERR_LEN];
    struct netstat ns;              /* the namespace of the process read (or the reader's) */
    struct sampler_machine m;       /* /proc/stat's cpu line */
    struct quiet_psi psi;
    double self_cpu_s;              /* loadbench's own CPU there so far: the agent's, or this
                                     * process's */
    double tree_cpu_s;              /* the same with every process it started (lb-target, the
                                     * tools): the gate's "ours" (NAN: unreadable) */
    long ncpu;                      /* the host's online CPUs */
};

/* 1 when a TCP socket listening on port here (this network namespace,
 * any address) is held by a process of process group pgid: the listener
 * is the tree's own (a Locust master), not a stranger's on its port; 0
 * when no listener on port is, or /proc cannot say. */
int hostread_listener_in_group(int port, pid_t pgid);

/* Read this machine now, TCP counters from pid's namespace (0: ours).
 * Always fills out; returns 0, or -1 (out->err says why). */
int hostread_local(pid_t pid, struct hostread *out);

/* The same on h through its agent (h NULL: this machine; on a host,
 * exec_host_ops's reading: remote/hostfacts.h is its wire form). Returns
 * 0, or -1 (out->ok 0, out->err the loss or the agent's error). */
int hostread_take(struct exec_host *h, pid_t pid, struct hostread *out);

/* A host a tool run uses: where its readings come from and what of the
 * run's CPU was spent there. */
struct hostread_host {
    char name[64];                  /* the hosts: entry's name ("controller" for this machine
                                     * when no entry names it) */
    struct exec_host *h;            /* NULL: this machine */
    pid_t pid;                      /* TCP counters of this process's namespace (0: the reader's) */
    struct hostread r0, r1;         /* before the tool's start, after its stop */
    struct quiet_gate gate;
    double tool_cpu_s, target_cpu_s; /* the tool's trees' and lb-target's CPU there (NAN: not
                                     * measured) */
};

struct hostread_set {
    struct hostread_host v[16];
    size_t n;
    int remote;                     /* 1: at least one is another host */
};

/* The entry for (name, h), added when new (h NULL: this machine, one
 * entry whatever the name). Returns it, or NULL when the set is full. */
struct hostread_host *hostread_set_add(struct hostread_set *s, const char *name, struct exec_host *h);

/* Read every host: after 0 into r0, 1 into r1. */
void hostread_set_read(struct hostread_set *s, int after);

/* The quiet gate on every host at once: wait, reading each every
 * q->interval_ns, until every one's background is below the bar for two
 * intervals in a row, for at most q->wait_max_ns, or until *stop. Each
 * host's gate gets the common verdict and its own last background. */
void hostread_set_gate(struct hostread_set *s, const struct profile_quiet *q, volatile sig_atomic_t *stop);

/* {NAME: {tcp, machine_cpu, quiet} or {error}} over the run, warnings
 * named by host; *disturbed is 1 when any host was; *tcp_sum gets the
 * counters summed over the hosts (a new object, or NULL when none was
 * read). */
json_t *hostread_set_json(const struct hostread_set *s, const struct profile_quiet *q, json_t *warnings,
                          int *disturbed, json_t **tcp_sum);

#endif
