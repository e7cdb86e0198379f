/* run: turn one validated profile into a run directory of results.
 *
 * For each tool run (sweep level x repeat x tool, tools interleaved): a
 * fresh lb-target, the tool in its own process group (and cgroup where the
 * machine allows), sampled every interval, stopped at its deadline, parsed,
 * and reconciled against the server's counters. run.json is rewritten
 * atomically after every tool run, so an interrupted run keeps what was
 * measured. */
#ifndef LB_RUN_H
#define LB_RUN_H

#include "common/limits.h" /* LB_SCHEMA_VERSION */
#include "spec/profile.h"

#include <jansson.h>
#include <signal.h>

struct run_opts {
    const char *out_dir;            /* exact run directory (must not exist), or NULL */
    const char *results_root;       /* where <UTC>-<name>/ is made when out_dir is NULL */
    const char *into_dir;           /* --into: an existing run directory to add to */
    const char *only;               /* --only: run just this label */
    const char *target_bin;         /* lb-target */
    int quiet;
    int progress_tty;               /* draw a live progress line on stderr */
    volatile sig_atomic_t *stop;    /* set by the caller's SIGINT/SIGTERM handler */
    FILE *log;                      /* plain log lines (stderr), or NULL when quiet */
    struct place *place;            /* the profile's hosts: (engine/place.h; NULL: none, everything
                                       runs here); the run sets its log and closes it at its end */
};

/* What a run leaves its caller, who writes the reports from it (the
 * engine never does) and then gives it back with run_result_release. The
 * run directory stays locked (engine/runlock.h) until then: run.c takes
 * the lock when it makes the directory and releases it there. */
struct run_result {
    char *dir;                      /* the run directory, or NULL when none was made */
    json_t *record;                 /* run.json as saved at the end, for the reports; NULL when
                                       the run did not get that far */
    int unsaved;                    /* 1: run.json could not be saved after a tool ran (err says
                                       why): the lock stays, so `doctor` marks the run abandoned */
};

/* Run the profile. Returns 0 when every tool run ended ok or skipped, 1 when
 * some failed or timed out, or when run.json could not be saved after a
 * tool ran (err filled: "disk full: ..."; the run stops, run.json keeps
 * its last good version, res->unsaved is set), 2 on a setup error (err
 * filled, nothing run), 130 when interrupted. err is "" unless filled. */
int run_profile(const struct profile *p, const struct run_opts *o, struct run_result *res, char *err);

/* The run lock released (kept when res->unsaved), res freed and zeroed. */
void run_result_release(struct run_result *res);

/* Print what `run` would do, without sending load: resolved profile,
 * generated configs (written into a temporary directory, printed, and
 * removed with it), each argv and the estimated wall time. Returns 0, or -1
 * with err. The directory, $TMPDIR/loadbench-plan-TAG-XXXXXX (TAG: the
 * owner's runlock_tag), is announced to the guardian (guard_watch_dir),
 * which removes it if plan is killed (call guard_start first). */
int run_plan(const struct profile *p, FILE *out, char *err);

#define RUN_PLAN_PREFIX "loadbench-plan-"

/* Remove every plan directory in $TMPDIR (else /tmp) whose owner is
 * proven dead (its guardian killed too), as doctor marks the runs of a
 * dead loadbench. Returns how many went. */
int run_plan_sweep_stale(void);

#endif
