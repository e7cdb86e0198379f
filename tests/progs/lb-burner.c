/* lb-burner: a calibrated burner, the truth the sampler is checked against.
 *
 *   lb-burner [--cpu SHARE] [--mem-mb N] [--children N] [--duration D] [--period D]
 *             [--exit-with-parent]
 *
 * Each process (the parent and each of N forked children) allocates N MB
 * (10^6 bytes, as the sampler reports) and writes every page, then burns
 * SHARE of one core until the duration (from the parent's start) is over.
 * The duty cycle is driven by the thread's own CPU time: in each period
 * (10 ms by default) it spins until its CPU time since the start of burning
 * reaches SHARE x the wall time elapsed by the end of that period, then
 * sleeps to the period's end on an absolute CLOCK_MONOTONIC deadline. Time
 * lost to preemption is caught up in the next periods, so the CPU time used
 * over any window of a few periods is SHARE x the window. Children are
 * forked before anything is allocated, so no page is shared between them.
 * Each process prints "lb-burner pid N ready" once its memory is written,
 * and at exit one line: pid, cpu_s and wall_s of the burn phase (after the
 * allocation) and their ratio (share), its resident memory before the
 * allocation (base_rss_kb), and proc_cpu_s: all the CPU this process used,
 * allocation and start-up included (what wait4 or a cgroup sees of it). SIGTERM ends the
 * burn early but cleanly (the report is printed, the exit status is 0);
 * the parent, told so, tells its children. It waits for them and exits 0
 * (1 if a child failed).
 *
 * It is also the CPU burner that `make check-busy` runs the suite under
 * (--cpu 1: one core kept busy): --exit-with-parent makes it (and its
 * children) die with the process that started it, so an interrupted make
 * leaves no burner behind; --duration bounds it anyway. */
#include "common/guard.h"
#include "common/units.h"
#include "common/util.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t ts_ns(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Under ASan (make SANITIZE=address) no leak check at exit: LeakSanitizer
 * stops the world through a tracer process, which on a loaded machine
 * turns a clean SIGTERM exit into seconds of extra work and an extra
 * process in the tree being measured. Unused in other builds. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "detect_leaks=0";
}

/* SIGTERM ends the burn early but cleanly: the report is still printed. */
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static void sleep_until(uint64_t t_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(t_ns / 1000000000u), .tv_nsec = (long)(t_ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
        ;
}

/* Resident bytes now, from /proc/self/statm: the baseline (program,
 * libraries, runtime) before the allocation. */
static uint64_t rss_now(void)
{
    unsigned long long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static int burn(double share, uint64_t mem_bytes, uint64_t end_ns, uint64_t period_ns)
{
    uint64_t base_rss = rss_now();
    if (mem_bytes) {
        char *m = mmap(NULL, mem_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "lb-burner: cannot allocate %llu bytes: %s\n", (unsigned long long)mem_bytes, strerror(errno));
            return 1;
        }
        /* Every page written, so every page is resident (no zero page). */
        memset(m, 0x5a, mem_bytes);
    }
    printf("lb-burner pid %d ready\n", (int)getpid());
    fflush(stdout);
    uint64_t t0 = ts_ns(CLOCK_MONOTONIC), c0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
    volatile uint64_t sink = 0;
    for (uint64_t k = 1;; k++) {
        uint64_t period_end = t0 + k * period_ns;
        if (period_end > end_ns)
            period_end = end_ns;
        uint64_t want = (uint64_t)(share * (double)(period_end - t0));
        while (ts_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < want) {
            if (ts_ns(CLOCK_MONOTONIC) >= end_ns || stop)
                break;
            for (int i = 0; i < 5000; i++)
                sink += (uint64_t)i * 2654435761u;
        }
        if (ts_ns(CLOCK_MONOTONIC) >= end_ns || period_end >= end_ns || stop)
            break;
        sleep_until(period_end);
    }
    if (!stop)
        sleep_until(end_ns);
    double cpu_s = (double)(ts_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9;
    double wall_s = (double)(ts_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    double proc_cpu_s = (double)ts_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
    printf("lb-burner pid %d cpu_s %.4f wall_s %.4f share %.4f base_rss_kb %llu proc_cpu_s %.4f\n", (int)getpid(), cpu_s,
           wall_s, wall_s > 0 ? cpu_s / wall_s : 0, (unsigned long long)(base_rss / 1024), proc_cpu_s);
    fflush(stdout);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: lb-burner [--cpu SHARE] [--mem-mb N] [--children N] [--duration D] [--period D]\n"
                    "                 [--exit-with-parent]\n"
                    "  e.g. lb-burner --cpu 0.5 --mem-mb 200 --children 3 --duration 6s\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double share = 0.5;
    int with_parent = 0;
    uint64_t mem_mb = 0, nchildren = 0, duration_ns = 5000000000ull, period_ns = 10000000ull;
    char err[UTIL_ERR_LEN];
    uint64_t start = ts_ns(CLOCK_MONOTONIC);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--exit-with-parent")) {
            guard_child(getppid()); /* SIGKILL when the parent goes; inherited by none */
            with_parent = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        int rc = 0;
        if (!strcmp(a, "--cpu")) {
            char *end;
            share = strtod(v, &end);
            if (*end || share < 0 || share > 1) {
                fprintf(stderr, "lb-burner: --cpu wants a share of one core between 0 and 1, got \"%s\"\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--mem-mb")) {
            rc = units_parse_count(v, "--mem-mb", &mem_mb, err);
        } else if (!strcmp(a, "--children")) {
            rc = units_parse_count(v, "--children", &nchildren, err);
        } else if (!strcmp(a, "--duration")) {
            rc = units_parse_duration_ns(v, &duration_ns, err);
        } else if (!strcmp(a, "--period")) {
            rc = units_parse_duration_ns(v, &period_ns, err);
            if (!rc && !period_ns)
                rc = util_err(err, "--period must be above 0");
        } else {
            usage();
        }
        if (rc) {
            fprintf(stderr, "lb-burner: %s\n", err);
            return 2;
        }
    }
    uint64_t end = start + duration_ns;
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL); /* inherited by the children */
    pid_t kids[256];
    if (nchildren > sizeof kids / sizeof kids[0])
        nchildren = sizeof kids / sizeof kids[0];
    for (uint64_t c = 0; c < nchildren; c++) {
        pid_t pid = kids[c] = fork();
        if (pid < 0) {
            fprintf(stderr, "lb-burner: fork: %s\n", strerror(errno));
            return 1;
        }
        if (pid == 0) {
            if (with_parent)
                guard_child(getppid());
            return burn(share, mem_mb * 1000000u, end, period_ns);
        }
    }
    int rc = burn(share, mem_mb * 1000000u, end, period_ns);
    /* A SIGTERM to the parent alone (kill PID) ends the children too: it
     * waits for them, and they would burn to the end of --duration. */
    if (stop)
        for (uint64_t c = 0; c < nchildren; c++)
            kill(kids[c], SIGTERM);
    int status;
    while (wait(&status) > 0)
        if (!WIFEXITED(status) || WEXITSTATUS(status))
            rc = 1;
    return rc;
}
