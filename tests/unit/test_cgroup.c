/* Unit tests for harness/cgroup: a cgroup per tool run, checked against
 * the /proc fallback and the scheduler on the burner tree (same CPU and
 * peak memory within tolerance), the memory cap (OOM kill counted), kill
 * and removal. Skips, saying why, where no writable cgroup exists. */
#include "common/cgroup.h"
#include "engine/proc.h"
#include "engine/runlock.h"
#include "engine/sampler.h"
#include "tests/tap.h"
#define BURNER_TEST "test_cgroup"
#include "tests/burner_test.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* /proc's RSS counts a page once per process mapping it: the program,
 * libc (and under ASan its runtime), and anonymous pages a parent shares
 * copy-on-write with children it forked. A cgroup charges each page once.
 * Returns the MB /proc counts more than once: the sum of Rss less the sum
 * of Pss (each shared page divided among its sharers) over the members. */
static double shared_overcount_mb(const pid_t *pids, int n)
{
    double rss = 0, pss = 0;
    for (int i = 0; i < n; i++) {
        char path[64], line[256];
        snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pids[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            unsigned long long kb;
            if (sscanf(line, "Rss: %llu kB", &kb) == 1)
                rss += (double)kb * 1024 / 1e6;
            else if (sscanf(line, "Pss: %llu kB", &kb) == 1)
                pss += (double)kb * 1024 / 1e6;
        }
        fclose(f);
    }
    return rss - pss;
}

static int spawn_in(struct proc *p, const struct cgroup *cg, const char *const *argv, uint64_t cpus, int oom_adj,
                    const char *out, char *err)
{
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env, .cpus_mask = cpus, .oom_score_adj = oom_adj,
                             .stdout_path = out};
    for (int i = 0; i < cg->nprocs && i < 3; i++)
        spec.cgroup_procs[i] = cg->procs[i];
    int rc = proc_spawn(p, &spec, err);
    proc_env_free(env);
    if (rc == 0)
        watch_pgid = p->pid;
    return rc;
}

static double ru_cpu_s(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
           ru->ru_stime.tv_usec / 1e6;
}

/* The burner tree (1 + 3 children, 0.2 core and 100 MB each) in a cgroup,
 * sampled every 0.5 s three ways: /proc walk, cgroup membership with the
 * cgroup's CPU counter, and cgroup_read. */
static void burner_tree(const char *name)
{
    char err[UTIL_ERR_LEN] = "", exe[600];
    struct cgroup cg;
    if (!ok(cgroup_create(&cg, name, 0, err) == 0, "create cgroup %s", name)) {
        diag("  %s", err);
        return;
    }
    diag("  cgroup %s: cpu %s, memory %s", cg.v2 ? "v2" : "v1", cg.cpu_dir, cg.mem_dir);
    snprintf(exe, sizeof exe, "%s/lb-burner", progs);
    const char *argv[] = {exe, "--cpu", "0.2", "--mem-mb", "100", "--children", "3", "--duration", "30s", NULL};
    struct proc p;
    struct sampler_tree *tp = NULL, *tc = NULL;
    char out[300];
    snprintf(out, sizeof out, "%s/burner.out", tmpdir);
    int cpu = idlest_cpu();
    if (!ok(spawn_in(&p, &cg, argv, 1ull << cpu, 0, out, err) == 0, "spawn the burner tree in it, pinned to CPU %d", cpu)) {
        diag("  %s", err);
        cgroup_destroy(&cg, err);
        return;
    }
    /* Every process has forked and written its memory: "ready" x 4. */
    int ready = 0;
    for (int t = 0; t < 1000 && ready < 4; t++) {
        nap_ms(10);
        FILE *f = fopen(out, "r");
        char line[256];
        ready = 0;
        if (f) {
            while (fgets(line, sizeof line, f))
                ready += strstr(line, " ready") != NULL;
            fclose(f);
        }
    }
    if (!ok(ready == 4, "the 4 burner processes are ready"))
        goto out;
    pid_t members[16];
    int nm = cgroup_pids(&cg, members, 16);
    ok(nm == 4, "cgroup_pids: the 4 burner processes are members (%d)", nm);
    double over_mb = shared_overcount_mb(members, nm < 16 ? nm : 16);
    diag("  shared pages /proc counts more than once (Rss - Pss): %.2f MB", over_mb);

    tp = sampler_tree_new(p.pid, NULL, err);
    tc = sampler_tree_new(0, cg.procs[0], err);
    ok(tp && tc, "samplers over /proc and over the cgroup");
    if (!tp || !tc)
        goto out;
    struct sampler_reading rp, rc;
    struct sampler_point pp, pc;
    struct cgroup_usage u0, u;
    /* The scheduler's figure is read just before and just after each
     * cgroup sample: the cgroup's reading lies between the two (both count
     * the same runtime, and it only grows), so its point must lie between
     * the least and the most the scheduler allows for that interval, however
     * long this test was kept off the CPU between the reads. */
    sampler_tree_sample(tp, &rp, &pp);
    uint64_t lo0 = tree_runtime_ns(p.pid);
    sampler_tree_sample(tc, &rc, &pc);
    uint64_t hi0 = tree_runtime_ns(p.pid), t_prev = rc.t_ns;
    cgroup_read(&cg, &u0, err);
    double worst_cg = 0, worst_cg_sched = 0, worst_proc_vs_cg = 0, worst_rss = 0, widest = 0;
    int n = 0;
    uint64_t deadline = util_now_ns() + 500000000ull;
    for (int tick = 0; tick < 6; tick++) {
        while (sampler_wait_tick(&deadline, 500000000ull) < 0)
            ;
        int a = sampler_tree_sample(tp, &rp, &pp);
        uint64_t lo = tree_runtime_ns(p.pid);
        int b = sampler_tree_sample(tc, &rc, &pc);
        uint64_t hi = tree_runtime_ns(p.pid);
        if (cgroup_read(&cg, &u, err) < 0 || a != 1 || b != 1)
            continue;
        double dt = (double)(rc.t_ns - t_prev);
        double least = 100.0 * (double)(lo - hi0) / dt, most = 100.0 * (double)(hi - lo0) / dt;
        lo0 = lo;
        hi0 = hi;
        t_prev = rc.t_ns;
        double outside = pc.cpu_pct < least ? least - pc.cpu_pct : pc.cpu_pct > most ? pc.cpu_pct - most : 0;
        n++;
        /* The cgroup's own RSS (anon + mapped file) against /proc's sum. */
        double proc_mb = (double)rp.rss_bytes / 1e6 - over_mb;
        double rss_diff = fabs((double)u.mem_rss_bytes / 1e6 - proc_mb) / proc_mb * 100;
        diag("    point %d: /proc %.2f %%, cgroup %.2f %%, scheduler %.2f-%.2f %%; RSS /proc %.1f MB, cgroup %.1f MB",
             tick, pp.cpu_pct, pc.cpu_pct, least, most, rp.rss_bytes / 1e6, u.mem_rss_bytes / 1e6);
        if (outside > worst_cg_sched)
            worst_cg_sched = outside;
        if (most - least > widest)
            widest = most - least;
        if (fabs(pp.cpu_pct - pc.cpu_pct) > worst_proc_vs_cg)
            worst_proc_vs_cg = fabs(pp.cpu_pct - pc.cpu_pct);
        if (fabs(pc.cpu_pct - 80) > worst_cg)
            worst_cg = fabs(pc.cpu_pct - 80);
        if (rss_diff > worst_rss)
            worst_rss = rss_diff;
    }
    ok(n == 6, "6 points from each source");
    ok(rc.cpu_from_cgroup && !rp.cpu_from_cgroup, "the cgroup sampler takes CPU from the cgroup, the other from /proc");
    ok(worst_cg_sched <= 0.5,
       "cgroup source: every 0.5 s point within the scheduler's figures read around it, ±0.5 points (worst %.3f "
       "outside; widest span %.2f)", worst_cg_sched, widest);
    diag("  worst point off the nominal 80 %%: %.2f (the shared machine decides that one)", worst_cg);
    struct sampler_summary sp, sc;
    sampler_tree_summary(tp, &sp);
    sampler_tree_summary(tc, &sc);
    double cg_avg = 100.0 * (double)(u.cpu_ns - u0.cpu_ns) / 1e9 / sc.npoints / 0.5;
    diag("  average CPU: /proc %.2f %%, cgroup sampler %.2f %%, cgroup_read %.2f %%; worst point /proc vs cgroup %.2f",
         sp.cpu_avg_pct, sc.cpu_avg_pct, cg_avg, worst_proc_vs_cg);
    ok(fabs(sp.cpu_avg_pct - sc.cpu_avg_pct) <= 3.0, "/proc fallback and cgroup agree on average CPU within ±3 points");
    ok(fabs(sc.cpu_avg_pct - cg_avg) <= 3.0, "cgroup_read agrees (%.2f %%)", cg_avg);
    long hz = sysconf(_SC_CLK_TCK);
    ok(worst_proc_vs_cg <= 2.0 * 4 * 100.0 / (double)hz / 0.5,
       "/proc points within tick rounding of the cgroup's (worst %.2f)", worst_proc_vs_cg);
    ok(worst_rss <= 3.0, "cgroup RSS and /proc RSS sum (shared pages once) within ±3 %% at every point (worst "
       "%.2f %%)", worst_rss);
    ok(sc.procs_peak == 4 && sp.procs_peak == 4, "both count 4 processes");

    int killed = proc_stop_tree(&p, NULL, 0, 3000000000ull, err);
    if (!ok(killed == 0 && p.reaped && p.exit.exited && p.exit.code == 0, "the burner finished cleanly on SIGTERM"))
        diag("  stop_tree %d (%s), reaped %d, exited %d code %d, signaled %d sig %d", killed, killed < 0 ? err : "", p.reaped,
             p.exit.exited, p.exit.code, p.exit.signaled, p.exit.sig);
    if (cgroup_read(&cg, &u, err) == 0) {
        double cg_s = (double)u.cpu_ns / 1e9, ru_s = ru_cpu_s(&p.exit.ru);
        diag("  whole run: cgroup %.3f CPU s (user %.3f, sys %.3f), wait4 rusage %.3f CPU s", cg_s,
             (double)u.cpu_user_ns / 1e9, (double)u.cpu_sys_ns / 1e9, ru_s);
        ok(fabs(cg_s - ru_s) <= 0.02 + 0.01 * ru_s, "cgroup CPU seconds match wait4 rusage within 1 %% + 20 ms");
        double peak_mb = (double)u.mem_peak_bytes / 1e6;
        double proc_peak = sp.rss_peak_mb - over_mb;
        diag("  peak memory: cgroup %.1f MB (page cache %.1f MB apart), /proc tree sum %.1f MB (%.1f MB with shared pages "
             "once)", peak_mb, (double)u.mem_cache_bytes / 1e6, sp.rss_peak_mb, proc_peak);
        ok(fabs(peak_mb - proc_peak) / proc_peak <= 0.03, "cgroup peak memory and /proc peak RSS within ±3 %% (%.2f %%)",
           100 * fabs(peak_mb - proc_peak) / proc_peak);
        ok(u.nprocs == 0 && u.oom_kills == 0, "no member left, no OOM kill");
    }
out:
    sampler_tree_free(tp);
    sampler_tree_free(tc);
    if (!p.reaped)
        proc_stop_tree(&p, NULL, 0, 200000000ull, err);
    watch_pgid = 0;
    ok(cgroup_destroy(&cg, err) == 0, "cgroup_destroy");
    ok(access(cg.cpu_dir, F_OK) < 0 && access(cg.mem_dir, F_OK) < 0, "its directories are gone");
}

/* A tool over its memory cap is OOM-killed, and only the tool. */
static void oom(const char *name)
{
    char err[UTIL_ERR_LEN] = "", exe[600];
    struct cgroup cg;
    if (!ok(cgroup_create(&cg, name, 50u * 1000 * 1000, err) == 0, "create cgroup %s with a 50 MB cap", name)) {
        diag("  %s", err);
        return;
    }
    snprintf(exe, sizeof exe, "%s/lb-burner", progs);
    const char *argv[] = {exe, "--cpu", "0", "--mem-mb", "120", "--duration", "3s", NULL};
    struct proc p;
    if (!ok(spawn_in(&p, &cg, argv, 0, 1000, NULL, err) == 0, "spawn a burner that wants 120 MB, oom_score_adj 1000"))
        diag("  %s", err);
    for (int i = 0; i < 400 && !proc_poll(&p); i++)
        nap_ms(10);
    ok(p.reaped && p.exit.signaled && p.exit.sig == SIGKILL, "it is killed (signal %d)", p.exit.sig);
    struct cgroup_usage u;
    int rc = cgroup_read(&cg, &u, err);
    ok(rc == 0 && u.oom_kills >= 1, "oom_kills counted (%llu)", (unsigned long long)u.oom_kills);
    ok(u.mem_peak_bytes <= 50u * 1000 * 1000 + 4096, "peak memory stayed under the cap (%.1f MB)",
       (double)u.mem_peak_bytes / 1e6);
    ok(kill(getpid(), 0) == 0, "we are alive");
    watch_pgid = 0;
    ok(cgroup_destroy(&cg, err) == 0, "cgroup_destroy");
}

/* cgroup_kill_all reaches processes that ignore SIGTERM. */
static void kill_all(const char *name)
{
    char err[UTIL_ERR_LEN] = "", exe[600], out[300];
    struct cgroup cg;
    if (!ok(cgroup_create(&cg, name, 0, err) == 0, "create cgroup %s", name)) {
        diag("  %s", err);
        return;
    }
    snprintf(exe, sizeof exe, "%s/fault-ignore-term", progs);
    snprintf(out, sizeof out, "%s/ready", tmpdir);
    const char *argv[] = {exe, "2", NULL};
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env, .stdout_path = out};
    for (int i = 0; i < cg.nprocs && i < 3; i++)
        spec.cgroup_procs[i] = cg.procs[i];
    struct proc p;
    int rc = proc_spawn(&p, &spec, err);
    proc_env_free(env);
    ok(rc == 0, "spawn fault-ignore-term 2 in it");
    watch_pgid = p.pid;
    pid_t pids[8];
    int n = 0;
    for (int i = 0; i < 200 && (n = cgroup_pids(&cg, pids, 8)) < 3; i++)
        nap_ms(10);
    ok(n == 3, "3 members");
    ok(cgroup_kill_all(&cg, err) == 0, "cgroup_kill_all");
    int live = 0;
    for (int i = 0; i < n && i < 8; i++) {
        char path[64], st = 0;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pids[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%*d (%*[^)]) %c", &st) == 1 && st != 'Z' && st != 'X')
                live++;
            fclose(f);
        }
    }
    ok(live == 0, "no member is alive when it returns (zombies wait for their reaper)");
    struct proc none = {.pid = -1};
    proc_stop_tree(&p, NULL, 0, 0, err); /* reaps */
    proc_stop_tree(&none, NULL, 0, 0, err);
    int left = 0;
    for (int i = 0; i < n && i < 8; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", (int)pids[i]);
        left += access(path, F_OK) == 0;
    }
    ok(left == 0 && p.exit.sig == SIGKILL, "all gone from /proc, killed by SIGKILL");
    watch_pgid = 0;
    ok(cgroup_destroy(&cg, err) == 0, "cgroup_destroy");
}

/* A crashed run's cgroup (its loadbench proven dead by pid and start
 * time) is swept with its members; so is one whose pid now names another
 * process (a start time that differs). A live run's is left alone, and so
 * is an old-style name that carries no start time (nothing is proven). */
static void sweep(void)
{
    char err[UTIL_ERR_LEN] = "", tag[64], dead_name[128], reused_name[128], live_name[128], old_name[64];
    pid_t dead = fork();
    if (dead == 0) {
        pause();
        _exit(0);
    }
    uint64_t dead_start = 0, self_start = 0;
    runlock_start_time(dead, &dead_start);
    runlock_start_time(getpid(), &self_start);
    kill(dead, SIGKILL);
    waitpid(dead, NULL, 0);
    runlock_tag(tag, sizeof tag);
    const char *ns = strrchr(tag, '.') + 1;
    /* A prefix of this test process's own: another test_cgroup on the
     * machine (a parallel make check, or one killed mid-way that left its
     * cgroups) must not change what this sweep finds. */
    char prefix[32];
    snprintf(prefix, sizeof prefix, "lb-sweep%d-", (int)getpid());
    snprintf(dead_name, sizeof dead_name, "%s%d.%llu.%s-tool", prefix, (int)dead, (unsigned long long)dead_start, ns);
    snprintf(reused_name, sizeof reused_name, "%s%d.%llu.%s-tool", prefix, (int)getpid(),
             (unsigned long long)self_start + 1, ns);
    snprintf(live_name, sizeof live_name, "%s%s-tool", prefix, tag);
    snprintf(old_name, sizeof old_name, "%s%d-old", prefix, (int)dead);
    struct cgroup stale, reused, live, old;
    if (!ok(cgroup_create(&stale, dead_name, 0, err) == 0 && cgroup_create(&reused, reused_name, 0, err) == 0 &&
                cgroup_create(&live, live_name, 0, err) == 0 && cgroup_create(&old, old_name, 0, err) == 0,
            "create a stale, a pid-reused, a live and an old-style cgroup")) {
        diag("  %s", err);
        return;
    }
    const char *argv[] = {"sleep", "30", NULL};
    struct proc p;
    ok(spawn_in(&p, &stale, argv, 0, 0, NULL, err) == 0, "a leftover tool runs in the stale one");
    int n = cgroup_sweep_stale(prefix, runlock_tag_dead, err);
    ok(n == (stale.v2 ? 2 : 4), "cgroup_sweep_stale removed the stale and the pid-reused cgroups' directories (%d)", n);
    for (int i = 0; i < 200 && !proc_poll(&p); i++)
        nap_ms(5);
    ok(p.reaped && p.exit.signaled && p.exit.sig == SIGKILL, "its leftover tool was killed");
    ok(access(stale.cpu_dir, F_OK) < 0 && access(stale.mem_dir, F_OK) < 0, "the stale cgroup is gone");
    ok(access(reused.cpu_dir, F_OK) < 0, "the one whose pid names a process of another start time is gone");
    ok(access(live.cpu_dir, F_OK) == 0 && access(live.mem_dir, F_OK) == 0, "the live run's cgroup is untouched");
    ok(access(old.cpu_dir, F_OK) == 0, "an old-style name (no start time: nothing proven) is kept");
    cgroup_destroy(&live, err);
    cgroup_destroy(&old, err);
    watch_pgid = 0;
}

int main(void)
{
    const char *b = getenv("LB_BUILD");
    snprintf(progs, sizeof progs, "%s/tests/progs", b && *b ? b : "build");
    char err[UTIL_ERR_LEN] = "", name[128], self_tag[64];
    runlock_tag(self_tag, sizeof self_tag); /* so a killed run's cgroups are swept by the next */
    signal(SIGALRM, on_alarm);
    alarm(40);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lb-test-cgroup-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    proc_become_subreaper(err);

    struct cgroup probe;
    snprintf(name, sizeof name, "lb-test-%s-probe", self_tag);
    if (cgroup_create(&probe, name, 0, err) < 0) {
        printf("1..0 # SKIP no writable cgroup here: %s\n", err);
        return 0;
    }
    cgroup_destroy(&probe, err);
    /* What an earlier run of this test left behind if it was killed. */
    int stale = cgroup_sweep_stale("lb-test-", runlock_tag_dead, err);
    if (stale)
        diag("removed %d stale test cgroup director%s%s%s", stale, stale == 1 ? "y" : "ies", stale < 0 ? ": " : "",
             stale < 0 ? err : "");

    /* Forcing the other version: works where it is set up, else says why. */
    snprintf(name, sizeof name, "lb-test-%s-other", self_tag);
    struct cgroup other;
    int other_v = probe.v2 ? 1 : 2;
    if (cgroup_create_version(&other, name, 0, other_v, err) == 0) {
        ok(1, "cgroup v%d also usable here", other_v);
        cgroup_destroy(&other, err);
    } else {
        ok(strlen(err) > 10, "cgroup v%d not usable here, with a reason: %s", other_v, err);
    }

    snprintf(name, sizeof name, "lb-test-%s-tree", self_tag);
    burner_tree(name);
    snprintf(name, sizeof name, "lb-test-%s-oom", self_tag);
    oom(name);
    snprintf(name, sizeof name, "lb-test-%s-kill", self_tag);
    kill_all(name);
    sweep();

    struct proc none = {.pid = -1};
    proc_stop_tree(&none, NULL, 0, 200000000ull, err);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    return done_testing();
}
