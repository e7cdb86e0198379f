/* runpath: the data path of a run across hosts, measured once before the
 * first row (remote/pathprobe.h) from each tool host to the target's load
 * address, for run.json's "path" (docs/multihost.md, "The data path"). */
#ifndef LB_RUNPATH_H
#define LB_RUNPATH_H
#include "remote/exec.h"
#include "spec/profile.h"
#include <jansson.h>
#include <signal.h>

#define RUNPATH_RTTS 1000                   /* round trips for a p99 */
#define RUNPATH_FLOWS 4                     /* parallel bulk flows */
#define RUNPATH_BULK_NS 3000000000ull       /* bulk time: past TCP's slow start; shorter
                                               with LOADBENCH_PATH_BULK (runpath.c) */

/* The "path" object: for each host a tool of the profile runs on (the
 * tool entries named by only, or all), keyed by host name ("controller"
 * for a tool without host:), the measurement or {"skipped": why} or
 * {"error": why} (p has hosts:; a run without says "one box" itself,
 * engine/run.c). agents[i] is host i's agent, NULL
 * for a local host. Never fails: what could not be measured says so.
 * Once *stop is set (SIGINT) the hosts not yet measured are
 * {"skipped": "interrupted"}: about 4 s a host, 64 hosts would otherwise
 * hold a SIGINT for 4 minutes. */
json_t *runpath_measure(const struct profile *p, struct exec_host *const *agents, const char *only,
                        const volatile sig_atomic_t *stop);
#endif
