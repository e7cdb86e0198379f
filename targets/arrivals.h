/* arrivals: lb-target's record of when requests arrived and how many each
 * connection carried, for the harness's pacing judgement (GET /arrivals).
 *
 * Each worker owns one struct arrivals and is its only writer: per request
 * one increment of the current 1 ms bin of a bounded ring; per closed
 * connection one increment of its requests-per-connection bucket. Readers
 * load with relaxed atomics after the command handshake (control.c), as
 * for the per-second ring. */
#ifndef LB_ARRIVALS_H
#define LB_ARRIVALS_H

#include "targets/tstats.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdint.h>

/* Ring length in 1 ms bins: 262 s of arrivals, the longest window
 * GET /arrivals answers (less a margin the worker may be rewriting). */
#define ARRIVALS_RING_MS 262144u
#define ARRIVALS_MARGIN_MS 2048u

/* Requests per connection: exact buckets 0..ARRIVALS_RPC_EXACT-1, then
 * one per power of two, [2^k, 2^(k+1)). */
#define ARRIVALS_RPC_EXACT 32u
#define ARRIVALS_RPC_BUCKETS (ARRIVALS_RPC_EXACT + 33u)

struct arrivals {
    _Atomic uint32_t *bins;             /* ARRIVALS_RING_MS of them */
    tstats_ctr last_ms_plus1;           /* the newest bin begun + 1 (0: none) */
    uint64_t cur_ms;                    /* the bin of the worker's current batch */
    tstats_ctr rpc[ARRIVALS_RPC_BUCKETS];
};

/* Allocate a's ring (aborts when out of memory); arrivals_free frees it. */
void arrivals_init(struct arrivals *a);
void arrivals_free(struct arrivals *a);

/* The worker's batch began ms milliseconds after the server started:
 * make bin ms current, zeroing the bins it skipped. Owner only. */
void arrivals_tick(struct arrivals *a, uint64_t ms);

/* One request arrived in the current bin. Owner only. */
static inline void arrivals_note(struct arrivals *a)
{
    _Atomic uint32_t *b = &a->bins[a->cur_ms % ARRIVALS_RING_MS];
    atomic_store_explicit(b, atomic_load_explicit(b, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* A connection that carried nreq requests closed. Owner only. */
void arrivals_conn_closed(struct arrivals *a, uint64_t nreq);

/* Add the bins [from_ms, from_ms + n) of a into out[n]. Returns 0, or -1
 * when the ring no longer holds all of them (nothing added). */
int arrivals_read(const struct arrivals *a, uint64_t from_ms, uint64_t n, uint64_t *out);

/* Add a's requests-per-connection buckets into out[ARRIVALS_RPC_BUCKETS]. */
void arrivals_rpc_read(const struct arrivals *a, uint64_t *out);

/* Bucket b's range [*lo, *hi] of requests per connection. */
void arrivals_rpc_range(unsigned b, uint64_t *lo, uint64_t *hi);

/* The GET /arrivals object: bins (1 ms, from first_ms), and the
 * requests-per-connection buckets as [lo, hi, count] (non-empty only).
 * Returns a new JSON object. */
json_t *arrivals_json(const uint64_t *bins, uint64_t first_ms, uint64_t n, const uint64_t *rpc);

#endif
