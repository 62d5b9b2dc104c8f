#!/usr/bin/env python3
"""Per-SM reduction time of the executor's async traces, two cards compared (issue 31 item 4; docs/profile.md,
"Per-SM reduction time on two H200 cards"). For each folder: every SM's median reduction (r_end - r_start) over the
median of its trace, then the median of that over the folder's async traces. Prints each card's spread (slowest SM
over the median SM) and the correlation of the two cards' per-SM figures over the SMs both have.
Usage: scripts/executor-per-sm.py DIR_A DIR_B (standard library only; exit 2 on bad input)
(scripts/experiments/per-sm-ring.py imports trace_factors and correlation.)"""
import glob
import gzip
import json
import os
import statistics as st
import sys


def die(msg, who="executor-per-sm"):
    print(f"{who}: {msg}", file=sys.stderr)
    sys.exit(2)


def trace_factors(path, who="executor-per-sm"):
    """One trace's per-SM factors (each SM's median reduction over the trace's median) and its metadata."""
    try:
        with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
            d = json.load(f)
        c = d["columns"]
        ix = {k: c.index(k) for k in ("smid", "r_start", "r_end")}
        by = {}
        for t in d["tasks"]:
            by.setdefault(t[ix["smid"]], []).append(t[ix["r_end"]] - t[ix["r_start"]])
        m = st.median(x for v in by.values() for x in v)
        return {s: st.median(v) / m for s, v in by.items()}, d["metadata"]
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError, st.StatisticsError) as e:
        die(f"{path}: not an executor trace with smid, r_start and r_end ({e})", who)


def correlation(a, b):
    """Pearson correlation of two per-SM figures over the SMs both have (nan when either is constant)."""
    ks = sorted(set(a) & set(b))
    xa, xb = [a[k] for k in ks], [b[k] for k in ks]
    ma, mb = st.mean(xa), st.mean(xb)
    cov = sum((p - ma) * (q - mb) for p, q in zip(xa, xb))
    den = (sum((p - ma) ** 2 for p in xa) * sum((q - mb) ** 2 for q in xb)) ** 0.5
    return cov / den if den else float("nan")


def per_sm(folder):
    files = sorted(glob.glob(os.path.join(folder, "*async*.json.gz")))
    if not files:
        die(f"{folder}: no async executor traces (*async*.json.gz)")
    acc = {}
    for f in files:
        for s, x in trace_factors(f)[0].items():
            acc.setdefault(s, []).append(x)
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
    r = correlation(a, b)
    print(f"correlation of the two cards' per-SM figures: {r:.2f}" if r == r else "correlation: undefined")


if __name__ == "__main__":
    main()
