/* fault-daemonize: a fault program. A "tool" that leaves a daemon behind:
 * it forks a child that calls setsid() and forks again (the classic double
 * fork), so the grandchild is in its own session and process group and is
 * orphaned when its parent exits. The grandchild writes its pid to PIDFILE
 * and sleeps forever.
 *
 *   fault-daemonize PIDFILE [--exit]
 *
 * Without --exit the tool itself then sleeps forever; with --exit it exits 0
 * once the pid file is written (as a tool that daemonizes and returns). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fault-daemonize PIDFILE [--exit]\n");
        return 2;
    }
    int exit_after = argc > 2 && !strcmp(argv[2], "--exit");
    int pfd[2];
    if (pipe(pfd) < 0)
        return 1;
    pid_t a = fork();
    if (a < 0)
        return 1;
    if (a == 0) {
        setsid();
        pid_t b = fork();
        if (b < 0)
            _exit(1);
        if (b == 0) {
            FILE *f = fopen(argv[1], "w");
            if (f) {
                fprintf(f, "%d\n", (int)getpid());
                fclose(f);
            }
            close(pfd[0]);
            if (write(pfd[1], "x", 1) != 1)
                _exit(1);
            close(pfd[1]);
            for (;;)
                pause();
        }
        _exit(0);
    }
    close(pfd[1]);
    char c;
    while (read(pfd[0], &c, 1) < 0 && errno == EINTR)
        ;
    waitpid(a, NULL, 0);
    if (exit_after)
        return 0;
    for (;;)
        pause();
}
