/* fuzz_parsers: libFuzzer target for the tool-output parsers (adapters/).
 * The first byte picks an adapter (and a closed or open load); the rest of
 * the input, split at form feeds (\f), becomes the files its parse() reads
 * in a temp dir made once: the first piece the first file, and so on.
 * The files are removed after each input, so every input starts from an
 * empty directory. */
#include "adapters/adapter.h"
#include "profile/profile.h"
#include "common/util.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct adapter adapter_lbgen, adapter_wrk, adapter_hey, adapter_ab, adapter_h2load, adapter_siege,
    adapter_autocannon, adapter_k6, adapter_artillery, adapter_locust, adapter_jmeter, adapter_gofasthttp,
    adapter_aiohttp;
extern const struct adapter adapter_wrk2, adapter_tsung;

/* Each adapter with the files its parse() reads, main one first. */
static const struct {
    const struct adapter *a;
    const char *files[3];
} cases[] = {
    {&adapter_lbgen, {"summary.json"}},
    {&adapter_wrk, {"wrk.json"}},
    {&adapter_wrk2, {"wrk.json", "stdout.txt"}},
    {&adapter_hey, {"stdout.txt"}},
    {&adapter_ab, {"stdout.txt", "percentiles.csv"}},
    {&adapter_h2load, {"stdout.txt", "h2load.log"}},
    {&adapter_siege, {"stdout.txt", "stderr.txt"}},
    {&adapter_autocannon, {"stdout.txt"}},
    {&adapter_k6, {"summary.json", "stderr.txt", "stdout.txt"}},
    {&adapter_artillery, {"report.json", "stdout.txt", "stderr.txt"}},
    {&adapter_locust, {"locust.json", "stderr.txt"}},
    {&adapter_jmeter, {"results.jtl", "stdout.txt", "jmeter.log"}},
    {&adapter_gofasthttp, {"stdout.txt", "stderr.txt"}},
    {&adapter_aiohttp, {"stdout.txt", "stderr.txt"}},
    {&adapter_tsung, {"log/20261203-0930/tsung.log"}},
};
#define NCASES (sizeof cases / sizeof cases[0])

static char dir[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
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
    }
    size_t sel = data[0] % NCASES;
    const uint8_t *p = data + 1, *end = data + size;
    char paths[3][256];
    size_t nfiles = 0;
    for (; nfiles < 3 && cases[sel].files[nfiles]; nfiles++) {
        const uint8_t *ff = p < end ? memchr(p, '\f', (size_t)(end - p)) : NULL;
        const uint8_t *stop = ff && nfiles + 1 < 3 && cases[sel].files[nfiles + 1] ? ff : end;
        snprintf(paths[nfiles], sizeof paths[nfiles], "%s/%s", dir, cases[sel].files[nfiles]);
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
    struct profile_load load = {.model = (data[0] / NCASES) & 1 ? LOAD_OPEN : LOAD_CLOSED, .stages = &st, .nstages = 1};
    struct adapter_ctx c = {.dir = dir, .load = &load, .host = "127.0.0.1", .port = 1, .url = "http://127.0.0.1:1/"};
    struct adapter_result r;
    adapter_result_init(&r);
    char err[UTIL_ERR_LEN];
    err[0] = 0;
    (void)cases[sel].a->parse(&c, &r, err);
    adapter_result_free(&r);
    for (size_t i = 0; i < nfiles; i++)
        unlink(paths[i]);
    return 0;
}
