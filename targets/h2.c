/* h2: see h2.h. nghttp2 owns the framing, the flow control (its defaults)
 * and the protocol checks; this file maps its callbacks onto lb-target's
 * hooks and counters. */
#include "targets/h2.h"
#include "common/util.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define DONE_MAX (H2_MAX_STREAMS + 64)

/* A stream answered in full by nghttp2, complete once the socket took the
 * bytes up to end (the total serialized when nghttp2 closed it). */
struct done {
    uint64_t end, parsed_ns;
};

struct h2_conn {
    nghttp2_session *s;
    const struct h2_hooks *hooks;
    void *w, *c;
    struct h2_counters *ctr;
    const char *body;
    size_t body_len;
    uint64_t max_body;
    uint64_t unanswered;
    uint64_t body_open;       /* streams mid-body (BODY_TAG, not refused) */
    int freeing;
    uint8_t *scratch;         /* the caller's, reused by every h2_send: frames gathered for one write */
    size_t scratch_len;
    uint8_t *rest;            /* what the socket did not take: rest[rest_pos..rest_len) */
    size_t rest_pos, rest_len, rest_cap;
    uint64_t serialized, written;
    struct done done[DONE_MAX];   /* a ring: [done_head, done_head + ndone) */
    size_t done_head, ndone;
    char clen[24];            /* content-length, for every response */
};

static const char PREFACE[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

int h2_is_preface(const char *buf, size_t len)
{
    size_t n = len < sizeof PREFACE - 1 ? len : sizeof PREFACE - 1;
    return n >= 3 && !memcmp(buf, PREFACE, n);
}

/* A stream's user data: 0 (nothing yet), BODY_TAG | the body's bytes so
 * far (its DATA is arriving; BODY_REFUSED once answered 413), or the
 * time its request was parsed (counted; the time is below 2^62 ns). */
#define BODY_TAG     (1ull << 63)
#define BODY_REFUSED (1ull << 62)
#define BODY_BYTES   (BODY_REFUSED - 1)
_Static_assert(sizeof(void *) >= 8, "a stream's user data holds 64 bits");

static uint64_t stream_data(nghttp2_session *s, int32_t stream)
{
    return (uint64_t)(uintptr_t)nghttp2_session_get_stream_user_data(s, stream);
}

static void stream_data_set(nghttp2_session *s, int32_t stream, uint64_t v)
{
    nghttp2_session_set_stream_user_data(s, stream, (void *)(uintptr_t)v);
}

/* 413, a complete response (HEADERS with END_STREAM) before the request
 * is: the rest of its DATA is read (nghttp2 keeps the windows open) and
 * dropped uncounted. No RST_STREAM NO_ERROR after it (RFC 9113 8.1 allows
 * one): curl 7.88 then reports the stream failed, not the 413. The stream
 * is never a request. */
static void body_refuse(struct h2_conn *h, int32_t stream)
{
    static const nghttp2_nv nva[] = {
        {(uint8_t *)":status", (uint8_t *)"413", 7, 3, NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE},
        {(uint8_t *)"content-length", (uint8_t *)"0", 14, 1, NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE},
    };
    stream_data_set(h->s, stream, BODY_TAG | BODY_REFUSED);
    h->hooks->body(h->w, h->c, H2_BODY_TOO_LARGE, 1);
    nghttp2_submit_response(h->s, stream, nva, 2, NULL);
}

/* A request's DATA: counted as it comes (padding left out), and its total
 * held against max_body. */
static int data_chunk_cb(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data, size_t len,
                         void *ud)
{
    (void)flags;
    (void)data;
    struct h2_conn *h = ud;
    uint64_t u = stream_data(s, stream);
    if ((u && !(u & BODY_TAG)) || (u & BODY_REFUSED))
        return 0;   /* after END_STREAM (nghttp2 refuses that), or refused already */
    if (!u)
        h->body_open++;
    uint64_t n = (u & BODY_BYTES) + len;
    h->hooks->body(h->w, h->c, H2_BODY_DATA, len);
    if (n > h->max_body) {
        h->body_open--;
        body_refuse(h, stream);
        return 0;
    }
    stream_data_set(s, stream, BODY_TAG | n);
    return 0;
}

static int frame_recv_cb(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    struct h2_conn *h = ud;
    if (f->hd.type == NGHTTP2_RST_STREAM) {
        tstats_add(&h->ctr->reset, 1);
        return 0;
    }
    if ((f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA) || !(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    uint64_t u = stream_data(s, f->hd.stream_id), body = 0;
    if (u & BODY_REFUSED)
        return 0;
    if (u & BODY_TAG) {
        body = u & BODY_BYTES;
        h->body_open--;
    }
    tstats_add(&h->ctr->requests, 1);
    uint64_t t = h->hooks->request(h->w, h->c, f->hd.stream_id, body);
    nghttp2_session_set_stream_user_data(s, f->hd.stream_id, (void *)(uintptr_t)t);
    h->unanswered++;
    return 0;
}

static int frame_send_cb(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)s;
    struct h2_conn *h = ud;
    if (f->hd.type == NGHTTP2_RST_STREAM && f->rst_stream.error_code == NGHTTP2_REFUSED_STREAM)
        tstats_add(&h->ctr->refused, 1);
    return 0;
}

static int stream_close_cb(nghttp2_session *s, int32_t stream, uint32_t error_code, void *ud)
{
    struct h2_conn *h = ud;
    uint64_t t = stream_data(s, stream);
    if (h->freeing || !t)
        return 0;
    if (t & BODY_TAG) {
        /* Closed before its body ended: it fell short (not when refused). */
        if (!(t & BODY_REFUSED)) {
            h->body_open--;
            h->hooks->body(h->w, h->c, H2_BODY_SHORT, 1);
        }
        return 0;
    }
    /* Answered in full: complete once its bytes are written (done_advance). */
    if (error_code == NGHTTP2_NO_ERROR && h->ndone < DONE_MAX) {
        h->done[(h->done_head + h->ndone++) % DONE_MAX] = (struct done){.end = h->serialized, .parsed_ns = t};
        return 0;
    }
    h->unanswered--;
    h->hooks->closed(h->w, h->c, (uint64_t)t, 0);
    return 0;
}

/* The body, from the shared buffer; source->ptr is how much of it this
 * stream has sent (nghttp2 keeps the source with the stream). */
static ssize_t body_read(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *ud)
{
    (void)s;
    (void)stream;
    struct h2_conn *h = ud;
    size_t off = (size_t)(uintptr_t)src->ptr, n = h->body_len - off;
    if (n > len)
        n = len;
    memcpy(buf, h->body + off, n);
    src->ptr = (void *)(uintptr_t)(off + n);
    if (off + n == h->body_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static nghttp2_session_callbacks *g_cbs;   /* built once, read-only after */

static void cbs_init(void)
{
    nghttp2_session_callbacks_new(&g_cbs);
    nghttp2_session_callbacks_set_on_frame_recv_callback(g_cbs, frame_recv_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(g_cbs, data_chunk_cb);
    nghttp2_session_callbacks_set_on_frame_send_callback(g_cbs, frame_send_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(g_cbs, stream_close_cb);
}

struct h2_conn *h2_new(const struct h2_hooks *hooks, void *w, void *c, struct h2_counters *ctr, const char *body,
                       size_t body_len, uint8_t *scratch, size_t scratch_len, uint64_t max_body)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, cbs_init);
    if (!g_cbs)
        return NULL;
    struct h2_conn *h = util_xcalloc(1, sizeof *h);
    *h = (struct h2_conn){.hooks = hooks, .w = w, .c = c, .ctr = ctr, .body = body, .body_len = body_len,
                          .scratch = scratch, .scratch_len = scratch_len, .max_body = max_body};
    snprintf(h->clen, sizeof h->clen, "%zu", body_len);
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2_MAX_STREAMS}};
    if (nghttp2_session_server_new(&h->s, g_cbs, h) != 0 ||
        nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]) != 0) {
        h2_free(h);
        return NULL;
    }
    return h;
}

int h2_recv(struct h2_conn *h, const uint8_t *buf, size_t len)
{
    ssize_t n = nghttp2_session_mem_recv(h->s, buf, len);
    if (n < 0 || (size_t)n != len) {
        tstats_add(&h->ctr->broken, 1);
        return -1;
    }
    return 0;
}

#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE}

int h2_respond(struct h2_conn *h, int32_t stream)
{
    if (!nghttp2_session_find_stream(h->s, stream))
        return -1;
    nghttp2_nv nva[] = {NV(":status", "200"), NV("content-type", "application/json"), NV("content-length", h->clen)};
    nghttp2_data_provider prd = {.source.ptr = NULL, .read_callback = body_read};
    return nghttp2_submit_response(h->s, stream, nva, sizeof nva / sizeof nva[0], h->body_len ? &prd : NULL) ? -1 : 0;
}

/* The streams whose last byte the socket has taken: complete. */
static void done_advance(struct h2_conn *h)
{
    while (h->ndone && h->done[h->done_head].end <= h->written) {
        uint64_t t = h->done[h->done_head].parsed_ns;
        h->done_head = (h->done_head + 1) % DONE_MAX;
        h->ndone--;
        h->unanswered--;
        tstats_add(&h->ctr->completed, 1);
        h->hooks->closed(h->w, h->c, t, 1);
    }
}

static void rest_add(struct h2_conn *h, const uint8_t *buf, size_t len)
{
    if (h->rest_len + len > h->rest_cap) {
        h->rest_cap = h->rest_len + len;
        h->rest = util_xrealloc(h->rest, h->rest_cap);
    }
    memcpy(h->rest + h->rest_len, buf, len);
    h->rest_len += len;
}

/* Write buf[0..len) behind what is left over; keep what the socket does
 * not take. Returns 1 when all went, 0 when the socket is full (the rest
 * kept), -1 when the connection broke. */
static int out_write(struct h2_conn *h, const uint8_t *buf, size_t len)
{
    if (h->rest_pos < h->rest_len) {
        rest_add(h, buf, len);
        return 0;
    }
    while (len) {
        ssize_t n = h->hooks->send(h->w, h->c, buf, len);
        if (n < 0) {
            if (errno != EAGAIN)
                return -1;
            h->rest_pos = h->rest_len = 0;
            rest_add(h, buf, len);
            return 0;
        }
        buf += n;
        len -= (size_t)n;
        h->written += (uint64_t)n;
        done_advance(h);
    }
    return 1;
}

/* Write what the socket did not take before. Returns as out_write. */
static int rest_flush(struct h2_conn *h)
{
    while (h->rest_pos < h->rest_len) {
        ssize_t n = h->hooks->send(h->w, h->c, h->rest + h->rest_pos, h->rest_len - h->rest_pos);
        if (n < 0)
            return errno == EAGAIN ? 0 : -1;
        h->rest_pos += (size_t)n;
        h->written += (uint64_t)n;
        done_advance(h);
    }
    h->rest_pos = h->rest_len = 0;
    return 1;
}

/* nghttp2's frames, gathered in the scratch buffer so that many go in one
 * write (one TLS record), until none is left or the socket is full; a
 * stream counts as complete only once its last byte is written. */
int h2_send(struct h2_conn *h)
{
    int r = rest_flush(h);
    size_t len = 0;
    while (r == 1) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(h->s, &data);
        if (n < 0) {
            if (n == NGHTTP2_ERR_FLOODED)
                tstats_add(&h->ctr->broken, 1);
            return -1;
        }
        if (n > 0 && (size_t)n <= h->scratch_len - len) {
            memcpy(h->scratch + len, data, (size_t)n);
            len += (size_t)n;
            h->serialized += (uint64_t)n;
            continue;
        }
        /* Full, or nothing more: write what is gathered, then a frame too
         * big for the room left (data stays valid until the next call). */
        r = len ? out_write(h, h->scratch, len) : 1;
        len = 0;
        if (n == 0)
            break;
        h->serialized += (uint64_t)n;
        if (r >= 0)
            r = out_write(h, data, (size_t)n);
    }
    return r < 0 ? -1 : 0;
}

int h2_finished(const struct h2_conn *h)
{
    return !nghttp2_session_want_read(h->s) && !nghttp2_session_want_write(h->s) && h->rest_pos == h->rest_len;
}

/* terminate_session, not submit_goaway: nghttp2 then serializes nothing
 * after the GOAWAY (want_read and want_write turn 0 once it is sent), so
 * no response starts that the close would cut. */
int h2_goaway(struct h2_conn *h)
{
    return nghttp2_session_terminate_session(h->s, NGHTTP2_NO_ERROR) ? -1 : 0;
}

uint64_t h2_unanswered(const struct h2_conn *h)
{
    return h->unanswered;
}

uint64_t h2_body_open(const struct h2_conn *h)
{
    return h->body_open;
}

void h2_free(struct h2_conn *h)
{
    if (!h)
        return;
    h->freeing = 1;
    nghttp2_session_del(h->s);
    free(h->rest);
    free(h);
}

void h2_view_read(struct h2_view *v, const struct h2_counters *c)
{
    v->requests = tstats_get(&c->requests);
    v->completed = tstats_get(&c->completed);
    v->reset = tstats_get(&c->reset);
    v->refused = tstats_get(&c->refused);
    v->broken = tstats_get(&c->broken);
    v->h2c = tstats_get(&c->h2c);
    v->goaway = tstats_get(&c->goaway);
}

void h2_view_add(struct h2_view *dst, const struct h2_view *src)
{
    dst->requests += src->requests;
    dst->completed += src->completed;
    dst->reset += src->reset;
    dst->refused += src->refused;
    dst->broken += src->broken;
    dst->h2c += src->h2c;
    dst->goaway += src->goaway;
}

json_t *h2_json(const struct h2_view *v)
{
    return json_pack("{s:I, s:{s:I, s:I, s:I}, s:I, s:I, s:I, s:i}", "requests", (json_int_t)v->requests,
                     "streams", "completed", (json_int_t)v->completed, "reset", (json_int_t)v->reset, "refused",
                     (json_int_t)v->refused, "connections_broken", (json_int_t)v->broken, "h2c_connections",
                     (json_int_t)v->h2c, "goaway_sent", (json_int_t)v->goaway, "max_concurrent_streams",
                     H2_MAX_STREAMS);
}
