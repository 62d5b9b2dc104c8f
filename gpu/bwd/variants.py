#!/usr/bin/env python3
"""Issue 32's variant run (gpu/scripts/run-kernel-variants.sh; predictions in gpu/bwd/NOTES.md before the run): the
Hopper kernel's candidate variants beside the default and cuDNN's default backward (PyTorch) at long shapes.
First bench.py's correctness sweep (every policy, MHA and GQA, both head dims, against the fp32 reference) and
bit identity over DET_RUNS runs of every policy, for every kernel of VARIANTS; then per shape VARIANT_ROUNDS
interleaved timing rounds (every kernel and cuDNN once per round; ms = median of the rounds' medians), bit
identity over 5 more runs, the gradients' error and whether they equal the default's bit for bit, for the best
DASH schedule (symmetric-shift causal, shift full). Writes OUT/variants.json ("dashsim-kernel-variants", after
every shape) and OUT/variants.md."""
import json, os, sys, time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (its Lib, inputs, reference, timing and checks: one implementation)
from bench import SDPBackend  # noqa: E402

VARIANTS = os.environ.get("VARIANTS", "wgmma,wgmma-s2b2o1p0w1").split(",")
DEFAULT = os.environ.get("VARIANT_BASE", "wgmma")  # the kernel the others are compared with (ratios, bits)
SHAPES = [("causal", 16, 8192, 128), ("full", 16, 8192, 128), ("causal", 64, 4096, 128), ("full", 64, 4096, 128),
          ("causal", 16, 4096, 128), ("causal", 16, 4096, 64), ("full", 16, 8192, 64), ("causal", 16, 8192, 64),
          ("full", 16, 4096, 64), ("causal", 64, 4096, 64), ("full", 64, 4096, 64)]
BEST = {"causal": "symmetric-shift", "full": "shift"}
ROUNDS = int(os.environ.get("VARIANT_ROUNDS", "5"))
DET_RUNS = int(os.environ.get("DET_RUNS", "20"))
REPEATS = 5


def shape_records(lib, mask, bh, s, d):
    """One record per kernel of VARIANTS and one for cuDNN at one shape."""
    causal = mask == "causal"
    t, scale, ref, fl, base = bench.shape_inputs(mask, bh, s, d)
    handles = {k: lib.plan(BEST[mask], mask, s, bh, k, d) for k in VARIANTS}
    runs = [dict(kernel=k, handle=handles[k][0], fn=bench.dash_fn(lib, handles[k][0], t, scale, False)) for k in VARIANTS]
    runs.append(dict(kernel=None, handle=None, fn=bench.torch_fn(t, causal, scale, SDPBackend.CUDNN_ATTENTION)))
    out, default_grads = [], None
    for run, rounds in zip(runs, bench.timed_rounds(runs)):
        rec = dict(base, backend="dashsim" if run["kernel"] else "cudnn", kernel=run["kernel"],
                   policy=BEST[mask] if run["kernel"] else None, mode="deterministic" if run["kernel"] else "default",
                   plan_file=handles[run["kernel"]][1] if run["kernel"] else None)
        try:
            if isinstance(rounds, Exception):
                raise rounds
            ms = sorted(r[0] for r in rounds)[len(rounds) // 2]
            rec.update(ms_rounds=[r[0] for r in rounds], timed_reps=sum(r[1] for r in rounds))
            if run["handle"]:
                bench.lib_check(run["handle"])
            rec.update(bitwise_repeatable=bench.repeat_same(run["fn"], REPEATS), repeat_runs=REPEATS)
            grads = [x.clone() for x in run["fn"]()]
            if run["handle"]:
                bench.lib_check(run["handle"])
            rec.update(bench.errors(grads, ref))
            rec.update(ms=ms, tflops=fl / ms / 1e9)  # last: bench.show prints a record with tflops whole
            if run["kernel"] == DEFAULT:
                default_grads = grads
            elif run["kernel"] and default_grads is not None:
                rec["bit_identical_to_default"] = all(torch.equal(a, b) for a, b in zip(grads, default_grads))
        except Exception as ex:
            rec["error"] = str(ex)[:300]
        out.append(rec)
        bench.show(rec)
    for h, _ in handles.values():
        lib.L.bwd_free(h)
    del t, ref, runs
    torch.cuda.empty_cache()
    return out


def table(records):
    """Markdown: per shape, TFLOPS of each kernel (its ratio to the default) and of cuDNN; the kernel's ratio to cuDNN."""
    cols = [f"{m} d{d} bh{bh} {s}" for m, bh, s, d in SHAPES]
    at = {}
    for r in records:
        at[(r["kernel"] or "cudnn", f"{r['mask']} d{r['head_dim']} bh{r['batch'] * r['heads']} {r['seqlen']}")] = r
    lines = ["| kernel | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for k in VARIANTS + ["cudnn"]:
        cells = []
        for c in cols:
            r, r0, rc = at.get((k, c)), at.get((DEFAULT, c)), at.get(("cudnn", c))
            if not r or "tflops" not in r:
                cells.append("error" if r else "")
                continue
            cell = f"{r['tflops']:.1f}"
            if k != "cudnn" and r0 and "tflops" in r0 and rc and "tflops" in rc:
                cell += f" ({r['tflops'] / r0['tflops']:.3f}x def, {r['tflops'] / rc['tflops']:.3f}x cuDNN)"
            if k != "cudnn" and not (r.get("bitwise_repeatable") and max(r["dq_rel_err"], r["dk_rel_err"],
                                                                            r["dv_rel_err"]) < 0.02):
                cell += " FAIL"
            if r.get("bit_identical_to_default") is False:
                cell += " (bits differ from the default's)"
            cells.append(cell)
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    os.makedirs(bench.OUT, exist_ok=True)
    bench.LOG = open(os.path.join(bench.OUT, "log-variants.txt"), "a")
    bench.KERNELS, bench.ROUNDS = VARIANTS, ROUNDS
    lib = bench.LIB = bench.Lib(os.path.join(bench.ROOT, "build/gpu/bwd/libdashbwd.so"))
    torch.utils.deterministic.fill_uninitialized_memory = False
    buf = bench.ctypes.create_string_buffer(4096)
    lib.L.bwd_device_meta_json(buf, 4096)
    meta = json.loads(buf.value.decode())
    meta.update(torch=torch.__version__, cudnn=torch.backends.cudnn.version(), variants=VARIANTS, rounds=ROUNDS,
                timing="CUDA events per run, median; runs queued behind a 10 ms sleep kernel; every kernel and cuDNN "
                       "once per round, ms = median of the rounds' medians")
    bench.log("device:", json.dumps(meta))
    t0 = time.time()
    ok_c, corr = bench.correctness(lib)
    ok_d, det = bench.determinism(lib, DET_RUNS)
    bench.log(f"correctness {'ok' if ok_c else 'FAILED'}, determinism {'ok' if ok_d else 'FAILED'} "
              f"({time.time() - t0:.0f} s)")
    records = []

    def save():
        doc = {"format": "dashsim-kernel-variants", "version": 1, "metadata": meta, "correctness": corr,
               "determinism": det, "correctness_ok": ok_c, "determinism_ok": ok_d, "records": records}
        with open(os.path.join(bench.OUT, "variants.json.tmp"), "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(os.path.join(bench.OUT, "variants.json.tmp"), os.path.join(bench.OUT, "variants.json"))
        with open(os.path.join(bench.OUT, "variants.md"), "w") as f:
            f.write(table(records))
    for mask, bh, s, d in SHAPES:
        records += shape_records(lib, mask, bh, s, d)
        save()
    bench.log(f"done in {time.time() - t0:.0f} s, {len(records)} records")
    bench.log(table(records))
    sys.exit(0 if ok_c and ok_d else 1)


if __name__ == "__main__":
    main()
