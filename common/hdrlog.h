/* hdrlog: HdrHistogram interval logs ("histogram log format version 1.3",
 * the .hlog files HdrHistogram's HistogramLogReader, HistogramLogAnalyzer
 * and hdr-plot read), each interval a V2 histogram, zlib-compressed and
 * base64-encoded as HdrHistogram's own writer lays it out. Written from our
 * struct hist, whose buckets are HdrHistogram's with a lowest discernible
 * value of 1: the log keeps the recorded precision, no finer. */
#ifndef LB_HDRLOG_H
#define LB_HDRLOG_H

#include "common/hist.h"

#include <stddef.h>
#include <stdio.h>

/* h as HdrHistogram's compressed V2 encoding (the bytes
 * encodeIntoCompressedByteBuffer writes), base64 as a log line carries it.
 * Returns a heap string, or NULL (err set) when zlib fails. */
char *hdrlog_encode(const struct hist *h, char *err);

/* The log's header: format version, StartTime and BaseTime (both
 * start_epoch_s: interval times are then seconds since it), the comment
 * lines given (each written after "#"; may be NULL), then the legend. */
int hdrlog_header(FILE *f, double start_epoch_s, const char *const *comments);

/* One interval line: "Tag=TAG," (when tag is set; a comma or space in it
 * becomes '_'), the start (seconds after the log's BaseTime), the length,
 * the interval's max divided by max_unit_ratio (1e6 for ns recorded, max
 * in ms, as HdrHistogram's writer defaults), then the encoded histogram.
 * Returns 0, or -1 with err. */
int hdrlog_interval(FILE *f, const char *tag, double start_s, double len_s, const struct hist *h,
                    double max_unit_ratio, char *err);

#endif
