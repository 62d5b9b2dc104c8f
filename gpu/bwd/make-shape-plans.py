#!/usr/bin/env python3
"""Emits the plans a shape list needs (gpu/bwd/shapes.py) into DIR as POLICY-MASK-sSEQ-bhBH.plan.xz: tiles
kBlockM 64 x kBlockN 128 (tile_ratio 2), n = 132, async reduce, one dQ buffer, heads launched in order (head
swizzle 1), as the kernel runs them. A plan depends only on mask, seqlen and batch x heads.
Usage: make-shape-plans.py SHAPES.json DIR [SIM]"""
import json, lzma, os, subprocess, sys

POLICIES = {"full": ["fa3", "descending", "shift"], "causal": ["fa3", "fa3-spt", "descending", "symmetric-shift"]}


def main():
    spec, out = json.load(open(sys.argv[1])), sys.argv[2]
    sim = sys.argv[3] if len(sys.argv) > 3 else "bin/sim"
    os.makedirs(out, exist_ok=True)
    for sh in spec["shapes"]:
        s, bh, mask = sh["seqlen"], sh["batch"] * sh["heads"], sh["mask"]
        for pol in sh.get("policies", POLICIES[mask]):
            path = os.path.join(out, f"{pol}-{mask}-s{s}-bh{bh}.plan")
            if os.path.exists(path + ".xz"):
                continue
            subprocess.run([sim, "--policy", pol, "--mask", mask, "--n", "132", "--heads", str(bh), "--kv-tiles",
                            str(s // 128), "--q-tiles", str(s // 64), "--tile-ratio", "2", "--reduce", "async",
                            "--dq-buffers", "1", "--c", "3000", "--r", "2000", "--max-memory-mb", "16384",
                            "--emit-plan", path], check=True, stdout=subprocess.DEVNULL)
            with open(path, "rb") as f, lzma.open(path + ".xz", "wb", preset=9) as g:
                g.write(f.read())
            os.remove(path)


if __name__ == "__main__":
    main()
