#!/bin/bash
# CLI tests of issue 33's remaining items (issue 36: shape ranking into the library): the shape front end only
# parses and prints (the ranking is sim/run/shape.c's sim_shape_rank); sweep plot titles say where c and r came
# from, per point, truthfully.
. "$(dirname "$0")/lib.sh"
sim=$1
root=$(cd "$(dirname "$0")/.." && pwd)

# The ranking lives in the library: the CLI file runs no job for the ranking and holds no tie logic.
if [ -f "$root/sim/run/shape.h" ] && grep -q '^SimStatus sim_shape_rank(' "$root/sim/run/shape.h" \
    && ! grep -Eq 'rank_policies|find_ties|apply_token_mask|sim_mask_from_tokens|policy_at\(|sim_cost_attention' \
        "$root/sim/cli/cli_shape.c"; then ok shape-rank-in-library
else fail shape-rank-in-library "sim/cli/cli_shape.c still ranks, or sim/run/shape.h lacks sim_shape_rank"; fi
# ... and gives the front end's answer unchanged (the tie of FA3's published shape, a token mask's ranking).
expect_exit shape-rank-same 0 "$sim" --seqlen 4096 --heads 4 --mask window:1024 --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["winner"] and j["kept_tiles"] > 0 and \
len(j["policies"]) >= 3, j' "$tmp/out" && ok shape-rank-token-mask || fail shape-rank-token-mask "$(head -c 300 "$tmp/out")"

# The sweep plot's title says where c and r came from, per point: the cost model, or the profile named.
cat >"$tmp/hw.json" <<'JSON'
{ "schema_version": 1, "workload": { "batch": 1, "heads": 2, "seqlen_q": 512, "head_dim": 64, "mask": "causal" },
  "hardware": { "preset": "h100-sxm", "sm_count": 16, "profile": "h100-sxm" }, "policies": ["fa3", "descending"],
  "sweep": { "seqlen": [512, 1024] } }
JSON
if command -v gnuplot >/dev/null; then
    expect_exit sweep-title-profile 0 "$sim" sweep "$tmp/hw.json" --plot "$tmp/hw.png"
    grep -q 'c from the FLOPs cost model, r from hardware profile h100-sxm' "$tmp/hw.gp" \
        && ! grep -q 'c and r from the cost model' "$tmp/hw.gp" && ok sweep-title-says-profile \
        || fail sweep-title-says-profile "$(grep -m1 title "$tmp/hw.gp")"
    expect_exit sweep-title-model 0 "$sim" sweep "$root/configs/ci-sweep.json" --plot "$tmp/ci.png"
    grep -q 'c from the FLOPs cost model, r from the cost model' "$tmp/ci.gp" && ok sweep-title-says-model \
        || fail sweep-title-says-model "$(grep -m1 title "$tmp/ci.gp")"
    expect_exit sweep-table-header 0 "$sim" sweep "$tmp/hw.json" --format table
    head -1 "$tmp/out" | grep -q 'unless a point names a kernel or hardware profile' && ok sweep-table-header-truthful \
        || fail sweep-table-header-truthful "$(head -1 "$tmp/out")"
else skip sweep-title "no gnuplot"; fi
finish
