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
finish
