/* guard: a stand-in loadbench (a forked child of this test) starts the
 * guardian, spawns a tool whose own child stays in its process group, and
 * is killed with SIGKILL: the tool (parent death signal), its child (the
 * guardian's group kill) and the guardian itself are gone within 2 s. And
 * when the stand-in ends normally, the guardian leaves with it. */
#include "common/guard.h"
#include "engine/proc.h"
#include "tests/tap.h"
#include "common/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[64];

/* Alive and not a zombie. */
static int live(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[2] != 'Z' && p[2] != 'X';
}

/* The stand-in: guardian, subreaper, one tool `sh -c 'sleep 300 & ...'`;
 * reports guardian, tool and grandchild pids on fd out, then sleeps (or
 * returns at once when finish is set, stopping the tool first). */
static void stand_in(int out, int finish)
{
    char err[UTIL_ERR_LEN];
    if (guard_start(err) < 0)
        _exit(3);
    proc_become_subreaper(err);
    char script[256];
    snprintf(script, sizeof script, "sleep 300 & echo $! > %s/child.pid; wait", tmpdir);
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    const char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    struct proc_spec spec = {.argv = argv, .envp = envp};
    struct proc p;
    if (proc_spawn(&p, &spec, err) < 0)
        _exit(4);
    char path[128], line[32] = "";
    snprintf(path, sizeof path, "%s/child.pid", tmpdir);
    for (int i = 0; i < 500 && !line[0]; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(line, sizeof line, f))
                line[0] = 0;
            fclose(f);
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    pid_t pids[3] = {guard_pid(), p.pid, (pid_t)atoi(line)};
    if (write(out, pids, sizeof pids) != (ssize_t)sizeof pids)
        _exit(5);
    if (finish) {
        proc_stop_tree(&p, NULL, 0, 1000000000ull, err);
        guard_stop();
        _exit(0);
    }
    for (;;)
        pause();
}

/* Returns ms until none of pids is alive, or -1 after 2 s. */
static long gone_within_2s(const pid_t *pids, int n)
{
    uint64_t t0 = util_now_ns();
    while (util_now_ns() - t0 < 2000000000ull) {
        int any = 0;
        for (int i = 0; i < n; i++)
            any |= live(pids[i]);
        if (!any)
            return (long)((util_now_ns() - t0) / 1000000);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static void run_case(int finish)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return;
    pid_t lb = fork();
    if (lb == 0) {
        close(pfd[0]);
        stand_in(pfd[1], finish);
    }
    close(pfd[1]);
    pid_t pids[3] = {0, 0, 0};
    ssize_t n = read(pfd[0], pids, sizeof pids);
    close(pfd[0]);
    if (!ok(n == (ssize_t)sizeof pids && pids[0] > 0 && pids[1] > 0 && pids[2] > 0,
            "%s: the stand-in runs a guardian (%d), a tool (%d) and the tool's child (%d)",
            finish ? "normal end" : "SIGKILL", (int)pids[0], (int)pids[1], (int)pids[2])) {
        kill(lb, SIGKILL);
        waitpid(lb, NULL, 0);
        return;
    }
    if (finish) {
        int st = 0;
        waitpid(lb, &st, 0);
        ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "normal end: the stand-in stopped its tool and exited 0");
        ok(!live(pids[0]), "normal end: the guardian was gone when guard_stop returned");
        return;
    }
    ok(live(pids[1]) && live(pids[2]), "SIGKILL: tool and child run before");
    kill(lb, SIGKILL);
    waitpid(lb, NULL, 0);
    long ms = gone_within_2s(pids, 3);
    ok(ms >= 0, "SIGKILL: tool, its child and the guardian are gone within 2 s (%ld ms)", ms);
    for (int i = 0; i < 3; i++)
        if (live(pids[i])) {
            diag("  pid %d still alive: killing it", (int)pids[i]);
            kill(pids[i], SIGKILL);
        }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lb-test-guard-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    alarm(30);
    /* Orphans of the stand-in come back to us to be reaped. */
    char err[UTIL_ERR_LEN];
    proc_become_subreaper(err);
    run_case(0);
    char path[128];
    snprintf(path, sizeof path, "%s/child.pid", tmpdir);
    unlink(path);
    run_case(1);
    unlink(path);
    rmdir(tmpdir);
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return done_testing();
}
