/* ranwith: what each row of a run ran with (run.json's ran_with), as
 * summary.md's and report.html's "What each row ran with" show it. */
#ifndef LB_REPORT_RANWITH_H
#define LB_REPORT_RANWITH_H

#include <jansson.h>
#include <stddef.h>

/* "What each row ran with" (summary.md's section, report.html's table):
 * the column heads (NULL-terminated) and the cells of row r of run
 * (its ran_with, load.keepalive), " | " between them, the one source of both
 * pages' text; ranwith_differ: 1 when the rows' cells differ
 * (the table is shown only then). */
#define RANWITH_LEN 384
extern const char *const ranwith_heads[];
const char *ranwith_cells(json_t *run, json_t *r, char *buf, size_t len);
int ranwith_differ(json_t *run);

/* 1 when a row of run ran with another delay than its profile's
 * target.delay (its entry's own): the pages' "Target:" line is the
 * profile's, and says so with RANWITH_OWN_DELAY_NOTE. */
int ranwith_own_delay(json_t *run);
#define RANWITH_OWN_DELAY_NOTE "That delay is the profile's: some rows ran with their own (What each row ran with)."

#endif
