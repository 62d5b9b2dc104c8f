#!/usr/bin/env python3
"""Two kernel profiles' predictions of the same runs (issue 31: how far apart two calibration runs of one kernel
predict): for each runs file, `bin/sim validate RUNS --predict --kernel PROFILE --json` with each profile, paired by
shape and policy, and the median and max of |second / first - 1|. Standard library only.
Usage: compare-profiles.py FIRST.json SECOND.json RUNS.json [RUNS.json ...] [--sim bin/sim]"""
import json
import statistics as st
import subprocess
import sys


def die(msg):
    print("compare-profiles: " + msg, file=sys.stderr)
    sys.exit(2)


def predicted(sim, runs, profile):
    r = subprocess.run([sim, "validate", runs, "--predict", "--kernel", profile, "--json"], capture_output=True, text=True)
    try:
        out = {}
        for kr in json.loads(r.stdout)["kernel_runs"]:
            for x in kr["runs"]:
                if "predicted_ns" in x:
                    out[(x["mask"], x["seqlen"], x["batch"], x["heads"], x["kv_heads"], x["head_dim"], x["policy"])] = \
                        x["predicted_ns"]
        return out
    except (ValueError, KeyError, TypeError):
        die("sim validate gave no predictions for %s with %s: %s" % (runs, profile, r.stderr.strip()[:200]))


def main():
    args, sim = sys.argv[1:], "bin/sim"
    if "--sim" in args:
        i = args.index("--sim")
        sim = args[i + 1] if i + 1 < len(args) else die("--sim needs a path")
        del args[i:i + 2]
    if len(args) < 3:
        die("give FIRST.json SECOND.json RUNS.json ... (see the header of scripts/compare-profiles.py)")
    for runs in args[2:]:
        a, b = predicted(sim, runs, args[0]), predicted(sim, runs, args[1])
        d = [abs(b[k] / a[k] - 1) * 100 for k in sorted(a) if k in b]
        if not d:
            die("the two profiles predict no run of %s alike" % runs)
        print("%-50s n %3d  |second / first - 1| median %.2f%%, max %.2f%%" % (runs.split("/")[-1], len(d), st.median(d),
                                                                            max(d)))


if __name__ == "__main__":
    main()
