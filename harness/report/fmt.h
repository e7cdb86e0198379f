/* fmt: numbers as the report pages print them. */
#ifndef LB_REPORT_FMT_H
#define LB_REPORT_FMT_H

#include <stddef.h>

/* v rounded to a whole number with its thousands separated by commas
 * ("12,345"), or "–" when v is NAN (absent). Returns buf. */
const char *fmt_thousands(char *buf, size_t len, double v);

#endif
