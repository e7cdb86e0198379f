/* fuzz_parsers: libFuzzer target for the tool-output parsers (adapters/).
 * The first byte picks an adapter and the file of its run directory the
 * rest of the input becomes; the adapter's parse() then reads that
 * directory (a temp dir made once). The file is removed after each input,
 * so every input starts from an empty directory. */
#include "adapter.h"
#include "profile.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern const struct adapter adapter_lbgen, adapter_wrk, adapter_hey, adapter_ab, adapter_h2load, adapter_siege,
    adapter_autocannon, adapter_k6, adapter_artillery, adapter_locust, adapter_jmeter, adapter_gofasthttp,
    adapter_aiohttp;

/* Each adapter with each file its parse() reads. */
static const struct {
    const struct adapter *a;
    const char *file;
} cases[] = {
    {&adapter_lbgen, "summary.json"},     {&adapter_wrk, "wrk.json"},        {&adapter_hey, "stdout.txt"},
    {&adapter_ab, "stdout.txt"},          {&adapter_ab, "percentiles.csv"},  {&adapter_h2load, "stdout.txt"},
    {&adapter_h2load, "h2load.log"},      {&adapter_siege, "stdout.txt"},    {&adapter_siege, "stderr.txt"},
    {&adapter_autocannon, "stdout.txt"},  {&adapter_k6, "summary.json"},     {&adapter_k6, "stderr.txt"},
    {&adapter_artillery, "report.json"},  {&adapter_artillery, "stdout.txt"}, {&adapter_locust, "locust.json"},
    {&adapter_locust, "stderr.txt"},      {&adapter_jmeter, "results.jtl"},  {&adapter_jmeter, "stdout.txt"},
    {&adapter_jmeter, "jmeter.log"},      {&adapter_gofasthttp, "stdout.txt"}, {&adapter_aiohttp, "stdout.txt"},
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
    }
    size_t sel = data[0] % NCASES;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, cases[sel].file);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);

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
    unlink(path);
    return 0;
}
