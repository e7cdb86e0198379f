/* Every list of adapters comes from the registry, or is checked against it
 * here (docs/adding-a-tool.md): an adapter added to adapters/registry.c
 * and forgotten anywhere else fails this test, naming the place.
 *   - it names the files its parse() reads (parse_files), which is how
 *     fuzz/fuzz_parsers.c reaches it;
 *   - the fuzzer's committed corpus has a seed aimed at it (an input whose
 *     first line is its name, "NAME\n" or "NAME/open\n");
 *   - its captured output lives in tests/fixtures/NAME/;
 *   - it says what its latency measures, and how to install it;
 *   - it lives in adapters/NAME.c, the file named after the tool.
 * Names are unique, and no two adapters share a variable. */
#include "adapters/adapter.h"
#include "tests/tap.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* 1 when some file of dir begins with the line "name\n" or "name/open\n". */
static int corpus_aims_at(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    size_t n = strlen(name);
    while (!found && (e = readdir(d))) {
        char path[4400], head[128];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        size_t got = fread(head, 1, sizeof head - 1, f);
        fclose(f);
        head[got] = 0;
        found = got > n && !strncmp(head, name, n) && (head[n] == '\n' || !strncmp(head + n, "/open\n", 6));
    }
    closedir(d);
    return found;
}

int main(void)
{
    char corpus[4096], fixtures[4096];
    snprintf(corpus, sizeof corpus, "%s/fuzz/corpus/fuzz_parsers", adapter_datadir());
    snprintf(fixtures, sizeof fixtures, "%s/tests/fixtures", adapter_datadir());
    size_t n = 0;
    for (const struct adapter *const *a = adapter_registry; *a; a++, n++) {
        const char *name = (*a)->name;
        ok((*a)->parse_files && (*a)->parse_files[0], "%s: names the files its parse() reads (parse_files)", name);
        ok(corpus_aims_at(corpus, name), "%s: fuzz/corpus/fuzz_parsers has a seed whose first line is \"%s\"",
           name, name);
        char dir[4200];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/%s", fixtures, name);
        ok(stat(dir, &st) == 0 && S_ISDIR(st.st_mode), "%s: captured output in tests/fixtures/%s/", name, name);
        ok((*a)->latency_measures && (*a)->latency_measures[0], "%s: says what its latency measures", name);
        ok((*a)->install_hint && (*a)->install_hint[0], "%s: says how to install it", name);
        ok(adapter_by_name(name) == *a, "%s: the one adapter of that name", name);
        char src[4200];
        snprintf(src, sizeof src, "%s/adapters/%s.c", adapter_datadir(), name);
        ok(stat(src, &st) == 0, "%s: defined in adapters/%s.c, the file named after the tool", name, name);
    }
    ok(n >= 14, "the registry lists every adapter (%zu)", n);
    return done_testing();
}
