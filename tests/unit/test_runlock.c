/* runlock_start_time and runlock_owner_dead: what "this process is gone"
 * means to the run lock, the stale-cgroup sweep and the temp-file clean-up
 * of an abandoned run; runlock_mkdir and the removal of a dead builder's
 * staging directory. Real processes, forked here. */
#include "engine/runlock.h"
#include "tests/tap.h"
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child that names itself comm (when not NULL), says so on a pipe and
 * waits to be killed. */
static pid_t child(const char *comm)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        if (comm)
            prctl(PR_SET_NAME, comm);
        if (write(p[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    close(p[1]);
    if (pid > 0 && read(p[0], &c, 1) != 1)
        pid = -1;
    close(p[0]);
    return pid;
}

static int exists(const char *dir, const char *name)
{
    char p[PATH_MAX];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

/* A run directory is made with its lock inside and never over anything;
 * a staging directory whose builder is gone is removed, a live one's kept. */
static void test_mkdir(pid_t dead, pid_t live)
{
    char root[] = "/tmp/lb-runlock.XXXXXX", run[PATH_MAX], err[512] = "", stage[PATH_MAX];
    if (!mkdtemp(root)) {
        ok(0, "mkdtemp");
        return;
    }
    snprintf(run, sizeof run, "%s/r1", root);
    ok(runlock_mkdir(run, err) == 0 && exists(run, "loadbench.lock"), "runlock_mkdir: made with its lock inside");
    snprintf(stage, sizeof stage, ".r1.lbnew.%d", (int)getpid());
    ok(!exists(root, stage), "no staging directory left beside it");
    ok(runlock_mkdir(run, err) < 0 && strstr(err, "already exists"), "a second one is refused: %s", err);
    snprintf(run, sizeof run, "%s/empty", root);
    mkdir(run, 0755);
    ok(runlock_mkdir(run, err) < 0 && strstr(err, "already exists") && !exists(run, "loadbench.lock"),
       "an empty directory of that name is not taken over");
    snprintf(run, sizeof run, "%s/nofile/r", root);
    ok(runlock_mkdir(run, err) < 0 && strstr(err, "cannot create the run directory"), "no parent: %s", err);

    /* A builder killed between its mkdir and its rename left these. */
    snprintf(stage, sizeof stage, "%s/.r2.lbnew.%d", root, (int)dead);
    mkdir(stage, 0755);
    char tmpf[PATH_MAX + 64];
    snprintf(tmpf, sizeof tmpf, "%s/loadbench.lock.tmp.%d", stage, (int)dead);
    FILE *f = fopen(tmpf, "w");
    if (f)
        fclose(f);
    snprintf(stage, sizeof stage, "%s/.r3.lbnew.%d", root, (int)live);
    mkdir(stage, 0755);
    ok(runlock_reap_all(root, err) == 0, "reap_all: nothing to mark abandoned");
    snprintf(run, sizeof run, ".r2.lbnew.%d", (int)dead);
    ok(!exists(root, run), "a dead builder's staging directory is removed, with what it held");
    snprintf(run, sizeof run, ".r3.lbnew.%d", (int)live);
    ok(exists(root, run), "a live builder's is kept");
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        diag("cannot remove %s", root);
}

int main(void)
{
    uint64_t self = 0, st = 0, again = 0;
    ok(runlock_start_time(getpid(), &self) == 0 && self > 0, "this process has a start time (%llu)",
       (unsigned long long)self);

    pid_t c = child(NULL);
    if (c < 0) {
        printf("Bail out! fork or pipe failed\n");
        return 1;
    }
    ok(runlock_start_time(c, &st) == 0 && st >= self, "a live child has one, no earlier than ours");
    ok(!runlock_owner_dead(c, st), "a live child with its start time is not dead");
    ok(!runlock_owner_dead(c, 0), "nor with an unknown start time (0 proves nothing)");
    ok(runlock_owner_dead(c, st + 1), "its pid with another start time is another process: the owner is dead");

    /* Killed and exited, not yet waited for: a zombie. Its /proc/PID/stat
     * is still there, start time and all; it is gone all the same. */
    kill(c, SIGKILL);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    int w = waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT);
    ok(w == 0 && si.si_pid == c, "the child exited (not yet reaped)");
    ok(runlock_start_time(c, &again) < 0, "a zombie has no start time: it is gone");
    ok(runlock_owner_dead(c, st), "a zombie owner is dead");
    waitpid(c, NULL, 0);
    ok(runlock_start_time(c, &again) < 0 && runlock_owner_dead(c, st), "and so is a reaped one");
    test_mkdir(c, getpid());
    ok(runlock_start_time(0, &again) < 0 && runlock_start_time(-1, &again) < 0, "pids 0 and -1 are no process");

    /* comm is free text: a name that reads like a zombie's state and more
     * fields must not fool the parse (fields count after the last ')'). */
    pid_t n = child("a) Z 1 2 (b");
    ok(n > 0 && runlock_start_time(n, &again) == 0 && again >= st, "a live process named \"a) Z 1 2 (b\" is alive");
    if (n > 0) {
        kill(n, SIGKILL);
        waitpid(n, NULL, 0);
    }
    return done_testing();
}
