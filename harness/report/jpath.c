#include "report/jpath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

json_t *jpath_get(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, k);
    return cur;
}

double jpath_num(json_t *o, const char *path)
{
    json_t *v = jpath_get(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

const char *jpath_str(json_t *o, const char *path)
{
    json_t *v = jpath_get(o, path);
    return json_is_string(v) ? json_string_value(v) : NULL;
}
