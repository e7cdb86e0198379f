/* compare: a current run against a baseline, tool x level x metric, with a
 * verdict per cell (improved / same within noise / regressed) and a gate
 * for CI. Across nights absolute requests/s drifts with the machine, so the
 * gate reads CPU seconds per 100k requests, peak RSS, and requests/s only
 * as a ratio to a control generator (wrk or lb-gen) measured in the same
 * run, repeat by repeat. */
#ifndef LB_COMPARE_H
#define LB_COMPARE_H

#include "report/ranks.h"
#include "report/stats.h"

#include <jansson.h>
#include <stdio.h>

struct compare_opts {
    double threshold;       /* relative change that counts, 0.10 = 10 % */
    const char *tool;       /* the compared tool label: its binary may differ (NULL: "lb-gen") */
    const char *control;    /* the control generator label (NULL: wrk when in both runs, else lb-gen) */
    int paired;             /* pair base and current rows by repeat (interleaved A/B): signed-rank, else rank-sum */
    int allow_missing;      /* missing evidence (a gated cell missing, failed, suspect, or from a run not
                             * complete) is shown but does not fail the gate */
    int include_suspect;    /* suspect rows' figures count (a person asked for them) */
};

/* compare_runs' and compare_compute's exit codes. */
enum compare_exit {
    COMPARE_EXIT_PASS = 0,
    COMPARE_EXIT_REGRESSED = 1,
    COMPARE_EXIT_BAD = 2,           /* bad input, or runs that are not comparable */
    COMPARE_EXIT_MISSING = 3,       /* no regression, but a gated cell has no evidence */
};

enum compare_verdict {
    COMPARE_NA,             /* a side has no value (or a zero baseline) */
    COMPARE_SAME,           /* not significant, or within the threshold; with too few values to test:
                             * within the threshold or the repeat spread (min-max ranges overlap) */
    COMPARE_IMPROVED,
    COMPARE_REGRESSED,
};

/* One tool x level x metric. */
struct compare_cell {
    char metric[96];                /* column title ("RSS peak MB", "RPS ÷ wrk") */
    struct stats_summary base, cur;
    int higher_better, prec;
    int gate;                       /* read by the gate: regressed here means exit 1 */
    enum compare_verdict verdict;
    double change;                  /* tested: exp(Hodges–Lehmann of log(cur/base)) - 1; else (cur - base) / |base|
                                     * of the medians; NAN with COMPARE_NA */
    struct ranks_shift shift;       /* the rank test of log(cur/base) (p NAN: a side has no value) */
    int tested;                     /* the test can reach p < RANKS_ALPHA at these sizes */
    int significant;                /* tested and p significant: gated cells after Holm over the gate's
                                     * tested cells, the others at RANKS_ALPHA alone */
    int unjudged;                   /* a footprint cell with a row whose footprint was not judged
                                     * (footprint.judged false: loadbench was not scheduled): n/a */
};

enum compare_row_kind {
    COMPARE_ROW_CELLS,              /* in both runs: one cell per metric */
    COMPARE_ROW_NEW,                /* only in the current run */
    COMPARE_ROW_FAILED,             /* ran ok in the baseline, no run ended ok now: regressed */
    COMPARE_ROW_MISSING,            /* only in the baseline */
};

/* One tool label at one level. */
struct compare_row {
    enum compare_row_kind kind;
    const char *label;              /* borrowed from the runs' JSON */
    double level;                   /* NAN when no sweep */
    char name[128];                 /* "label" or "label@level" */
    int gated;                      /* the compared tool */
    char missing[320];              /* gated: why its evidence is missing ("" when it is not) */
    size_t base_ok, base_rows, cur_ok, cur_rows;
    struct compare_cell cells[8];
    int ncells;
};

/* Room for why a run is not complete (the entries without a final row). */
#define COMPARE_WHY_LEN 512

struct compare_result {
    const char *tool, *control;     /* as resolved (borrowed) */
    double threshold;
    int comparable;                 /* 0: err says why; rows empty */
    struct compare_row *rows;       /* the current run's groups in order, then the baseline's missing ones */
    size_t nrows;
    int gated_cells, failures;      /* cells the gate read, and those that regressed */
    int missing;                    /* gated rows and cells without evidence (rows[].missing says why) */
    char run_missing[COMPARE_WHY_LEN + 256]; /* a run whose status is not complete ("" when both are) */
    int allow_missing;              /* as asked */
    int paired;                     /* as asked */
    int family;                     /* gated cells that were tested: Holm's family */
    double family_min_p;            /* the smallest p any of them could reach (NAN: none tested) */
};

#define COMPARE_REPEAT_STRIDE 1000

/* Several run directories as one side of a comparison: runs[0]'s JSON with
 * the rows of all n runs, run k's repeat r renumbered k *
 * COMPARE_REPEAT_STRIDE + r, so that with the same number of runs on both
 * sides the rows pair run by run, repeat by repeat (names: the runs' paths,
 * for messages). Returns a new reference, or NULL with err when two runs
 * are one run (the same run id, started_at_ms on the same host, or the same
 * content hash: one measurement is not repeats) or a run is not comparable
 * with the first (machine, build, profile, or any tool's binary). */
json_t *compare_merge_runs(json_t *const *runs, const char *const *names, size_t n, char *err);

/* Check that o's --tool and --control labels (when given) name a tool in
 * both runs. Returns 0, or -1 with err naming the labels there are. */
int compare_check_labels(json_t *base, json_t *cur, const struct compare_opts *o, char *err);

/* Compute every cell of cur against base into out (free with
 * compare_result_free). Returns COMPARE_EXIT_PASS when no gated cell
 * regressed, COMPARE_EXIT_REGRESSED when one did, COMPARE_EXIT_MISSING when
 * none did but a gated cell is missing, failed, suspect, has no value or
 * comes from a run whose status is not complete (unless o->allow_missing),
 * COMPARE_EXIT_BAD when the runs are not comparable (out->comparable 0:
 * different machine fingerprint or host, build type, profile, or binary
 * sha256 or version of a tool other than the compared one; err says
 * which). */
int compare_compute(json_t *base, json_t *cur, const struct compare_opts *o, struct compare_result *out, char *err);
void compare_result_free(struct compare_result *r);

/* The Markdown report of r (base and cur are the runs it was computed
 * from: their times and versions head it; err: why not comparable). */
void compare_render_md(json_t *base, json_t *cur, const struct compare_result *r, const char *err, FILE *md);

/* JUnit XML: one test case per gated cell, or one error when the runs are
 * not comparable (err says why). */
void compare_render_junit(const struct compare_result *r, const char *err, FILE *junit);

/* The regressed gated cells, comma separated ("lb-gen@40 RSS peak MB
 * +19.6 %"), into f. */
void compare_render_failures(const struct compare_result *r, FILE *f);

/* The gated cells without evidence and why, comma separated ("lb-gen:
 * 1 of 1 rows suspect in the current run"), into f. */
void compare_render_missing(const struct compare_result *r, FILE *f);

/* Check the labels, compare cur against base, write a Markdown table to md
 * and, when junit is not NULL, JUnit XML. Returns compare_compute's code;
 * err names the regressed cells (1) or those without evidence (3), comma
 * separated; 2 also when a --tool or --control label names no tool of the
 * runs (nothing written). */
int compare_runs(json_t *base, json_t *cur, const struct compare_opts *o, FILE *md, FILE *junit, char *err);

#endif
