#!/usr/bin/env python3
"""Per-level summary of gpu-calib --steady samples (steady-samples.tsv[.gz], docs/profile.md, "The steady-load
calibration"): for each tile, method and level (gap_ns >= 0: spin gap in ns; < 0: -compute_iters, the gap
computed), the samples, the median reductions in flight (averaged over each span), the median time by
globaltimer (end - start) and by clock64 (time_ns), p90 by globaltimer, and the bulk read point. Levels with
computed gaps are read by globaltimer: clock64 read early across the compute's end on some samples of the
calib7 runs (docs/profile.md). Standard library only.
Usage: summarize.py SAMPLES.tsv[.gz]"""
import collections
import gzip
import sys


def main(path):
    opener = gzip.open if path.endswith(".gz") else open
    by = collections.defaultdict(list)
    with opener(path, "rt") as f:
        header = next(f).rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for line in f:
            v = line.rstrip("\n").split("\t")
            key = (int(v[col["tile_m"]]), int(v[col["head_dim"]]), v[col["op"]], int(v[col["gap_ns"]]))
            start, end = int(v[col["start_ns"]]), int(v[col["end_ns"]])
            by[key].append((end - start, float(v[col["time_ns"]]), int(v[col["read_ns"]]) - start,
                            float(v[col["inflight_avg"]])))
    print("tile     op        level      samples  inflight  gtimer_med  clock_med  gtimer_p90  read_med")
    for key in sorted(by, key=lambda k: (k[0], k[1], k[2], k[3] >= 0, abs(k[3]))):
        rows = by[key]
        n = len(rows)
        med = lambda i, q=0.5: sorted(r[i] for r in rows)[int(q * (n - 1))]
        level = "iters %d" % -key[3] if key[3] < 0 else "gap %d" % key[3]
        print("%3dx%-4d %-9s %-11s %6d  %7.1f  %9d  %9.0f  %9d  %8d" % (key[0], key[1], key[2], level, n, med(3),
                                                                         med(0), med(1), med(0, 0.9), med(2)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
