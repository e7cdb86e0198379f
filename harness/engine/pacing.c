#include "harness/engine/pacing.h"
#include "common/util.h"
#include "spec/profile.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const finding_names[PACING_NFINDINGS] = {
    [PACING_UNDER_RATE] = "under-rate", [PACING_OVER_RATE] = "over-rate",
    [PACING_CHURN] = "connection churn", [PACING_BURSTY] = "bursty"};

void pacing_bins_dispersion(const uint64_t *bins, size_t nbins, unsigned bin_ms, struct pacing_dispersion *d)
{
    size_t n = nbins / bin_ms;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        double c = 0;
        for (unsigned k = 0; k < bin_ms; k++)
            c += (double)bins[i * bin_ms + k];
        sum += c;
        sq += c * c;
    }
    *d = (struct pacing_dispersion){.bin_ms = bin_ms, .nbins = n};
    if (n < 2 || sum <= 0)
        return;
    d->mean = sum / (double)n;
    double var = (sq - sum * d->mean) / (double)(n - 1);
    d->index = var > 0 ? var / d->mean : 0;
}

uint64_t pacing_poisson_upper(double mean, double p)
{
    /* Walk the pmf upward from 0 until the tail left is <= p. */
    double pmf = exp(-mean), cdf = 0;
    uint64_t m = 0;
    if (mean <= 0)
        return 1;
    for (; m < 100000000ull; m++) {
        if (1.0 - cdf <= p)
            return m;
        cdf += pmf;
        pmf *= mean / (double)(m + 1);
        if (pmf == 0 && m > mean)   /* underflow far in the tail */
            return m + 1;
    }
    return m;
}

static void found(struct pacing_result *r, int which, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void found(struct pacing_result *r, int which, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->findings |= 1u << which;
    vsnprintf(r->witness[which], sizeof r->witness[which], fmt, ap);
    va_end(ap);
}

/* Achieved against requested over the hold: N arrivals where rate x T
 * were asked, within PACING_SIGMAS sqrt(rate x T) plus the 1 ms at each
 * edge that whole bins may add or cut. */
static void judge_rate(const struct pacing_in *in, struct pacing_result *r)
{
    double want = in->rate_rps * r->hold_s;
    double bound = PACING_SIGMAS * sqrt(want) + in->rate_rps * 0.002 + 1;
    r->requested_rps = in->rate_rps;
    r->rate_bound_rps = bound / r->hold_s;
    if ((double)r->arrivals < want - bound)
        found(r, PACING_UNDER_RATE, "%.1f/s arrived where %.1f/s was asked (%llu of %.0f over %.1f s; noise bound "
              "+-%.1f/s)", r->achieved_rps, in->rate_rps, (unsigned long long)r->arrivals, want, r->hold_s,
              r->rate_bound_rps);
    else if ((double)r->arrivals > want + bound)
        found(r, PACING_OVER_RATE, "%.1f/s arrived where %.1f/s was asked (%llu of %.0f over %.1f s; noise bound "
              "+-%.1f/s)", r->achieved_rps, in->rate_rps, (unsigned long long)r->arrivals, want, r->hold_s,
              r->rate_bound_rps);
}

/* The worst whole second against the asked rate (closed: the achieved
 * one); judged against the achieved rate, so a steady under-rate tool is
 * not also bursty: a second beyond z sqrt(rate) + 1, z = 4 + sqrt(2 ln k)
 * over k seconds, is a burst or a stall. */
static void judge_seconds(const struct pacing_in *in, struct pacing_result *r)
{
    size_t k = in->nbins / 1000;
    double ref = in->open ? in->rate_rps : r->achieved_rps, mean = r->achieved_rps;
    double z = PACING_SIGMAS + sqrt(2 * log(k > 1 ? (double)k : 1.0)), bound = z * sqrt(mean) + 1;
    r->worst_second = -1;
    double worst = -1, worst_obs = 0;
    for (size_t s = 0; s < k; s++) {
        uint64_t c = 0;
        for (size_t i = 0; i < 1000; i++)
            c += in->bins[s * 1000 + i];
        double dev = fabs((double)c - ref), obs = fabs((double)c - mean);
        if (dev > worst) {
            worst = dev;
            r->worst_second = (int)s;
            r->worst_second_count = c;
            r->worst_second_dev = ref > 0 ? ((double)c - ref) / ref : 0;
        }
        if (obs > worst_obs)
            worst_obs = obs;
    }
    r->worst_second_bound = mean > 0 ? bound / mean : 0;
    if (in->open && k && worst_obs > bound)
        found(r, PACING_BURSTY, "a second of the hold strayed %.0f arrivals from the achieved %.1f/s (bound %.0f: "
              "%.1f sqrt(rate) + 1)", worst_obs, mean, bound, z);
}

/* Dispersion at 10 and 100 ms; judged at the smaller bin that expects at
 * least PACING_BIN_EXPECT arrivals (fewer: mostly 0 or 1, where a tool's
 * clock and the kernel's batching look alike), over at least
 * PACING_MIN_BINS bins. A clock-paced
 * tool must not be burstier than random (index <= 1); a Poisson one not
 * beyond its own sampling noise, 1 + 4 sqrt(2 / (n - 1)). */
static void judge_dispersion(const struct pacing_in *in, struct pacing_result *r)
{
    pacing_bins_dispersion(in->bins, in->nbins, 10, &r->d10);
    pacing_bins_dispersion(in->bins, in->nbins, 100, &r->d100);
    /* The bin comes from the rate asked (open model), so a tool's own
     * shortfall does not move it. */
    double rate = in->open && in->rate_rps > 0 ? in->rate_rps : r->achieved_rps;
    const struct pacing_dispersion *d = rate * 0.01 >= PACING_BIN_EXPECT ? &r->d10
                                      : rate * 0.1 >= PACING_BIN_EXPECT ? &r->d100 : NULL;
    if (!in->open) {
        snprintf(r->disp_why, sizeof r->disp_why, "closed model: its arrivals follow the responses");
        return;
    }
    if (!d) {
        snprintf(r->disp_why, sizeof r->disp_why, "%.1f/s expects under %d arrivals per 100 ms bin", rate,
                 PACING_BIN_EXPECT);
        return;
    }
    if (d->nbins < PACING_MIN_BINS) {
        snprintf(r->disp_why, sizeof r->disp_why, "%zu bins of %u ms; %d needed", d->nbins, d->bin_ms,
                 PACING_MIN_BINS);
        return;
    }
    r->judged_bin_ms = d->bin_ms;
    r->disp_bound = in->process == PACING_POISSON ? 1 + 4 * sqrt(2.0 / (double)(d->nbins - 1)) : 1.0;
    if (d->index > r->disp_bound)
        found(r, PACING_BURSTY, "index of dispersion %.2f per %u ms bin (bound %.2f for %s arrivals); largest 10 ms "
              "bin %llu where %.1f was expected", d->index, d->bin_ms, r->disp_bound,
              in->process == PACING_POISSON ? "Poisson" : "clock-paced", (unsigned long long)r->max10, r->expected10);
}

/* The largest 10 ms bin and the longest run of empty 1 ms bins. */
static void judge_extremes(const struct pacing_in *in, struct pacing_result *r)
{
    size_t gap = 0, run = 0;
    for (size_t i = 0; i < in->nbins; i++) {
        run = in->bins[i] ? 0 : run + 1;
        if (run > gap)
            gap = run;
    }
    r->longest_gap_ms = (double)gap;
    for (size_t i = 0; i + 10 <= in->nbins; i += 10) {
        uint64_t c = 0;
        for (int k = 0; k < 10; k++)
            c += in->bins[i + (size_t)k];
        if (c > r->max10)
            r->max10 = c;
    }
    r->expected10 = r->achieved_rps * 0.01;
    size_t n = in->nbins / 10;
    r->max10_bound = pacing_poisson_upper(r->expected10, 1e-3 / (double)(n ? n : 1));
}

/* Connections against the profile's: more than twice (plus 2) is churn. */
static void judge_connections(const struct pacing_in *in, struct pacing_result *r)
{
    uint64_t total = 0, seen = 0;
    r->opened = in->opened;
    r->peak_open = in->peak_open;
    r->profile_conns = in->profile_conns;
    for (size_t i = 0; i < in->nrpc; i++)
        total += in->rpc[i][2];
    r->rpc_closed = total;
    for (size_t i = 0; i < in->nrpc; i++) {
        if (i == 0 || in->rpc[i][0] < r->rpc_min)
            r->rpc_min = in->rpc[i][0];
        if (seen < (total + 1) / 2 && seen + in->rpc[i][2] >= (total + 1) / 2) {
            r->rpc_median_lo = in->rpc[i][0];
            r->rpc_median_hi = in->rpc[i][1];
        }
        seen += in->rpc[i][2];
    }
    if (in->profile_conns <= 0)
        return;
    r->churn_bound = 2 * in->profile_conns + 2;
    if ((double)in->opened > r->churn_bound)
        found(r, PACING_CHURN, "%llu connections opened where the profile %s %.0f (bound %.0f); median %llu "
              "request(s) per connection", (unsigned long long)in->opened, in->open ? "bounds in flight at" : "holds",
              in->profile_conns, r->churn_bound, (unsigned long long)r->rpc_median_lo);
}

void pacing_judge(const struct pacing_in *in, struct pacing_result *r)
{
    memset(r, 0, sizeof *r);
    r->worst_second = -1;
    for (size_t i = 0; i < in->nbins; i++)
        r->arrivals += in->bins[i];
    r->hold_s = (double)in->nbins / 1000.0;
    judge_connections(in, r);
    if (in->nbins < 1000 || !r->arrivals) {
        snprintf(r->why, sizeof r->why, "%s", in->nbins < 1000 ? "the hold window is under one second of arrivals"
                                                               : "no arrival in the hold window");
        return;
    }
    r->judged = 1;
    r->achieved_rps = (double)r->arrivals / r->hold_s;
    if (in->open && in->rate_rps > 0)
        judge_rate(in, r);
    judge_extremes(in, r);
    judge_seconds(in, r);
    judge_dispersion(in, r);
}

const char *pacing_verdict(const struct pacing_result *r)
{
    for (int i = 0; i < PACING_NFINDINGS; i++)
        if (r->findings & (1u << i))
            return finding_names[i];
    return r->judged ? "paced" : "not judged";
}

static json_t *num_or_null(int have, double v)
{
    return have ? json_real(v) : json_null();
}

static json_t *dispersion_json(const struct pacing_dispersion *d)
{
    return json_pack("{s:i, s:I, s:f, s:f}", "bin_ms", (int)d->bin_ms, "bins", (json_int_t)d->nbins, "mean", d->mean,
                     "index", d->index);
}

static json_t *connections_json(const struct pacing_result *r)
{
    json_t *c = json_pack("{s:I, s:I, s:I}", "opened", (json_int_t)r->opened, "peak_open", (json_int_t)r->peak_open,
                          "closed", (json_int_t)r->rpc_closed);
    json_object_set_new(c, "profile", num_or_null(r->profile_conns > 0, r->profile_conns));
    json_object_set_new(c, "churn_bound", num_or_null(r->profile_conns > 0, r->churn_bound));
    if (r->rpc_closed)
        json_object_set_new(c, "requests_per_connection",
                            json_pack("{s:I, s:I, s:I}", "min", (json_int_t)r->rpc_min, "median_lo",
                                      (json_int_t)r->rpc_median_lo, "median_hi", (json_int_t)r->rpc_median_hi));
    return c;
}

json_t *pacing_json(const struct pacing_result *r, const struct pacing_in *in)
{
    json_t *o = json_pack("{s:s, s:f, s:I}", "verdict", pacing_verdict(r), "hold_s", r->hold_s, "arrivals",
                          (json_int_t)r->arrivals);
    json_t *f = json_array();
    for (int i = 0; i < PACING_NFINDINGS; i++)
        if (r->findings & (1u << i))
            json_array_append_new(f, json_pack("{s:s, s:s}", "finding", finding_names[i], "witness", r->witness[i]));
    json_object_set_new(o, "findings", f);
    json_object_set_new(o, "connections", connections_json(r));
    if (!r->judged) {
        json_object_set_new(o, "not_judged", json_string(r->why));
        return o;
    }
    int rated = in->open && in->rate_rps > 0;
    json_object_set_new(o, "achieved_rps", json_real(r->achieved_rps));
    json_object_set_new(o, "requested_rps", num_or_null(rated, r->requested_rps));
    json_object_set_new(o, "rate_bound_rps", num_or_null(rated, r->rate_bound_rps));
    if (r->worst_second >= 0)
        json_object_set_new(o, "worst_second", json_pack("{s:i, s:I, s:f, s:f}", "index", r->worst_second, "count",
                                                         (json_int_t)r->worst_second_count, "deviation",
                                                         r->worst_second_dev, "bound", r->worst_second_bound));
    json_t *d = json_pack("{s:s, s:o, s:o}", "process", in->process == PACING_POISSON ? "poisson" : "clock",
                          "per_10ms", dispersion_json(&r->d10), "per_100ms", dispersion_json(&r->d100));
    json_object_set_new(d, "judged_bin_ms", r->judged_bin_ms ? json_integer(r->judged_bin_ms) : json_null());
    json_object_set_new(d, "bound", num_or_null(r->judged_bin_ms != 0, r->disp_bound));
    if (!r->judged_bin_ms)
        json_object_set_new(d, "not_judged", json_string(r->disp_why));
    json_object_set_new(o, "dispersion", d);
    json_object_set_new(o, "largest_10ms_bin", json_pack("{s:I, s:f, s:I}", "count", (json_int_t)r->max10,
                                                         "expected", r->expected10, "bound",
                                                         (json_int_t)r->max10_bound));
    json_object_set_new(o, "longest_gap_ms", json_real(r->longest_gap_ms));
    return o;
}

static uint64_t u64_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* The 1 ms bins of a GET /arrivals answer (owned), NULL when it has none. */
static uint64_t *bins_of(json_t *arr, size_t *n)
{
    json_t *b = json_object_get(arr, "bins"), *v;
    size_t i;
    *n = json_array_size(b);
    if (!*n || json_integer_value(json_object_get(arr, "bin_ms")) != 1)
        return NULL;
    uint64_t *out = util_xcalloc(*n, sizeof *out);
    json_array_foreach(b, i, v) out[i] = json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
    return out;
}

double pacing_load_asked(const struct profile_load *l, uint64_t t_ns)
{
    double sum = 0, prev = l->ramped ? 0 : l->stages[0].target;
    uint64_t at = 0;
    if (l->model != LOAD_OPEN)
        return 0;
    for (size_t i = 0; i < l->nstages && at < t_ns; i++) {
        double d = (double)l->stages[i].duration_ns / 1e9, to = l->stages[i].target;
        double u = t_ns - at >= l->stages[i].duration_ns ? d : (double)(t_ns - at) / 1e9;
        /* The linear ramp from prev to to over d, integrated over [0, u]. */
        sum += prev * u + (to - prev) * u * u / (2 * d);
        at += l->stages[i].duration_ns;
        prev = to;
    }
    return sum;
}

int pacing_in_from(struct pacing_in *in, json_t *arr, json_t *before, json_t *after, const struct profile_load *l,
                   uint64_t hold_s_ns, uint64_t hold_e_ns, enum pacing_process process, uint64_t **bins,
                   uint64_t (**rpc)[3], char *why, size_t whylen)
{
    size_t n = 0, i;
    json_t *r = json_object_get(arr, "requests_per_connection"), *row;
    memset(in, 0, sizeof *in);
    *rpc = NULL;
    if (!(*bins = bins_of(arr, &n))) {
        const char *e = json_string_value(json_object_get(arr, "error"));
        snprintf(why, whylen, "lb-target's arrivals over the hold window could not be read%s%s", e ? ": " : "",
                 e ? e : "");
        return -1;
    }
    *rpc = util_xcalloc(json_array_size(r) + 1, sizeof **rpc);
    json_array_foreach(r, i, row) for (size_t k = 0; k < 3; k++)
        (*rpc)[i][k] = (uint64_t)json_integer_value(json_array_get(row, k));
    double hold_s = (double)(hold_e_ns - hold_s_ns) / 1e9;
    *in = (struct pacing_in){
        .bins = *bins, .nbins = n, .open = l->model == LOAD_OPEN, .process = process, .rpc = (const uint64_t(*)[3]) * rpc,
        .nrpc = json_array_size(r), .peak_open = u64_of(after, "connections_open_max"),
        .opened = u64_of(after, "connections_accepted") - u64_of(before, "connections_accepted"),
        .rate_rps = hold_s > 0 ? (pacing_load_asked(l, hold_e_ns) - pacing_load_asked(l, hold_s_ns)) / hold_s : 0,
        .profile_conns = l->model == LOAD_OPEN ? (double)l->max_inflight : profile_load_peak(l)};
    return 0;
}

json_t *pacing_ramp_json(json_t *arr, const struct profile_load *l)
{
    size_t n;
    uint64_t *b = bins_of(arr, &n);
    if (!b)
        return NULL;
    json_t *secs = json_array();
    double worst = 0;
    for (size_t s = 0; (s + 1) * 1000 <= n; s++) {
        uint64_t c = 0;
        for (size_t i = 0; i < 1000; i++)
            c += b[s * 1000 + i];
        double asked = pacing_load_asked(l, (s + 1) * 1000000000ull) - pacing_load_asked(l, s * 1000000000ull);
        if (fabs((double)c - asked) > fabs(worst))
            worst = (double)c - asked;
        json_array_append_new(secs, json_pack("{s:I, s:f, s:I}", "t", (json_int_t)s, "asked", asked, "arrived",
                                              (json_int_t)c));
    }
    free(b);
    return json_pack("{s:o, s:f, s:s}", "seconds", secs, "worst_error", worst, "note",
                     "shown, not judged: a ramp's arrivals per second against the curve it asks for");
}
