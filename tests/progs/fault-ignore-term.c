/* fault-ignore-term: a fault program. A tool that ignores SIGTERM (and
 * SIGINT) and sleeps forever; with N, it first forks N children that do the
 * same. Writes "ready" to stdout once every child is forked.
 *
 *   fault-ignore-term [N] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    for (int i = 0; i < n; i++)
        if (fork() == 0)
            break;
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
