#include "report/report.h"
#include "report/charts.h"
#include "report/disclosure.h"
#include "report/html.h"
#include "report/jpath.h"
#include "report/pacing_table.h"
#include "report/fmt.h"
#include "report/ranwith.h"
#include "report/runrecord.h"
#include "common/fsutil.h"
#include "report/stats.h"
#include "common/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* This file's short names for jpath's lookups. */
static double num(json_t *o, const char *path)
{
    return jpath_num(o, path);
}

static const char *str(json_t *o, const char *path)
{
    return jpath_str(o, path);
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


static const char *row_name(json_t *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s", str(r, "dir") ? str(r, "dir") : str(r, "label"));
    return buf;
}

/* "median [min–max]" (and "± sd" past five repeats), "⚠" when unstable. */
static const char *fmt_stat(char *buf, size_t len, const struct stats_summary *s, int prec)
{
    char a[64], b[64], c[64];
    if (!s->n) {
        snprintf(buf, len, "–");
        return buf;
    }
    if (prec == 0)
        fmt_thousands(a, sizeof a, s->median);
    else
        fmt(a, sizeof a, s->median, prec);
    if (s->n == 1) {
        snprintf(buf, len, "%s", a);
        return buf;
    }
    if (prec == 0) {
        fmt_thousands(b, sizeof b, s->min);
        fmt_thousands(c, sizeof c, s->max);
    } else {
        fmt(b, sizeof b, s->min, prec);
        fmt(c, sizeof c, s->max, prec);
    }
    int o = snprintf(buf, len, "%s [%s–%s]", a, b, c);
    if (s->n > 5 && o > 0 && (size_t)o < len)
        o += snprintf(buf + o, len - (size_t)o, " ±%.1f%%", s->cv * 100);
    if (s->unstable && o > 0 && (size_t)o < len)
        snprintf(buf + o, len - (size_t)o, " ⚠");
    return buf;
}

/* The per tool (and level) statistics over repeats; only when there is
 * more than one row per group or a sweep. */
static void report_stats_markdown(FILE *f, json_t *run)
{
    struct stats_groups gs;
    stats_group_run(run, &gs);
    int multi = gs.nlevels > 0;
    for (size_t i = 0; i < gs.n; i++)
        multi |= gs.g[i].nrows > 1;
    if (!multi) {
        stats_groups_free(&gs);
        return;
    }
    fprintf(f, "\n## Over repeats and levels\n\n");
    if (json_is_true(json_object_get(run, STATS_INCLUDE_SUSPECT)))
        fprintf(f, "Suspect rows are counted as ok here, as the reader asked (--include-suspect).\n\n");
    fprintf(f, "| Tool | Level | Runs ok |");
    for (const struct stats_metric *m = stats_metrics; m->key; m++)
        fprintf(f, " %s |", m->column);
    fprintf(f, "\n|---|--:|--:|");
    for (const struct stats_metric *m = stats_metrics; m->key; m++)
        fprintf(f, "--:|");
    fprintf(f, "\n");
    int any_unstable = 0, many = 0;
    for (size_t i = 0; i < gs.n; i++) {
        const struct stats_group *g = &gs.g[i];
        char lv[32], cell[160];
        fprintf(f, "| %s | %s | %zu/%zu |", g->label, isnan(g->level) ? "–" : fmt(lv, sizeof lv, g->level, 0), g->nok,
                g->nrows);
        for (const struct stats_metric *m = stats_metrics; m->key; m++) {
            struct stats_summary s;
            stats_group_metric(g, m, &s);
            any_unstable |= s.unstable;
            many |= s.n > 5;
            fprintf(f, " %s |", fmt_stat(cell, sizeof cell, &s, m->prec));
        }
        fprintf(f, "\n");
    }
    fprintf(f, "\nEach cell: median [min–max] over the repeats that ended ok%s. RPS is server-counted over the whole load; "
               "CPU-s/100k req is the tool's CPU seconds per 100,000 server-counted requests.", many ? "; ±: coefficient of variation (more than five repeats)" : "");
    if (any_unstable)
        fprintf(f, " ⚠ marks an unstable metric: min–max range above %.0f %% of the median (five repeats or fewer) "
                   "or coefficient of variation above %.0f %% (more): rerun it, or do not quote it alone.",
                STATS_UNSTABLE_RANGE * 100, STATS_UNSTABLE_CV * 100);
    fprintf(f, " Tools ran interleaved (A B A B …), so drift on the machine hits every tool alike.\n");
    stats_groups_free(&gs);
}

/* A row the target limited measures the target, not the tool: it says so
 * where a reader would rank it. */
static const char *bottleneck_cell(json_t *r)
{
    const char *b = str(r, "limits.bottleneck"), *w = str(r, "limits.witness");
    if (b && !strcmp(b, "target"))
        return w && !strcmp(w, "starved") ? "**target-bound (starved of its CPU by other work): not a tool result**"
                                          : "**target-bound: not a tool result**";
    /* The witness that fired, with its figure (run.json's limits.reason,
     * written since the queueing witness; older rows have none). */
    const char *reason = str(r, "limits.reason");
    if (reason)
        return reason;
    return b ? b : "–";
}

/* RPS hold, with the steadiness verdict when the hold moved (run.json's
 * windows.hold_steady.flag; rows without one print as before). */
static const char *hold_cell(json_t *r, char *buf, size_t len)
{
    fmt_thousands(buf, len, num(r, "windows.hold_rps"));
    if (str(r, "pacing.verdict") && !strcmp(str(r, "pacing.verdict"), "under-rate")) {
        /* Its figure is what arrived, never the rate it was asked. */
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " ⚠ under-rate (asked %.0f/s)", num(r, "pacing.requested_rps"));
    }
    if (str(r, "windows.hold_steady.flag")) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " ⚠ %s", str(r, "windows.hold_steady.verdict") ?: "not steady");
    }
    return buf;
}

/* The target's latency shape for the header: ", lognormal delay (p50 20
 * ms, p99 100 ms, seed 1), 1.0 s stalls every 10.0 s", or "". */
static const char *shape_text(json_t *run, char *buf, size_t len)
{
    json_t *sh = json_object_get(json_object_get(json_object_get(run, "profile"), "target"), "shape");
    const char *dist = str(sh, "dist");
    size_t n = 0;
    buf[0] = 0;
    if (dist && !strcmp(dist, "lognormal"))
        n += (size_t)snprintf(buf, len, ", lognormal delay (p50 %g ms, p99 %g ms", num(sh, "p50_ns") / 1e6,
                              num(sh, "p99_ns") / 1e6);
    else if (dist && !strcmp(dist, "exponential"))
        n += (size_t)snprintf(buf, len, ", exponential delay (mean %g ms", num(sh, "mean_ns") / 1e6);
    else if (dist)
        n += (size_t)snprintf(buf, len, ", uniform delay (%g-%g ms", num(sh, "min_ns") / 1e6, num(sh, "max_ns") / 1e6);
    if (dist && n < len)
        n += (size_t)snprintf(buf + n, len - n, ", seed %.0f)", num(sh, "seed"));
    if (!isnan(num(sh, "stall.every_ns")) && n < len)
        snprintf(buf + n, len - n, ", %.1f s stalls every %.1f s", num(sh, "stall.for_ns") / 1e9,
                 num(sh, "stall.every_ns") / 1e9);
    return buf;
}

/* One percentile cell: "tool / server (+err %)", flagged when the tool is
 * below the server. */
static const char *truth_cell(json_t *row, char *buf, size_t len)
{
    char t[32], sv[32];
    double pct = num(row, "error_pct");
    snprintf(buf, len, "%s / %s", fmt(t, sizeof t, num(row, "tool_ms"), 2), fmt(sv, sizeof sv, num(row, "server_ms"), 2));
    if (!isnan(pct))
        snprintf(buf + strlen(buf), len - strlen(buf), " (%+.0f %%)%s", pct,
                 json_is_true(json_object_get(row, "below_server")) ? " ⚠" : "");
    return buf;
}

/* "## Latency truth": each tool's percentiles against the server's for
 * the same requests. Nothing when no run has the table. */
static void report_truth_markdown(FILE *f, json_t *runs)
{
    static const char *const qs[] = {"p50", "p90", "p99", "p99.9", "max"};
    json_t *r;
    size_t i;
    int any = 0;
    json_array_foreach(runs, i, r) any |= json_object_get(json_object_get(r, "latency_check"), "percentiles") != NULL;
    if (!any)
        return;
    fprintf(f, "\n## Latency truth\n\n"
               "Each cell: the tool's percentile / the server's for the same requests, ms (error in %% of the "
               "server's). A client cannot see a response sooner than the server held it: ⚠ marks a tool "
               "percentile below the server's by more than both resolutions (the tool's, stated; the server's "
               "histogram, 0.1 %%).\n\n");
    fprintf(f, "| Tool | p50 | p90 | p99 | p99.9 | max | Tool resolution ms |\n|---|--:|--:|--:|--:|--:|--:|\n");
    char b[7][96];
    json_array_foreach(runs, i, r)
    {
        json_t *pc = json_object_get(json_object_get(r, "latency_check"), "percentiles"), *row, *cells[5] = {0};
        size_t k;
        if (!pc)
            continue;
        json_array_foreach(json_object_get(pc, "rows"), k, row) for (int q = 0; q < 5; q++) if (!strcmp(str(row, "q") ?: "", qs[q]))
            cells[q] = row;
        fprintf(f, "| %s", row_name(r, b[0], sizeof b[0]));
        for (int q = 0; q < 5; q++)
            fprintf(f, " | %s", cells[q] ? truth_cell(cells[q], b[1 + (q % 5)], sizeof b[1]) : "–");
        fprintf(f, " | %s |\n", fmt(b[6], sizeof b[6], num(pc, "tool_resolution_ms"), 3));
    }
}

/* "## Pacing": each row's pacing truth (report/pacing_table.h), with its
 * findings' witnesses. Nothing when no row has one. */
static void report_pacing_markdown(FILE *f, json_t *runs)
{
    char c[PACING_TABLE_COLS][PACING_TABLE_CELL], name[64];
    json_t *r, *w;
    size_t i, k;
    int any = 0;
    json_array_foreach(runs, i, r)
    {
        if (!pacing_table_cells(r, c))
            continue;
        if (!any++) {
            fprintf(f, "\n## Pacing\n\n%s\n\n| Tool", pacing_table_legend);
            for (int q = 0; q < PACING_TABLE_COLS; q++)
                fprintf(f, " | %s", pacing_table_head[q]);
            fprintf(f, " |\n|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        }
        fprintf(f, "| %s", row_name(r, name, sizeof name));
        for (int q = 0; q < PACING_TABLE_COLS; q++)
            fprintf(f, " | %s", c[q]);
        fprintf(f, " |\n");
    }
    int listed = 0;
    json_array_foreach(runs, i, r) json_array_foreach(json_object_get(json_object_get(r, "pacing"), "findings"), k, w)
        fprintf(f, "%s- **%s** %s: %s\n", listed++ ? "" : "\n", row_name(r, name, sizeof name),
                str(w, "finding") ?: "?", str(w, "witness") ?: "?");
}

/* "### Coordinated omission": each tool's verdict on the target's stalls. */
static void report_co_markdown(FILE *f, json_t *runs)
{
    json_t *r;
    size_t i;
    int any = 0;
    char b[64];
    json_array_foreach(runs, i, r)
    {
        json_t *co = json_object_get(json_object_get(r, "latency_check"), "coordinated_omission");
        if (!co)
            continue;
        if (!any++)
            fprintf(f, "\n### Coordinated omission\n\n"
                       "During each stall of the target, did the tool keep sending on its schedule (the arrivals "
                       "the server counted inside the stalls against those its schedule, or its pace just before, "
                       "puts there), and does its p99 include the wait "
                       "of the requests due in them?\n\n");
        const char *v = str(co, "verdict");
        fprintf(f, "- **%s** (%s): %s\n", row_name(r, b, sizeof b), str(r, "identity.model") ?: "?",
                v ? v : str(co, "why_not") ? str(co, "why_not") : "not judged");
    }
}

/* "## What each row ran with": when the rows did not all run with the
 * same protocol, TLS, delay, connections, request and check (tool entries
 * with their own target:, request:, check: or load: keepalive), each
 * row's. */
static void report_ran_with_markdown(FILE *f, json_t *run)
{
    json_t *r;
    size_t i;
    char cells[RANWITH_LEN], name[64];
    if (!ranwith_differ(run))
        return;
    fprintf(f, "\n## What each row ran with\n\nThe rows did not all run with the same settings: each tool entry "
               "may carry its own target (TLS, protocol, delay), request, check and keep-alive (docs/profiles.md), "
               "and lb-target was started with the row's.\n\n| Tool |");
    for (i = 0; ranwith_heads[i]; i++)
        fprintf(f, " %s |", ranwith_heads[i]);
    fprintf(f, "\n|---|");
    for (i = 0; ranwith_heads[i]; i++)
        fprintf(f, "---|");
    fprintf(f, "\n");
    json_array_foreach(json_object_get(run, "runs"), i, r)
        fprintf(f, "| %s | %s |\n", row_name(r, name, sizeof name), ranwith_cells(run, r, cells, sizeof cells));
}

/* "## Request bodies": with the profile's request: POST, a row that ran
 * with POST (its entry's own request:), or a row whose server counted a
 * body anyway, what lb-target read of each row's bodies. */
static void report_body_markdown(FILE *f, json_t *run)
{
    json_t *runs = json_object_get(run, "runs"), *r;
    size_t i;
    int any = json_object_get(json_object_get(run, "profile"), "request") != NULL;
    char b[7][64];
    json_array_foreach(runs, i, r)
    {
        const char *m = str(r, "request_body.method");
        any |= num(r, "request_body.requests_with_body") > 0 || (m && !strcmp(m, "POST"));
    }
    if (!any)
        return;
    fprintf(f, "\n## Request bodies\n\nWhat lb-target read of each row's request bodies: a POST row's every body must "
               "be the profile's size (another size, none included, is a mismatch; a longer one is refused with 413 "
               "as too large), and a GET row sends none; either fails the row.\n\n"
               "| Tool | Method | Body size | Requests with a body | Body bytes | Mismatched | Too large | Cut short |\n"
               "|---|---|--:|--:|--:|--:|--:|--:|\n");
    json_array_foreach(runs, i, r)
    {
        if (!json_object_get(r, "request_body"))
            continue;
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", row_name(r, b[0], 64), str(r, "request_body.method"),
                fmt_thousands(b[1], 64, num(r, "request_body.expect_bytes")),
                fmt_thousands(b[2], 64, num(r, "request_body.requests_with_body")),
                fmt_thousands(b[3], 64, num(r, "request_body.bytes")), fmt_thousands(b[4], 64, num(r, "request_body.mismatch")),
                fmt_thousands(b[5], 64, num(r, "request_body.too_large")), fmt_thousands(b[6], 64, num(r, "request_body.short")));
    }
}

/* "NAME (load ADDRESS, ssh DEST)" for a placement entry ({host, ssh,
 * address}): the address load went to or came from first, the one the
 * numbers describe; or "this machine". */
static const char *where_cell(json_t *pl, char *buf, size_t len)
{
    const char *host = str(pl, "host"), *dest = str(pl, "ssh"), *addr = str(pl, "address");
    if (!host)
        return "this machine";
    snprintf(buf, len, "%s (load %s, ssh %s)", host, addr ? addr : "?", dest ? dest : "?");
    return buf;
}

/* Where the tool ran: its one host, or each of them ("a (DEST), b
 * (DEST)") for instances on several (placement.tools). */
static const char *tool_where_cell(json_t *pl, char *buf, size_t len)
{
    json_t *all = json_object_get(pl, "tools"), *e;
    size_t i;
    if (json_array_size(all) < 2)
        return where_cell(json_object_get(pl, "tool"), buf, len);
    buf[0] = 0;
    json_array_foreach(all, i, e)
    {
        char one[256];
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s%s", i ? ", " : "", where_cell(e, one, sizeof one));
    }
    return buf;
}

/* Appends the packets an interface lost during the run ("**dropped:
 * tx_dropped 5 on eth0**"): lost outside both processes, they come back
 * as retransmits and tail latency. rx_dropped is left out: it also counts
 * frames of protocols the host does not speak. */
static void nic_drops(json_t *ifs, char *buf, size_t len)
{
    static const char *const keys[] = {"tx_dropped", "rx_missed_errors", "rx_fifo_errors", "tx_fifo_errors"};
    json_t *c;
    const char *name;
    int any = 0;
    json_object_foreach(ifs, name, c)
    {
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            double v = num(c, keys[k]);
            size_t n = strlen(buf);
            if (!isnan(v) && v > 0)
                snprintf(buf + n, len - n, "%s%s %.0f on %s", any++ ? ", " : "; **dropped: ", keys[k], v, name);
        }
    }
    if (any) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "**");
    }
}

/* Bytes received and sent over a tool run on the interfaces of one nic
 * entry ({host, interfaces}), loopback apart. */
static void nic_cell(json_t *e, char *buf, size_t len)
{
    json_t *ifs = json_object_get(e, "interfaces"), *c;
    const char *name;
    double rx = 0, tx = 0, lo = 0;
    if (!json_is_object(ifs)) {
        snprintf(buf, len, "–");
        return;
    }
    json_object_foreach(ifs, name, c)
    {
        if (!strcmp(name, "lo")) {
            lo += num(c, "rx_bytes");
            continue;
        }
        rx += num(c, "rx_bytes");
        tx += num(c, "tx_bytes");
    }
    snprintf(buf, len, "%s: %.1f MB in, %.1f MB out (loopback %.1f MB)", str(e, "host") ?: "this machine", rx / 1e6,
             tx / 1e6, lo / 1e6);
    nic_drops(ifs, buf, len);
}

/* Where the target and each tool ran (a profile with hosts:), with the
 * network bytes each host moved over the tool run. */
static void placement_markdown(FILE *f, json_t *runs)
{
    json_t *r;
    size_t i;
    int any = 0;
    json_array_foreach(runs, i, r) any |= json_is_object(json_object_get(r, "placement"));
    if (!any)
        return;
    fprintf(f, "\n## Where it ran\n\n| Tool run | Tool on | Target on | Network over the run (NIC counters) |\n"
               "|---|---|---|---|\n");
    json_array_foreach(runs, i, r)
    {
        json_t *pl = json_object_get(r, "placement"), *e;
        char b[4][256], cell[512] = "", one[256];
        size_t k;
        if (!json_is_object(pl))
            continue;
        json_array_foreach(json_object_get(r, "nic"), k, e)
        {
            nic_cell(e, one, sizeof one);
            snprintf(cell + strlen(cell), sizeof cell - strlen(cell), "%s%s", k ? "; " : "", one);
        }
        fprintf(f, "| %s | %s | %s | %s |\n", row_name(r, b[0], 256), tool_where_cell(pl, b[1], 256),
                where_cell(json_object_get(pl, "target"), b[2], 256), cell[0] ? cell : "–");
    }
}

/* run.json's "path": the data path each tool host measured before the
 * first row (nothing for a run without one, one line for a skipped one). */
static void path_markdown(FILE *f, json_t *run)
{
    json_t *path = json_object_get(run, "path"), *e;
    const char *host;
    if (!json_is_object(path) || !json_object_size(path))
        return;
    fprintf(f, "\n## Data path (measured before the first row)\n\n");
    if (json_is_string(json_object_get(path, "skipped"))) {
        fprintf(f, "Not measured: %s.\n", json_string_value(json_object_get(path, "skipped")));
        return;
    }
    fprintf(f, "| Tool host | To | Interface | RTT p50 (µs) | RTT p99 (µs) | Bulk (MB/s) | Bulk (packets/s) | Flows |\n"
               "|---|---|---|--:|--:|--:|--:|--:|\n");
    json_object_foreach(path, host, e)
    {
        const char *why = json_string_value(json_object_get(e, "skipped"));
        if (!why)
            why = json_string_value(json_object_get(e, "error"));
        if (why) {
            fprintf(f, "| %s | – | – | – | – | – | – | – |\n\n%s: %s.\n\n", host, host, why);
            continue;
        }
        char b[5][64];
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", host, str(e, "to") ? str(e, "to") : "–",
                str(e, "interface") ? str(e, "interface") : "–", fmt(b[0], 64, num(e, "rtt.p50_us"), 1),
                fmt(b[1], 64, num(e, "rtt.p99_us"), 1), fmt(b[2], 64, num(e, "bulk.bytes_per_s") / 1e6, 1),
                fmt_thousands(b[3], 64, num(e, "bulk.packets_per_s")), fmt_thousands(b[4], 64, num(e, "bulk.flows")));
    }
}

/* RPS (server), marked when the machine was busy outside loadbench during
 * the run (run.json's quiet.disturbed; rows without one print as before). */
static const char *server_rps_cell(json_t *r, char *buf, size_t len)
{
    fmt_thousands(buf, len, num(r, "windows.whole_rps"));
    if (json_is_true(json_object_get(json_object_get(r, "quiet"), "disturbed"))) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, " □ disturbed");
    }
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
    char shape[160], fixed[96] = "";
    if (!str(run, "profile.target.shape.dist"))   /* the fixed delay */
        snprintf(fixed, sizeof fixed, ", %s ms delay", fmt(b[0], 64, num(run, "profile.target.delay_ns") / 1e6, 1));
    fprintf(f, " Target: lb-target%s%s, %s B body, %.0f thread(s).", fixed, shape_text(run, shape, sizeof shape),
            fmt(b[1], 64, num(run, "profile.target.body_bytes"), 0), num(run, "profile.target.threads"));
    if (ranwith_own_delay(run))
        fprintf(f, " " RANWITH_OWN_DELAY_NOTE);
    /* The status its rows give it (runstatus), not the one run.json claims. */
    char why[512];
    const char *status = runstatus(run, why, sizeof why), *detail = str(run, "status_detail");
    if (strcmp(status, "absent") && strcmp(status, RUNSTATUS_COMPLETE))
        fprintf(f, " **Run status: %s%s%s%s.**", status, why[0] || detail ? ": " : "", why[0] ? "no final row for: " : "",
                why[0] ? why : detail ? detail : "");
    if (num(run, "files_changed") > 0)
        fprintf(f, " **%.0f files the run recorded are missing or changed since it ran: the notes name them.**",
                num(run, "files_changed"));
    fprintf(f, " Everything needed to repeat it: [disclosure.md](disclosure.md).\n\n");
    fprintf(f, "| Tool | Status | Model | RPS (server) | RPS hold | P50 ms | P95 ms | P99 ms | Errors | CPU avg %% | CPU peak %% | RSS peak MB | Req/CPU-s | RPS/MB | Server count | Client count | Verdict | Bottleneck |\n");
    fprintf(f, "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
    int note = 0, moved = 0, disturbed = 0;
    json_array_foreach(runs, i, r)
    {
        const char *st = str(r, "status") ?: "?";
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                row_name(r, b[0], 64), st, str(r, "identity.model") ?: "–", server_rps_cell(r, b[1], 64),
                hold_cell(r, b[2], 64), fmt(b[3], 64, num(r, "client.latency_ms.p50"), 2),
                fmt(b[4], 64, num(r, "client.latency_ms.p95"), 2), fmt(b[5], 64, num(r, "client.latency_ms.p99"), 2),
                fmt_thousands(b[6], 64, num(r, "client.errors")), fmt(b[7], 64, num(r, "footprint.cpu_avg_pct"), 1),
                fmt(b[8], 64, num(r, "footprint.cpu_peak_pct"), 1), fmt(b[9], 64, num(r, "footprint.rss_peak_mb"), 1),
                fmt_thousands(b[10], 64, num(r, "efficiency.requests_per_cpu_second")),
                fmt_thousands(b[11], 64, num(r, "efficiency.rps_per_mb")), fmt_thousands(b[12], 64, num(r, "server.requests")),
                fmt_thousands(b[13], 64, num(r, "crosscheck.client")), str(r, "crosscheck.verdict") ?: "–",
                bottleneck_cell(r));
        json_t *w = json_object_get(r, "warnings");
        if (str(r, "reason") || json_array_size(w))
            note = 1;
        moved |= str(r, "windows.hold_steady.flag") != NULL;
        disturbed |= json_is_true(json_object_get(json_object_get(r, "quiet"), "disturbed"));
    }
    fprintf(f, "\nRPS is counted by the server over the tool's whole load (first request to last response); "
               "RPS hold is the server's rate over the longest constant stage. CPU 100 %% = one core; "
               "Req/CPU-s = server-counted requests per CPU-second of the tool's whole process tree.");
    if (moved)
        fprintf(f, " ⚠ after RPS hold: the server-counted rate moved through the hold (Mann–Kendall with Sen's slope over "
                   "2-5 s blocks; the row's notes give the size): that figure is not a steady state.");
    if (disturbed)
        fprintf(f, " □ disturbed: the machine's CPU outside loadbench (other processes, steal) reached the profile's "
                   "quiet bar during that run (run.json quiet.background_pct): every figure of the row shared the machine.");
    fprintf(f, "\n");
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
    report_truth_markdown(f, runs);
    report_pacing_markdown(f, runs);
    report_co_markdown(f, runs);
    report_ran_with_markdown(f, run);
    report_body_markdown(f, run);
    placement_markdown(f, runs);
    path_markdown(f, run);
    report_stats_markdown(f, run);
    fprintf(f, "\n## Charts\n\n"
               "charts/ holds each figure as PNG and SVG with its data (.dat) and gnuplot script (.gp): "
               "bars of requests/s, p50 and p99 latency, peak RSS and average CPU per tool, time series of "
               "CPU %%, RSS and server-counted requests/s per tool run%s. report.html shows the same figures "
               "in one self-contained page. The PNG and SVG files are rendered when gnuplot is installed; "
               "without it, install gnuplot-nox and run `loadbench report RUN_DIR` (or `cd charts && gnuplot *.gp`).\n",
            json_array_size(json_object_get(json_object_get(json_object_get(run, "profile"), "load"), "sweep"))
                ? ", and curves against the swept level"
                : "");
    fprintf(f, "\n## What each latency measures\n\n");
    json_array_foreach(runs, i, r)
    {
        const char *m = str(r, "identity.latency_measures"), *lib = str(r, "identity.settings.tls.library");
        if (m)
            fprintf(f, "- %s (%s): %s; resolution %s ms%s%s%s.\n", row_name(r, b[0], 64),
                    str(r, "identity.version") ?: "?", m, fmt(b[1], 64, num(r, "identity.latency_resolution_ms"), 3),
                    lib ? "; over TLS through " : "", lib ? lib : "",
                    !lib ? "" : json_is_true(jpath_get(r, "identity.settings.tls.verified")) ? ", certificate verified"
                                                                                            : ", certificate not verified");
    }
}

void report_csv_str(FILE *f, const char *s)
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

/* The row's hosts (a profile with hosts:; empty without): the tool's,
 * space-separated when on several, then the target's; "local" is this
 * machine. */
static void csv_hosts(FILE *f, json_t *r)
{
    json_t *pl = json_object_get(r, "placement"), *all = json_object_get(pl, "tools"), *e;
    char hosts[512] = "";
    size_t i;
    if (!json_is_object(pl)) {
        fputc(',', f);
        return;
    }
    if (json_array_size(all) < 2)
        snprintf(hosts, sizeof hosts, "%s", str(pl, "tool.host") ?: "local");
    json_array_foreach(all, i, e)
    {
        size_t n = strlen(hosts);
        if (json_array_size(all) >= 2)
            snprintf(hosts + n, sizeof hosts - n, "%s%s", i ? " " : "", str(e, "host") ?: "local");
    }
    report_csv_str(f, hosts);
    fputc(',', f);
    report_csv_str(f, str(pl, "target.host") ?: "local");
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
        "target_footprint.cpu_avg_pct", "machine_cpu.unattributed_pct", "quiet.background_pct", NULL};
    fprintf(f, "label,tool,version,level,repeat,status,model,verdict,bottleneck");
    for (const char *const *c = cols; *c; c++)
        fprintf(f, ",%s", *c);
    /* Appended last, so that older readers' column numbers still hold. */
    fprintf(f, ",witness,hold_steady,disturbed,tool_hosts,target_host,reason\n");
    json_t *r;
    size_t i;
    json_array_foreach(json_object_get(run, "runs"), i, r)
    {
        report_csv_str(f, str(r, "label"));
        fputc(',', f);
        report_csv_str(f, str(r, "tool"));
        fputc(',', f);
        report_csv_str(f, str(r, "identity.version"));
        fputc(',', f);
        csv_num(f, num(r, "level"));
        fputc(',', f);
        csv_num(f, num(r, "repeat"));
        fputc(',', f);
        report_csv_str(f, str(r, "status"));
        fputc(',', f);
        report_csv_str(f, str(r, "identity.model"));
        fputc(',', f);
        report_csv_str(f, str(r, "crosscheck.verdict"));
        fputc(',', f);
        report_csv_str(f, str(r, "limits.bottleneck"));
        for (const char *const *c = cols; *c; c++) {
            fputc(',', f);
            csv_num(f, num(r, *c));
        }
        fputc(',', f);
        report_csv_str(f, str(r, "limits.witness"));
        fputc(',', f);
        report_csv_str(f, str(r, "windows.hold_steady.verdict"));
        json_t *q = json_object_get(r, "quiet");
        fprintf(f, ",%s,", json_is_object(q) ? (json_is_true(json_object_get(q, "disturbed")) ? "true" : "false") : "");
        csv_hosts(f, r);
        fputc(',', f);
        report_csv_str(f, str(r, "reason"));
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
    int rc = fsutil_write_text(path, buf, err);
    free(buf);
    return rc;
}

void report_stats_csv(FILE *f, json_t *run)
{
    struct stats_groups gs;
    stats_group_run(run, &gs);
    fprintf(f, "label,tool,level,runs,runs_ok,metric,unit,n,median,min,max,mean,stddev,cv,unstable\n");
    for (size_t i = 0; i < gs.n; i++) {
        const struct stats_group *g = &gs.g[i];
        for (const struct stats_metric *m = stats_metrics; m->key; m++) {
            struct stats_summary s;
            stats_group_metric(g, m, &s);
            report_csv_str(f, g->label);
            fputc(',', f);
            report_csv_str(f, g->tool);
            fputc(',', f);
            csv_num(f, g->level);
            fprintf(f, ",%zu,%zu,%s,%s,%zu,", g->nrows, g->nok, m->key, m->unit, s.n);
            csv_num(f, s.median);
            fputc(',', f);
            csv_num(f, s.min);
            fputc(',', f);
            csv_num(f, s.max);
            fputc(',', f);
            csv_num(f, s.mean);
            fputc(',', f);
            csv_num(f, s.stddev);
            fputc(',', f);
            csv_num(f, s.cv);
            fprintf(f, ",%d\n", s.unstable);
        }
    }
    stats_groups_free(&gs);
}

/* Every report from view (run as runrecord_view gives it). */
static int report_write_view(const char *dir, json_t *view, struct report_out *out, char *err)
{
    if (write_with(dir, "summary.md", report_markdown, view, err))
        return -1;
    if (write_with(dir, "results.csv", report_csv, view, err))
        return -1;
    if (write_with(dir, "stats.csv", report_stats_csv, view, err))
        return -1;
    if (write_with(dir, "disclosure.md", disclosure_markdown, view, err))
        return -1;
    if (charts_write(dir, view, &out->charts, err))
        return -1;
    if (html_write(dir, view, err))
        return -1;
    return 0;
}

int report_write(const char *dir, json_t *run, struct report_out *out, char *err)
{
    struct report_out dummy;
    if (!out)
        out = &dummy;
    memset(out, 0, sizeof *out);
    /* The status the rows support, and every recorded file checked: a
     * file missing or changed since the run is a note, never a silent gap. */
    json_t *view = runrecord_view(dir, run, &out->files_bad);
    int rc = report_write_view(dir, view, out, err);
    json_decref(view);
    return rc;
}

int report_write_all(const char *dir, json_t *run, char *err)
{
    return report_write(dir, run, NULL, err);
}
