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
 * labels, whose bin: alone is checked; NULL: every tool's). Returns 0, or
 * -1 with err "PATH:LINE:COL: message". */
int runcheck_profile(const struct profile *p, const char *only, char *err);

struct adapter;
/* The adapter of tool entry t when its own bin: is for this run to check
 * (a bin: given, --only selects it, the adapter's bin is not a toolchain
 * it finds itself); NULL when not. run's probe and the path check above
 * both ask it, so the two cannot disagree on which entries they judge. */
const struct adapter *runcheck_own_bin(const struct profile_tool *t, const char *only);

#endif
