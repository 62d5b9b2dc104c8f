#!/usr/bin/env python3
"""The first compute at launch in gpu/bwd traces (issue 31; docs/profile.md, "Short launches"): per trace, the launch's
CTA count and, over the blocks of the first wave (entered within 2 us of the first), the median of a block's entry to
its first compute's end, split into the prologue (entry to the compute's start) and the compute, with its clock64
cycles; then the median over later blocks of the same (a freed SM's first compute) and of every other compute.
Usage: scripts/kernel-first-compute.py TRACE...   (standard library; exit 2 on bad input)"""
import gzip
import json
import os
import statistics as st
import sys


def die(msg):
    print("kernel-first-compute: " + msg, file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) < 2:
        die("give one or more gpu/bwd traces (.json or .json.gz)")
    rows = []
    for path in sys.argv[1:]:
        try:
            with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
                d = json.load(f)
            c = d["columns"]
            ix = {k: c.index(k) for k in ("cta", "c_start", "c_end", "b_entry", "c_cycles")}
            by = {}
            for t in d["tasks"]:
                by.setdefault(t[ix["cta"]], []).append(t)
            w0 = min(v[0][ix["b_entry"]] for v in by.values())
            first, pro, comp, cyc, later, rest = [], [], [], [], [], []
            for v in by.values():
                v.sort(key=lambda t: t[ix["c_start"]])
                t0 = v[0]
                span = t0[ix["c_end"]] - t0[ix["b_entry"]]
                if t0[ix["b_entry"]] - w0 < 2000:
                    first.append(span)
                    pro.append(t0[ix["c_start"]] - t0[ix["b_entry"]])
                    comp.append(t0[ix["c_end"]] - t0[ix["c_start"]])
                    cyc.append(t0[ix["c_cycles"]])
                else:
                    later.append(span)
                rest += [t[ix["c_end"]] - t[ix["c_start"]] for t in v[1:]]
        except (OSError, EOFError, ValueError, KeyError, TypeError, IndexError) as e:
            die(f"{path}: not a gpu/bwd trace with cta, c_start, c_end, b_entry and c_cycles ({e})")
        med = lambda x: "%6.0f" % st.median(x) if x else "     -"
        rows.append("%-58s %5d | %22s %8s %6s %7s | %18s | %12s" % (
            os.path.basename(path)[:58], len(by), med(first), med(pro), med(comp), med(cyc), med(later), med(rest)))
    print("%-58s %5s | first wave: %6s %8s %6s %7s | later blocks %6s | others %6s" % (
        "trace", "ctas", "entry->end", "prologue", "c", "cycles", "first", "c"))
    print("\n".join(rows))


main()
