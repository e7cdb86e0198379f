/* delay: lb-target's latency shapes - how long each response is held.
 *
 * A fixed delay, or one drawn per request from a distribution (lognormal
 * by p50 and p99, exponential by mean, uniform min-max), plus scheduled
 * stalls (every E for F: a response due inside a stall waits until it
 * ends). Draws are seeded, so a run repeats: each worker has its own
 * generator state, derived from the seed and the worker's index.
 *
 * Per request a draw costs one 64-bit generator step and a lookup with a
 * linear interpolation in a precomputed inverse-CDF table (no libm call);
 * the table is built once and read-only afterwards, shared by workers. */
#ifndef LB_DELAY_H
#define LB_DELAY_H

#include <jansson.h>
#include <stdint.h>

enum delay_dist { DELAY_FIXED, DELAY_LOGNORMAL, DELAY_EXPONENTIAL, DELAY_UNIFORM };

struct delay_spec {
    enum delay_dist dist;
    uint64_t fixed_ns;               /* DELAY_FIXED */
    uint64_t p50_ns, p99_ns;         /* DELAY_LOGNORMAL */
    uint64_t mean_ns;                /* DELAY_EXPONENTIAL */
    uint64_t min_ns, max_ns;         /* DELAY_UNIFORM */
    uint64_t seed;                   /* the draws' seed */
    uint64_t stall_every_ns;         /* 0: no stalls */
    uint64_t stall_for_ns;
};

/* Table resolution: 2^DELAY_TABLE_BITS intervals of probability. Draws
 * beyond the quantile 1 - 1/2^(bits+2) are clipped to it (p99.9985). */
#define DELAY_TABLE_BITS 14
#define DELAY_TABLE_N (1u << DELAY_TABLE_BITS)

struct delay_model {
    struct delay_spec spec;
    uint64_t origin_ns;              /* stall k >= 1 begins at origin + k * every */
    uint64_t *table;                 /* DELAY_TABLE_N + 1 quantiles (ns); NULL when fixed */
};

/* Parse a distribution's name (fixed, lognormal, exponential, uniform).
 * Returns 0, or -1 with err filled. */
int delay_dist_parse(const char *name, enum delay_dist *out, char *err);

/* The distribution's name. */
const char *delay_dist_name(enum delay_dist d);

/* Check that spec's parameters make sense for its distribution (p99 above
 * p50, max not below min, stall shorter than its period, ...). Returns 0,
 * or -1 with err naming the option to fix. */
int delay_spec_check(const struct delay_spec *spec, char *err);

/* Build the model (the inverse-CDF table) for a checked spec; stalls are
 * scheduled from origin_ns. Never fails (aborts on out of memory). */
void delay_model_init(struct delay_model *m, const struct delay_spec *spec, uint64_t origin_ns);

/* Free the table (m itself is the caller's). */
void delay_model_free(struct delay_model *m);

/* The generator state for worker id. */
uint64_t delay_rng_seed(const struct delay_model *m, int id);

/* Does the model hold responses at all (a delay, a distribution, stalls)? */
static inline int delay_active(const struct delay_model *m)
{
    return m->spec.fixed_ns || m->table || m->spec.stall_every_ns;
}

/* splitmix64: one step of the worker's generator. */
static inline uint64_t delay_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* One response's delay in ns: the fixed one, or a draw. */
static inline uint64_t delay_draw_ns(const struct delay_model *m, uint64_t *rng)
{
    if (!m->table)
        return m->spec.fixed_ns;
    uint64_t u = delay_rng_next(rng);
    uint32_t i = (uint32_t)(u >> (64 - DELAY_TABLE_BITS));
    double frac = (double)((u << DELAY_TABLE_BITS) >> 11) * 0x1.0p-53;
    uint64_t a = m->table[i], b = m->table[i + 1];
    return a + (uint64_t)((double)(b - a) * frac);
}

/* When a response due at due_ns goes out: due_ns, or the end of the stall
 * it falls in. */
static inline uint64_t delay_release_ns(const struct delay_model *m, uint64_t due_ns)
{
    uint64_t every = m->spec.stall_every_ns;
    if (!every || due_ns < m->origin_ns + every)
        return due_ns;
    uint64_t rel = due_ns - m->origin_ns, start = rel - rel % every;
    return rel - start < m->spec.stall_for_ns ? m->origin_ns + start + m->spec.stall_for_ns : due_ns;
}

/* Arrivals are counted around each stall in three windows: IN the stall,
 * and BEFORE and AFTER it, each delay_stall_window_ns long: the stall's
 * length, or the gap between stalls when that is shorter, so neither ever
 * reaches into another stall (before and after windows of neighbouring
 * stalls may overlap, and an arrival there counts in both). */
enum { DELAY_W_BEFORE = 1, DELAY_W_IN = 2, DELAY_W_AFTER = 4 };

static inline uint64_t delay_stall_window_ns(const struct delay_model *m)
{
    uint64_t f = m->spec.stall_for_ns, gap = m->spec.stall_every_ns - f;
    return f < gap ? f : gap;
}

/* The windows an arrival at t falls in (DELAY_W_*; 0: none): IN and AFTER
 * are of stall *k, BEFORE of stall *k + 1. Only with stalls (every > 0);
 * one division per call. */
static inline unsigned delay_stall_windows(const struct delay_model *m, uint64_t t, uint64_t *k)
{
    uint64_t every = m->spec.stall_every_ns, f = m->spec.stall_for_ns, len = delay_stall_window_ns(m);
    if (t < m->origin_ns)
        return 0;
    uint64_t rel = t - m->origin_ns, p = rel % every;
    unsigned w = 0;
    *k = rel / every;
    if (*k && p < f)
        w = DELAY_W_IN;
    else if (*k && p < f + len)
        w = DELAY_W_AFTER;
    if (p >= every - len)
        w |= DELAY_W_BEFORE;
    return w;
}

/* The spec as JSON: {"dist", its parameters in ns, "seed"} and, with
 * stalls, "stall": {"every_ns","for_ns","origin_ns"}. Returns a new object. */
json_t *delay_json(const struct delay_model *m);

/* How many stalls have begun by now_ns. */
uint64_t delay_stalls_begun(const struct delay_model *m, uint64_t now_ns);

/* The stalls begun by now_ns: [{"start_ns","end_ns"}, ...] (the last
 * `max` of them at most). Returns a new array (empty without stalls). */
json_t *delay_stalls_json(const struct delay_model *m, uint64_t now_ns, size_t max);

#endif
