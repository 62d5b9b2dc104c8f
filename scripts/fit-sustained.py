#!/usr/bin/env python3
"""Fits a kernel profile's slowdown under sustained load (issue 31; docs/profile.md, "The clock under sustained load")
from long launches timed with the SM clock polled (gpu/bwd/sustained.py's RUNS and CLOCK files), and prints it as a
"dashsim-sustained" file for `sim calibrate --kernel ... --clock-dip --sustained FILE`.

The harness (gpu/bwd/bench.py time_fn) times a launch after two warm-up launches, and its median of three repetitions
is the second: the launch it reports ran after about LAUNCHES = 3 of its own span of load; the burst that
sustained.py adds after the repetitions ran (2 + repetitions) spans plus half the burst into the load. Each timed run
of head dim D and each burst is predicted by PROFILE (which has a clock dip and no sustained slowdown) with `bin/sim
--json`, and the slowdown is fitted to measured / predicted - 1 as
    per_u x max(0, share - u0) x (1 - exp(-max(0, load - load_ms) / tau_ms)),
share the launch's compute at its clock over its SMs' time, load the launches before it times its span: by least
squares for per_u over a grid of load_ms (0-100 ms by 5), tau_ms (10-400 by 10) and u0 (0.30-0.90 by 0.01). The
profile applies it to the compute, not to the whole span, so per_u is then scaled once by how much of the intended
slowdown a prediction with it shows at the timed runs. Same files, same output.
Usage: scripts/fit-sustained.py PROFILE RUNS.json CLOCK.json [--head-dim D] [--sim bin/sim]   (standard library)"""
import json
import math
import os
import subprocess
import sys
import tempfile

LAUNCHES = 3


def die(msg):
    print("fit-sustained: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")


def predict(sim, profile, sh):
    """{policy: (time_ns, span_ns, share)} of a shape by the profile."""
    cmd = [sim, "--seqlen", str(sh["seqlen"]), "--batch", str(sh["batch"]), "--heads", str(sh["heads"]), "--head-dim",
           str(sh["head_dim"]), "--mask", sh["mask"], "--kernel", profile, "--json", "--max-memory-mb", "16000"]
    if sh["kv_heads"] != sh["heads"]:
        cmd += ["--kv-heads", str(sh["kv_heads"])]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        die(f"{sim} could not predict {sh}: {r.stderr.strip()}")
    d = json.loads(r.stdout)
    kv, q, ratio = d["kv_tiles"], d["q_tiles"], d["tile_ratio"]
    tasks = d["heads"] * (kv * q if d["mask"] == "full" else sum(q - ratio * j for j in range(kv)))
    ref = next(t["clock"]["ref_mhz"] for t in load(profile)["tiles"] if t["head_dim"] == sh["head_dim"])
    return {p["policy"]: (p["time_ns"], p["makespan_ns"],
                          tasks * d["c_ns"] * (ref / p["clock_mhz"]) / (d["n"] * p["makespan_ns"]))
            for p in d["policies"]}


def slowdown(par, share, load_ms):
    load0, tau, u0, k = par
    return k * max(0.0, share - u0) * (1 - math.exp(-max(0.0, load_ms - load0) / tau))


def main():
    args = sys.argv[1:]
    sim, head_dim = "bin/sim", 128
    for flag in ("--sim", "--head-dim"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                die(f"{flag} needs a value")
            if flag == "--sim":
                sim = args[i + 1]
            else:
                head_dim = int(args[i + 1]) if args[i + 1].isdigit() else die("--head-dim takes a number")
            del args[i:i + 2]
    if len(args) != 3:
        die("give PROFILE RUNS.json CLOCK.json (see the header of scripts/fit-sustained.py)")
    profile, runs_path, clock_path = args
    runs, clock, prof = load(runs_path), load(clock_path), load(profile)
    with tempfile.TemporaryDirectory() as tmpdir:
        fit(sim, head_dim, prof, runs, clock, tmpdir, profile, runs_path, clock_path)


def with_sustained(prof, head_dim, sustained, path):
    """A copy of the profile at path whose tiles of head_dim have this slowdown (None: none)."""
    prof = json.loads(json.dumps(prof))
    for t in prof["tiles"]:
        if t["head_dim"] == head_dim and "clock" in t:
            t["clock"].pop("sustained", None)
            if sustained:
                t["clock"]["sustained"] = sustained
    with open(path, "w") as f:
        json.dump(prof, f)
    return path


def fit(sim, head_dim, prof, runs, clock, tmpdir, profile_path, runs_path, clock_path):
    if not any(t["head_dim"] == head_dim and "clock" in t for t in prof.get("tiles", [])):
        die(f"{profile_path}: no tile of head dim {head_dim} with a clock dip")
    profile = with_sustained(prof, head_dim, None, os.path.join(tmpdir, "without.json"))
    try:
        timed = [r for r in runs["records"] if "ms" in r]
        burst_ms = clock["burst_ms"]
        if len(timed) != len(clock["runs"]):
            die(f"{clock_path} has {len(clock['runs'])} runs, {runs_path} {len(timed)} timed records")
        cache, points, shapes = {}, [], []
        for r, c in zip(timed, clock["runs"]):
            if r["mode"] != "deterministic" or r["head_dim"] != head_dim:
                continue
            sh = {k: r[k] for k in ("mask", "seqlen", "batch", "heads", "kv_heads", "head_dim")}
            key = json.dumps(sh, sort_keys=True)
            if key not in cache:
                cache[key] = predict(sim, profile, sh)
                shapes.append(sh)
            t_ns, span_ns, share = cache[key][r["policy"]]
            span_ms, reps = span_ns / 1e6, len(c["rep_ms"])
            burst = c["burst"][-1][0] / c["burst_reps"]
            points.append((share, LAUNCHES * span_ms, 1e6 * r["ms"] / t_ns - 1, True, key, r["policy"]))
            points.append((share, (2 + reps) * span_ms + burst_ms / 2, 1e6 * burst / t_ns - 1, False, key, r["policy"]))
    except (KeyError, TypeError, IndexError, ZeroDivisionError) as e:
        die(f"{runs_path} and {clock_path}: not gpu/bwd/sustained.py's files ({e})")
    if not points:
        die(f"no deterministic timed run at head dim {head_dim} in {runs_path}")
    best = None
    for load0 in range(0, 101, 5):
        for tau in range(10, 401, 10):
            for j in range(61):
                u0 = 0.30 + 0.01 * j
                xs = [slowdown((load0, tau, u0, 1), s, ld) for s, ld, *_ in points]
                sxx = sum(x * x for x in xs)
                if sxx == 0:
                    continue
                k = max(0.0, sum(x * p[2] for x, p in zip(xs, points)) / sxx)
                sse = sum((p[2] - k * x) ** 2 for x, p in zip(xs, points))
                if best is None or sse < best[0] - 1e-15:
                    best = (sse, (load0, tau, round(u0, 2), k))
    sse, par = best
    # the profile slows the compute: how much of the intended slowdown its predictions show at the timed runs
    tmp = with_sustained(prof, head_dim, dict(launches=LAUNCHES, load_ms=par[0], tau_ms=par[1], u0=par[2],
                                              per_u=par[3]), os.path.join(tmpdir, "with.json"))
    got = {key: predict(sim, tmp, json.loads(key)) for key in cache}
    num = den = 0.0
    for s, ld, _, is_timed, key, pol in points:
        if is_timed:
            want = slowdown(par, s, ld)
            shown = got[key][pol][0] / cache[key][pol][0] - 1
            num, den = num + shown * want, den + want * want
    k = round(par[3] * (den / num if num > 0 else 1), 4)
    rms = math.sqrt(sse / len(points))
    out = {"format": "dashsim-sustained", "version": 1, "head_dim": head_dim, "gpu": prof["gpu"]["name"],
           "sustained": {"launches": LAUNCHES, "load_ms": par[0], "tau_ms": par[1], "u0": par[2], "per_u": k},
           "source": f"scripts/fit-sustained.py {os.path.basename(profile_path)} {runs_path} {clock_path}: {len(points)} "
                     f"points ({len(points) // 2} timed runs and their bursts) at {len(shapes)} shapes, head dim "
                     f"{head_dim}; rms of the fit {100 * rms:.2f}%"}
    print(json.dumps(out, indent=1))


main()
