/* Unit tests for harness/engine/pacing: known arrival patterns get their
 * verdicts - a clock at the asked rate is paced with dispersion near 0,
 * seeded Poisson arrivals are paced with dispersion near 1 under the
 * Poisson bound, bursts of 50 every 500 ms are bursty, 70 % of the rate is
 * under-rate, a new connection per request under a closed profile is
 * churn - and what is too short to judge says so. */
#include "tests/tap.h"
#include "harness/engine/pacing.h"
#include "common/util.h"
#include "spec/profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MS 10000   /* a 10 s hold */

static uint64_t bins[MS];

/* rate arrivals per second, one every 1000/rate ms (integer bins). */
static void clock_paced(double rate)
{
    memset(bins, 0, sizeof bins);
    double step = 1000.0 / rate;
    for (double t = 0; t < MS; t += step)
        bins[(size_t)t]++;
}

/* Poisson arrivals at rate, from a fixed xorshift seed. */
static void poisson(double rate)
{
    uint64_t x = 88172645463325252ull;
    memset(bins, 0, sizeof bins);
    for (double t = 0;;) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
        t += -log(u) * 1000.0 / rate;
        if (t >= MS)
            break;
        bins[(size_t)t]++;
    }
}

static void judge_open(double rate, enum pacing_process p, struct pacing_result *r)
{
    struct pacing_in in = {.bins = bins, .nbins = MS, .open = 1, .rate_rps = rate, .process = p};
    pacing_judge(&in, r);
}

int main(void)
{
    struct pacing_result r;

    clock_paced(1000);
    judge_open(1000, PACING_CLOCK, &r);
    is_str(pacing_verdict(&r), "paced", "a clock at the asked 1000/s is paced");
    ok(r.judged_bin_ms == 10 && r.d10.index < 0.05, "... judged per 10 ms, index %.3f near 0", r.d10.index);
    ok(fabs(r.achieved_rps - 1000) < 1, "... achieved %.1f/s", r.achieved_rps);

    poisson(1000);
    judge_open(1000, PACING_POISSON, &r);
    is_str(pacing_verdict(&r), "paced", "seeded Poisson at 1000/s is paced under the Poisson bound");
    ok(fabs(r.d10.index - 1) < 0.15, "... index %.3f near 1 (bound %.3f)", r.d10.index, r.disp_bound);
    ok(r.disp_bound > 1 && r.disp_bound < 1.3, "... the Poisson bound %.3f is 1 plus sampling noise", r.disp_bound);

    memset(bins, 0, sizeof bins);
    for (size_t t = 0; t < MS; t += 500)
        bins[t] = 50;
    judge_open(100, PACING_CLOCK, &r);
    is_str(pacing_verdict(&r), "bursty", "bursts of 50 every 500 ms at 100/s are bursty");
    ok(r.d10.index > 20 && r.max10 == 50 && r.max10 > r.max10_bound, "... index %.1f, largest 10 ms bin %llu > %llu",
       r.d10.index, (unsigned long long)r.max10, (unsigned long long)r.max10_bound);
    ok(r.longest_gap_ms >= 499, "... longest gap %.0f ms", r.longest_gap_ms);
    ok(strstr(r.witness[PACING_BURSTY], "index of dispersion") != NULL, "... witness: %s", r.witness[PACING_BURSTY]);
    judge_open(100, PACING_POISSON, &r);
    is_str(pacing_verdict(&r), "bursty", "... and under the Poisson bound too");

    clock_paced(700);
    judge_open(1000, PACING_CLOCK, &r);
    is_str(pacing_verdict(&r), "under-rate", "70 %% of the asked rate is under-rate");
    ok(!(r.findings & (1u << PACING_BURSTY)), "... a steady 700/s is not also bursty");
    ok(fabs(r.achieved_rps - 700) < 1 && fabs(r.rate_bound_rps - 40.3) < 0.01,
       "... achieved %.1f/s, bound +-%.1f/s: (4 sqrt(10000) + 3) / 10 s",
       r.achieved_rps, r.rate_bound_rps);
    clock_paced(1300);
    judge_open(1000, PACING_CLOCK, &r);
    is_str(pacing_verdict(&r), "over-rate", "130 %% of the asked rate is over-rate");
    clock_paced(995);
    judge_open(1000, PACING_CLOCK, &r);
    is_str(pacing_verdict(&r), "paced", "99.5 %% over 10 s is within Poisson noise (bound +-%.1f/s)",
           r.rate_bound_rps);

    /* A stall: second 3 empty, second 4 catching up. */
    clock_paced(1000);
    for (size_t i = 3000; i < 4000; i++) {
        bins[i + 1000] += bins[i];
        bins[i] = 0;
    }
    judge_open(1000, PACING_CLOCK, &r);
    ok(r.findings & (1u << PACING_BURSTY), "a stall and its catch-up are bursty: %s", r.witness[PACING_BURSTY]);
    ok(r.worst_second == 3 || r.worst_second == 4, "... the worst second is %d", r.worst_second);
    is_u64(r.longest_gap_ms, 1000, "... the longest gap is the stall");

    clock_paced(1000);
    const uint64_t churn[][3] = {{1, 1, 10000}};
    struct pacing_in cl = {.bins = bins, .nbins = MS, .opened = 10000, .profile_conns = 10, .rpc = churn,
                           .nrpc = 1, .peak_open = 12};
    pacing_judge(&cl, &r);
    is_str(pacing_verdict(&r), "connection churn", "a new connection per request for 10 held is churn");
    ok(r.rpc_median_lo == 1 && r.rpc_min == 1, "... median and min 1 request per connection");
    ok(r.judged_bin_ms == 0 && strstr(r.disp_why, "closed") != NULL, "... dispersion not judged: %s", r.disp_why);
    const uint64_t held[][3] = {{0, 0, 2}, {512, 1023, 10}};
    cl = (struct pacing_in){.bins = bins, .nbins = MS, .opened = 12, .profile_conns = 10, .rpc = held, .nrpc = 2};
    pacing_judge(&cl, &r);
    is_str(pacing_verdict(&r), "paced", "12 connections for 10 held is paced");
    ok(r.rpc_min == 0 && r.rpc_median_lo == 512, "... min 0, median in [512, 1023]");

    clock_paced(5);
    judge_open(5, PACING_CLOCK, &r);
    ok(r.judged_bin_ms == 0 && strstr(r.disp_why, "under 10 arrivals") != NULL, "5/s: dispersion not judged: %s",
       r.disp_why);
    struct pacing_in shortin = {.bins = bins, .nbins = 500, .open = 1, .rate_rps = 1000};
    pacing_judge(&shortin, &r);
    is_str(pacing_verdict(&r), "not judged", "half a second is not judged: %s", r.why);

    /* The asked curve: a ramp 0 -> 1000/s over 2 s, then 1000/s for 8 s. */
    struct profile_stage st[2] = {{2000000000ull, 1000}, {8000000000ull, 1000}};
    struct profile_load ramp = {.model = LOAD_OPEN, .stages = st, .nstages = 2, .ramped = 1};
    ok(fabs(pacing_load_asked(&ramp, 1000000000ull) - 250) < 1e-6, "the ramp asks 250 in its first second");
    ok(fabs(pacing_load_asked(&ramp, 2000000000ull) - 1000) < 1e-6, "... 1000 by its end");
    ok(fabs(pacing_load_asked(&ramp, 5000000000ull) - 4000) < 1e-6, "... then 1000 a second");
    struct profile_load closed = {.model = LOAD_CLOSED, .stages = st, .nstages = 2};
    ok(pacing_load_asked(&closed, 5000000000ull) == 0, "a closed load asks no rate");
    /* A ramp's per-second error: the bins of a tool that ignored the ramp. */
    json_t *arr = json_pack("{s:i, s:o}", "bin_ms", 1, "bins", json_array());
    for (size_t i = 0; i < 3000; i++)
        json_array_append_new(json_object_get(arr, "bins"), json_integer(1));
    json_t *rj = pacing_ramp_json(arr, &ramp);
    ok(rj && json_array_size(json_object_get(rj, "seconds")) == 3, "three whole seconds of ramp shown");
    ok(rj && fabs(json_real_value(json_object_get(rj, "worst_error")) - 750) < 1e-6,
       "... worst error +750 in the first second (1000 sent, 250 asked)");
    json_decref(rj);
    json_decref(arr);

    is_u64(pacing_poisson_upper(1, 1e-3), 6, "Poisson(1): P(X >= 6) is the first tail under 1e-3");
    is_u64(pacing_poisson_upper(0, 1e-3), 1, "Poisson(0): 1");
    return done_testing();
}
