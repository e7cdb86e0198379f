#include "adapter.h"

#include <string.h>

extern const struct adapter adapter_lbgen;

const struct adapter *const adapter_registry[] = {
    &adapter_lbgen,
    NULL,
};

const struct adapter *adapter_by_name(const char *name)
{
    for (const struct adapter *const *a = adapter_registry; *a; a++)
        if (!strcmp((*a)->name, name))
            return *a;
    return NULL;
}
