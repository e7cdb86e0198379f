/* burner_test.h: what the unit tests that measure the burner tree
 * (tests/progs/lb-burner) share: test_cgroup, test_sampler and
 * test_sampler_cost. Define BURNER_TEST as the test's name (a string
 * literal) before including it; main sets progs and installs on_alarm for
 * SIGALRM. Static, like tap.h (which it includes). */
#ifndef LB_BURNER_TEST_H
#define LB_BURNER_TEST_H

#include "engine/proc.h"
#include "engine/sampler.h"
#include "tests/tap.h"
#include "common/util.h"

#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#ifndef BURNER_TEST
#error "define BURNER_TEST as the test's name before including burner_test.h"
#endif

static char tmpdir[256] __attribute__((unused));    /* the test's temp dir (mkdtemp) */
static char progs[512];                             /* $LB_BUILD/tests/progs */
static volatile pid_t watch_pgid;                   /* killed on timeout when > 0 */

/* SIGALRM: kill the watched process group and bail out. */
static void on_alarm(int sig)
{
    (void)sig;
    if (watch_pgid > 0)
        kill(-watch_pgid, SIGKILL);
    static const char msg[] = "Bail out! " BURNER_TEST " timed out\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

static void __attribute__((unused)) nap_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The CPU with the most idle time over 150 ms: the burner is pinned there. */
static int __attribute__((unused)) idlest_cpu(void)
{
    struct sampler_machine a[64], b[64];
    char err[UTIL_ERR_LEN];
    int n = sampler_machine_read_cpus(a, 64, err);
    nap_ms(150);
    if (n <= 0 || sampler_machine_read_cpus(b, 64, err) != n)
        return 0;
    int best = 0;
    uint64_t best_idle = 0;
    for (int i = 0; i < n && i < 64; i++) {
        uint64_t idle = b[i].idle - a[i].idle;
        if (idle >= best_idle) {
            best_idle = idle;
            best = i;
        }
    }
    return best;
}

/* The tree's CPU time in ns from /proc/PID/schedstat (the scheduler's
 * own runtime, not rounded to ticks): the per-interval truth. The burner
 * is single-threaded, so the main thread's figure is the process's. */
static uint64_t __attribute__((unused)) tree_runtime_ns(pid_t root)
{
    pid_t pids[64];
    int n = proc_descendants(root, pids + 1, 63);
    pids[0] = root;
    uint64_t sum = 0;
    for (int i = 0; i <= n && i < 64; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/schedstat", (int)pids[i]);
        FILE *f = fopen(path, "r");
        unsigned long long v = 0;
        if (f) {
            if (fscanf(f, "%llu", &v) != 1)
                v = 0;
            fclose(f);
        }
        sum += v;
    }
    return sum;
}

#endif
