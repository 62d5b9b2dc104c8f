#!/bin/bash
# CLI tests of `sim decode`: the JSON fields on the paper's hand-computed shapes, the split sweep and its
# plot, the 160-configuration regression, and every bad input: one sentence, exit 2, no file left.
. "$(dirname "$0")/lib.sh"
sim=$1
field() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(" ".join(str(j[k]) for k in sys.argv[2:]))' "$tmp/out" "$@"; }

expect_exit help 0 "$sim" decode --help
grep -q -- "--split-policy P" "$tmp/out" && ok help-text || fail help-text "no --split-policy in --help"
expect_exit list 0 "$sim" decode --list-split-policies
[ "$(cut -d' ' -f1 "$tmp/out" | tr '\n' ' ')" = "fa3 seq-aware fixed best " ] && ok list-four || fail list-four "$(cat "$tmp/out")"

expect_exit llama-8192 0 "$sim" decode --batch 1 --hq 64 --hkv 8 --lk 8192 --head-dim 128 --json
[ "$(field n_blocks kblock_n total_mblocks num_splits ctas latency_ns)" = "47 176 8 15 120 21046" ] \
    && ok llama-8192-fields || fail llama-8192-fields "$(cat "$tmp/out")"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert abs(j["sm_occupancy"]-120/132)<1e-12' "$tmp/out" \
    && ok occupancy || fail occupancy "$(cat "$tmp/out")"
expect_exit llama-512 0 "$sim" decode --hq 64 --hkv 8 --lk 512 --json
[ "$(field n_blocks num_splits ctas)" = "3 1 8" ] && ok llama-512-fields || fail llama-512-fields "$(cat "$tmp/out")"
expect_exit paged-fa3 0 "$sim" decode --hq 8 --hkv 1 --lk 512 --paged --json
[ "$(field kblock_n n_blocks num_splits latency_ns)" = "128 4 1 13190" ] && ok paged-fa3-fields || fail paged-fa3-fields "$(cat "$tmp/out")"
expect_exit paged-seq 0 "$sim" decode --hq 8 --hkv 1 --lk 512 --paged --split-policy seq-aware --json
[ "$(field n_blocks num_splits empty_ctas latency_ns)" = "4 3 1 12232" ] && ok paged-seq-fields || fail paged-seq-fields "$(cat "$tmp/out")"
expect_exit paged-best 0 "$sim" decode --lk 512 --paged --split-policy best --json
[ "$(field num_splits latency_ns)" = "4 10851" ] && ok paged-best-fields || fail paged-best-fields "$(cat "$tmp/out")"
expect_exit fixed 0 "$sim" decode --lk 512 --split-policy fixed:3 --block-ns 1000 --kernel-ns 0 --cta-fixed-ns 0 \
    --combine-ns 100 --combine-split-ns 10 --json
[ "$(field num_splits latency_ns)" = "3 1130" ] && ok fixed-costs || fail fixed-costs "$(cat "$tmp/out")"
expect_exit summary 0 "$sim" decode --lk 512 --paged --split-policy seq-aware
grep -q "seq-aware -> 3 splits" "$tmp/out" && ok summary-text || fail summary-text "$(cat "$tmp/out")"

expect_exit sweep 0 "$sim" decode --lk 512 --sweep-splits --plot "$tmp/u.png"
[ "$(grep -c '^[0-9]' "$tmp/out")" -eq 64 ] && ok sweep-64-rows || fail sweep-64-rows "$(head "$tmp/out")"
grep -q "^3 11366 " "$tmp/out" && grep -q "plateau (within 2 % of best) from s = 3; s = 3 is on" "$tmp/out" \
    && ok sweep-plateau || fail sweep-plateau "$(tail -2 "$tmp/out")"
[ "$(head -c 4 "$tmp/u.png" | od -An -c | tr -d ' ')" = "211PNG" ] && ok plot-png || fail plot-png "no PNG"
expect_exit sweep-paged 0 "$sim" decode --lk 512 --paged --sweep-splits --json
[ "$(field best_splits plateau_from_splits fa3_splits seq_aware_splits)" = "4 4 1 3" ] && ok sweep-paged-json \
    || fail sweep-paged-json "$(head -c 300 "$tmp/out")"

expect_exit regression 0 "$sim" decode --regression
[ "$(grep -c '^ *[0-9]' "$tmp/out")" -eq 160 ] && ok regression-160 || fail regression-160 "$(grep -c '^ *[0-9]' "$tmp/out") rows"
grep -q "seq-aware vs fa3: different split in 0 of 160" "$tmp/out" && ok regression-seq-unchanged \
    || fail regression-seq-unchanged "$(grep '^#' "$tmp/out")"
expect_exit regression-paged 0 "$sim" decode --regression --paged --json
python3 -c '
import json,sys
j=json.load(open(sys.argv[1])); c=j["configs"]
assert len(c)==160 and len({(r["batch"],r["lk"],r["hkv"]) for r in c})==160
ch=sorted((r["batch"],r["hkv"]) for r in c if r["seq_aware_splits"]!=r["fa3_splits"])
assert ch==[(1,1),(1,2),(2,1)], ch
assert all(r["lk"]==512 for r in c if r["seq_aware_splits"]!=r["fa3_splits"])
assert all(r["best_latency_ns"]<=min(r["fa3_latency_ns"],r["seq_aware_latency_ns"]) for r in c)
assert j["seq_aware"]["changed"]==3 and j["best"]["slower_than_fa3"]==0
' "$tmp/out" && ok regression-paged-json || fail regression-paged-json "$(head -c 300 "$tmp/out")"
"$sim" decode --regression --paged --json >"$tmp/second"
cmp -s "$tmp/out" "$tmp/second" && ok deterministic || fail deterministic "two runs differ"

expect_error hq-not-multiple "H_q = 12 is not a multiple of H_kv = 8" "$sim" decode --hq 12 --hkv 8
expect_error lk-zero "--lk expects an integer from 1" "$sim" decode --lk 0
expect_error fixed-malformed "--split-policy expects fa3, seq-aware, best or fixed:S" "$sim" decode --split-policy fixed:x
expect_error fixed-zero "got 'fixed:0'" "$sim" decode --split-policy fixed:0
expect_error fixed-no-arg "got 'fixed'" "$sim" decode --split-policy fixed
expect_error unknown-policy "got 'nope'" "$sim" decode --split-policy nope
expect_error bad-dtype "--dtype expects bf16, fp16 or fp8" "$sim" decode --dtype fp4
expect_error fp8-tile "give --kblock-m and --kblock-n" "$sim" decode --dtype fp8
expect_error hdim-tile "head dim 96" "$sim" decode --head-dim 96
expect_error batch-zero "--batch expects an integer from 1" "$sim" decode --batch 0
expect_error negative-cost "--combine-ns expects an integer from 0" "$sim" decode --combine-ns -1
expect_error too-many-ctas "over the cap of 4194304 simulated CTAs" "$sim" decode --batch 1000000 --hq 32 --hkv 32 --split-policy fixed:2
expect_error plot-without-sweep "--plot needs --sweep-splits" "$sim" decode --plot "$tmp/a.png"
expect_error sweep-and-regression "separate runs" "$sim" decode --sweep-splits --regression
expect_error regression-grid-flag "drop --batch" "$sim" decode --regression --lk 512
expect_error unknown-flag "unknown option" "$sim" decode --frobnicate
expect_error missing-value "missing value" "$sim" decode --lk
expect_error stray-arg "unexpected argument" "$sim" decode extra
expect_error unwritable-plot "cannot write /nonexistent/u.png" "$sim" decode --sweep-splits --plot /nonexistent/u.png
expect_error no-gnuplot "gnuplot is missing or failed" env PATH=/nonexistent "$(realpath "$sim")" decode --sweep-splits --plot "$tmp/n.png"
[ ! -e "$tmp/n.png" ] && [ ! -e "$tmp/a.png" ] && ok no-plot-left || fail no-plot-left "$(ls "$tmp")"
ls "$tmp" | grep -q '\.tmp\.' && fail no-temp-files "$(ls "$tmp")" || ok no-temp-files
finish
