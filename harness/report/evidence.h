/* evidence: what a run.json read back must be before its figures are
 * believed (issue 44): the schema this build writes, rows of the right
 * shape, and no impossible value. report refuses a run that fails any of
 * it; compare and history refuse the first two and read a row with an
 * impossible value as a row without evidence. */
#ifndef LB_EVIDENCE_H
#define LB_EVIDENCE_H

#include <jansson.h>
#include <stddef.h>

/* Whether row holds invalid evidence: a negative or non-finite number
 * anywhere in its footprint, target_footprint, client (counts and
 * latencies; the tool's own output aside), server or windows (the
 * steadiness change and the load's start offset, which may be negative,
 * aside). Returns 1 with why ("footprint.rss_peak_mb is -1: a negative
 * value is not evidence") when it does, else 0. */
int evidence_row_invalid(json_t *row, char *why, size_t len);

/* Whether run is a run.json this build reads: schema_version
 * LB_SCHEMA_VERSION, runs a list of rows, each an object with string
 * tool, label and status and, when present, a number (or null) level and
 * repeat; with evidence set, no row with invalid evidence either
 * (report's check). Returns 0, or -1 with err naming the field and the
 * row's index. */
int evidence_run_check(json_t *run, int evidence, char *err);

/* The status a reader gives, in memory only, to a row with invalid
 * evidence, and the key that says why. */
#define EVIDENCE_INVALID "invalid"
#define EVIDENCE_WHY "invalid_evidence"

/* Give every row of run with invalid evidence the status
 * EVIDENCE_INVALID and the reason under EVIDENCE_WHY (in memory; run.json
 * is not written back): no statistic, cell or chart counts it, and
 * compare names it as missing evidence. */
void evidence_mark_invalid(json_t *run);

#endif
