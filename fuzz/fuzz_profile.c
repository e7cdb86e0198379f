/* fuzz_profile: libFuzzer target for the profile loader (spec/profile.c).
 * Any input must give a profile or a located error, never a crash. */
#include "spec/profile.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[UTIL_ERR_LEN];
    err[0] = 0;
    struct profile *p = profile_load_string("fuzz.yaml", (const char *)data, size, err);
    if (p) {
        /* Walk what the runner walks, so bad values that load are seen. */
        for (size_t i = 0; i < p->ntools; i++) {
            const struct profile_load *l = profile_tool_load(p, &p->tools[i]);
            uint64_t s, e;
            (void)profile_load_duration_ns(l);
            (void)profile_load_peak(l);
            (void)profile_hold_window(l, &s, &e);
        }
        profile_free(p);
    }
    return 0;
}
