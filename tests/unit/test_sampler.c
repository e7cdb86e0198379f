/* Unit tests for harness/sampler, against truth: the calibrated burner
 * (tests/progs/lb-burner) measured through sampler_tree at 0.5 s and 2 s
 * intervals, for one process and for a tree of 4. Truth for CPU is the
 * burner's nominal share, or, when the machine (2 cores shared with other
 * builds) kept it from getting that share, the CPU time each burner process
 * measured for itself (CLOCK_THREAD_CPUTIME_ID, printed at exit). Truth for
 * RSS is the memory each process wrote. Bounds: ±3 CPU points, ±3 % RSS. */
#include "engine/proc.h"
#include "engine/sampler.h"
#include "tests/tap.h"
#define BURNER_TEST "test_sampler"
#include "tests/burner_test.h"
#include "common/util.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Sum of the share each burner process reports for itself (and of its
 * resident memory before its allocation, when base_mb is not NULL). */
static double burner_report(const char *out_path, int *nlines, double *base_mb)
{
    FILE *f = fopen(out_path, "r");
    double sum = 0;
    *nlines = 0;
    if (!f)
        return NAN;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        double cpu_s, wall_s, share;
        unsigned long long base_kb = 0;
        int pid;
        if (sscanf(line, "lb-burner pid %d cpu_s %lf wall_s %lf share %lf base_rss_kb %llu", &pid, &cpu_s, &wall_s, &share,
                   &base_kb) >= 4) {
            sum += share;
            if (base_mb)
                *base_mb += (double)base_kb * 1024 / 1e6;
            (*nlines)++;
        }
    }
    fclose(f);
    return sum;
}

/* Wait until n burner processes have printed "ready" into path. */
static int wait_ready(const char *path, int n, long timeout_ms)
{
    for (long t = 0; t < timeout_ms; t += 10) {
        FILE *f = fopen(path, "r");
        int ready = 0;
        char line[256];
        if (f) {
            while (fgets(line, sizeof line, f))
                ready += strstr(line, " ready") != NULL;
            fclose(f);
        }
        if (ready >= n)
            return 1;
        nap_ms(10);
    }
    return 0;
}

struct series {
    double truth[32]; /* the scheduler's CPU % over each interval */
    double dt[32];
    double cpu[32];
    double rss[32];
    int nprocs[32], nthreads[32];
    int n;
};

static void check_series(const char *what, double interval_s, const struct series *s, const struct sampler_summary *sum,
                         double nominal_pct, double rss_truth_mb, int nprocs)
{
    /* The true CPU over the sampled window, from the scheduler. Compare
     * with the nominal share when the burner got it (within one point),
     * else (the 2 shared cores kept it from its share) with what it got. */
    double window = 0, win_s = 0;
    for (int i = 0; i < s->n; i++) {
        window += s->truth[i] * s->dt[i];
        win_s += s->dt[i];
    }
    window = win_s > 0 ? window / win_s : NAN;
    double truth = fabs(window - nominal_pct) <= 1.0 ? nominal_pct : window;
    if (truth != nominal_pct)
        diag("  %s @ %.1f s: the machine kept the burner at %.2f %% (nominal %.0f %%): comparing with the true figure",
             what, interval_s, window, nominal_pct);
    double errs[32], worst = 0, worst_rss = 0;
    int within = 0;
    for (int i = 0; i < s->n; i++) {
        errs[i] = s->cpu[i] - s->truth[i];
        if (fabs(errs[i]) > worst)
            worst = fabs(errs[i]);
        within += fabs(errs[i]) <= 3.0;
        double r = fabs(s->rss[i] - rss_truth_mb) / rss_truth_mb * 100;
        if (r > worst_rss)
            worst_rss = r;
    }
    double med_err = median(errs, s->n);
    diag("  %s @ %.1f s: %d points, CPU avg %.2f %% (truth %.2f %%), median point error %+.2f, worst point %.2f points "
         "off; RSS peak %.1f MB (truth %.1f MB), worst point %.2f %% off",
         what, interval_s, s->n, sum->cpu_avg_pct, truth, med_err, worst, sum->rss_peak_mb, rss_truth_mb, worst_rss);
    for (int i = 0; i < s->n; i++)
        diag("    point %d: sampler %.2f %%, scheduler %.2f %%", i, s->cpu[i], s->truth[i]);
    ok(s->n >= 2, "%s @ %.1f s: %d points", what, interval_s, s->n);
    ok(fabs(sum->cpu_avg_pct - truth) <= 3.0, "%s @ %.1f s: average CPU %.2f %% within ±3 points of %.2f %%", what,
       interval_s, sum->cpu_avg_pct, truth);
    ok(fabs(med_err) <= 3.0, "%s @ %.1f s: median point within ±3 points of the truth (%+.2f)", what, interval_s, med_err);
    /* Each point against the scheduler's own runtime over the same
     * interval. /proc/PID/stat rounds each process's user and system time
     * down to a clock tick, so one point can be off by up to 2 ticks per
     * process: at 2 s that is within ±3 points in practice; at 0.5 s (±4
     * points per process) only the bound itself can be asserted. The
     * cgroup source (test_cgroup) has no such rounding. */
    long hz = sysconf(_SC_CLK_TCK);
    double tick_bound = 2.0 * nprocs * 100.0 / (double)hz / interval_s;
    if (interval_s >= 2.0)
        ok(within == s->n, "%s @ %.1f s: every point within ±3 points of the true CPU of its interval", what, interval_s);
    else {
        int in_bound = 0;
        for (int i = 0; i < s->n; i++)
            in_bound += fabs(errs[i]) < tick_bound;
        ok(in_bound == s->n, "%s @ %.1f s: every point within tick rounding (±%.0f points) of the true CPU of its "
           "interval (%d of %d within ±3)", what, interval_s, tick_bound, within, s->n);
    }
    if (TAP_UNDER_ASAN) {
        /* The ASan burner's RSS also holds its shadow memory and allocator
         * metadata (about 25 MB a process): not what it wrote. */
        skip("%s @ %.1f s: RSS truth: RSS under ASan includes shadow memory", what, interval_s);
        skip("%s @ %.1f s: peak RSS truth: RSS under ASan includes shadow memory", what, interval_s);
    } else {
        ok(worst_rss <= 3.0, "%s @ %.1f s: every point's RSS within ±3 %% of %.1f MB (worst %.2f %%)", what,
           interval_s, rss_truth_mb, worst_rss);
        ok(fabs(sum->rss_peak_mb - rss_truth_mb) / rss_truth_mb <= 0.03, "%s @ %.1f s: peak RSS %.1f MB within ±3 %%",
           what, interval_s, sum->rss_peak_mb);
    }
    int procs_ok = 1;
    for (int i = 0; i < s->n; i++)
        procs_ok &= s->nprocs[i] == nprocs && s->nthreads[i] == nprocs;
    ok(procs_ok && sum->procs_peak == nprocs, "%s @ %.1f s: %d processes, %d threads at every point", what, interval_s,
       nprocs, nprocs);
}

/* Run the burner and sample it at 0.5 s and 2 s at the same time. */
static void accuracy(const char *what, const char *share, int children, int mem_mb)
{
    char err[UTIL_ERR_LEN] = "", exe[600], out[300], nch[16], mem[16];
    snprintf(exe, sizeof exe, "%s/lb-burner", progs);
    snprintf(out, sizeof out, "%s/burner-%d.out", tmpdir, children);
    snprintf(nch, sizeof nch, "%d", children);
    snprintf(mem, sizeof mem, "%d", mem_mb);
    const char *argv[] = {exe, "--cpu", share, "--mem-mb", mem, "--children", nch, "--duration", "30s", NULL};
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    int cpu = idlest_cpu();
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env, .stdout_path = out, .cpus_mask = 1ull << cpu};
    struct proc p;
    struct sampler_tree *fast = NULL, *slow = NULL;
    int rc = proc_spawn(&p, &spec, err);
    proc_env_free(env);
    if (!ok(rc == 0, "%s: spawn the burner pinned to CPU %d", what, cpu)) {
        diag("  %s", err);
        return;
    }
    watch_pgid = p.pid;

    /* Let every process fork and write its memory before the first reading. */
    if (!ok(wait_ready(out, 1 + children, 10000), "%s: every burner process has written its memory", what))
        goto out;
    fast = sampler_tree_new(p.pid, NULL, err);
    slow = sampler_tree_new(p.pid, NULL, err);
    ok(fast && slow, "%s: sampler_tree_new", what);
    if (!fast || !slow)
        goto out;
    struct series sf = {.n = 0}, ss = {.n = 0};
    struct sampler_reading r;
    struct sampler_point pt;
    sampler_tree_sample(fast, &r, &pt);
    sampler_tree_sample(slow, &r, &pt);
    uint64_t rt_fast = tree_runtime_ns(p.pid), rt_slow = rt_fast, tf = r.t_ns, ts = r.t_ns;
    uint64_t deadline = util_now_ns() + 500000000ull;
    for (int tick = 1; tick <= 8; tick++) {
        while (sampler_wait_tick(&deadline, 500000000ull) < 0)
            ;
        int got = sampler_tree_sample(fast, &r, &pt);
        uint64_t rt = tree_runtime_ns(p.pid);
        if (got == 1 && sf.n < 32) {
            sf.truth[sf.n] = 100.0 * (double)(rt - rt_fast) / (double)(r.t_ns - tf);
            sf.dt[sf.n] = pt.interval_s;
            rt_fast = rt;
            tf = r.t_ns;
            sf.cpu[sf.n] = pt.cpu_pct;
            sf.rss[sf.n] = pt.rss_mb;
            sf.nprocs[sf.n] = pt.nprocs;
            sf.nthreads[sf.n++] = pt.nthreads;
        }
        if (tick % 4 == 0 && sampler_tree_sample(slow, &r, &pt) == 1 && ss.n < 32) {
            ss.truth[ss.n] = 100.0 * (double)(rt - rt_slow) / (double)(r.t_ns - ts);
            ss.dt[ss.n] = pt.interval_s;
            rt_slow = rt;
            ts = r.t_ns;
            ss.cpu[ss.n] = pt.cpu_pct;
            ss.rss[ss.n] = pt.rss_mb;
            ss.nprocs[ss.n] = pt.nprocs;
            ss.nthreads[ss.n++] = pt.nthreads;
        }
    }
    /* SIGTERM ends the burner cleanly, with its report. */
    int killed = proc_stop_tree(&p, NULL, 0, 3000000000ull, err);
    if (!ok(killed == 0 && p.reaped && p.exit.exited && p.exit.code == 0, "%s: the burner finished cleanly on SIGTERM",
            what))
        diag("  stop_tree %d (%s), reaped %d, exited %d code %d, signaled %d sig %d", killed, killed < 0 ? err : "", p.reaped,
             p.exit.exited, p.exit.code, p.exit.signaled, p.exit.sig);
    int nlines = 0;
    double base_mb = 0;
    double own_pct = 100 * burner_report(out, &nlines, &base_mb);
    int nprocs = 1 + children;
    double nominal_pct = 100 * atof(share) * nprocs;
    double ru_s = (double)p.exit.ru.ru_utime.tv_sec + p.exit.ru.ru_utime.tv_usec / 1e6 + (double)p.exit.ru.ru_stime.tv_sec +
                  p.exit.ru.ru_stime.tv_usec / 1e6;
    diag("  %s: the burner's own figure %.2f %% over its whole burn (wait4 rusage %.3f CPU s for the tree)", what, own_pct,
         ru_s);
    ok(nlines == nprocs, "%s: every burner process reported", what);
    struct sampler_summary sum;
    sampler_tree_summary(fast, &sum);
    /* RSS truth: what the processes wrote, plus what each had resident
     * before (program and libraries: ~1.5 MB, more under ASan). */
    diag("  %s: RSS truth %d MB written + %.2f MB resident before", what, nprocs * mem_mb, base_mb);
    check_series(what, 0.5, &sf, &sum, nominal_pct, nprocs * mem_mb + base_mb, nprocs);
    sampler_tree_summary(slow, &sum);
    check_series(what, 2.0, &ss, &sum, nominal_pct, nprocs * mem_mb + base_mb, nprocs);
out:
    if (!p.reaped)
        proc_stop_tree(&p, NULL, 0, 500000000ull, err);
    watch_pgid = 0;
    sampler_tree_free(fast);
    sampler_tree_free(slow);
}

/* A child reaped by a member hands its CPU to the parent (cutime), and an
 * orphan re-parented to us stays tracked after the root has gone. */
static void exited_members(void)
{
    char err[UTIL_ERR_LEN] = "", cmd[1600];
    snprintf(cmd, sizeof cmd,
             "%s/lb-burner --cpu 1 --duration 600ms >%s/b1.out; (%s/lb-burner --cpu 0.3 --duration 3000ms >/dev/null &); sleep 1",
             progs, tmpdir, progs);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env};
    struct proc p;
    int rc = proc_spawn(&p, &spec, err);
    proc_env_free(env);
    if (!ok(rc == 0, "spawn sh with a burner, then an orphaned burner"))
        return;
    watch_pgid = p.pid;
    uint64_t t0 = p.started_ns;
    struct sampler_tree *t = sampler_tree_new(p.pid, NULL, err);
    struct sampler_reading r0, r;
    struct sampler_point pt;
    memset(&r, 0, sizeof r);
    /* Burner 1 burns 0.6 s from its start and is reaped by sh; sh starts
     * the orphan (its subshell exits at once) and exits itself 1 s later;
     * we reap sh; the orphan runs 3 s. On a busy machine every step comes
     * late (burner 1 still running at a fixed 0.8 s was seen under a CPU
     * burner), so each is waited for, 5 s at most: a reading with sh and
     * burner 1; burner 1's report written; a reading with sh, its sleep
     * and the orphan. */
    do {
        nap_ms(20);
        sampler_tree_sample(t, &r0, &pt);
    } while (r0.nprocs != 2 && util_now_ns() < t0 + 5000000000ull);
    ok(r0.nprocs == 2, "first reading: sh and the burner (%d)", r0.nprocs);
    char b1[300];
    snprintf(b1, sizeof b1, "%s/b1.out", tmpdir);
    int nl = 0, rc2 = 0;
    double b1_share = 0;
    uint64_t until = util_now_ns() + 5000000000ull;
    do {
        nap_ms(20);
        b1_share = burner_report(b1, &nl, NULL);
        if (nl == 1)
            rc2 = sampler_tree_sample(t, &r, &pt);
    } while ((nl != 1 || r.nprocs != 3) && util_now_ns() < until);
    /* The first burner's own CPU time, less what it had at r0, less
     * rounding. */
    double b1_ticks = 100 * 0.6 * b1_share;
    double got = (double)(r.cpu_ns - r0.cpu_ns) / 1e7;
    diag("  ticks between readings %.1f (at least %.1f from the first burner)", got, b1_ticks - 7);
    ok(rc2 == 1 && nl == 1 && got >= b1_ticks - 7, "the CPU of a child reaped by a member is not lost (%.1f ticks)", got);
    ok(r.nprocs == 3, "sh, its sleep and the orphan, adopted from sh's process group (%d)", r.nprocs);
    for (int i = 0; i < 500 && !proc_poll(&p); i++)
        nap_ms(10);
    ok(p.reaped, "sh has exited and was reaped");
    nap_ms(200);
    rc2 = sampler_tree_sample(t, &r, &pt);
    ok(rc2 == 1 && r.nprocs == 1, "the orphan is still tracked after the root is gone (rc %d, %d procs)", rc2, r.nprocs);
    /* The truth is the scheduler's own count for the orphan over the same
     * second, not its nominal 30 %: on a busy machine it gets less (10 %
     * seen under a CPU burner at load 19). Above 4 %, so that a sampler
     * that lost the orphan (0 %) cannot pass. */
    pid_t orphan[4];
    int no = proc_descendants(getpid(), orphan, 4);
    uint64_t o0 = no == 1 ? tree_runtime_ns(orphan[0]) : 0, w0 = util_now_ns();
    nap_ms(1000);
    rc2 = sampler_tree_sample(t, &r, &pt);
    double truth = no == 1 ? 100.0 * (double)(tree_runtime_ns(orphan[0]) - o0) / (double)(util_now_ns() - w0) : -1;
    ok(rc2 == 1 && truth >= 4 && fabs(pt.cpu_pct - truth) <= 3,
       "the orphan's CPU is measured (%.1f %%; the scheduler's count %.1f %%, nominal 30 %%)", pt.cpu_pct, truth);
    for (int i = 0; i < 500; i++) {
        proc_poll(&p);
        if ((rc2 = sampler_tree_sample(t, &r, &pt)) < 0)
            break;
        nap_ms(10);
    }
    ok(rc2 == -1, "-1 once the whole tree is gone");
    sampler_tree_free(t);
    struct proc none = {.pid = -1};
    proc_stop_tree(&none, NULL, 0, 200000000ull, err);
    watch_pgid = 0;
}

static void io_and_format(void)
{
    char err[UTIL_ERR_LEN] = "", cmd[600];
    snprintf(cmd, sizeof cmd, "sleep 0.2; head -c 5000000 /dev/zero > %s/w.bin; sleep 0.3", tmpdir);
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    char **env = proc_clean_env(tmpdir, tmpdir, NULL);
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env};
    struct proc p;
    proc_spawn(&p, &spec, err);
    proc_env_free(env);
    watch_pgid = p.pid;
    struct sampler_tree *t = sampler_tree_new(p.pid, NULL, err);
    struct sampler_reading r0, r;
    struct sampler_point pt;
    nap_ms(50);
    sampler_tree_sample(t, &r0, &pt);
    nap_ms(350);
    int rc = sampler_tree_sample(t, &r, &pt);
    ok(rc == 1 && r.wchar_bytes - r0.wchar_bytes >= 5000000, "bytes written by a reaped child are counted (%llu)",
       (unsigned long long)(r.wchar_bytes - r0.wchar_bytes));
    for (int i = 0; i < 200 && !proc_poll(&p); i++)
        nap_ms(10);
    sampler_tree_free(t);
    watch_pgid = 0;

    ok(sampler_tree_new(999999, NULL, err) == NULL && strstr(err, "999999"), "a missing root is an error: %s", err);

    char path[300];
    snprintf(path, sizeof path, "%s/s.csv", tmpdir);
    FILE *f = fopen(path, "w+");
    struct sampler_point q = {.t_s = 2.0, .interval_s = 2.001, .cpu_pct = 50.5, .cpu_user_pct = 40.25, .cpu_sys_pct = 10.25,
                              .rss_mb = 100.5, .nprocs = 4, .nthreads = 7, .write_mb_s = 0.5, .wait_pct = 3.25};
    sampler_csv_header(f);
    sampler_csv_row(f, &q);
    rewind(f);
    char buf[512] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    is_str(buf,
           "t_s,interval_s,cpu_pct,cpu_user_pct,cpu_sys_pct,rss_mb,nprocs,nthreads,write_mb_s,thread_max_pct,wait_pct\n"
           "2.000,2.0010,50.50,40.25,10.25,100.500,4,7,0.5000,0.00,3.25\n",
           "CSV header and row");

    struct sampler_machine m, cpus[64];
    ok(sampler_machine_read(&m, err) == 0 && m.total > m.idle && m.idle > 0, "machine CPU from /proc/stat");
    int nc = sampler_machine_read_cpus(cpus, 64, err);
    ok(nc == sysconf(_SC_NPROCESSORS_CONF) || nc == sysconf(_SC_NPROCESSORS_ONLN), "one entry per CPU (%d)", nc);
    ok(sampler_self_cpu_s() > 0, "own CPU seconds (%.3f)", sampler_self_cpu_s());

    /* A late caller skips missed deadlines instead of bursting. */
    uint64_t now = util_now_ns(), dl = now - 350000000ull;
    sampler_wait_tick(&dl, 100000000ull);
    ok(dl > now && dl <= now + 100000000ull, "sampler_wait_tick skips missed deadlines");
}

/* The busiest thread: a fault program with one spinning thread and 300
 * idle ones (JMeter has hundreds). The spinner is nearly all of the
 * tree's CPU, so its figure must match the tree's (both read the same
 * CPU: the thread's from schedstat in ns, the tree's from stat's 10 ms
 * ticks, +-2 ticks per process per point); and a reading of 300 threads
 * must stay cheap: loadbench's own CPU per reading, not wall time. */
/* Spawn argv in a clean environment, watched by the alarm (watch_pgid).
 * Returns 0, or -1 after a failed check named what. */
static int spawn_watched(const char *const *argv, struct proc *p, const char *what)
{
    char err[UTIL_ERR_LEN];
    char **env = proc_clean_env("/tmp", "/tmp", NULL);
    struct proc_spec spec = {.argv = argv, .envp = (const char *const *)env};
    int rc = proc_spawn(p, &spec, err);
    proc_env_free(env);
    if (rc) {
        ok(0, "%s: %s", what, err);
        return -1;
    }
    watch_pgid = p->pid;
    return 0;
}

static void busiest_thread(void)
{
    char exe[600], err[UTIL_ERR_LEN];
    snprintf(exe, sizeof exe, "%s/fault-hot-thread", progs);
    const char *argv[] = {exe, "300", "sleep", "20", NULL};
    struct proc p;
    if (spawn_watched(argv, &p, "fault-hot-thread starts"))
        return;
    struct sampler_tree *t = sampler_tree_new(p.pid, NULL, err);
    struct sampler_reading r;
    struct sampler_point pt;
    /* Past the start-up: the threads' creation is the main thread's CPU. */
    for (int i = 0; i < 100 && sampler_tree_sample(t, &r, &pt) >= 0 && r.nthreads < 302; i++)
        nap_ms(100);
    nap_ms(200);
    sampler_tree_sample(t, &r, &pt);
    double worst = 0, cpu0 = sampler_self_cpu_s();
    int points = 0, readings = 0;
    for (int i = 0; i < 4; i++) {
        nap_ms(500);
        readings++;
        if (sampler_tree_sample(t, &r, &pt) != 1)
            continue;
        points++;
        diag("  point %d: tree %.1f %%, busiest thread %.1f %%, %d threads", i, pt.cpu_pct, pt.thread_max_pct, r.nthreads);
        if (fabs(pt.thread_max_pct - pt.cpu_pct) > worst)
            worst = fabs(pt.thread_max_pct - pt.cpu_pct);
    }
    double per_ms = (sampler_self_cpu_s() - cpu0) / readings * 1e3;
    ok(points == 4 && r.nthreads >= 302 && r.threads_unscanned == 0, "4 points of a tree of %d threads, all scanned", r.nthreads);
    ok(worst <= 5, "the busiest thread is the tree's CPU, to 5 points (worst %.1f points apart)", worst);
    ok(per_ms < 20, "a reading of %d threads costs %.2f ms of loadbench's CPU (< 20 ms)", r.nthreads, per_ms);
    sampler_tree_free(t);
    proc_stop_tree(&p, NULL, 0, 1000000000ull, err);
    watch_pgid = 0;
}

/* Run-queue wait: two processes of our burner spin on one CPU (taskset
 * -c 0, --cpu 1 --children 1), so each is always runnable and runs about
 * half the time. Whatever else the machine does, each one's time is spent
 * running or waiting: the tree's CPU plus its wait is two cores' worth of
 * each interval, and it can never run more than the one CPU. */
static void run_queue_wait(void)
{
    char exe[600], err[UTIL_ERR_LEN];
    if (access("/proc/self/schedstat", R_OK)) {
        skip("run-queue wait: this kernel has no schedstat");
        return;
    }
    snprintf(exe, sizeof exe, "%s/lb-burner", progs);
    const char *argv[] = {"taskset", "-c", "0", exe, "--cpu", "1", "--children", "1", "--duration", "4s", NULL};
    struct proc p;
    if (spawn_watched(argv, &p, "two burners on CPU 0 start"))
        return;
    struct sampler_tree *t = sampler_tree_new(p.pid, NULL, err);
    struct sampler_reading r;
    struct sampler_point pt;
    for (int i = 0; i < 50 && sampler_tree_sample(t, &r, &pt) >= 0 && r.nprocs < 2; i++)
        nap_ms(50);
    nap_ms(300);
    sampler_tree_sample(t, &r, &pt);
    int good = 0, points = 0;
    for (int i = 0; i < 4; i++) {
        nap_ms(500);
        if (sampler_tree_sample(t, &r, &pt) != 1)
            continue;
        points++;
        diag("  point %d: %d processes ran %.1f %% and waited %.1f %% of a core", i, r.nprocs, pt.cpu_pct, pt.wait_pct);
        good += r.nprocs == 2 && pt.cpu_pct <= 105 && pt.cpu_pct + pt.wait_pct >= 170 && pt.cpu_pct + pt.wait_pct <= 215;
    }
    ok(points == 4 && good == 4, "two always-runnable processes on one CPU: ran <= 105 %%, ran + waited 170-215 %% (%d of %d points)",
       good, points);
    sampler_tree_free(t);
    proc_stop_tree(&p, NULL, 0, 1000000000ull, err);
    watch_pgid = 0;
}

/* The sampling loop's own gaps (issue #44): a child looks every 10 ms
 * (interval 50 ms) for 1.5 s; stopped 0.6 s by SIGSTOP, it reports one gap
 * of about 0.6 s, neither running nor runnable (not waiting for a CPU, not
 * suspended), said as "loadbench was not scheduled for 0.6 s". */
static void own_gaps(void)
{
    int fd[2];
    if (pipe(fd)) {
        ok(0, "pipe: %s", strerror(errno));
        return;
    }
    pid_t c = fork();
    if (c == 0) {
        struct sampler_gaps g;
        char say[600] = "";
        close(fd[0]);
        sampler_gaps_start(&g, 50000000ull);
        for (uint64_t end = util_now_ns() + 1500000000ull; util_now_ns() < end;) {
            util_sleep_until_ns(util_now_ns() + 10000000ull);
            sampler_gaps_look(&g);
        }
        sampler_gaps_say(&g, say, sizeof say);
        dprintf(fd[1], "%d %.3f %.3f %.3f|%s", g.n, (double)g.total_ns / 1e9, (double)g.queued_ns / 1e9,
                (double)g.suspended_ns / 1e9, say);
        _exit(0);
    }
    close(fd[1]);
    util_sleep_until_ns(util_now_ns() + 300000000ull);
    kill(c, SIGSTOP);
    util_sleep_until_ns(util_now_ns() + 600000000ull);
    kill(c, SIGCONT);
    char buf[800] = "";
    ssize_t n = read(fd[0], buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    close(fd[0]);
    waitpid(c, NULL, 0);
    int gaps = 0;
    double total = 0, queued = 0, susp = 0;
    sscanf(buf, "%d %lf %lf %lf", &gaps, &total, &queued, &susp);
    const char *say = strchr(buf, '|') ? strchr(buf, '|') + 1 : "";
    ok(gaps >= 1 && total >= 0.55 && total < 1.2, "SIGSTOP for 0.6 s: a gap of %.3f s seen (%d gaps)", total, gaps);
    ok(queued < 0.2 && susp < 0.05, "not waiting for a CPU (%.3f s), not suspended (%.3f s): stopped", queued, susp);
    ok(!strncmp(say, "loadbench was not scheduled for 0.", 34) && strstr(say, ": footprint figures not judged"),
       "said: %s", say);
}

int main(void)
{
    const char *b = getenv("LB_BUILD");
    snprintf(progs, sizeof progs, "%s/tests/progs", b && *b ? b : "build");
    char err[UTIL_ERR_LEN];
    signal(SIGALRM, on_alarm);
    alarm(60);
    snprintf(tmpdir, sizeof tmpdir, "/tmp/lb-test-sampler-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    if (proc_become_subreaper(err) < 0)
        diag("%s", err);

    io_and_format();
    exited_members();
    accuracy("one process", "0.5", 0, 200);
    accuracy("tree of 4", "0.2", 3, 100);
    busiest_thread();
    run_queue_wait();
    own_gaps();

    struct proc none = {.pid = -1};
    proc_stop_tree(&none, NULL, 0, 200000000ull, err);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    return done_testing();
}
