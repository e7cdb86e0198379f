#!/usr/bin/env python3
# fair.py SENDS ARRIVALS TRIM_MS: lb-gen's send times against lb-target's
# arrival bins on the same clock: prints "sends arrivals D_client D_server
# moved10 moved1 lag_ms" over the 10 ms bins between the first and last
# send, TRIM_MS cut from each end.
import json, sys
sends = [int(l) for l in open(sys.argv[1]) if l[:1].isdigit()]
a = json.load(open(sys.argv[2]))
trim = int(sys.argv[3])
start, first, bins = a["started_ns"], a["first_ms"], a["bins"]
cl = [0] * len(bins)
for t in sends:
    i = (t - start) // 1000000 - first
    if 0 <= i < len(cl):
        cl[i] += 1
lo = (sends[0] - start) // 1000000 - first + trim
hi = (sends[-1] - start) // 1000000 - first - trim
def agg(v, w):
    return [sum(v[i:i + w]) for i in range(lo, hi - w + 1, w)]
def disp(v):
    m = sum(v) / len(v)
    return sum((x - m) ** 2 for x in v) / (len(v) - 1) / m if m else float("nan")
c10, s10 = agg(cl, 10), agg(bins, 10)
c1, s1 = agg(cl, 1), agg(bins, 1)
moved = lambda c, s: sum(abs(x - y) for x, y in zip(c, s)) / 2 / max(1, sum(c))
# the lag: the shift (ms) of the server's 1 ms bins that best matches the client's
best = min(range(0, 6), key=lambda k: sum(abs(cl[i] - bins[i + k]) for i in range(lo, hi)))
print(len(sends), sum(bins), "%.3f %.3f %.4f %.4f %d" % (disp(c10), disp(s10), moved(c10, s10), moved(c1, s1), best))
