#!/usr/bin/env python3
"""A prototype, not the model (issue 31; docs/profile.md, "the clock law in the engine, tried and not adopted"): each
run predicted with the profile's compute-side costs (compute_ns, diag_ns, deposit_ns) scaled by f_ref / f(u), where
f(u) = a + b u is the SM clock law of `scripts/kernel-clock.py fit` and u the run's busy fraction, iterated to a fixed
point. The scaled predictions come from profiles written at factors 0.95-1.05 (steps of 0.005), interpolated.
Prints, per runs file, issue 31's summary as is and with the law. Run from the tree's root after make all.
Usage: clock-law-engine.py PROFILE LAW_JSON RUNS.json...   (LAW_JSON: the line `kernel-clock.py fit` prints)"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict


def die(msg):
    print("clock-law-engine: " + msg, file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) < 4:
        die("give PROFILE LAW_JSON RUNS.json ... (see the header of scripts/experiments/clock-law-engine.py)")
    spec = importlib.util.spec_from_file_location("kc", "scripts/kernel-clock.py")
    kc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kc)
    try:
        kp, law = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
    except (OSError, ValueError) as e:
        die("cannot read the profile or the law: %s" % e)
    facs = [round(0.95 + 0.005 * i, 3) for i in range(21)]
    tmp = tempfile.mkdtemp()
    paths = {}
    for f in facs:
        k = json.loads(json.dumps(kp))
        for t in k["tiles"]:
            for key in ("compute_ns", "diag_ns", "deposit_ns"):
                t[key] = int(round(t[key] * f))
        paths[f] = os.path.join(tmp, "p%.3f.json" % f)
        json.dump(k, open(paths[f], "w"))
    tiles, sm = {t["head_dim"]: t for t in kp["tiles"]}, kp["gpu"]["sm_count"]
    for rf in sys.argv[3:]:
        pred, base = defaultdict(dict), {}
        for f in facs:
            out = subprocess.run(["bin/sim", "validate", rf, "--predict", "--kernel", paths[f], "--json"],
                                 capture_output=True, text=True).stdout
            try:
                for kr in json.loads(out)["kernel_runs"]:
                    for r in kr["runs"]:
                        if "predicted_ns" in r:
                            key = (r["mask"], r["seqlen"], r["batch"], r["heads"], r["kv_heads"], r["head_dim"], r["policy"])
                            pred[key][f], base[key] = r["predicted_ns"], r
            except (ValueError, KeyError):
                die("bin/sim validate gave no predictions for %s" % rf)
        rows = []
        for key, byf in pred.items():
            r, t, c = base[key], tiles[base[key]["head_dim"]], law[str(base[key]["head_dim"])]
            fx, n = kc.fixed_ns(sys.argv[1], r) - t["cta_prologue_ns"], kc.task_count(r, t["block_m"], t["block_n"])

            def at(x):
                x = min(max(x, facs[0]), facs[-1])
                i = min(int((x - facs[0]) / 0.005), len(facs) - 2)
                w = (x - facs[i]) / 0.005
                return byf[facs[i]] * (1 - w) + byf[facs[i + 1]] * w
            fac = 1.0
            for _ in range(4):
                u = n * t["compute_ns"] / (sm * (at(fac) - fx))
                fac = c["f_ref_mhz"] / (c["a_mhz"] + c["b_mhz"] * u)
            rows.append(dict(r, predicted_ns=byf[1.0], corrected_ns=at(fac)))
        print(rf.split("/")[-1], "as is:     ", kc.summary(rows, "predicted_ns"))
        print(rf.split("/")[-1], "with the law:", kc.summary(rows, "corrected_ns"))


if __name__ == "__main__":
    main()
