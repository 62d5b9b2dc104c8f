#!/usr/bin/env python3
"""dashsim kernel benchmark (docs/kernel.md): correctness against an fp32 reference, 100-run bitwise
repeatability, and TFLOPS of every dashsim policy, the atomic mode, PyTorch's cuDNN and flash backends
(flash also deterministic), side by side in one process, and cuDNN's default and deterministic modes through JAX
(gpu/bwd/cudnn_jax.py, one process per mode: backend "cudnn", via "jax"; BENCH_JAX=0 skips it), for each kernel of BENCH_KERNELS (default
"wgmma,mma": the Hopper kernel and the mma.sync fallback); with BENCH_VARIANTS=1 also the Hopper kernel's
variants at a few shapes. Writes OUT/bench.json ("dashsim-kernel-bench"), OUT/traces/*.json (bin/sim
validate's trace format) and prints a table. TFLOPS = 2.5 x forward FLOPs (4 b h s^2 d, halved for causal)
/ median backward time."""
import ctypes, json, lzma, math, os, subprocess, sys, time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLANS = os.path.join(ROOT, "build/gpu/bwd/plans")
OUT = os.environ.get("OUT", "/tmp/bench-out")
POLICIES = {"full": ["fa3", "descending", "shift"], "causal": ["fa3", "fa3-spt", "descending", "symmetric-shift"]}
TIMEOUT_MS = 3000
KERNELS = os.environ.get("BENCH_KERNELS", "wgmma,mma").split(",")
VARIANTS = ["wgmma", "wgmma-s2b1o1p0w1", "wgmma-s2b1o0p0w1", "wgmma-s3b1o1p0w1", "wgmma-s2b2o1p0w1",
            "wgmma-s2b1o1p1w1", "wgmma-s2b2o1p1w2", "mma"]
GRID = os.environ.get("BENCH_GRID", "")  # "MASK:BH:SEQ,..." replaces the default grid (seqlen a multiple of 128)
DIMS = [int(x) for x in os.environ.get("BENCH_DIMS", "128,64").split(",")]
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))  # the grid's timing rounds, every backend once per round
LOG = None


def log(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    LOG.write(s + "\n")
    LOG.flush()


class Lib:
    def __init__(self, path):
        L = ctypes.CDLL(path)
        L.bwd_new.restype = ctypes.c_void_p
        L.bwd_new.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
        L.bwd_free.argtypes = [ctypes.c_void_p]
        L.bwd_info.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        L.bwd_run.restype = ctypes.c_int
        L.bwd_run.argtypes = [ctypes.c_void_p] + [ctypes.c_void_p] * 9 + [ctypes.c_int] * 5 + [
            ctypes.c_float, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_longlong]
        L.bwd_check.argtypes = [ctypes.c_void_p]
        L.bwd_error.restype = ctypes.c_char_p
        L.bwd_error.argtypes = [ctypes.c_void_p]
        L.bwd_write_trace.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
        L.bwd_device_meta_json.argtypes = [ctypes.c_char_p, ctypes.c_int]
        L.bwd_set_kernel.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        L.bwd_kernel_name.restype = ctypes.c_char_p
        L.bwd_kernel_name.argtypes = [ctypes.c_void_p]
        self.L = L

    def plan(self, policy, mask, s, bh, kernel="wgmma", d=None):
        """A handle on the plan of the shape for kernel at head dim d (its Q tile: block_m), and the plan's name."""
        name = f"{policy}-{mask}-s{s}-bh{bh}{'-m128' if block_m(kernel, d) == 128 else ''}.plan"
        path = os.path.join("/tmp/dash-plans", name)
        if not os.path.exists(path):
            os.makedirs("/tmp/dash-plans", exist_ok=True)
            with lzma.open(os.path.join(PLANS, name + ".xz")) as f, open(path, "wb") as g:
                g.write(f.read())
        err = ctypes.create_string_buffer(1024)
        h = self.L.bwd_new(path.encode(), err, 1024)
        if not h:
            raise RuntimeError(err.value.decode())
        if self.L.bwd_set_kernel(h, kernel.encode()):
            raise RuntimeError(self.L.bwd_error(h).decode())
        return h, name

    def run(self, h, t, scale, atomic, record=False):
        b, hq, s, d = t["q"].shape
        hkv = t["k"].shape[1]
        rc = self.L.bwd_run(h, *(t[x].data_ptr() for x in ("q", "k", "v", "o", "do", "lse", "dq", "dk", "dv")),
                            b, hq, hkv, s, d, scale, int(atomic), int(record),
                            torch.cuda.current_stream().cuda_stream, TIMEOUT_MS)
        if rc:
            raise RuntimeError(self.L.bwd_error(h).decode())

    def check(self, h):
        if self.L.bwd_check(h):
            raise RuntimeError("dashsim kernel failed: " + self.L.bwd_error(h).decode())


def block_m(kernel, d):
    """Q rows per tile of kernel at head dim d (BwdWgCfg's BM): 128 for the Hopper variants named ...m128 at head
    dim 64 (their plans: gpu/scripts/plans-kernel-bench.sh with TILE_M=128), else 64."""
    return 128 if d == 64 and kernel.endswith("m128") else 64


def flops(b, h, s, d, causal):
    return 2.5 * 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)


def make_inputs(b, h, hkv, s, d, causal, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    r = lambda *shape: torch.randn(*shape, device="cuda", dtype=torch.bfloat16, generator=g)
    q, k, v, do = r(b, h, s, d), r(b, hkv, s, d), r(b, hkv, s, d), r(b, h, s, d)
    scale = 1.0 / math.sqrt(d)
    ke, ve = (k, v) if hkv == h else (k.repeat_interleave(h // hkv, 1), v.repeat_interleave(h // hkv, 1))
    o, lse = torch.ops.aten._scaled_dot_product_flash_attention(q, ke, ve, 0.0, causal, False, scale=scale)[:2]
    t = dict(q=q, k=k, v=v, do=do, o=o.contiguous(), lse=lse.float().contiguous(),
             dq=torch.empty_like(q), dk=torch.empty_like(k), dv=torch.empty_like(v))
    return t, scale


def reference(t, causal, scale, nh):
    """fp32 gradients of batch 0, query heads 0..nh-1 (and their KV heads), math on upcast inputs."""
    h, hkv = t["q"].shape[1], t["k"].shape[1]
    grp = h // hkv
    nkv = max(1, nh // grp)
    q = t["q"][0:1, :nh].float().requires_grad_()
    k = t["k"][0:1, :nkv].float().requires_grad_()
    v = t["v"][0:1, :nkv].float().requires_grad_()
    ke, ve = k.repeat_interleave(grp, 1), v.repeat_interleave(grp, 1)
    sc = torch.matmul(q, ke.transpose(-1, -2)) * scale
    if causal:
        s = sc.shape[-1]
        sc = sc.masked_fill(torch.ones(s, s, device="cuda", dtype=torch.bool).triu(1), float("-inf"))
    o = torch.matmul(torch.softmax(sc, -1), ve)
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), t["do"][0:1, :nh].float())
    return dq, dk, dv, nh, nkv


def errors(grads, ref):
    dq, dk, dv = grads
    rq, rk, rv, nh, nkv = ref
    out = {}
    for name, x, r, n in (("dq", dq, rq, nh), ("dk", dk, rk, nkv), ("dv", dv, rv, nkv)):
        diff = x[0:1, :n].float() - r
        out[name + "_max_abs_err"] = float(diff.abs().max())
        out[name + "_rel_err"] = float(diff.norm() / r.norm())
    return out


def torch_fn(t, causal, scale, backend, deterministic=False):
    h, hkv = t["q"].shape[1], t["k"].shape[1]
    q, k, v = (t[x].detach().clone().requires_grad_() for x in ("q", "k", "v"))
    with sdpa_kernel([backend]):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale, enable_gqa=h != hkv)

    def fn():
        if deterministic:
            torch.use_deterministic_algorithms(True)  # warn_only=True would keep flash non-deterministic
        try:
            return torch.autograd.grad(o, (q, k, v), t["do"], retain_graph=True)
        finally:
            if deterministic:
                torch.use_deterministic_algorithms(False)
    return fn


LIB = None


def lib_check(h):
    LIB.check(h)


def dash_fn(lib, h, t, scale, atomic, check=False):
    def fn():
        lib.run(h, t, scale, atomic)
        if check:
            lib.check(h)
        return t["dq"], t["dk"], t["dv"]
    return fn


def time_fn(fn, budget_s=0.03, watch=None):
    """The median ms of fn's repetitions (and their count), after two warm-up launches and a 10 ms sleep. watch, when
    given, is called as watch(start, events, t0) once every repetition is queued (start: an event recorded before the
    sleep, at host time t0; events: each repetition's pair): gpu/bwd/sustained.py polls the SM clock there."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    est = time.perf_counter() - t0
    reps = max(3, min(25, int(budget_s / max(est, 1e-6))))
    start = torch.cuda.Event(enable_timing=True) if watch else None
    if watch:
        start.record()
    t0 = time.perf_counter()
    torch.cuda._sleep(int(2e7))  # ~10 ms: the host queues every rep before the first starts
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    if watch:
        watch(start, ev, t0)
    torch.cuda.synchronize()
    ms = sorted(a.elapsed_time(b) for a, b in ev)
    return ms[len(ms) // 2], reps


def repeat_same(fn, n):
    """Runs fn n times; True when every run's dQ, dK, dV equal the first run's bit for bit."""
    first = [x.clone() for x in fn()]
    same = True
    for _ in range(n - 1):
        out = fn()
        same &= all(torch.equal(a, b) for a, b in zip(first, out))
    return same


def correctness(lib):
    log("== correctness: seqlen 1024, batch 2 x heads 8 (MHA, and GQA with 2 KV heads), fp32 reference")
    ok = True
    rows = []
    for d in (64, 128):
        for mask in ("full", "causal"):
            causal = mask == "causal"
            for hkv in (8, 2):
                t, scale = make_inputs(2, 8, hkv, 1024, d, causal, seed=d + hkv + causal)
                ref = reference(t, causal, scale, 8)
                yard = None
                if hkv == 8:
                    yard = errors(torch_fn(t, causal, scale, SDPBackend.FLASH_ATTENTION)(), ref)
                    log(f"  d{d} {mask} mha torch-flash bf16: " + " ".join(f"{k}={v:.3g}" for k, v in yard.items()))
                for kernel, pol in ((k, p) for k in KERNELS for p in POLICIES[mask] + ["atomic"]):
                    h, _ = lib.plan("fa3" if pol == "atomic" else pol, mask, 1024, 16, kernel, d)
                    for x in ("dq", "dk", "dv"):
                        t[x].fill_(float("nan"))
                    try:
                        e = errors(dash_fn(lib, h, t, scale, pol == "atomic", check=True)(), ref)
                    except RuntimeError as ex:
                        log("  " + str(ex))
                        e = {k: float("nan") for k in ("dq_max_abs_err", "dq_rel_err", "dk_max_abs_err",
                                                        "dk_rel_err", "dv_max_abs_err", "dv_rel_err")}
                    lib.L.bwd_free(h)
                    good = all(math.isfinite(v) for v in e.values()) and max(
                        e[k] for k in ("dq_rel_err", "dk_rel_err", "dv_rel_err")) < 0.02
                    ok &= good
                    rows.append(dict(kernel=kernel, head_dim=d, mask=mask, kv_heads=hkv, policy=pol, ok=good, **e))
                    log(f"  {kernel:6s} d{d} {mask} kv_heads {hkv} {pol:16s} {'ok' if good else 'FAIL'} " +
                        " ".join(f"{k}={v:.3g}" for k, v in e.items()))
                del t
    return ok, rows


def determinism(lib, n=100):
    log(f"== bitwise repeatability: {n} runs each, seqlen 2048, batch 2 x heads 8, every policy; atomic too")
    rows = []
    ok = True
    for d in (64, 128):
        for mask in ("full", "causal"):
            causal = mask == "causal"
            t, scale = make_inputs(2, 8, 8, 2048, d, causal, seed=7)
            for kernel, pol in ((k, p) for k in KERNELS for p in POLICIES[mask] + ["atomic"]):
                h, _ = lib.plan("fa3" if pol == "atomic" else pol, mask, 2048, 16, kernel, d)
                fn = dash_fn(lib, h, t, scale, pol == "atomic")
                differ = 0
                try:
                    first = [x.clone() for x in fn()]
                    lib.check(h)
                    for _ in range(n - 1):
                        out = fn()
                        differ += not all(torch.equal(a, b) for a, b in zip(first, out))
                    lib.check(h)
                except RuntimeError as ex:
                    log("  " + str(ex))
                    differ = n
                lib.L.bwd_free(h)
                same = differ == 0
                if pol != "atomic":
                    ok &= same
                rows.append(dict(kernel=kernel, head_dim=d, mask=mask, policy=pol, runs=n,
                                 runs_differing_from_first=differ))
                log(f"  {kernel:6s} d{d} {mask} {pol:16s} {n} runs: {differ} differ from the first"
                    + ("" if pol == "atomic" else (" (bit-identical)" if same else " FAIL")))
            del t
    return ok, rows


TRACE_SET = {("full", 4096, 16, 128), ("causal", 4096, 16, 128), ("causal", 8192, 16, 128), ("full", 4096, 16, 64),
             ("causal", 4096, 16, 64)}
# The variant table (docs/kernel.md, "Variants"): each Hopper variant and the mma.sync kernel, best DASH schedule,
# fa3 order deterministic and atomic, at the goal shape and three others.
VARIANT_SHAPES = [("causal", 16, 8192, 128), ("full", 16, 2048, 128), ("causal", 16, 4096, 64), ("full", 16, 1024, 64),
                  ("full", 16, 8192, 64)]


def measure(fn, handle, fl, ref, rounds=None, **fields):
    """One record: median time (or the median of the rounds' medians, given), bit identity over 3 more runs,
    errors; an exception is recorded, not fatal."""
    try:
        if rounds:
            ms, reps = sorted(r[0] for r in rounds)[len(rounds) // 2], sum(r[1] for r in rounds)
            fields["ms_rounds"] = [r[0] for r in rounds]
        else:
            ms, reps = time_fn(fn)
        if handle:
            lib_check(handle)
        rep = repeat_same(fn, 3)
        if handle:
            lib_check(handle)
        e = errors(fn(), ref)
        return dict(**fields, ms=ms, timed_reps=reps, tflops=fl / ms / 1e9, bitwise_repeatable=rep, repeat_runs=3, **e)
    except Exception as ex:
        return dict(**fields, error=str(ex)[:300])


def show(rec):
    s = rec.get
    head = (f"  {s('mask'):6s} s{s('seqlen'):5d} bh{s('batch') * s('heads'):2d} d{s('head_dim'):3d} {s('backend'):7s} "
            f"{str(s('kernel') or s('via') or ''):13s} {str(s('policy')):16s} {s('mode'):13s} ")
    log(head + (f"{rec['tflops']:6.1f} TFLOPS {rec['ms']:8.3f} ms rep={rec['bitwise_repeatable']} "
                f"dq_rel={rec['dq_rel_err']:.2e} dk_rel={rec['dk_rel_err']:.2e} dv_rel={rec['dv_rel_err']:.2e}"
                if "tflops" in rec else "ERROR " + rec["error"]))


def shape_inputs(mask, bh, s, d, heads=16):
    causal = mask == "causal"
    b = bh // heads
    t, scale = make_inputs(b, heads, heads, s, d, causal, seed=s + d + bh)
    base = dict(seqlen=s, head_dim=d, mask=mask, batch=b, heads=heads, kv_heads=heads,
                error_reference="fp32 math on upcast inputs, batch 0, query heads 0-1")
    return t, scale, reference(t, causal, scale, 2), flops(b, heads, s, d, causal), base


def torch_runs(t, causal, scale):
    return [("cudnn", "default", torch_fn(t, causal, scale, SDPBackend.CUDNN_ATTENTION)),
            ("flash", "default", torch_fn(t, causal, scale, SDPBackend.FLASH_ATTENTION)),
            ("flash", "deterministic", torch_fn(t, causal, scale, SDPBackend.FLASH_ATTENTION, True))]


def timed_rounds(runs):
    """ROUNDS rounds, each timing every run once in turn (a drift of the clock reaches every backend alike);
    per run the list of (median ms, reps), or the exception that stopped it."""
    out = [[] for _ in runs]
    for _ in range(ROUNDS):
        for i, run in enumerate(runs):
            if isinstance(out[i], Exception):
                continue
            try:
                out[i].append(time_fn(run["fn"]))
                if run["handle"]:
                    lib_check(run["handle"])
            except Exception as ex:
                out[i] = ex
    return out


def jax_cudnn(groups, dims):
    """cuDNN through JAX for every (group, head dim), default then deterministic, each mode in its own process
    (XLA_FLAGS must be set before jax is imported; no preallocation beside torch). Returns {(mask, bh, s, d):
    [records]}; a mode whose process fails leaves an error record per shape, not a stopped bench."""
    shapes = [dict(mask=m, batch=bh // 16, heads=16, kv_heads=16, seqlen=s, head_dim=d) for m, bh, s in groups for d in dims]
    path = os.path.join(OUT, "jax-shapes.json")
    with open(path, "w") as f:
        json.dump(shapes, f)
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    out = {}
    torch.cuda.empty_cache()
    for mode in ("default", "deterministic"):
        res = os.path.join(OUT, f"jax-{mode}.json")
        t0 = time.time()
        try:
            p = subprocess.run([sys.executable, os.path.join(ROOT, "gpu/bwd/cudnn_jax.py"), mode, path, res], env=env,
                               capture_output=True, text=True, timeout=int(os.environ.get("BENCH_JAX_TIMEOUT", "240")))
            for line in p.stdout.splitlines():
                log(line)
            if p.returncode:
                log(f"  jax cudnn {mode}: exit {p.returncode}: " + p.stderr.strip()[-600:])
        except subprocess.TimeoutExpired:
            log(f"  jax cudnn {mode}: timed out; the shapes it finished are kept")
        got = json.load(open(res))["records"] if os.path.exists(res) else []
        log(f"  jax cudnn {mode}: {len(got)} of {len(shapes)} shapes in {time.time() - t0:.0f} s")
        done = {(r["mask"], r["batch"] * r["heads"], r["seqlen"], r["head_dim"]) for r in got}
        got += [dict(backend="cudnn", kernel=None, policy=None, mode=mode, via="jax", **sh, error="not run: the JAX "
                     "process ended before this shape") for sh in shapes
                if (sh["mask"], sh["batch"] * sh["heads"], sh["seqlen"], sh["head_dim"]) not in done]
        for r in got:
            r["error_reference"] = "fp32 math on upcast inputs (JAX's own random inputs), batch 0, query heads 0-1"
            out.setdefault((r["mask"], r["batch"] * r["heads"], r["seqlen"], r["head_dim"]), []).append(r)
        if os.path.exists(res):
            os.remove(res)
    os.remove(path)
    return out


def bench(lib, groups, dims, records, save, jax_recs=None):
    for mask, bh, s in groups:
        causal = mask == "causal"
        plans = {}  # (kernel, policy, Q tile rows): a kernel of 128-row tiles at d 64 runs its own plans
        for k, p, d in ((k, p, d) for k in KERNELS for p in POLICIES[mask] for d in dims):
            if (k, p, block_m(k, d)) not in plans:
                plans[(k, p, block_m(k, d))] = lib.plan(p, mask, s, bh, k, d)
        for d in dims:
            t, scale, ref, fl, base = shape_inputs(mask, bh, s, d)
            runs = [dict(fn=dash_fn(lib, plans[(k, p, block_m(k, d))][0], t, scale, atomic),
                         handle=plans[(k, p, block_m(k, d))][0],
                         fields=dict(backend="dashsim", kernel=k, policy=p, mode="atomic" if atomic else "deterministic",
                                     **base, plan_file=plans[(k, p, block_m(k, d))][1]))
                    for k in KERNELS for p, atomic in [(p, False) for p in POLICIES[mask]] + [("fa3", True)]]
            runs += [dict(fn=fn, handle=None, fields=dict(backend=backend, kernel=None, policy=None, mode=mode, **base))
                     for backend, mode, fn in torch_runs(t, causal, scale)]
            for run, rounds in zip(runs, timed_rounds(runs)):
                if isinstance(rounds, Exception):
                    rec = dict(**run["fields"], error=str(rounds)[:300])
                else:
                    rec = measure(run["fn"], run["handle"], fl, ref, rounds=rounds, **run["fields"])
                records.append(rec)
                show(rec)
            for rec in (jax_recs or {}).get((mask, bh, s, d), []):
                records.append(rec)
                show(rec)
            if (mask, s, bh, d) in TRACE_SET:  # the first kernel's traces (the mma.sync kernel's: shapes.py)
                for p in POLICIES[mask]:
                    h, name = plans[(KERNELS[0], p, block_m(KERNELS[0], d))]
                    lib.run(h, t, scale, False, record=True)
                    os.makedirs(os.path.join(OUT, "traces", f"d{d}"), exist_ok=True)
                    path = os.path.join(OUT, "traces", f"d{d}", f"{KERNELS[0]}-{p}-{mask}-s{s}-bh{bh}-d{d}.json")
                    meta = (f"mode=deterministic;seqlen={s};head_dim={d};batch={base['batch']};"
                            f"heads_per_batch={base['heads']};kv_heads={base['kv_heads']};plan_file={name}")
                    if lib.L.bwd_write_trace(h, path.encode(), meta.encode()):
                        log("  trace failed: " + lib.L.bwd_error(h).decode())
            del t, ref, runs
            torch.cuda.empty_cache()
        for h, _ in plans.values():
            lib.L.bwd_free(h)
        save()


def variants(lib, records):
    log("== variants: " + ", ".join(VARIANTS))
    for mask, bh, s, d in VARIANT_SHAPES:
        causal = mask == "causal"
        t, scale, ref, fl, base = shape_inputs(mask, bh, s, d)
        best = "symmetric-shift" if causal else "shift"
        for k in VARIANTS:
            for p, atomic in ((best, False), ("fa3", False), ("fa3", True)):
                h, name = lib.plan(p, mask, s, bh, k, d)
                rec = measure(dash_fn(lib, h, t, scale, atomic), h, fl, ref, backend="dashsim", kernel=k, policy=p,
                              mode="atomic" if atomic else "deterministic", **base, plan_file=name)
                lib.L.bwd_free(h)
                records.append(rec)
                show(rec)
        backend, mode, fn = torch_runs(t, causal, scale)[0]
        rec = measure(fn, None, fl, ref, backend=backend, kernel=None, policy=None, mode=mode, **base)
        records.append(rec)
        show(rec)
        del t, ref
        torch.cuda.empty_cache()


def main():
    global LOG
    os.makedirs(OUT, exist_ok=True)
    LOG = open(os.path.join(OUT, "log.txt"), "a")
    quick = "--quick" in sys.argv
    global LIB
    lib = LIB = Lib(os.path.join(ROOT, "build/gpu/bwd/libdashbwd.so"))
    torch.utils.deterministic.fill_uninitialized_memory = False
    buf = ctypes.create_string_buffer(4096)
    lib.L.bwd_device_meta_json(buf, 4096)
    meta = json.loads(buf.value.decode())
    meta.update(torch=torch.__version__, cudnn=torch.backends.cudnn.version(),
                flops_convention="2.5 x forward FLOPs; forward = 4 b h s^2 d, halved for causal",
                kernels=KERNELS, tiles="kBlockM 64 x kBlockN 128",
                kernel_notes={"wgmma": "TMA + mbarrier stages, 2 consumer warpgroups on wgmma bf16, swap-AB, "
                                       "P^T/dS^T as register A operands (gpu/bwd/wg)",
                              "mma": "mma.sync m16n8k16 bf16, cp.async double buffer (gpu/bwd/bwd_fallback_sm80.cuh)"},
                timing=f"CUDA events per run, median; runs queued behind a 10 ms sleep kernel; the grid in {ROUNDS} "
                       "rounds (every backend of a shape once per round), ms = median of the rounds' medians")
    log("device:", json.dumps(meta))
    t0 = time.time()
    ok_c, corr = correctness(lib)
    ok_d, det = determinism(lib, 100)
    log(f"correctness {'ok' if ok_c else 'FAILED'}, determinism {'ok' if ok_d else 'FAILED'} ({time.time()-t0:.0f} s)")
    records, var_records = [], []
    # The goal-ladder case first, then by cost, so that a run cut short keeps the most useful records.
    groups = [("causal", 16, 8192)] + sorted(
        ((m, bh, s) for m in ("causal", "full") for bh in (16, 64) for s in (1024, 2048, 4096, 8192, 16384)
         if (m, bh, s) != ("causal", 16, 8192)), key=lambda g: (g[1] * g[2] * g[2], g[0]))
    if quick:
        groups = [("causal", 16, 8192), ("full", 16, 2048)]
    if GRID:
        groups = [(g.split(":")[0], int(g.split(":")[1]), int(g.split(":")[2])) for g in GRID.split(",")]
    jax_recs = jax_cudnn(groups, DIMS) if os.environ.get("BENCH_JAX", "1") == "1" else None

    def save():
        doc = {"format": "dashsim-kernel-bench", "version": 1, "metadata": meta, "correctness": corr,
               "determinism": det, "correctness_ok": ok_c, "determinism_ok": ok_d, "records": records}
        if var_records:
            doc["variants"] = var_records
        with open(os.path.join(OUT, "bench.json.tmp"), "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(os.path.join(OUT, "bench.json.tmp"), os.path.join(OUT, "bench.json"))
    if not ok_c:
        log("WARNING: gradients did not pass; timings below are of a wrong kernel")
    if os.environ.get("BENCH_VARIANTS") == "1":
        variants(lib, var_records)
        save()
    bench(lib, groups, DIMS, records, save, jax_recs)
    save()
    log(f"done in {time.time()-t0:.0f} s, {len(records)} records")
    sys.exit(0 if ok_c and ok_d else 1)


if __name__ == "__main__":
    main()
