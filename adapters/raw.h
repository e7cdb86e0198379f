/* raw: helpers shared by the adapters of the raw HTTP benchmarkers (wrk,
 * hey, ab, h2load, siege, autocannon): none of them follows ramp stages,
 * most take whole seconds, and most print text that is read label by label.
 * Every name starts with raw_. */
#ifndef LB_ADAPTER_RAW_H
#define LB_ADAPTER_RAW_H

#include "adapters/adapter.h"

#include <stddef.h>
#include <stdint.h>

/* The constant load a tool without ramp support runs. */
struct raw_load {
    int open;               /* the profile asked for arrivals per second */
    double level;           /* connections (closed) or requests/s (open) */
    uint64_t duration_ns;
};

/* Pick the load for a tool that cannot follow stages: a constant load as
 * written, or the hold phase (the longest constant stage) of a ramp, with a
 * warning in plan naming what was dropped. A ramp with no constant stage
 * runs its longest stage at that stage's target. Returns 0, or -1 with err
 * filled when the level is below 1. */
int raw_pick_load(const struct adapter_ctx *c, const char *tool, struct adapter_plan *p, struct raw_load *out,
                  char *err);

/* -1 with err filled saying that tool runs the closed model only (for a
 * profile that asks for an arrival rate). */
int raw_closed_only(const char *tool, const struct raw_load *l, char *err);

/* Threads for a tool that has a thread knob: the tool's pinned CPUs (all
 * online CPUs when not pinned), never more than connections, at least 1. */
unsigned raw_threads(uint64_t tool_cpus, uint64_t connections);

/* ns rounded to whole seconds (at least 1), for tools that take no
 * fraction; a warning in plan when that changes the duration. */
uint64_t raw_whole_seconds(uint64_t ns, const char *tool, const char *what, struct adapter_plan *p);

/* The profile option key of the tool, as a count >= 1 (0 when absent).
 * Returns 0, or -1 with err naming the profile entry. */
int raw_option_count(const struct adapter_ctx *c, const char *key, uint64_t *out, char *err);

/* The option key as a boolean ("true"/"false"/"yes"/"no"/"1"/"0"); def when
 * absent. Returns 0, or -1 with err. */
int raw_option_bool(const struct adapter_ctx *c, const char *key, int def, int *out, char *err);

/* Connections for a paced run (a rate on a closed loop): the option
 * "connections", else the profile's max_inflight, else def; at least 1. */
int raw_paced_connections(const struct adapter_ctx *c, uint64_t def, uint64_t *out, char *err);

/* Connections for a tool with one connection count: an open load's as
 * raw_paced_connections with the rate (at most paced_max) as default, a
 * closed load's own count (a warning in plan when option connections was
 * set, since it applies to open loads only). Returns 0, or -1 with err. */
int raw_connections(const struct adapter_ctx *c, const struct raw_load *l, uint64_t paced_max, struct adapter_plan *p,
                    uint64_t *out, char *err);

/* The whole rate for a tool whose rate flag caps closed connections: the
 * level rounded (a warning when that changes it), a warning that flag
 * paces conns connections rather than scheduling arrivals, and plan->model
 * "paced". Returns the rate. */
uint64_t raw_paced_rate(const char *tool, const char *flag, const struct raw_load *l, uint64_t conns,
                        struct adapter_plan *p);

/* Copy the data file adapters/<rel> (adapter_datadir()) into the run
 * directory as name and list it in plan->files. Returns 0, or -1 with err. */
int raw_copy_data(const struct adapter_ctx *c, const char *rel, const char *name, struct adapter_plan *p, char *err);

/* Find a tool: bin when given, else each of the candidates in turn (a name
 * is looked up on PATH, a path starting with "@/" is relative to
 * adapter_datadir(), "T:rel" is rel in each tools folder in turn,
 * adapter_tools_dirs()). Fills found->path. Returns 0, or -1 with err. */
int raw_find(const char *tool, const char *bin, const char *const *candidates, struct adapter_found *found,
             char *err);

/* Append how scripts/install-tools installed found->path to
 * found->version, " (source, go1.19.8)": the first line of the note it
 * writes beside the binary, <path>.origin. Nothing when there is none. */
void raw_origin(struct adapter_found *found);

/* The first line of text (after leading blanks) that starts with label:
 * returns a pointer just past the label, or NULL. */
const char *raw_after(const char *text, const char *label);

/* The number just after label (blanks skipped). Returns 0, or -1 when the
 * label or the number is missing. */
int raw_number(const char *text, const char *label, double *out);
int raw_count(const char *text, const char *label, uint64_t *out);

/* The line of text containing needle, copied (without its newline, at most
 * len-1 bytes) into out. Returns 1 when found, else 0. */
int raw_line_with(const char *text, const char *needle, char *out, size_t len);

/* Add n errors described by a tool's message to the right kind in r
 * (connect, timeout, read, write, else other). */
void raw_add_error(struct adapter_result *r, const char *message, uint64_t n);

/* r->errors = the sum of the kinds. */
void raw_sum_errors(struct adapter_result *r);

/* The counts of a generator's JSON summary (lb-gen/1, lb-refgen/1):
 * requests completed and ok from req, the errors by kind from e (connect,
 * read, write, timeout, status, other; an absent one is 0) and their sum. */
void raw_gen_counts(json_t *req, json_t *e, struct adapter_result *r);

/* The target's delay in seconds where requests pile up: the fixed delay,
 * or a drawn delay's tail (lognormal and exponential: their p99; uniform:
 * its max). */
double raw_delay_tail_s(const struct profile *p);

/* Workers (Locust users, JMeter threads) a paced load of peak_rps needs:
 * four times the requests in flight at the delay's tail plus 10 ms, so
 * that a slow tail does not starve the pace; at least 1. */
uint64_t raw_paced_workers(const struct profile *p, double peak_rps);

/* Read stdout.txt and stderr.txt of the run (either may be missing) into one
 * heap string, stdout first. Never fails (empty string). */
char *raw_output(const char *dir, size_t max_bytes);

/* Count n responses of HTTP status code into r. With the profile's check:
 * {status: S} (c->profile->check.status), S alone is ok and every other
 * status is a status error and a check failure, as the tool's own count
 * per status says; without it, a code in [ok_lo, ok_hi) is ok and any
 * other a status error, the tool's own reading (hey: 2xx; oha, Vegeta:
 * 2xx and 3xx). */
void raw_count_status(const struct adapter_ctx *c, struct adapter_result *r, long code, uint64_t n, long ok_lo,
                      long ok_hi);

/* A status code given as a JSON key ("404") in the tool's WHERE: 0 with
 * *code set, or -1 naming it as no HTTP status. */
int raw_status_key(const char *tool, const char *where, const char *key, long *code, char *err);

/* How a raw generator with a count per status checks: its own count. */
#define RAW_CHECK_HOW                                                                                                \
    "its own count of responses per status code: the ones of another status than check: asks for are status "    \
    "errors (check_failed)"

/* Why a raw generator has no ADAPTER_CHECK: its own status count is of
 * non-2xx responses (or status classes), which its adapter reads as
 * errors; none turns the codes other than the one check: asks for into
 * errors, so a 204 would pass a check of 200 and a 404 asked for would
 * fail. The validate refusal says so. */
#define RAW_NO_CHECK_WHY                                                                                             \
    "its own count is of non-2xx responses, not of one status: its adapter does not turn the codes other than the " \
    "one asked for into errors"

#endif
