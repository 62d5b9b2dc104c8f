#!/usr/bin/env python3
"""Turns a dashsim-kernel-bench JSON (gpu/bwd/bench.py) into the committed table and figure (docs/kernel.md):
DIR/bench-table.md (TFLOPS per backend and the goal-ladder ratios), DIR/bench.dat and DIR/bench.png (gnuplot,
gpu/bwd/plot.gp). Usage: table.py BENCH.json DIR"""
import json, os, subprocess, sys

COLS = ["fa3", "fa3-spt", "descending", "shift", "symmetric-shift", "atomic", "cudnn", "flash", "flash-det"]


def key(r):
    if r["backend"] == "dashsim":
        return "atomic" if r["mode"] == "atomic" else r["policy"]
    return "flash-det" if r["backend"] == "flash" and r["mode"] == "deterministic" else r["backend"]


def main():
    doc = json.load(open(sys.argv[1]))
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rows = {}
    for r in doc["records"]:
        if "tflops" in r:
            rows.setdefault((r["mask"], r["head_dim"], r["batch"] * r["heads"], r["seqlen"]), {})[key(r)] = r
    m = doc["metadata"]
    lines = [f"TFLOPS (2.5 x forward FLOPs) on {m.get('gpu_name')}, driver {m.get('driver')}, {m.get('date')}; "
             f"torch {m.get('torch')}, cuDNN {m.get('cudnn')}. best = best deterministic DASH policy (not fa3); "
             "det/atomic = best deterministic dashsim policy over the atomic mode; det/flash-det = the same over "
             "PyTorch's deterministic flash; a policy marked * was not bitwise repeatable in its timed runs.", "",
             "| mask | d | b x h | seqlen | " + " | ".join(COLS) +
             " | best/fa3 | det/atomic | fa3/cudnn | best/cudnn | det/flash-det |",
             "|" + "---|" * (len(COLS) + 9)]
    dat = []
    for k in sorted(rows):
        v = rows[k]
        cell = lambda c: (f"{v[c]['tflops']:.0f}" + ("" if v[c].get("bitwise_repeatable", True) or c == "atomic" else "*")
                          if c in v else "")
        dash = {c: v[c]["tflops"] for c in ("fa3-spt", "descending", "shift", "symmetric-shift") if c in v}
        det = dict(dash, **({"fa3": v["fa3"]["tflops"]} if "fa3" in v else {}))
        best = max(dash.values()) if dash else float("nan")
        fa3 = v["fa3"]["tflops"] if "fa3" in v else float("nan")
        cud = v["cudnn"]["tflops"] if "cudnn" in v else float("nan")
        atom = v["atomic"]["tflops"] if "atomic" in v else float("nan")
        fdet = v["flash-det"]["tflops"] if "flash-det" in v else float("nan")
        bdet = max(det.values()) if det else float("nan")
        ratios = [best / fa3, bdet / atom, fa3 / cud, best / cud, bdet / fdet]
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | " + " | ".join(cell(c) for c in COLS) + " | " +
                     " | ".join(f"{x:.2f}" for x in ratios) + " |")
        dat.append(f"{k[0]}-d{k[1]}-bh{k[2]} {k[3]} " + " ".join(
            f"{v[c]['tflops']:.1f}" if c in v else "NaN" for c in COLS))
    open(os.path.join(out, "bench-table.md"), "w").write("\n".join(lines) + "\n")
    groups = sorted({d.split()[0] for d in dat})
    with open(os.path.join(out, "bench.dat"), "w") as f:
        f.write("# seqlen " + " ".join(COLS) + "\n")
        for g in groups:  # one gnuplot index per (mask, head dim, b x h)
            f.write(f"# {g}\n" + "\n".join(" ".join(d.split()[1:]) for d in dat if d.split()[0] == g) + "\n\n\n")
    here = os.path.dirname(os.path.abspath(__file__))
    subprocess.run(["gnuplot", "-e", f"dat='{out}/bench.dat'; png='{out}/bench.png'; groups='{' '.join(groups)}'",
                    os.path.join(here, "plot.gp")], check=True)


if __name__ == "__main__":
    main()
