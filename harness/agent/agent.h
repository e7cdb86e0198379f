/* agent: `loadbench agent`, the far end of exec_remote (remote/exec.h).
 * It speaks docs/agent-protocol.md on two descriptors: requests in,
 * replies and events out. Trees run through exec_local, the same code as
 * on the controller; they are sampled here on absolute deadlines and the
 * points are streamed. When its input ends, the controller's heartbeats
 * stop, or a stop signal comes, it stops every tree it started (process
 * group, descendants, cgroup) within 1 s and returns. */
#ifndef LB_AGENT_H
#define LB_AGENT_H

#include <signal.h>

struct agent_opts {
    int in_fd;                      /* requests (stdin) */
    int out_fd;                     /* replies and events (stdout) */
    volatile sig_atomic_t *stop;    /* set by the caller's SIGINT/SIGTERM/SIGHUP handler */
};

/* Serve one controller until it says bye, the link is lost or a build
 * check fails. Returns the exit status: 0 after bye, 2 when the
 * controller is another build (err says both), 3 when the link was lost
 * or a stop signal came (err says which: every tree was stopped). The
 * caller should be a subreaper with a guardian (guard_start), as
 * `loadbench run` is, and ignore SIGPIPE. */
int agent_serve(const struct agent_opts *o, char *err);

#endif
