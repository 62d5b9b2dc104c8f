#!/usr/bin/env python3
"""Phase tables of gpu/bwd traces (docs/kernel.md): per trace, the median of each phase by task kind, and the
compute's cycles by when the SM's previous bulk reduction started relative to the compute's start (the
overlap that slows it). A research aid beside `bin/sim calibrate --kernel`, which fits the kernel profile.
Usage: phases.py TRACE.json[.gz] ..."""
import collections, gzip, json, statistics, sys


def load(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        d = json.load(f)
    return d["metadata"], [dict(zip(d["columns"], r)) for r in d["tasks"]]


def med(v):
    return statistics.median(v) if v else float("nan")


def tables(path, window=500):
    m, rows = load(path)
    causal, ratio = m["mask"] == "causal", m.get("tile_ratio", 1)
    blocks = collections.defaultdict(list)
    for r in rows:  # one GPU block: its SM and entry stamp
        blocks[(r["smid"], r["b_entry"])].append(r)
    k, offsets = collections.defaultdict(list), collections.defaultdict(list)
    for ts in blocks.values():
        ts.sort(key=lambda r: r["c_start"])
        k["prologue"].append(ts[0]["c_start"] - ts[0]["b_entry"])
        for i, r in enumerate(ts):
            p = ts[i - 1] if i else None
            first = p is None or (p["head"], p["kv"]) != (r["head"], r["kv"])
            diag = causal and r["q"] // ratio == r["kv"]
            overlap = p is not None and -window <= p["r_start"] - r["c_start"] < window
            kind = ("first" if first else "interior") + ("+diag" if diag else "") + ("+overlap" if overlap else "")
            k["compute " + kind].append(r["c_end"] - r["c_start"])
            if "c_cycles" in r:
                k["cycles " + kind].append(r["c_cycles"])
                if p is not None and not first and not diag:
                    offsets[(p["r_start"] - r["c_start"]) // window].append(r["c_cycles"])
            k["deposit"].append(r["s_end"] - r["c_end"])
            if r["k_end"] > r["s_end"]:
                k["dK/dV write"].append(r["k_end"] - r["s_end"])
            if i + 1 < len(ts) and r["k_end"] == r["s_end"]:
                k["loop gap"].append(ts[i + 1]["c_start"] - r["k_end"])
            k["semaphore wait"].append(r["r_start"] - r["r_ready"])
            k["reduce read"].append(r["r_read"] - r["r_start"])
            k["reduce tail"].append(r["r_end"] - r["r_read"])
    return m, k, offsets


def main():
    for path in sys.argv[1:]:
        m, k, offsets = tables(path)
        print(f"{path}: {m['policy']} {m['mask']} {m.get('mode', '')}, makespan {m['makespan_ns']} ns")
        for name, v in sorted(k.items()):
            print(f"  {name:28s} n={len(v):7d} median {med(v):8.0f}")
        for b, v in sorted(offsets.items()):
            if len(v) >= 10:
                print(f"  previous reduction starts {b * 500:+6d}..{b * 500 + 500:+6d} ns from c_start: n={len(v):6d} "
                      f"cycles {med(v):.0f}")


if __name__ == "__main__":
    main()
