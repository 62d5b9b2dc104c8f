#!/bin/bash
# Block masks outside `sim search`: the tile-level command (--mask SPEC, --mask-file) runs the registered
# policies that take a block mask (ascending, descending, spt, search) with the same makespans search
# reports, and refuses the others naming those that take the mask; configs take
# workload.mask as a spec and workload.mask_file, run and sweep run the orders (a mask axis too, the same
# bytes for any --jobs), and bad input is refused with its location, exit 2.
. "$(dirname "$0")/lib.sh"
sim=$1
# the same workload and costs as sim search: its baselines and its schedule, order by order
expect_exit search-ref 0 "$sim" search --mask window:4 --n 8 --heads 4 --tiles 16 --json
cp "$tmp/out" "$tmp/ref.json"
for p in ascending descending spt search; do
    expect_exit "cli-$p" 0 "$sim" --mask window:4 --n 8 --heads 4 --kv-tiles 16 --q-tiles 16 --policy "$p" --json
    python3 - "$tmp/out" "$tmp/ref.json" "$p" <<'PY' && ok "cli-$p-equals-search" || fail "cli-$p-equals-search" "$(head -c 300 "$tmp/out")"
import json, sys
j, ref, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
want = ref["makespan_ns"] if p == "search" else ref["baselines"][p]
assert j["makespan_ns"] == want and j["mask"] == "window:4" and j["policy"] == p, (j["makespan_ns"], want)
PY
done
expect_exit cli-default-search 0 "$sim" --mask window:4 --n 8 --heads 4 --kv-tiles 16 --q-tiles 16
grep -q "^policy search, window:4 mask" "$tmp/out" && ok cli-default-is-search || fail cli-default-is-search "$(head -2 "$tmp/out")"
printf 'dashsim-mask 1\nkv_tiles 4\nq_tiles 4\nrows\n1111\n0111\n0011\n0001\nend\n' >"$tmp/rows.mask"
expect_exit cli-mask-file 0 "$sim" --mask-file "$tmp/rows.mask" --n 2 --policy descending --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["tasks"] == 10 and j["kv_tiles"] == 4, j' \
    "$tmp/out" && ok cli-mask-file-tasks || fail cli-mask-file-tasks "$(cat "$tmp/out")"
# one registry for every mask: a policy given a mask it does not take is refused naming those that take it,
# or the one that does its job there (issue 26 A: before, block masks had their own list of orders)
expect_error cli-registry-policy "policy fa3 is not defined for the block mask; the policies for it are ascending, descending, spt, search" \
    "$sim" --mask window:4 --n 8 --policy fa3
expect_error cli-shift-block "policy shift is not defined for the block mask; the policies for it are ascending" \
    "$sim" --mask window:1000 --n 8 --kv-tiles 16 --q-tiles 16 --policy shift
expect_error cli-spt-causal "policy spt is not defined for the causal mask; use fa3-spt" "$sim" --mask causal --n 8 --policy spt
expect_error cli-search-full "policy search is not defined for the full mask; the policies for it are fa3, descending, shift" \
    "$sim" --mask full --n 8 --policy search
expect_exit cli-list 0 "$sim" --list-policies
grep -q "^search  *block  " "$tmp/out" && grep -q "^descending  *full,causal,block  " "$tmp/out" && \
    grep -q "^fa3  *full,causal  " "$tmp/out" && ok cli-list-masks-per-policy || fail cli-list-masks-per-policy "$(cat "$tmp/out")"
expect_exit cli-help 0 "$sim" --help
grep -q "a block mask takes the policies ascending, descending, spt, search (default search)" "$tmp/out" \
    && ok cli-help-from-registry || fail cli-help-from-registry "$(grep -A2 -- '--mask SPEC' "$tmp/out")"
# descending's plan on a block mask is the search's descending baseline (one builder, tile_order.c)
expect_exit cli-descending-baseline 0 "$sim" search --mask document:4,4,8 --n 8 --heads 2 --tiles 16 --json
cp "$tmp/out" "$tmp/doc.json"
expect_exit cli-descending-doc 0 "$sim" --mask document:4,4,8 --n 8 --heads 2 --kv-tiles 16 --q-tiles 16 --policy descending --json
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a["makespan_ns"] == b["baselines"]["descending"], (a, b)' \
    "$tmp/out" "$tmp/doc.json" && ok cli-descending-is-baseline || fail cli-descending-is-baseline "$(cat "$tmp/out")"
expect_error cli-tile-ratio "a block mask has square tiles" "$sim" --mask window:4 --n 8 --tile-ratio 2
expect_error cli-shape "a window is W (causal) or L:R, positive token counts" "$sim" --seqlen 4096 --mask window:0
expect_error cli-bad-spec "--mask window:0: a window is" "$sim" --mask window:0 --n 8
expect_error cli-both "give --mask or --mask-file, not both" "$sim" --mask window:4 --mask-file "$tmp/rows.mask" --n 2
expect_error cli-file-tiles "has 4 KV x 4 Q tiles, not the --kv-tiles/--q-tiles given" "$sim" --mask-file "$tmp/rows.mask" --n 2 --kv-tiles 8

# configs: a block mask's point runs the four orders, FLOPs of the kept pairs, speedup over ascending
cat >"$tmp/w.json" <<'J'
{"schema_version": 1, "workload": {"heads": 16, "seqlen_q": 4096, "head_dim": 128, "mask": "window:8"},
 "hardware": {"preset": "h100-sxm"}}
J
expect_exit run-window 0 "$sim" run "$tmp/w.json" --format csv
python3 - "$tmp/out" <<'PY' && ok run-window-rows || fail run-window-rows "$(cat "$tmp/out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["policy"] for r in rows] == ["ascending", "descending", "spt", "search"], rows
assert all(r["mask"] == "window:8" and r["block_m"] == r["block_n"] == "128" and r["status"] == "ok" for r in rows)
ms = {r["policy"]: int(r["makespan_ns"]) for r in rows}
assert ms["search"] <= min(ms.values()) and rows[0]["speedup"] == "1.0000", ms
# window:8 over 32 x 32 tiles keeps 8+...: FLOPs scale with the kept pairs, so TFLOPS x makespan is one number
work = {round(float(r["tflops"]) * int(r["makespan_ns"])) for r in rows}
assert max(work) - min(work) <= 4 * len(rows) * 1000, work
PY
cat >"$tmp/sw.json" <<'J'
{"schema_version": 1, "workload": {"heads": 8, "seqlen_q": 2048, "head_dim": 128, "mask": "causal"},
 "hardware": {"preset": "h100-sxm"}, "policies": ["fa3", "symmetric-shift", "ascending", "search"],
 "sweep": {"workload.mask": ["causal", "window:4", "document:4,4,8", "prefix:2", "random:0.3:7"]}}
J
expect_exit sweep-masks 0 "$sim" sweep "$tmp/sw.json" --format csv --jobs 1
cp "$tmp/out" "$tmp/j1.csv"
expect_exit sweep-masks-jobs2 0 "$sim" sweep "$tmp/sw.json" --format csv --jobs 2
cmp -s "$tmp/out" "$tmp/j1.csv" && ok sweep-masks-same-bytes || fail sweep-masks-same-bytes "--jobs 2 differs"
python3 - "$tmp/j1.csv" <<'PY' && ok sweep-masks-rows || fail sweep-masks-rows "$(cat "$tmp/j1.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
got = [(r["mask"], r["policy"]) for r in rows]
want = [("causal", "fa3"), ("causal", "symmetric-shift")] + [(m, p) for m in
        ("window:4", "document:4,4,8", "prefix:2", "random:0.3:7") for p in ("ascending", "search")]
assert got == want, got
PY
mkdir -p "$tmp/cfg" && cp "$tmp/rows.mask" "$tmp/cfg/m.mask"
cat >"$tmp/cfg/f.json" <<'J'
{"schema_version": 1, "workload": {"heads": 2, "seqlen_q": 512, "head_dim": 128, "mask_file": "m.mask"},
 "hardware": {"preset": "h100-sxm"}}
J
expect_exit run-mask-file 0 "$sim" run "$tmp/cfg/f.json" --format csv
python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); assert len(r) == 4 and r[0]["tasks"] == "20", r' \
    "$tmp/out" && ok run-mask-file-tasks || fail run-mask-file-tasks "$(cat "$tmp/out")"
sed 's/"window:8"/"window:0"/' "$tmp/w.json" >"$tmp/bad.json"
expect_error config-bad-spec "bad.json: /workload/mask: --mask window:0: a window is" "$sim" run "$tmp/bad.json"
sed 's/"mask": "window:8"/"mask": "window:8", "mask_file": "m.mask"/' "$tmp/w.json" >"$tmp/both.json"
expect_error config-both "both.json: /workload/mask_file: give mask or mask_file, not both" "$sim" run "$tmp/both.json"
sed 's/"head_dim": 128,/"head_dim": 128, "block_m": 64, "block_n": 128,/' "$tmp/w.json" >"$tmp/sq.json"
expect_error config-square "sq.json: /workload/block_m: a block mask needs square tiles" "$sim" run "$tmp/sq.json"
sed 's/"seqlen_q": 512/"seqlen_q": 1024/' "$tmp/cfg/f.json" >"$tmp/cfg/g.json"
expect_error config-file-tiles "g.json: /workload/mask_file: the mask has 4 KV x 4 Q tiles; the workload has 8 x 8" \
    "$sim" run "$tmp/cfg/g.json"
mkfifo "$tmp/fifo.mask"
expect_error mask-file-fifo "cannot read .*fifo.mask: not a regular file" "$sim" --mask-file "$tmp/fifo.mask" --n 2
finish
