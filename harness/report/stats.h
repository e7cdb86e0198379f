/* stats: what a run's rows say once repeats are grouped — per tool label and
 * sweep level, the median, min, max, standard deviation and coefficient of
 * variation of each headline metric, and whether that metric was stable.
 * Shared by the Markdown/CSV report, the charts, the HTML page and compare,
 * so all four read the same numbers. */
#ifndef LB_STATS_H
#define LB_STATS_H

#include "common/numstats.h"

#include <jansson.h>
#include <stddef.h>




/* One headline metric: where it lives in a row, how it is shown. */
struct stats_metric {
    const char *key;    /* short id: "rps", "p99", "rss" ... */
    const char *title;  /* "Requests/s (server-counted)" */
    const char *column; /* table header: "RPS", "P99 ms" */
    const char *unit;   /* "req/s", "ms", "MB", "%", "CPU-s" */
    int higher_better;  /* 1: more is better (rps), 0: less is better */
    int prec;           /* decimals when printed */
};

/* The headline metrics, in report order, ended by a zeroed entry. */
extern const struct stats_metric stats_metrics[];

/* The metric named key, or NULL. */
const struct stats_metric *stats_metric_by_key(const char *key);

/* A metric's value in one run row, NAN when absent. cpu100k is derived:
 * CPU seconds per 100,000 server-counted requests. */
double stats_value(json_t *row, const struct stats_metric *m);

/* The number at o.a, o.a.b or o.a.b.c (pass NULL for the keys not
 * needed), or NAN when absent or not a number. */
double stats_json_num(json_t *o, const char *a, const char *b, const char *c);

/* The string at o.a or o.a.b (b NULL), or NULL when absent or not a
 * string. */
const char *stats_json_str(json_t *o, const char *a, const char *b);



/* The rows of one tool label at one sweep level (level NAN when no sweep). */
struct stats_group {
    const char *label, *tool;   /* borrowed from the run JSON */
    double level;
    size_t nrows, nok;          /* rows, and rows whose figures count (status ok; with
                                 * include_suspect, suspect too) */
    json_t **rows;              /* the rows that count (borrowed) */
    json_t **all;               /* all nrows rows, whatever their status (borrowed) */
    int colour;                 /* the tool label's index in the profile: one colour per label everywhere */
};

struct stats_groups {
    size_t n;
    struct stats_group *g;
    size_t nlabels;             /* distinct labels, in profile order */
    const char **labels;
    size_t nlevels;             /* distinct levels, ascending (0 when no sweep) */
    double *levels;
    json_t *index;              /* label -> its index in labels (a hash: lookups stay O(1) at 3,000 rows) */
    size_t *first;              /* per label, its first group in g (n when it has none) */
};

/* Whether a row's figures enter statistics: status ok, or suspect when
 * include_suspect (a person asked for them: --include-suspect). Failed,
 * timed-out and skipped rows never do. */
int stats_row_counts(json_t *row, int include_suspect);

/* The key a reader sets, in memory only, on a run object to count its
 * suspect rows (report/history --include-suspect); run.json never has it. */
#define STATS_INCLUDE_SUSPECT "include_suspect"

/* Group run rows by label and level, in profile order then level order;
 * a group's rows are those stats_row_counts admits (suspect ones when the
 * run carries STATS_INCLUDE_SUSPECT: true).
 * Always succeeds (out-of-memory aborts). Free with stats_groups_free. */
void stats_group_run(json_t *run, struct stats_groups *out);
/* The same, admitting suspect rows when include_suspect. */
void stats_group_run_with(json_t *run, int include_suspect, struct stats_groups *out);
void stats_groups_free(struct stats_groups *gs);

/* Summarize metric m over group g's ok rows. */
void stats_group_metric(const struct stats_group *g, const struct stats_metric *m, struct stats_summary *out);

/* The index of label in gs->labels (its colour), or -1. */
long stats_label_index(const struct stats_groups *gs, const char *label);

/* The group with this label and level (NAN matches NAN), or NULL. */
const struct stats_group *stats_find(const struct stats_groups *gs, const char *label, double level);

/* 1 when run row belongs to group g (its label and level), whatever its
 * status; 0 otherwise. */
int stats_row_in(const struct stats_group *g, json_t *row);

/* "label" or "label@level" into buf. Returns buf. */
const char *stats_group_name(const struct stats_group *g, char *buf, size_t len);

#endif
