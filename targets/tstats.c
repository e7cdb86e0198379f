#include "targets/tstats.h"
#include "common/hist.h"
#include "common/util.h"

#include <math.h>
#include <string.h>

void tstats_view_read(struct tstats_view *v, const struct tstats_counters *c)
{
    v->connections_accepted = tstats_get(&c->connections_accepted);
    v->connections_closed = tstats_get(&c->connections_closed);
    v->connections_open = tstats_get(&c->connections_open);
    v->connections_open_max = tstats_get(&c->connections_open_max);
    v->closed_unread = tstats_get(&c->closed_unread);
    v->accept_errors = tstats_get(&c->accept_errors);
    v->requests_parsed = tstats_get(&c->requests_parsed);
    v->responses_completed = tstats_get(&c->responses_completed);
    v->responses_aborted = tstats_get(&c->responses_aborted);
    v->bad_requests = tstats_get(&c->bad_requests);
    v->bytes_in = tstats_get(&c->bytes_in);
    v->bytes_out = tstats_get(&c->bytes_out);
    v->inflight = tstats_get(&c->inflight);
    v->inflight_max = tstats_get(&c->inflight_max);
    v->first_request_ns = tstats_get(&c->first_request_ns);
    v->last_response_ns = tstats_get(&c->last_response_ns);
    v->body_bytes = tstats_get(&c->body_bytes);
    v->requests_with_body = tstats_get(&c->requests_with_body);
    v->body_too_large = tstats_get(&c->body_too_large);
    v->body_short = tstats_get(&c->body_short);
    v->body_mismatch = tstats_get(&c->body_mismatch);
}

void tstats_view_add(struct tstats_view *dst, const struct tstats_view *src)
{
    dst->connections_accepted += src->connections_accepted;
    dst->connections_closed += src->connections_closed;
    dst->connections_open += src->connections_open;
    dst->connections_open_max += src->connections_open_max;
    dst->closed_unread += src->closed_unread;
    dst->accept_errors += src->accept_errors;
    dst->requests_parsed += src->requests_parsed;
    dst->responses_completed += src->responses_completed;
    dst->responses_aborted += src->responses_aborted;
    dst->bad_requests += src->bad_requests;
    dst->bytes_in += src->bytes_in;
    dst->bytes_out += src->bytes_out;
    dst->inflight += src->inflight;
    dst->inflight_max += src->inflight_max;
    dst->body_bytes += src->body_bytes;
    dst->requests_with_body += src->requests_with_body;
    dst->body_too_large += src->body_too_large;
    dst->body_short += src->body_short;
    dst->body_mismatch += src->body_mismatch;
    if (src->first_request_ns && (!dst->first_request_ns || src->first_request_ns < dst->first_request_ns))
        dst->first_request_ns = src->first_request_ns;
    if (src->last_response_ns > dst->last_response_ns)
        dst->last_response_ns = src->last_response_ns;
    dst->window_inflight_max += src->window_inflight_max;
    dst->window_open_max += src->window_open_max;
    if (src->window_since_ns > dst->window_since_ns)
        dst->window_since_ns = src->window_since_ns;
}

struct tstats_second *tstats_second_begin(struct tstats_second *ring, uint64_t sec,
                                        const struct tstats_counters *c)
{
    struct tstats_second *s = &ring[sec % TSTATS_RING_SECONDS];
    /* A seqlock write: readers that see t_plus1 unchanged around their
     * reads saw a whole slot. */
    atomic_store_explicit(&s->t_plus1, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    tstats_set(&s->completions, 0);
    tstats_set(&s->accepts, 0);
    tstats_set(&s->closes, 0);
    tstats_set(&s->requests, 0);
    tstats_set(&s->bad, 0);
    tstats_set(&s->open_start, tstats_get(&c->connections_open));
    tstats_set(&s->open, tstats_get(&c->connections_open));
    tstats_set(&s->inflight_start, tstats_get(&c->inflight));
    tstats_set(&s->inflight_max, tstats_get(&c->inflight));
    atomic_store_explicit(&s->t_plus1, sec + 1, memory_order_release);
    return s;
}

static struct tstats_stall *stall_slot(struct tstats_stall *ring, uint64_t k)
{
    struct tstats_stall *s = &ring[k % TSTATS_STALL_RING];
    if (tstats_get(&s->k_plus1) != k + 1) {
        /* A seqlock write, as tstats_second_begin's. */
        atomic_store_explicit(&s->k_plus1, 0, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        tstats_set(&s->before, 0);
        tstats_set(&s->in, 0);
        tstats_set(&s->after, 0);
        atomic_store_explicit(&s->k_plus1, k + 1, memory_order_release);
    }
    return s;
}

void tstats_stall_arrival(struct tstats_stall *ring, unsigned windows, uint64_t k)
{
    if (windows & 1)
        tstats_add(&stall_slot(ring, k + 1)->before, 1);
    if (windows & 2)
        tstats_add(&stall_slot(ring, k)->in, 1);
    if (windows & 4)
        tstats_add(&stall_slot(ring, k)->after, 1);
}

int tstats_stall_read(struct tstats_stall *ring, uint64_t k, uint64_t out[3])
{
    struct tstats_stall *s = &ring[k % TSTATS_STALL_RING];
    uint64_t t1 = atomic_load_explicit(&s->k_plus1, memory_order_acquire);
    if (t1 != k + 1)
        return 0;
    uint64_t b = tstats_get(&s->before), i = tstats_get(&s->in), a = tstats_get(&s->after);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&s->k_plus1, memory_order_relaxed) != t1)
        return 0;
    out[0] += b;
    out[1] += i;
    out[2] += a;
    return 1;
}

json_t *tstats_hist_json(const struct hist *h)
{
    return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
                     "count", (json_int_t)hist_count(h),
                     "min", (json_int_t)hist_min(h),
                     "mean", (json_int_t)llround(hist_mean(h)),
                     "p50", (json_int_t)hist_percentile(h, 50),
                     "p90", (json_int_t)hist_percentile(h, 90),
                     "p95", (json_int_t)hist_percentile(h, 95),
                     "p99", (json_int_t)hist_percentile(h, 99),
                     "p999", (json_int_t)hist_percentile(h, 99.9),
                     "max", (json_int_t)hist_max(h));
}

#define I(x) ((json_int_t)(x))

json_t *tstats_json(const struct tstats_view *v, const struct hist *total, const struct hist *window,
                   uint64_t now_ns, uint64_t started_ns)
{
    json_t *o = json_object();
    json_object_set_new(o, "now_ns", json_integer(I(now_ns)));
    json_object_set_new(o, "started_ns", json_integer(I(started_ns)));
    json_object_set_new(o, "connections_accepted", json_integer(I(v->connections_accepted)));
    json_object_set_new(o, "connections_open", json_integer(I(v->connections_open)));
    json_object_set_new(o, "connections_closed", json_integer(I(v->connections_closed)));
    json_object_set_new(o, "connections_open_max", json_integer(I(v->connections_open_max)));
    json_object_set_new(o, "closed_unread", json_integer(I(v->closed_unread)));
    json_object_set_new(o, "accept_errors", json_integer(I(v->accept_errors)));
    json_object_set_new(o, "requests_parsed", json_integer(I(v->requests_parsed)));
    json_object_set_new(o, "responses_completed", json_integer(I(v->responses_completed)));
    /* When load really began and ended on the server's clock (0: not yet),
     * so a harness divides by the load's duration, not a tool's. */
    json_object_set_new(o, "first_request_ns", json_integer(I(v->first_request_ns)));
    json_object_set_new(o, "last_response_ns", json_integer(I(v->last_response_ns)));
    json_object_set_new(o, "responses_aborted", json_integer(I(v->responses_aborted)));
    json_object_set_new(o, "bad_requests", json_integer(I(v->bad_requests)));
    json_object_set_new(o, "bytes_in", json_integer(I(v->bytes_in)));
    json_object_set_new(o, "bytes_out", json_integer(I(v->bytes_out)));
    json_object_set_new(o, "inflight", json_integer(I(v->inflight)));
    json_object_set_new(o, "inflight_max", json_integer(I(v->inflight_max)));
    json_object_set_new(o, "body_bytes", json_integer(I(v->body_bytes)));
    json_object_set_new(o, "requests_with_body", json_integer(I(v->requests_with_body)));
    json_object_set_new(o, "body_too_large", json_integer(I(v->body_too_large)));
    json_object_set_new(o, "body_short", json_integer(I(v->body_short)));
    json_object_set_new(o, "body_mismatch", json_integer(I(v->body_mismatch)));
    json_object_set_new(o, "server_time_ns", tstats_hist_json(total));
    json_t *w = json_object();
    json_object_set_new(w, "since_ns", json_integer(I(v->window_since_ns)));
    json_object_set_new(w, "inflight_max", json_integer(I(v->window_inflight_max)));
    json_object_set_new(w, "connections_open_max", json_integer(I(v->window_open_max)));
    json_object_set_new(w, "server_time_ns", tstats_hist_json(window));
    json_object_set_new(o, "window", w);
    return o;
}

/* Read slot k of ring into out[]; returns 1 when the slot holds second k. */
static int read_second(struct tstats_second *ring, uint64_t k, uint64_t out[9])
{
    struct tstats_second *s = &ring[k % TSTATS_RING_SECONDS];
    uint64_t t1 = atomic_load_explicit(&s->t_plus1, memory_order_acquire);
    if (t1 != k + 1)
        return 0;
    out[0] = tstats_get(&s->completions);
    out[1] = tstats_get(&s->accepts);
    out[2] = tstats_get(&s->closes);
    out[3] = tstats_get(&s->requests);
    out[4] = tstats_get(&s->bad);
    out[5] = tstats_get(&s->open_start);
    out[6] = tstats_get(&s->open);
    out[7] = tstats_get(&s->inflight_start);
    out[8] = tstats_get(&s->inflight_max);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&s->t_plus1, memory_order_relaxed) == t1;
}

json_t *tstats_series_json(struct tstats_second *const *rings, const uint64_t *cur_open,
                          const uint64_t *cur_inflight, int nrings, uint64_t since,
                          uint64_t now_ns, uint64_t started_ns)
{
    uint64_t now_sec = (now_ns - started_ns) / 1000000000ull;
    /* Keep well clear of the slots the workers are rewriting. */
    uint64_t lo = now_sec > TSTATS_RING_SECONDS - 64 ? now_sec - (TSTATS_RING_SECONDS - 64) : 0;
    size_t n = (size_t)(now_sec - lo + 1);
    uint64_t (*sum)[7] = util_xcalloc(n, sizeof *sum);   /* compl accepts closes req bad open inflmax */
    for (int w = 0; w < nrings; w++) {
        uint64_t carry_open = cur_open[w], carry_inflight = cur_inflight[w];
        for (uint64_t k = now_sec + 1; k-- > lo;) {
            uint64_t f[9];
            uint64_t *row = sum[k - lo];
            if (read_second(rings[w], k, f)) {
                row[0] += f[0];
                row[1] += f[1];
                row[2] += f[2];
                row[3] += f[3];
                row[4] += f[4];
                row[5] += f[6];
                row[6] += f[8];
                carry_open = f[5];
                carry_inflight = f[7];
            } else {
                /* Nothing happened on this worker in second k: its figures
                 * were those it had when its next recorded second began. */
                row[5] += carry_open;
                row[6] += carry_inflight;
            }
        }
    }
    json_t *secs = json_array();
    for (uint64_t k = since > lo ? since : lo; k <= now_sec; k++) {
        uint64_t *row = sum[k - lo];
        json_t *o = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "t", I(k), "completions", I(row[0]),
                              "accepts", I(row[1]), "closes", I(row[2]), "open", I(row[5]),
                              "inflight_max", I(row[6]), "requests", I(row[3]), "bad", I(row[4]));
        if (k == now_sec)
            json_object_set_new(o, "partial", json_true());
        json_array_append_new(secs, o);
    }
    free(sum);
    return json_pack("{s:I,s:I,s:o}", "start_ns", I(started_ns), "now_ns", I(now_ns), "seconds", secs);
}
