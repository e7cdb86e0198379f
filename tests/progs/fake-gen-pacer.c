/* fake-gen-pacer: a fault program, an lb-gen that paces wrongly on
 * purpose, for the pacing verdict's known-truth tests. It runs the real
 * lb-gen (the "lb-gen" beside its own executable: a test links one there)
 * with the arguments loadbench gave, changed by the name it is run by (a
 * test links it under each name):
 *
 *   fake-gen-bursty     --rate=R --duration=D become --rate-stages that send
 *                       R/2 requests in a 10 ms burst every 500 ms (R = 100:
 *                       bursts of 50), the same mean rate
 *   fake-gen-underrate  --rate=R becomes --rate=0.7R: 70 % of the asked rate
 *   fake-gen-churn      adds --close: a new connection per request
 *
 * `--version` goes to the real lb-gen untouched. The server counts what
 * was really sent, so loadbench must call the rows bursty, under-rate and
 * connection churn. */
#include "common/units.h"
#include "common/util.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --rate-stages for bursts of rate/2 every 500 ms over duration_ns: 490 ms
 * at 0, a 5 ms ramp up to the peak and 5 ms down (the triangle's area is
 * the burst). */
static char *burst_stages(double rate, uint64_t duration_ns)
{
    double burst = rate / 2, peak = burst / 0.005;   /* area of a 10 ms triangle */
    size_t cycles = (size_t)(duration_ns / 500000000ull), cap = 64 + cycles * 64;
    char *s = util_xmalloc(cap), *p = s;
    p += snprintf(p, cap, "--rate-stages=");
    for (size_t i = 0; i < cycles; i++)
        p += snprintf(p, cap - (size_t)(p - s), "%s490ms:0,5ms:%.6g,5ms:0", i ? "," : "", peak);
    return s;
}

int main(int argc, char **argv)
{
    char exe[PATH_MAX], real[PATH_MAX + 16], err[UTIL_ERR_LEN];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 1;
    exe[n] = 0;
    /* argv[0] names the mode (a link), /proc/self/exe the real file. */
    const char *mode = basename(argv[0]);
    snprintf(real, sizeof real, "%s/lb-gen", dirname(argv[0][0] == '/' ? argv[0] : exe));
    char **out = util_xcalloc((size_t)argc + 2, sizeof *out);
    int k = 0;
    double rate = 0;
    uint64_t dur = 0;
    out[k++] = real;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--rate=", 7))
            rate = atof(argv[i] + 7);
        else if (!strncmp(argv[i], "--duration=", 11) && units_parse_duration_ns(argv[i] + 11, &dur, err) < 0)
            return 2;
        int drop = !strcmp(mode, "fake-gen-bursty") &&
                   (!strncmp(argv[i], "--rate=", 7) || !strncmp(argv[i], "--duration=", 11));
        if (!strcmp(mode, "fake-gen-underrate") && !strncmp(argv[i], "--rate=", 7))
            out[k++] = util_xasprintf("--rate=%.10g", atof(argv[i] + 7) * 0.7);
        else if (!drop)
            out[k++] = argv[i];
    }
    if (!strcmp(mode, "fake-gen-bursty") && rate > 0 && dur)
        out[k++] = burst_stages(rate, dur);
    if (!strcmp(mode, "fake-gen-churn") && !(argc == 2 && !strcmp(argv[1], "--version")))
        out[k++] = "--close";
    out[k] = NULL;
    execv(real, out);
    perror(real);
    return 127;
}
