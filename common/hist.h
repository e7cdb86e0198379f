/* hist: a log-linear latency histogram in the style of HdrHistogram.
 *
 * Values are unsigned integers in the caller's unit (lb-gen and lb-target
 * record nanoseconds). Every value from 1 to `highest` is kept with a
 * relative error below 10^-sigfigs: values below 2*10^sigfigs (rounded up to
 * a power of two) are exact, and above that each power-of-two range is split
 * into the same number of equal sub-buckets. Values above `highest` are
 * recorded as `highest` and counted in hist_saturated(). min, max and mean
 * are exact (kept beside the buckets). */
#ifndef LB_HIST_H
#define LB_HIST_H

#include <stddef.h>
#include <stdint.h>

struct hist;

/* A histogram covering 1..highest with sigfigs (1-5) significant digits.
 * Returns NULL when the arguments are out of range (highest < 2, sigfigs
 * outside 1-5). Memory: about (log2(highest) - sigfigs*3.3) * 10^sigfigs
 * * 8 bytes; 1 ns..68 s at 3 digits is 221 KiB. */
struct hist *hist_new(uint64_t highest, int sigfigs);
void hist_free(struct hist *h);

/* Record one value (or n of the same value). Never fails. */
void hist_record(struct hist *h, uint64_t value);
void hist_record_n(struct hist *h, uint64_t value, uint64_t n);

/* Add every count of src into dst. Returns 0, or -1 when the two were made
 * with different highest/sigfigs. */
int hist_add(struct hist *dst, const struct hist *src);

/* Forget everything recorded. */
void hist_reset(struct hist *h);

uint64_t hist_count(const struct hist *h);
uint64_t hist_saturated(const struct hist *h);   /* values clamped to highest */
uint64_t hist_min(const struct hist *h);          /* 0 when empty */
uint64_t hist_max(const struct hist *h);          /* 0 when empty */
double hist_mean(const struct hist *h);           /* exact; 0 when empty */
double hist_stddev(const struct hist *h);         /* from bucket midpoints */

/* The value at percentile p (0-100]: the highest value equivalent (within
 * the histogram's precision) to the recorded value at that rank, capped at
 * the exact maximum. Returns 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);

/* Walk the non-empty buckets in ascending order. Start with *cursor = 0;
 * returns 1 and fills the bucket's highest equivalent value and its count,
 * or 0 at the end. */
int hist_next(const struct hist *h, size_t *cursor, uint64_t *value, uint64_t *count);

/* The parameters it was made with, and its counts array: counts[i] is
 * the count of the i-th bucket in HdrHistogram's own order (its
 * counts-array index with a lowest discernible value of 1), so an
 * encoder can write them as HdrHistogram does. */
uint64_t hist_highest(const struct hist *h);
int hist_sigfigs(const struct hist *h);
const uint64_t *hist_counts(const struct hist *h, size_t *len);

/* The index counts[] holds value v at (v <= highest). */
size_t hist_index_of(const struct hist *h, uint64_t v);

/* The largest difference between a recorded value and the value the
 * histogram reports for it, as a fraction (e.g. 0.000977 for 3 digits). */
double hist_resolution(const struct hist *h);

#endif
