/* proc: spawn a tool in its own process group, reap it, stop its whole tree.
 *
 * Descendants are found by walking /proc/PID/task/TID/children (never a full
 * /proc scan). With proc_become_subreaper, grandchildren that daemonize are
 * re-parented to us, so walking our own children still finds them. */
#include "engine/proc.h"
#include "common/fsutil.h"
#include "common/guard.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* What the child reports through the CLOEXEC pipe when a step before or at
 * exec fails; nothing is written when exec succeeds. */
enum spawn_stage { ST_SETPGID = 1, ST_CGROUP, ST_OOM, ST_PIN, ST_CHDIR, ST_FDS, ST_EXEC };
struct spawn_fail {
    int stage;
    int index; /* which cgroup file, for ST_CGROUP */
    int errnum;
};

int proc_become_subreaper(char *err)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
        return util_err(err, "cannot become a child subreaper (prctl PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
    return 0;
}

/* State letter and process group of pid from /proc/PID/stat; 0 when gone. */
static char proc_state(pid_t pid, pid_t *pgrp)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* comm may contain spaces and parentheses: fields start after the last ')'. */
    char *p = strrchr(buf, ')');
    char st = 0;
    int ppid = 0, pg = 0;
    if (!p || sscanf(p + 1, " %c %d %d", &st, &ppid, &pg) != 3)
        return 0;
    if (pgrp)
        *pgrp = pg;
    return st;
}

/* Growable pid list. */
struct pidvec {
    pid_t *v;
    int n, cap;
};

static void pv_push(struct pidvec *pv, pid_t pid)
{
    if (pv->n == pv->cap) {
        pv->cap = pv->cap ? pv->cap * 2 : 64;
        pv->v = util_xrealloc(pv->v, (size_t)pv->cap * sizeof *pv->v);
    }
    pv->v[pv->n++] = pid;
}

static int pv_has(const struct pidvec *pv, pid_t pid)
{
    for (int i = 0; i < pv->n; i++)
        if (pv->v[i] == pid)
            return 1;
    return 0;
}

static int in_list(const pid_t *list, int n, pid_t pid)
{
    for (int i = 0; i < n; i++)
        if (list[i] == pid)
            return 1;
    return 0;
}

void proc_each_listed(const char *path, char **buf, size_t *cap, void (*fn)(pid_t, void *), void *arg)
{
    if (fsutil_read_all(path, buf, cap) <= 0)
        return;
    char *s = *buf, *end;
    for (;;) {
        long c = strtol(s, &end, 10);
        if (end == s)
            break;
        if (c > 0)
            fn((pid_t)c, arg);
        s = end;
    }
}

void proc_each_child(pid_t pid, int nthreads, char **buf, size_t *cap, void (*fn)(pid_t child, void *arg), void *arg)
{
    char path[320];
    if (nthreads == 1) {
        /* One thread: its tid is the pid, no need to list the task dir. */
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
        proc_each_listed(path, buf, cap, fn, arg);
        return;
    }
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%s/children", (int)pid, de->d_name);
        proc_each_listed(path, buf, cap, fn, arg);
    }
    closedir(d);
}

static void pv_push_new(pid_t c, void *arg)
{
    struct pidvec *pv = arg;
    if (!pv_has(pv, c))
        pv_push(pv, c);
}

/* Append pid's direct children (from every thread's children file) to pv. */
static void children_of(pid_t pid, struct pidvec *pv, char **buf, size_t *cap)
{
    proc_each_child(pid, 0, buf, cap, pv_push_new, pv);
}

/* Children of ours that no stop may touch (exec_remote's transports): the
 * one piece of module state, like guard's pid, because every stop of
 * every tree must see it. Only the main thread changes or reads it. */
static pid_t spared[PROC_SPARED_MAX];

int proc_spare(pid_t pid, int on)
{
    for (int i = 0; i < PROC_SPARED_MAX; i++)
        if (on ? spared[i] == 0 : spared[i] == pid) {
            spared[i] = on ? pid : 0;
            return 0;
        }
    return on ? -1 : 0;
}

static int is_spared(pid_t pid)
{
    for (int i = 0; i < PROC_SPARED_MAX; i++)
        if (spared[i] && spared[i] == pid)
            return 1;
    return 0;
}

/* Breadth-first walk below root; keep[] pids and their subtrees are skipped.
 * pv receives the descendants (root excluded). */
static void walk(pid_t root, const pid_t *keep, int nkeep, struct pidvec *pv)
{
    char *buf = NULL;
    size_t cap = 0;
    struct pidvec lvl = {0};
    children_of(root, &lvl, &buf, &cap);
    for (int i = 0; i < lvl.n; i++) {
        pid_t c = lvl.v[i];
        if (in_list(keep, nkeep, c) || pv_has(pv, c) || c == guard_pid() || is_spared(c)) /* guard hook (#18) */
            continue;
        pv_push(pv, c);
    }
    free(lvl.v);
    /* pv grows while we walk it: each new entry is visited in turn. */
    for (int i = 0; i < pv->n; i++) {
        struct pidvec kids = {0};
        children_of(pv->v[i], &kids, &buf, &cap);
        for (int k = 0; k < kids.n; k++)
            if (!in_list(keep, nkeep, kids.v[k]) && !pv_has(pv, kids.v[k]) && kids.v[k] != root)
                pv_push(pv, kids.v[k]);
        free(kids.v);
    }
    free(buf);
}

int proc_descendants(pid_t root, pid_t *out, int max)
{
    struct pidvec pv = {0};
    walk(root, NULL, 0, &pv);
    for (int i = 0; i < pv.n && i < max; i++)
        out[i] = pv.v[i];
    int n = pv.n;
    free(pv.v);
    return n;
}

/* Resolve argv[0] the way execvp would, but against the tool's PATH (from
 * envp), not ours. Returns a heap path, or NULL with err filled. */
static char *resolve_exe(const char *name, const char *const *envp, char *err)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) < 0) {
            util_err(err, "cannot run %s: %s", name, strerror(errno));
            return NULL;
        }
        return util_xstrdup(name);
    }
    const char *path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *const *e = envp; e && *e; e++)
        if (!strncmp(*e, "PATH=", 5))
            path = *e + 5;
    const char *p = path;
    for (;;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char *cand = len ? util_xasprintf("%.*s/%s", (int)len, p, name) : util_xasprintf("./%s", name);
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        if (!colon)
            break;
        p = colon + 1;
    }
    util_err(err, "cannot run %s: not found in PATH (install it or give its full path); PATH=%s", name, path);
    return NULL;
}

/* async-signal-safe decimal formatting for the child after fork. */
static size_t fmt_pid(char *buf, pid_t pid)
{
    char tmp[16];
    size_t n = 0, len = 0;
    unsigned long v = (unsigned long)pid;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        buf[len++] = tmp[--n];
    buf[len++] = '\n';
    return len;
}

static void child_fail(int fd, int stage, int index)
{
    struct spawn_fail f = {.stage = stage, .index = index, .errnum = errno};
    ssize_t w = write(fd, &f, sizeof f);
    (void)w;
    _exit(127);
}

/* Runs in the child between fork and exec: only async-signal-safe calls. */
static void child_main(const struct proc_spec *spec, const char *exe, int out_fd, int err_fd, int null_fd, int pipe_w,
                       pid_t parent, pid_t guard_parent_pid)
{
    if (setpgid(0, 0) < 0)
        child_fail(pipe_w, ST_SETPGID, 0);
    guard_child(guard_parent_pid); /* guard hook (#18): dies with us; its group is watched */
    if (spec->kill_with_parent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent) /* the parent died before prctl took effect */
            _exit(127);
    }
    /* Join the cgroups first, so everything the tool does is charged there. */
    for (int i = 0; i < 4 && spec->cgroup_procs[i]; i++) {
        char num[24];
        size_t len = fmt_pid(num, getpid());
        int fd = open(spec->cgroup_procs[i], O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, num, len) != (ssize_t)len)
            child_fail(pipe_w, ST_CGROUP, i);
        close(fd);
    }
    if (spec->oom_score_adj) {
        char num[24];
        size_t len;
        int v = spec->oom_score_adj;
        if (v < 0) {
            num[0] = '-';
            len = 1 + fmt_pid(num + 1, (pid_t)-v);
        } else {
            len = fmt_pid(num, (pid_t)v);
        }
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, num, len) != (ssize_t)len)
            child_fail(pipe_w, ST_OOM, 0);
        close(fd);
    }
    if (spec->cpus_mask) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int c = 0; c < 64; c++)
            if (spec->cpus_mask & ((uint64_t)1 << c))
                CPU_SET(c, &set);
        if (sched_setaffinity(0, sizeof set, &set) < 0)
            child_fail(pipe_w, ST_PIN, 0);
    }
    if (spec->cwd && chdir(spec->cwd) < 0)
        child_fail(pipe_w, ST_CHDIR, 0);
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        child_fail(pipe_w, ST_FDS, 0);
    /* No descriptor of ours leaks into the tool (sockets, run files). */
    syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
    /* Ignored signals and the blocked mask survive exec: give the tool the
     * defaults a shell would. */
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(exe, (char *const *)spec->argv, (char *const *)spec->envp);
    child_fail(pipe_w, ST_EXEC, 0);
}

static int open_out(const char *path, char *err)
{
    int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        util_err(err, "cannot create output file %s: %s", path ? path : "/dev/null", strerror(errno));
    return fd;
}

/* A copy of the caller's descriptor, so the cleanup below closes ours only. */
static int dup_out(int fd, char *err)
{
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0)
        util_err(err, "cannot duplicate an output descriptor: %s", strerror(errno));
    return d;
}

int proc_spawn(struct proc *p, const struct proc_spec *spec, char *err)
{
    int rc = -1, out_fd = -1, err_fd = -1, null_fd = -1, pfd[2] = {-1, -1};
    char *exe = NULL;

    memset(p, 0, sizeof *p);
    p->pid = -1;
    if (!spec->argv || !spec->argv[0]) {
        util_err(err, "no command to run (empty argv)");
        goto out;
    }
    if (!(exe = resolve_exe(spec->argv[0], spec->envp, err)))
        goto out;
    if ((out_fd = spec->stdout_fd > 0 ? dup_out(spec->stdout_fd, err) : open_out(spec->stdout_path, err)) < 0 ||
        (err_fd = spec->stderr_fd > 0 ? dup_out(spec->stderr_fd, err) : open_out(spec->stderr_path, err)) < 0)
        goto out;
    if ((null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        util_err(err, "cannot open /dev/null: %s", strerror(errno));
        goto out;
    }
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        util_err(err, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    p->started_ns = util_now_ns();
    pid_t parent = getpid(), gparent = guard_parent(); /* guard hook (#18) */
    pid_t pid = fork();
    if (pid < 0) {
        util_err(err, "cannot fork to run %s: %s", spec->argv[0], strerror(errno));
        goto out;
    }
    if (pid == 0) {
        close(pfd[0]);
        child_main(spec, exe, out_fd, err_fd, null_fd, pfd[1], parent, gparent);
    }
    /* Also set the group from our side, so that signalling the group right
     * after we return cannot race the child's own setpgid. EACCES after the
     * child has exec'd is fine: it did it itself. */
    setpgid(pid, pid);
    close(pfd[1]);
    pfd[1] = -1;

    struct spawn_fail f;
    ssize_t n;
    do
        n = read(pfd[0], &f, sizeof f);
    while (n < 0 && errno == EINTR);
    if (n == (ssize_t)sizeof f) {
        /* The child failed before running the tool: reap it, say why. */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        guard_forget_group(pid); /* guard hook (#18) */
        const char *what = "";
        switch (f.stage) {
        case ST_SETPGID: what = "cannot create its process group"; break;
        case ST_CGROUP: what = "cannot join cgroup"; break;
        case ST_OOM: what = "cannot set oom_score_adj"; break;
        case ST_PIN: what = "cannot pin it to the requested CPUs"; break;
        case ST_CHDIR: what = "cannot change to its working directory"; break;
        case ST_FDS: what = "cannot redirect its output"; break;
        case ST_EXEC: what = "exec failed"; break;
        }
        if (f.stage == ST_CGROUP)
            util_err(err, "cannot start %s: %s %s: %s", exe, what, spec->cgroup_procs[f.index], strerror(f.errnum));
        else if (f.stage == ST_CHDIR)
            util_err(err, "cannot start %s: %s %s: %s", exe, what, spec->cwd, strerror(f.errnum));
        else
            util_err(err, "cannot start %s: %s: %s", exe, what, strerror(f.errnum));
        goto out;
    }
    p->pid = pid;
    rc = 0;
out:
    if (rc < 0)
        p->pid = -1;
    free(exe);
    if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    if (null_fd >= 0)
        close(null_fd);
    if (pfd[0] >= 0)
        close(pfd[0]);
    if (pfd[1] >= 0)
        close(pfd[1]);
    return rc;
}

static void fill_exit(struct proc *p, int status, const struct rusage *ru)
{
    p->reaped = 1;
    p->exit.exited = WIFEXITED(status);
    p->exit.code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    p->exit.signaled = WIFSIGNALED(status);
    p->exit.sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    p->exit.ru = *ru;
}

/* Reap pid if it is our exited child; fills p->exit when it is p. Returns 1
 * when reaped. */
static int reap_one(struct proc *p, pid_t pid)
{
    int status;
    struct rusage ru;
    pid_t r;
    do
        r = wait4(pid, &status, WNOHANG, &ru);
    while (r < 0 && errno == EINTR);
    if (r < 0 && errno == ECHILD && p && pid == p->pid && !p->reaped) {
        /* No longer a child of ours: it is gone and its status was taken
         * elsewhere. Seen once, in a clean-clone .ci/run, for an lb-target
         * that had stopped cleanly on SIGTERM; waiting on would wait for
         * ever. */
        memset(&p->exit, 0, sizeof p->exit);
        p->exit.unknown = 1;
        p->reaped = 1;
        return 1;
    }
    if (r != pid)
        return 0;
    if (p && pid == p->pid)
        fill_exit(p, status, &ru);
    return 1;
}

int proc_poll(struct proc *p)
{
    if (p->pid <= 0 || p->stopped)
        return 1;
    if (!p->reaped)
        reap_one(p, p->pid);
    /* Orphans of the tool that were re-parented to us and stayed in its
     * process group. Orphans that left the group (setsid daemons) are not
     * reaped here: we cannot tell them from children other code of ours
     * waits for; proc_stop_tree reaps them. The group is the root's own,
     * so the root can be reaped here too, when it exits between the wait
     * above and this one: its status is then the one taken. Dropping it
     * made the next poll find no child and an unknown exit (an agent's
     * `exit 3` read as 0 once in CI; an lb-target stopped cleanly read
     * as unknown once before). */
    for (;;) {
        int status;
        struct rusage ru;
        pid_t r = wait4(-p->pid, &status, WNOHANG, &ru);
        if (r <= 0)
            break;
        if (r == p->pid && !p->reaped)
            fill_exit(p, status, &ru);
    }
    if (p->reaped)
        guard_forget_group(p->pid); /* guard hook (#18): once its group is empty */
    return p->reaped;
}

/* Our descendants that must go: the walk from us minus keep[] subtrees. */
static void targets(const pid_t *keep, int nkeep, struct pidvec *pv)
{
    pv->n = 0;
    walk(getpid(), keep, nkeep, pv);
}

/* Signal every listed live process not yet in done (when done is given,
 * each gets sig once: a second SIGTERM makes some tools, k6 for one, abort
 * their graceful stop). Returns how many were signalled now. */
static int signal_all(const struct pidvec *pv, int sig, struct pidvec *done)
{
    int n = 0;
    for (int i = 0; i < pv->n; i++) {
        if (done && pv_has(done, pv->v[i]))
            continue;
        char st = proc_state(pv->v[i], NULL);
        if (!st || st == 'Z' || st == 'X')
            continue;
        /* A tiny window remains where a grandchild exits, is reaped by its
         * own parent and its pid is reused before this kill; pids are
         * allocated cyclically, so that needs a full wrap in microseconds. */
        if (kill(pv->v[i], sig) == 0) {
            n++;
            if (done)
                pv_push(done, pv->v[i]);
        }
    }
    return n;
}

/* Reap our zombie children in pv; returns how many still exist (alive, or
 * zombies not yet ours to reap). */
static int reap_and_count(struct proc *p, const struct pidvec *pv)
{
    int left = 0;
    for (int i = 0; i < pv->n; i++) {
        if (reap_one(p, pv->v[i]))
            continue;
        if (proc_state(pv->v[i], NULL))
            left++;
    }
    return left;
}

static void nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Refresh pv with what is now below us, reap what has exited (p too) and
 * return how many are left. The children files are not exact while a task
 * is re-parented: a walk that reads our own list before the tool's
 * children move to us, and the tool's list after they left it, misses
 * them (once in a CI run, under ASan: an unreaped zombie after "none
 * left"). So a zero is only believed when a second walk agrees; the move
 * is over by the time the first walk has read the emptied list. */
static int still_there(struct proc *p, const pid_t *keep, int nkeep, struct pidvec *pv)
{
    int left = 0;
    for (int round = 0; round < 2 && !left; round++) {
        targets(keep, nkeep, pv);
        left = reap_and_count(p, pv);
        if (p->pid > 0 && !p->reaped)
            left += !reap_one(p, p->pid);
    }
    return left;
}

int proc_stop_tree(struct proc *p, const pid_t *keep, int nkeep, uint64_t term_grace_ns, char *err)
{
    int rc = -1;
    struct pidvec pv = {0}, termed = {0}, killed = {0};
    /* The group id stays p->pid while p is unreaped or any member remains;
     * once p is reaped, only signal the group if a member is still there. */
    int group_ok = p->pid > 0 && !p->reaped;

    targets(keep, nkeep, &pv);
    if (!group_ok && p->pid > 0 && !p->stopped)
        for (int i = 0; i < pv.n && !group_ok; i++) {
            pid_t pg = 0;
            if (proc_state(pv.v[i], &pg) && pg == p->pid)
                group_ok = 1;
        }
    if (group_ok) {
        kill(-p->pid, SIGTERM);
        for (int i = 0; i < pv.n; i++) {
            pid_t pg = 0;
            if (proc_state(pv.v[i], &pg) && pg == p->pid)
                pv_push(&termed, pv.v[i]);
        }
    }
    signal_all(&pv, SIGTERM, &termed);
    signal_all(&pv, SIGCONT, NULL); /* a stopped process handles SIGTERM only when continued */

    uint64_t deadline = util_now_ns() + term_grace_ns;
    for (;;) {
        int left = still_there(p, keep, nkeep, &pv);
        if (!left)
            goto done;
        if (util_now_ns() >= deadline)
            break;
        /* Processes forked after our SIGTERM are left alone during the
         * grace: they belong to a shutdown in progress (a report writer,
         * a sanitizer's leak-check tracer); what is still there when the
         * grace ends gets SIGKILL. */
        nap_ms(5);
    }

    /* Grace is over: SIGKILL what remains, including anything it forks
     * meanwhile, until nothing is left (bounded: D-state sleepers). */
    uint64_t hard = util_now_ns() + 5000000000ull;
    for (;;) {
        /* Count before killing: once the group is SIGKILLed its members
         * turn into zombies before we look. */
        for (int i = 0; i < pv.n; i++) {
            char st = proc_state(pv.v[i], NULL);
            if (st && st != 'Z' && st != 'X' && !pv_has(&killed, pv.v[i]))
                pv_push(&killed, pv.v[i]);
        }
        if (p->pid > 0 && !p->reaped)
            kill(-p->pid, SIGKILL);
        signal_all(&pv, SIGKILL, NULL);
        nap_ms(2);
        int left = still_there(p, keep, nkeep, &pv);
        if (!left)
            goto done;
        if (util_now_ns() >= hard) {
            util_err(err, "%d process(es) of the tool (pid %d) still exist 5 s after SIGKILL (stuck in the kernel?)", left,
                     (int)p->pid);
            goto out;
        }
    }
done:
    rc = killed.n;
    p->stopped = p->pid > 0;
    guard_forget_group(p->pid); /* guard hook (#18) */
out:
    free(pv.v);
    free(termed.v);
    free(killed.v);
    return rc;
}

char **proc_clean_env(const char *home, const char *tmp, const char *const *extra)
{
    const char *path = getenv("PATH");
    char *base[5];
    int nb = 0;
    base[nb++] = util_xasprintf("PATH=%s", path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    base[nb++] = util_xstrdup("LANG=C.UTF-8");
    base[nb++] = util_xstrdup("TZ=UTC");
    if (home)
        base[nb++] = util_xasprintf("HOME=%s", home);
    if (tmp)
        base[nb++] = util_xasprintf("TMPDIR=%s", tmp);

    int nextra = 0;
    while (extra && extra[nextra])
        nextra++;
    char **env = util_xcalloc((size_t)(nb + nextra + 1), sizeof *env);
    int n = 0;
    /* An extra NAME=value replaces our default for NAME. */
    for (int i = 0; i < nb; i++) {
        size_t klen = (size_t)(strchr(base[i], '=') - base[i]) + 1;
        int overridden = 0;
        for (int k = 0; k < nextra; k++)
            if (!strncmp(extra[k], base[i], klen))
                overridden = 1;
        if (overridden)
            free(base[i]);
        else
            env[n++] = base[i];
    }
    for (int k = 0; k < nextra; k++)
        env[n++] = util_xstrdup(extra[k]);
    env[n] = NULL;
    return env;
}

void proc_env_free(char **envp)
{
    if (!envp)
        return;
    for (char **e = envp; *e; e++)
        free(*e);
    free(envp);
}
