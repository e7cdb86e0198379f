/* series: per-second counters and a coarse per-second latency histogram.
 *
 * Each worker thread keeps one row per second of the run; main adds the rows
 * of all threads after join and reads p50/p99 per second from the merged
 * coarse histogram. The coarse histogram has 16 linear sub-buckets per
 * power of two from 16 us upward (exact to the microsecond below 16 us) and
 * reports bucket midpoints: a per-second percentile is within 3.2 % (or
 * 1 us) of the exact one. 368 buckets of 4 bytes cover 1 us..67 s, so a row
 * costs 1.5 KiB per thread per second of the run, allocated as the second
 * begins. The whole-run figures come from the full histogram (3
 * significant digits), not from these rows. */
#ifndef LB_GEN_SERIES_H
#define LB_GEN_SERIES_H

#include <stddef.h>
#include <stdint.h>

#define SERIES_BUCKETS 368

struct series_row {
    uint64_t completed;
    uint64_t errors;
    uint64_t sent;
    uint32_t lat[SERIES_BUCKETS];
};

struct series {
    size_t n;                 /* seconds covered */
    struct series_row **rows; /* n entries; NULL where nothing happened */
    uint32_t *active;         /* n entries: open connections at each second's end */
};

/* A series able to hold `seconds` seconds (later seconds are folded into the
 * last row). */
void series_init(struct series *s, size_t seconds);
void series_free(struct series *s);

/* The row of second sec, allocated on first use. */
struct series_row *series_row_at(struct series *s, size_t sec);

/* Bucket of a latency in ns. */
unsigned series_bucket(uint64_t latency_ns);

/* Add every count of src into dst (both made with the same seconds). */
void series_add(struct series *dst, const struct series *src);

/* The latency at percentile p (0-100] of a row, in ns (the bucket's
 * midpoint). Returns 0 when the row holds no latency. */
uint64_t series_percentile_ns(const struct series_row *row, double p);

#endif
