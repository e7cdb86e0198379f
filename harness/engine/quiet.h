/* quiet: the machine's CPU outside loadbench's own processes. Before each
 * tool run, a bounded wait until it is below the profile's bar (the quiet
 * gate); during the run, the background load and whether it passed that
 * bar (the row is then "disturbed"). Background is the machine's busy time
 * (/proc/stat: everything but idle and iowait, so steal and irq count)
 * minus softirq (the kernel's network work, our own loopback traffic's)
 * minus loadbench's own tree (itself, lb-target, the tool). Shares are of
 * the whole machine: 100 % = every CPU busy. */
#ifndef LB_QUIET_H
#define LB_QUIET_H

#include "spec/profile.h"
#include "engine/sampler.h"

#include <jansson.h>
#include <signal.h>
#include <stdint.h>

/* Pressure stall information for the CPU (/proc/pressure/cpu, "some"). */
struct quiet_psi {
    int have;                   /* 0: no /proc/pressure on this kernel */
    double avg10;               /* % of the last 10 s some task waited for a CPU */
    uint64_t total_us;          /* the same, cumulative */
};

/* Read /proc/pressure/cpu's "some" line into psi (have = 0 when absent). */
void quiet_psi_read(struct quiet_psi *psi);

/* What the gate did before one tool run. */
struct quiet_gate {
    const char *verdict;        /* "quiet", "timed out", "interrupted" or "off" (no wait asked) */
    double waited_s;
    double background_pct;      /* over the last interval read (NAN: none read) */
    struct quiet_psi psi;       /* when the gate ended */
};

/* Wait, reading every q->interval_ns, until the background is below
 * q->busy_below_pct for two intervals in a row, for at most q->wait_max_ns
 * (0: do not wait), or until *stop is set. Always fills out. */
void quiet_gate_wait(const struct profile_quiet *q, volatile sig_atomic_t *stop, struct quiet_gate *out);

/* The background share (%) between two /proc/stat readings when ours_s
 * CPU seconds were loadbench's own; steal_pct gets the steal share.
 * NAN when no time passed. */
double quiet_background_pct(const struct sampler_machine *m0, const struct sampler_machine *m1, double ours_s,
                            double *steal_pct);

/* A tool run's "quiet" object: the gate, the background over the run
 * (m0 to m1, ours_s of loadbench's tree in between), steal, PSI at both
 * ends, and "disturbed" with a warning when the background reached the
 * bar. Sets *disturbed. */
json_t *quiet_run_json(const struct profile_quiet *q, const struct quiet_gate *g, const struct sampler_machine *m0,
                       const struct sampler_machine *m1, double ours_s, const struct quiet_psi *psi1,
                       json_t *warnings, int *disturbed);

#endif
