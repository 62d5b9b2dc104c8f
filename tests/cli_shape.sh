#!/bin/bash
# CLI tests of issue 14 items 1 and 2: the shape front end (--seqlen) derives FA3's tiles, ranks every policy
# with TFLOPS, names the winner and its margin over fa3, and states its assumptions; the tile-level command
# says it is the paper's model.
. "$(dirname "$0")/lib.sh"
sim=$1

expect_exit shape-run 0 "$sim" --seqlen 8192 --head-dim 128 --heads 16 --mask causal
grep -q 'kBlockM x kBlockN = 64 x 128' "$tmp/out" && ok shape-tiles-causal || fail shape-tiles-causal "$(grep tiles "$tmp/out")"
grep -q 'async reduction' "$tmp/out" && grep -q 'preset h100-sxm' "$tmp/out" && grep -q 'profiles/h100-sxm.json' "$tmp/out" \
    && grep -q 'model numbers, not measurements' "$tmp/out" && ok shape-assumptions || fail shape-assumptions "$(cat "$tmp/out")"
grep -q '^TFLOPS = backward FLOPs / time, FLOPs = 2.5 x forward' "$tmp/out" && ok shape-flop-convention || fail shape-flop-convention "no convention"
for p in fa3 fa3-spt descending symmetric-shift; do
    grep -q "^$p " "$tmp/out" || fail shape-policy-$p "no row"
done
grep -q '^winner [a-z-]*, [0-9.]*x over fa3' "$tmp/out" && ok shape-winner || fail shape-winner "$(tail -1 "$tmp/out")"
expect_exit shape-full 0 "$sim" --seqlen 4096 --head-dim 128 --heads 8 --json
python3 - "$tmp/out" <<'PY' && ok shape-json || fail shape-json "see above"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["shape"]["block_m"] == 80 and j["shape"]["block_n"] == 128 and j["reduce"] == "async"
assert {"fa3", "descending", "shift"} <= {p["policy"] for p in j["policies"]} and "symmetric-shift" not in {p["policy"] for p in j["policies"]}
best = min(j["policies"], key=lambda p: p["makespan_ns"])
assert j["winner"] == best["policy"] and j["margin_over_fa3"] >= 1 and all(p["tflops"] > 0 for p in j["policies"])
PY
expect_exit shape-paper 0 "$sim" --seqlen 2048 --head-dim 64 --heads 4 --model paper --reduce serial
grep -q 'serial reduction' "$tmp/out" && grep -q 'cost model (--model paper)' "$tmp/out" && grep -q '128 x 128' "$tmp/out" \
    && ok shape-paper-model || fail shape-paper-model "$(sed -n 2,4p "$tmp/out")"
expect_exit shape-one-policy-trace 0 "$sim" --seqlen 1024 --head-dim 128 --heads 2 --mask causal --policy fa3 --trace "$tmp/t.json"
[ -s "$tmp/t.json" ] && ok shape-trace || fail shape-trace "no trace"
expect_error shape-bad-hdim "no deterministic tile for head_dim 256" "$sim" --seqlen 1024 --head-dim 256
expect_error shape-tile-flag "drop --c" "$sim" --seqlen 1024 --c 5
expect_error shape-needs-seqlen "give --seqlen too" "$sim" --head-dim 128
# The tile-level command names its model.
expect_exit tile-model 0 "$sim" --policy shift --n 8
grep -q "^model  the DASH paper's tile-level model" "$tmp/out" && ok tile-model-line || fail tile-model-line "$(sed -n 3p "$tmp/out")"
finish
