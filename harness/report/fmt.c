#include "report/fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *fmt_thousands(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "–");
        return buf;
    }
    /* Thousands separated by a thin comma for reading. */
    char raw[64];
    snprintf(raw, sizeof raw, "%.0f", v);
    size_t n = strlen(raw), o = 0;
    size_t start = raw[0] == '-' ? 1 : 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        buf[o++] = raw[i];
        size_t left = n - i - 1;
        if (i >= start && left && left % 3 == 0 && o + 2 < len)
            buf[o++] = ',';
    }
    buf[o] = 0;
    return buf;
}
