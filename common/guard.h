/* guard: nothing loadbench starts outlives it, whatever kills it (SIGKILL
 * included; issue #18).
 *
 * Two layers. Every child loadbench forks calls guard_child between fork
 * and exec: PR_SET_PDEATHSIG(SIGKILL), so the direct child dies with us.
 * That does not reach what the child forks (Locust workers, JMeter's java,
 * a daemonizing tool), so guard_start also forks a guardian: a small
 * process that sleeps in read() on a pipe whose write end only loadbench
 * holds. Each child that leads its own process group announces it there
 * before exec, and each cgroup loadbench creates is announced too. When
 * the pipe reaches EOF (loadbench is gone, however it went), the guardian
 * sends SIGTERM to the groups still announced, SIGKILL after a short grace,
 * kills and removes the announced cgroups, removes the announced
 * temporary directories, and exits.
 *
 * The pipe's write end and the guardian's pid are the one piece of module
 * state (one guardian per process): a child between fork and exec must
 * reach them without being handed anything, wherever it was forked. */
#ifndef LB_GUARD_H
#define LB_GUARD_H

#include "common/cgroup.h"

#include <sys/types.h>

/* Fork the guardian. Call once, early, while the process has one thread.
 * Returns 0, or -1 with err filled (then children still get the parent
 * death signal, but their descendants are not covered). */
int guard_start(char *err);

/* Close the pipe and wait for the guardian to exit (everything it watched
 * must already be stopped: it then has nothing to do). Safe without
 * guard_start. */
void guard_stop(void);

/* The guardian's pid, or 0: it is ours for the whole command, so walks of
 * our descendants that stop a tool skip it. */
pid_t guard_pid(void);

/* Call before fork; pass the result to guard_child in the child. It is our
 * pid when the calling thread is the main thread, else 0: the parent death
 * signal follows the thread that forked, so a child forked by a thread
 * that may end first must not get it. */
pid_t guard_parent(void);

/* In the child, between fork and exec (async-signal-safe): with parent
 * from guard_parent, set PR_SET_PDEATHSIG(SIGKILL) and _exit(127) when the
 * parent already died (checked with getppid() after the prctl, which
 * closes the race); when the child leads its own process group and the
 * guardian runs, announce the group. */
void guard_child(pid_t parent);

/* The group pgid is done with: once it has no member left, the guardian
 * forgets it (so a pid reused later is never signalled). */
void guard_forget_group(pid_t pgid);

/* Announce a cgroup the guardian empties and removes if we die / forget
 * it once it is destroyed. Both do nothing without a guardian. */
void guard_watch_cgroup(const struct cgroup *cg);
void guard_forget_cgroup(const struct cgroup *cg);

/* Announce a temporary directory the guardian removes, with everything
 * under it, if we die (`plan`'s) / forget it once we removed it. Both do
 * nothing without a guardian or for a path of 1024 bytes or more. */
void guard_watch_dir(const char *dir);
void guard_forget_dir(const char *dir);

#endif
