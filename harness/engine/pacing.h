/* pacing: did a tool send what it was asked, when it was asked, on the
 * connections it was asked to use? Judged from lb-target's arrivals per
 * 1 ms over the hold window (GET /arrivals) and its connection counts.
 *
 * Pure functions: no I/O. Every bound comes from Poisson noise on the
 * counts (sqrt of the expected count), never a fixed percentage, and is
 * kept beside its figure so a report can print both. */
#ifndef LB_PACING_H
#define LB_PACING_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The arrival process the tool declares for an open load. */
enum pacing_process { PACING_CLOCK, PACING_POISSON };

/* Findings, in the order the row's verdict takes the first. */
enum { PACING_UNDER_RATE, PACING_OVER_RATE, PACING_CHURN, PACING_BURSTY, PACING_NFINDINGS };

#define PACING_MIN_BINS 50          /* fewer bins than this: dispersion not judged */
#define PACING_BIN_EXPECT 10        /* arrivals a judged bin must expect: 10 ms from 1000/s, 100 ms from 100/s */
#define PACING_SIGMAS 4.0           /* the rate bound, in Poisson standard deviations */

struct pacing_in {
    const uint64_t *bins;           /* arrivals per 1 ms over the hold window */
    size_t nbins;
    int open;                       /* open model: the rate is asked, and judged */
    double rate_rps;                /* open: the arrival rate asked over the hold */
    enum pacing_process process;
    uint64_t opened;                /* connections the server accepted over the row */
    double profile_conns;           /* closed: connections; open: the in-flight bound (0: none) */
    const uint64_t (*rpc)[3];       /* requests per closed connection: [lo, hi, count] rows */
    size_t nrpc;
    uint64_t peak_open;             /* connections open at once (upper bound over workers) */
};

struct pacing_dispersion {
    unsigned bin_ms;
    size_t nbins;
    double mean, index;             /* index: variance / mean of the counts per bin */
};

struct pacing_result {
    int judged;                     /* 0: no arrivals to judge (why says so) */
    char why[160];
    double hold_s;
    uint64_t arrivals;
    double achieved_rps, requested_rps;
    double rate_bound_rps;          /* |achieved - requested| within this is noise */
    int worst_second;               /* index in the hold, -1: no whole second */
    uint64_t worst_second_count;
    double worst_second_dev;        /* (count - requested) / requested (closed: vs achieved) */
    double worst_second_bound;      /* the count's bound around the achieved rate, as a fraction */
    struct pacing_dispersion d10, d100;
    unsigned judged_bin_ms;         /* the bin dispersion is judged at; 0: not judged (disp_why) */
    char disp_why[160];
    double disp_bound;
    uint64_t max10;                 /* the largest 10 ms bin */
    double expected10;              /* its expected count at the achieved rate */
    uint64_t max10_bound;           /* Poisson's 1-in-1000 bound over all the bins */
    double longest_gap_ms;
    uint64_t opened, peak_open;
    double profile_conns, churn_bound;
    uint64_t rpc_closed, rpc_min, rpc_median_lo, rpc_median_hi;
    unsigned findings;              /* bit per PACING_* finding */
    char witness[PACING_NFINDINGS][240];
};

/* Judge in into out. Never fails: what cannot be judged says why. */
void pacing_judge(const struct pacing_in *in, struct pacing_result *out);

/* Variance / mean of the counts of bins of bin_ms ms (whole bins only)
 * over the 1 ms bins; index 0 with no arrivals. */
void pacing_bins_dispersion(const uint64_t *bins, size_t nbins, unsigned bin_ms, struct pacing_dispersion *d);

/* The smallest m with P(X >= m) <= p for X ~ Poisson(mean). */
uint64_t pacing_poisson_upper(double mean, double p);

/* The row's verdict: "paced", the first finding, or "not judged". */
const char *pacing_verdict(const struct pacing_result *r);

/* The run.json "pacing" object. Returns a new JSON object. */
json_t *pacing_json(const struct pacing_result *r, const struct pacing_in *in);

#endif

struct profile_load;

/* The facts of one row for pacing_judge: the GET /arrivals answer over the
 * hold window (arr), lb-target's /stats before and after the tool, the
 * load applied (l) and the arrival process the tool declares. in's arrays
 * point into *bins and *rpc (owned: free both). Returns 0, or -1 with why
 * filled when arr is missing or not an answer. */
int pacing_in_from(struct pacing_in *in, json_t *arr, json_t *before, json_t *after, const struct profile_load *l,
                   uint64_t hold_s_ns, uint64_t hold_e_ns, enum pacing_process process, uint64_t **bins,
                   uint64_t (**rpc)[3], char *why, size_t whylen);

/* Arrivals the load l asks for from its start to t_ns (the integral of
 * its rate; closed loads: 0). */
double pacing_load_asked(const struct profile_load *l, uint64_t t_ns);

/* A ramp's per-second arrivals against its intended curve (shown, not
 * judged): arr is GET /arrivals over the whole load from its first
 * request. Returns a new JSON object {seconds: [{t, asked, arrived}],
 * worst_error}, or NULL when arr holds no bins. */
json_t *pacing_ramp_json(json_t *arr, const struct profile_load *l);
