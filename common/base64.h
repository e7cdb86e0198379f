/* base64: RFC 4648's standard alphabet, with '=' padding and no line
 * breaks. */
#ifndef LB_BASE64_H
#define LB_BASE64_H

#include <stddef.h>

/* len bytes of data as base64, NUL-terminated (caller frees). */
char *base64_encode(const void *data, size_t len);

/* Decodes s (its whole length) into out, at most cap bytes. Returns the
 * byte count, or -1 when s is not padded base64 or does not fit. */
long base64_decode(const char *s, void *out, size_t cap);

#endif
