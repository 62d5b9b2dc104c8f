#!/usr/bin/env python3
"""Per-SM reduction time of the executor's async traces, two cards compared (issue 31 item 4; docs/profile.md,
"Per-SM reduction time on two H200 cards"). For each folder: every SM's median reduction (r_end - r_start) over the
median of its trace, then the median of that over the folder's async traces. Prints each card's spread (slowest SM
over the median SM) and the correlation of the two cards' per-SM figures over the SMs both have.
Usage: scripts/executor-per-sm.py DIR_A DIR_B (standard library only; exit 2 on bad input)"""
import glob
import gzip
import json
import os
import statistics as st
import sys


def die(msg):
    print(f"executor-per-sm: {msg}", file=sys.stderr)
    sys.exit(2)


def per_sm(folder):
    files = sorted(glob.glob(os.path.join(folder, "*async*.json.gz")))
    if not files:
        die(f"{folder}: no async executor traces (*async*.json.gz)")
    acc = {}
    for f in files:
        try:
            d = json.load(gzip.open(f))
            c = d["columns"]
            ix = {k: c.index(k) for k in ("smid", "r_start", "r_end")}
        except (OSError, EOFError, ValueError, KeyError) as e:
            die(f"{f}: not a trace with smid, r_start and r_end ({e})")
        by = {}
        for t in d["tasks"]:
            by.setdefault(t[ix["smid"]], []).append(t[ix["r_end"]] - t[ix["r_start"]])
        m = st.median(x for v in by.values() for x in v)
        for s, v in by.items():
            acc.setdefault(s, []).append(st.median(v) / m)
    return {s: st.median(v) for s, v in acc.items()}, len(files)


def main():
    if len(sys.argv) != 3:
        die("give two folders of executor traces (two cards)")
    (a, na), (b, nb) = per_sm(sys.argv[1]), per_sm(sys.argv[2])
    ks = sorted(set(a) & set(b))
    for name, x, n in ((sys.argv[1], a, na), (sys.argv[2], b, nb)):
        v = sorted(x[k] for k in ks)
        slow = sorted(ks, key=lambda k: -x[k])[:6]
        print(f"{name}: {n} traces, {len(ks)} SMs, slowest SM {v[-1]:.3f}x the median SM, fastest {v[0]:.3f}x; "
              f"slowest SMs {slow}")
    xa, xb = [a[k] for k in ks], [b[k] for k in ks]
    ma, mb = st.mean(xa), st.mean(xb)
    cov = sum((p - ma) * (q - mb) for p, q in zip(xa, xb))
    den = (sum((p - ma) ** 2 for p in xa) * sum((q - mb) ** 2 for q in xb)) ** 0.5
    print(f"correlation of the two cards' per-SM figures: {cov / den:.2f}" if den else "correlation: undefined")


main()
