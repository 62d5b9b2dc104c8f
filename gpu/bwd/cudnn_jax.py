#!/usr/bin/env python3
"""cuDNN's attention backward through JAX, in its own process (gpu/bwd/bench.py runs it; PyTorch cannot reach
cuDNN's deterministic mode). Usage: cudnn_jax.py MODE SHAPES.json OUT.json, MODE "default" or "deterministic"
(then XLA_FLAGS gets --xla_gpu_deterministic_ops=true before jax is imported). SHAPES.json: a list of
{mask, batch, heads, kv_heads, seqlen, head_dim}. Per shape: jit of the vjp's backward alone (the residuals
made once outside it), timed in batches of 5 queued calls after warm-up, median; bit identity of dQ, dK, dV
over REPEATS runs; errors against fp32 math on batch 0, query heads 0-1. A shape cuDNN refuses gets an "error"
record, never a silent fallback to XLA's own attention. Writes OUT.json: {"meta": ..., "records": [...]}."""
import json, math, os, sys, time

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
if MODE not in ("default", "deterministic") or len(sys.argv) != 4:
    sys.exit("usage: cudnn_jax.py default|deterministic SHAPES.json OUT.json")
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # torch's process may hold memory too
if MODE == "deterministic":
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_deterministic_ops=true").strip()

import numpy as np
import jax
import jax.numpy as jnp

REPEATS = int(os.environ.get("CUDNN_REPEATS", "10"))


def flops(b, h, s, d, causal):
    return 2.5 * 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)


def attention(q, k, v, causal, scale):
    # BTNH layout; implementation="cudnn" raises where cuDNN cannot take the shape (no silent XLA fallback).
    return jax.nn.dot_product_attention(q, k, v, scale=scale, is_causal=causal, implementation="cudnn")


def reference_errors(q, k, v, do, grads, causal, scale):
    """fp32 gradients of batch 0, query heads 0-1 and their KV heads; relative and max abs errors."""
    grp = q.shape[2] // k.shape[2]
    nkv = max(1, 2 // grp)
    f32 = lambda x: x.astype(jnp.float32)
    qs, ks, vs, dos = f32(q[:1, :, :2]), f32(k[:1, :, :nkv]), f32(v[:1, :, :nkv]), f32(do[:1, :, :2])

    def ref(qs, ks, vs):
        ke, ve = jnp.repeat(ks, grp, axis=2), jnp.repeat(vs, grp, axis=2)
        sc = jnp.einsum("btnh,bsnh->bnts", qs, ke) * scale
        if causal:
            s = sc.shape[-1]
            sc = jnp.where(jnp.tril(jnp.ones((s, s), bool)), sc, -jnp.inf)
        return jnp.einsum("bnts,bsnh->btnh", jax.nn.softmax(sc, -1), ve)
    rq, rk, rv = jax.vjp(ref, qs, ks, vs)[1](dos)
    out = {}
    for name, x, r in (("dq", grads[0][:1, :, :2], rq), ("dk", grads[1][:1, :, :nkv], rk),
                       ("dv", grads[2][:1, :, :nkv], rv)):
        diff = f32(x) - r
        out[name + "_max_abs_err"] = float(jnp.abs(diff).max())
        out[name + "_rel_err"] = float(jnp.linalg.norm(diff) / jnp.linalg.norm(r))
    return out


def time_bwd(bwd, fn, do, budget_s=0.05, batch=5):
    """Median per-call ms over rounds of `batch` queued calls (dispatch overlaps the previous call)."""
    jax.block_until_ready(bwd(fn, do))  # compile + warm-up
    jax.block_until_ready(bwd(fn, do))
    t0 = time.perf_counter()
    jax.block_until_ready(bwd(fn, do))
    est = time.perf_counter() - t0
    rounds = max(3, min(15, int(budget_s / max(est * batch, 1e-6))))
    ms = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(batch):
            out = bwd(fn, do)
        jax.block_until_ready(out)
        ms.append((time.perf_counter() - t0) * 1e3 / batch)
    ms.sort()
    return ms[len(ms) // 2], rounds * batch


def one(shape, bwd):
    b, h, hkv, s, d = (shape[x] for x in ("batch", "heads", "kv_heads", "seqlen", "head_dim"))
    causal = shape["mask"] == "causal"
    scale = 1.0 / math.sqrt(d)
    keys = jax.random.split(jax.random.PRNGKey(s + d + b * h), 4)
    r = lambda kk, n: jax.random.normal(kk, (b, s, n, d), jnp.bfloat16)
    q, k, v, do = r(keys[0], h), r(keys[1], hkv), r(keys[2], hkv), r(keys[3], h)
    f = lambda q, k, v: attention(q, k, v, causal, scale)
    _, fn = jax.vjp(f, q, k, v)
    how = "backward alone (jit of the vjp closure)"
    try:
        ms, reps = time_bwd(bwd, fn, do)
    except TypeError:  # a JAX whose vjp closure is not a pytree: time forward + backward, less the forward
        fwd_bwd = jax.jit(lambda q, k, v, do: jax.vjp(f, q, k, v)[1](do))
        fwd = jax.jit(f)
        fn, bwd = (q, k, v), lambda args, do: fwd_bwd(*args, do)
        ms, reps = time_bwd(bwd, fn, do)
        ms -= time_bwd(lambda args, do: fwd(*args), fn, do)[0]
        how = "jit of forward + backward less the jit forward's time (the vjp closure could not enter jit)"
    first = [np.asarray(x).view(np.uint16) for x in bwd(fn, do)]
    differ = 0
    for _ in range(REPEATS - 1):
        out = [np.asarray(x).view(np.uint16) for x in bwd(fn, do)]
        differ += not all(np.array_equal(a, c) for a, c in zip(first, out))
    errs = reference_errors(q, k, v, do, bwd(fn, do), causal, scale)
    return dict(timed=how, ms=ms, timed_reps=reps, tflops=flops(b, h, s, d, causal) / ms / 1e9, bitwise_repeatable=differ == 0,
                repeat_runs=REPEATS, runs_differing_from_first=differ, **errs)


def main():
    shapes = json.load(open(sys.argv[2]))
    bwd = jax.jit(lambda fn, do: fn(do))  # the vjp closure is a pytree: its residuals come in as arguments
    meta = dict(jax=jax.__version__, devices=[str(x) for x in jax.devices()], xla_flags=os.environ.get("XLA_FLAGS", ""),
                timing="jit of the vjp's backward alone; per-call ms = wall time of 5 queued calls / 5, median over "
                       "rounds, after compile and two warm-up calls")
    recs = []
    for shape in shapes:
        rec = dict(backend="cudnn", kernel=None, policy=None, mode=MODE, via="jax", **shape)
        try:
            rec.update(one(shape, bwd))
        except Exception as ex:  # cuDNN refused the shape, or ran out of memory: say so, keep going
            rec["error"] = f"{type(ex).__name__}: {str(ex)[:280]}"
        recs.append(rec)
        print(f"  jax cudnn {MODE:13s} {shape['mask']:6s} s{shape['seqlen']} bh{shape['batch'] * shape['heads']} "
              f"d{shape['head_dim']}: " + (f"{rec['tflops']:.1f} TFLOPS, {rec['runs_differing_from_first']} of "
                                           f"{REPEATS} runs differ" if "tflops" in rec else rec["error"]), flush=True)
        with open(sys.argv[3] + ".tmp", "w") as f:  # after each shape: a run cut short keeps what it has
            json.dump({"meta": meta, "records": recs}, f, indent=1)
        os.replace(sys.argv[3] + ".tmp", sys.argv[3])


if __name__ == "__main__":
    main()
