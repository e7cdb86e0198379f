/* h2: lb-target's HTTP/2 (libnghttp2) for one connection: the session,
 * its frames in and out, the fixed 200 response, and the stream counters.
 *
 * The event loop (server.c) owns the socket and the counting of requests
 * and responses; it gives h2 three hooks: a request ended, a counted
 * request's stream closed (answered or not), and write(2). A response is
 * complete when nghttp2 has closed its stream with no error (both sides
 * sent END_STREAM) and the socket has taken the last byte of its last
 * frame. */
#ifndef LB_H2_H
#define LB_H2_H

#include "targets/tstats.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* SETTINGS_MAX_CONCURRENT_STREAMS lb-target announces: a stream beyond it
 * is refused (REFUSED_STREAM, counted). Every other setting is nghttp2's
 * default (initial window 65,535 bytes, frames of 16,384 bytes). */
#define H2_MAX_STREAMS 1024

struct h2_counters {
    tstats_ctr requests;    /* streams the client ended: requests, counted in requests_parsed too */
    tstats_ctr completed;   /* streams answered in full */
    tstats_ctr reset;       /* RST_STREAM from the client */
    tstats_ctr refused;     /* RST_STREAM(REFUSED_STREAM) sent: over H2_MAX_STREAMS */
    tstats_ctr broken;      /* connections ended for a protocol error or a flood */
    tstats_ctr h2c;         /* connections with prior knowledge over plain TCP */
    tstats_ctr goaway;      /* GOAWAY(NO_ERROR) written in full at the server's stop */
} __attribute__((aligned(64)));

struct h2_view {
    uint64_t requests, completed, reset, refused, broken, h2c, goaway;
};

/* h2_hooks.body events. */
#define H2_BODY_DATA      0   /* n bytes of a request's DATA arrived */
#define H2_BODY_TOO_LARGE 1   /* a request's body passed max_body: answered 413, stream reset */
#define H2_BODY_SHORT     2   /* n streams ended (reset, or their connection) before their body did */

struct h2_hooks {
    /* A request ended (its END_STREAM arrived) with a body of body bytes
     * (its DATA): count it and answer it now (h2_respond) or later.
     * Returns when it was parsed (ns, not 0). */
    uint64_t (*request)(void *w, void *c, int32_t stream, uint64_t body);
    /* Request bodies: event H2_BODY_* with its n. */
    void (*body)(void *w, void *c, int event, uint64_t n);
    /* A stream whose request was counted closed: completed is 1 when its
     * whole response was written, 0 when it never will be. */
    void (*closed)(void *w, void *c, uint64_t parsed_ns, int completed);
    /* write(2) to the connection: bytes written, or -1 with errno (EAGAIN:
     * nothing fits now). */
    ssize_t (*send)(void *w, void *c, const uint8_t *data, size_t len);
};

struct h2_conn;

/* A server session for connection c of worker w, answering every request
 * with 200 and body[0..body_len) (application/json). scratch[0..
 * scratch_len) is the caller's buffer, which h2_send fills with frames
 * and writes (its content is not kept between calls). A request body
 * (DATA) is counted, not kept; one over max_body bytes is answered 413
 * and its stream reset (RST_STREAM NO_ERROR: stop sending). Returns NULL
 * when nghttp2 is out of memory. */
struct h2_conn *h2_new(const struct h2_hooks *hooks, void *w, void *c, struct h2_counters *ctr, const char *body,
                       size_t body_len, uint8_t *scratch, size_t scratch_len, uint64_t max_body);

/* Feed input. Returns 0, or -1 when the client broke the protocol or
 * flooded (a GOAWAY may be queued: h2_send it, then close). */
int h2_recv(struct h2_conn *h, const uint8_t *buf, size_t len);

/* Answer stream's request. Returns 0, or -1 when the stream is gone. */
int h2_respond(struct h2_conn *h, int32_t stream);

/* Write what is queued until done or the socket is full. Returns 0, or -1
 * when the connection broke. */
int h2_send(struct h2_conn *h);

/* 1 when neither side has anything more to say (close it). */
int h2_finished(const struct h2_conn *h);

/* The server stops: queue GOAWAY (NO_ERROR, the last stream the client
 * opened) and nothing after it. h2_send writes it behind what is queued;
 * once it is written, h2_finished is 1. Returns 0, or -1 when nghttp2 is
 * out of memory. */
int h2_goaway(struct h2_conn *h);

/* Requests counted whose stream is still open (not answered yet). */
uint64_t h2_unanswered(const struct h2_conn *h);

/* Streams whose body began (DATA) and has not ended: what would fall short
 * if the connection closed now. */
uint64_t h2_body_open(const struct h2_conn *h);

/* Free h; its open streams are not reported (count h2_unanswered first). */
void h2_free(struct h2_conn *h);

/* 1 when buf[0..len) starts as the HTTP/2 client preface does (len >= 3:
 * "PRI"), i.e. a client with prior knowledge. */
int h2_is_preface(const char *buf, size_t len);

void h2_view_read(struct h2_view *v, const struct h2_counters *c);
void h2_view_add(struct h2_view *dst, const struct h2_view *src);

/* The "h2" object of /stats: "requests" (of requests_parsed, those over
 * HTTP/2), "streams": {completed, reset, refused},
 * "connections_broken", "h2c_connections", "goaway_sent",
 * "max_concurrent_streams".
 * Returns a new object. */
json_t *h2_json(const struct h2_view *v);

#endif
