#!/usr/bin/env python3
"""The SM clock of the Hopper kernel's traces against the schedule's load (issue 31, docs/profile.md "The SM clock
under load" and "The clock dip at launch"). Four subcommands, standard library only:

  fit PROFILE TRACE...      per trace: the busy fraction u = tasks x the tile's compute_ns / (SMs x span) and the
                            clock f = sum of c_cycles / sum of (c_end - c_start) (clock64 against %globaltimer over
                            its tasks); per head dim the least-squares line f = a + b u and the pooled clock f_ref;
                            prints the rows and the law as JSON (one object per head dim)
  apply PROFILE LAW RUNS... the first-order correction a clock law would make: each run's predicted makespan
                            (bin/sim validate --predict --kernel PROFILE) scaled by f_ref / f(u) at its own u (the
                            busy fraction does not move when every task is scaled), fixed costs unchanged; time and speedup-over-fa3 errors as is and
                            corrected. LAW: the JSON that fit prints
  recording RUNS TRACE...   whether recording a trace slows the kernel: per shape, the timed (unrecorded) runs of its
                            policies against the recorded traces' spans, time = F + k span by least squares; k = 1
                            means the stamps cost nothing per task
  bins BIN_US TRACE...      per trace: its busy fraction (as fit) and its SM clock over time, cycles over stamps in bins
                            of BIN_US from its first compute start (each task's compute split over the bins it
                            overlaps; '-' where under 5% of the SMs' time in a bin computes), the first 24 bins: the
                            clock dip at launch that `sim calibrate --kernel --clock-dip` fits (with BIN_US 25)

Usage: scripts/kernel-clock.py fit|apply|recording|bins ...  [--sim bin/sim]"""
import gzip
import json
import statistics as st
import subprocess
import sys
from collections import defaultdict

SIM = "bin/sim"


def load(path):
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            d = json.load(f)
        return d["metadata"], [dict(zip(d["columns"], r)) for r in d["tasks"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("kernel-clock: %s is not a kernel trace: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def line(pts):
    """Least squares y = a + b x over (x, y) points: (a, b)."""
    n, sx, sy = len(pts), sum(p[0] for p in pts), sum(p[1] for p in pts)
    sxx, sxy = sum(p[0] ** 2 for p in pts), sum(p[0] * p[1] for p in pts)
    den = n * sxx - sx * sx
    b = (n * sxy - sx * sy) / den if den > 1e-12 else 0.0
    return (sy - b * sx) / n, b


def trace_shape(md):
    return (md.get("mask"), md.get("seqlen"), md.get("batch"), md.get("heads_per_batch"), md.get("kv_heads"),
            md.get("head_dim"))


def fit(profile, traces):
    tiles = {t["head_dim"]: t for t in json.load(open(profile))["tiles"]}
    pts, pooled = defaultdict(list), defaultdict(lambda: [0, 0])
    for path in traces:
        md, tasks = load(path)
        d = md["head_dim"]
        span = max(t["r_end"] for t in tasks) - min(t["c_start"] for t in tasks)
        cycles, ns = sum(t["c_cycles"] for t in tasks), sum(t["c_end"] - t["c_start"] for t in tasks)
        u = len(tasks) * tiles[d]["compute_ns"] / (md["n_sm"] * span)
        pts[d].append((u, 1e3 * cycles / ns))
        pooled[d][0] += cycles
        pooled[d][1] += ns
        print("%-62s d%-3d u %.3f  clock %6.1f MHz  cycles a task %6.0f" % (
            path.split("/")[-1][:62], d, u, 1e3 * cycles / ns, st.median(t["c_cycles"] for t in tasks)))
    law = {}
    for d, p in sorted(pts.items()):
        a, b = line(p)
        resid = [f - (a + b * u) for u, f in p]
        law[str(d)] = {"a_mhz": round(a, 2), "b_mhz": round(b, 2), "f_ref_mhz": round(1e3 * pooled[d][0] / pooled[d][1], 2),
                       "traces": len(p), "residual_max_mhz": round(max(abs(r) for r in resid), 1)}
    print(json.dumps(law))


def task_count(r, bm, bn):
    s, bh = r["seqlen"], r["batch"] * r["heads"]
    nq, nk = -(-s // bm), -(-s // bn)
    return bh * nq * nk if r["mask"] == "full" else bh * sum(max(0, nq - (bn // bm) * j) for j in range(nk))


def shape_json(profile, r, cache={}):
    """bin/sim's --json answer at a run's shape (seqlen, batch, heads, kv_heads, head_dim, mask) with the kernel profile;
    one call a profile and shape (scripts/experiments/clock-law-engine.py and l2-launch.py use it too)."""
    key = (profile,) + tuple(r[k] for k in ("seqlen", "batch", "heads", "kv_heads", "head_dim", "mask"))
    if key not in cache:
        cmd = [SIM, "--seqlen", str(r["seqlen"]), "--batch", str(r["batch"]), "--heads", str(r["heads"]), "--kv-heads",
               str(r["kv_heads"]), "--head-dim", str(r["head_dim"]), "--mask", r["mask"], "--kernel", profile, "--json",
               "--max-memory-mb", "16000"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode:
            sys.exit("kernel-clock: %s: %s" % (" ".join(cmd), run.stderr.strip()))
        cache[key] = json.loads(run.stdout)
    return cache[key]


def fixed_ns(profile, r):
    """The launch's fixed costs at the run's shape, as bin/sim computes them (its --json "fixed_ns")."""
    return shape_json(profile, r)["fixed_ns"]


def summary(rows, key):
    err = [abs(x[key] / x["measured_ns"] - 1) for x in rows]
    by = defaultdict(dict)
    for x in rows:
        by[(x["mask"], x["seqlen"], x["batch"], x["heads"], x["kv_heads"], x["head_dim"])][x["policy"]] = x
    pp = sorted(abs(v["fa3"][key] / x[key] - v["fa3"]["measured_ns"] / x["measured_ns"]) * 100
                for v in by.values() if "fa3" in v for p, x in v.items() if p != "fa3")
    return "time |error| median %.2f%%, max %.2f%%; speedup over fa3 |error| median %.2f, p90 %.2f, max %.2f pp" % (
        100 * st.median(err), 100 * max(err), st.median(pp), pp[9 * len(pp) // 10], pp[-1])


def apply(profile, law, runs):
    kp = json.load(open(profile))
    tiles, sm_count = {t["head_dim"]: t for t in kp["tiles"]}, kp["gpu"]["sm_count"]
    law = json.loads(law)
    rows = []
    for f in runs:
        out = subprocess.run([SIM, "validate", f, "--predict", "--kernel", profile, "--json"], capture_output=True,
                             text=True).stdout
        for kr in json.loads(out)["kernel_runs"]:
            for r in kr["runs"]:
                if "predicted_ns" not in r or str(r["head_dim"]) not in law:
                    continue
                t, c = tiles[r["head_dim"]], law[str(r["head_dim"])]
                fx = fixed_ns(profile, r) - t["cta_prologue_ns"]
                span = r["predicted_ns"] - fx
                # u as fit measures it; scaling every task by the clock scales the span alike, so u stays put
                u = task_count(r, t["block_m"], t["block_n"]) * t["compute_ns"] / (sm_count * span)
                rows.append(dict(r, corrected_ns=fx + span * c["f_ref_mhz"] / (c["a_mhz"] + c["b_mhz"] * u)))
    print("as is:     " + summary(rows, "predicted_ns"))
    print("corrected: " + summary(rows, "corrected_ns"))


def recording(runs_file, traces):
    timed = {}
    for r in json.load(open(runs_file))["records"]:
        if r.get("mode") == "deterministic" and "ms" in r:
            timed[(r["mask"], r["seqlen"], r["batch"], r["heads"], r["kv_heads"], r["head_dim"], r["policy"])] = 1e6 * r["ms"]
    by = defaultdict(list)
    for path in traces:
        md, tasks = load(path)
        key = trace_shape(md) + (md["policy"],)
        if key in timed:
            span = max(t["r_end"] for t in tasks) - min(t["c_start"] for t in tasks)
            by[key[:6]].append((span, timed[key], md["policy"]))
    for shape, p in sorted(by.items(), key=lambda kv: str(kv[0])):
        if len(p) < 2:
            continue
        f, k = line([(a, b) for a, b, _ in p])
        print("%-34s k %.4f  F %6.1f us  %s" % ("%s s%d b%d h%d kv%d d%d" % shape, k, f / 1e3,
                                                   " ".join("%s %.0f/%.0f us" % (n, a / 1e3, b / 1e3) for a, b, n in p)))


def bins(width_us, traces):
    """The clock over time in each trace (the bins subcommand)."""
    w = 1000 * width_us
    for path in traces:
        md, tasks = load(path)
        tasks = [t for t in tasks if t["c_end"] > t["c_start"]]
        if not tasks or any(t.get("c_cycles", 0) <= 0 for t in tasks):
            print("kernel-clock: %s has no cycle counts (c_cycles)" % path, file=sys.stderr)
            sys.exit(2)
        t0 = min(t["c_start"] for t in tasks)
        end = max(t["c_end"] for t in tasks) - t0
        span = max(t["r_end"] for t in tasks) - t0
        cyc, ns = defaultdict(float), defaultdict(float)
        for t in tasks:
            a, b = t["c_start"] - t0, t["c_end"] - t0
            for k in range(int(a // w), int((b - 1) // w) + 1):
                over = min(b, (k + 1) * w) - max(a, k * w)
                cyc[k] += t["c_cycles"] * over / (b - a)
                ns[k] += over
        u = sum(t["c_end"] - t["c_start"] for t in tasks) / (md["n_sm"] * span)
        cells = ["%4.0f" % (1e3 * cyc[k] / ns[k]) if ns[k] > 0.05 * w * md["n_sm"] and (k + 1) * w <= end else "   -"
                 for k in range(min(24, int(end // w) + 1))]
        print("%-52s span %7.1f us busy %.2f | %s" % (path.split("/")[-1][:52], span / 1e3, u, " ".join(cells)))


def main():
    global SIM
    args = sys.argv[1:]
    if "--sim" in args:
        i = args.index("--sim")
        SIM = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3 or args[0] not in ("fit", "apply", "recording", "bins"):
        print("kernel-clock: give fit PROFILE TRACE..., apply PROFILE LAW RUNS..., recording RUNS TRACE... or bins BIN_US "
              "TRACE... (see the header of scripts/kernel-clock.py)", file=sys.stderr)
        sys.exit(2)
    if args[0] == "bins":
        try:
            width = float(args[1])
        except ValueError:
            width = 0
        if not width > 0:
            print("kernel-clock: bins takes a bin width in us above 0, not '%s'" % args[1], file=sys.stderr)
            sys.exit(2)
        bins(width, args[2:])
        return
    if args[0] == "fit":
        fit(args[1], args[2:])
    elif args[0] == "apply":
        apply(args[1], args[2], args[3:])
    else:
        recording(args[1], args[2:])


if __name__ == "__main__":
    main()
