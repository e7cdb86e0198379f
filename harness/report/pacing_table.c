#include "report/pacing_table.h"
#include "report/jpath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const pacing_table_head[PACING_TABLE_COLS] = {
    "Pacing", "Achieved /s", "Asked /s (± noise)", "Worst second (bound)", "Dispersion (bin: bound)",
    "Largest 10 ms bin (expected, bound)", "Longest gap ms", "Connections opened (profile, bound)",
    "Req/conn median, min; peak open"};

const char *const pacing_table_legend =
    "Arrivals as lb-target counted them per 1 ms over the hold window, against the load asked. Bounds come from "
    "Poisson noise on the counts: the rate within 4 sqrt(expected count); a second within (4 + sqrt(2 ln k)) "
    "sqrt(rate); the index of dispersion (variance / mean per bin; about 1 for Poisson arrivals, near 0 for a "
    "clock) at most 1 for a clock-paced tool and 1 + 4 sqrt(2 / (n - 1)) for a Poisson one, judged at the smaller "
    "bin expecting 10 arrivals; connections at most 2 x the profile's + 2. An under-rate row's figure is its "
    "achieved rate.";

static double n(json_t *p, const char *path)
{
    return jpath_num(p, path);
}

static int has(json_t *p, const char *path)
{
    json_t *v = jpath_get(p, path);
    return v && json_is_number(v);
}

int pacing_table_cells(json_t *row, char c[PACING_TABLE_COLS][PACING_TABLE_CELL])
{
    json_t *p = json_object_get(row, "pacing");
    if (!p)
        return 0;
    for (int i = 0; i < PACING_TABLE_COLS; i++)
        snprintf(c[i], PACING_TABLE_CELL, "–");
    const char *v = jpath_str(p, "verdict"), *nj = jpath_str(p, "not_judged");
    snprintf(c[0], PACING_TABLE_CELL, "%s%s%s", v ? v : "?", nj ? ": " : "", nj ? nj : "");
    snprintf(c[7], PACING_TABLE_CELL, "%.0f (%s)", n(p, "connections.opened"),
             has(p, "connections.profile") ? "" : "no profile bound");
    if (has(p, "connections.profile"))
        snprintf(c[7], PACING_TABLE_CELL, "%.0f (%.0f, ≤ %.0f)", n(p, "connections.opened"),
                 n(p, "connections.profile"), n(p, "connections.churn_bound"));
    if (jpath_get(p, "connections.requests_per_connection"))
        snprintf(c[8], PACING_TABLE_CELL, "%.0f%s, %.0f; %.0f", n(p, "connections.requests_per_connection.median_lo"),
                 n(p, "connections.requests_per_connection.median_hi") > n(p, "connections.requests_per_connection.median_lo")
                     ? "+" : "",
                 n(p, "connections.requests_per_connection.min"), n(p, "connections.peak_open"));
    if (!has(p, "achieved_rps"))
        return 1;
    snprintf(c[1], PACING_TABLE_CELL, "%.1f", n(p, "achieved_rps"));
    if (has(p, "requested_rps"))
        snprintf(c[2], PACING_TABLE_CELL, "%.1f (± %.1f)", n(p, "requested_rps"), n(p, "rate_bound_rps"));
    if (jpath_get(p, "worst_second"))
        snprintf(c[3], PACING_TABLE_CELL, "%+.1f %% (± %.1f %%)", 100 * n(p, "worst_second.deviation"),
                 100 * n(p, "worst_second.bound"));
    if (has(p, "dispersion.judged_bin_ms"))
        snprintf(c[4], PACING_TABLE_CELL, "%.2f (%.0f ms: ≤ %.2f, %s)",
                 n(p, n(p, "dispersion.judged_bin_ms") == 10 ? "dispersion.per_10ms.index" : "dispersion.per_100ms.index"),
                 n(p, "dispersion.judged_bin_ms"), n(p, "dispersion.bound"), jpath_str(p, "dispersion.process") ?: "?");
    else
        snprintf(c[4], PACING_TABLE_CELL, "%.2f / %.2f (10 / 100 ms; not judged: %s)",
                 n(p, "dispersion.per_10ms.index"), n(p, "dispersion.per_100ms.index"),
                 jpath_str(p, "dispersion.not_judged") ?: "?");
    snprintf(c[5], PACING_TABLE_CELL, "%.0f%s (%.1f, ≤ %.0f)", n(p, "largest_10ms_bin.count"),
             n(p, "largest_10ms_bin.count") > n(p, "largest_10ms_bin.bound") ? " ⚠" : "",
             n(p, "largest_10ms_bin.expected"), n(p, "largest_10ms_bin.bound"));
    snprintf(c[6], PACING_TABLE_CELL, "%.0f", n(p, "longest_gap_ms"));
    return 1;
}
