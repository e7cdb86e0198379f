#include "common/units.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    uint64_t ns;
} duration_units[] = {
    /* Longest names first so "ms" is not read as "m" followed by junk. */
    {"ns", 1},
    {"us", 1000},
    {"ms", 1000000},
    {"s", 1000000000ull},
    {"m", 60000000000ull},
    {"h", 3600000000000ull},
};

int units_parse_duration_ns(const char *s, uint64_t *out_ns, char *err)
{
    if (!s || !*s)
        return util_err(err, "empty duration (write e.g. \"20ms\", \"2s\" or \"1m30s\")");
    const char *p = s;
    double total = 0;
    while (*p) {
        if (!isdigit((unsigned char)*p) && *p != '.')
            return util_err(err, "bad duration \"%s\": expected a number with a unit, e.g. \"20ms\", \"2s\", \"1m30s\"", s);
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || v < 0 || !isfinite(v))
            return util_err(err, "bad duration \"%s\": expected a number with a unit, e.g. \"20ms\", \"2s\", \"1m30s\"", s);
        p = end;
        size_t ulen = 0;
        while (isalpha((unsigned char)p[ulen]))
            ulen++;
        if (ulen == 0)
            return util_err(err, "duration \"%s\" needs a unit right after the number (ns, us, ms, s, m, h), e.g. \"%.*ss\"",
                            s, (int)(p - s), s);
        uint64_t mult = 0;
        for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++)
            if (strlen(duration_units[i].name) == ulen && !strncmp(p, duration_units[i].name, ulen))
                mult = duration_units[i].ns;
        if (!mult)
            return util_err(err, "bad duration \"%s\": unknown unit \"%.*s\" (use ns, us, ms, s, m, h)", s, (int)ulen, p);
        total += v * (double)mult;
        p += ulen;
    }
    /* 2^63 ns is 292 years: anything above is a typo, not a test plan. */
    if (total >= 9.2e18)
        return util_err(err, "duration \"%s\" is too long", s);
    *out_ns = (uint64_t)llround(total);
    return 0;
}

int units_parse_size_bytes(const char *s, uint64_t *out_bytes, char *err)
{
    static const struct {
        const char *name;
        uint64_t mult;
    } size_units[] = {
        {"", 1}, {"B", 1}, {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000ull},
        {"KiB", 1024}, {"MiB", 1048576}, {"GiB", 1073741824ull},
        {"k", 1000}, {"K", 1024},
    };
    if (!s || !isdigit((unsigned char)*s))
        return util_err(err, "bad size \"%s\": expected an integer with a unit, e.g. \"800B\" or \"16KiB\"", s ? s : "");
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return util_err(err, "size \"%s\" is too large", s);
    for (size_t i = 0; i < sizeof size_units / sizeof size_units[0]; i++) {
        if (!strcmp(end, size_units[i].name)) {
            if (v > UINT64_MAX / size_units[i].mult)
                return util_err(err, "size \"%s\" is too large", s);
            *out_bytes = v * size_units[i].mult;
            return 0;
        }
    }
    return util_err(err, "bad size \"%s\": unknown unit \"%s\" (use B, KB, MB, GB, KiB, MiB, GiB)", s, end);
}

int units_parse_count(const char *s, const char *what, uint64_t *out, char *err)
{
    if (!s || !isdigit((unsigned char)*s))
        return util_err(err, "bad %s \"%s\": expected a non-negative integer", what, s ? s : "");
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return util_err(err, "bad %s \"%s\": expected a non-negative integer", what, s);
    *out = v;
    return 0;
}

char *units_format_duration(uint64_t ns, char *buf)
{
    char *p = buf;
    buf[0] = 0;
    if (ns == 0) {
        strcpy(buf, "0s");
        return buf;
    }
    if (ns % 1000000000ull) {
        /* Not a whole number of seconds: the largest exact sub-second unit. */
        if (ns % 1000000ull == 0)
            sprintf(buf, "%llums", (unsigned long long)(ns / 1000000ull));
        else if (ns % 1000ull == 0)
            sprintf(buf, "%lluus", (unsigned long long)(ns / 1000ull));
        else
            sprintf(buf, "%lluns", (unsigned long long)ns);
        return buf;
    }
    uint64_t s = ns / 1000000000ull;
    uint64_t h = s / 3600, m = (s / 60) % 60, sec = s % 60;
    if (h)
        p += sprintf(p, "%lluh", (unsigned long long)h);
    if (m)
        p += sprintf(p, "%llum", (unsigned long long)m);
    if (sec)
        sprintf(p, "%llus", (unsigned long long)sec);
    return buf;
}
