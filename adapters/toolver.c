#include "adapters/toolver.h"
#include "common/fsutil.h"
#include "common/util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int toolver_go_module(const char *buf, size_t n, const char *module, char *out, size_t len)
{
    char needle[300];
    int nl = snprintf(needle, sizeof needle, "\nmod\t%s\t", module);
    if (nl < 0 || (size_t)nl >= sizeof needle)
        return -1;
    const char *m = memmem(buf, n, needle, (size_t)nl);
    if (!m)
        return -1;
    const char *v = m + nl, *end = buf + n, *e = v;
    while (e < end && *e != '\t' && *e != '\n' && e - v < 100 && isgraph((unsigned char)*e))
        e++;
    if (e == end || (*e != '\t' && *e != '\n') || e == v || *v != 'v')
        return -1;      /* cut off, not a version, or "(devel)" */
    snprintf(out, len, "%.*s", (int)(e - v), v);
    return 0;
}

int toolver_go_module_file(const char *path, const char *module, char *out, size_t len)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return -1;
    int fd = fsutil_open_input(real, FSUTIL_CAP_RESULT, NULL);
    if (fd < 0)
        return -1;
    /* Blocks of 1 MiB, each after the last 512 bytes of the one before:
     * a module line (at most 300 + 100 bytes here) cut by a block's end
     * is whole in the next. */
    enum { BLOCK = 1 << 20, KEEP = 512 };
    char *buf = util_xmalloc(BLOCK + KEEP);
    size_t have = 0;
    int rc = -1;
    for (;;) {
        ssize_t r = read(fd, buf + have, BLOCK + KEEP - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
        if (toolver_go_module(buf, have, module, out, len) == 0) {
            rc = 0;
            break;
        }
        if (have > KEEP) {
            memmove(buf, buf + have - KEEP, KEEP);
            have = KEEP;
        }
    }
    free(buf);
    close(fd);
    return rc;
}

void toolver_go_version(const char *stamped, size_t n, const char *path, const char *module, char *out, size_t len)
{
    if (n > 100)
        n = 100;
    if (n && !(n == 11 && !strncmp(stamped, "unspecified", 11)))
        snprintf(out, len, "%.*s", (int)n, stamped);
    else if (toolver_go_module_file(path, module, out, len))
        snprintf(out, len, "unknown");
}
