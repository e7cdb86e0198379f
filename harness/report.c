#include "report.h"
#include "run.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A number at a path of object keys, NAN when absent or null. */
static double num(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, k);
    return json_is_number(cur) ? json_number_value(cur) : NAN;
}

static const char *str(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, k);
    return json_is_string(cur) ? json_string_value(cur) : NULL;
}

/* Format v with prec decimals, or "–" when absent. */
static const char *fmt(char *buf, size_t len, double v, int prec)
{
    if (isnan(v))
        snprintf(buf, len, "–");
    else
        snprintf(buf, len, "%.*f", prec, v);
    return buf;
}

static const char *fmt_int(char *buf, size_t len, double v)
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

static const char *row_name(json_t *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s", str(r, "dir") ? str(r, "dir") : str(r, "label"));
    return buf;
}

void report_markdown(FILE *f, json_t *run)
{
    json_t *runs = json_object_get(run, "runs"), *r;
    size_t i;
    char b[16][64];
    const char *name = str(run, "profile.name");
    fprintf(f, "# loadbench: %s\n\n", name ? name : "run");
    const char *desc = str(run, "profile.description");
    if (desc)
        fprintf(f, "%s\n\n", desc);
    time_t t = (time_t)(num(run, "started_at_ms") / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    fprintf(f, "Run %s on %s (%.0f cores, %.0f MB, kernel %s), loadbench %s (%s).", when,
            str(run, "machine.cpu_model") ?: "?", num(run, "machine.cores"), num(run, "machine.memory_mb"),
            str(run, "machine.kernel") ?: "?", str(run, "loadbench.version") ?: "?", str(run, "loadbench.build") ?: "?");
    fprintf(f, " Target: lb-target, %s ms delay, %s B body, %.0f thread(s).",
            fmt(b[0], 64, num(run, "profile.target.delay_ns") / 1e6, 1), fmt(b[1], 64, num(run, "profile.target.body_bytes"), 0),
            num(run, "profile.target.threads"));
    const char *status = str(run, "status");
    if (status && strcmp(status, "complete"))
        fprintf(f, " **Run status: %s.**", status);
    fprintf(f, "\n\n");
    fprintf(f, "| Tool | Status | Model | RPS (server) | RPS hold | P50 ms | P95 ms | P99 ms | Errors | CPU avg %% | CPU peak %% | RSS peak MB | Req/CPU-s | RPS/MB | Server count | Client count | Verdict | Bottleneck |\n");
    fprintf(f, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
    int note = 0;
    json_array_foreach(runs, i, r)
    {
        const char *st = str(r, "status") ?: "?";
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                row_name(r, b[0], 64), st, str(r, "identity.model") ?: "–", fmt_int(b[1], 64, num(r, "windows.whole_rps")),
                fmt_int(b[2], 64, num(r, "windows.hold_rps")), fmt(b[3], 64, num(r, "client.latency_ms.p50"), 2),
                fmt(b[4], 64, num(r, "client.latency_ms.p95"), 2), fmt(b[5], 64, num(r, "client.latency_ms.p99"), 2),
                fmt_int(b[6], 64, num(r, "client.errors")), fmt(b[7], 64, num(r, "footprint.cpu_avg_pct"), 1),
                fmt(b[8], 64, num(r, "footprint.cpu_peak_pct"), 1), fmt(b[9], 64, num(r, "footprint.rss_peak_mb"), 1),
                fmt_int(b[10], 64, num(r, "efficiency.requests_per_cpu_second")),
                fmt_int(b[11], 64, num(r, "efficiency.rps_per_mb")), fmt_int(b[12], 64, num(r, "server.requests")),
                fmt_int(b[13], 64, num(r, "crosscheck.client")), str(r, "crosscheck.verdict") ?: "–",
                str(r, "limits.bottleneck") ?: "–");
        json_t *w = json_object_get(r, "warnings");
        if (str(r, "reason") || json_array_size(w))
            note = 1;
    }
    fprintf(f, "\nRPS is counted by the server over the tool's whole load (first request to last response); "
               "RPS hold is the server's rate over the longest constant stage. CPU 100 %% = one core; "
               "Req/CPU-s = server-counted requests per CPU-second of the tool's whole process tree.\n");
    if (note) {
        fprintf(f, "\n## Notes\n\n");
        json_array_foreach(runs, i, r)
        {
            const char *reason = str(r, "reason");
            json_t *w = json_object_get(r, "warnings"), *x;
            size_t k;
            if (!reason && !json_array_size(w))
                continue;
            fprintf(f, "- **%s**", row_name(r, b[0], 64));
            if (reason)
                fprintf(f, " — %s: %s", str(r, "status") ?: "?", reason);
            fprintf(f, "\n");
            json_array_foreach(w, k, x) fprintf(f, "  - %s\n", json_string_value(x));
        }
    }
    fprintf(f, "\n## What each latency measures\n\n");
    json_array_foreach(runs, i, r)
    {
        const char *m = str(r, "identity.latency_measures");
        if (m)
            fprintf(f, "- %s (%s): %s; resolution %s ms.\n", row_name(r, b[0], 64), str(r, "identity.version") ?: "?", m,
                    fmt(b[1], 64, num(r, "identity.latency_resolution_ms"), 3));
    }
}

static void csv_str(FILE *f, const char *s)
{
    if (!s) {
        return;
    }
    if (strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
}

static void csv_num(FILE *f, double v)
{
    if (!isnan(v))
        fprintf(f, "%.6g", v);
}

void report_csv(FILE *f, json_t *run)
{
    static const char *const cols[] = {
        "windows.whole_rps", "windows.hold_rps", "windows.whole_s", "client.requests", "client.errors",
        "client.latency_ms.p50", "client.latency_ms.p90", "client.latency_ms.p95", "client.latency_ms.p99",
        "client.latency_ms.max", "client.latency_ms.mean", "server.requests", "crosscheck.difference",
        "server.inflight_max", "server.connections_open_max", "server.littles_law_concurrency",
        "server.server_time_ms.p50", "server.server_time_ms.p99", "footprint.cpu_seconds", "footprint.cpu_avg_pct",
        "footprint.cpu_peak_pct", "footprint.rss_peak_mb", "footprint.rss_avg_mb", "footprint.procs_peak",
        "footprint.threads_peak", "efficiency.requests_per_cpu_second", "efficiency.rps_per_mb",
        "target_footprint.cpu_avg_pct", "machine_cpu.unattributed_pct", NULL};
    fprintf(f, "label,tool,version,level,repeat,status,model,verdict,bottleneck");
    for (const char *const *c = cols; *c; c++)
        fprintf(f, ",%s", *c);
    fputc('\n', f);
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        csv_str(f, str(r, "label"));
        fputc(',', f);
        csv_str(f, str(r, "tool"));
        fputc(',', f);
        csv_str(f, str(r, "identity.version"));
        fputc(',', f);
        csv_num(f, num(r, "level"));
        fputc(',', f);
        csv_num(f, num(r, "repeat"));
        fputc(',', f);
        csv_str(f, str(r, "status"));
        fputc(',', f);
        csv_str(f, str(r, "identity.model"));
        fputc(',', f);
        csv_str(f, str(r, "crosscheck.verdict"));
        fputc(',', f);
        csv_str(f, str(r, "limits.bottleneck"));
        for (const char *const *c = cols; *c; c++) {
            fputc(',', f);
            csv_num(f, num(r, *c));
        }
        fputc('\n', f);
    }
}

static int write_with(const char *dir, const char *name, void (*fn)(FILE *, json_t *), json_t *run, char *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return util_err(err, "out of memory");
    fn(f, run);
    fclose(f);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = run_write_text(path, buf, err);
    free(buf);
    return rc;
}

int report_write_all(const char *dir, json_t *run, char *err)
{
    if (write_with(dir, "summary.md", report_markdown, run, err))
        return -1;
    if (write_with(dir, "results.csv", report_csv, run, err))
        return -1;
    return 0;
}
