/* Unit tests for generator/http: the incremental response parser fed whole,
 * byte by byte and split at every point, and the URL splitter. */
#include "generator/http.h"
#include "tests/tap.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* Feed s in pieces of `step` bytes; returns the parser's verdict and the
 * bytes it took in total. */
static int feed_steps(struct http_resp *r, const char *s, size_t len, size_t step, size_t *took)
{
    http_resp_reset(r, 0);
    size_t off = 0;
    *took = 0;
    while (off < len) {
        size_t n = len - off < step ? len - off : step, used = 0;
        int rc = http_resp_feed(r, s + off, n, &used);
        *took += used;
        if (rc != 0)
            return rc;
        off += n;
    }
    return 0;
}

static void complete_all_splits(const char *name, const char *s, uint16_t status, int close_flag)
{
    size_t len = strlen(s), took;
    struct http_resp r;
    int good = 1;
    for (size_t step = 1; step <= len; step++) {
        int rc = feed_steps(&r, s, len, step, &took);
        if (rc != 1 || took != len || r.status != status || !!(r.flags & HTTP_RESP_CLOSE) != close_flag) {
            diag("  step %zu: rc %d took %zu/%zu status %u flags %x", step, rc, took, len, r.status, r.flags);
            good = 0;
            break;
        }
    }
    ok(good, "%s: complete at every split, status %u%s", name, status, close_flag ? ", close" : "");
}

int main(void)
{
    complete_all_splits("content-length",
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"ok\":true}\n",
                        200, 0);
    complete_all_splits("upper-case header, no reason", "HTTP/1.1 404 \r\nCONTENT-LENGTH:  3\r\n\r\nabc", 404, 0);
    complete_all_splits("zero length", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, 0);
    complete_all_splits("204 without length", "HTTP/1.1 204 No Content\r\nServer: x\r\n\r\n", 204, 0);
    complete_all_splits("connection close",
                        "HTTP/1.1 503 Busy\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nno", 503, 1);
    complete_all_splits("http/1.0 default close", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 200, 1);
    complete_all_splits("http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
                        200, 0);
    /* Interim responses are skipped; their headers do not leak into the
     * final response (the 100's Content-Length, the 103's close). */
    complete_all_splits("100 continue then 200",
                        "HTTP/1.1 100 Continue\r\nContent-Length: 99\r\n\r\n"
                        "HTTP/1.1 103 Early Hints\r\nConnection: close\r\nLink: </a>\r\n\r\n"
                        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                        200, 0);
    complete_all_splits("101 ends the response and the connection", "HTTP/1.1 101 Switching Protocols\r\n\r\n", 101, 1);
    complete_all_splits("chunked with extension and trailer",
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                        "5;x=y\r\nhello\r\nA\r\n0123456789\r\n0\r\nTrailer: t\r\n\r\n",
                        200, 0);
    complete_all_splits("bare LF line ends", "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", 200, 0);
    complete_all_splits("skipped header mentioning content-length",
                        "HTTP/1.1 200 OK\r\nX-Note: Content-Length: 99\r\nServer: lb-target\r\n"
                        "Content-Type: application/json\r\nContent-Length: 1\r\n\r\nx",
                        200, 0);
    complete_all_splits("header named like content-length-x is ignored",
                        "HTTP/1.1 200 OK\r\nContent-Length-X: 99\r\nContent-Length: 1\r\n\r\nx", 200, 0);

    /* Two responses back to back: the first stops at its own end. */
    const char two[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ny";
    struct http_resp r;
    size_t used = 0;
    http_resp_reset(&r, 0);
    int rc = http_resp_feed(&r, two, strlen(two), &used);
    ok(rc == 1 && used == strlen(two) / 2, "back-to-back responses: the first ends at byte %zu (took %zu)",
       strlen(two) / 2, used);

    /* Partial: needs more. */
    http_resp_reset(&r, 0);
    const char part[] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
    rc = http_resp_feed(&r, part, strlen(part), &used);
    ok(rc == 0 && r.remaining == 7, "incomplete body asks for more (remaining %llu)", (unsigned long long)r.remaining);
    ok(http_resp_eof(&r) == 0, "EOF inside a length-delimited body does not complete it");

    /* Body until EOF. */
    http_resp_reset(&r, 0);
    rc = http_resp_feed(&r, "HTTP/1.1 200 OK\r\n\r\nsome body", 28, &used);
    ok(rc == 0 && (r.flags & HTTP_RESP_UNTIL_EOF) && http_resp_eof(&r) == 1,
       "no length: body runs to EOF, which completes it");

    /* HEAD: no body whatever the length says. */
    http_resp_reset(&r, 1);
    rc = http_resp_feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", 39, &used);
    ok(rc == 1, "HEAD response completes at the blank line");

    /* Garbage. */
    http_resp_reset(&r, 0);
    ok(http_resp_feed(&r, "SSH-2.0-OpenSSH\r\n", 17, &used) == -1, "non-HTTP bytes are rejected");
    http_resp_reset(&r, 0);
    ok(http_resp_feed(&r, "HTTP/1.1 2x0 OK\r\n", 17, &used) == -1, "a non-numeric status is rejected");
    http_resp_reset(&r, 0);
    ok(http_resp_feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", 40, &used) == -1,
       "a bad Content-Length is rejected");

    /* Requests and URLs. */
    size_t len;
    char *req = http_request_build("127.0.0.1:8080", "/x?y=1", 0, 0, &len);
    is_str(req, "GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", "keep-alive request");
    ok(len == strlen(req), "request length");
    free(req);
    req = http_request_build("h:1", "/", 1, 0, &len);
    is_str(req, "GET / HTTP/1.1\r\nHost: h:1\r\nConnection: close\r\n\r\n", "Connection: close request");
    free(req);
    req = http_request_build("h:1", "/p", 0, 5, &len);
    is_str(req, "POST /p HTTP/1.1\r\nHost: h:1\r\nContent-Type: application/octet-stream\r\nContent-Length: 5\r\n"
           "\r\nxxxxx", "a POST with a 5-byte body: head and body in one buffer");
    ok(len == strlen(req), "its length counts the body");
    free(req);

    char err[UTIL_ERR_LEN], *hp, *path;
    int tls = -1;
    ok(http_url_split("http://127.0.0.1:8080/a/b?c#frag", &hp, &path, &tls, err) == 0 && tls == 0, "URL split");
    is_str(hp, "127.0.0.1:8080", "host:port");
    is_str(path, "/a/b?c", "path with query, without fragment");
    free(hp);
    free(path);
    ok(http_url_split("http://localhost", &hp, &path, &tls, err) == 0, "URL without port or path");
    is_str(hp, "localhost:80", "port 80 by default");
    is_str(path, "/", "path / by default");
    free(hp);
    free(path);
    ok(http_url_split("https://127.0.0.1/x", &hp, &path, &tls, err) == 0 && tls == 1, "https URL: tls");
    is_str(hp, "127.0.0.1:443", "https: port 443 by default");
    is_str(path, "/x", "https: path");
    free(hp);
    free(path);
    ok(http_url_split("ftp://127.0.0.1/", &hp, &path, &tls, err) == -1 && strstr(err, "only http:// and https://"),
       "ftp is refused: %s", err);
    ok(http_url_split("https:/127.0.0.1/", &hp, &path, &tls, err) == -1 && strstr(err, "expected http://"),
       "https:/ (one slash) is refused: %s", err);
    ok(http_url_split("127.0.0.1:8080", &hp, &path, &tls, err) == -1 && strstr(err, "expected http://"),
       "a bare address is refused: %s", err);
    {
        /* Fuzz regression (fuzz/corpus/fuzz_gen_http/crash-header-name-nul):
         * NUL bytes after a full header name read past the name table. */
        static const char s[] = "HTTP/1.1 200 OK\r\nConnection\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0: x\r\n"
                                "Content-Length: 2\r\n\r\nok";
        struct http_resp rn;
        size_t took;
        int rcn = feed_steps(&rn, s, sizeof s - 1, sizeof s, &took);
        ok(rcn == 1 && took == sizeof s - 1 && rn.status == 200 && !(rn.flags & HTTP_RESP_CLOSE),
           "NUL bytes after a header name: that header is skipped, the response completes");
    }
    return done_testing();
}
