#!/usr/bin/python3
"""hold-client: a client that keeps the CPU after each response, for
tests/e2e/target-hold.t.

  hold-client.py HOST:PORT N SPIN_MS

N GETs on one keep-alive connection, one at a time; each timed from just
before its send to just after the last byte of its answer, then SPIN_MS of
busy CPU before the next request. Run at a real-time priority on the
server's CPU, it takes that CPU the moment the server's write wakes it and
keeps it for SPIN_MS: a server that ends a response's time after its write
returns counts that spin in.

Prints one line: n=N ok=OK min_ns= p50_ns= max_ns= (p50: the sorted
times' ceil(N/2)-th, as a histogram's percentile ranks). Exit status 0 when
every answer was a 200, 1 otherwise, 2 on a connection error. The socket
has a 10 s timeout, so nothing hangs.
"""
import importlib.util
import math
import os
import sys
import time

# body-client.py's connection and answer reader (its file name has a dash).
_spec = importlib.util.spec_from_file_location(
    "body_client", os.path.join(os.path.dirname(os.path.abspath(__file__)), "body-client.py"))
body_client = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(body_client)


def http1(sock):
    """One HTTP/1.1 GET a call on sock: the answer's status."""
    reader = body_client.Reader(sock)
    req = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: hold-client\r\n\r\n"

    def ask():
        sock.sendall(req)
        return reader.response()
    return ask


def main(doc=__doc__, name="hold-client", start=http1):
    """The CLI and the timed loop, for this client and h2c-hold-client.py:
    start(sock) readies the connection and returns ask(), which sends one
    request and returns its answer's status once the answer is whole."""
    if len(sys.argv) != 4:
        sys.stderr.write(doc)
        return 2
    n, spin_ns = int(sys.argv[2]), int(float(sys.argv[3]) * 1e6)
    times, ok = [], 0
    try:
        ask = start(body_client.dial(sys.argv[1]))
        for _ in range(n):
            t0 = time.monotonic_ns()
            status = ask()
            t1 = time.monotonic_ns()
            times.append(t1 - t0)
            ok += status == 200
            end = t1 + spin_ns
            while time.monotonic_ns() < end:
                pass
    except (OSError, EOFError, RuntimeError) as e:
        print(f"{name}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    times.sort()
    p50 = times[math.ceil(len(times) / 2) - 1]
    print(f"n={n} ok={ok} min_ns={times[0]} p50_ns={p50} max_ns={times[-1]}")
    return 0 if ok == n else 1

if __name__ == "__main__":
    sys.exit(main())
