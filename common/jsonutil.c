#include "common/jsonutil.h"

#include <math.h>

json_t *jsonutil_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}
