#!/usr/bin/env python3
"""One shape's backward, run a few times, for Nsight Compute to profile (issue 32: where a task's time goes, in the
hardware's counters rather than in guesses). WHO is dash (gpu/bwd's Hopper kernel, deterministic, POLICY's plan; the
kernel BWD_KERNEL, default wgmma), dash-atomic (the same kernel's atomic mode) or cudnn (PyTorch's cuDNN backward).
Runs RUNS times (default 3): profile with ncu's --launch-skip to pass the warm-up. gpu/scripts/run-kernel-ncu.sh
drives it. Usage: profile_one.py dash|dash-atomic|cudnn MASK SEQLEN HEAD_DIM BH [POLICY]"""
import os
import sys

import torch
from torch.nn.attention import SDPBackend

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def main():
    if len(sys.argv) < 6 or sys.argv[1] not in ("dash", "dash-atomic", "cudnn"):
        print("profile_one: usage: profile_one.py dash|dash-atomic|cudnn MASK SEQLEN HEAD_DIM BH [POLICY]", file=sys.stderr)
        sys.exit(2)
    who, mask, s, d, bh = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    policy = sys.argv[6] if len(sys.argv) > 6 else ("shift" if mask == "full" else "symmetric-shift")
    causal = mask == "causal"
    t, scale = bench.make_inputs(1, bh, bh, s, d, causal, seed=s + d)
    if who == "cudnn":
        fn = bench.torch_fn(t, causal, scale, SDPBackend.CUDNN_ATTENTION)
    else:
        lib = bench.Lib(os.path.join(bench.ROOT, "build/gpu/bwd/libdashbwd.so"))
        kernel = os.environ.get("BWD_KERNEL", "wgmma")
        h, _ = lib.plan(policy if who == "dash" else "fa3", mask, s, bh, kernel=kernel, d=d)
        fn = bench.dash_fn(lib, h, t, scale, who == "dash-atomic", check=True)
    for _ in range(int(os.environ.get("RUNS", "3"))):
        fn()
    torch.cuda.synchronize()
    print(f"{who} {mask} s{s} d{d} bh{bh} {policy if who == 'dash' else ''}: ran", flush=True)


if __name__ == "__main__":
    main()
