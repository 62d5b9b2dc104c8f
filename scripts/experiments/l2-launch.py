#!/usr/bin/env python3
"""The launch's first compute with the inputs in L2 or not, as a rule in the kernel profile: a prototype, not the model
(issue 31; docs/profile.md, "Short launches"; traces/kernel-wg-h200/l2-launch/README.md).

From call 45's sweep (first-compute-d64.txt and -d128.txt there: `scripts/kernel-first-compute.py` on its traces), per
head dim: the launch's first-compute extra (its compute less the trace's interior compute) after an L2 flush, by the
number of CTAs in the first wave (cold(n)), and how much lower it is right after a backward of the same shape while the
backward's working set W (Q, K, V, O, dO, dQ, dK, dV in bf16, dQaccum in fp32) is at most HOT MB (delta). Each shape of a
runs file is predicted twice by `bin/sim --seqlen ... --kernel --json`: with the profile's launch extra, and with
min(profile's, cold(n) - f(W) delta), f 1 up to HOT MB, 0 from COLD MB, linear between (n: the shape's KV tiles, at most
132). Prints issue 31's summary both ways for each runs file.
Usage: scripts/experiments/l2-launch.py [--hot MB] [--cold MB] RUNS.json...   (defaults 30 and 60; run from the root)"""
import argparse
import bisect
import importlib.util
import json
import os
import re
import statistics as st
import sys
import tempfile

spec = importlib.util.spec_from_file_location("kc", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                                 "kernel-clock.py"))
KC = importlib.util.module_from_spec(spec)  # its shape_json: bin/sim's answer at a run's shape
spec.loader.exec_module(KC)

SWEEP = "traces/kernel-wg-h200/l2-launch"
KEYS = ("mask", "seqlen", "batch", "heads", "kv_heads", "head_dim")
PROFILE = "configs/kernels/gpu-bwd-wgmma-h200.json"


def die(msg):
    print("l2-launch: " + msg, file=sys.stderr)
    sys.exit(2)


def sweep(d):
    """[(n first-wave CTAs, W MB, plain extra, flush extra)] of the sweep at head dim d (medians over trials)."""
    pts = {}
    path = os.path.join(SWEEP, f"first-compute-d{d}.txt")
    try:
        for line in open(path):
            m = re.match(r"s(\d+)-h(\d+)-(plain|flush)-\d\S*\s+(\d+)\s*\|\s*\d+\s+\d+\s+(\d+)\s+\d+\s*\|.*\|\s*(\d+)$", line)
            if m:
                s, h, mode, ctas, c, inner = m.groups()
                p = pts.setdefault((int(s), int(h)), dict(n=min(int(ctas), 132), plain=[], flush=[]))
                p[mode].append(int(c) - int(inner))
    except OSError as e:
        die(f"{path}: {e}")
    if not pts:
        die(f"{path}: no sweep rows")
    return [(p["n"], s * h * d * 20 / 2**20, st.median(p["plain"]), st.median(p["flush"]))
            for (s, h), p in sorted(pts.items())]


def interp(xs, ys, x):
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    i = bisect.bisect_right(xs, x)
    return ys[i - 1] + (ys[i] - ys[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hot", type=float, default=30)
    ap.add_argument("--cold", type=float, default=60)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    if not 0 < a.hot < a.cold:
        die("--hot and --cold are MB with 0 < hot < cold")
    files = []
    for f in a.runs:  # every runs file read, and its shapes taken, before anything is printed
        try:
            recs = [r for r in json.load(open(f))["records"] if r["mode"] == "deterministic" and "ms" in r]
            files.append((f, [(tuple(r[x] for x in KEYS), r["policy"], r["ms"] * 1e6) for r in recs]))
            if not recs or any(r["head_dim"] not in (64, 128) for r in recs):
                die(f"{f}: no timed deterministic runs, or a head dim the sweep has not (64 and 128)")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            die(f"{f}: not a kernel-runs file ({e})")
    rules = {}
    for d in (64, 128):
        pts = sweep(d)
        by = {}
        for n, w, plain, flush in pts:
            by.setdefault(n, []).append(flush)
        ns = sorted(by)
        delta = st.median(flush - plain for n, w, plain, flush in pts if w <= a.hot)
        rules[d] = (ns, [st.median(by[n]) for n in ns], delta)
        print(f"d {d}: cold extra by first-wave CTAs {dict(zip(ns, rules[d][1]))}, hot delta {delta:.0f} ns")
    base = json.load(open(PROFILE))
    tmp = tempfile.mkdtemp()
    cache = {}

    def predict(sh, extra):
        """Each policy's predicted time at the shape with the head dim's launch extra set to extra."""
        path = os.path.join(tmp, "d%d-%d.json" % (sh["head_dim"], extra))
        if not os.path.exists(path):
            k = json.loads(json.dumps(base))
            for t in k["tiles"]:
                if t["head_dim"] == sh["head_dim"]:
                    t["launch_extra_ns"] = extra
            json.dump(k, open(path, "w"))
        return {p["policy"]: p["time_ns"] for p in KC.shape_json(path, sh)["policies"]}

    for f, recs in files:
        shapes = {}
        for key, pol, ns_measured in recs:
            shapes.setdefault(key, {})[pol] = ns_measured
        e0, e1, s0, s1, changed = [], [], [], [], 0
        for key, m in shapes.items():
            sh = dict(zip(KEYS, key))
            s, b, h, kv, d = key[1:]
            ns, cold, delta = rules[d]
            w = s * b * d * (8 * h + 8 * kv + 4 * h) / 2**20
            f_hot = 1 if w <= a.hot else 0 if w >= a.cold else (a.cold - w) / (a.cold - a.hot)
            k0 = next(t["launch_extra_ns"] for t in base["tiles"] if t["head_dim"] == d)
            k1 = min(k0, int(round(interp(ns, cold, min(b * h * (s // 128), 132)) - f_hot * delta)))
            changed += k1 != k0
            p0, p1 = predict(sh, k0), predict(sh, k1)
            for pol, ms in m.items():
                e0.append(abs(p0[pol] / ms - 1))
                e1.append(abs(p1[pol] / ms - 1))
                if pol != "fa3" and "fa3" in m:
                    s0.append(abs(100 * (p0["fa3"] / p0[pol] - m["fa3"] / ms)))
                    s1.append(abs(100 * (p1["fa3"] / p1[pol] - m["fa3"] / ms)))
        print("%-44s shapes changed %2d of %2d: time %.2f / %.2f%% -> %.2f / %.2f%%, speedup %.2f / %.2f -> %.2f / %.2f pp"
              % (os.path.basename(f)[:44], changed, len(shapes), 100 * st.median(e0), 100 * max(e0),
                 100 * st.median(e1), 100 * max(e1), st.median(s0), max(s0), st.median(s1), max(s1)))

main()
