/* tstats: lb-target's counters, per-second ring and their JSON.
 *
 * Each worker thread owns one struct tstats_counters and one ring; only that
 * thread writes them (tstats_add and friends: a relaxed load and store, i.e.
 * a plain add, because there is a single writer), so any thread may read
 * them with relaxed loads without a data race. Nothing here locks. */
#ifndef LB_TSTATS_H
#define LB_TSTATS_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>

struct hist;

/* Ring length in seconds: more than the hour the contract promises. */
#define TSTATS_RING_SECONDS 4096

/* Histogram range for server time: 1 ns .. 68.7 s at 3 significant digits. */
#define TSTATS_HIST_HIGHEST_NS 68719476736ull
#define TSTATS_HIST_SIGFIGS 3

typedef _Atomic uint64_t tstats_ctr;

struct tstats_counters {
    tstats_ctr connections_accepted;
    tstats_ctr connections_closed;
    tstats_ctr connections_open;
    tstats_ctr connections_open_max;
    tstats_ctr closed_unread;
    tstats_ctr accept_errors;
    tstats_ctr requests_parsed;
    tstats_ctr responses_completed;
    tstats_ctr responses_aborted;
    tstats_ctr bad_requests;
    tstats_ctr bytes_in;
    tstats_ctr bytes_out;
    tstats_ctr inflight;
    tstats_ctr inflight_max;
    tstats_ctr first_request_ns;    /* CLOCK_MONOTONIC of the first request parsed (0: none yet) */
    tstats_ctr last_response_ns;    /* ... of the last response completed */
    tstats_ctr body_bytes;          /* request body bytes read (HTTP/1.x: framing left out; HTTP/2: DATA) */
    tstats_ctr requests_with_body;  /* requests parsed whose body had at least one byte */
    tstats_ctr body_too_large;      /* bodies refused over --max-body (413; in bad_requests too) */
    tstats_ctr body_short;          /* requests whose connection (or stream) ended mid-body */
    tstats_ctr body_mismatch;       /* requests parsed whose body length was not --expect-body */
} __attribute__((aligned(64)));

/* One second of one worker. t_plus1 is the second's index + 1 (0: never
 * written); the worker rewrites a slot when it first records into it. */
struct tstats_second {
    tstats_ctr t_plus1;
    tstats_ctr completions;
    tstats_ctr accepts;
    tstats_ctr closes;
    tstats_ctr requests;
    tstats_ctr bad;
    tstats_ctr open_start;      /* open connections when the second began */
    tstats_ctr open;            /* ... and at its last change in the second */
    tstats_ctr inflight_start;
    tstats_ctr inflight_max;
};

/* Arrivals around one stall of one worker (see delay_stall_windows): k_plus1
 * is the stall's index + 1 (0: never written); the worker rewrites a slot
 * when it first counts into it. The ring holds the last
 * TSTATS_STALL_RING - 2 stalls whole (the next stall's before window may
 * already be counting). */
#define TSTATS_STALL_RING 4098
struct tstats_stall {
    tstats_ctr k_plus1;
    tstats_ctr before, in, after;
};

/* Single-writer updates (the owning thread only). */
static inline uint64_t tstats_get(const tstats_ctr *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}
static inline void tstats_set(tstats_ctr *c, uint64_t v)
{
    atomic_store_explicit(c, v, memory_order_relaxed);
}
static inline void tstats_add(tstats_ctr *c, uint64_t n)
{
    tstats_set(c, tstats_get(c) + n);
}
static inline void tstats_max(tstats_ctr *c, uint64_t v)
{
    if (v > tstats_get(c))
        tstats_set(c, v);
}

/* A plain copy of counters, taken by the owner or after it stopped; the
 * merged view sums the workers'. */
struct tstats_view {
    uint64_t connections_accepted, connections_closed, connections_open, connections_open_max;
    uint64_t closed_unread, accept_errors;
    uint64_t requests_parsed, responses_completed, responses_aborted, bad_requests;
    uint64_t bytes_in, bytes_out, inflight, inflight_max;
    uint64_t first_request_ns, last_response_ns;   /* merged: earliest first, latest last */
    uint64_t body_bytes, requests_with_body, body_too_large, body_short, body_mismatch;
    /* The current window (since the last POST /window). */
    uint64_t window_since_ns, window_inflight_max, window_open_max;
};

/* Copy c into v (window fields untouched). */
void tstats_view_read(struct tstats_view *v, const struct tstats_counters *c);

/* Add src into dst. Maxima add too: with several workers the merged
 * maximum is the sum of per-worker maxima, an upper bound of the true
 * simultaneous maximum (exact with one worker). */
void tstats_view_add(struct tstats_view *dst, const struct tstats_view *src);

/* Start second sec in ring (when the owning worker first records into it):
 * zero its counts and seed open/in-flight from the current counters.
 * Returns the slot. */
struct tstats_second *tstats_second_begin(struct tstats_second *ring, uint64_t sec,
                                        const struct tstats_counters *c);

/* Count one arrival in windows (DELAY_W_* bits: 1 before stall k + 1,
 * 2 in and 4 after stall k) of ring (single writer: the owner). */
void tstats_stall_arrival(struct tstats_stall *ring, unsigned windows, uint64_t k);

/* Add stall k's counts in ring to out[3] (before, in, after); returns 0
 * when the ring no longer (or never) held stall k: nothing added. */
int tstats_stall_read(struct tstats_stall *ring, uint64_t k, uint64_t out[3]);

/* {count,min,mean,p50,p90,p95,p99,p999,max} of h in its unit (ns). Returns a new
 * JSON object. */
json_t *tstats_hist_json(const struct hist *h);

/* The /stats object: totals, server_time_ns from total, and "window" from
 * v's window fields and window. Returns a new JSON object. */
json_t *tstats_json(const struct tstats_view *v, const struct hist *total, const struct hist *window,
                   uint64_t now_ns, uint64_t started_ns);

/* The /series object over nrings workers' rings for complete seconds
 * since..(now's second - 1), plus the current second marked partial.
 * cur_open/cur_inflight are each worker's current figures (used for seconds
 * in which a worker recorded nothing after its last slot). Returns a new
 * JSON object. */
json_t *tstats_series_json(struct tstats_second *const *rings, const uint64_t *cur_open,
                          const uint64_t *cur_inflight, int nrings, uint64_t since,
                          uint64_t now_ns, uint64_t started_ns);

#endif
