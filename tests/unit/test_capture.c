/* Unit tests for capture_fatal_line (harness/engine/capture.c): which
 * line of a failed tool's stderr becomes the end of its row's reason
 * (issue 44, defect 17; live in tests/e2e/distributed.t). */
#include "engine/capture.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/lb-capture-XXXXXX";

static const char *line_of(const char *text, char *out, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    if (!capture_fatal_line(path, out, len))
        snprintf(out, len, "(none)");
    return out;
}

int main(void)
{
    char b[240], path[128];
    if (!mkdtemp(dir))
        return 1;
    ok(!strcmp(line_of("starting\nError: port 5557 was busy\nshutting down\n", b, sizeof b),
               "Error: port 5557 was busy"), "the last line that reads as fatal, not the last line (%s)", b);
    ok(!strcmp(line_of("[2026-12-04 12:00:00,000] h/ERROR/locust.runners: busy\n", b, sizeof b),
               "h/ERROR/locust.runners: busy"), "a log line's [time] is left out (%s)", b);
    ok(!strcmp(line_of("[warn] something failed\n", b, sizeof b), "[warn] something failed"),
       "a bracket that is no time stays (%s)", b);
    ok(!strcmp(line_of("one\ntwo  \r\n\n", b, sizeof b), "two"), "no fatal word: the last non-empty line, trimmed (%s)", b);
    ok(!strcmp(line_of("", b, sizeof b), "(none)"), "an empty file: none");
    ok(!strcmp(line_of("a\tb FATAL\n", b, sizeof b), "a b FATAL"), "one printable line (%s)", b);
    line_of("Error: 0123456789 0123456789\n", b, 12);
    ok(strlen(b) == 11, "cut to fit (%s)", b);
    snprintf(path, sizeof path, "%s/fifo", dir);
    mkfifo(path, 0600);
    ok(capture_fatal_line(path, b, sizeof b) == 0 && !b[0], "a FIFO is refused, never waited on");
    snprintf(path, sizeof path, "%s/link", dir);
    symlink("/etc/hostname", path);
    ok(capture_fatal_line(path, b, sizeof b) == 0, "a symbolic link is not followed");
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd))
        diag("could not remove %s", dir);
    return done_testing();
}
