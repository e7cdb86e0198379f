#include "html.h"
#include "run.h"
#include "util.h"
#include <stdlib.h>

void html_report(FILE *f, const char *dir, json_t *run)
{
    (void)dir;
    (void)run;
    fprintf(f, "<!doctype html>\n");
}

int html_write(const char *dir, json_t *run, char *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return util_err(err, "out of memory");
    html_report(f, dir, run);
    fclose(f);
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", dir);
    int rc = run_write_text(path, buf, err);
    free(buf);
    return rc;
}
