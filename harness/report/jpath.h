/* jpath: a value at a dotted path of object keys in run.json
 * ("client.latency_ms.p50"), for the pages the reports write. */
#ifndef LB_REPORT_JPATH_H
#define LB_REPORT_JPATH_H

#include <jansson.h>

/* The number at path, NAN when absent or not a number. */
double jpath_num(json_t *o, const char *path);

/* The string at path, or NULL. */
const char *jpath_str(json_t *o, const char *path);

/* The value at path (borrowed), or NULL. */
json_t *jpath_get(json_t *o, const char *path);

#endif
