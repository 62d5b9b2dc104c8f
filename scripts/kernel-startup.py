#!/usr/bin/env python3
"""A kernel trace's per-CTA start-up and tail, the terms a short run pays more of (docs/profile.md, "The CTA turnover").

For each phase-stamped gpu/bwd trace (.json or .json.gz) it prints, as medians over the trace's GPU blocks (the tasks
of one smid and b_entry) or tasks:
  prologue   a block's entry -> its first compute start (the profile's cta_prologue_ns)
  exit       a block's last op end (reduction or dK/dV write) -> its exit
  entry      a block's exit -> the next block's entry on the same SM
  turnover   a block's last op end -> the next block's entry on the same SM (the profile's cta_gap_ns, with
             `sim calibrate --kernel --cta-gap`); "-" for a persistent kernel's single block an SM
  switch     a persistent block's next run: the previous run's dK/dV write end -> its first compute start
  ramp       interior computes (not a run's first, not on the diagonal) starting in the first 16 us of the
             kernel against the later ones, means in ns
  tail       the last SM's end less the median SM's end, and the last dK/dV write's end less the last
             reduction's end (above 0: the traced span, which ends at the last reduction, misses it)
Usage: scripts/kernel-startup.py TRACE... (standard library only).
"""
import gzip
import json
import os
import statistics as st
import sys
from collections import defaultdict


def load(path, who="kernel-startup"):
    try:
        with (gzip.open(path) if path.endswith(".gz") else open(path)) as f:
            t = json.load(f)
        return t["metadata"], [dict(zip(t["columns"], row)) for row in t["tasks"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write("%s: %s is not a kernel trace with phase stamps: %s\n" % (who, path, e))
        sys.exit(2)


def med(v):
    return "%6d" % st.median(v) if v else "     -"


def blocks_by_sm(tasks):
    """Each SM's blocks in entry order, each block's tasks in compute order."""
    blocks = defaultdict(list)
    for x in tasks:
        blocks[(x["smid"], x["b_entry"])].append(x)
    by_sm = defaultdict(list)
    for (sm, _), b in sorted(blocks.items()):
        b.sort(key=lambda x: x["c_start"])
        by_sm[sm].append(b)
    return by_sm


def block_terms(by_sm):
    pro, ext, ent, turn, switch = [], [], [], [], []
    for bs in by_sm.values():
        prev = None
        for b in bs:
            end = max(max(x["r_end"], x["k_end"]) for x in b)
            pro.append(b[0]["c_start"] - b[0]["b_entry"])
            ext.append(b[0]["b_exit"] - end)
            if prev:
                ent.append(b[0]["b_entry"] - prev[0]["b_exit"])
                turn.append(b[0]["b_entry"] - max(max(x["r_end"], x["k_end"]) for x in prev))
            for p, x in zip(b, b[1:]):
                if (p["head"], p["kv"]) != (x["head"], x["kv"]):
                    switch.append(x["c_start"] - p["k_end"])
            prev = b
    return pro, ext, ent, turn, switch


def ramp(meta, by_sm, start, early_ns=16000):
    causal, ratio = meta["mask"] == "causal", meta.get("tile_ratio", 1)
    early, late = [], []
    for bs in by_sm.values():
        for b in bs:
            for p, x in zip(b, b[1:]):
                if (p["head"], p["kv"]) != (x["head"], x["kv"]) or (causal and x["q"] // ratio == x["kv"]):
                    continue
                (early if x["c_start"] - start < early_ns else late).append(x["c_end"] - x["c_start"])
    return (st.mean(early) if early else 0), (st.mean(late) if late else 0)


def main(paths):
    traces = [(p, load(p)) for p in paths]  # every trace read before any line is printed
    print("%-52s %6s %6s %6s %6s %6s  %-11s %s" % ("trace", "prolog", "exit", "entry", "turnov", "switch",
                                                   "ramp 16us", "tail: last-median SM, write-reduction"))
    for path, (meta, tasks) in traces:
        by_sm = blocks_by_sm(tasks)
        pro, ext, ent, turn, switch = block_terms(by_sm)
        start = min(x["c_start"] for x in tasks)
        early, late = ramp(meta, by_sm, start)
        ends = sorted(max(max(x["r_end"], x["k_end"]) for b in bs for x in b) for bs in by_sm.values())
        last_r = max(x["r_end"] for x in tasks)
        last_w = max((x["k_end"] for x in tasks if x["k_end"] > x["s_end"]), default=last_r)
        name = os.path.basename(path).split(".json")[0]
        print("%-52s %s %s %s %s %s  %4.0f/%4.0f   %6d %6d" % (name, med(pro), med(ext), med(ent), med(turn), med(switch),
                                                            early, late, ends[-1] - ends[len(ends) // 2],
                                                            last_w - last_r))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if len(sys.argv) < 2:
        sys.stderr.write("kernel-startup: give TRACE... (see scripts/kernel-startup.py --help)\n")
        sys.exit(2)
    main(sys.argv[1:])
