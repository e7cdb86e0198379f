/* fuzz_parsers: libFuzzer target for the tool-output parsers (adapters/).
 * An input starts with a line naming an adapter as the registry does,
 * "/open" after the name for an open load ("wrk\n", "k6/open\n"); the
 * rest, split at form feeds (\f), becomes the files the adapter's
 * parse_files says its parse() reads, in a temp dir made once: the first
 * piece the first file, and so on. Every adapter of the registry is
 * reachable, so a new adapter is fuzzed without touching this file; the
 * name (not an index) keeps the committed corpus aimed at the same parser
 * when adapters are added. The files are removed after each input, so
 * every input starts from an empty directory. */
#include "adapters/adapter.h"
#include "spec/profile.h"
#include "common/util.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 4

static char dir[64];

/* The adapter the input's first line names, and whether it asks for an
 * open load; *rest is what follows the line. NULL: no such adapter. */
static const struct adapter *pick(const uint8_t *data, size_t size, int *open, const uint8_t **rest)
{
    const uint8_t *nl = memchr(data, '\n', size < 64 ? size : 64);
    if (!nl)
        return NULL;
    char name[64];
    size_t n = (size_t)(nl - data);
    memcpy(name, data, n);
    name[n] = 0;
    char *slash = strchr(name, '/');
    *open = slash && !strcmp(slash, "/open");
    if (slash)
        *slash = 0;
    *rest = nl + 1;
    const struct adapter *a = adapter_by_name(name);
    return a && a->parse_files && a->parse_files[0] ? a : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int open;
    const uint8_t *p;
    const struct adapter *a = pick(data, size, &open, &p);
    if (!a)
        return 0;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/lb-fuzz-parsers.XXXXXX");
        if (!mkdtemp(dir))
            abort();
        /* Tsung's log sits in log/<date>/ */
        char sub[128];
        snprintf(sub, sizeof sub, "%s/log", dir);
        mkdir(sub, 0755);
        snprintf(sub, sizeof sub, "%s/log/20261203-0930", dir);
        mkdir(sub, 0755);
        /* Gatling's report in results/<simulation>-<timestamp>/ */
        snprintf(sub, sizeof sub, "%s/results", dir);
        mkdir(sub, 0755);
        snprintf(sub, sizeof sub, "%s/results/lbsimulation-20261204093000000", dir);
        mkdir(sub, 0755);
    }
    const uint8_t *end = data + size;
    const char *const *names = a->parse_files;
    char paths[MAX_FILES][256];
    size_t nfiles = 0;
    for (; nfiles < MAX_FILES && names[nfiles]; nfiles++) {
        const uint8_t *ff = p < end ? memchr(p, '\f', (size_t)(end - p)) : NULL;
        const uint8_t *stop = ff && nfiles + 1 < MAX_FILES && names[nfiles + 1] ? ff : end;
        snprintf(paths[nfiles], sizeof paths[nfiles], "%s/%s", dir, names[nfiles]);
        FILE *f = fopen(paths[nfiles], "wb");
        if (!f)
            abort();
        fwrite(p, 1, (size_t)(stop - p), f);
        fclose(f);
        if (stop == end) {
            nfiles++;
            break;
        }
        p = stop + 1;
    }

    /* Both a closed and an open load, as the runner passes one or the other. */
    struct profile_stage st = {.duration_ns = 3000000000ull, .target = 10};
    struct profile_load load = {.model = open ? LOAD_OPEN : LOAD_CLOSED, .stages = &st, .nstages = 1};
    struct adapter_ctx c = {.dir = dir, .load = &load, .host = "127.0.0.1", .port = 1, .url = "http://127.0.0.1:1/"};
    struct adapter_result r;
    adapter_result_init(&r);
    char err[UTIL_ERR_LEN];
    err[0] = 0;
    (void)a->parse(&c, &r, err);
    adapter_result_free(&r);
    for (size_t i = 0; i < nfiles; i++)
        unlink(paths[i]);
    return 0;
}
