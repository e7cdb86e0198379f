/* serverlog: the server's interval log (see serverlog.h). */
#include "engine/serverlog.h"
#include "common/fsutil.h"
#include "common/hdrlog.h"
#include "common/hist.h"
#include "engine/target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const phase_name[] = {"before-hold", "hold", "after-hold"};

void serverlog_tag(char *buf, size_t len, const char *label, int phase)
{
    snprintf(buf, len, "%s:%s", label, phase < 0 || phase > 2 ? "load" : phase_name[phase]);
}

int serverlog_open(struct serverlog *s, const char *path, const char *label, int have_hold, uint64_t t0_ns,
                   double t0_epoch_s, char *err)
{
    memset(s, 0, sizeof *s);
    s->t0 = s->prev_t = t0_ns;
    s->phase = have_hold ? 0 : -1;
    snprintf(s->label, sizeof s->label, "%s", label);
    snprintf(s->path, sizeof s->path, "%s", path);
    if (!(s->f = open_memstream(&s->buf, &s->len)))
        return util_err(err, "cannot hold \"%s\" in memory: %s", path, strerror(errno));
    const char *comments[] = {
        "[loadbench: lb-target's server time per request (from the parsed request to the response written), "
        "values in ns, Interval_Max in ms]",
        "[each interval ends at a GET /histogram snapshot: every sample, and the hold window's edges; "
        "tags LABEL:before-hold, LABEL:hold, LABEL:after-hold (LABEL:load without a hold window)]",
        NULL};
    if (hdrlog_header(s->f, t0_epoch_s, comments) < 0)
        return util_err(err, "cannot write %s", path);
    return 0;
}

static void serverlog_write(struct serverlog *s, json_t *snap, uint64_t t)
{
    struct hist *h = target_histogram_between(s->prev, snap);
    if (!h)
        return;
    char tag[128];
    serverlog_tag(tag, sizeof tag, s->label, s->phase);
    double start = (double)(s->prev_t - s->t0) / 1e9, len = (double)(t - s->prev_t) / 1e9;
    if (hdrlog_interval(s->f, tag, start, len, h, 1e6, s->err) == 0)
        s->intervals++;
    hist_free(h);
}

void serverlog_add(struct serverlog *s, json_t *snap, enum serverlog_edge edge)
{
    if (!s->f || !json_is_array(json_object_get(snap, "buckets")))
        return;
    uint64_t t = target_u64(snap, "now_ns");
    if (t < s->t0)
        t = s->t0;   /* taken before the spawn (a hold from the start): the empty edge */
    if (t > s->prev_t)
        serverlog_write(s, snap, t);
    if (t >= s->prev_t) {
        json_decref(s->prev);
        s->prev = json_incref(snap);
        s->prev_t = t;
    }
    if (edge == SERVERLOG_HOLD_START && s->phase == 0)
        s->phase = 1;
    else if (edge == SERVERLOG_HOLD_END && s->phase == 1)
        s->phase = 2;
}

int serverlog_close(struct serverlog *s)
{
    json_decref(s->prev);
    s->prev = NULL;
    if (!s->f)
        return -1;
    int bad = ferror(s->f) | fclose(s->f);
    s->f = NULL;
    if (bad && !s->err[0])
        util_err(s->err, "cannot write the server's interval log");
    if (!bad && !s->err[0] && s->intervals && fsutil_write_text(s->path, s->buf, s->err))
        bad = 1;
    free(s->buf);
    s->buf = NULL;
    return bad || s->err[0] ? -1 : (int)s->intervals;
}
