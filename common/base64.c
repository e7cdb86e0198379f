/* base64: RFC 4648's standard alphabet, with padding (the agent protocol's
 * file chunks, HdrHistogram's log lines). */
#include "common/base64.h"
#include "common/util.h"

#include <stdint.h>
#include <string.h>

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len)
{
    const unsigned char *d = data;
    char *out = util_xmalloc((len + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < len ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < len ? d[i + 2] : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
        *o++ = i + 2 < len ? b64[v & 63] : '=';
    }
    *o = 0;
    return out;
}

static int b64_value(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

long base64_decode(const char *s, void *out, size_t cap)
{
    unsigned char *o = out;
    size_t n = strlen(s), got = 0;
    if (n % 4)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int pad = (s[i + 3] == '=') + (s[i + 2] == '=');
        if (pad && i + 4 != n)
            return -1;
        int a = b64_value(s[i]), b = b64_value(s[i + 1]), c = pad > 1 ? 0 : b64_value(s[i + 2]),
            d = pad ? 0 : b64_value(s[i + 3]);
        if (a < 0 || b < 0 || c < 0 || d < 0 || got + 3 - (size_t)pad > cap)
            return -1;
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        o[got++] = (unsigned char)(v >> 16);
        if (pad < 2)
            o[got++] = (unsigned char)(v >> 8);
        if (pad < 1)
            o[got++] = (unsigned char)v;
    }
    return (long)got;
}
