#!/usr/bin/env python3
"""The short table of a dashsim-kernel-bench JSON (gpu/bwd/bench.py) for a device call's last lines: per shape the
best deterministic gpu/bwd schedule against its atomic mode, cuDNN's default (PyTorch) and cuDNN's deterministic
mode (JAX), TFLOPS, with issue 32's targets (>= 0.9x / 0.8x cuDNN, >= 1.2x cuDNN deterministic, >= 0.95x atomic).
Usage: summary.py BENCH.json[.gz] [KERNEL]"""
import gzip, json, sys


def main():
    doc = json.load((gzip.open if sys.argv[1].endswith(".gz") else open)(sys.argv[1], "rt"))
    kernel = sys.argv[2] if len(sys.argv) > 2 else doc["metadata"]["kernels"][0]
    rows = {}
    for r in doc["records"]:
        if "tflops" not in r:
            continue
        k = (r["mask"], r["head_dim"], r["batch"] * r["heads"], r["seqlen"])
        v = rows.setdefault(k, {})
        if r["backend"] == "dashsim" and r.get("kernel") == kernel:
            if r["mode"] == "atomic":
                v["atomic"] = r["tflops"]
            elif r["tflops"] > v.get("det", (0,))[0]:
                v["det"] = (r["tflops"], r["policy"], r.get("bitwise_repeatable"))
        elif r["backend"] == "cudnn":
            v["jax-det" if r["mode"] == "deterministic" else "jax" if r.get("via") == "jax" else "cudnn"] = r["tflops"]
            if r["mode"] == "deterministic":
                v["jax-det-rep"] = r.get("runs_differing_from_first")
    print(f"kernel {kernel} on {doc['metadata'].get('gpu_name')}; correctness {doc['correctness_ok']}, determinism "
          f"{doc['determinism_ok']}. TFLOPS; det = best deterministic schedule; cudnn = PyTorch's cuDNN (default), "
          "jax / jax-det = cuDNN through JAX default / deterministic (runs differing from the first)")
    print(f"{'mask':6s} {'d':>3s} {'bh':>3s} {'seqlen':>6s} {'det':>6s} {'policy':16s} {'atomic':>6s} {'cudnn':>6s} "
          f"{'jax':>6s} {'jax-det':>11s} {'det/cudnn':>9s} {'det/jdet':>8s} {'det/atom':>8s}")
    nan = float("nan")
    for k in sorted(rows):
        v = rows[k]
        det, pol, rep = v.get("det", (nan, "-", None))
        g = lambda c: v.get(c, nan)
        print(f"{k[0]:6s} {k[1]:3d} {k[2]:3d} {k[3]:6d} {det:6.1f} {pol + ('' if rep in (None, True) else '*'):16s} "
              f"{g('atomic'):6.1f} {g('cudnn'):6.1f} {g('jax'):6.1f} {g('jax-det'):6.1f} ({v.get('jax-det-rep', '-')!s:>2s}) "
              f"{det / g('cudnn'):9.3f} {det / g('jax-det'):8.3f} {det / g('atomic'):8.3f}")


if __name__ == "__main__":
    main()
