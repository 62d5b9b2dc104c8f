#!/usr/bin/env python3
"""Would a per-SM reduction table from a calibration predict the executor's traces? (issue 31 item 4; docs/profile.md,
"The per-SM ring calibration"). A measurement and a prototype, not the model.

The calibration (traces/h200-calib/per-sm, call 42) runs the executor's lock-step ring itself: shift over 132 KV
tiles and 132 Q rows, one head (one wave of 132 CTAs), c:r 0.3, every SM adding into every row in turn; three
separate runs each of the ldst-warp add (async and serial) and the bulk add. Each SM's factor is the median over
those runs of its median add (r_end - r_start) over its run's median add.

For each trace given it prints:
  corr     the correlation over SMs of the trace's own per-SM factors with the calibration's (same op)
  med      a max-plus replay of the trace's own dependency structure with the run's medians (the executor
           attribution's "spread" step: scripts/attribute-executor.py), against the run's makespan
  cal      the same replay with each task's add = the run's median add x the calibration's factor of its SM
  own      the same replay with the run's own per-SM medians (what a perfect per-SM table would give)
Usage: scripts/experiments/per-sm-ring.py CALIB_DIR TRACE...   (standard library; exit 2 on bad input)"""
import glob
import importlib.util
import os
import statistics as st
import sys


def script(name):
    """A sibling script of scripts/ as a module (its main runs only as a program)."""
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EPS = script("executor-per-sm")  # its per-SM factors and correlation


def die(msg):
    EPS.die(msg, "per-sm-ring")


def per_sm(path):
    return EPS.trace_factors(path, "per-sm-ring")


def main():
    if len(sys.argv) < 3:
        die("give the calibration folder and one or more executor traces")
    ae = script("attribute-executor")
    traces = []
    for path in sys.argv[2:]:  # every trace read and structured before anything is printed
        own, md = per_sm(path)
        if md.get("reduce_op") not in ("ldst", "bulk"):
            die(f"{path}: reduce_op {md.get('reduce_op')!r}: the calibration has ldst and bulk")
        try:
            meta, tasks = ae.load_trace(path)
            traces.append((path, own, md["reduce_op"], meta, tasks, ae.structure(meta, tasks)))
        except (KeyError, TypeError, ValueError) as e:
            die(f"{path}: not an executor trace with the attribution's columns ({e})")
    cal, lines = {}, []
    for op in sorted({t[2] for t in traces}):  # the methods the traces use
        files = sorted(glob.glob(os.path.join(sys.argv[1], f"ring-{op}-async-rep*.json.gz")))
        if len(files) < 2:
            die(f"{sys.argv[1]}: no ring-{op}-async-rep*.json.gz pair (the per-SM ring calibration needs 2 or more runs, "
                f"found {len(files)})")
        runs = [per_sm(f)[0] for f in files]
        cal[op] = {s: st.median(r[s] for r in runs if s in r) for s in runs[0]}
        v = sorted(cal[op].values())
        slow = sorted(cal[op], key=lambda s: -cal[op][s])[:6]
        lines.append(f"calibration {op}: {len(files)} runs, slowest SM {v[-1]:.3f}x the median SM, fastest "
                     f"{v[0]:.3f}x; slowest SMs {slow}; run-to-run correlation {EPS.correlation(runs[0], runs[1]):.2f}")
    print("\n".join(lines))
    print("%-58s %-4s %6s | replay against the run: %7s %7s %7s" % ("trace", "op", "corr", "med", "cal", "own"))
    for path, own, op, md, tasks, s in traces:
        meas = md["makespan_ns"]
        madd = st.median(p["add"] for p in s[2].values())
        adds = {id(t): madd * cal[op].get(t["smid"], 1.0) for t in tasks}
        med, calr, smr = (ae.replay(md, tasks, s, "med"), ae.replay(md, tasks, s, "add", adds=adds),
                          ae.replay(md, tasks, s, "sm"))
        print("%-58s %-4s %+6.2f | %25s %+6.2f%% %+6.2f%% %+6.2f%%" % (
            os.path.basename(path)[:58], op, EPS.correlation(cal[op], own), "", 100 * (med / meas - 1),
            100 * (calr / meas - 1), 100 * (smr / meas - 1)))


main()
