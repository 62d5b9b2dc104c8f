#!/usr/bin/env python3
"""Turns a dashsim-kernel-bench JSON (gpu/bwd/bench.py; .json or .json.gz) into the committed table and figure
(docs/kernel.md): DIR/bench-table.md (TFLOPS per backend, the goal-ladder ratios and the ladder's conditions
over the grid), DIR/bench.dat and DIR/bench.png (gnuplot, gpu/bwd/plot.gp), and DIR/variants-table.md where the
bench timed the Hopper kernel's variants (BENCH_VARIANTS=1). KERNEL picks the dashsim kernel
of the policy columns (default: the bench's first kernel); "mma" is then the mma.sync kernel's best
deterministic policy, where the bench has it. Usage: table.py BENCH.json[.gz] DIR [KERNEL]"""
import gzip, json, os, subprocess, sys

COLS = ["fa3", "fa3-spt", "descending", "shift", "symmetric-shift", "atomic", "cudnn", "flash", "flash-det", "mma"]
JAX_COLS = ["cudnn-jax", "cudnn-det"]  # only where the bench has them: older tables stay as they were
DASH = ("fa3-spt", "descending", "shift", "symmetric-shift")


def key(r, kernel):
    """The record's column, or None for a dashsim kernel other than `kernel` (its mma.sync one: "mma-*")."""
    if r["backend"] == "dashsim":
        k = r.get("kernel", kernel)  # benches before the Hopper kernel name none
        col = "atomic" if r["mode"] == "atomic" else r["policy"]
        return col if k == kernel else "mma-" + col if k == "mma" else None
    if r.get("via") == "jax":  # cuDNN through JAX (gpu/bwd/cudnn_jax.py): its default and deterministic modes
        return "cudnn-det" if r["mode"] == "deterministic" else "cudnn-jax"
    return "flash-det" if r["backend"] == "flash" and r["mode"] == "deterministic" else r["backend"]


def ladder(rows):
    """Per shape the ratios of the issue's ladder; returns the table lines and the conditions' summaries."""
    fails = {c: [] for c in ("best det >= 0.7 cuDNN at causal d128 8k bh16", "best det >= 0.6 cuDNN",
                             "best det >= 1.3 flash-det", "best det >= 0.9 atomic", "best DASH >= 1.2 fa3 (causal)",
                             "best DASH >= 0.99 fa3")}
    lo = {c: float("inf") for c in fails}
    for k, v in sorted(rows.items()):
        t = lambda c: v[c]["tflops"] if c in v else float("nan")
        dash = max(t(c) for c in DASH if c in v)
        bdet = max(dash, t("fa3"))
        checks = {"best det >= 0.6 cuDNN": (bdet / t("cudnn"), 0.6), "best det >= 1.3 flash-det": (bdet / t("flash-det"), 1.3),
                  "best det >= 0.9 atomic": (bdet / t("atomic"), 0.9), "best DASH >= 0.99 fa3": (dash / t("fa3"), 0.99)}
        if k[0] == "causal":
            checks["best DASH >= 1.2 fa3 (causal)"] = (dash / t("fa3"), 1.2)
        if k == ("causal", 128, 16, 8192):
            checks["best det >= 0.7 cuDNN at causal d128 8k bh16"] = (bdet / t("cudnn"), 0.7)
        if "cudnn-det" in v:  # issue 32's targets, where the bench timed cuDNN's deterministic mode
            checks["best det >= 0.8 cuDNN (issue 32)"] = (bdet / t("cudnn"), 0.8)
            checks["best det >= 1.2 cuDNN deterministic (issue 32)"] = (bdet / t("cudnn-det"), 1.2)
            checks["best det >= 0.95 atomic (issue 32)"] = (bdet / t("atomic"), 0.95)
            if k[1] == 128 and k[3] >= 4096 and k[2] in (16, 64):
                checks["best det >= 0.9 cuDNN at d128, seqlen >= 4096, b x h 16/64 (issue 32)"] = (bdet / t("cudnn"), 0.9)
        for c, (x, need) in checks.items():
            fails.setdefault(c, [])
            lo.setdefault(c, float("inf"))
            lo[c] = min(lo[c], x)
            if not x >= need:
                fails[c].append(f"{k[0]} d{k[1]} bh{k[2]} s{k[3]} ({x:.3f})")
    return [f"- {c}: minimum {lo[c]:.3f} over the shapes it applies to; " +
            ("met at every one" if not f else f"NOT met at {len(f)}: " + ", ".join(f)) for c, f in fails.items()]


VARIANT_FLAGS = "s: Q/dO stages, b: dQ staging buffers, o: P^T overlapped with dP^T's wgmma, p: the next task's " \
    "scores issued before this task's dQ is staged, w: store warps (p and w act at head dim 64 only)"


def variants_table(doc, path):
    """Per variant shape: each kernel's best DASH policy, the fa3 order and its atomic mode (TFLOPS), and the
    ratio to the first Hopper variant listed (the default of that run)."""
    recs = [r for r in doc["variants"] if "tflops" in r]
    shapes = sorted({(r["mask"], r["head_dim"], r["batch"] * r["heads"], r["seqlen"]) for r in recs})
    kernels = list(dict.fromkeys(r["kernel"] for r in recs if r["backend"] == "dashsim"))
    m = doc["metadata"]
    lines = [f"Variants on {m.get('gpu_name')}, {m.get('date')} ({VARIANT_FLAGS}). Per shape: best DASH policy "
             f"deterministic / fa3 deterministic / fa3 atomic, TFLOPS; (x) = best DASH over the first row's.", "",
             "| kernel | " + " | ".join(f"{s[0]} d{s[1]} bh{s[2]} s{s[3]}" for s in shapes) + " |",
             "|" + "---|" * (len(shapes) + 1)]
    get = lambda k, sh, pol, mode: next((r["tflops"] for r in recs if r["backend"] == "dashsim" and r["kernel"] == k
                                         and (r["mask"], r["head_dim"], r["batch"] * r["heads"], r["seqlen"]) == sh
                                         and r["policy"] == pol and r["mode"] == mode), float("nan"))
    best = lambda sh: "symmetric-shift" if sh[0] == "causal" else "shift"
    for k in kernels:
        cells = []
        for sh in shapes:
            b, f, a = get(k, sh, best(sh), "deterministic"), get(k, sh, "fa3", "deterministic"), get(k, sh, "fa3", "atomic")
            cells.append(f"{b:.0f} / {f:.0f} / {a:.0f} ({b / get(kernels[0], sh, best(sh), 'deterministic'):.3f})")
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    cud = [next((r["tflops"] for r in recs if r["backend"] == "cudnn" and
                 (r["mask"], r["head_dim"], r["batch"] * r["heads"], r["seqlen"]) == sh), float("nan")) for sh in shapes]
    lines.append("| cudnn | " + " | ".join(f"{c:.0f}" for c in cud) + " |")
    open(path, "w").write("\n".join(lines) + "\n")


def main():
    path, out = sys.argv[1], sys.argv[2]
    doc = json.load((gzip.open if path.endswith(".gz") else open)(path, "rt"))
    m = doc["metadata"]
    kernel = sys.argv[3] if len(sys.argv) > 3 else (m.get("kernels") or ["mma"])[0]
    os.makedirs(out, exist_ok=True)
    rows = {}
    for r in doc["records"]:
        c = key(r, kernel)
        if "tflops" in r and c:
            rows.setdefault((r["mask"], r["head_dim"], r["batch"] * r["heads"], r["seqlen"]), {})[c] = r
    for v in rows.values():  # the mma.sync kernel's best deterministic policy, as one column
        mma = [r for c, r in v.items() if c.startswith("mma-") and r["mode"] == "deterministic"]
        if mma:
            v["mma"] = max(mma, key=lambda r: r["tflops"])
    has_jax = any(c in v for v in rows.values() for c in JAX_COLS)
    cols = COLS + (JAX_COLS if has_jax else [])
    lines = [f"Kernel {kernel}. TFLOPS (2.5 x forward FLOPs) on {m.get('gpu_name')}, driver {m.get('driver')}, "
             f"{m.get('date')}; torch {m.get('torch')}, cuDNN {m.get('cudnn')}. best = best deterministic DASH policy "
             "(not fa3); det/atomic = best deterministic policy over the atomic mode; det/flash-det = the same over "
             "PyTorch's deterministic flash; mma = the mma.sync kernel's best deterministic policy; a policy marked "
             "* was not bitwise repeatable in its timed runs." + (
                 " cudnn-jax / cudnn-det = cuDNN's default / deterministic mode through JAX (gpu/bwd/cudnn_jax.py, "
                 "its own process); det/cudnn-det = best deterministic over cuDNN's deterministic mode." if has_jax
                 else ""), "",
             "| mask | d | b x h | seqlen | " + " | ".join(cols) +
             " | best/fa3 | det/atomic | fa3/cudnn | best/cudnn | det/flash-det |" + (" det/cudnn-det |" if has_jax else ""),
             "|" + "---|" * (len(cols) + 9 + has_jax)]
    dat = []
    for k in sorted(rows):
        v = rows[k]
        cell = lambda c: (f"{v[c]['tflops']:.0f}" + ("" if v[c].get("bitwise_repeatable", True) or c == "atomic" else "*")
                          if c in v else "")
        t = lambda c: v[c]["tflops"] if c in v else float("nan")
        dash = {c: t(c) for c in DASH if c in v}
        best = max(dash.values()) if dash else float("nan")
        bdet = max(best, t("fa3"))
        ratios = [best / t("fa3"), bdet / t("atomic"), t("fa3") / t("cudnn"), best / t("cudnn"), bdet / t("flash-det")]
        ratios += [bdet / t("cudnn-det")] if has_jax else []
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | " + " | ".join(cell(c) for c in cols) + " | " +
                     " | ".join(f"{x:.2f}" for x in ratios) + " |")
        dat.append(f"{k[0]}-d{k[1]}-bh{k[2]} {k[3]} " + " ".join(f"{t(c):.1f}" if c in v else "NaN" for c in cols))
    lines += ["", "The goal ladder's conditions over this grid (issue 23):"] + ladder(rows)
    open(os.path.join(out, "bench-table.md"), "w").write("\n".join(lines) + "\n")
    if doc.get("variants"):
        variants_table(doc, os.path.join(out, "variants-table.md"))
    groups = sorted({d.split()[0] for d in dat})
    with open(os.path.join(out, "bench.dat"), "w") as f:
        f.write("# seqlen " + " ".join(cols) + "\n")
        for g in groups:  # one gnuplot index per (mask, head dim, b x h)
            f.write(f"# {g}\n" + "\n".join(" ".join(d.split()[1:]) for d in dat if d.split()[0] == g) + "\n\n\n")
    here = os.path.dirname(os.path.abspath(__file__))
    title = f"dashsim bwd kernel ({kernel}) vs PyTorch on {m.get('gpu_name')}"
    subprocess.run(["gnuplot", "-e", f"dat='{out}/bench.dat'; png='{out}/bench.png'; groups='{' '.join(groups)}'; "
                    f"head='{title}'", os.path.join(here, "plot.gp")], check=True)


if __name__ == "__main__":
    main()
