#!/usr/bin/env python3
"""Emits the plans a shape list needs (gpu/bwd/shapes.py) into DIR as POLICY-MASK-sSEQ-bhBH.plan.xz: tiles
kBlockM 64 x kBlockN 128 (tile_ratio 2), n = 132, async reduce, one dQ buffer, heads launched in order (head
swizzle 1), as the kernel runs them. A plan depends only on mask, seqlen and batch x heads. TILE_M=128: the plans of
the kernels of 128-row Q tiles (the Hopper variants named ...m128, head dim 64), POLICY-MASK-sSEQ-bhBH-m128.plan.xz,
tile_ratio 1, task and reduction costs twice the 64-row tiles' (as gpu/scripts/plans-kernel-bench.sh).
Usage: [TILE_M=64|128] make-shape-plans.py SHAPES.json DIR [SIM]"""
import json, lzma, os, subprocess, sys

POLICIES = {"full": ["fa3", "descending", "shift"], "causal": ["fa3", "fa3-spt", "descending", "symmetric-shift"]}


def main():
    spec, out = json.load(open(sys.argv[1])), sys.argv[2]
    sim = sys.argv[3] if len(sys.argv) > 3 else "bin/sim"
    os.makedirs(out, exist_ok=True)
    tile_m = os.environ.get("TILE_M", "64")
    if tile_m not in ("64", "128"):
        sys.exit(f"make-shape-plans.py: TILE_M is 64 or 128, not '{tile_m}'")
    suffix, ratio, c, r = ("", 2, 3000, 2000) if tile_m == "64" else ("-m128", 1, 6000, 4000)
    for sh in spec["shapes"]:
        s, bh, mask = sh["seqlen"], sh["batch"] * sh["heads"], sh["mask"]
        for pol in sh.get("policies", POLICIES[mask]):
            path = os.path.join(out, f"{pol}-{mask}-s{s}-bh{bh}{suffix}.plan")
            if os.path.exists(path + ".xz"):
                continue
            subprocess.run([sim, "--policy", pol, "--mask", mask, "--n", "132", "--heads", str(bh), "--kv-tiles",
                            str(s // 128), "--q-tiles", str(s * ratio // 128), "--tile-ratio", str(ratio), "--reduce",
                            "async", "--dq-buffers", "1", "--c", str(c), "--r", str(r), "--max-memory-mb", "16384",
                            "--emit-plan", path], check=True, stdout=subprocess.DEVNULL)
            with open(path, "rb") as f, lzma.open(path + ".xz", "wb", preset=9) as g:
                g.write(f.read())
            os.remove(path)


if __name__ == "__main__":
    main()
