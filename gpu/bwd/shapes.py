#!/usr/bin/env python3
"""Times and traces the kernel at a list of shapes (docs/profile.md, "Making a kernel profile"): for each shape
of a JSON shape list, every policy of its mask in deterministic mode and the fa3 order in atomic mode, each
checked against an fp32 reference slice and for bit identity over 3 runs, timed with CUDA events (median),
and, under the list's trace limit, one recorded run per policy written as a dashsim trace (with the stage
times of that run, recorded right after an unrecorded run). Writes OUT/NAME.json ("dashsim-kernel-runs") and
OUT/NAME-dD-traces.tgz (one archive per head dim). BWD_KERNEL picks the
kernel (bwd_set_kernel: "mma", the default here, as the committed runs; "wgmma" or a variant). ROUNDS=R (default 1)
times every run of a shape R times, in interleaved rounds (each round every run once, the round's order rotated by
one), after the checks, and records the median over the rounds as ms (each round's in ms_rounds, the time taken
beside the checks in ms_first), so that a run's spread from round to round is on record (short launches: median 0.6%,
traces/kernel-wg-h200/short-rounds/).
Usage: OUT=DIR [BWD_KERNEL=K] [ROUNDS=R] python3 gpu/bwd/shapes.py SHAPES.json PLANS_DIR [LIB.so]"""
import ctypes, json, lzma, math, os, shutil, sys, tarfile, time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (Lib, inputs, reference, timing: one implementation)

POLICIES = {"full": ["fa3", "descending", "shift"], "causal": ["fa3", "fa3-spt", "descending", "symmetric-shift"]}


def plan_path(plans, policy, mask, s, bh, d):
    """The plan of a shape for this run's kernel: 128-row Q tiles (-m128, make-shape-plans.py with TILE_M=128) for
    the variants named ...m128 at head dim 64 (bench.block_m), else 64."""
    name = f"{policy}-{mask}-s{s}-bh{bh}{'-m128' if bench.block_m(KERNEL, d) == 128 else ''}.plan"
    path = os.path.join("/tmp/dash-shape-plans", name)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with lzma.open(os.path.join(plans, name + ".xz")) as f, open(path, "wb") as g:
            g.write(f.read())
    return path, name


KERNEL = os.environ.get("BWD_KERNEL", "mma")
ROUNDS = int(os.environ.get("ROUNDS", "1"))


def open_plan(lib, path):
    err = ctypes.create_string_buffer(1024)
    h = lib.L.bwd_new(path.encode(), err, 1024)
    if not h:
        raise RuntimeError(err.value.decode())
    if lib.L.bwd_set_kernel(h, KERNEL.encode()):
        raise RuntimeError(lib.L.bwd_error(h).decode())
    return h


def run_shape(lib, sh, plans, out, trace_max_tasks, records):
    s, b, hq, hkv, d, mask = sh["seqlen"], sh["batch"], sh["heads"], sh["kv_heads"], sh["head_dim"], sh["mask"]
    causal, bh = mask == "causal", b * hq
    tag = f"{mask}-s{s}-b{b}-h{hq}-kv{hkv}-d{d}"
    t, scale = bench.make_inputs(b, hq, hkv, s, d, causal, seed=s + 7 * d + bh + hkv)
    ref = bench.reference(t, causal, scale, min(hq, max(2, hq // hkv)))  # whole KV groups
    fl = bench.flops(b, hq, s, d, causal)
    base = dict(seqlen=s, head_dim=d, mask=mask, batch=b, heads=hq, kv_heads=hkv)
    runs = [(p, False) for p in sh.get("policies", POLICIES[mask])] + [("fa3", True)]
    handles, timed = {}, []  # timed: (record, fn) of every run that timed, for the later rounds
    for pol, atomic in runs:
        rec = dict(backend="dashsim", kernel=KERNEL, policy=pol, mode="atomic" if atomic else "deterministic", **base)
        try:
            if pol not in handles:
                path, name = plan_path(plans, pol, mask, s, bh, d)
                handles[pol] = (open_plan(lib, path), name)
            h, name = handles[pol]
            fn = bench.dash_fn(lib, h, t, scale, atomic)
            for x in ("dq", "dk", "dv"):
                t[x].fill_(float("nan"))
            e = bench.errors(bench.dash_fn(lib, h, t, scale, atomic, check=True)(), ref)
            ms, reps = bench.time_fn(fn)
            lib.check(h)
            rep = bench.repeat_same(fn, 3)
            lib.check(h)
            ok = all(math.isfinite(v) for v in e.values()) and max(e[k] for k in ("dq_rel_err", "dk_rel_err",
                                                                                  "dv_rel_err")) < 0.02
            rec.update(ms=ms, timed_reps=reps, tflops=fl / ms / 1e9, bitwise_repeatable=rep, repeat_runs=3,
                       gradients_ok=ok, plan_file=name, **e)
            timed.append((rec, fn))
            if plan_tasks(lib, h) <= trace_max_tasks:
                # recorded right after an unrecorded backward of the same plan, so that L2 holds what it holds between
                # the timed runs: the bit-identity check's reads evict a small problem's inputs, and the launch's first
                # compute is 1.1 us longer with them out of L2 (docs/profile.md, "Short launches"; since session 9)
                fn()
                lib.run(h, t, scale, atomic, record=True)
                trace = f"d{d}/{pol}{'-atomic' if atomic else ''}-{tag}.json"
                os.makedirs(os.path.join(out, "traces", f"d{d}"), exist_ok=True)
                meta = (f"mode={rec['mode']};seqlen={s};head_dim={d};batch={b};"
                        f"heads_per_batch={hq};kv_heads={hkv};plan_file={name}")
                if lib.L.bwd_write_trace(h, os.path.join(out, "traces", trace).encode(), meta.encode()):
                    rec["trace_error"] = lib.L.bwd_error(h).decode()
                else:
                    rec["trace"] = trace
        except Exception as ex:  # a failed run is recorded, never fatal to the rest
            rec["error"] = str(ex)[:300]
        records.append(rec)
        bench.log(f"  {tag:34s} {pol:16s} {rec['mode']:13s} " +
                  (f"{rec['ms']:8.3f} ms {rec['tflops']:6.1f} TFLOPS rep={rec['bitwise_repeatable']} "
                   f"ok={rec['gradients_ok']} dq_rel={rec['dq_rel_err']:.2e}" if "ms" in rec else "ERROR " + rec["error"]))
    if ROUNDS > 1 and timed:  # the time above, taken beside each run's checks, is kept as ms_first
        for rec, _ in timed:
            rec.update(ms_first=rec["ms"], ms_rounds=[])
        for r in range(ROUNDS):
            for rec, fn in timed[r % len(timed):] + timed[:r % len(timed)]:
                rec["ms_rounds"].append(bench.time_fn(fn)[0])
        for rec, _ in timed:
            ms = sorted(rec["ms_rounds"])[ROUNDS // 2]
            rec.update(ms=ms, tflops=fl / ms / 1e9)
            lib.check(handles[rec["policy"]][0])
            bench.log(f"  {tag:34s} {rec['policy']:16s} {rec['mode']:13s} {rec['ms']:8.3f} ms, median of {ROUNDS} "
                      f"interleaved rounds ({min(rec['ms_rounds']):.3f}-{max(rec['ms_rounds']):.3f})")
    for h, _ in handles.values():
        lib.L.bwd_free(h)
    del t, ref
    torch.cuda.empty_cache()


def plan_tasks(lib, h):
    info = (ctypes.c_int * 7)()
    lib.L.bwd_info(h, info)
    return info[6]


def main():
    shapes_file, plans = sys.argv[1], sys.argv[2]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    so = sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, "build/gpu/bwd/libdashbwd.so")
    with open(shapes_file) as f:
        spec = json.load(f)
    out = os.environ.get("OUT", "/tmp/shapes-out")
    name = spec["name"]
    os.makedirs(os.path.join(out, "traces"), exist_ok=True)
    bench.LOG = open(os.path.join(out, f"{name}-log.txt"), "a")
    lib = bench.Lib(so)
    buf = ctypes.create_string_buffer(4096)
    lib.L.bwd_device_meta_json(buf, 4096)
    meta = json.loads(buf.value.decode())
    meta.update(kernel={"mma": "dashsim-bwd", "wgmma": "dashsim-bwd-wgmma"}.get(KERNEL, KERNEL),
                torch=torch.__version__, shapes_file=os.path.basename(shapes_file),
                timing="CUDA events per run, median; runs queued behind a 10 ms sleep kernel" +
                (f"; ms the median of {ROUNDS} interleaved rounds" if ROUNDS > 1 else ""))
    bench.log("device:", json.dumps(meta))
    records, t0 = [], time.time()
    for sh in spec["shapes"]:
        run_shape(lib, sh, plans, out, spec.get("trace_max_tasks", 80000), records)
        doc = {"format": "dashsim-kernel-runs", "version": 1, "name": name, "metadata": meta,
               "shapes": spec["shapes"], "records": records}
        with open(os.path.join(out, f"{name}.json.tmp"), "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(os.path.join(out, f"{name}.json.tmp"), os.path.join(out, f"{name}.json"))
    for sub in sorted(os.listdir(os.path.join(out, "traces"))):  # one archive per head dim: each under 16 MB
        with tarfile.open(os.path.join(out, f"{name}-{sub}-traces.tgz"), "w:gz") as tar:
            tar.add(os.path.join(out, "traces", sub), arcname=f"{name}-traces/{sub}")
    shutil.rmtree(os.path.join(out, "traces"))
    bad = [r for r in records if "error" in r or not r.get("gradients_ok") or
           (r["mode"] == "deterministic" and not r.get("bitwise_repeatable"))]
    bench.log(f"done in {time.time() - t0:.0f} s, {len(records)} records, {len(bad)} failed")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
