/* runlock: who owns a run directory, and what to do when the owner died
 * (issue #18).
 *
 * A running loadbench keeps RUN_DIR/loadbench.lock: its pid, its start
 * time (/proc/PID/stat field 22, clock ticks since boot), the boot id and
 * its pid namespace. A pid alone is reused; pid, start time and boot
 * together name one process, and only in the namespace they were read in. A later loadbench that finds a lock whose owner is proven dead
 * marks the run "abandoned" in run.json (the rows measured stay) and
 * removes the lock. The same owner tag names loadbench's cgroups, so a
 * sweep removes only those of a dead loadbench. */
#ifndef LB_RUNLOCK_H
#define LB_RUNLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RUNLOCK_FILE "loadbench.lock"

/* Start time of pid (clock ticks since boot). Returns 0, or -1 when the
 * process does not exist, has exited (a zombie not yet waited for) or its
 * stat cannot be read. */
int runlock_start_time(pid_t pid, uint64_t *start_ticks);

/* 1 when the process pid that started at start_ticks is proven gone: no
 * such pid, or the pid now names a process that started at another time.
 * start_ticks 0 (unknown) proves nothing for a live pid. 0 otherwise. */
int runlock_owner_dead(pid_t pid, uint64_t start_ticks);

/* "PID.START.PIDNS" of the calling process (PIDNS: the inode of its pid
 * namespace), for cgroup names (see cgroup_sweep_stale). Always fills buf. */
void runlock_tag(char *buf, size_t len);

/* Parse a tag at the start of s; *rest points past it. Returns 1 when its
 * owner is proven dead (same pid namespace as ours, and the pid is gone or
 * names a process started at another time), 0 when it is alive or nothing
 * can be proven, -1 when s does not start with a tag. */
int runlock_tag_dead(const char *s, const char **rest);

/* Write the calling process's lock into run_dir. Fails, with err filled,
 * when a live loadbench other than us holds it, or on a write error.
 * Returns 0 or -1. */
int runlock_take(const char *run_dir, char *err);

/* Create run_dir (which must not exist) with our lock already in it, so
 * that no run directory is ever seen without its owner named, whenever
 * loadbench is killed: it is built as the hidden sibling
 * ".NAME.lbnew.PID", locked (the lock's write is the proof the place takes
 * writes) and renamed into place without replacing anything. Returns 0 or
 * -1 with err ("already exists", "cannot create the run directory"). */
int runlock_mkdir(const char *run_dir, char *err);

/* Remove run_dir's lock if it is ours. */
void runlock_release(const char *run_dir);

/* If run_dir has a lock whose owner is proven dead: a run.json still
 * "running" becomes "abandoned" (with "abandoned": {owner_pid, found_at_ms,
 * reason}); a missing run.json is written as an empty abandoned run; the
 * owner's half-written temporary files (NAME.tmp.PID) go, then the lock. Returns 1 when run_dir was marked abandoned, 0 when there
 * was nothing to do (no lock, a live owner, a finished run), -1 with err
 * filled (run.json unreadable or not writable). */
int runlock_reap(const char *run_dir, char *err);

/* runlock_reap on every directory just below results_root (a missing
 * results_root has none); staging directories of a runlock_mkdir whose
 * loadbench is gone are removed. Returns how many were marked abandoned, or -1
 * with err (the first failure; the others are still tried). */
int runlock_reap_all(const char *results_root, char *err);

/* Remove, with remove_dir, every directory ROOT/PREFIX<tag>-... of ours
 * (owned by our user, not a link) whose tag (runlock_tag) names an owner
 * proven dead: the temporary directories a killed loadbench left (ssh
 * control sockets, plan's configs). Returns how many went. */
int runlock_sweep_dirs(const char *root, const char *prefix, void (*remove_dir)(const char *path));

#endif
