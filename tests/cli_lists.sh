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
    head -1 "$tmp/out" | grep -q ': c from the FLOPs cost model, r from hardware profile h100-sxm.json (docs' \
        && ok sweep-table-header-truthful \
        || fail sweep-table-header-truthful "$(head -1 "$tmp/out")"
else skip sweep-title "no gnuplot"; fi
# Memory: the estimate (the refusal's "about N MB") is within 1.5x of the measured peak RSS, and not below it;
# batch 4 x 32 heads x 32k causal fits under the default cap (it was refused at 4096 MB).
args=(--seqlen 16384 --heads 32 --mask causal --policy fa3)
"$sim" "${args[@]}" --max-memory-mb 1 >/dev/null 2>"$tmp/est"
est=$(grep -o 'about [0-9]* MB' "$tmp/est" | grep -o '[0-9]*')
if [ -n "${ASAN_OPTIONS:-}" ]; then  # make check-asan: the peak holds ASan's shadow memory and quarantine
    skip memory-estimate-within-1.5x "a sanitized build's peak RSS is not the program's"
elif [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$tmp/peak" "$sim" "${args[@]}" >/dev/null 2>&1
    peak=$(tail -1 "$tmp/peak")
    python3 -c 'import sys; e, p = int(sys.argv[1]), int(sys.argv[2]) / 1024; assert p <= e <= 1.5 * p, (e, p)' "$est" "$peak" \
        && ok memory-estimate-within-1.5x || fail memory-estimate-within-1.5x "estimate ${est} MB, peak ${peak} KB"
else skip memory-estimate "no /usr/bin/time"; fi
"$sim" --seqlen 32768 --heads 32 --batch 4 --mask causal --policy fa3 --max-memory-mb 1 >/dev/null 2>"$tmp/e"
est=$(grep -o 'about [0-9]* MB' "$tmp/e" | grep -o '[0-9]*')
[ -n "$est" ] && [ "$est" -lt 4096 ] && ok b4-h32-32k-under-cap || fail b4-h32-32k-under-cap "$(cat "$tmp/e")"

# Progress: on a terminal after a second (a 2 s ranking here), the shape ranking shows "sim rank: K of N policies"; never in a file.
if command -v script >/dev/null; then
    script -qec "$sim --seqlen 16384 --heads 48 --mask causal >/dev/null" /dev/null >"$tmp/tty" 2>&1
    grep -q 'sim rank: [0-9]* of [0-9]* policies' "$tmp/tty" && ok rank-progress-on-terminal \
        || fail rank-progress-on-terminal "$(tr '\r' '\n' <"$tmp/tty" | tail -3)"
    script -qec "$sim --seqlen 512 --heads 2 --mask causal >/dev/null" /dev/null >"$tmp/tty" 2>&1
    grep -q 'sim rank' "$tmp/tty" && fail rank-progress-not-under-1s "a quick run showed progress" || ok rank-progress-not-under-1s
else skip rank-progress "no script(1)"; fi
"$sim" --seqlen 1024 --heads 4 --mask causal >/dev/null 2>"$tmp/e"
[ ! -s "$tmp/e" ] && ok rank-progress-not-in-files || fail rank-progress-not-in-files "$(head -c 200 "$tmp/e")"
# Lists: --seqlen, --heads and --batch take comma-separated values; one table, one row per point x policy, each
# with its time and speedup over fa3 and fa3-spt; --json gives an array of the single-shape objects.
expect_exit list-text 0 "$sim" --seqlen 1024,2048 --heads 4,8 --batch 1 --mask causal
[ "$(grep -c '^ *[0-9]' "$tmp/out")" -eq 16 ] && grep -q '^ seqlen batch heads policy .*vs_fa3   vs_spt$' "$tmp/out" \
    && grep -q '^model numbers, not measurements: c from the FLOPs cost model.*r from the hardware profile' "$tmp/out" \
    && ok list-one-table || fail list-one-table "$(head -4 "$tmp/out")"
"$sim" --seqlen 2048 --heads 8 --mask causal --json >"$tmp/one.json"
expect_exit list-json 0 "$sim" --seqlen 1024,2048 --heads 8 --mask causal --json
python3 - "$tmp/out" "$tmp/one.json" <<'PY' && ok list-json-array || fail list-json-array "see above"
import json, sys
a, one = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [p["shape"]["seqlen"] for p in a] == [1024, 2048], a
assert a[1] == one, "a list point differs from the single shape's report"
PY
expect_exit list-bad 2 "$sim" --seqlen 1024,x
expect_exit list-outputs 2 "$sim" --seqlen 1024,2048 --csv "$tmp/x.csv"
[ ! -e "$tmp/x.csv" ] && grep -q 'show one shape' "$tmp/err" && ok list-outputs-refused || fail list-outputs-refused "$(cat "$tmp/err")"
# --plot with a seqlen list: speedup over fa3 and fa3-spt against seqlen, a panel each, the sources of c and r
# in the title; refused (exit 2, nothing written) without a list.
if command -v gnuplot >/dev/null; then
    expect_exit list-plot 0 "$sim" --seqlen 1024,2048 --heads 8 --mask causal --plot "$tmp/sp.png"
    [ -s "$tmp/sp.png" ] && grep -q "speedup over fa3'" "$tmp/sp.gp" && grep -q "speedup over fa3-spt'" "$tmp/sp.gp" \
        && grep -q 'c from the FLOPs cost model of preset h100-sxm; r from the hardware profile' "$tmp/sp.gp" \
        && [ "$(grep -c '^# ' "$tmp/sp.dat")" -ge 3 ] && ok list-plot-speedup || fail list-plot-speedup "$(grep title "$tmp/sp.gp")"
    # the full mask has no fa3-spt: one panel, over fa3 (gnuplot failed on the empty panel before)
    expect_exit list-plot-full 0 "$sim" --seqlen 1024,2048 --heads 8 --plot "$tmp/full.png"
    [ -s "$tmp/full.png" ] && grep -q 'layout 1,1 ' "$tmp/full.gp" && grep -q "speedup over fa3'" "$tmp/full.gp" \
        && ! grep -q "speedup over fa3-spt'" "$tmp/full.gp" && ok list-plot-full-one-panel \
        || fail list-plot-full-one-panel "$(cat "$tmp/err")"
else skip list-plot "no gnuplot"; fi
expect_error list-plot-no-baseline "--plot draws speedups over fa3 and fa3-spt: --policy shift runs neither" \
    "$sim" --seqlen 1024,2048 --policy shift --plot "$tmp/nb.png"
[ ! -e "$tmp/nb.png" ] && ok list-plot-no-baseline-nothing || fail list-plot-no-baseline-nothing "$(ls "$tmp")"
expect_exit list-plot-one 2 "$sim" --seqlen 1024 --plot "$tmp/one.png"
[ ! -e "$tmp/one.png" ] && grep -q 'give --seqlen a list' "$tmp/err" && ok list-plot-needs-list || fail list-plot-needs-list "$(cat "$tmp/err")"
# sweep --plot-speedup: the same figure with each policy's speedup over the config's baseline (fa3: 1.0).
if command -v gnuplot >/dev/null; then
    expect_exit sweep-plot-speedup 0 "$sim" sweep "$tmp/hw.json" --plot-speedup "$tmp/ss.png"
    [ -s "$tmp/ss.png" ] && grep -q "set ylabel 'speedup over the baseline (model)'" "$tmp/ss.gp" \
        && [ "$(sed -n 2p "$tmp/ss.dat")" = "512 1.0000" ] && grep -q "speedup = the baseline's time / time" "$tmp/ss.gp" \
        && ok sweep-plot-speedup-drawn || fail sweep-plot-speedup-drawn "$(head -3 "$tmp/ss.dat")"
else skip sweep-plot-speedup "no gnuplot"; fi
finish
