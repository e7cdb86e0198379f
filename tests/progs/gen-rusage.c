/* gen-rusage: run a command and report what it cost, from wait4's rusage.
 *
 *   gen-rusage OUTFILE COMMAND [ARG...]
 *
 * Writes one line to OUTFILE: "user_s=U sys_s=S maxrss_kb=K wall_s=W rc=R",
 * where maxrss_kb is the child's peak resident set (VmHWM). The command's
 * stdout and stderr pass through. Exit status: the command's, or 127 when
 * it could not be started. bench/gen.sh uses it to measure generators. */
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen-rusage OUTFILE COMMAND [ARG...]\n");
        return 2;
    }
    uint64_t t0 = util_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "gen-rusage: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "gen-rusage: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "gen-rusage: wait4: %s\n", strerror(errno));
            return 127;
        }
    double wall = (double)(util_now_ns() - t0) / 1e9;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        fprintf(stderr, "gen-rusage: cannot write %s: %s\n", argv[1], strerror(errno));
        return 127;
    }
    fprintf(f, "user_s=%.6f sys_s=%.6f maxrss_kb=%ld wall_s=%.6f rc=%d\n",
            (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
            (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss, wall, rc);
    fclose(f);
    return rc;
}
