/* Unit tests for harness/engine/toollog: which interval and window a
 * tool's sample lands in, from a test adapter whose samples() gives a
 * fixed list (the decoding itself is HdrHistogram's reader's, in
 * tests/e2e/hlog.t). Checks the log's interval lines: tag, start, length. */
#include "engine/toollog.h"
#include "common/util.h"
#include "tests/tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define S 1000000000ll
#define T0 (1796387400ll * S)

/* t (ns after T0), latency (ns), count. */
static const int64_t fixed[][3] = {
    {-5000000, 1000, 1},         /* before the spawn: the first interval */
    {100000000, 2000, 1},        /* [0, 0.5) */
    {600000000, 3000, 2},        /* [0.5, 0.7): the hold starts at 0.7 */
    {800000000, 4000, 1},        /* [0.7, 1.0) */
    {2100000000, 5000, 1},       /* [2.0, 2.2): the hold ends at 2.2 */
    {2400000000, 6000, 1},       /* [2.2, 2.5) */
};

static void fixed_samples_into(void (*fn)(void *, int64_t, uint64_t, uint64_t), void *arg, int64_t base)
{
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        fn(arg, base + fixed[i][0], (uint64_t)fixed[i][1], (uint64_t)fixed[i][2]);
}

static int fixed_samples(const char *dir, void (*fn)(void *, int64_t, uint64_t, uint64_t), void *arg, char *err)
{
    (void)dir;
    (void)err;
    fixed_samples_into(fn, arg, T0);
    return 0;
}

/* The interval lines of path, each "TAG,START,LENGTH" (max and histogram
 * cut), joined by spaces. */
static void lines_of(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    out[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Tag=", 4))
            continue;
        char *c = strchr(line, ',');
        c = c ? strchr(c + 1, ',') : NULL;
        c = c ? strchr(c + 1, ',') : NULL;
        if (c)
            *c = 0;
        snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", line + 4);
    }
    if (f)
        fclose(f);
}

static void test_sampling_intervals(const char *path)
{
    struct adapter a = {.name = "fake", .samples = fixed_samples, .samples_unit_ns = 1};
    struct toollog_frame fr = {.label = "x", .t0_unix_ns = T0, .interval_ns = 500000000,
                               .hold_from_unix_ns = T0 + 700000000, .hold_to_unix_ns = T0 + 2200000000};
    const char *dirs[] = {"."};
    char err[UTIL_ERR_LEN], got[1024];
    int n = toollog_write(path, &a, dirs, 1, &fr, err);
    ok(n == 5, "5 intervals with samples (got %d: %s)", n, n < 0 ? err : "");
    lines_of(path, got, sizeof got);
    is_str(got,
           "x:before-hold,0.000,0.500 x:before-hold,0.500,0.200 x:hold,0.700,0.300 x:hold,2.000,0.200 "
           "x:after-hold,2.200,0.300",
           "sampling intervals from the spawn, cut at the hold's edges, empty ones left out");
    fr.hold_from_unix_ns = fr.hold_to_unix_ns = 0;
    toollog_write(path, &a, dirs, 1, &fr, err);
    lines_of(path, got, sizeof got);
    is_str(got, "x:load,0.000,0.500 x:load,0.500,0.500 x:load,2.000,0.500", "no hold window: LABEL:load");
}

static void test_own_intervals(const char *path)
{
    struct adapter a = {.name = "fake", .samples = fixed_samples, .samples_unit_ns = 1,
                        .samples_period_ns = 1000000000};
    struct toollog_frame fr = {.label = "y", .t0_unix_ns = T0, .interval_ns = 500000000,
                               .hold_from_unix_ns = T0 + 700000000, .hold_to_unix_ns = T0 + 2200000000};
    const char *dirs[] = {"."};
    char err[UTIL_ERR_LEN], got[1024];
    int n = toollog_write(path, &a, dirs, 1, &fr, err);
    ok(n == 6, "a tool's own intervals: one a distinct time (got %d)", n);
    lines_of(path, got, sizeof got);
    is_str(got,
           "y:before-hold,0.000,1.000 y:before-hold,0.100,1.000 y:hold,0.600,1.000 y:hold,0.800,1.000 "
           "y:after-hold,2.100,1.000 y:after-hold,2.400,1.000",
           "each its period long, in the window its middle is in");
}

static int no_samples(const char *dir, void (*fn)(void *, int64_t, uint64_t, uint64_t), void *arg, char *err)
{
    (void)dir, (void)fn, (void)arg, (void)err;
    return 0;
}

static int bad_samples(const char *dir, void (*fn)(void *, int64_t, uint64_t, uint64_t), void *arg, char *err)
{
    (void)fn, (void)arg;
    return util_err(err, "cannot read \"%s\"", dir);
}

static void test_none(const char *path)
{
    struct adapter a = {.name = "fake", .samples = no_samples};
    struct toollog_frame fr = {.label = "z", .t0_unix_ns = T0, .interval_ns = S};
    const char *dirs[] = {"d"};
    char err[UTIL_ERR_LEN];
    unlink(path);
    ok(toollog_write(path, &a, dirs, 1, &fr, err) == 0 && access(path, F_OK) != 0, "no samples: no file, 0");
    a.samples = bad_samples;
    ok(toollog_write(path, &a, dirs, 1, &fr, err) < 0 && strstr(err, "\"d\"") && access(path, F_OK) != 0,
       "a samples() error is returned (%s), no file", err);
}

int main(void)
{
    char path[] = "/tmp/test_toollog.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    test_sampling_intervals(path);
    test_own_intervals(path);
    test_none(path);
    unlink(path);
    return done_testing();
}
