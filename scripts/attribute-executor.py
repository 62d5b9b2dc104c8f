#!/usr/bin/env python3
"""Where the hardware profile's prediction of the executor's traces misses, phase by phase (issue 22).

For every executor trace that the profile predicts, it sets three timelines of the same plan side by side:
the run (its stamps), a replay of the run's own dependency structure (each SM's CTAs in the order they ran
there, each task's compute, deposit, acquire, add and the row hand-offs, in max-plus), and the model
(`bin/sim validate --predict --json`: its makespan, its own phase medians and reductions in flight). The
replay is driven first by each task's own durations (a check of the replay: it must give the run's
makespan), then by the run's medians, then by per-SM medians, then with the model's values put in one
phase at a time. The product of the steps is the model's error:

  spread     deterministic medians against the run (the run's spread; per-SM medians show how much of it
             is SM-to-SM heterogeneity, which a lock-step schedule pays for at its slowest SM; "add" replays each
             task's own add with medians elsewhere: where it is close to 0 the spread is the add's alone; "shuf"
             deals the run's own adds to its tasks in a seeded random order: what independent draws from the
             same distribution give, without the adds' correlation in time, SM or row)
  compute    the model's compute (serial: with staging and the loop gap) in place of the run's
  deposit    async: the model's deposit in place of the run's (store path: buffer free -> tile ready)
  reduce     the model's reduction as it realised it under its own load (acquire + add)
  handoff    the model's hand-off on a waited row (its edge latency + the acquire inside its reduction)
  rest       the model against the fully substituted replay: its own dispatch and CTA prologues, and the
             load dynamics a replay with medians does not have

It also checks the cold-start hypothesis on every trace: the spread of the five timed repeats the run
kept its median of, and each CTA's first two tasks against its later ones.

Usage: scripts/attribute-executor.py [--sim bin/sim] [--profile FILE] [--misses 0.05] [--json] [DIR|TRACE ...]
(default DIRs: the executor's traces, traces/h100 traces/h100-predict traces/h100-mask traces/h100-mask16).
Standard library only; about a minute for the 212 traces.
"""
import argparse
import gzip
import json
import random
import statistics as st
import subprocess
import sys
from collections import deque

DIRS = ["traces/h100", "traces/h100-predict", "traces/h100-mask", "traces/h100-mask16"]


def load_trace(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        d = json.load(f)
    cols = d["columns"]
    return d["metadata"], [dict(zip(cols, r)) for r in d["tasks"]]


def structure(md, tasks):
    """Each task's own phase durations and its predecessors in the run: its SM's previous task (CTAs on
    an SM in the order they ran there) and its row's previous rank."""
    is_async = md["reduce"] == "async"
    by_sm = {}
    for t in tasks:
        by_sm.setdefault(t["smid"], []).append(t)
    prev_on_sm = {}
    for ts in by_sm.values():
        ts.sort(key=lambda t: t["c_start"])
        for a, b in zip(ts, ts[1:]):
            prev_on_sm[id(b)] = a
    by_rank = {(t["head"], t["q"], t["rank"]): t for t in tasks}
    ph = {}
    handoffs, acquires = [], []
    for t in tasks:
        p = prev_on_sm.get(id(t))
        first = p is None or p["cta"] != t["cta"]
        row_prev = by_rank.get((t["head"], t["q"], t["rank"] - 1)) if t["rank"] > 0 else None
        if is_async:
            c = t["c_end"] - t["c_start"]
            dep = t["r_ready"] - max(t["c_end"], p["r_end"] if p and not first else -1 << 62)
            gap = t["c_start"] - (p["r_end"] if p else 0) if first else 0
        else:  # compute + staging + the loop gap before it: the model's c
            c = t["r_ready"] - t["c_start"] + (0 if first else t["c_start"] - p["r_end"])
            dep = 0
            gap = t["c_start"] - (p["r_end"] if p else 0) if first else 0
        ph[id(t)] = {"c": c, "dep": dep, "add": t["r_end"] - t["r_start"], "gap": max(0, gap) if p else 0}
        if row_prev is not None and t["r_ready"] <= row_prev["r_end"] and row_prev["smid"] != t["smid"]:
            handoffs.append(t["r_start"] - row_prev["r_end"])
        elif row_prev is None or t["r_ready"] > row_prev["r_end"] + 500:
            acquires.append(t["r_start"] - t["r_ready"])
    return prev_on_sm, by_rank, ph, st.median(acquires or [0]), st.median(handoffs or [0])


def replay(md, tasks, s, mode, over=None, adds=None):
    """Makespan of the run's structure in max-plus. mode: own (each task's durations), med (the run's
    medians), sm (per-SM medians), add (each task's own add, medians elsewhere; or adds[id(task)] where given);
    over: phases replaced by a value (c, dep, r = acquire + add, ho)."""
    prev_on_sm, by_rank, ph, acq, ho = s
    is_async = md["reduce"] == "async"
    over = over or {}
    keys = ("c", "dep", "add", "gap")
    med = {k: st.median(p[k] for p in ph.values()) for k in keys}
    sm_med = {}
    if mode == "sm":
        vals = {}
        for t in tasks:
            for k in keys:
                vals.setdefault((t["smid"], k), []).append(ph[id(t)][k])
        sm_med = {k: st.median(v) for k, v in vals.items()}

    def val(t, k):
        if k == "add" and "r" in over:
            return over["r"] - acq
        if k in over:
            return over[k]
        if mode == "add" and k == "add" and adds is not None:
            return adds[id(t)]
        if mode == "own" or (mode == "add" and k == "add"):
            return ph[id(t)][k]
        return sm_med[(t["smid"], k)] if mode == "sm" else med[k]

    handoff = over.get("ho", ho)
    succ, indeg = {}, {}
    for t in tasks:
        deps = [d for d in (prev_on_sm.get(id(t)), by_rank.get((t["head"], t["q"], t["rank"] - 1))
                            if t["rank"] > 0 else None) if d is not None]
        indeg[id(t)] = len(deps)
        for d in deps:
            succ.setdefault(id(d), []).append(t)
    done, end = {}, 0
    queue = deque(t for t in tasks if indeg[id(t)] == 0)
    while queue:
        t = queue.popleft()
        p = prev_on_sm.get(id(t))
        first = p is None or p["cta"] != t["cta"]
        pd = done.get(id(p)) if p else None
        start = (pd["re"] if pd else 0) + (val(t, "gap") if first and pd else 0)
        if is_async:
            cs = start if first or not pd else pd["de"]
            ce = cs + val(t, "c")
            de = max(ce, pd["re"] if pd and not first else 0) + val(t, "dep")
        else:
            cs = start if first or not pd else pd["re"]
            de = ce = cs + val(t, "c")
        rs = de + acq
        if pd and not first:
            rs = max(rs, pd["re"] + acq)
        if t["rank"] > 0:
            rs = max(rs, done[id(by_rank[(t["head"], t["q"], t["rank"] - 1)])]["re"] + handoff)
        re = rs + val(t, "add")
        done[id(t)] = {"de": de, "re": re}
        end = max(end, re)
        for n in succ.get(id(t), []):
            indeg[id(n)] -= 1
            if indeg[id(n)] == 0:
                queue.append(n)
    return end


def shuffled_adds(tasks, ph, seed=1):
    """The run's own adds dealt to its tasks in a seeded random order: the same distribution, no correlation with
    time, SM or row (issue 31: how much of the spread independent draws would give)."""
    adds = [ph[id(t)]["add"] for t in tasks]
    random.Random(seed).shuffle(adds)
    return {id(t): a for t, a in zip(tasks, adds)}


def cold_start(md, tasks):
    """(spread of the timed repeats, first-two-tasks / later median of compute and of add)."""
    reps = md.get("makespan_ns_repeats") or []
    spread = max(reps) / min(reps) - 1 if len(reps) > 1 else 0.0
    by_cta = {}
    for t in tasks:
        by_cta.setdefault(t["cta"], []).append(t)
    early, late = [], []
    for ts in by_cta.values():
        ts.sort(key=lambda t: t["c_start"])
        for i, t in enumerate(ts):
            (early if i < 2 else late).append((t["c_end"] - t["c_start"], t["r_end"] - t["r_start"]))
    if not early or not late:
        return spread, 1.0, 1.0
    return (spread, st.median(x[0] for x in early) / st.median(x[0] for x in late),
            st.median(x[1] for x in early) / st.median(x[1] for x in late))


def pct(x):
    return "%+5.1f" % (100 * x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="*", default=DIRS)
    ap.add_argument("--sim", default="bin/sim")
    ap.add_argument("--profile", default="configs/profiles/h100-sxm.json")
    ap.add_argument("--misses", type=float, default=0.05, help="list traces beyond this |error| (default 0.05)")
    ap.add_argument("--json", action="store_true", help="print the per-trace rows as one JSON array instead")
    a = ap.parse_args()
    run = subprocess.run([a.sim, "validate", *a.dirs, "--profile", a.profile, "--json"], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        sys.exit(run.stderr.strip())
    out = json.loads(run.stdout)
    profile = json.load(open(a.profile))
    model_handoff = profile["handoff"]["idle_ns"] + profile["acquire_ns"]
    rows, colds = [], []
    for tr in out["traces"]:
        p = tr.get("predicted")
        if not p or "phase_medians_ns" not in p:
            continue
        md, tasks = load_trace(tr["trace"])
        colds.append((tr["trace"], *cold_start(md, tasks)))
        s = structure(md, tasks)
        meas = tr["measured_ns"]
        own, med, sm, add = (replay(md, tasks, s, m) for m in ("own", "med", "sm", "add"))
        shuf = replay(md, tasks, s, "add", adds=shuffled_adds(tasks, s[2]))
        adds = sorted(p["add"] for p in s[2].values())
        mp = p["phase_medians_ns"]
        over, steps = {}, []
        prev = med
        for name, key, value in (("compute", "c", mp["compute"]), ("deposit", "dep", mp["deposit"]),
                                 ("reduce", "r", mp["reduce"]), ("handoff", "ho", model_handoff)):
            if name == "deposit" and md["reduce"] != "async":
                steps.append(0.0)
                continue
            over[key] = value
            cur = replay(md, tasks, s, "med", over)
            steps.append(cur / prev - 1)
            prev = cur
        rows.append({"trace": tr["trace"], "error": p["makespan_error"], "own": own / meas - 1,
                     "spread": med / meas - 1, "per_sm": sm / meas - 1, "add_spread": add / meas - 1,
                     "add_shuffled": shuf / meas - 1,
                     "add_p90_over_median": adds[9 * len(adds) // 10] / st.median(adds), "steps": steps,
                     "rest": p["predicted_ns"] / prev - 1, "k_model": p["reductions_in_flight"],
                     "k_run": p["measured_reductions_in_flight"], "method": "%s %s" % (md["reduce"], md["reduce_op"])})
    if a.json:
        for r in rows:
            r["steps"] = dict(zip(("compute", "deposit", "reduce", "handoff"), r["steps"]))
        json.dump(rows, sys.stdout, indent=1)
        print()
        return
    print("per trace beyond %.0f%% (signed %%: error = product of the steps; own = replay check)" % (100 * a.misses))
    print("%-58s %6s | %5s %6s %6s %6s %6s | %7s %7s %6s %7s %6s | %s" % ("trace", "error", "own", "spread", "per-SM",
          "add", "shuf", "compute", "deposit", "reduce", "handoff", "rest", "in flight model/run"))
    for r in sorted(rows, key=lambda r: r["error"]):
        if abs(r["error"]) > a.misses:
            print("%-58s %6s | %5s %6s %6s %6s %6s | %7s %7s %6s %7s %6s | %3d/%3d %s" % (
                r["trace"].replace("traces/", "")[:58], pct(r["error"]), pct(r["own"]), pct(r["spread"]),
                pct(r["per_sm"]), pct(r["add_spread"]), pct(r["add_shuffled"]), *(pct(x) for x in r["steps"]), pct(r["rest"]), r["k_model"], r["k_run"], r["method"]))
    faithful = [r for r in rows if abs(r["own"]) <= 0.02]
    print("\n%d traces predicted; the replay reproduces %d of them within 2%% (own: median %s%%, max |%.1f|%%)" % (
        len(rows), len(faithful), pct(st.median(r["own"] for r in rows)), 100 * max(abs(r["own"]) for r in rows)))
    for label, sel in (("model too fast (< -%.0f%%)" % (100 * a.misses), lambda r: r["error"] < -a.misses),
                       ("model too slow (> +%.0f%%)" % (100 * a.misses), lambda r: r["error"] > a.misses),
                       ("within %.0f%%" % (100 * a.misses), lambda r: abs(r["error"]) <= a.misses)):
        g = [r for r in faithful if sel(r)]
        if not g:
            continue
        print("%-26s %3d traces, median of each step: spread %s%% (per-SM %s%%, own adds %s%%, own adds shuffled %s%%; "
              "the run's add p90 x%.3f its median), compute %s%%, deposit %s%%, reduce %s%%, handoff %s%%, rest %s%%; reductions in flight "
              "model/run %d/%d" % (
                  label, len(g), pct(st.median(r["spread"] for r in g)), pct(st.median(r["per_sm"] for r in g)),
                  pct(st.median(r["add_spread"] for r in g)), pct(st.median(r["add_shuffled"] for r in g)),
                  st.median(r["add_p90_over_median"] for r in g),
                  *(pct(st.median(r["steps"][i] for r in g)) for i in range(4)), pct(st.median(r["rest"] for r in g)),
                  st.median(r["k_model"] for r in g), st.median(r["k_run"] for r in g)))
    reps = [c[1] for c in colds]
    print("\ncold start: the timed repeats of a trace spread by median %.2f%% (max %.2f%%); a CTA's first two tasks "
          "against its later ones: compute x%.3f (range %.3f-%.3f), add x%.3f (range %.3f-%.3f)" % (
              100 * st.median(reps), 100 * max(reps), st.median(c[2] for c in colds), min(c[2] for c in colds),
              max(c[2] for c in colds), st.median(c[3] for c in colds), min(c[3] for c in colds),
              max(c[3] for c in colds)))


if __name__ == "__main__":
    main()
