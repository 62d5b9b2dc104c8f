#!/usr/bin/env python3
"""The first compute at launch in gpu/bwd traces (issue 31; docs/profile.md, "Short launches"): per trace, the launch's
CTA count and, over the blocks of the first wave (entered within 2 us of the first), the median of a block's entry to
its first compute's end, split into the prologue (entry to the compute's start) and the compute, with its clock64
cycles; then the median over later blocks of the same (a freed SM's first compute) and of every other compute.
Blocks and the reading of traces are scripts/kernel-startup.py's.
Usage: scripts/kernel-first-compute.py TRACE...   (standard library; exit 2 on bad input)"""
import importlib.util
import os
import statistics as st
import sys

spec = importlib.util.spec_from_file_location("ks", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                 "kernel-startup.py"))
KS = importlib.util.module_from_spec(spec)
spec.loader.exec_module(KS)


def row(path, tasks):
    blocks = [b for bs in KS.blocks_by_sm(tasks).values() for b in bs]
    w0 = min(b[0]["b_entry"] for b in blocks)
    first, pro, comp, cyc, later, rest = [], [], [], [], [], []
    for b in blocks:
        t0 = b[0]
        if t0["b_entry"] - w0 < 2000:
            first.append(t0["c_end"] - t0["b_entry"])
            pro.append(t0["c_start"] - t0["b_entry"])
            comp.append(t0["c_end"] - t0["c_start"])
            cyc.append(t0["c_cycles"])
        else:
            later.append(t0["c_end"] - t0["b_entry"])
        rest += [x["c_end"] - x["c_start"] for x in b[1:]]
    med = lambda x: "%6.0f" % st.median(x) if x else "     -"
    return "%-58s %5d | %22s %8s %6s %7s | %18s | %12s" % (
        os.path.basename(path)[:58], len(blocks), med(first), med(pro), med(comp), med(cyc), med(later), med(rest))


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("kernel-first-compute: give one or more gpu/bwd traces (.json or .json.gz)\n")
        sys.exit(2)
    rows = []
    for path in sys.argv[1:]:  # every trace read before anything is printed
        _, tasks = KS.load(path, "kernel-first-compute")
        try:
            rows.append(row(path, tasks))
        except (KeyError, TypeError, ValueError) as e:
            sys.stderr.write(f"kernel-first-compute: {path}: not a gpu/bwd trace with b_entry, c_start, c_end and "
                             f"c_cycles ({e})\n")
            sys.exit(2)
    print("%-58s %5s | first wave: %6s %8s %6s %7s | later blocks %6s | others %6s" % (
        "trace", "ctas", "entry->end", "prologue", "c", "cycles", "first", "c"))
    print("\n".join(rows))


main()
