/* Unit tests for harness/proc: process groups, clean environment, output
 * files, exec failures, daemonizing and SIGTERM-ignoring tools, keep[]. */
#include "engine/proc.h"
#include "engine/exec.h"
#include "remote/agentproto.h"
#include "tests/tap.h"
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256];
static char progs[512];

/* Watchdog: processes and groups we started, killed if the test hangs. */
static volatile pid_t groups[32];
static volatile int ngroups;

static void on_alarm(int sig)
{
    (void)sig;
    for (int i = 0; i < ngroups; i++) {
        kill(-groups[i], SIGKILL);
        kill(groups[i], SIGKILL);
    }
    static const char msg[] = "Bail out! test_proc timed out\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static void track(pid_t pgid)
{
    if (ngroups < 32)
        groups[ngroups++] = pgid;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return util_xstrdup("");
    char *buf = util_xcalloc(1, 65536);
    size_t n = fread(buf, 1, 65535, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Poll p until it exits (or timeout); returns 1 when reaped. */
static int wait_exit(struct proc *p, long timeout_ms)
{
    for (long t = 0; t < timeout_ms; t += 5) {
        if (proc_poll(p))
            return 1;
        nap_ms(5);
    }
    return proc_poll(p);
}

/* Wait until a file has some content. */
static int wait_file(const char *path, long timeout_ms)
{
    for (long t = 0; t < timeout_ms; t += 5) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size > 0)
            return 1;
        nap_ms(5);
    }
    return 0;
}

static int alive(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    return access(path, F_OK) == 0;
}

static int spawn(struct proc *p, const char *const *argv, const char *out, const char *errp, char *err)
{
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env, .cwd = tmpdir, .stdout_path = out, .stderr_path = errp};
    int rc = proc_spawn(p, &spec, err);
    if (rc == 0)
        track(p->pid);
    proc_env_free(env);
    return rc;
}

static void test_env(void)
{
    char err[UTIL_ERR_LEN] = "";
    setenv("JAVA_OPTS", "-Xmx64g", 1);
    setenv("NODE_OPTIONS", "--max-old-space-size=1", 1);
    setenv("K6_X", "polluted", 1);
    setenv("LOCUST_HOST", "polluted", 1);
    char home[300], out[300];
    snprintf(home, sizeof home, "%s/home", tmpdir);
    mkdir(home, 0700);
    snprintf(out, sizeof out, "%s/env.out", tmpdir);
    const char *extra[] = {"GOMAXPROCS=1", "TZ=Europe/Paris", NULL};
    char **env = proc_clean_env(home, tmpdir, extra);
    const char *argv[] = {"env", NULL};
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env, .cwd = tmpdir, .stdout_path = out};
    struct proc p;
    int rc = proc_spawn(&p, &spec, err);
    if (!ok(rc == 0, "spawn env (found through the clean PATH)"))
        diag("  %s", err);
    proc_env_free(env);
    if (rc)
        return;
    track(p.pid);
    if (!ok(wait_exit(&p, 5000) && p.exit.exited && p.exit.code == 0, "env exits 0"))
        diag("  reaped %d exited %d code %d signaled %d sig %d unknown %d", p.reaped, p.exit.exited, p.exit.code,
             p.exit.signaled, p.exit.sig, p.exit.unknown);
    char *s = slurp(out);
    ok(!strstr(s, "JAVA_OPTS") && !strstr(s, "NODE_OPTIONS") && !strstr(s, "K6_") && !strstr(s, "LOCUST_"),
       "the tool does not see JAVA_OPTS, NODE_OPTIONS, K6_*, LOCUST_* of ours");
    char want[400];
    snprintf(want, sizeof want, "HOME=%s\n", home);
    ok(strstr(s, want) != NULL, "HOME is the fresh directory");
    ok(strstr(s, "GOMAXPROCS=1\n") && strstr(s, "TZ=Europe/Paris\n") && !strstr(s, "TZ=UTC"),
       "extra settings are passed and override defaults");
    ok(strstr(s, "PATH=") && strstr(s, "LANG=C.UTF-8\n"), "PATH and LANG are set");
    int lines = 0;
    for (char *c = s; *c; c++)
        lines += *c == '\n';
    ok(lines == 6, "nothing else is inherited (%d variables)", lines);
    if (lines != 6)
        diag("%s", s);
    free(s);
}

/* proc_poll spun with no sleep while `exit 3` ends: the root exits at a
 * random point of the loop, often between its own wait and the wait on
 * its group (the root's group), which once took its status and dropped
 * it (the exit read unknown, code 0). Each of 100 spawns must read 3. */
static void test_poll_race(void)
{
    const char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
    int good = 0, n = 100;
    char err[UTIL_ERR_LEN] = "", last[160] = "";
    for (int i = 0; i < n; i++) {
        struct proc p;
        if (spawn(&p, argv, NULL, NULL, err)) {
            snprintf(last, sizeof last, "spawn: %.120s", err);
            continue;
        }
        uint64_t t0 = util_now_ns();
        while (!proc_poll(&p) && util_now_ns() - t0 < 5000000000ull)
            ;
        if (p.reaped && p.exit.exited && p.exit.code == 3 && !p.exit.unknown)
            good++;
        else
            snprintf(last, sizeof last, "reaped %d exited %d code %d unknown %d", p.reaped, p.exit.exited,
                     p.exit.code, p.exit.unknown);
    }
    if (!ok(good == n, "proc_poll spun: %d of %d roots read their exit 3", good, n))
        diag("  the last other: %s", last);
}

/* A root whose status another waitpid took (the ECHILD path of
 * reap_one): its exit is unknown, never a clean exit with 0 CPU - in
 * proc, through exec_local's exec_exit, and across the agent protocol
 * (where an old agent's exit, without the field, stays known). */
static void test_exit_lost(void)
{
    const char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
    char err[UTIL_ERR_LEN] = "";
    struct proc p;
    if (!ok(spawn(&p, argv, NULL, NULL, err) == 0, "spawn exit 3"))
        diag("  %s", err);
    int status;
    ok(waitpid(p.pid, &status, 0) == p.pid && WEXITSTATUS(status) == 3, "its status taken by another waitpid");
    ok(proc_poll(&p) && p.reaped, "proc_poll: gone (wait4 said ECHILD)");
    is_u64(p.exit.unknown * 10 + p.exit.exited, 10, "proc: exit.unknown, not exited with code 0");

    struct exec_spec spec = {.name = "lost", .argv = argv, .dir = tmpdir};
    struct exec_tree *t = NULL;
    if (!ok(exec_local.spawn(&exec_local, &spec, &t, err) == 0, "exec_local spawn exit 3"))
        diag("  %s", err);
    if (!t)
        return;
    track(t->pid);
    ok(waitpid(t->pid, &status, 0) == t->pid, "its status taken by another waitpid");
    ok(t->ex->poll(t) && t->ended, "exec_local poll: ended");
    is_u64(t->exit.unknown * 10 + t->exit.exited, 10, "exec_exit: unknown carried, not exited");

    json_t *j = agentproto_exit_json(&t->exit);
    struct exec_exit back;
    agentproto_exit_from(j, &back);
    is_u64(back.unknown, 1, "agent protocol: unknown carried across");
    json_object_del(j, "unknown");
    agentproto_exit_from(j, &back);
    is_u64(back.unknown, 0, "agent protocol: an old agent's exit (no field) is known");
    json_decref(j);
    t->ex->free(t);
}

static void test_group_and_files(void)
{
    char err[UTIL_ERR_LEN] = "", out[300], errp[300];
    snprintf(out, sizeof out, "%s/o.txt", tmpdir);
    snprintf(errp, sizeof errp, "%s/e.txt", tmpdir);
    const char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; pwd; exit 3", NULL};
    struct proc p;
    if (!ok(spawn(&p, argv, out, errp, err) == 0, "spawn sh"))
        diag("  %s", err);
    ok(wait_exit(&p, 5000) && p.exit.exited && p.exit.code == 3, "exit code 3 is reported");
    char *o = slurp(out), *e = slurp(errp);
    char want[400];
    snprintf(want, sizeof want, "out\n%s\n", tmpdir);
    is_str(o, want, "stdout went to its file, cwd is the run directory");
    is_str(e, "err\n", "stderr went to its file");
    free(o);
    free(e);

    const char *sl[] = {"sleep", "30", NULL};
    uint64_t t0 = util_now_ns();
    if (!ok(spawn(&p, sl, NULL, NULL, err) == 0, "spawn sleep"))
        diag("  %s", err);
    ok(getpgid(p.pid) == p.pid, "the tool leads its own process group");
    ok(getpgid(p.pid) != getpgid(0), "which is not ours");
    ok(p.started_ns >= t0 && p.started_ns <= util_now_ns(), "started_ns is set");
    ok(proc_poll(&p) == 0, "proc_poll: still running");
    int killed = proc_stop_tree(&p, NULL, 0, 2000000000ull, err);
    ok(killed == 0, "a tool that honours SIGTERM needs no SIGKILL");
    ok(p.reaped && p.exit.signaled && p.exit.sig == SIGTERM, "its exit (SIGTERM) is recorded");
    ok(!alive(p.pid), "and it is gone from /proc");
}

static void test_pin_oom(void)
{
    char err[UTIL_ERR_LEN] = "";
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    const char *sl[] = {"sleep", "30", NULL};
    struct proc_spec spec = {.argv = sl, .envp = (const char *const *)env, .cpus_mask = 1u << 1, .oom_score_adj = 1000};
    struct proc p;
    if (!ok(proc_spawn(&p, &spec, err) == 0, "spawn pinned, oom_score_adj 1000"))
        diag("  %s", err);
    track(p.pid);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/oom_score_adj", (int)p.pid);
    char *s = slurp(path);
    is_str(s, "1000\n", "oom_score_adj is 1000");
    free(s);
    snprintf(path, sizeof path, "/proc/%d/status", (int)p.pid);
    s = slurp(path);
    ok(strstr(s, "Cpus_allowed_list:\t1\n") != NULL, "pinned to CPU 1");
    free(s);
    ok(proc_stop_tree(&p, NULL, 0, 1000000000ull, err) == 0, "stopped");
    proc_env_free(env);
}

static void test_exec_failures(void)
{
    char err[UTIL_ERR_LEN] = "";
    struct proc p;
    const char *a1[] = {"/nonexistent/bin/tool", NULL};
    ok(spawn(&p, a1, NULL, NULL, err) == -1 && strstr(err, "/nonexistent/bin/tool") && strstr(err, "No such file"),
       "missing binary: %s", err);
    const char *a2[] = {"no-such-tool-lb", NULL};
    ok(spawn(&p, a2, NULL, NULL, err) == -1 && strstr(err, "no-such-tool-lb") && strstr(err, "not found in PATH"),
       "not in PATH: %s", err);
    char bad[300];
    snprintf(bad, sizeof bad, "%s/not-a-binary", tmpdir);
    FILE *f = fopen(bad, "w");
    fputs("\x01\x02 garbage\n", f);
    fclose(f);
    chmod(bad, 0755);
    const char *a3[] = {bad, NULL};
    ok(spawn(&p, a3, NULL, NULL, err) == -1 && strstr(err, "exec failed") && strstr(err, "Exec format error"),
       "exec failure in the child is reported: %s", err);
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    const char *a4[] = {"true", NULL};
    struct proc_spec spec = {.argv = a4, .envp = (const char *const *)env, .cwd = "/nonexistent-dir"};
    ok(proc_spawn(&p, &spec, err) == -1 && strstr(err, "/nonexistent-dir"), "bad cwd is reported: %s", err);
    struct proc_spec spec2 = {.argv = a4, .envp = (const char *const *)env, .stdout_path = "/nonexistent-dir/out"};
    ok(proc_spawn(&p, &spec2, err) == -1 && strstr(err, "/nonexistent-dir/out"), "bad output path is reported: %s", err);
    proc_env_free(env);
    ok(proc_descendants(getpid(), NULL, 0) == 0, "failed spawns leave no child behind");
}

static pid_t read_pidfile(const char *path)
{
    if (!wait_file(path, 5000))
        return -1;
    nap_ms(5);
    char *s = slurp(path);
    pid_t pid = (pid_t)atoi(s);
    free(s);
    return pid;
}

static pid_t ppid_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    char *s = slurp(path);
    char *c = strrchr(s, ')');
    int ppid = -1;
    if (c)
        sscanf(c + 1, " %*c %d", &ppid);
    free(s);
    return ppid;
}

static void test_daemonize(int tool_exits)
{
    char err[UTIL_ERR_LEN] = "", pidfile[300], exe[600];
    snprintf(pidfile, sizeof pidfile, "%s/daemon%d.pid", tmpdir, tool_exits);
    snprintf(exe, sizeof exe, "%s/fault-daemonize", progs);
    const char *argv[] = {exe, pidfile, tool_exits ? "--exit" : "--stay", NULL};
    struct proc p;
    if (!ok(spawn(&p, argv, NULL, NULL, err) == 0, "spawn fault-daemonize%s", tool_exits ? " --exit" : ""))
        diag("  %s", err);
    pid_t d = read_pidfile(pidfile);
    if (d > 0)
        track(d);
    ok(d > 0 && alive(d), "the daemonized grandchild runs (pid %d)", (int)d);
    ok(d > 0 && ppid_of(d) == getpid(), "and was re-parented to us (subreaper)");
    if (tool_exits) {
        ok(wait_exit(&p, 5000) && p.exit.exited && p.exit.code == 0, "the tool itself exited 0");
        ok(alive(d), "leaving its daemon running");
    }
    int killed = proc_stop_tree(&p, NULL, 0, 1000000000ull, err);
    ok(killed == 0, "proc_stop_tree: SIGTERM was enough (rc %d %s)", killed, killed < 0 ? err : "");
    ok(d > 0 && !alive(d) && kill(d, 0) == -1 && errno == ESRCH, "the daemon is gone from /proc");
    ok(!alive(p.pid), "the tool is gone from /proc");
    ok(proc_descendants(getpid(), NULL, 0) == 0, "nothing of ours is left");
    ok(p.stopped && proc_poll(&p) == 1 && proc_stop_tree(&p, NULL, 0, 0, err) == 0, "polling or stopping it again is harmless");
}

static void test_ignore_term(void)
{
    char err[UTIL_ERR_LEN] = "", out[300], exe[600];
    snprintf(out, sizeof out, "%s/ready.txt", tmpdir);
    snprintf(exe, sizeof exe, "%s/fault-ignore-term", progs);
    const char *argv[] = {exe, "2", NULL};
    struct proc p;
    if (!ok(spawn(&p, argv, out, NULL, err) == 0, "spawn fault-ignore-term 2"))
        diag("  %s", err);
    ok(wait_file(out, 5000), "it is ready");
    nap_ms(20);
    pid_t kids[8];
    int nk = proc_descendants(p.pid, kids, 8);
    ok(nk == 2, "proc_descendants finds its 2 children (%d)", nk);
    uint64_t grace = 300000000ull, t0 = util_now_ns();
    int killed = proc_stop_tree(&p, NULL, 0, grace, err);
    double el = (double)(util_now_ns() - t0) / 1e9;
    ok(killed == 3, "all 3 processes needed SIGKILL (rc %d %s)", killed, killed < 0 ? err : "");
    ok(el >= 0.3 && el < 0.8, "SIGKILL came right after the 0.3 s grace (%.3f s)", el);
    ok(p.reaped && p.exit.signaled && p.exit.sig == SIGKILL, "the tool's exit says SIGKILL");
    int left = 0;
    for (int i = 0; i < nk && i < 8; i++)
        left += alive(kids[i]);
    ok(!alive(p.pid) && left == 0, "none of them is in /proc");
}

static void test_keep(void)
{
    char err[UTIL_ERR_LEN] = "", exe[600];
    snprintf(exe, sizeof exe, "%s/lb-burner", progs);
    const char *targ[] = {exe, "--cpu", "0", "--children", "1", "--duration", "30s", NULL};
    const char *tool[] = {"sleep", "30", NULL};
    struct proc target, p;
    ok(spawn(&target, targ, NULL, NULL, err) == 0, "spawn a stand-in target with a child");
    ok(spawn(&p, tool, NULL, NULL, err) == 0, "spawn a tool");
    pid_t tkids[4];
    int ntk = 0;
    for (int t = 0; t < 5000 && (ntk = proc_descendants(target.pid, tkids, 4)) < 1; t += 5)
        nap_ms(5); /* the burner forks its child once started: 50 ms was not always enough beside a busy core */
    ok(ntk == 1, "the target has its child (%d)", ntk);
    pid_t keep[] = {target.pid};
    int killed = proc_stop_tree(&p, keep, 1, 1000000000ull, err);
    ok(killed == 0 && !alive(p.pid), "the tool is stopped");
    ok(alive(target.pid) && proc_poll(&target) == 0, "the kept target survives");
    ok(ntk == 1 && alive(tkids[0]), "and so does its child");
    ok(proc_stop_tree(&target, NULL, 0, 1000000000ull, err) == 0 && !alive(target.pid) && !alive(tkids[0]),
       "the target and its child stop in turn");
}

/* kill_with_parent: a helper process spawns a tool and exits; the tool
 * (re-parented to us, the subreaper) must die with it. */
static void test_kill_with_parent(void)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return;
    pid_t helper = fork();
    if (helper == 0) {
        char err[UTIL_ERR_LEN];
        char **env = proc_clean_env(tmpdir, tmpdir, NULL);
        const char *sl[] = {"sleep", "30", NULL};
        struct proc_spec spec = {.argv = sl, .envp = (const char *const *)env, .kill_with_parent = 1};
        struct proc p;
        pid_t pid = proc_spawn(&p, &spec, err) == 0 ? p.pid : -1;
        ssize_t w = write(pfd[1], &pid, sizeof pid);
        (void)w;
        _exit(0);
    }
    close(pfd[1]);
    pid_t tool = -1;
    ssize_t n = read(pfd[0], &tool, sizeof tool);
    close(pfd[0]);
    waitpid(helper, NULL, 0);
    ok(n == (ssize_t)sizeof tool && tool > 0, "a helper spawned a tool with kill_with_parent and exited");
    if (tool <= 0)
        return;
    track(tool);
    int status = 0;
    pid_t r = -1;
    for (int i = 0; i < 200 && r != tool; i++) {
        r = waitpid(tool, &status, WNOHANG);
        if (r != tool)
            nap_ms(5);
    }
    ok(r == tool && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the tool died with it (SIGKILL)");
}

int main(void)
{
    const char *b = getenv("LB_BUILD");
    snprintf(progs, sizeof progs, "%s/tests/progs", b && *b ? b : "build");
    char err[UTIL_ERR_LEN] = "";
    signal(SIGALRM, on_alarm);
    alarm(30);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lb-test-proc-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    if (!ok(proc_become_subreaper(err) == 0, "become a child subreaper"))
        diag("  %s", err);

    test_env();
    test_poll_race();
    test_exit_lost();
    test_group_and_files();
    test_pin_oom();
    test_exec_failures();
    test_daemonize(0);
    test_daemonize(1);
    test_ignore_term();
    test_keep();
    test_kill_with_parent();

    /* Whatever a failed check left behind goes now. */
    struct proc none = {.pid = -1};
    proc_stop_tree(&none, NULL, 0, 200000000ull, err);
    ok(proc_descendants(getpid(), NULL, 0) == 0, "no descendant left at the end");
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    return done_testing();
}
