/* proc: start a tool in its own process group, watch it, stop it and every
 * descendant it left behind. Library code: never prints, never exits. */
#ifndef LB_PROC_H
#define LB_PROC_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct proc_spec {
    const char *const *argv;     /* argv[0] is run as given (absolute path or PATH lookup in envp's PATH) */
    const char *const *envp;     /* the complete environment the tool gets (see proc_clean_env) */
    const char *cwd;             /* working directory, or NULL */
    const char *stdout_path;     /* created/truncated; NULL = /dev/null */
    const char *stderr_path;     /* created/truncated; NULL = /dev/null */
    int stdout_fd;               /* > 0: the tool's stdout is this descriptor (e.g. a capture
                                  * pipe), not stdout_path; the caller keeps and closes it */
    int stderr_fd;               /* > 0: the same for stderr */
    uint64_t cpus_mask;          /* pin to these CPUs; 0 = no pinning */
    int oom_score_adj;           /* written to /proc/self/oom_score_adj in the child; 0 = leave */
    const char *cgroup_procs[4]; /* cgroup.procs files the child joins before exec (NULL-terminated, may be empty) */
    int kill_with_parent;        /* 1: PR_SET_PDEATHSIG(SIGKILL): the tool dies when the thread that
                                  * spawned it does (loadbench killed -9); spawn from a thread that
                                  * lives as long as the tool. Its own children are not covered. */
};

struct proc_exit {
    int exited;         /* 1: exited normally, code valid */
    int code;
    int signaled;       /* 1: killed by a signal, sig valid */
    int sig;
    struct rusage ru;   /* wait4 rusage of the direct child (children it reaped are included by the kernel) */
    int unknown;        /* 1: gone, but its status was not ours to collect (wait4 said ECHILD) */
};

struct proc {
    pid_t pid;          /* also the process group id */
    uint64_t started_ns;
    int reaped;
    int stopped;        /* proc_stop_tree succeeded: nothing of it is left; proc_poll no longer
                         * touches its (possibly reused) process group id */
    struct proc_exit exit;
};

/* Make the calling process a child subreaper, so orphaned descendants of
 * tools are re-parented to it and can be found and stopped. Returns 0 or -1
 * with err filled. */
int proc_become_subreaper(char *err);

/* Start spec->argv in a new process group (the child calls setpgid(0,0)
 * before exec). Returns 0 with p filled, or -1 with err filled (exec
 * failures in the child are reported here too, through a CLOEXEC pipe).
 * argv[0] is resolved against envp's PATH before forking ("not found in
 * PATH" needs no child). The tool's stdin is /dev/null, none of our other
 * descriptors survive exec, and its signal dispositions and mask are the
 * defaults. */
int proc_spawn(struct proc *p, const struct proc_spec *spec, char *err);

/* Non-blocking: reap p if it has exited. Returns 1 when p has exited
 * (p->exit filled, p->reaped set), 0 while it runs. Also reaps exited
 * orphans of the tool re-parented to us that are still in its process
 * group; orphans that left the group (setsid daemons) stay zombies until
 * proc_stop_tree, because they cannot be told apart from other children
 * of ours that other code waits for. */
int proc_poll(struct proc *p);

/* Stop p and every descendant of ours that is not in keep[] (nkeep pids,
 * e.g. lb-target; each with its whole subtree): SIGTERM to p's process
 * group and to each such descendant (once each: a second SIGTERM makes
 * some tools abort their graceful stop; processes forked after it are left
 * to the shutdown in progress), wait up to term_grace_ns for them to go,
 * then SIGKILL what remains and reap (p's exit is recorded in p).
 * Returns the number of processes that needed SIGKILL, or -1 with err
 * filled (something survived 5 s after SIGKILL). After it returns 0 or
 * more, none of them is left, zombies included. p->pid may be -1: then it
 * just sweeps every non-kept descendant (e.g. on the way out). */
int proc_stop_tree(struct proc *p, const pid_t *keep, int nkeep, uint64_t term_grace_ns, char *err);

/* Spare pid (on = 1) or stop sparing it (on = 0): proc_stop_tree never
 * signals a spared child of ours nor its subtree, whatever tree it stops
 * (exec_remote's transports: ssh, or a local agent, and what they run).
 * Up to PROC_SPARED_MAX at a time. Returns 0, or -1 when full. */
#define PROC_SPARED_MAX 32
int proc_spare(pid_t pid, int on);

/* Every live descendant pid of `root` (walking /proc/PID/task/TID/children),
 * excluding root itself. Fills up to max pids; returns how many were found
 * (may exceed max: then only max were stored). */
int proc_descendants(pid_t root, pid_t *out, int max);

/* Call fn(pid, arg) for each pid listed (whitespace-separated) in the file
 * at path: a children file, a cgroup.procs. Nothing when it cannot be read.
 * *buf (*cap bytes) is a read buffer the caller reuses and frees. */
void proc_each_listed(const char *path, char **buf, size_t *cap, void (*fn)(pid_t pid, void *arg), void *arg);

/* Call fn(child, arg) for each pid listed in the children files of pid's
 * threads (/proc/PID/task/TID/children; a pid may come more than once).
 * nthreads: pid's thread count when known; 1 reads only the main thread's
 * file, 0 (unknown) or more lists the task directory. buf, cap: as for
 * proc_each_listed. */
void proc_each_child(pid_t pid, int nthreads, char **buf, size_t *cap, void (*fn)(pid_t child, void *arg), void *arg);

/* Build a clean environment for a tool: PATH, LANG=C.UTF-8, TZ=UTC,
 * HOME=home, TMPDIR=tmp, plus each "NAME=value" in extra (NULL-terminated,
 * may be NULL). Nothing else of ours is inherited (no JAVA_OPTS,
 * NODE_OPTIONS, K6_*, PYTHONPATH, LOCUST_*, ...). Returns a NULL-terminated
 * heap array; free with proc_env_free. */
char **proc_clean_env(const char *home, const char *tmp, const char *const *extra);
void proc_env_free(char **envp);

#endif
