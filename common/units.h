/* units: the quantities people write in profiles and on command lines. */
#ifndef LB_UNITS_H
#define LB_UNITS_H

#include <stdint.h>

/* Parse a duration: one or more <number><unit> parts, units ns, us, ms, s,
 * m, h, e.g. "20ms", "2s", "1m30s", "1.5s". A bare number is rejected
 * (units must be explicit). Returns 0 with *out_ns set, or -1 with err
 * filled (UTIL_ERR_LEN bytes). */
int units_parse_duration_ns(const char *s, uint64_t *out_ns, char *err);

/* Parse a size: <integer><unit>, units B, KB, MB, GB (powers of 1000),
 * KiB, MiB, GiB (powers of 1024), e.g. "800B", "16KiB". A bare integer
 * means bytes. Returns 0 with *out_bytes set, or -1 with err filled. */
int units_parse_size_bytes(const char *s, uint64_t *out_bytes, char *err);

/* Parse a non-negative decimal count with no junk (e.g. "200").
 * Returns 0, or -1 with err filled naming what. */
int units_parse_count(const char *s, const char *what, uint64_t *out, char *err);

/* Write a duration in the shortest exact form ("20ms", "1m30s", "0s") into
 * buf (at least 32 bytes). Returns buf. */
char *units_format_duration(uint64_t ns, char *buf);

#endif
