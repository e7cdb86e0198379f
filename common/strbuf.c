#include "common/strbuf.h"
#include "common/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strvec_push(struct strvec *s, const char *str)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->v = util_xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = util_xstrdup(str);
    s->v[s->n] = NULL;
}

void strvec_pushv(struct strvec *s, ...)
{
    va_list ap;
    va_start(ap, s);
    for (const char *a = va_arg(ap, const char *); a; a = va_arg(ap, const char *))
        strvec_push(s, a);
    va_end(ap);
}

void strvec_pushf(struct strvec *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    if (vasprintf(&p, fmt, ap) < 0)
        p = NULL;
    va_end(ap);
    if (!p)
        p = util_xstrdup("(out of memory)");
    strvec_push(s, p);
    free(p);
}

void strvec_free(struct strvec *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

void textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        if (!b->cap) {
            b->cap = 4096;
            b->s = util_xmalloc(b->cap);
        }
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = util_xrealloc(b->s, b->cap);
    }
}

void textbuf_free(struct textbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}
