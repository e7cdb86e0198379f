/* strbuf: two growable string containers for any layer: a NULL-terminated
 * vector of strings (argv, warnings, file lists) and a text buffer (configs
 * written in pieces). Out of memory aborts (util_x*), so neither returns an
 * error. */
#ifndef LB_STRBUF_H
#define LB_STRBUF_H

#include <stddef.h>

/* A growable NULL-terminated string vector. */
struct strvec {
    char **v;
    size_t n, cap;
};
void strvec_push(struct strvec *s, const char *str);
void strvec_pushf(struct strvec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Push each string of a NULL-terminated list: strvec_pushv(s, "-m", "POST", NULL). */
void strvec_pushv(struct strvec *s, ...) __attribute__((sentinel));
void strvec_free(struct strvec *s);

/* A growable text buffer, for configs written in pieces. Start it zeroed
 * ({0}); s is NULL until the first textbuf_printf, then NUL-terminated. */
struct textbuf {
    char *s;
    size_t len, cap;
};

/* Append printf-formatted text to b (growing it; out of memory aborts). A
 * format error appends nothing. */
void textbuf_printf(struct textbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Free b's text and zero b, so that it can be reused. */
void textbuf_free(struct textbuf *b);

#endif
