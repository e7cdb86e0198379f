/* guard: the parent death signal for our children and a guardian process
 * that stops their trees and cgroups when loadbench dies (see guard.h). */
#include "common/guard.h"
#include "common/strbuf.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long groups get between SIGTERM and SIGKILL once loadbench is gone:
 * nobody is left to read a graceful result, so this only lets a tool
 * remove its temporary files. */
#define GUARD_TERM_GRACE_MS 300

enum { G_GROUP = 1, G_UNGROUP, G_CGROUP, G_UNCGROUP, G_DIR, G_UNDIR };

/* One message per write; at most PIPE_BUF bytes, so writes from loadbench
 * and from children between fork and exec never interleave. */
struct guard_msg {
    int op;
    pid_t pgid;
    struct cgroup cg;
    char dir[1024];             /* G_DIR, G_UNDIR */
};
_Static_assert(sizeof(struct guard_msg) <= PIPE_BUF, "a guard message must be one atomic pipe write");

/* Module state, see guard.h: the write end (-1 without a guardian) and the
 * guardian's pid. */
static int guard_wfd = -1;
static pid_t guard_gpid;

static void send_msg(const struct guard_msg *m)
{
    ssize_t w;
    do
        w = write(guard_wfd, m, sizeof *m);
    while (w < 0 && errno == EINTR);
}

pid_t guard_pid(void)
{
    return guard_gpid;
}

pid_t guard_parent(void)
{
    pid_t self = getpid();
    return (pid_t)syscall(SYS_gettid) == self ? self : 0;
}

void guard_child(pid_t parent)
{
    if (parent > 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent) /* it died before the prctl took effect */
            _exit(127);
    }
    if (guard_wfd >= 0 && getpgrp() == getpid()) {
        struct guard_msg m;
        memset(&m, 0, sizeof m);
        m.op = G_GROUP;
        m.pgid = getpid();
        send_msg(&m);
    }
}

void guard_forget_group(pid_t pgid)
{
    if (guard_wfd < 0 || pgid <= 0)
        return;
    /* A group id cannot be reused while a member (zombies too) remains. */
    if (kill(-pgid, 0) == 0 || errno != ESRCH)
        return;
    struct guard_msg m;
    memset(&m, 0, sizeof m);
    m.op = G_UNGROUP;
    m.pgid = pgid;
    send_msg(&m);
}

static void cgroup_msg(int op, const struct cgroup *cg)
{
    if (guard_wfd < 0)
        return;
    struct guard_msg m;
    memset(&m, 0, sizeof m);
    m.op = op;
    m.cg = *cg;
    send_msg(&m);
}

void guard_watch_cgroup(const struct cgroup *cg)
{
    cgroup_msg(G_CGROUP, cg);
}

void guard_forget_cgroup(const struct cgroup *cg)
{
    cgroup_msg(G_UNCGROUP, cg);
}

static void dir_msg(int op, const char *dir)
{
    if (guard_wfd < 0 || strlen(dir) >= sizeof ((struct guard_msg *)0)->dir)
        return;
    struct guard_msg m;
    memset(&m, 0, sizeof m);
    m.op = op;
    snprintf(m.dir, sizeof m.dir, "%s", dir);
    send_msg(&m);
}

void guard_watch_dir(const char *dir)
{
    dir_msg(G_DIR, dir);
}

void guard_forget_dir(const char *dir)
{
    dir_msg(G_UNDIR, dir);
}

/* ---- the guardian ---------------------------------------------------------- */

struct watched {
    pid_t *groups;
    int ngroups, capgroups;
    struct cgroup *cgs;
    int ncgs, capcgs;
    struct strvec dirs;
};

static void apply(struct watched *w, const struct guard_msg *m)
{
    switch (m->op) {
    case G_GROUP:
        if (w->ngroups == w->capgroups) {
            w->capgroups = w->capgroups ? w->capgroups * 2 : 16;
            w->groups = util_xrealloc(w->groups, (size_t)w->capgroups * sizeof *w->groups);
        }
        w->groups[w->ngroups++] = m->pgid;
        break;
    case G_UNGROUP:
        for (int i = 0; i < w->ngroups; i++)
            if (w->groups[i] == m->pgid)
                w->groups[i--] = w->groups[--w->ngroups];
        break;
    case G_CGROUP:
        if (w->ncgs == w->capcgs) {
            w->capcgs = w->capcgs ? w->capcgs * 2 : 8;
            w->cgs = util_xrealloc(w->cgs, (size_t)w->capcgs * sizeof *w->cgs);
        }
        w->cgs[w->ncgs++] = m->cg;
        break;
    case G_UNCGROUP:
        for (int i = 0; i < w->ncgs; i++)
            if (!strcmp(w->cgs[i].cpu_dir, m->cg.cpu_dir))
                w->cgs[i--] = w->cgs[--w->ncgs];
        break;
    case G_DIR:
        strvec_push(&w->dirs, m->dir);
        break;
    case G_UNDIR:
        for (size_t i = 0; i < w->dirs.n; i++)
            if (!strcmp(w->dirs.v[i], m->dir))
                w->dirs.v[i][0] = 0; /* forgotten */
        break;
    }
}

/* Process group and session of pid from /proc; 0 when it is gone, 'Z' for a
 * zombie, else its state letter. */
static char stat_of(pid_t pid, pid_t *pgrp, pid_t *sid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (fsutil_read_small(path, buf, sizeof buf) <= 0)
        return 0;
    char *p = strrchr(buf, ')'), st = 0;
    int ppid = 0, pg = 0, s = 0;
    if (!p || sscanf(p + 1, " %c %d %d %d", &st, &ppid, &pg, &s) != 4)
        return 0;
    *pgrp = pg;
    *sid = s;
    return st;
}

/* A group id is still the one announced unless its number now names a
 * process that leads no group of that id or lives in another session (a
 * group id is reused only after the group is empty). */
static int group_ours(pid_t pgid)
{
    pid_t pg = 0, sid = 0;
    if (!stat_of(pgid, &pg, &sid))
        return 1;
    return pg == pgid && sid == getsid(0);
}

/* Live (not zombie) members of any watched group, by one walk of /proc:
 * this runs only once loadbench is gone. */
static int any_live(const struct watched *w)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    struct dirent *de;
    int live = 0;
    while (!live && (de = readdir(d))) {
        if (de->d_name[0] < '1' || de->d_name[0] > '9')
            continue;
        pid_t pg = 0, sid = 0;
        char st = stat_of((pid_t)atoi(de->d_name), &pg, &sid);
        if (!st || st == 'Z' || st == 'X')
            continue;
        for (int i = 0; i < w->ngroups && !live; i++)
            live = pg == w->groups[i];
    }
    closedir(d);
    return live;
}

static void signal_groups(const struct watched *w, int sig)
{
    for (int i = 0; i < w->ngroups; i++) {
        kill(-w->groups[i], sig);
        if (sig == SIGTERM) /* a stopped member handles SIGTERM only when continued */
            kill(-w->groups[i], SIGCONT);
    }
}

static void rmdir_soon(const char *dir)
{
    /* Killed members leave the cgroup asynchronously. What is still busy
     * after 200 ms is left to the next loadbench's sweep (doctor). */
    for (int tries = 0; tries < 40 && dir[0]; tries++) {
        if (rmdir(dir) == 0 || errno != EBUSY)
            return;
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

static void stop_everything(struct watched *w)
{
    for (int i = 0; i < w->ngroups; i++)
        if (!group_ours(w->groups[i]))
            w->groups[i--] = w->groups[--w->ngroups];
    if (w->ngroups) {
        signal_groups(w, SIGTERM);
        uint64_t until = util_now_ns() + GUARD_TERM_GRACE_MS * 1000000ull;
        while (util_now_ns() < until && any_live(w)) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        signal_groups(w, SIGKILL);
    }
    for (int i = 0; i < w->ncgs; i++) {
        cgroup_kill_all(&w->cgs[i], NULL);
        rmdir_soon(w->cgs[i].cpu_dir);
        if (!w->cgs[i].v2)
            rmdir_soon(w->cgs[i].mem_dir);
    }
    for (size_t i = 0; i < w->dirs.n; i++) /* after the groups: nothing writes there now */
        if (w->dirs.v[i][0])
            fsutil_remove_tree(w->dirs.v[i]);
}

static void guardian_main(int rfd)
{
    /* Its own process group: a signal to loadbench's group (a terminal's
     * ^C, a job's kill of the group) leaves it to do its work; it ignores
     * the polite signals, and goes when the pipe tells it to. */
    setpgid(0, 0);
    prctl(PR_SET_NAME, "lb-guard", 0, 0, 0);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_IGN);
    /* Hold nothing of ours: no terminal, no pipe a caller waits on. */
    int hi = fcntl(rfd, F_DUPFD, 10);
    if (hi >= 0)
        rfd = hi;
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) {
        dup2(nul, 0);
        dup2(nul, 1);
        dup2(nul, 2);
    }
    dup2(rfd, 3);
    rfd = 3;
    syscall(SYS_close_range, 4u, ~0u, 0u);

    struct watched w;
    memset(&w, 0, sizeof w);
    struct guard_msg m;
    for (;;) {
        ssize_t n = read(rfd, &m, sizeof m);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof m)
            break; /* EOF: loadbench is gone */
        apply(&w, &m);
    }
    stop_everything(&w);
    _exit(0);
}

int guard_start(char *err)
{
    if (guard_wfd >= 0)
        return 0;
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return util_err(err, "cannot create the guardian's pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return util_err(err, "cannot fork the guardian: %s", strerror(errno));
    }
    if (pid == 0) {
        close(pfd[1]);
        guardian_main(pfd[0]);
    }
    close(pfd[0]);
    guard_wfd = pfd[1];
    guard_gpid = pid;
    static const struct cgroup_watcher w = {guard_watch_cgroup, guard_forget_cgroup};
    cgroup_set_watcher(&w);
    return 0;
}

void guard_stop(void)
{
    if (guard_wfd < 0)
        return;
    close(guard_wfd);
    guard_wfd = -1;
    while (waitpid(guard_gpid, NULL, 0) < 0 && errno == EINTR)
        ;
    guard_gpid = 0;
    cgroup_set_watcher(NULL);
}
