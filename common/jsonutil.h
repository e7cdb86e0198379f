/* jsonutil: the one JSON number rule every part shares. */
#ifndef LB_JSONUTIL_H
#define LB_JSONUTIL_H

#include <jansson.h>

/* v as a JSON real, or JSON null when v is not finite (NaN: not measured;
 * an infinity is no number JSON can hold either). */
json_t *jsonutil_num(double v);

#endif
