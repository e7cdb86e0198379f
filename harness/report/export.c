#include "report/export.h"
#include "report/report.h"
#include "report/stats.h"

#include <math.h>
#include <string.h>

/* One figure of a row: where it is in the row's JSON, how it scales into
 * the exported base unit. */
struct export_metric {
    const char *name;       /* OpenMetrics family (a counter's sample adds _total) */
    const char *type;       /* "gauge" or "counter" */
    const char *unit;       /* OpenMetrics UNIT (the name's suffix), or NULL */
    const char *help;
    const char *obj, *sub, *key; /* row[obj][sub][key]; sub may be NULL */
    double scale;
};

static const struct export_metric export_metrics[] = {
    {"loadbench_requests_per_cpu_second", "gauge", NULL,
     "server-counted requests per CPU-second of the tool's whole process tree", "efficiency", NULL,
     "requests_per_cpu_second", 1},
    {"loadbench_tool_rss_peak_bytes", "gauge", "bytes", "peak resident memory of the tool's process tree",
     "footprint", NULL, "rss_peak_mb", 1e6},
    {"loadbench_tool_cpu_average_ratio", "gauge", NULL,
     "the tool's average CPU over its run, in cores (1 = one core busy)", "footprint", NULL, "cpu_avg_pct", 0.01},
    {"loadbench_tool_cpu_seconds", "gauge", "seconds", "CPU time the tool's process tree used over its run",
     "footprint", NULL, "cpu_seconds", 1},
    {"loadbench_server_requests_per_second", "gauge", NULL,
     "server-counted rate over the hold window (lb-target's own count)", "windows", NULL, "hold_rps", 1},
    {"loadbench_server_requests", "counter", NULL, "requests lb-target counted during the row", "server", NULL,
     "requests", 1},
    {"loadbench_tool_requests", "counter", NULL, "requests the tool says it completed", "client", NULL, "requests",
     1},
    {"loadbench_tool_latency_p50_seconds", "gauge", "seconds", "the tool's own median latency", "client",
     "latency_ms", "p50", 1e-3},
    {"loadbench_tool_latency_p99_seconds", "gauge", "seconds", "the tool's own 99th percentile latency", "client",
     "latency_ms", "p99", 1e-3},
    {"loadbench_server_latency_p50_seconds", "gauge", "seconds", "lb-target's median time per request", "server",
     "server_time_ms", "p50", 1e-3},
    {"loadbench_server_latency_p99_seconds", "gauge", "seconds", "lb-target's 99th percentile time per request",
     "server", "server_time_ms", "p99", 1e-3},
};
#define EXPORT_NMETRICS (sizeof export_metrics / sizeof *export_metrics)

static const char *str_or(json_t *o, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : dflt;
}

/* The figure of m in row, or NAN when absent (absent stays absent). */
static double metric_value(json_t *row, const struct export_metric *m)
{
    double x = m->sub ? stats_json_num(row, m->obj, m->sub, m->key) : stats_json_num(row, m->obj, m->key, NULL);
    x *= m->scale;
    return isfinite(x) ? x : NAN;
}

/* A label value, escaped as OpenMetrics wants: \\, \" and \n. */
static void label_value(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fprintf(f, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* The labels every sample of a row carries. */
static void row_labels(FILE *f, json_t *row)
{
    json_t *id = json_object_get(row, "identity");
    const char *names[] = {"tool", "label", "status", "verdict", "version"};
    const char *vals[] = {str_or(row, "tool", ""), str_or(row, "label", str_or(row, "tool", "")),
                          str_or(row, "status", ""), str_or(json_object_get(row, "crosscheck"), "verdict", "none"),
                          str_or(id, "version", "")};
    fputc('{', f);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        fprintf(f, "%s%s=", i ? "," : "", names[i]);
        label_value(f, vals[i]);
    }
    json_t *level = json_object_get(row, "level");
    if (json_is_number(level))
        fprintf(f, ",level=\"%.17g\"", json_number_value(level));
    json_t *rep = json_object_get(row, "repeat");
    if (json_is_integer(rep))
        fprintf(f, ",repeat=\"%lld\"", (long long)json_integer_value(rep));
    fputc('}', f);
}

/* The row's start, seconds since the epoch; NAN when unknown. */
static double row_start_s(json_t *row)
{
    json_t *t = json_object_get(row, "started_at_ms");
    return json_is_number(t) ? json_number_value(t) / 1e3 : NAN;
}

/* The exposition's flavour: OpenMetrics 1.0 (a counter's family named
 * without _total, # UNIT, timestamps in seconds, # EOF) or Prometheus'
 * classic text format 0.0.4 (the family is the sample's name, timestamps
 * in milliseconds). */
static void family_head(FILE *f, const struct export_metric *m, int om)
{
    const char *suffix = !om && !strcmp(m->type, "counter") ? "_total" : "";
    fprintf(f, "# HELP %s%s %s\n", m->name, suffix, m->help);
    fprintf(f, "# TYPE %s%s %s\n", m->name, suffix, m->type);
    if (om && m->unit)
        fprintf(f, "# UNIT %s %s\n", m->name, m->unit);
}

static void sample(FILE *f, const struct export_metric *m, json_t *row, double v, int om, int timestamps)
{
    fprintf(f, "%s%s", m->name, !strcmp(m->type, "counter") ? "_total" : "");
    row_labels(f, row);
    fprintf(f, " %.15g", v);
    double t = row_start_s(row);
    if (timestamps && !isnan(t)) {
        if (om)
            fprintf(f, " %.3f", t);
        else
            fprintf(f, " %.0f", t * 1e3);
    }
    fputc('\n', f);
}

static const struct export_metric export_start = {
    "loadbench_row_start_timestamp_seconds", "gauge", "seconds",
    "when the row's tool started (seconds since the epoch)", NULL, NULL, NULL, 1};

void export_metrics_text(FILE *f, json_t *run, int openmetrics, int timestamps)
{
    json_t *runs = json_object_get(run, "runs");
    size_t i;
    json_t *row;
    for (size_t k = 0; k <= EXPORT_NMETRICS; k++) {
        const struct export_metric *m = k < EXPORT_NMETRICS ? &export_metrics[k] : &export_start;
        family_head(f, m, openmetrics);
        json_array_foreach(runs, i, row)
        {
            if (!json_is_object(row))
                continue;
            double v = m == &export_start ? row_start_s(row) : metric_value(row, m);
            if (!isnan(v))
                sample(f, m, row, v, openmetrics, timestamps && m != &export_start);
        }
    }
    if (openmetrics)
        fputs("# EOF\n", f);
}

void export_csv_long(FILE *f, json_t *run)
{
    fputs("run_started_ms,tool,label,status,verdict,version,metric,value,unit\n", f);
    json_t *started = json_object_get(run, "started_at_ms");
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(run, "runs"), i, row)
    {
        if (!json_is_object(row))
            continue;
        for (size_t k = 0; k < EXPORT_NMETRICS; k++) {
            const struct export_metric *m = &export_metrics[k];
            double v = metric_value(row, m);
            if (isnan(v))
                continue;
            if (json_is_integer(started))
                fprintf(f, "%lld", (long long)json_integer_value(started));
            const char *cells[] = {str_or(row, "tool", ""), str_or(row, "label", str_or(row, "tool", "")),
                                   str_or(row, "status", ""),
                                   str_or(json_object_get(row, "crosscheck"), "verdict", "none"),
                                   str_or(json_object_get(row, "identity"), "version", ""), m->name};
            for (size_t c = 0; c < sizeof cells / sizeof *cells; c++) {
                fputc(',', f);
                report_csv_str(f, cells[c]);
            }
            fprintf(f, ",%.15g,%s\n", v, m->unit ? m->unit : strstr(m->name, "ratio") ? "cores" : "1");
        }
    }
}
