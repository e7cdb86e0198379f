/* runcheck: everything `run` checks of a profile before it starts
 * anything — adapters and their options, models, CPUs, hosts of a
 * spread, bin: paths, and the names of the files and folders the run
 * directory will hold. `validate`, `plan` and `run` all call it, so a
 * profile that validates gets past run's planning, and one that run
 * would refuse is refused by validate with the same FILE:LINE:COL
 * message (issue #29). */
#ifndef LB_RUNCHECK_H
#define LB_RUNCHECK_H

#include "spec/profile.h"

/* Check p as `run` would before starting anything (only: the --only
 * label, whose bin: alone is checked; NULL: every tool's). Returns 0, or
 * -1 with err "PATH:LINE:COL: message". */
int runcheck_profile(const struct profile *p, const char *only, char *err);

#endif
