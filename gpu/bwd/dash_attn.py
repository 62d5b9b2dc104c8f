"""gpu/bwd from PyTorch (docs/kernel.md, "Use it"): dash_attention(q, k, v, is_causal=..., scale=...) is shaped like
F.scaled_dot_product_attention; its forward is PyTorch's flash forward (O and the LSE), its backward gpu/bwd's
deterministic kernel (build/gpu/bwd/libdashbwd.so through ctypes) on the current CUDA stream, running the plan that
libdashsim's planner (bin/sim --seqlen ... --kernel PROFILE) ranks best for the shape, made on first use and cached
by shape. Invariant: the gradients are a pure function of the inputs, bit for bit. Shapes the kernel does not take
fall back to PyTorch with one warning per shape (DASHSIM_STRICT=1: refused with a sentence)."""
import ctypes, glob, os, subprocess, sys, warnings

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (Lib: the library's ctypes declarations, one copy)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOCK_N = 128  # the kernel's KV tile: seqlen must be a multiple of it (BWD_BLOCK_N, gpu/bwd/bwd.h)
HEAD_DIMS = (64, 128)


def _sim():
    """The planner: DASHSIM_SIM, else the bundle (gpu/scripts/bundle-sim.sh), else the tree's bin/sim."""
    for p in (os.environ.get("DASHSIM_SIM"), os.path.join(ROOT, ".dev/sim/sim"), os.path.join(ROOT, "bin/sim")):
        if p and os.access(p, os.X_OK):
            return p
    raise RuntimeError("no planner: set DASHSIM_SIM, or build bin/sim (make) or .dev/sim (gpu/scripts/bundle-sim.sh)")


E = "wgmma-s2b2o1p0w2e"  # the default, its dQ staging conflict-free by st.shared, the next task record prefetched, LSE
# and dS^T by ld/st.shared, LSE and Delta read before the wgmma waits (the LSE before S^T and dP^T are issued), two store
# warps (docs/kernel.md, "Variants")
EM128 = "wgmma-s2b2o1p0w2em128"  # the same on 128 x 128 tiles (one store warp per staging buffer, as ever at d 64)


def kernel_for(d, gpu_name=None):
    """(kernel, profile) for head dim d. DASHSIM_KERNEL_PROFILE (with DASHSIM_BWD_KERNEL, default "wgmma") overrides.
    On an H200, where their profiles were calibrated: at head dim 64 the em128 variant (configs/kernels/
    gpu-bwd-wgmma-em128-h200.json), at 128 the e variant (gpu-bwd-wgmma-e-h200.json): the default's and m128's
    products, the same bits as theirs, faster step by step (docs/kernel.md, "Variants"). Elsewhere the default with
    configs/kernels/gpu-bwd-wgmma.json (the H100's), the kernel its profile measured."""
    if os.environ.get("DASHSIM_KERNEL_PROFILE"):
        return os.environ.get("DASHSIM_BWD_KERNEL", "wgmma"), os.environ["DASHSIM_KERNEL_PROFILE"]
    name = gpu_name or (torch.cuda.get_device_name() if torch.cuda.is_available() else "")
    if "H200" in name:
        kernel, profile = (EM128, "gpu-bwd-wgmma-em128-h200.json") if d == 64 else (E, "gpu-bwd-wgmma-e-h200.json")
        path = os.path.join(ROOT, "configs/kernels", profile)
        if os.path.exists(path):
            return kernel, path
        return "wgmma", os.path.join(ROOT, "configs/kernels/gpu-bwd-wgmma-h200.json")
    return "wgmma", os.path.join(ROOT, "configs/kernels/gpu-bwd-wgmma.json")


def kernel_profile(gpu_name=None, d=128):
    """The kernel profile the planner ranks with (kernel_for's)."""
    return kernel_for(d, gpu_name)[1]


class _Lib:
    """libdashbwd.so (gpu/bwd/bwd.h) and the plans of this process: one handle per (mask, b x h, seqlen, d)."""

    def __init__(self, path=None):
        path = path or os.environ.get("DASHSIM_BWD_LIB", os.path.join(ROOT, "build/gpu/bwd/libdashbwd.so"))
        L = bench.Lib(path).L  # one set of ctypes declarations of gpu/bwd/bwd.h (bench.py's)
        L.bwd_policy.restype = ctypes.c_char_p
        L.bwd_policy.argtypes = [ctypes.c_void_p]
        self.L = L
        self.handles = {}
        self.cache = os.environ.get("DASHSIM_PLAN_CACHE", os.path.join(ROOT, "build/gpu/bwd/plan-cache"))

    def plan_path(self, mask, bh, s, d):
        """The best-ranked plan's file for the shape: made by the planner on first use, kept in the cache."""
        prof = kernel_profile(d=d)
        tag = os.path.splitext(os.path.basename(prof))[0]
        path = os.path.join(self.cache, f"{tag}-{mask}-s{s}-bh{bh}-d{d}.plan")
        if os.path.exists(path):
            return path
        os.makedirs(self.cache, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        args = [_sim(), "--seqlen", str(s), "--head-dim", str(d), "--heads", str(bh), "--mask", mask,
                "--kernel", prof, "--analysis", "none", "--max-memory-mb", "16384", "--emit-plan", tmp]
        p = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        if p.returncode or not os.path.exists(tmp):
            raise RuntimeError(f"the planner failed for {mask} seqlen {s} b x h {bh} d {d}: " + p.stderr.strip()[-400:])
        os.replace(tmp, path)
        return path

    def handle(self, mask, bh, s, d):
        key = (mask, bh, s, d)
        if key not in self.handles:
            err = ctypes.create_string_buffer(1024)
            h = self.L.bwd_new(self.plan_path(*key).encode(), err, 1024)
            if not h:
                raise RuntimeError(err.value.decode())
            kernel = kernel_for(d)[0]
            if kernel != "wgmma" and self.L.bwd_set_kernel(h, kernel.encode()):
                raise RuntimeError(self.L.bwd_error(h).decode())
            self.handles[key] = h
        return self.handles[key]

    def policy(self, mask, bh, s, d):
        return self.L.bwd_policy(self.handle(mask, bh, s, d)).decode()


_LIB = None


def lib():
    global _LIB
    if _LIB is None:
        _LIB = _Lib()
    return _LIB


def unsupported(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False):
    """None when gpu/bwd takes the call, else a sentence why not."""
    if attn_mask is not None:
        return "an explicit attn_mask (the kernel has is_causal=True or a full mask)"
    if dropout_p:
        return "dropout (the kernel has none)"
    if not (q.is_cuda and k.is_cuda and v.is_cuda):
        return "tensors not on a CUDA device"
    if not (q.dtype == k.dtype == v.dtype == torch.bfloat16):
        return f"dtype {q.dtype} (the kernel is bf16)"
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        return "tensors not [batch, heads, seqlen, head_dim]"
    b, h, s, d = q.shape
    if k.shape != v.shape or k.shape[0] != b or k.shape[2] != s or k.shape[3] != d:
        return (f"key shape {tuple(k.shape)} and value shape {tuple(v.shape)} against query {tuple(q.shape)} (equal "
                "key and value shapes, and equal seqlens and head dims, only)")
    if h % k.shape[1]:
        return f"{h} query heads over {k.shape[1]} KV heads (GQA needs a whole number of query heads per KV head)"
    if d not in HEAD_DIMS:
        return f"head_dim {d} (the kernel has 64 and 128)"
    if s % BLOCK_N:
        return f"seqlen {s} (the kernel takes multiples of {BLOCK_N})"
    return None


class DashAttnFunction(torch.autograd.Function):
    """O = softmax(Q K^T * scale [causal]) V: PyTorch's flash forward, gpu/bwd's deterministic backward."""

    @staticmethod
    def forward(ctx, q, k, v, is_causal, scale):
        grp = q.shape[1] // k.shape[1]
        ke, ve = (k, v) if grp == 1 else (k.repeat_interleave(grp, 1), v.repeat_interleave(grp, 1))
        # torch 2.x: (output, logsumexp [b, h, s] fp32 natural log, cum_seq_q, cum_seq_k, max_q, max_k, ...)
        out = torch.ops.aten._scaled_dot_product_flash_attention(q, ke, ve, 0.0, is_causal, False, scale=scale)
        o, lse = out[0], out[1]
        lse = lse[..., : q.shape[2]].float().contiguous()  # some versions pad the LSE's seqlen
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.is_causal, ctx.scale = is_causal, scale
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        b, h, s, d = q.shape
        q, k, v, o, do = (x.contiguous() for x in (q, k, v, o, do))
        L = lib()
        hd = L.handle("causal" if ctx.is_causal else "full", b * h, s, d)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
        rc = L.L.bwd_run(hd, q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(), do.data_ptr(), lse.data_ptr(),
                         dq.data_ptr(), dk.data_ptr(), dv.data_ptr(), b, h, k.shape[1], s, d, ctx.scale, 0, 0,
                         torch.cuda.current_stream().cuda_stream, 3000)
        if rc:
            raise RuntimeError("gpu/bwd: " + L.L.bwd_error(hd).decode())
        if os.environ.get("DASHSIM_CHECK") == "1" and L.L.bwd_check(hd):  # synchronises: tests, not training
            raise RuntimeError("gpu/bwd kernel failed: " + L.L.bwd_error(hd).decode())
        return dq, dk, dv, None, None


_WARNED = set()


def dash_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """F.scaled_dot_product_attention's arguments; q [b, h, s, d], k/v [b, hkv, s, d] bf16 on CUDA. Where gpu/bwd
    cannot take the call: PyTorch's own attention with a warning (once per reason), or with DASHSIM_STRICT=1 a
    ValueError."""
    why = unsupported(q, k, v, attn_mask, dropout_p, is_causal)
    if why:
        if os.environ.get("DASHSIM_STRICT") == "1":
            raise ValueError(f"dash_attention does not take {why}.")
        if why not in _WARNED:
            _WARNED.add(why)
            warnings.warn(f"dash_attention: {why}; falling back to F.scaled_dot_product_attention "
                          "(not gpu/bwd's deterministic backward)", stacklevel=2)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p, is_causal=is_causal,
                                              scale=scale, enable_gqa=enable_gqa or k.shape[1] != q.shape[1])
    scale = scale if scale is not None else q.shape[-1] ** -0.5
    return DashAttnFunction.apply(q, k, v, bool(is_causal), float(scale))
