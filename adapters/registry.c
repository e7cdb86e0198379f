#include "adapters/adapter.h"

#include <string.h>

extern const struct adapter adapter_lbgen;
extern const struct adapter adapter_wrk;
extern const struct adapter adapter_hey;
extern const struct adapter adapter_ab;
extern const struct adapter adapter_h2load;
extern const struct adapter adapter_siege;
extern const struct adapter adapter_autocannon;
extern const struct adapter adapter_k6;
extern const struct adapter adapter_artillery;
extern const struct adapter adapter_locust;
extern const struct adapter adapter_jmeter;
extern const struct adapter adapter_gofasthttp;
extern const struct adapter adapter_aiohttp;
extern const struct adapter adapter_bombardier;

const struct adapter *const adapter_registry[] = {
    &adapter_lbgen,
    &adapter_wrk,
    &adapter_hey,
    &adapter_ab,
    &adapter_h2load,
    &adapter_siege,
    &adapter_autocannon,
    &adapter_bombardier,
    &adapter_k6,
    &adapter_artillery,
    &adapter_locust,
    &adapter_jmeter,
    &adapter_gofasthttp,
    &adapter_aiohttp,
    NULL,
};

const struct adapter *adapter_by_name(const char *name)
{
    for (const struct adapter *const *a = adapter_registry; *a; a++)
        if (!strcmp((*a)->name, name))
            return *a;
    return NULL;
}
