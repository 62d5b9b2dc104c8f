#!/usr/bin/env python3
"""The same kernel at the same shapes, timed twice (two device calls, so two cards; issue 31): pairs the deterministic
records of runs files (gpu/bwd/shapes.py's "dashsim-kernel-runs") by shape and policy, or, for two folders of traces,
the traces of the same file name by their metadata's makespan_ns, and prints, per pair and over all, the ratio of the
second's time to the first's: median of |ratio - 1|, its max, the signed median.
Standard library only. Usage: compare-runs.py FIRST SECOND [FIRST SECOND ...] (runs files or trace folders)"""
import gzip
import json
import os
import statistics as st
import sys


def trace_times(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith((".json", ".json.gz")):
            path = os.path.join(folder, name)
            try:
                with (gzip.open(path, "rt") if name.endswith(".gz") else open(path)) as f:
                    out[name.split(".json")[0]] = json.load(f)["metadata"]["makespan_ns"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                die("%s is not a trace with metadata makespan_ns: %s" % (path, e))
    return out


def times(path):
    if os.path.isdir(path):
        return trace_times(path)
    out = {}
    try:
        records = json.load(open(path))["records"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        die("%s is not a runs file (gpu/bwd/shapes.py's records): %s" % (path, e))
    for r in records:
        if r.get("backend") == "dashsim" and r.get("mode") == "deterministic" and "ms" in r:
            out[(r["mask"], r["seqlen"], r["batch"], r["heads"], r["kv_heads"], r["head_dim"], r["policy"])] = r["ms"]
    return out


def line(name, ratios):
    a = [abs(x) for x in ratios]
    print("%-60s n %3d  |ratio - 1| median %.2f%%, max %.2f%%; signed median %+.2f%%" % (
        name, len(ratios), 100 * st.median(a), 100 * max(a), 100 * st.median(ratios)))


def die(msg):
    print("compare-runs: " + msg, file=sys.stderr)
    sys.exit(2)


def main():
    args = sys.argv[1:]
    if len(args) < 2 or len(args) % 2:
        die("give pairs of runs files, FIRST SECOND ... (see the header of scripts/compare-runs.py)")
    every = []
    for first, second in zip(args[::2], args[1::2]):
        a, b = times(first), times(second)
        ratios = [b[k] / a[k] - 1 for k in sorted(a) if k in b]
        if not ratios:
            die("%s and %s share no run" % (first, second))
        line("%s -> %s" % (first.split("/")[-1], second.split("/")[-1]), ratios)
        every += ratios
    line("all", every)


if __name__ == "__main__":
    main()
