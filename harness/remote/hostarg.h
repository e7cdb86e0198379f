/* hostarg: the machine a command's --host names (`doctor --host`, `tools
 * --host`, `hosts install`): a hosts: entry of a profile, or an ssh
 * destination given on the command line, reached over ssh and asked
 * through its agent. Fills error buffers; the command line prints. */
#ifndef LB_HOSTARG_H
#define LB_HOSTARG_H

#include "spec/profile.h"

#include <jansson.h>
#include <limits.h>
#include <stddef.h>

struct exec_host;

/* The machine --host names: a hosts: entry of the profile (with one), or
 * an ssh destination (without). p and own are released by host_arg_free. */
struct host_arg {
    struct profile *p;
    struct profile_host own;            /* a destination given on the command line */
    const struct profile_host *h;
    char ssh_dir[PATH_MAX];             /* its ssh control sockets ("" none yet) */
};

/* Resolve --host ARG [PROFILE]. Returns 0, or -1 with err (what follows
 * "loadbench CMD: "). Call host_arg_free either way. */
int host_arg_resolve(struct host_arg *ha, const char *arg, const char *profile_path, char *err);
void host_arg_free(struct host_arg *ha);

/* What fetch brings from the agent on ha's host, reached first with a
 * plain login (so that an unreachable host gets the located message of
 * `loadbench run`): the one remote step `doctor --host` and `tools
 * --host` share. said (len bytes) gets which machine answered ("WHERE:
 * hostname H, loadbench agent PATH (pid N)"; "" when none did). Returns
 * a new reference, or NULL with err (after "loadbench CMD: "). */
json_t *host_arg_fetch(struct host_arg *ha, const char *arg, json_t *(*fetch)(struct exec_host *, char *), char *said,
                       size_t len, char *err);

/* The agent's tools table (adapter_detect_all there), for host_arg_fetch. */
json_t *host_arg_tools(struct exec_host *a, char *err);

/* The agent's machine facts (engine/machine.h there), for host_arg_fetch. */
json_t *host_arg_machine(struct exec_host *a, char *err);

/* `hosts install`: this build copied to ha's host (hosts_install), where
 * (PATH_MAX) the directory there. Returns 0, or -1 with err. */
int host_arg_install(struct host_arg *ha, char *where, char *err);

#endif
