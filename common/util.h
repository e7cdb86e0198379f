/* util: allocation that aborts on exhaustion, error buffers, small helpers. */
#ifndef LB_UTIL_H
#define LB_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Size of every caller-supplied error buffer in the project. */
#define UTIL_ERR_LEN 256

/* Allocate or abort: out of memory ends the program with a message, so
 * callers never test for NULL. */
void *util_xmalloc(size_t size_bytes);
void *util_xcalloc(size_t count, size_t size_bytes);
void *util_xrealloc(void *ptr, size_t size_bytes);
char *util_xstrdup(const char *s);
/* printf into a fresh heap string, or abort. */
char *util_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fill err (UTIL_ERR_LEN bytes) with a formatted sentence; returns -1 so
 * that callers can write `return util_err(err, ...)`. */
int util_err(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s quoted and escaped as a JSON string ("4.1.0-3+b2 " with its
 * trailing space visible; a newline as \n, a quote as \", any other
 * control byte as \u00XX, bytes >= 0x80 kept), cut with "…" to fit len,
 * into buf, for values shown in messages: a difference is then visible
 * and a value cannot break a line (issue 44). "absent" for NULL. Returns
 * buf. */
const char *util_quote(const char *s, char *buf, size_t len);

/* Monotonic and wall clocks. */
uint64_t util_now_ns(void);          /* CLOCK_MONOTONIC, ns */
/* qsort's comparison of two uint64_t, ascending. */
int util_cmp_u64(const void *a, const void *b);
uint64_t util_now_us(void);          /* CLOCK_MONOTONIC, us */
uint64_t util_wall_ms(void);         /* CLOCK_REALTIME, ms since the epoch */

/* Sleep until t_ns (absolute CLOCK_MONOTONIC). Returns early when a signal
 * arrives, so that the caller can look at its stop flag. */
void util_sleep_until_ns(uint64_t t_ns);

/* Parse a CPU list such as "0", "1,3" or "0-2" into a bitmask of up to 64
 * CPUs. Returns 0, or -1 with err filled. */
int util_parse_cpulist(const char *s, uint64_t *mask, char *err);

/* Pin the calling thread (pid 0) or process pid to the CPUs in mask.
 * Returns 0, or -1 with err filled. */
int util_pin(int pid, uint64_t mask, char *err);

#endif
