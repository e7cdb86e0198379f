/* Unit tests for harness/toolrun's status: it only goes down, and its
 * reason says why (the first failure's, plus those that came after). */
#include "tests/tap.h"
#include "engine/toolrun.h"

#include <string.h>

int main(void)
{
    struct tool_run_verdict v;
    memset(&v, 0, sizeof v);
    is_str(tool_run_status_name(v.status), "ok", "a fresh run is ok");
    is_str(v.reason, "", "an ok run has no reason");

    tool_run_downgrade(&v, TOOL_RUN_TIMEOUT, "still running %d s after start", 12);
    is_str(tool_run_status_name(v.status), "timeout", "ok -> timeout");
    is_str(v.reason, "still running 12 s after start", "the timeout's reason");

    tool_run_downgrade(&v, TOOL_RUN_FAILED, "no result: %s", "empty output");
    is_str(tool_run_status_name(v.status), "timeout", "a later failure does not turn a timeout back into failed");
    is_str(v.reason, "still running 12 s after start; no result: empty output", "its reason is added after \"; \"");

    tool_run_downgrade(&v, TOOL_RUN_OOM, "OOM-killed");
    is_str(tool_run_status_name(v.status), "oom", "timeout -> oom (the worse status wins)");
    is_str(v.reason, "OOM-killed", "the worse status's reason replaces the earlier ones");

    memset(&v, 0, sizeof v);
    tool_run_downgrade(&v, TOOL_RUN_FAILED, "lb-target died");
    tool_run_downgrade(&v, TOOL_RUN_FAILED, "lb-target unreadable after the run");
    is_str(tool_run_status_name(v.status), "failed", "failed stays failed");
    is_str(v.reason, "lb-target died; lb-target unreadable after the run", "two failures, both reasons");

    memset(&v, 0, sizeof v);
    tool_run_downgrade(&v, TOOL_RUN_INTERRUPTED, "loadbench was interrupted");
    tool_run_downgrade(&v, TOOL_RUN_TIMEOUT, "late");
    is_str(tool_run_status_name(v.status), "interrupted", "interrupted is not turned into timeout");

    memset(&v, 0, sizeof v);
    tool_run_downgrade(&v, TOOL_RUN_SKIPPED, "wrk not found");
    is_str(tool_run_status_name(v.status), "skipped", "ok -> skipped");

    /* A reason longer than the buffer is cut, never overflowed. */
    char longmsg[1000];
    memset(longmsg, 'x', sizeof longmsg - 1);
    longmsg[sizeof longmsg - 1] = 0;
    memset(&v, 0, sizeof v);
    tool_run_downgrade(&v, TOOL_RUN_FAILED, "%s", longmsg);
    tool_run_downgrade(&v, TOOL_RUN_FAILED, "%s", longmsg);
    is_u64(strlen(v.reason), sizeof v.reason - 1, "a long reason is cut at the buffer's end");

    const char *names[] = {"ok", "skipped", "suspect", "failed", "timeout", "interrupted", "oom"};
    for (int s = TOOL_RUN_OK; s <= TOOL_RUN_OOM; s++)
        is_str(tool_run_status_name((enum tool_run_status)s), names[s], "status %d is spelled \"%s\" in run.json", s,
               names[s]);
    return done_testing();
}
