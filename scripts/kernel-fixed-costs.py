#!/usr/bin/env python3
"""A kernel-runs file's timed runs split as the model splits them (issue 31; docs/profile.md, "Short launches"): for
each deterministic run with a recorded trace, the timed time and the prediction, the recorded run's span (the main
kernel's first compute to its last reduction) and the engine's makespan, and the rest of the timed run (timed less the
recorded span: the fixed stages and the launch) against the profile's fixed costs. The trace's own stage times
(memset, pre, post) are printed beside it. The recorded run is another run than the timed one, so the rest also holds
their difference.
Usage: scripts/kernel-fixed-costs.py RUNS.json PREDICTIONS.json TRACE_DIR
  (PREDICTIONS: gpu/bwd/predict-shapes.py's file; TRACE_DIR holds dD/POLICY-MASK-sS-bB-hH-kvK-dD.json[.gz];
  standard library; exit 2 on bad input)"""
import gzip
import json
import os
import sys


def die(msg):
    print("kernel-fixed-costs: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
            return json.load(f)
    except (OSError, EOFError, ValueError) as e:
        die(f"{path}: {e}")


def main():
    if len(sys.argv) != 4:
        die("give RUNS.json PREDICTIONS.json TRACE_DIR")
    runs, pred, tdir = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
    tag = lambda s: f"{s['mask']}-s{s['seqlen']}-b{s['batch']}-h{s['heads']}-kv{s['kv_heads']}-d{s['head_dim']}"
    try:
        P = {(tag(p["shape"]), q["policy"]): (q["time_ns"], q["makespan_ns"], p["fixed_ns"])
             for p in pred["predictions"] for q in p["policies"]}
        recs = [(tag(r), r) for r in runs["records"] if r["mode"] == "deterministic" and "ms" in r]
    except (KeyError, TypeError, AttributeError) as e:
        die(f"{sys.argv[1]} or {sys.argv[2]}: not a kernel-runs file and its predictions ({e})")
    rows = []
    for t, r in recs:
        base = os.path.join(tdir, f"d{r['head_dim']}", f"{r['policy']}-{t}.json")
        path = base if os.path.exists(base) else base + ".gz"
        if (t, r["policy"]) not in P or not os.path.exists(path):
            continue
        try:
            m = load(path)["metadata"]
            span, stages = m["makespan_ns"], (m["memset_ns"], m["pre_ns"], m["post_ns"])
        except (KeyError, TypeError) as e:
            die(f"{path}: a gpu/bwd trace's metadata has makespan_ns, memset_ns, pre_ns and post_ns ({e})")
        timed = r["ms"] * 1e6
        pt, pm, pf = P[(t, r["policy"])]
        rows.append("%-30s %-16s %8.0f %8.0f | %8d %8d %+6.2f | %7.0f %7d %+6.0f | %6d %6d %6d" % (
            t[:30], r["policy"], timed, pt, span, pm, 100 * (pm / span - 1), timed - span, pf, pf - (timed - span),
            *stages))
    head = ("shape", "policy", "timed", "pred", "span", "engine", "span%", "rest", "fixed", "diff", "memset", "pre", "post")
    print("%-30s %-16s %8s %8s | %8s %8s %6s | %7s %7s %6s | %6s %6s %6s" % head)
    print("\n".join(rows))


main()
