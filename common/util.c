#include "common/util.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void oom(size_t size_bytes)
{
    /* The one place library code may end the process: nothing sensible can
     * continue without memory, and every caller would do the same. */
    fprintf(stderr, "out of memory (allocating %zu bytes)\n", size_bytes);
    abort();
}

void *util_xmalloc(size_t size_bytes)
{
    void *p = malloc(size_bytes ? size_bytes : 1);
    if (!p)
        oom(size_bytes);
    return p;
}

void *util_xcalloc(size_t count, size_t size_bytes)
{
    void *p = calloc(count ? count : 1, size_bytes ? size_bytes : 1);
    if (!p)
        oom(count * size_bytes);
    return p;
}

void *util_xrealloc(void *ptr, size_t size_bytes)
{
    void *p = realloc(ptr, size_bytes ? size_bytes : 1);
    if (!p)
        oom(size_bytes);
    return p;
}

char *util_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = util_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

char *util_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom(0);
    char *p = util_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* c escaped as in a JSON string into out (at least 7 bytes): its length. */
static size_t quote_char(unsigned char c, char *out)
{
    static const char esc[] = "\"\"\\\\\nn\tt\rr\bb\ff";
    for (const char *e = esc; *e; e += 2)
        if ((unsigned char)e[0] == c)
            return (size_t)snprintf(out, 7, "\\%c", e[1]);
    if (c < 0x20 || c == 0x7f)
        return (size_t)snprintf(out, 7, "\\u%04x", c);
    out[0] = (char)c;
    out[1] = 0;
    return 1;
}

const char *util_quote(const char *s, char *buf, size_t len)
{
    if (!s) {
        snprintf(buf, len, "absent");
        return buf;
    }
    size_t n = 0;
    if (len < 8) {
        snprintf(buf, len, "\"…\"");
        return buf;
    }
    buf[n++] = '"';
    for (; *s; s++) {
        char one[8];
        size_t k = quote_char((unsigned char)*s, one);
        if (n + k + 5 > len) { /* room for …" and the NUL */
            n += (size_t)snprintf(buf + n, len - n, "…");
            break;
        }
        memcpy(buf + n, one, k);
        n += k;
    }
    snprintf(buf + n, len - n, "\"");
    return buf;
}

int util_err(char *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, UTIL_ERR_LEN, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void util_sleep_until_ns(uint64_t t_ns)
{
    struct timespec ts = {(time_t)(t_ns / 1000000000ull), (long)(t_ns % 1000000000ull)};
    /* EINTR: a signal; return and let the caller look at the stop flag. */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

int util_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t util_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t util_now_us(void)
{
    return util_now_ns() / 1000u;
}

uint64_t util_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int util_parse_cpulist(const char *s, uint64_t *mask, char *err)
{
    uint64_t m = 0;
    const char *p = s;
    if (!s || !*s)
        return util_err(err, "empty CPU list (write e.g. \"0\", \"1,3\" or \"0-2\")");
    while (*p) {
        char *end;
        errno = 0;
        long a = strtol(p, &end, 10);
        if (end == p || errno || a < 0 || a > 63)
            return util_err(err, "bad CPU list \"%s\": expected CPU numbers 0-63 like \"0\", \"1,3\" or \"0-2\"", s);
        long b = a;
        p = end;
        if (*p == '-') {
            p++;
            b = strtol(p, &end, 10);
            if (end == p || b < a || b > 63)
                return util_err(err, "bad CPU range in \"%s\"", s);
            p = end;
        }
        for (long c = a; c <= b; c++)
            m |= (uint64_t)1 << c;
        if (*p == ',')
            p++;
        else if (*p)
            return util_err(err, "bad CPU list \"%s\": unexpected '%c'", s, *p);
    }
    *mask = m;
    return 0;
}

int util_pin(int pid, uint64_t mask, char *err)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = 0; c < 64; c++)
        if (mask & ((uint64_t)1 << c))
            CPU_SET(c, &set);
    if (sched_setaffinity(pid, sizeof set, &set) < 0)
        return util_err(err, "cannot pin to CPUs (mask 0x%llx): %s", (unsigned long long)mask, strerror(errno));
    return 0;
}
