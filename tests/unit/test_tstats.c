/* Unit tests for targets/tstats: merging worker views and the per-second
 * series (gaps filled from the next recorded second or the current
 * figures). */
#include "common/hist.h"
#include "tests/tap.h"
#include "targets/tstats.h"
#include "common/util.h"

#include <string.h>

static uint64_t field(json_t *secs, size_t i, const char *name)
{
    return (uint64_t)json_integer_value(json_object_get(json_array_get(secs, i), name));
}

/* The per-stall ring: counts go to the right stall and window, and a slot
 * taken by a stall TSTATS_STALL_RING later no longer answers for the old. */
static void test_stall_ring(void)
{
    struct tstats_stall *ring = util_xcalloc(TSTATS_STALL_RING, sizeof *ring);
    uint64_t c[3] = {0, 0, 0};
    ok(!tstats_stall_read(ring, 3, c) && !c[0] && !c[1] && !c[2], "a stall never counted: not held, nothing added");
    tstats_stall_arrival(ring, 1, 2);       /* before stall 3 */
    tstats_stall_arrival(ring, 2, 3);       /* in stall 3 */
    tstats_stall_arrival(ring, 2, 3);
    tstats_stall_arrival(ring, 4 | 1, 3);   /* after stall 3 and before stall 4 */
    ok(tstats_stall_read(ring, 3, c) && c[0] == 1 && c[1] == 2 && c[2] == 1, "stall 3: 1 before, 2 in, 1 after");
    tstats_stall_read(ring, 3, c);
    ok(c[0] == 2 && c[1] == 4 && c[2] == 2, "a second read adds (workers are summed)");
    uint64_t d[3] = {0, 0, 0};
    ok(tstats_stall_read(ring, 4, d) && d[0] == 1 && !d[1] && !d[2], "stall 4: its before window counted");
    tstats_stall_arrival(ring, 2, 3 + TSTATS_STALL_RING);
    memset(d, 0, sizeof d);
    ok(!tstats_stall_read(ring, 3, d) && !d[1], "its slot reused a ring later: stall 3 no longer held");
    ok(tstats_stall_read(ring, 3 + TSTATS_STALL_RING, d) && d[1] == 1, "... and the new stall starts from zero");
    free(ring);
}

int main(void)
{
    test_stall_ring();
    const uint64_t S = 1000000000ull, start = 5 * S;
    struct tstats_second *ring = util_xcalloc(TSTATS_RING_SECONDS, sizeof *ring);
    struct tstats_counters c;
    memset(&c, 0, sizeof c);

    /* Second 0: 2 accepts, 3 requests answered, 2 open at the end. */
    tstats_set(&c.connections_open, 0);
    struct tstats_second *s = tstats_second_begin(ring, 0, &c);
    tstats_add(&s->accepts, 2);
    tstats_set(&s->open, 2);
    tstats_set(&c.connections_open, 2);
    tstats_add(&s->requests, 3);
    tstats_add(&s->completions, 3);
    tstats_max(&s->inflight_max, 1);
    /* Seconds 1-2: nothing (a request in flight the whole time). */
    tstats_set(&c.inflight, 1);
    /* Second 3: one close, the request answered. */
    s = tstats_second_begin(ring, 3, &c);
    tstats_add(&s->closes, 1);
    tstats_set(&s->open, 1);
    tstats_add(&s->completions, 1);
    tstats_set(&c.connections_open, 1);
    tstats_set(&c.inflight, 0);

    struct tstats_second *rings[1] = {ring};
    uint64_t open[1] = {1}, inflight[1] = {0};
    /* now = 5.5 s after start: seconds 0-4 complete, 5 partial. */
    json_t *o = tstats_series_json(rings, open, inflight, 1, 0, start + 5 * S + S / 2, start);
    json_t *secs = json_object_get(o, "seconds");
    is_u64(json_array_size(secs), 6, "seconds 0..5 listed");
    is_u64(field(secs, 0, "completions"), 3, "second 0: completions");
    is_u64(field(secs, 0, "accepts"), 2, "second 0: accepts");
    is_u64(field(secs, 0, "open"), 2, "second 0: open at its end");
    is_u64(field(secs, 1, "completions"), 0, "second 1: nothing happened");
    is_u64(field(secs, 1, "open"), 2, "second 1: open carried from second 3's start");
    is_u64(field(secs, 2, "inflight_max"), 1, "second 2: the waiting request is in flight");
    is_u64(field(secs, 3, "closes"), 1, "second 3: the close");
    is_u64(field(secs, 3, "open"), 1, "second 3: open at its end");
    is_u64(field(secs, 4, "open"), 1, "second 4: open from the current figure");
    ok(json_is_true(json_object_get(json_array_get(secs, 5), "partial")), "second 5 is marked partial");
    ok(!json_object_get(json_array_get(secs, 4), "partial"), "second 4 is complete");
    json_decref(o);

    o = tstats_series_json(rings, open, inflight, 1, 3, start + 5 * S + S / 2, start);
    secs = json_object_get(o, "seconds");
    is_u64(field(secs, 0, "t"), 3, "since=3 starts at second 3");
    is_u64(json_array_size(secs), 3, "since=3: seconds 3..5");
    json_decref(o);

    /* A stale slot (second 0 + ring length) is not read as second 0. */
    memset(ring, 0, TSTATS_RING_SECONDS * sizeof *ring);
    s = tstats_second_begin(ring, TSTATS_RING_SECONDS, &c);
    tstats_add(&s->completions, 7);
    o = tstats_series_json(rings, open, inflight, 1, 0, start + S / 2, start);
    secs = json_object_get(o, "seconds");
    is_u64(field(secs, 0, "completions"), 0, "a slot of another lap is not this second");
    json_decref(o);

    /* Views add up; maxima add (an upper bound across workers). */
    struct tstats_view a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.responses_completed = 10;
    a.inflight_max = 3;
    b.responses_completed = 5;
    b.inflight_max = 4;
    tstats_view_add(&a, &b);
    is_u64(a.responses_completed, 15, "views: counts add");
    is_u64(a.inflight_max, 7, "views: maxima add");

    struct hist *h = hist_new(TSTATS_HIST_HIGHEST_NS, TSTATS_HIST_SIGFIGS);
    hist_record(h, 20000000);
    hist_record(h, 20100000);
    o = tstats_json(&a, h, h, 9, 1);
    is_u64(json_integer_value(json_object_get(json_object_get(o, "server_time_ns"), "count")), 2,
           "stats JSON: server_time_ns.count");
    is_u64(json_integer_value(json_object_get(json_object_get(o, "server_time_ns"), "mean")), 20050000,
           "stats JSON: server_time_ns.mean");
    ok(json_object_get(json_object_get(o, "window"), "server_time_ns") != NULL, "stats JSON: window histogram");
    json_decref(o);
    hist_free(h);
    free(ring);
    return done_testing();
}
