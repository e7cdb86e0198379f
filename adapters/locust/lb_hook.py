# adapters/locust/lb_hook.py — Locust event hooks that write Locust's own
# final totals as JSON to the file named by $LB_LOCUST_OUT (default
# lb-locust.json in the working directory).
#
# Use: put this file next to the generated locustfile and `import lb_hook`
# at its top (Locust puts the locustfile's folder on sys.path). Tested with
# PyPI's Locust 2.47.0 (the tools folder's venv/locust) and Debian's
# python3-locust 2.12.1 (/usr/bin/locust, /usr/bin/python3): the events,
# stats fields and MasterRunner.quit used here are the same in both.
#
# Why these events: on shutdown Locust (2.12 and 2.47) fires `quitting` *before* it
# stops the runner (on SIGTERM the users are still running then), then stops
# the runner, prints its summary and fires `quit(exit_code)`. The file is
# written at `quitting` (marked "event": "quitting") and rewritten at `quit`
# with the final totals and the exit code: a file still marked "quitting"
# means Locust died between the two. Locust's --csv files lag the totals and
# are not used.
#
# Units are Locust's: response times in ms. Locust rounds each response
# time to whole ms and, above 100 ms, keeps 2 significant digits in the
# histogram percentiles come from (110, 120, …; 1100, 1200, …); min, max and
# avg use the unrounded ms. Failures (connection errors, non-2xx) are in
# num_requests and their times are in the percentiles. With no request
# completed the latency fields are null.

import json
import os
import time

from locust import events

_OUT = os.environ.get("LB_LOCUST_OUT", "lb-locust.json")
_PERCENTILES = (0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0)
_state = {"environment": None, "cpu_warnings": 0}


def _entry(e, with_percentiles):
    has = e.num_requests > 0 and e.min_response_time is not None
    d = {
        "method": e.method,
        "name": e.name,
        "num_requests": e.num_requests,
        "num_failures": e.num_failures,
        "min_ms": e.min_response_time if has else None,
        "max_ms": e.max_response_time if has else None,
        "avg_ms": e.avg_response_time if has else None,
        "avg_content_length_bytes": e.avg_content_length if has else None,
        "total_content_length_bytes": e.total_content_length,
        "start_time": e.start_time,
        "last_request_timestamp": e.last_request_timestamp,
    }
    if with_percentiles:
        d["percentiles_ms"] = {
            ("%g" % (p * 100)): (e.get_response_time_percentile(p) if has else None)
            for p in _PERCENTILES
        }
    return d


def _write(event, exit_code):
    env = _state["environment"]
    if env is None or env.stats is None:
        return
    stats = env.stats
    total = stats.total
    runner = env.runner
    doc = {
        "tool": "locust",
        "format": 1,
        "event": event,
        "exit_code": exit_code,
        "written_at": time.time(),
        "total": _entry(total, True),
        "duration_s": (total.last_request_timestamp - total.start_time)
        if total.last_request_timestamp else None,
        "total_rps": total.total_rps,
        "entries": [_entry(e, False) for e in stats.entries.values()],
        "errors": [
            {"method": e.method, "name": e.name, "error": str(e.error),
             "occurrences": e.occurrences}
            for e in stats.errors.values()
        ],
        "user_count": runner.user_count if runner is not None else None,
        # the master's own, its workers' (a master's flag for them, 2.12
        # and 2.47), or an event seen here
        "cpu_warning": bool(getattr(runner, "cpu_warning_emitted", False))
        or bool(getattr(runner, "worker_cpu_warning_emitted", False))
        or _state["cpu_warnings"] > 0,
    }
    if _NONCE and runner is not None and hasattr(runner, "clients"):
        for c in runner.clients.all:
            _members.setdefault(c.id, False)
        doc["workers"] = {cid: {"ours": ours} for cid, ours in _members.items()}
    # NAME.tmp.PID, as loadbench's own atomic writes: the clean-up of a
    # dead run removes it once its writer is gone.
    tmp = "%s.tmp.%d" % (_OUT, os.getpid())
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, _OUT)


@events.init.add_listener
def _on_init(environment, **_kw):
    _state["environment"] = environment


@events.cpu_warning.add_listener
def _on_cpu_warning(**_kw):
    _state["cpu_warnings"] += 1


@events.quitting.add_listener
def _on_quitting(environment, **_kw):
    _state["environment"] = environment
    _write("quitting", None)


@events.quit.add_listener
def _on_quit(exit_code, **_kw):
    _write("quit", exit_code)


# Distributed mode (--master): Locust's master (2.12, 2.47) quits at the run-time
# limit by sending "quit" to its workers and waiting 0.5 s for their final
# statistics; a worker first stops its users (up to --stop-timeout) and
# only then sends its last report, which then arrives after the master has
# written its totals (seen: 19858 counted, 21074 served). The master here
# waits instead until every worker has reported with no user left (its
# report after its users stopped: all it counted), at most --stop-timeout
# + 5 s, before it quits.
_final = {"quit_sent": False, "done": set()}

# Members (loadbench's distributed runs set $LB_LOCUST_NONCE, a secret of
# the tool run, in the master and in every worker it starts): each of our
# workers adds the nonce to every report it sends; the master records
# each worker id that reported, or was connected when the file was
# written, with whether it carried the nonce ("workers" in the file). A
# worker started elsewhere and pointed at the master's port shows there
# as not ours, and loadbench fails the row.
_NONCE = os.environ.get("LB_LOCUST_NONCE")
_members = {}


@events.report_to_master.add_listener
def _on_report_to_master(client_id, data, **_kw):
    if _NONCE:
        data["lb_nonce"] = _NONCE


@events.worker_report.add_listener
def _on_worker_report(client_id, data, **_kw):
    ours = bool(_NONCE) and data.get("lb_nonce") == _NONCE
    _members[client_id] = _members.get(client_id, ours) and ours
    if _final["quit_sent"] and data.get("user_count") == 0:
        _final["done"].add(client_id)


def _patch_master_quit():
    import gevent
    from locust.rpc import Message
    from locust.runners import MasterRunner

    def quit(self):
        self.stop(send_stop_to_client=False)
        ids = {c.id for c in self.clients.all}
        _final["quit_sent"] = True
        for cid in ids:
            self.server.send_to_client(Message("quit", None, cid))
        limit = time.monotonic() + (self.environment.stop_timeout or 0) + 5
        while not ids <= _final["done"] and time.monotonic() < limit:
            gevent.sleep(0.1)
        self.greenlet.kill(block=True)

    MasterRunner.quit = quit


_patch_master_quit()
