#include "targets/h1.h"
#include "common/util.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 tchar: the characters of a method or header name. */
static int is_tchar(unsigned char ch)
{
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
        return 1;
    return ch && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* Case-insensitive compare of [s, s+n) with the lower-case literal lit. */
static int token_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* Walk the comma-separated tokens of a Connection value. */
static void connection_tokens(const char *v, size_t n, int *close, int *keep_alive)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t start = i;
        while (i < n && v[i] != ',')
            i++;
        size_t end = i;
        while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t'))
            end--;
        if (token_is(v + start, end - start, "close"))
            *close = 1;
        else if (token_is(v + start, end - start, "keep-alive"))
            *keep_alive = 1;
    }
}

/* Where the head ends (one past the blank line's LF) within buf[0..lim), or
 * 0 when no blank line is there yet. from is where the request line starts. */
static size_t head_end(const char *buf, size_t from, size_t lim)
{
    const char *p = buf + from, *end = buf + lim;
    for (;;) {
        const char *q = memchr(p, '\n', (size_t)(end - p));
        if (!q)
            return 0;
        const char *next = q + 1;
        if (next < end && *next == '\n')
            return (size_t)(next + 1 - buf);
        if (next + 1 < end && next[0] == '\r' && next[1] == '\n')
            return (size_t)(next + 2 - buf);
        p = next;
    }
}

/* The request line at p (method SP target SP HTTP/1.x, then CRLF or LF),
 * within [p, end) which holds at least its LF. Fills head_only and
 * version_minor. Returns one past the line's LF, or NULL when the line is
 * malformed. */
static const char *request_line(const char *p, const char *end, struct h1_request *req)
{
    const char *m = p;
    while (p < end && is_tchar((unsigned char)*p))
        p++;
    if (p == m || p >= end || *p != ' ')
        return NULL;
    req->head_only = p - m == 4 && !memcmp(m, "HEAD", 4);
    p++;
    const char *t = p;
    while (p < end && (unsigned char)*p > 0x20 && *p != 0x7f)
        p++;
    if (p == t || p >= end || *p != ' ')
        return NULL;   /* also "GET /" alone: an HTTP/0.9 request */
    p++;
    if (end - p < 9 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1'))
        return NULL;
    req->version_minor = p[7] - '0';
    p += 8;
    if (*p == '\r')
        p++;
    if (*p != '\n')
        return NULL;
    return p + 1;
}

int h1_parse_head(const char *buf, size_t len, size_t max_head, struct h1_request *req)
{
    size_t lim = len < max_head ? len : max_head;
    /* RFC 9112 2.2: ignore empty lines before the request line (clients
     * may send a CRLF after a body). */
    size_t start = 0;
    while (start < lim && (buf[start] == '\n' || (buf[start] == '\r' && start + 1 < lim && buf[start + 1] == '\n')))
        start += buf[start] == '\r' ? 2 : 1;
    size_t hend = head_end(buf, start, lim);
    memset(req, 0, sizeof *req);
    if (!hend) {
        /* A complete request line is judged at once: an HTTP/0.9 request
         * ("GET /" and CRLF) never sends a blank line, and must not wait
         * for one. */
        const char *lf = memchr(buf + start, '\n', lim - start);
        if (lf && !request_line(buf + start, lf + 1, req))
            return H1_BAD;
        return len >= max_head ? H1_TOO_LARGE : H1_INCOMPLETE;
    }
    req->head_len = hend;
    const char *end = buf + hend;
    const char *p = request_line(buf + start, end, req);
    if (!p)
        return H1_BAD;

    int close = 0, keep_alive = 0, have_cl = 0, have_te = 0;
    for (;;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *lend = eol;             /* eol is never NULL inside the head */
        if (lend > p && lend[-1] == '\r')
            lend--;
        if (lend == p)
            break;                          /* the blank line */
        const char *name = p;
        while (p < lend && is_tchar((unsigned char)*p))
            p++;
        if (p == name || p >= lend || *p != ':')
            return H1_BAD;                /* no name, space before colon, folding */
        size_t name_len = (size_t)(p - name);
        p++;
        while (p < lend && (*p == ' ' || *p == '\t'))
            p++;
        const char *v = p;
        for (const char *c = v; c < lend; c++) {
            unsigned char ch = (unsigned char)*c;
            if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
                return H1_BAD;
        }
        const char *vend = lend;
        while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
            vend--;
        size_t vlen = (size_t)(vend - v);

        if (token_is(name, name_len, "content-length")) {
            if (vlen == 0 || vlen > 18)
                return H1_BAD;
            uint64_t n = 0;
            for (size_t i = 0; i < vlen; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return H1_BAD;
                n = n * 10 + (uint64_t)(v[i] - '0');
            }
            if (have_cl && n != req->content_length)
                return H1_BAD;
            have_cl = 1;
            req->content_length = n;
        } else if (token_is(name, name_len, "transfer-encoding")) {
            /* Only a lone "chunked" can be framed; anything else we could
             * not find the end of. */
            if (have_te || !token_is(v, vlen, "chunked"))
                return H1_BAD;
            have_te = 1;
            req->chunked = 1;
        } else if (token_is(name, name_len, "expect")) {
            /* RFC 9110 10.1.1: an HTTP/1.0 client's Expect is ignored. */
            req->expect_continue = req->version_minor == 1 && token_is(v, vlen, "100-continue");
        } else if (token_is(name, name_len, "connection")) {
            connection_tokens(v, vlen, &close, &keep_alive);
        }
        p = eol + 1;
    }
    if (have_cl && have_te)
        return H1_BAD;                    /* RFC 9112 6.1: a smuggling risk */
    req->keep_alive = req->version_minor == 1 ? !close : (keep_alive && !close);
    return H1_OK;
}

enum {
    CH_SIZE = 0, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
    CH_TRAILER, CH_TRAILER_LINE, CH_END_LF
};

#define CH_MAX_LINE    4096
#define CH_MAX_TRAILER 8192

static int hexval(unsigned char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

ssize_t h1_chunked_feed(struct h1_chunked *c, const char *buf, size_t len, int *done)
{
    size_t i = 0;
    *done = 0;
    while (i < len) {
        unsigned char ch = (unsigned char)buf[i];
        switch (c->state) {
        case CH_SIZE: {
            int h = hexval(ch);
            if (h >= 0) {
                if (++c->digits > 15)
                    return -1;
                c->size = c->size * 16 + (uint64_t)h;
                i++;
                break;
            }
            if (c->digits == 0)
                return -1;
            if (ch == ';' || ch == ' ' || ch == '\t') {
                c->state = CH_EXT;
                c->line_bytes = 0;
            } else if (ch == '\r') {
                c->state = CH_SIZE_LF;
                i++;
            } else if (ch == '\n') {
                c->state = CH_SIZE_LF;      /* handled below without consuming twice */
            } else {
                return -1;
            }
            break;
        }
        case CH_EXT:
            if (ch == '\r' || ch == '\n') {
                c->state = CH_SIZE_LF;
                if (ch == '\r')
                    i++;
                break;
            }
            if ((ch < 0x20 && ch != '\t') || ++c->line_bytes > CH_MAX_LINE)
                return -1;
            i++;
            break;
        case CH_SIZE_LF:
            if (ch != '\n')
                return -1;
            i++;
            c->digits = 0;
            c->state = c->size ? CH_DATA : CH_TRAILER;
            break;
        case CH_DATA: {
            if (c->limited && c->data + c->size > c->limit)
                return (ssize_t)i;   /* past the limit: the caller refuses it before its data */
            size_t take = len - i;
            if (take > c->size)
                take = (size_t)c->size;
            c->size -= take;
            c->data += take;
            i += take;
            if (c->size == 0)
                c->state = CH_DATA_CR;
            break;
        }
        case CH_DATA_CR:
            if (ch == '\r') {
                c->state = CH_DATA_LF;
                i++;
            } else if (ch == '\n') {
                c->state = CH_SIZE;
                i++;
            } else {
                return -1;
            }
            break;
        case CH_DATA_LF:
            if (ch != '\n')
                return -1;
            c->state = CH_SIZE;
            i++;
            break;
        case CH_TRAILER:
            if (ch == '\r') {
                c->state = CH_END_LF;
                i++;
            } else if (ch == '\n') {
                *done = 1;
                return (ssize_t)(i + 1);
            } else {
                c->state = CH_TRAILER_LINE;
            }
            break;
        case CH_TRAILER_LINE:
            if (++c->trailer_bytes > CH_MAX_TRAILER)
                return -1;
            if (ch == '\n')
                c->state = CH_TRAILER;
            i++;
            break;
        case CH_END_LF:
            if (ch != '\n')
                return -1;
            *done = 1;
            return (ssize_t)(i + 1);
        default:
            return -1;
        }
    }
    return (ssize_t)i;
}

void h1_body_start(struct h1_body *b, const struct h1_request *req, uint64_t max)
{
    memset(b, 0, sizeof *b);
    b->chunked = req->chunked;
    b->left = req->chunked ? 0 : req->content_length;
    b->ch.limited = 1;
    b->ch.limit = max;
}

ssize_t h1_body_feed(struct h1_body *b, const char *buf, size_t len, int *done)
{
    if (b->chunked) {
        ssize_t r = h1_chunked_feed(&b->ch, buf, len, done);
        b->seen = b->ch.data;
        return r;
    }
    size_t take = len < b->left ? len : (size_t)b->left;
    b->left -= take;
    b->seen += take;
    *done = b->left == 0;
    return (ssize_t)take;
}

uint64_t h1_body_promised(const struct h1_body *b)
{
    if (!b->chunked)
        return b->seen + b->left;
    /* size: the current chunk's rest, or the value of the size digits
     * read so far (a lower bound of the size to come), else 0. */
    return b->ch.data + b->ch.size;
}

void h1_json_body(char *dst, size_t n)
{
    static const char head[] = "{\"server\":\"lb-target\",\"pad\":\"";
    static const char tail[] = "\"}";
    size_t hl = sizeof head - 1, tl = sizeof tail - 1;
    if (n == 0)
        return;
    if (n == 1) {
        dst[0] = '0';
        return;
    }
    if (n < hl + tl) {
        /* "{}" and trailing whitespace: still one valid JSON text. */
        dst[0] = '{';
        dst[1] = '}';
        memset(dst + 2, ' ', n - 2);
        return;
    }
    memcpy(dst, head, hl);
    memset(dst + hl, 'x', n - hl - tl);
    memcpy(dst + n - tl, tail, tl);
}

char *h1_response_200(uint64_t body_bytes, const char *connection, size_t *len)
{
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "HTTP/1.1 200 OK\r\nServer: lb-target\r\nContent-Type: application/json\r\n"
                      "Content-Length: %llu\r\n%s%s%s\r\n",
                      (unsigned long long)body_bytes, connection ? "Connection: " : "",
                      connection ? connection : "", connection ? "\r\n" : "");
    char *r = util_xmalloc((size_t)hl + body_bytes);
    memcpy(r, head, (size_t)hl);
    h1_json_body(r + hl, body_bytes);
    *len = (size_t)hl + body_bytes;
    return r;
}

char *h1_response_error(int status, size_t *len)
{
    const char *reason = status == 431 ? "Request Header Fields Too Large"
                         : status == 413 ? "Content Too Large" : "Bad Request";
    const char *body = status == 431 ? "request header fields too large\n"
                       : status == 413 ? "request body too large\n" : "bad request\n";
    char *r = util_xasprintf("HTTP/1.1 %d %s\r\nServer: lb-target\r\nContent-Type: text/plain\r\n"
                             "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                             status, reason, strlen(body), body);
    *len = strlen(r);
    return r;
}
