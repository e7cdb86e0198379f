/* fault-hot-thread: a fault program that saturates one thread on purpose,
 * the calibration of the thread witness (a single-threaded event loop at
 * 100 % of a core, whatever the process total says).
 *
 *   fault-hot-thread IDLE CMD [ARG...]
 *
 * Starts IDLE threads that only sleep and one thread that spins, then runs
 * CMD (e.g. lb-gen with the arguments loadbench gave) as its child, waits
 * for it and exits with its status. The spinning stops when CMD has
 * exited. Last, it prints the hot thread's own account to stderr:
 *   fault-hot-thread: hot thread cpu_s=C wall_s=W share=S idle=N
 * (S = its CPU time over the wall time it spun: what the machine gave it,
 * the truth a witness is checked against). SIGTERM (loadbench stops the
 * whole process group) ends the wait early but still prints the line. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static atomic_int done;

static double clock_s(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct hot {
    double cpu_s, wall_s;
};

static void *spin(void *arg)
{
    struct hot *h = arg;
    double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
    volatile unsigned long x = 0;
    while (!atomic_load_explicit(&done, memory_order_relaxed))
        for (int i = 0; i < 100000; i++)
            x++;
    h->cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    h->wall_s = clock_s(CLOCK_MONOTONIC) - w0;
    return NULL;
}

static pthread_mutex_t idle_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;

/* Blocked until the end: no CPU at all (a thread pool's parked workers). */
static void *idle(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&idle_mu);
    while (!atomic_load(&done))
        pthread_cond_wait(&idle_cv, &idle_mu);
    pthread_mutex_unlock(&idle_mu);
    return NULL;
}

static void on_term(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    if (argc < 3 || atoi(argv[1]) < 0 || atoi(argv[1]) > 1024) {
        fprintf(stderr, "usage: fault-hot-thread IDLE(0-1024) CMD [ARG...]\n");
        return 2;
    }
    int nidle = atoi(argv[1]);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term; /* no SA_RESTART: the wait sees EINTR */
    sigaction(SIGTERM, &sa, NULL);
    pid_t child = fork();
    if (child < 0)
        return perror("fork"), 2;
    if (child == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "fault-hot-thread: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    pthread_t hot_t, idle_t[1024];
    struct hot h = {0, 0};
    pthread_create(&hot_t, NULL, spin, &h);
    for (int i = 0; i < nidle; i++)
        pthread_create(&idle_t[i], NULL, idle, NULL);
    int status = 0, rc;
    while ((rc = waitpid(child, &status, 0)) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&idle_mu);
    atomic_store(&done, 1);
    pthread_cond_broadcast(&idle_cv);
    pthread_mutex_unlock(&idle_mu);
    pthread_join(hot_t, NULL);
    for (int i = 0; i < nidle; i++)
        pthread_join(idle_t[i], NULL);
    fprintf(stderr, "fault-hot-thread: hot thread cpu_s=%.3f wall_s=%.3f share=%.3f idle=%d\n", h.cpu_s, h.wall_s,
            h.wall_s > 0 ? h.cpu_s / h.wall_s : 0.0, nidle);
    if (rc < 0)
        return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
