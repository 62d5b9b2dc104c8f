#!/usr/bin/env python3
"""Where a kernel profile's makespan goes against a trace's, per SM (issue 31; docs/profile.md, "em128's
over-prediction, phase by phase"). Two subcommands, standard library only, run from the tree's root after make all:

  sums PROFILE TRACE...       per trace: its compute engine's time per SM split by phase (prologue, first compute of a
                              run, the other computes with the loop gap, deposit, dK/dV write, between CTAs, the tail
                              after the last compute-engine op), mean over SMs in us, trace / engine (bin/sim --csv on
                              the trace's shape, policy and PROFILE); then the CTA drain: a CTA's last op end less its
                              last compute-engine op end (its last reductions after its dK/dV write), mean and median
  write-extra PROFILE TRACE... per trace: the reductions that start inside their block's dK/dV write, their time less the
                              same kind alone (PROFILE's read + tail, waited or not), median by the other SMs' writes in
                              flight at their start (bins of 16); then the least-squares line over all traces (what
                              `sim calibrate --kernel --write-extra-slope` fits)

Usage: scripts/kernel-phase-sums.py sums|write-extra PROFILE TRACE... [--sim bin/sim]"""
import collections
import csv
import gzip
import json
import os
import statistics as st
import subprocess
import sys
import tempfile

SIM = "bin/sim"
PHASES = ("prologue", "c-first", "c-rest", "deposit", "kv-write", "between", "tail", "end")


def die(msg):
    sys.stderr.write("kernel-phase-sums: " + msg + "\n")
    sys.exit(2)


def load(path):
    try:
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
            d = json.load(f)
        return d["metadata"], [dict(zip(d["columns"], r)) for r in d["tasks"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        die("%s is not a kernel trace with phase stamps: %s" % (path, e))


def load_tiles(profile):
    try:
        with open(profile) as f:
            return {t["head_dim"]: t for t in json.load(f)["tiles"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        die("%s is not a kernel profile: %s" % (profile, e))


def blocks_by_sm(rows):
    blocks = collections.defaultdict(list)
    for r in rows:
        blocks[(r["smid"], r["b_entry"])].append(r)
    by_sm = collections.defaultdict(list)
    for (sm, entry), ts in blocks.items():
        by_sm[sm].append((entry, sorted(ts, key=lambda r: r["c_start"])))
    return {sm: sorted(v, key=lambda b: b[0]) for sm, v in by_sm.items()}


def trace_sums(rows):
    """The trace's per-SM phase sums (us, mean over SMs) and its CTA drains (ns)."""
    t0, s, drains = min(r["c_start"] for r in rows), collections.defaultdict(float), []
    by_sm = blocks_by_sm(rows)
    for bl in by_sm.values():
        prev = None
        for entry, ts in bl:
            s["between"] += entry - prev if prev is not None else 0
            s["prologue"] += ts[0]["c_start"] - entry
            for i, x in enumerate(ts):
                first = i == 0 or (ts[i - 1]["head"], ts[i - 1]["kv"]) != (x["head"], x["kv"])
                gap = ts[i + 1]["c_start"] - max(x["s_end"], x["k_end"]) if i + 1 < len(ts) else 0
                s["c-first" if first else "c-rest"] += x["c_end"] - x["c_start"] + gap
                s["deposit"] += x["s_end"] - x["c_end"]
                s["kv-write"] += max(0, x["k_end"] - x["s_end"])
            prev = max(max(x["s_end"], x["k_end"]) for x in ts)
            drains.append(max(max(x["r_end"], x["k_end"]) for x in ts) - prev)
        last = max(max(x["r_end"], x["k_end"]) for _, ts in bl for x in ts)
        s["tail"] += last - prev
        s["end"] += last - t0
    return {k: v / len(by_sm) / 1e3 for k, v in s.items()}, drains


def engine_csv(m, profile):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "m.csv")
        r = subprocess.run([SIM, "--seqlen", str(m["seqlen"]), "--heads", str(m["heads_per_batch"]), "--kv-heads",
                            str(m["kv_heads"]), "--batch", str(m["batch"]), "--head-dim", str(m["head_dim"]), "--mask",
                            m["mask"], "--policy", m["policy"], "--hardware", "h200-sxm", "--kernel", profile, "--csv",
                            out], capture_output=True, text=True)
        if r.returncode:
            die("%s could not model the trace's shape: %s" % (SIM, r.stderr.strip()))
        with open(out) as f:
            return list(csv.DictReader(f))


def engine_sums(ops):
    """The engine's per-SM phase sums (us, mean over SMs) and its CTA drains (ns), from its --csv rows."""
    by_sm, s, cta_end = collections.defaultdict(list), collections.defaultdict(float), collections.defaultdict(lambda: [0, 0])
    for r in ops:
        by_sm[r["sm"]].append(r)
        e = cta_end[r["cta"]]
        e[1] = max(e[1], int(r["end_ns"]))
        if r["engine"] == "0":
            e[0] = max(e[0], int(r["end_ns"]))
    for v in by_sm.values():
        t, seen = None, set()
        for r in sorted((r for r in v if r["engine"] == "0"), key=lambda r: int(r["start_ns"])):
            start, end, ph = int(r["start_ns"]), int(r["end_ns"]), r["phase"]
            if t is not None and start > t and ph == "prologue":
                s["between"] += start - t
            if ph == "compute":
                key = (r["cta"], r["head"], r["kv"])
                ph = "c-rest" if key in seen else "c-first"
                seen.add(key)
            s[ph] += end - start
            t = end
        last = max(int(r["end_ns"]) for r in v)
        s["tail"] += last - t
        s["end"] += last
    return {k: x / len(by_sm) / 1e3 for k, x in s.items()}, [b - a for a, b in cta_end.values()]


def sums(profile, paths):
    for path in paths:
        m, rows = load(path)
        (ts, td), (es, ed) = trace_sums(rows), engine_sums(engine_csv(m, profile))
        print(f"{os.path.basename(path)}: per SM, us, trace / engine")
        print("  " + "  ".join(f"{k} {ts.get(k, 0):.1f} / {es.get(k, 0):.1f}" for k in PHASES))
        print(f"  CTA drain (last op end - last compute-engine op end), ns: trace mean {st.mean(td):.0f} median "
              f"{st.median(td):.0f}; engine mean {st.mean(ed):.0f} median {st.median(ed):.0f}")


def inside_excess(rows, alone, alone_waited):
    """(other SMs' writes in flight, excess) for each reduction that starts inside its block's dK/dV write."""
    writes = [(x["s_end"], x["k_end"], x["smid"]) for x in rows if x["k_end"] > x["s_end"]]
    mine = collections.defaultdict(list)
    for x in rows:
        if x["k_end"] > x["s_end"]:
            mine[(x["smid"], x["b_entry"])].append((x["s_end"], x["k_end"]))
    by_row, pts = collections.defaultdict(dict), []
    for r in rows:
        by_row[(r["head"], r["q"])][r["rank"]] = r
    for row in by_row.values():
        for k, x in row.items():
            waited = k - 1 in row and x["r_ready"] < row[k - 1]["r_end"]
            if any(s <= x["r_start"] < e for s, e in mine[(x["smid"], x["b_entry"])]):
                n = sum(s <= x["r_start"] < e and sm != x["smid"] for s, e, sm in writes)
                pts.append((n, x["r_end"] - x["r_start"] - (alone_waited if waited else alone)))
    return pts


def write_extra(profile, paths):
    tiles, pts, medians = load_tiles(profile), [], set()
    for path in paths:
        meta, tasks = load(path)
        tile = tiles.get(meta.get("head_dim")) or die("%s has no tile of head dim %s" % (profile, meta.get("head_dim")))
        alone = tile["reduce_read_ns"] + tile["reduce_tail_ns"]
        alone_waited = tile["reduce_read_waited_ns"] + tile["reduce_tail_waited_ns"] or alone
        medians.add(tile["overlap"]["write_extra_ns"])
        bins = collections.defaultdict(list)
        for n, x in inside_excess(tasks, alone, alone_waited):
            bins[n // 16].append(x)
            pts.append((n, x))
        print(f"{os.path.basename(path)}: " + " ".join(f"{b * 16}-{b * 16 + 15}: {st.median(v):.0f} (n {len(v)})"
                                                      for b, v in sorted(bins.items())))
    if not pts:
        die("no reduction of these traces started inside its block's dK/dV write")
    mx, my = st.mean(p[0] for p in pts), st.mean(p[1] for p in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    slope = max(sum((x - mx) * (y - my) for x, y in pts) / den, 0) if den else 0
    print(f"all: {len(pts)} reductions, {my - slope * mx:.0f} ns + {slope:.1f} ns per other write in flight "
          f"(least squares; the profile's one median: {'/'.join(str(m) for m in sorted(medians))} ns)")


def main(argv):
    global SIM
    if "--sim" in argv:
        i = argv.index("--sim")
        SIM = argv[i + 1] if i + 1 < len(argv) else die("--sim needs a path")
        del argv[i:i + 2]
    if len(argv) < 3 or argv[0] not in ("sums", "write-extra"):
        sys.stderr.write("usage: scripts/kernel-phase-sums.py sums|write-extra PROFILE TRACE... [--sim bin/sim]\n")
        return 2
    (sums if argv[0] == "sums" else write_extra)(argv[1], argv[2:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
