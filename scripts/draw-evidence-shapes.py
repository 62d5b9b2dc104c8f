#!/usr/bin/env python3
"""Draws an evidence list for the Hopper kernel (issue 31): N shapes at random, seeded, over issue 31's ranges (seqlen
1536-16384 in steps of 256, batch 1-8, heads 4-48, GQA 1:1-8:1 with the group dividing the heads, d 64 and 128, full and
causal), at most the work of causal s16384 b1 h16 d 128, none with a (mask, seqlen, batch x heads, d) that an earlier list
in gpu/bwd/shapes/ has (NAME's own file and its m128 part aside); a stand-in for a held-out set. Same seed, same list.
Standard library only. With --short, short launches instead (as evidence 8's): seqlen 1536-3072, batch 1-2, heads 4-16;
with --long, long ones (as evidence 15's): the issue's ranges above that work, up to 16 times it; with --head-dim D,
that head dim alone (the others' draws are skipped).
Usage: scripts/draw-evidence-shapes.py [--short|--long] [--head-dim D] NAME SEED N [COMMENT] > gpu/bwd/shapes/NAME.json"""
import glob
import json
import random
import sys


def work(s):
    pairs = s["seqlen"] ** 2 * (0.5 if s["mask"] == "causal" else 1)
    return pairs * s["batch"] * s["heads"] * s["head_dim"]


def main():
    args = sys.argv[1:]
    is_short, is_long = args[:1] == ["--short"], args[:1] == ["--long"]
    args = args[1:] if is_short or is_long else args
    only_d = None
    if args[:1] == ["--head-dim"] and len(args) > 1 and args[1] in ("64", "128"):
        only_d, args = int(args[1]), args[2:]
    if len(args) < 3:
        print("draw-evidence-shapes: usage: draw-evidence-shapes.py [--short|--long] [--head-dim D] NAME SEED N [COMMENT]",
              file=sys.stderr)
        sys.exit(2)
    name, seed, n = args[0], int(args[1]), int(args[2])
    seq_hi, batch_hi, heads_hi = (12, 2, 16) if is_short else (64, 8, 48)
    seen = set()
    for f in sorted(glob.glob("gpu/bwd/shapes/*.json")):
        if f.endswith("/%s.json" % name) or f.endswith("/%s.json" % name.replace("wgmma-", "wgmma-m128-")):
            continue  # the list being drawn (the shell has already opened it for writing) and its m128 part
        try:
            for s in json.load(open(f)).get("shapes", []):
                seen.add((s["mask"], s["seqlen"], s["batch"] * s["heads"], s["head_dim"]))
        except (OSError, ValueError, KeyError, TypeError):
            print("draw-evidence-shapes: %s is not a shapes list" % f, file=sys.stderr)
            sys.exit(2)
    cap = work({"mask": "causal", "seqlen": 16384, "batch": 1, "heads": 16, "head_dim": 128})
    rng, shapes = random.Random(seed), []
    while len(shapes) < n:
        heads = rng.randint(4, heads_hi)
        group = rng.choice([g for g in (1, 2, 3, 4, 6, 8) if heads % g == 0])
        s = {"mask": rng.choice(["full", "causal"]), "seqlen": 256 * rng.randint(6, seq_hi), "batch": rng.randint(1, batch_hi),
             "heads": heads, "kv_heads": heads // group, "head_dim": rng.choice([64, 128])}
        key = (s["mask"], s["seqlen"], s["batch"] * s["heads"], s["head_dim"])
        fits = cap < work(s) <= 16 * cap if is_long else work(s) <= cap
        if fits and key not in seen and only_d in (None, s["head_dim"]):
            seen.add(key)
            shapes.append(s)
    comment = args[3] if len(args) > 3 else "drawn by scripts/draw-evidence-shapes.py %s %d %d" % (name, seed, n)
    json.dump({"name": name, "comment": comment, "shapes": shapes}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
