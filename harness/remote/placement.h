/* placement: a run's hosts (a profile's hosts:), behind engine/place.h:
 * before the run, every host placed on is reached over ssh (one control
 * directory of sockets for the run) and its agent opened; each row gets
 * the executors of its hosts, its lb-target's host, its NIC counters and
 * its "placement"; run.json gets "hosts" (clock, agent, machine of each)
 * and "path" (remote/runpath.h). Made by the command layer for a profile
 * with hosts: only. */
#ifndef LB_PLACEMENT_H
#define LB_PLACEMENT_H

#include "engine/place.h"
#include "spec/profile.h"

#include <signal.h>

/* The hosts of p (only: the tool entry --only names, or NULL), nothing
 * reached yet (place_ops.open does). stop: set by SIGINT. */
struct place *placement_new(const struct profile *p, const char *only, volatile sig_atomic_t *stop);

/* Every agent closed, the control directory removed, pl released. NULL
 * does nothing. */
void placement_free(struct place *pl);

#endif
