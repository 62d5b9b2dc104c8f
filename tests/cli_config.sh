#!/bin/bash
# CLI tests of `sim run` and `sim sweep`: configs/ci-sweep.json and the invariants of its results, the same
# bytes for any --jobs, the output files, Ctrl-C, and every bad config: located sentences, exit 2, no file.
. "$(dirname "$0")/lib.sh"
sim=$1
cfgs=$(dirname "$0")/../configs
ci=$cfgs/ci-sweep.json
# Policies per mask, from the registry (a new policy adds rows; nothing here names the count).
nf=$("$sim" --list-policies | awk '$2 ~ /full/' | wc -l) nc=$("$sim" --list-policies | awk '$2 ~ /causal/' | wc -l)

expect_exit help 0 "$sim" sweep --help
grep -q -- "--jobs N" "$tmp/out" && ok help-text || fail help-text "no --jobs in --help"

# ci-sweep: 2 masks x 2 head dims x 3 seqlens, each with every policy that supports the mask
expect_exit ci-sweep 0 "$sim" sweep "$ci" --jobs 2
cp "$tmp/out" "$tmp/ci.csv"
python3 - "$tmp/ci.csv" "$nf" "$nc" <<'PY' && ok ci-invariants || fail ci-invariants "$(head -c 600 "$tmp/ci.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2 * 3 * int(sys.argv[2]) + 2 * 3 * int(sys.argv[3]), len(rows)
for r in rows:
    assert r["status"] == "ok", r
    m, cp, b, h, s, d = (int(r[k]) for k in ("makespan_ns", "critical_path_ns", "batch", "heads", "seqlen", "head_dim"))
    assert 0 < cp <= m, r
    assert 0 < float(r["busy_fraction"]) <= 1, r
    sk = s / 2 if r["mask"] == "causal" else s
    assert abs(float(r["tflops"]) - 2.5 * 2 * b * h * s * sk * 2 * d / m / 1e3) < 0.0006, r   # FA3's FLOP count
    assert int(r["tasks"]) >= int(r["kv_tiles"]) * b * h, r
    # makespan >= work / SMs
    assert m * int(r["sm_count"]) >= int(r["tasks"]) * int(r["c_ns"]), r
    base = [x for x in rows if x["policy"] == "fa3" and all(x[k] == r[k] for k in ("mask", "head_dim", "seqlen"))]
    assert len(base) == 1 and abs(float(r["speedup"]) - int(base[0]["makespan_ns"]) / m) < 0.00006, r
    assert r["policy"] not in ("fa3-spt", "symmetric-shift") or r["mask"] == "causal", r
    assert r["policy"] != "shift" or r["mask"] == "full", r
PY
"$sim" sweep "$ci" --jobs 1 >"$tmp/ci1.csv" && cmp -s "$tmp/ci.csv" "$tmp/ci1.csv" && ok jobs-same-bytes \
    || fail jobs-same-bytes "--jobs 1 and --jobs 2 differ"
"$sim" sweep "$ci" --jobs 3 --format jsonl >"$tmp/ci.jsonl" && python3 -c '
import json, sys, csv
j = [json.loads(l) for l in open(sys.argv[1])]
c = list(csv.DictReader(open(sys.argv[2])))
assert len(j) == len(c) and all(a["makespan_ns"] == int(b["makespan_ns"]) and a["policy"] == b["policy"] for a, b in zip(j, c))
' "$tmp/ci.jsonl" "$tmp/ci.csv" && ok jsonl-matches-csv || fail jsonl-matches-csv "$(head -2 "$tmp/ci.jsonl")"

expect_exit run-table 0 "$sim" run "$ci" --set 'sweep={}'
# the table: what the numbers are, the column header, one row per policy
[ "$(wc -l <"$tmp/out")" -eq $((nf + 2)) ] && head -1 "$tmp/out" | grep -q "^model numbers, not measurements" \
    && sed -n 2p "$tmp/out" | grep -q "makespan_ns" && ok run-one-point \
    || fail run-one-point "$(cat "$tmp/out")"
expect_exit set-override 0 "$sim" sweep "$ci" --set 'sweep={}' --set workload.heads=5 --set 'policies=["shift"]'
[ "$(wc -l <"$tmp/out")" -eq 2 ] && tail -1 "$tmp/out" | grep -q "^shift,full,64,512,512,2,5," && ok set-applied \
    || fail set-applied "$(cat "$tmp/out")"
expect_exit out-files 0 "$sim" run "$ci" --set 'sweep.seqlen=[512]' --out "$tmp/o" -o "$tmp/o.txt"
[ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/o/ci-sweep.csv")" -eq $((2 * (nf + nc) + 1)) ] \
    && [ "$(wc -l <"$tmp/o/ci-sweep.jsonl")" -eq $((2 * (nf + nc))) ] \
    && grep -q "symmetric-shift" "$tmp/o.txt" && ok out-written || fail out-written "$(ls "$tmp/o")"

# a latency matrix file: 16 x 16, all 1000 ns off the diagonal, slows every schedule down
python3 -c 'print("# 16 SMs\n" + "\n".join(" ".join("0" if i == j else "1000" for j in range(16)) for i in range(16)))' >"$tmp/lat.txt"
expect_exit matrix 0 "$sim" sweep "$ci" --set 'sweep={}' --set "hardware.latency_matrix=$tmp/lat.txt" --format jsonl
python3 -c '
import json, sys, csv
a = [json.loads(l) for l in open(sys.argv[1])]
b = [r for r in csv.DictReader(open(sys.argv[2])) if r["mask"] == "full" and r["head_dim"] == "64" and r["seqlen"] == "512"]
assert len(a) == len(b) == int(sys.argv[3]) and all(x["makespan_ns"] > int(y["makespan_ns"]) for x, y in zip(a, b)), (a, b)
' "$tmp/out" "$tmp/ci.csv" "$nf" && ok matrix-slower || fail matrix-slower "$(cat "$tmp/out")"

if command -v gnuplot >/dev/null; then
    expect_exit plot 0 "$sim" sweep "$ci" --plot "$tmp/fig.png"
    [ -s "$tmp/fig.png" ] && grep -q "index 0 using 1:2" "$tmp/fig.gp" && [ "$(grep -c '^# ' "$tmp/fig.dat")" -eq $((2 * (nf + nc))) ] \
        && ok plot-files || fail plot-files "$(ls "$tmp")"
fi

# Ctrl-C: finished rows are flushed (a prefix of the full output), exit 130. At 16x the paper's tokens the
# sweep takes ~17 s here, so the signal after 1 s lands mid-sweep on any machine up to ~15x faster.
"$sim" sweep "$cfgs/dash-paper.json" --set workload.total_tokens=262144 >"$tmp/int.csv" 2>"$tmp/int.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
full=$(head -c "$(wc -c <"$tmp/int.csv")" "$tmp/ci.csv" | head -1)
if [ "$rc" -eq 130 ] && [ "$(head -1 "$tmp/int.csv")" = "$full" ] && grep -q interrupted "$tmp/int.err" \
    && [ "$(wc -l <"$tmp/int.csv")" -lt 85 ] && [ "$(tail -c 1 "$tmp/int.csv" | od -An -c | tr -d ' ')" = '\n' ]; then
    ok sigint-flush
else
    fail sigint-flush "exit $rc, $(wc -l <"$tmp/int.csv") lines, stderr $(cat "$tmp/int.err")"
fi

# bad configs: every error of the file, one sentence per line, exit 2, nothing on stdout, no file written
bad() { printf '%s' "$2" >"$tmp/$1.json"; }
bad syntax '{
  "schema_version": 1
  "workload": {}
}'
expect_error syntax-line-col "syntax.json:3:3: invalid JSON here" "$sim" sweep "$tmp/syntax.json" -o "$tmp/x.csv"
[ ! -e "$tmp/x.csv" ] && ok syntax-no-file || fail syntax-no-file "x.csv written"
bad trunc '{"schema_version": 1, "workload": {"heads": '
expect_error truncated "trunc.json:1:45: invalid JSON here" "$sim" run "$tmp/trunc.json"
bad unknown '{"schema_version": 1, "workload": {"seqlen_q": 512, "head_dim": 64, "haeds": 2}}'
expect_error unknown-key "unknown.json: /workload/haeds: unknown key (allowed here: batch, heads," "$sim" run "$tmp/unknown.json"
bad dup '{"schema_version": 1, "workload": {"seqlen_q": 512, "head_dim": 64}, "options": {"reduce": "serial", "reduce": "async"}}'
expect_error duplicate-key "dup.json: /options/reduce: duplicate key" "$sim" run "$tmp/dup.json"
bad heads '{"schema_version": 1, "workload": {"seqlen_q": 512, "head_dim": 64, "heads": -3}}'
expect_error semantic-path "heads.json: /workload/heads: must be an integer from 1 to 1000000" "$sim" run "$tmp/heads.json"
bad axis '{"schema_version": 1, "workload": {"seqlen_q": 512, "head_dim": 64}, "sweep": {"seqlen": [512, 0]}}'
expect_error sweep-value "axis.json: /sweep/seqlen/1: must be an integer from 1 to 10000000" "$sim" sweep "$tmp/axis.json"
bad many '{"schema_version": 3, "workload": {"seqlen_q": 512, "head_dim": 256, "mask": "causal", "seqlen_k": 64}, "hardware": {"preset": "b200"}, "policies": ["fa3", "fa4"], "x": 1}'
"$sim" sweep "$tmp/many.json" -o "$tmp/many.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 6 ] && [ "$(grep -c '^sim: .*many.json: /' "$tmp/err")" -eq 6 ] \
    && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/many.csv" ]; then ok all-errors-listed
else fail all-errors-listed "exit $rc: $(cat "$tmp/err")"; fi
# found by the fuzzer (a 10 s unit): repeated axes (43680 points) are reported, not expanded
"$sim" sweep "$(dirname "$0")/fuzz/regress/slow-sweep.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 4 ] && grep -q "/sweep/seqlen: duplicate key" "$tmp/err" \
    && grep -q "/workload: missing" "$tmp/err" && ok fuzz-slow-sweep \
    || fail fuzz-slow-sweep "exit $rc: $(head -c 400 "$tmp/err")"
# point-specific errors are capped: 200 seqlens that do not divide total_tokens
python3 -c 'import json; print(json.dumps({"schema_version": 1, "workload": {"total_tokens": 7, "seqlen_q": 7, "head_dim": 64}, "sweep": {"seqlen": list(range(8, 208))}}))' >"$tmp/cap.json"
"$sim" sweep "$tmp/cap.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 101 ] && tail -1 "$tmp/err" | grep -q "more errors not listed (stopped after 100)" \
    && grep -q "^sim: .*cap.json: /workload/total_tokens: 7 must be a multiple of seqlen_q (8) and at most 1000000 times it (sweep point 0: /sweep/seqlen/0)$" "$tmp/err" \
    && ok error-cap || fail error-cap "exit $rc: $(head -3 "$tmp/err")"
bad big '{"schema_version": 1, "workload": {"seqlen_q": 1000000, "head_dim": 64, "heads": 1000}}'
expect_error memory-cap "over the cap of 4096 MB" "$sim" run "$tmp/big.json" -o "$tmp/big.csv"
[ ! -e "$tmp/big.csv" ] && ok memory-no-file || fail memory-no-file "big.csv written"
python3 -c 'print("0 1\n1 0")' >"$tmp/lat2.txt"
expect_error matrix-size "values, expected sm_count x sm_count = 256" "$sim" run "$ci" --set "hardware.latency_matrix=$tmp/lat2.txt"
expect_error matrix-text "lat3.txt:2: expected at most 256 integers" sh -c "printf '0 1\n1 x\n' >'$tmp/lat3.txt'; '$sim' run '$ci' --set 'hardware.latency_matrix=$tmp/lat3.txt'"
expect_error no-file "cannot read $tmp/none.json" "$sim" run "$tmp/none.json"
expect_error no-arg "sim run needs one config FILE" "$sim" run
expect_error two-args "got a second one" "$sim" run "$ci" "$ci"
expect_error bad-set "--set expects key.path=value, got 'workload.heads'" "$sim" run "$ci" --set workload.heads
expect_error set-through-value "--set schema_version.x: the path must name a field inside JSON objects" "$sim" run "$ci" --set schema_version.x=1
expect_error bad-format "--format expects table, csv or jsonl, got 'xml'" "$sim" sweep "$ci" --format xml
expect_error bad-jobs "--jobs expects an integer from 1 to 256, got '0'" "$sim" sweep "$ci" --jobs 0
expect_error bad-option "unknown option or missing value: --frobnicate" "$sim" sweep "$ci" --frobnicate
expect_error plot-nothing "nothing to plot" "$sim" sweep "$ci" --set 'policies=["shift"]' --set 'sweep={"mask":["causal"]}' --plot "$tmp/z.png"
expect_error out-unwritable "cannot" "$sim" sweep "$ci" --set 'sweep={}' -o /nonexistent/dir/x.csv
# One set of defaults (issue 33): a config that names only a shape gives the shape front end's answer (its
# hardware profile, async reduction, a mask in tokens over the costed tiles, the kernel profile of the preset's
# GPU), and the table's first line names the profile files the front end's report names.
defaults_case() { # NAME WORKLOAD-JSON [OPTIONS-JSON [HARDWARE-JSON]] -- FRONT-END ARGS...
    local name=$1 wl=$2 opt=${3:-{\}} hw=${4:-{\}}
    shift 5
    printf '{"schema_version": 1, "workload": %s, "options": %s, "hardware": %s}\n' "$wl" "$opt" "$hw" >"$tmp/d-$name.json"
    "$sim" sweep "$tmp/d-$name.json" --format jsonl >"$tmp/d-$name.jsonl" 2>"$tmp/err" &&
        "$sim" run "$tmp/d-$name.json" >"$tmp/d-$name.txt" 2>>"$tmp/err" &&
        "$sim" "$@" --json >"$tmp/d-$name.front" 2>>"$tmp/err" &&
        python3 - "$tmp/d-$name.jsonl" "$tmp/d-$name.front" "$tmp/d-$name.txt" <<'PY' && ok "defaults-$name" || fail "defaults-$name" "$(cat "$tmp/err") $(head -c 600 "$tmp/d-$name.jsonl")"
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
front = json.load(open(sys.argv[2]))
header = open(sys.argv[3]).readline()
got = {r["policy"]: (r["makespan_ns"], r["time_ns"]) for r in rows if r["status"] == "ok"}
want = {p["policy"]: (p["makespan_ns"], p["time_ns"]) for p in front["policies"]}
assert got == want, (got, want)
assert all(r["reduce"] == front["reduce"] == "async" for r in rows)
kernel, profile = front["shape"]["kernel"], front["shape"]["profile"]
assert (not kernel and "c from the FLOPs cost model" in header) or "c from kernel profile " + os.path.basename(kernel) in header, header
# r: the kernel profile's own reduction when it measured one (both reports say so), else the hardware profile's
r_kernel = front["shape"]["reduce_from"].startswith("kernel profile")
assert ("r from kernel profile " + os.path.basename(kernel) if r_kernel else "r from hardware profile " + os.path.basename(profile)) in header, header
PY
}
defaults_case full '{"seqlen_q": 2048, "head_dim": 128, "heads": 4}' '' '' -- --seqlen 2048 --head-dim 128 --heads 4
defaults_case causal '{"seqlen_q": 3072, "head_dim": 64, "heads": 8, "batch": 2, "mask": "causal"}' '' '' -- \
    --seqlen 3072 --head-dim 64 --heads 8 --batch 2 --mask causal
defaults_case window '{"seqlen_q": 4096, "head_dim": 128, "heads": 8, "mask_tokens": "window:512"}' '' '' -- \
    --seqlen 4096 --head-dim 128 --heads 8 --mask window:512
defaults_case document '{"seqlen_q": 4096, "head_dim": 128, "heads": 4, "mask_tokens": "document:1000,3096"}' '' '' -- \
    --seqlen 4096 --head-dim 128 --heads 4 --mask document:1000,3096
defaults_case gqa '{"seqlen_q": 4096, "head_dim": 128, "heads": 8, "kv_heads": 2, "batch": 2, "mask": "causal"}' \
    '{"kernel": "gpu-bwd"}' '' -- --seqlen 4096 --head-dim 128 --heads 8 --kv-heads 2 --batch 2 --mask causal --kernel gpu-bwd
defaults_case h200 '{"seqlen_q": 2048, "head_dim": 128, "heads": 16, "mask": "causal"}' '{"kernel": "gpu-bwd-wgmma"}' \
    '{"preset": "h200-sxm"}' -- --seqlen 2048 --head-dim 128 --heads 16 --mask causal --kernel gpu-bwd-wgmma --hardware h200-sxm
grep -q 'gpu-bwd-wgmma-h200.json' "$tmp/d-h200.txt" && ok defaults-h200-files \
    || fail defaults-h200-files "$(head -1 "$tmp/d-h200.txt")"
# The defaults can be set aside: /options/model paper is the cost model's r and latency (serial stays a choice),
# and names no profile; it excludes a hardware profile; a latency matrix needs it.
expect_exit defaults-paper 0 "$sim" run "$tmp/d-full.json" --set options.model=paper
head -1 "$tmp/out" | grep -q 'c from the FLOPs cost model, r from the cost model (docs' && ! grep -q profile "$tmp/out" \
    && ok defaults-paper-header || fail defaults-paper-header "$(head -1 "$tmp/out")"
expect_error defaults-paper-profile "/options/model: paper takes r and the hand-off from the cost model" \
    "$sim" run "$tmp/d-full.json" --set options.model=paper --set hardware.profile=h100-sxm
printf '0 580\n580 0\n' >"$tmp/lat-2.txt"
expect_error defaults-matrix "latency_matrix goes with the cost model (/options/model paper)" \
    "$sim" run "$tmp/d-full.json" --set hardware.sm_count=2 --set "hardware.latency_matrix=$tmp/lat-2.txt"
expect_error defaults-tokens-twice "give mask_tokens, mask or mask_file, not two of them" \
    "$sim" run "$tmp/d-window.json" --set workload.mask=causal
expect_error defaults-tokens-bad "/workload/mask_tokens: " "$sim" run "$tmp/d-window.json" --set workload.mask_tokens=window:x
finish
