#!/usr/bin/env python3
"""Draws an evidence list for the Hopper kernel (issue 31): N shapes at random, seeded, over issue 31's ranges (seqlen
1536-16384 in steps of 256, batch 1-8, heads 4-48, GQA 1:1-8:1 with the group dividing the heads, d 64 and 128, full and
causal), at most the work of causal s16384 b1 h16 d 128, none with a (mask, seqlen, batch x heads, d) that an earlier list
in gpu/bwd/shapes/ has; a stand-in for a held-out set. Same seed, same list. Standard library only.
Usage: scripts/draw-evidence-shapes.py NAME SEED N [COMMENT] > gpu/bwd/shapes/NAME.json"""
import glob
import json
import random
import sys


def work(s):
    pairs = s["seqlen"] ** 2 * (0.5 if s["mask"] == "causal" else 1)
    return pairs * s["batch"] * s["heads"] * s["head_dim"]


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: draw-evidence-shapes.py NAME SEED N [COMMENT]")
    name, seed, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    seen = set()
    for f in sorted(glob.glob("gpu/bwd/shapes/*.json")):
        try:
            for s in json.load(open(f)).get("shapes", []):
                seen.add((s["mask"], s["seqlen"], s["batch"] * s["heads"], s["head_dim"]))
        except (OSError, ValueError, KeyError, TypeError):
            sys.exit("draw-evidence-shapes: %s is not a shapes list" % f)
    cap = work({"mask": "causal", "seqlen": 16384, "batch": 1, "heads": 16, "head_dim": 128})
    rng, shapes = random.Random(seed), []
    while len(shapes) < n:
        heads = rng.randint(4, 48)
        group = rng.choice([g for g in (1, 2, 3, 4, 6, 8) if heads % g == 0])
        s = {"mask": rng.choice(["full", "causal"]), "seqlen": 256 * rng.randint(6, 64), "batch": rng.randint(1, 8),
             "heads": heads, "kv_heads": heads // group, "head_dim": rng.choice([64, 128])}
        key = (s["mask"], s["seqlen"], s["batch"] * s["heads"], s["head_dim"])
        if work(s) <= cap and key not in seen:
            seen.add(key)
            shapes.append(s)
    comment = sys.argv[4] if len(sys.argv) > 4 else "drawn by scripts/draw-evidence-shapes.py %s %d %d" % (name, seed, n)
    json.dump({"name": name, "comment": comment, "shapes": shapes}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
