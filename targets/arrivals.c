#include "targets/arrivals.h"
#include "common/util.h"

#include <stdlib.h>

void arrivals_init(struct arrivals *a)
{
    a->bins = util_xcalloc(ARRIVALS_RING_MS, sizeof *a->bins);
    tstats_set(&a->last_ms_plus1, 0);
    a->cur_ms = 0;
}

void arrivals_free(struct arrivals *a)
{
    free((void *)a->bins);
    a->bins = NULL;
}

void arrivals_tick(struct arrivals *a, uint64_t ms)
{
    uint64_t last1 = tstats_get(&a->last_ms_plus1);
    if (last1 && ms < last1)
        return;   /* the same bin (the clock is monotonic) */
    /* Zero the bins from the last one begun (exclusive) to ms: at most the
     * whole ring once, however long the worker slept. */
    uint64_t from = last1, n = ms - from + 1;
    if (n > ARRIVALS_RING_MS) {
        from = ms + 1 - ARRIVALS_RING_MS;
        n = ARRIVALS_RING_MS;
    }
    for (uint64_t k = 0; k < n; k++)
        atomic_store_explicit(&a->bins[(from + k) % ARRIVALS_RING_MS], 0, memory_order_relaxed);
    a->cur_ms = ms;
    atomic_store_explicit(&a->last_ms_plus1, ms + 1, memory_order_release);
}

static unsigned rpc_bucket(uint64_t nreq)
{
    if (nreq < ARRIVALS_RPC_EXACT)
        return (unsigned)nreq;
    unsigned k = 63u - (unsigned)__builtin_clzll(nreq);   /* 2^k <= nreq */
    unsigned b = ARRIVALS_RPC_EXACT + k - 5u;              /* 2^5 == ARRIVALS_RPC_EXACT */
    return b < ARRIVALS_RPC_BUCKETS ? b : ARRIVALS_RPC_BUCKETS - 1;
}
_Static_assert(ARRIVALS_RPC_EXACT == 32u, "rpc_bucket assumes 32 exact buckets");

void arrivals_conn_closed(struct arrivals *a, uint64_t nreq)
{
    tstats_add(&a->rpc[rpc_bucket(nreq)], 1);
}

void arrivals_rpc_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    if (b < ARRIVALS_RPC_EXACT) {
        *lo = *hi = b;
        return;
    }
    unsigned k = b - ARRIVALS_RPC_EXACT + 5u;
    *lo = 1ull << k;
    *hi = k >= 63 ? UINT64_MAX : (1ull << (k + 1)) - 1;
}

int arrivals_read(const struct arrivals *a, uint64_t from_ms, uint64_t n, uint64_t *out)
{
    uint64_t last1 = atomic_load_explicit(&a->last_ms_plus1, memory_order_acquire);
    if (n > ARRIVALS_RING_MS - ARRIVALS_MARGIN_MS)
        return -1;
    if (last1 > ARRIVALS_RING_MS - ARRIVALS_MARGIN_MS && from_ms < last1 - (ARRIVALS_RING_MS - ARRIVALS_MARGIN_MS))
        return -1;   /* overwritten already */
    for (uint64_t k = 0; k < n; k++) {
        uint64_t ms = from_ms + k;
        if (ms >= last1)
            break;   /* not begun on this worker: no arrival there */
        out[k] += atomic_load_explicit(&a->bins[ms % ARRIVALS_RING_MS], memory_order_relaxed);
    }
    return 0;
}

void arrivals_rpc_read(const struct arrivals *a, uint64_t *out)
{
    for (unsigned b = 0; b < ARRIVALS_RPC_BUCKETS; b++)
        out[b] += tstats_get(&a->rpc[b]);
}

json_t *arrivals_json(const uint64_t *bins, uint64_t first_ms, uint64_t n, const uint64_t *rpc)
{
    json_t *arr = json_array(), *r = json_array();
    for (uint64_t k = 0; k < n; k++)
        json_array_append_new(arr, json_integer((json_int_t)bins[k]));
    for (unsigned b = 0; b < ARRIVALS_RPC_BUCKETS; b++) {
        uint64_t lo, hi;
        if (!rpc[b])
            continue;
        arrivals_rpc_range(b, &lo, &hi);
        json_array_append_new(r, json_pack("[I,I,I]", (json_int_t)lo, (json_int_t)(hi > INT64_MAX ? INT64_MAX : hi),
                                           (json_int_t)rpc[b]));
    }
    return json_pack("{s:i, s:I, s:o, s:o}", "bin_ms", 1, "first_ms", (json_int_t)first_ms, "bins", arr,
                     "requests_per_connection", r);
}
