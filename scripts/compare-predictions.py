#!/usr/bin/env python3
"""Committed predictions (gpu/bwd/predict-shapes.py's output, written before a run) against the run's timed records
(gpu/bwd/shapes.py's "dashsim-kernel-runs"): per shape the time error of every deterministic policy, the error of
each policy's speedup over the fa3 order (percentage points), and whether the predicted winner is within 1% of the
measured best (a shape the model called a tie, naming the best among the schedules it could not order, is counted
apart: predictions record the tie since session 9). Prints a table and the summary.
Usage: compare-predictions.py PREDICTIONS.json RUNS.json"""
import json, statistics, sys


def die(msg):
    print("compare-predictions: " + msg, file=sys.stderr)
    sys.exit(2)


def compare(pred, runs):
    """The table's lines and the summary line, from predict-shapes.py's predictions and shapes.py's runs."""
    meas = {}
    for r in runs["records"]:
        if r.get("mode") == "deterministic" and "ms" in r:
            meas[(r["mask"], r["seqlen"], r["batch"], r["heads"], r["kv_heads"], r["head_dim"], r["policy"])] = \
                r["ms"] * 1e6
    terr, serr, wins, tie_named, lines = [], [], [], 0, []
    for p in pred["predictions"]:
        s = p["shape"]
        key = (s["mask"], s["seqlen"], s["batch"], s["heads"], s["kv_heads"], s["head_dim"])
        tag = f"{s['mask']}-s{s['seqlen']}-b{s['batch']}-h{s['heads']}-kv{s['kv_heads']}-d{s['head_dim']}"
        m = {q["policy"]: meas[key + (q["policy"],)] for q in p["policies"] if key + (q["policy"],) in meas}
        t = {q["policy"]: q["time_ns"] for q in p["policies"] if q["policy"] in m}
        if p["winner"] not in m:
            raise KeyError(f"no timed run of {tag}'s predicted winner {p['winner']}")
        for pol in t:
            e = t[pol] / m[pol] - 1
            terr.append(abs(e))
            sp = ""
            if pol != "fa3" and "fa3" in m:
                d = 100 * (t["fa3"] / t[pol] - m["fa3"] / m[pol])
                serr.append(abs(d))
                sp = f"{d:+.1f}pp"
            lines.append(f"{tag:34s} {pol:16s} {m[pol]:12.0f} {t[pol]:12.0f} {100 * e:+6.2f}% {sp:>8s}")
        best = min(m.values())
        wins.append(m[p["winner"]] <= 1.01 * best)
        if not wins[-1] and any(m.get(q, float("inf")) <= 1.01 * best for q in p.get("tie", [])):
            tie_named += 1
    summary = (f"{len(terr)} runs: |time error| median {100 * statistics.median(terr):.2f}%, max {100 * max(terr):.2f}%; "
               f"speedup over fa3: {len(serr)} pairs, |error| median {statistics.median(serr):.2f} pp, max "
               f"{max(serr):.2f} pp; predicted winner within 1% of the measured best at {sum(wins)} of {len(wins)} shapes" +
               (f" ({tie_named} more where the model reported a tie naming the best)" if tie_named else ""))
    return lines, summary


def main():
    if len(sys.argv) != 3:
        die("give PREDICTIONS.json RUNS.json")
    try:
        lines, summary = compare(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, statistics.StatisticsError) as e:
        die(f"{sys.argv[1]} and {sys.argv[2]}: not gpu/bwd/predict-shapes.py's predictions and their kernel runs ({e})")
    print(f"{'shape':34s} {'policy':16s} {'measured_ns':>12s} {'predicted_ns':>12s} {'error':>7s} {'speedup':>8s}")
    print("\n".join(lines))
    print(summary)


if __name__ == "__main__":
    main()
