/* stages: a load level over time — connections (closed model) or arrivals
 * per second (open model) — as a start value and a list of stages, each
 * ramping linearly from the previous level to its target over its duration,
 * exactly like k6's ramping-vus and ramping-arrival-rate executors.
 * A constant load is a start value equal to one stage's target. */
#ifndef LB_GEN_STAGES_H
#define LB_GEN_STAGES_H

#include <stddef.h>
#include <stdint.h>

struct stage {
    uint64_t duration_ns;
    double target;
};

struct stages {
    double start;
    size_t n;
    struct stage *v;       /* n entries, heap */
    double *cum;           /* arrivals completed at the start of each stage, n+1 entries */
};

/* Parse "30s:200,60s:200,10s:0" (durations as units_parse_duration_ns
 * takes them, targets non-negative numbers; integers only when integer is
 * set) into st, starting from 0. what names the option in messages.
 * Returns 0, or -1 with err filled. */
int stages_parse(struct stages *st, const char *s, int integer, const char *what, char *err);

/* A constant level for a duration. */
void stages_constant(struct stages *st, double level, uint64_t duration_ns);

void stages_free(struct stages *st);

/* Total duration of all stages, ns. */
uint64_t stages_total_ns(const struct stages *st);

/* Highest level any stage reaches. */
double stages_max(const struct stages *st);

/* The level at t_ns after the start (the last target after the end). */
double stages_level(const struct stages *st, uint64_t t_ns);

/* The whole number of connections at t_ns, stepping the way k6's
 * ramping-vus does: the count changes when the linear level crosses an
 * integer (on the way up floor(level), on the way down ceil(level)), so a
 * stage's target is reached at its end. */
uint64_t stages_count(const struct stages *st, uint64_t t_ns);

/* Arrivals due in [0, t_ns): the integral of the level (read as a rate per
 * second) over that time. */
double stages_arrivals(const struct stages *st, uint64_t t_ns);

/* When arrival number k (0-based) is due: the time t_ns at which
 * stages_arrivals reaches k. Returns 0 with *t_ns set, or -1 when arrival
 * k falls after the last stage. */
int stages_arrival_time(const struct stages *st, uint64_t k, uint64_t *t_ns);

/* The same for a real position a of the integral (Poisson arrivals sit
 * between the whole ones). Returns 0, or -1 past the last stage. */
int stages_position_time(const struct stages *st, double a, uint64_t *t_ns);

/* The number of arrivals the whole schedule holds: how many k have a time
 * strictly inside it. */
uint64_t stages_arrival_count(const struct stages *st);

#endif
