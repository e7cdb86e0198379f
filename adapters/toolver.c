#include "adapters/toolver.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int toolver_major(const char *version)
{
    if (*version == 'v')
        version++;
    char *end;
    long m = strtol(version, &end, 10);
    return end == version || m < 0 || m > 100000 ? -1 : (int)m;
}

/* major.minor.patch of version (a leading v skipped). Returns 0, or -1. */
static int triple(const char *version, unsigned v[3])
{
    if (*version == 'v')
        version++;
    return sscanf(version, "%u.%u.%u", &v[0], &v[1], &v[2]) == 3 ? 0 : -1;
}

int toolver_k6(const char *text, char *out, size_t len)
{
    /* The version template of every k6 from v0.48.0 to v2.2.0 (root.go):
     * "{{with .Name}}{{printf "%s " .}}{{end}}{{printf "v%s\n" .Version}}". */
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "k6 v", 4))
            continue;
        const char *v = line + 3;
        size_t n = strcspn(v, " \r\n");
        if (n < 2 || !isdigit((unsigned char)v[1]))
            continue;
        snprintf(out, len, "%.*s", (int)n, v);
        return 0;
    }
    return -1;
}

enum toolver_known toolver_k6_known(const char *version)
{
    unsigned v[3];
    if (triple(version, v))
        return TOOLVER_UNKNOWN;
    if (v[0] == 0 && v[1] == 48 && v[2] == 0)
        return TOOLVER_LIVE;
    /* v1.0.0-v1.8.1 and v2.0.0-v2.2.0: every tag's source read for the
     * flags, --summary-export's legacy layout (summary-wrapper.js), the
     * executors and the "Request Failed" log line (docs/versions.md). */
    if ((v[0] == 1 && v[1] <= 8) || (v[0] == 2 && v[1] <= 2))
        return TOOLVER_SOURCE;
    return TOOLVER_UNKNOWN;
}

int toolver_manifest(const char *mf, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);
    for (const char *line = mf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, klen) || line[klen] != ':')
            continue;
        const char *v = line + klen + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strcspn(v, "\r\n");
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        if (!n)
            return -1;
        snprintf(out, len, "%.*s", (int)n, v);
        return 0;
    }
    return -1;
}

int toolver_jmeter_banner(const char *text, char *out, size_t len)
{
    /* 5.x (JMeter.java displayAsciiArt): the art's fifth line is
     * "/_/   \_\_| /_/ ... |_____|_| \_\ 5.6.3". */
    const char *art = strstr(text, "|_____|_| \\_\\ ");
    if (art) {
        const char *v = art + strlen("|_____|_| \\_\\ ");
        size_t n = strcspn(v, " \r\n");
        if (n && isdigit((unsigned char)*v)) {
            snprintf(out, len, "%.*s", (int)n, v);
            return 0;
        }
    }
    /* Without the banner resource, and every version before it. */
    const char *v = strstr(text, "Version ");
    if (v && isdigit((unsigned char)v[8])) {
        v += 8;
        snprintf(out, len, "%.*s", (int)strcspn(v, " \r\n"), v);
        return 0;
    }
    return -1;
}

enum toolver_known toolver_jmeter_known(const char *version)
{
    unsigned v[3];
    if (!strncmp(version, "2.13", 4) && (version[4] == 0 || version[4] == '.' || version[4] == ' '))
        return TOOLVER_LIVE;
    if (!triple(version, v) && v[0] == 5 && v[1] == 6 && v[2] == 3)
        return TOOLVER_LIVE;
    return TOOLVER_UNKNOWN;
}
