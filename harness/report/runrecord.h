/* runrecord: what a run's record says about itself (issue #44), defined
 * once for the run that writes run.json and for every reader of it.
 *
 * Its status is derived from its rows against its profile: "complete"
 * only when every entry the profile plans (each tool entry x its sweep
 * levels x repeat; with --only, the labels in run.json's "only") has a
 * final row, one of any status but "interrupted". A run.json that says
 * "complete" without those rows (a run --into added to after a kill, or
 * one edited by hand) reads as "incomplete".
 *
 * Its files: each finished row records the files it left (its own
 * folder's, and its series under samples/) with their size and SHA-256,
 * and a report checks them again: a file missing or changed since the
 * run is said in the row's notes and is neither drawn nor linked. */
#ifndef LB_RUNRECORD_H
#define LB_RUNRECORD_H

#include <jansson.h>
#include <stddef.h>

#define RUNSTATUS_COMPLETE "complete"
#define RUNSTATUS_INCOMPLETE "incomplete"

/* The status run's rows support: the recorded "status" when it does not
 * claim "complete" ("running", "interrupted", "abandoned", "incomplete" or
 * any other word; "absent" when there is none), else "complete" only when
 * no entry lacks a final row, "incomplete" otherwise. why (may be NULL)
 * names the entries without a final row, whatever the status ("wrk
 * (interrupted), lb-gen@2#3 (no row)"). */
const char *runstatus(json_t *run, char *why, size_t len);

/* Write run's status at its end: ended_as ("interrupted", or "complete"
 * for a run that went through its steps) as runstatus reads it back,
 * with "status_detail" saying why a run is not complete. */
void runstatus_settle(json_t *run, const char *ended_as);

/* Record into row's "files" every regular file it left under run_dir: its
 * own folder (row "dir", walked without following links) and the series
 * files its keys name (samples/...): path relative to run_dir, bytes,
 * sha256. */
void runrecord_files(const char *run_dir, json_t *row);

/* A copy of run to draw from: its status as runstatus derives it (and
 * "status_detail"), and each recorded file checked again under dir; one
 * missing or changed adds a note to its row's warnings and, when a key
 * of the row names it, that key is dropped (nothing draws or links it).
 * *bad (may be NULL) gets how many files. Returns a new reference. */
json_t *runrecord_view(const char *dir, json_t *run, int *bad);

#endif
