/* h2: see h2.h. */
#include "generator/h2.h"
#include "common/util.h"

#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define GH2_NV_MAX 6
#define NV_FLAGS (NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE)

static void nv_set(nghttp2_nv *nv, const char *name, const char *value)
{
    *nv = (nghttp2_nv){(uint8_t *)name, (uint8_t *)value, strlen(name), strlen(value), NV_FLAGS};
}

void gh2_request_init(struct gh2_request *r, const char *host, const char *path, int tls, size_t body)
{
    nghttp2_nv *nv = util_xcalloc(GH2_NV_MAX, sizeof *nv);
    size_t n = 0;
    memset(r, 0, sizeof *r);
    nv_set(&nv[n++], ":method", body ? "POST" : "GET");
    nv_set(&nv[n++], ":scheme", tls ? "https" : "http");
    nv_set(&nv[n++], ":authority", host);
    nv_set(&nv[n++], ":path", path);
    if (body) {
        /* As over HTTP/1.1: the body's length and type said up front. */
        snprintf(r->clen, sizeof r->clen, "%zu", body);
        nv_set(&nv[n++], "content-type", "application/octet-stream");
        nv_set(&nv[n++], "content-length", r->clen);
    }
    r->nva = nv;
    r->nvlen = n;
    r->body = body;
}

void gh2_request_free(struct gh2_request *r)
{
    free(r->nva);
    r->nva = NULL;
}

/* The :status of the stream in flight (the final one: a 1xx is replaced). */
static int header_cb(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *ud)
{
    (void)s;
    (void)flags;
    struct gh2 *h = ud;
    if (f->hd.type != NGHTTP2_HEADERS || f->hd.stream_id != h->stream || namelen != 7 ||
        memcmp(name, ":status", 7) || valuelen != 3)
        return 0;
    h->status = (uint16_t)((value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0'));
    return 0;
}

/* END_STREAM from the server: the response is complete. A GOAWAY is
 * counted; the streams it cuts off close with an error (stream_close_cb). */
static int frame_recv_cb(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)s;
    struct gh2 *h = ud;
    if (f->hd.type == NGHTTP2_GOAWAY)
        h->goaways++;
    else if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) && f->hd.stream_id == h->stream &&
             (f->hd.flags & NGHTTP2_FLAG_END_STREAM) && h->done == GH2_PENDING)
        h->done = GH2_COMPLETE;
    return 0;
}

/* The request's last frame is serialized: once the socket takes it, the
 * request is sent. */
static int frame_send_cb(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    (void)s;
    struct gh2 *h = ud;
    if (f->hd.stream_id == h->stream && (f->hd.flags & NGHTTP2_FLAG_END_STREAM))
        h->req_out = 1;
    return 0;
}

/* A stream closed before its response ended: reset by the server
 * (RST_STREAM), refused by a GOAWAY, or ended by a connection error. */
static int stream_close_cb(nghttp2_session *s, int32_t stream, uint32_t error_code, void *ud)
{
    (void)s;
    (void)error_code;
    struct gh2 *h = ud;
    if (stream == h->stream && h->done == GH2_PENDING)
        h->done = GH2_RESET;
    return 0;
}

/* The POST body, 'x' bytes as over HTTP/1.1, as the windows allow. */
static ssize_t body_read_cb(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t length, uint32_t *flags,
                            nghttp2_data_source *src, void *ud)
{
    (void)s;
    (void)stream;
    (void)src;
    struct gh2 *h = ud;
    size_t n = length < h->body_left ? length : h->body_left;
    memset(buf, 'x', n);
    h->body_left -= n;
    if (!h->body_left)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static nghttp2_session_callbacks *callbacks;
static pthread_once_t callbacks_once = PTHREAD_ONCE_INIT;

/* One table for every session (nghttp2 copies it into each). */
static void callbacks_make(void)
{
    if (nghttp2_session_callbacks_new(&callbacks) != 0)
        return;
    nghttp2_session_callbacks_set_on_header_callback(callbacks, header_cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, frame_recv_cb);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, frame_send_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, stream_close_cb);
}

int gh2_open(struct gh2 *h)
{
    nghttp2_session *s = NULL;
    pthread_once(&callbacks_once, callbacks_make);
    h->out = NULL;
    h->out_len = 0;
    h->stream = 0;
    h->done = GH2_PENDING;
    h->goaways = 0;
    if (!callbacks || nghttp2_session_client_new(&s, callbacks, h) != 0)
        return -1;
    /* The defaults: no entries, nghttp2's windows and limits. */
    if (nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0) != 0) {
        nghttp2_session_del(s);
        return -1;
    }
    h->s = s;
    return 0;
}

void gh2_close(struct gh2 *h)
{
    nghttp2_session_del(h->s);
    h->s = NULL;
    h->out = NULL;
    h->out_len = 0;
}

int gh2_submit(struct gh2 *h, const struct gh2_request *r)
{
    nghttp2_data_provider body = {.read_callback = body_read_cb};
    h->done = GH2_PENDING;
    h->req_out = 0;
    h->status = 0;
    h->body_left = r->body;
    int32_t id = nghttp2_submit_request(h->s, NULL, r->nva, r->nvlen, r->body ? &body : NULL, NULL);
    h->stream = id > 0 ? id : 0;
    return id > 0 ? 0 : -1;
}

int gh2_feed(struct gh2 *h, const uint8_t *buf, size_t len)
{
    return nghttp2_session_mem_recv(h->s, buf, len) == (ssize_t)len ? 0 : -1;
}

long gh2_out(struct gh2 *h, const uint8_t **p)
{
    if (!h->out_len) {
        ssize_t n = nghttp2_session_mem_send(h->s, &h->out);
        if (n < 0)
            return -1;
        h->out_len = (size_t)n;
    }
    *p = h->out;
    return (long)h->out_len;
}

void gh2_wrote(struct gh2 *h, size_t n)
{
    h->out += n;
    h->out_len -= n;
}

int gh2_over(const struct gh2 *h)
{
    return h->goaways || (!nghttp2_session_want_read(h->s) && !nghttp2_session_want_write(h->s));
}
