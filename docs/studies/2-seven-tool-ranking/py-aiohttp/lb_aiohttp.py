#!/usr/bin/python3
"""lb_aiohttp: loadbench's Python asyncio reference generator (refgen/README.md).

A closed-model HTTP/1.1 load generator on aiohttp, the kind of small asyncio
program a load-testing study writes by hand: -c tasks share one
ClientSession whose connector holds at most -c keep-alive connections, each
task looping GET requests until -d has passed. A task never starts a
request after the deadline but finishes the one it has in flight (bounded
by --timeout), so every request the server answers is counted here or as an
error: the completed count equals the server's count (drain, not a hard
stop). SIGINT/SIGTERM end the load early the same way; a second signal exits
at once without a summary.

One JSON summary (schema "lb-refgen/1", shared with refgen/go-fasthttp) goes
to stdout; diagnostics to stderr. Run it with Debian's /usr/bin/python3 and
python3-aiohttp (3.8.4 in Debian 12).
"""

import argparse
import asyncio
import errno
import json
import math
import os
import re
import resource
import signal
import sys
import time

try:
    import aiohttp
except ImportError as e:  # the adapter turns this into an install hint
    print("lb_aiohttp: cannot import aiohttp (%s): install python3-aiohttp" % e, file=sys.stderr)
    sys.exit(3)

# ---- latency histogram -------------------------------------------------------
# Log-linear, HdrHistogram-like, in microseconds, as in refgen/go-fasthttp:
# below 2048 us one bucket per us (exact to 1 us), above it 1024 buckets per
# power of two (relative error < 0.1 %). Fixed size however long the run;
# min, max and the sum (for the mean) are kept exactly, in ns.
SUB_BITS = 11
SUB_COUNT = 1 << SUB_BITS
HALF_COUNT = SUB_COUNT // 2
MAX_SHIFT = 30
N_BUCKETS = SUB_COUNT + MAX_SHIFT * HALF_COUNT


def bucket_of(us):
    if us < SUB_COUNT:
        return us
    shift = us.bit_length() - SUB_BITS
    if shift > MAX_SHIFT:
        return N_BUCKETS - 1
    return SUB_COUNT + (shift - 1) * HALF_COUNT + (us >> shift) - HALF_COUNT


def bucket_top(i):
    """Highest value (us) that falls into bucket i."""
    if i < SUB_COUNT:
        return i
    shift = (i - SUB_COUNT) // HALF_COUNT + 1
    sub = (i - SUB_COUNT) % HALF_COUNT + HALF_COUNT
    return ((sub + 1) << shift) - 1


def ms(ns):
    return round(ns / 1e3) / 1e3  # us precision, in ms


def quantile(counts, n, q, min_ns, max_ns):
    """The top of the bucket holding the ceil(q*n)-th smallest latency,
    kept within the exact min and max."""
    rank = max(1, math.ceil(q * n))
    cum = 0
    for i, c in enumerate(counts):
        cum += c
        if cum >= rank:
            v = bucket_top(i) * 1000 + 999
            return ms(min(max(v, min_ns), max_ns))
    return ms(max_ns)


# ---- command line --------------------------------------------------------------
_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}


def parse_duration(text):
    """Go's time.ParseDuration syntax (10s, 1500ms, 1m30s) to ns."""
    parts = re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        raise argparse.ArgumentTypeError("bad duration %r (examples: 10s, 1500ms, 1m30s)" % text)
    ns = sum(float(a) * _UNITS[b] for a, b in parts)
    if ns <= 0:
        raise argparse.ArgumentTypeError("duration %r must be positive" % text)
    return int(ns)


def classify(exc):
    if isinstance(exc, aiohttp.ClientConnectorError):
        return "connect"
    if isinstance(exc, asyncio.TimeoutError):  # ServerTimeoutError is one too
        return "timeout"
    if isinstance(exc, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError,
                        aiohttp.ClientResponseError)):
        return "read"
    if isinstance(exc, aiohttp.ClientOSError):
        if exc.errno in (errno.EPIPE,):
            return "write"
        return "read"
    if isinstance(exc, ConnectionResetError):
        return "read"
    return "other"


class Counters:
    def __init__(self):
        self.attempted = self.completed = self.ok = self.non2xx = 0
        self.errors = {"connect": 0, "read": 0, "write": 0, "timeout": 0, "other": 0}
        self.status = {}
        self.messages = {}
        self.sum_ns = 0
        self.min_ns = None
        self.max_ns = 0
        self.hist = [0] * N_BUCKETS


async def worker(session, url, state, c):
    perf = time.perf_counter_ns
    while not state["stop"]:
        c.attempted += 1
        t0 = perf()
        try:
            async with session.get(url, allow_redirects=False) as resp:
                await resp.read()
                code = resp.status
        except Exception as e:  # noqa: BLE001 - every failure is counted by kind
            kind = classify(e)
            c.errors[kind] += 1
            msg = "%s: %s" % (type(e).__name__, e)
            if msg in c.messages or len(c.messages) < 20:
                c.messages[msg] = c.messages.get(msg, 0) + 1
            continue
        ns = perf() - t0
        c.completed += 1
        if 200 <= code < 300:
            c.ok += 1
        else:
            c.non2xx += 1
        c.status[code] = c.status.get(code, 0) + 1
        c.sum_ns += ns
        if c.min_ns is None or ns < c.min_ns:
            c.min_ns = ns
        if ns > c.max_ns:
            c.max_ns = ns
        c.hist[bucket_of(ns // 1000)] += 1


async def run(args):
    loop = asyncio.get_running_loop()
    state = {"stop": False, "interrupted": False, "stop_at": None, "signals": 0}
    signaled = asyncio.Event()

    def stop_load():
        if not state["stop"]:
            state["stop_at"] = time.perf_counter_ns()
            state["stop"] = True

    def on_signal():
        state["signals"] += 1
        if state["signals"] > 1:
            os._exit(130)
        state["interrupted"] = True
        stop_load()
        signaled.set()

    for s in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(s, on_signal)

    timeout_s = args.timeout / 1e9
    connector = aiohttp.TCPConnector(limit=args.c, limit_per_host=0, keepalive_timeout=3600,
                                     ttl_dns_cache=None)
    # One Counters for all tasks: a single thread runs them, so plain ints
    # need no lock.
    c = Counters()
    timeout = aiohttp.ClientTimeout(total=None, connect=timeout_s, sock_connect=timeout_s, sock_read=timeout_s)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        start = time.perf_counter_ns()
        start_wall_ms = time.time_ns() // 10**6
        handle = loop.call_later(args.d / 1e9, stop_load)
        tasks = [asyncio.ensure_future(worker(session, args.url, state, c)) for _ in range(args.c)]
        # Drain: wait for the requests in flight (each bounded by --timeout);
        # after a signal wait at most 1 s more, since whoever sent it
        # (loadbench at its deadline) will not wait long, and count the rest
        # as unfinished.
        all_done = asyncio.ensure_future(asyncio.wait(tasks))
        sig_wait = asyncio.ensure_future(signaled.wait())
        await asyncio.wait([all_done, sig_wait], return_when=asyncio.FIRST_COMPLETED)
        if not all_done.done():
            await asyncio.wait([all_done], timeout=1.0)
        sig_wait.cancel()
        unfinished = sum(1 for t in tasks if not t.done())
        end = time.perf_counter_ns()
        handle.cancel()
        for t in tasks:
            t.cancel()
        for t in tasks:  # surface a bug in worker() instead of hiding it
            if t.done() and not t.cancelled() and t.exception():
                raise t.exception()
    stop_at = state["stop_at"] or end

    n = c.completed
    lat = {"count": n, "min": None, "mean": None, "p50": None, "p90": None, "p95": None, "p99": None,
           "p999": None, "max": None}
    if n:
        lat.update(min=ms(c.min_ns), max=ms(c.max_ns), mean=ms(c.sum_ns / n))
        for key, q in (("p50", 0.50), ("p90", 0.90), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)):
            lat[key] = quantile(c.hist, n, q, c.min_ns, c.max_ns)
    load_s = (stop_at - start) / 1e9
    elapsed_s = (end - start) / 1e9
    errors = dict(c.errors)
    errors["status"] = c.non2xx
    errors["total"] = sum(c.errors.values()) + c.non2xx
    return {
        "schema": "lb-refgen/1",
        "tool": "py-aiohttp",
        "version": {"python": sys.version.split()[0], "aiohttp": aiohttp.__version__},
        "url": args.url,
        "connections": args.c,
        "duration_s": args.d / 1e9,
        "timeout_s": timeout_s,
        "stop": "drain",
        "interrupted": state["interrupted"],
        "time": {"start_wall_ms": start_wall_ms, "load_s": load_s, "drain_s": elapsed_s - load_s,
                 "elapsed_s": elapsed_s},
        "requests": {"attempted": c.attempted, "completed": n, "ok": c.ok, "non2xx": c.non2xx,
                     "unfinished": unfinished, "per_s": n / elapsed_s if elapsed_s > 0 else 0},
        "errors": errors,
        "status": {str(k): v for k, v in sorted(c.status.items())},
        "error_messages": c.messages,
        "latency_ms": lat,
        "runtime": {"python": sys.version.split()[0], "implementation": sys.implementation.name,
                    "event_loop": type(loop).__name__, "tasks": args.c},
    }


def main():
    ap = argparse.ArgumentParser(prog="lb_aiohttp", description="closed-model HTTP load on aiohttp")
    ap.add_argument("-c", type=int, default=10, help="connections (tasks; connector limit)")
    ap.add_argument("-d", type=parse_duration, default=parse_duration("10s"), help="load duration (10s, 1500ms)")
    ap.add_argument("--timeout", type=parse_duration, default=parse_duration("30s"),
                    help="per-request connect/read timeout")
    ap.add_argument("--version", action="store_true", help="print the versions and exit")
    ap.add_argument("url", nargs="?")
    args = ap.parse_args()
    if args.version:
        print("lb_aiohttp aiohttp %s python %s" % (aiohttp.__version__, sys.version.split()[0]))
        return 0
    if not args.url or not args.url.startswith("http://") or args.c < 1:
        ap.print_usage(sys.stderr)
        print("lb_aiohttp: need -c >= 1 and an http:// URL", file=sys.stderr)
        return 2
    # One descriptor per connection: raise the soft limit to the hard one
    # when it is short, as Go's runtime does for the Go program.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < args.c + 64:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass
    summary = asyncio.run(run(args))
    sys.stdout.write(json.dumps(summary) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
