#!/usr/bin/env python3
"""The overlap penalty within each trace (docs/profile.md, "The overlap penalty within a trace"): per trace, its
interior computes not cut by the causal diagonal (c_end - c_start, a CTA's first task left out), split by whether the
SM's previous reduction started from BEFORE ns before to AFTER ns after the compute's start; the count, median and
mean of each group and the difference of the means. Then the median of those differences over the traces.
Usage: scripts/overlap-within.py BEFORE AFTER TRACE.json.gz... (standard library only; exit 2 on bad input)"""
import collections
import gzip
import json
import statistics as st
import sys


def die(msg):
    print(f"overlap-within: {msg}", file=sys.stderr)
    sys.exit(2)


def groups(path, before, after):
    try:
        d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
        c = d["columns"]
        ix = {k: c.index(k) for k in ("smid", "b_entry", "c_start", "c_end", "r_start", "q", "kv")}
        meta = d["metadata"]
        tile_m, tile_n = int(meta.get("tile_m", 64)), int(meta.get("tile_n", 128))
    except (OSError, EOFError, ValueError, KeyError) as e:
        die(f"{path}: not a kernel trace with phase stamps ({e})")
    causal = meta.get("mask") == "causal"
    blocks = collections.defaultdict(list)
    for t in d["tasks"]:
        blocks[(t[ix["smid"]], t[ix["b_entry"]])].append(t)
    g = ([], [])
    for b in blocks.values():
        b.sort(key=lambda t: t[ix["c_start"]])
        for p, x in zip(b, b[1:]):
            if causal and x[ix["q"]] * tile_m < (x[ix["kv"]] + 1) * tile_n:
                continue  # cut by the diagonal
            off = p[ix["r_start"]] - x[ix["c_start"]]
            g[-before <= off < after].append(x[ix["c_end"]] - x[ix["c_start"]])
    return g


def main():
    if len(sys.argv) < 4:
        die("give BEFORE AFTER and one or more traces")
    try:
        before, after = int(sys.argv[1]), int(sys.argv[2])
    except ValueError:
        die("BEFORE and AFTER are ns (integers)")
    diffs = []
    for path in sys.argv[3:]:
        out, ins = groups(path, before, after)
        if not out or not ins:
            print(f"{path}: {len(ins)} inside, {len(out)} outside: no difference")
            continue
        diff = st.mean(ins) - st.mean(out)
        diffs.append(diff)
        print(f"{path.split('/')[-1]}: inside {len(ins)}, median {st.median(ins):.0f}, mean {st.mean(ins):.1f}; "
              f"outside {len(out)}, median {st.median(out):.0f}, mean {st.mean(out):.1f}; difference of means {diff:+.1f} ns")
    if diffs:
        print(f"{len(diffs)} traces: differences of means {min(diffs):+.1f} to {max(diffs):+.1f} ns, median {st.median(diffs):+.1f}")


main()
