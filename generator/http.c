#include "generator/http.h"
#include "common/util.h"

#include <stdlib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Parser states. The parser never buffers a header split across reads: it
 * matches the three header names it needs byte by byte, and skips every
 * other line and the body with memchr/arithmetic (the parser was 5 % of
 * lb-gen's CPU byte by byte, under 2 % this way). */
enum {
    S_VERSION,      /* "HTTP/1.x" */
    S_STATUS_SP,    /* spaces before the code */
    S_STATUS,       /* three digits */
    S_STATUS_REST,  /* reason phrase up to LF */
    S_LINE_START,   /* start of a header line, or the blank line */
    S_HEAD_END_LF,  /* CR of the blank line seen */
    S_HNAME,        /* header name */
    S_HVALUE,       /* header value up to LF */
    S_SKIP_LINE,    /* a header nobody reads, up to LF */
    S_BODY,         /* remaining bytes of a Content-Length body */
    S_BODY_EOF,     /* body until the server closes */
    S_CHUNK_SIZE,   /* hex size */
    S_CHUNK_EXT,    /* ;extensions up to LF */
    S_CHUNK_DATA,
    S_CHUNK_CR,     /* CRLF after chunk data */
    S_CHUNK_LF,
    S_TRAILER_START,
    S_TRAILER_LINE,
    S_TRAILER_LF,
    S_DONE,
};

enum { H_LENGTH = 1, H_TE = 2, H_CONN = 4 };
static const char *const hnames[] = {"content-length", "transfer-encoding", "connection"};

#define F_HEAD 0x10
#define F_CHUNKED 0x20
#define F_HAVE_LEN 0x40
#define F_HTTP10 0x80
#define F_KEEPALIVE 0x08

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

void http_resp_reset(struct http_resp *r, int head)
{
    memset(r, 0, sizeof *r);
    r->state = S_VERSION;
    if (head)
        r->flags = F_HEAD;
}

/* Match a lower-case word anywhere inside a header value, one byte at a time. */
static void value_word(struct http_resp *r, uint8_t *pos, int c, const char *word, uint8_t flag)
{
    if (*pos == 0xff)
        return;
    if (lower(c) == word[*pos]) {
        if (!word[++*pos]) {
            r->flags |= flag;
            *pos = 0xff;
        }
    } else {
        *pos = lower(c) == word[0] ? 1 : 0;
    }
}

/* The head is complete: decide how the body is delimited. Returns the next
 * state. */
static int body_start(struct http_resp *r)
{
    if (r->status >= 100 && r->status < 200 && r->status != 101) {
        /* An interim response (100 Continue, 103 Early Hints): the final
         * one follows on the same connection (RFC 9110 15.2). */
        http_resp_reset(r, r->flags & F_HEAD);
        return S_VERSION;
    }
    if (r->flags & F_HTTP10 && !(r->flags & F_KEEPALIVE))
        r->flags |= HTTP_RESP_CLOSE;
    /* 101 ends the response, and the connection's HTTP: we never asked
     * for an upgrade. */
    if (r->status == 101)
        r->flags |= HTTP_RESP_CLOSE;
    if (r->flags & F_HEAD || r->status == 101 || r->status == 204 || r->status == 304)
        return S_DONE;
    if (r->flags & F_CHUNKED) {
        r->remaining = 0;
        return S_CHUNK_SIZE;
    }
    if (r->flags & F_HAVE_LEN)
        return r->remaining ? S_BODY : S_DONE;
    r->flags |= HTTP_RESP_UNTIL_EOF | HTTP_RESP_CLOSE;
    return S_BODY_EOF;
}

/* Consume up to n bytes of a body or chunk (r->remaining left of it);
 * when it is complete, go to state next. Returns the bytes taken. */
static size_t take(struct http_resp *r, size_t n, uint8_t next)
{
    if (n < r->remaining) {
        r->remaining -= n;
        return n;
    }
    size_t k = (size_t)r->remaining;
    r->remaining = 0;
    r->state = next;
    return k;
}

/* The steps of the parser, one per part of a response, each called once
 * (so the compiler folds them back into http_resp_feed's loop): each takes
 * the byte at buf[i] (or a run of bytes) in state r->state, and returns
 * the index of the next byte to read, or -1 for a malformed response. */

/* The status line: "HTTP/1.x NNN" (S_VERSION, S_STATUS_SP, S_STATUS). */
static ptrdiff_t step_status(struct http_resp *r, const char *buf, size_t i, size_t len)
{
    int c = (unsigned char)buf[i];
    switch (r->state) {
    case S_VERSION:
        /* The usual case: "HTTP/1.1 200 " in one piece. */
        if (r->pos == 0 && len - i >= 13 && !memcmp(buf + i, "HTTP/1.", 7) &&
            (buf[i + 7] == '1' || buf[i + 7] == '0') && buf[i + 8] == ' ' && buf[i + 9] >= '0' &&
            buf[i + 9] <= '9' && buf[i + 10] >= '0' && buf[i + 10] <= '9' && buf[i + 11] >= '0' &&
            buf[i + 11] <= '9') {
            if (buf[i + 7] == '0')
                r->flags |= F_HTTP10;
            r->status = (uint16_t)((buf[i + 9] - '0') * 100 + (buf[i + 10] - '0') * 10 + (buf[i + 11] - '0'));
            r->state = S_STATUS_REST;
            return (ptrdiff_t)(i + 12);
        }
        if (r->pos < 7) {
            if (c != (unsigned char)"HTTP/1."[r->pos])
                return -1;
            r->pos++;
        } else {
            if (c == '0')
                r->flags |= F_HTTP10;
            else if (c != '1')
                return -1;
            r->state = S_STATUS_SP;
        }
        return (ptrdiff_t)(i + 1);
    case S_STATUS_SP:
        if (c != ' ')
            return -1;
        r->state = S_STATUS;
        r->pos = 0;
        return (ptrdiff_t)(i + 1);
    default: /* S_STATUS */
        if (c < '0' || c > '9')
            return -1;
        r->status = (uint16_t)(r->status * 10 + (c - '0'));
        if (++r->pos == 3)
            r->state = S_STATUS_REST;
        return (ptrdiff_t)(i + 1);
    }
}

/* The start of a header line: the blank line that ends the head, a name
 * we read (Content-Length, Transfer-Encoding, Connection), or one we skip. */
static ptrdiff_t step_line_start(struct http_resp *r, const char *buf, size_t i, size_t len)
{
    int c = (unsigned char)buf[i];
    if (c == '\r') {
        r->state = S_HEAD_END_LF;
        return (ptrdiff_t)(i + 1);
    }
    if (c == '\n') {
        r->state = (uint8_t)body_start(r);
        return (ptrdiff_t)(i + 1);
    }
    if (lower(c) != 'c' && lower(c) != 't') {
        r->state = S_SKIP_LINE;
        return (ptrdiff_t)i;
    }
    /* Whole name at once when the line is all here. */
    if (len - i > 18) {
        r->state = S_SKIP_LINE;
        for (int k = 0; k < 3; k++) {
            size_t nl = strlen(hnames[k]);
            if (!strncasecmp(buf + i, hnames[k], nl) && buf[i + nl] == ':') {
                r->value_kind = (uint8_t)(1 << k);
                r->vpos = r->pos = 0;
                r->state = S_HVALUE;
                return (ptrdiff_t)(i + nl + 1);
            }
        }
        return (ptrdiff_t)i;
    }
    r->state = S_HNAME;
    r->pos = 0;
    r->match = H_LENGTH | H_TE | H_CONN;
    return (ptrdiff_t)i;
}

/* A header name arriving in pieces, matched byte by byte (S_HNAME). */
static ptrdiff_t step_hname(struct http_resp *r, int c, size_t i)
{
    if (c == ':') {
        r->value_kind = 0;
        for (int k = 0; k < 3; k++)
            if (r->match & (1 << k) && hnames[k][r->pos] == 0)
                r->value_kind = (uint8_t)(1 << k);
        r->vpos = 0;
        r->pos = 0;
        r->state = r->value_kind ? S_HVALUE : S_SKIP_LINE;
    } else if (c == '\n') {
        return -1;
    } else if (r->match) {
        /* A name already complete mismatches any further byte,
         * NUL included (lower(0) would equal its terminator). */
        for (int k = 0; k < 3; k++)
            if (r->match & (1 << k) && (hnames[k][r->pos] == 0 || hnames[k][r->pos] != lower(c)))
                r->match &= (uint8_t)~(1 << k);
        if (r->pos < 255)
            r->pos++;
        if (!r->match)
            r->state = S_SKIP_LINE;
    }
    return (ptrdiff_t)(i + 1);
}

/* The value of a header we read (S_HVALUE). */
static ptrdiff_t step_hvalue(struct http_resp *r, int c, size_t i)
{
    if (c == '\n') {
        r->state = S_LINE_START;
        return (ptrdiff_t)(i + 1);
    }
    if (r->value_kind == H_LENGTH) {
        if (c >= '0' && c <= '9') {
            if (r->remaining > UINT64_MAX / 10 - 10)
                return -1;
            r->remaining = r->remaining * 10 + (uint64_t)(c - '0');
            r->flags |= F_HAVE_LEN;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return -1;
        }
    } else if (r->value_kind == H_TE) {
        value_word(r, &r->vpos, c, "chunked", F_CHUNKED);
    } else if (r->value_kind == H_CONN) {
        value_word(r, &r->vpos, c, "close", HTTP_RESP_CLOSE);
        value_word(r, &r->pos, c, "keep-alive", F_KEEPALIVE);
    }
    return (ptrdiff_t)(i + 1);
}

/* A line skipped whole: the rest of the status line, a header we do not
 * read (S_STATUS_REST, S_SKIP_LINE). */
static ptrdiff_t step_skip_line(struct http_resp *r, const char *buf, size_t i, size_t len)
{
    const char *lf = memchr(buf + i, '\n', len - i);
    if (!lf)
        return (ptrdiff_t)len;
    r->state = S_LINE_START;
    return lf - buf + 1;
}

/* A chunked body: sizes, extensions, data, the CRLF after each chunk and
 * the trailer (S_CHUNK_*, S_TRAILER_*). */
static ptrdiff_t step_chunked(struct http_resp *r, const char *buf, size_t i, size_t len)
{
    int c = (unsigned char)buf[i];
    switch (r->state) {
    case S_CHUNK_SIZE: {
        int d = c >= '0' && c <= '9' ? c - '0' : lower(c) >= 'a' && lower(c) <= 'f' ? lower(c) - 'a' + 10 : -1;
        if (d >= 0) {
            if (r->remaining > (UINT64_MAX >> 4))
                return -1;
            r->remaining = r->remaining * 16 + (uint64_t)d;
        } else if (c == '\n') {
            r->state = r->remaining ? S_CHUNK_DATA : S_TRAILER_START;
        } else {
            r->state = S_CHUNK_EXT;
        }
        break;
    }
    case S_CHUNK_EXT:
        if (c == '\n')
            r->state = r->remaining ? S_CHUNK_DATA : S_TRAILER_START;
        break;
    case S_CHUNK_DATA:
        return (ptrdiff_t)(i + take(r, len - i, S_CHUNK_CR));
    case S_CHUNK_CR:
        if (c == '\n')
            r->state = S_CHUNK_SIZE;
        else if (c == '\r')
            r->state = S_CHUNK_LF;
        else
            return -1;
        break;
    case S_CHUNK_LF:
        if (c != '\n')
            return -1;
        r->state = S_CHUNK_SIZE;
        break;
    case S_TRAILER_START:
        r->state = c == '\r' ? S_TRAILER_LF : c == '\n' ? S_DONE : S_TRAILER_LINE;
        break;
    case S_TRAILER_LINE:
        if (c == '\n')
            r->state = S_TRAILER_START;
        break;
    default: /* S_TRAILER_LF */
        if (c != '\n')
            return -1;
        r->state = S_DONE;
        break;
    }
    return (ptrdiff_t)(i + 1);
}

int http_resp_feed(struct http_resp *r, const char *buf, size_t len, size_t *used)
{
    size_t i = 0;
    while (i < len) {
        ptrdiff_t next;
        switch (r->state) {
        case S_VERSION:
        case S_STATUS_SP:
        case S_STATUS:
            next = step_status(r, buf, i, len);
            break;
        case S_LINE_START:
            next = step_line_start(r, buf, i, len);
            break;
        case S_STATUS_REST:
        case S_SKIP_LINE:
            next = step_skip_line(r, buf, i, len);
            break;
        case S_HEAD_END_LF:
            if (buf[i] != '\n')
                return -1;
            r->state = (uint8_t)body_start(r);
            next = (ptrdiff_t)(i + 1);
            break;
        case S_HNAME:
            next = step_hname(r, (unsigned char)buf[i], i);
            break;
        case S_HVALUE:
            next = step_hvalue(r, (unsigned char)buf[i], i);
            break;
        case S_BODY:
            next = (ptrdiff_t)(i + take(r, len - i, S_DONE));
            break;
        case S_BODY_EOF:
            next = (ptrdiff_t)len;
            break;
        case S_DONE:
            *used = i;
            return 1;
        default:
            next = step_chunked(r, buf, i, len);
            break;
        }
        if (next < 0)
            return -1;
        i = (size_t)next;
    }
    *used = i;
    return r->state == S_DONE ? 1 : 0;
}

int http_resp_eof(struct http_resp *r)
{
    if (r->state == S_BODY_EOF) {
        r->state = S_DONE;
        return 1;
    }
    return r->state == S_DONE;
}

char *http_request_build(const char *host, const char *path, int close, size_t body, size_t *len)
{
    char length[96] = "";
    if (body)
        snprintf(length, sizeof length, "Content-Type: application/octet-stream\r\nContent-Length: %zu\r\n", body);
    char *s = util_xasprintf("%s %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n", body ? "POST" : "GET", path, host, length,
                             close ? "Connection: close\r\n" : "");
    size_t head = strlen(s);
    s = util_xrealloc(s, head + body + 1);
    memset(s + head, 'x', body);
    s[head + body] = 0;
    *len = head + body;
    return s;
}

int http_url_split(const char *url, char **hostport, char **path, int *tls, char *err)
{
    static const char http[] = "http://", https[] = "https://";
    *tls = strncmp(url, https, sizeof https - 1) == 0;
    if (!*tls && strncmp(url, http, sizeof http - 1) != 0) {
        if (strstr(url, "://"))
            return util_err(err, "unsupported URL \"%s\": only http:// and https:// are supported", url);
        return util_err(err, "bad URL \"%s\": expected http://HOST:PORT/PATH or https://...", url);
    }
    const char *h = url + (*tls ? sizeof https : sizeof http) - 1;
    size_t hlen = strcspn(h, "/?#");
    if (hlen == 0)
        return util_err(err, "bad URL \"%s\": no host", url);
    const char *p = h + hlen;
    if (*p == '#')
        p = "";
    char *hp = util_xasprintf("%.*s", (int)hlen, h);
    if (!strchr(hp, ':')) {
        char *with_port = util_xasprintf("%s:%d", hp, *tls ? 443 : 80);
        free(hp);
        hp = with_port;
    }
    *hostport = hp;
    *path = *p == '/' ? util_xasprintf("%.*s", (int)strcspn(p, "#"), p)
                      : util_xasprintf("/%.*s", (int)strcspn(p, "#"), p);
    return 0;
}
