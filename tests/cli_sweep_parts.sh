#!/bin/bash
# CLI tests of issue 14's sweep items: --set of a field that excludes another (heads/hidden,
# batch/total_tokens), --shard K/N and --merge (the slices join into the single-machine bytes), and
# --row K with the job outputs of exactly that row (its makespan equals the trace's, CSV's and plan's).
. "$(dirname "$0")/lib.sh"
sim=$1
cfgs=$(dirname "$0")/../configs
ci=$cfgs/ci-sweep.json

# --set workload.heads on a config that gives hidden (configs/h100.json) replaces it
expect_exit set-heads-over-hidden 0 "$sim" sweep "$cfgs/h100.json" --set 'sweep={}' --set workload.heads=16 \
    --set 'policies=["fa3"]'
tail -1 "$tmp/out" | grep -q "^fa3,full,128,4096,4096,4,16," && ok set-heads-applied || fail set-heads-applied "$(cat "$tmp/out")"
expect_exit set-hidden-over-heads 0 "$sim" sweep "$ci" --set 'sweep={}' --set workload.hidden=256 --set 'policies=["fa3"]'
tail -1 "$tmp/out" | grep -q "^fa3,full,64,512,512,2,4," && ok set-hidden-applied || fail set-hidden-applied "$(cat "$tmp/out")"
expect_exit set-batch-over-tokens 0 "$sim" sweep "$cfgs/h100.json" --set 'sweep={}' --set workload.batch=1 \
    --set 'policies=["fa3"]'
tail -1 "$tmp/out" | grep -q "^fa3,full,128,4096,4096,1,16," && ok set-batch-applied || fail set-batch-applied "$(cat "$tmp/out")"

# --shard K/N and --merge: the slices joined are the single-machine bytes (CSV, JSONL, table); a slice
# holds whole points, so its speedups are those of the whole run
"$sim" sweep "$ci" >"$tmp/all.csv" && "$sim" sweep "$ci" --format jsonl >"$tmp/all.jsonl" && "$sim" run "$ci" >"$tmp/all.txt"
for k in 1 2 3; do
    "$sim" sweep "$ci" --shard $k/3 >"$tmp/p$k.csv" && "$sim" sweep "$ci" --shard $k/3 --format jsonl >"$tmp/p$k.jsonl" \
        && "$sim" run "$ci" --shard $k/3 >"$tmp/p$k.txt" || fail shard-$k "exit $?"
done
[ "$(wc -l <"$tmp/p1.csv")" -gt 1 ] && [ "$(wc -l <"$tmp/p1.csv")" -lt "$(wc -l <"$tmp/all.csv")" ] && ok shard-is-a-slice \
    || fail shard-is-a-slice "$(wc -l "$tmp"/p*.csv)"
"$sim" sweep --merge "$tmp/p1.csv" "$tmp/p2.csv" "$tmp/p3.csv" | cmp -s - "$tmp/all.csv" && ok merge-csv-same-bytes \
    || fail merge-csv-same-bytes "merged CSV differs from one run"
"$sim" sweep --merge "$tmp/p1.jsonl" "$tmp/p2.jsonl" "$tmp/p3.jsonl" | cmp -s - "$tmp/all.jsonl" && ok merge-jsonl-same-bytes \
    || fail merge-jsonl-same-bytes "merged JSONL differs from one run"
"$sim" run --merge "$tmp/p1.txt" "$tmp/p2.txt" "$tmp/p3.txt" | cmp -s - "$tmp/all.txt" && ok merge-table-same-bytes \
    || fail merge-table-same-bytes "merged table differs from one run"
expect_exit merge-to-file 0 "$sim" sweep --merge "$tmp/p1.csv" "$tmp/p2.csv" "$tmp/p3.csv" -o "$tmp/m.csv"
cmp -s "$tmp/m.csv" "$tmp/all.csv" && [ ! -s "$tmp/out" ] && ok merge-o || fail merge-o "-o differs"
expect_exit shard-more-than-points 0 "$sim" sweep "$ci" --set 'sweep={}' --shard 2/3
[ "$(sed '1d;$d' "$tmp/out")" = "$(head -1 "$tmp/all.csv")" ] && grep -q '^# dashsim slice 2/3: rows 1-0 of ' "$tmp/out" \
    && ok empty-shard-header-only || fail empty-shard-header-only "$(cat "$tmp/out")"
expect_error shard-k-over-n "--shard's K expects an integer from 1 to 3" "$sim" sweep "$ci" --shard 4/3
expect_error shard-no-slash "--shard expects K/N" "$sim" sweep "$ci" --shard 3
expect_error merge-mixed "is in another format than" "$sim" sweep --merge "$tmp/p1.csv" "$tmp/p2.jsonl"
expect_error merge-not-output "not a slice of sim sweep --shard K/N" "$sim" sweep --merge "$ci"
expect_error merge-option "--merge joins files and takes only -o, --plot and --plot-speedup, not --jobs" "$sim" sweep --merge --jobs 2 "$tmp/p1.csv"
expect_error merge-no-file "--merge needs the slices' files" "$sim" sweep --merge
expect_error merge-unreadable "cannot read" "$sim" sweep --merge "$tmp/nothing.csv"
# --merge --plot / --plot-speedup (issue 33): the slices' figure is the one an unsharded run draws (its data and
# script byte for byte, the same file names in two folders), from CSV, JSONL and table slices; nothing is
# written when the merge fails, and the figure's files may not name a slice.
if command -v gnuplot >/dev/null; then
    for fmt in csv jsonl table; do
        for kind in plot plot-speedup; do
            rm -rf "$tmp/one" "$tmp/two" && mkdir -p "$tmp/one" "$tmp/two"
            "$sim" sweep "$ci" --format "$fmt" --"$kind" "$tmp/one/f.png" -o "$tmp/one.$fmt" 2>"$tmp/err" &&
                for k in 1 2 3; do "$sim" sweep "$ci" --format "$fmt" --shard $k/3 -o "$tmp/s$k.$fmt" || break; done &&
                "$sim" sweep --merge "$tmp/s3.$fmt" "$tmp/s1.$fmt" "$tmp/s2.$fmt" --"$kind" "$tmp/two/f.png" \
                    -o "$tmp/two.$fmt" 2>>"$tmp/err" &&
                cmp -s "$tmp/one.$fmt" "$tmp/two.$fmt" && cmp -s "$tmp/one/f.dat" "$tmp/two/f.dat" &&
                cmp -s "$tmp/one/f.gp" "$tmp/two/f.gp" && [ -s "$tmp/two/f.png" ] && ok "merge-$kind-$fmt" ||
                fail "merge-$kind-$fmt" "$(cat "$tmp/err"; diff "$tmp/one/f.gp" "$tmp/two/f.gp" | head -5)"
        done
    done
    grep -q 'c from the FLOPs cost model, r from the cost model' "$tmp/two/f.gp" && ok merge-plot-title \
        || fail merge-plot-title "$(grep -m1 title "$tmp/two/f.gp")"
    rm -rf "$tmp/three" && mkdir -p "$tmp/three"
    expect_error merge-plot-missing "slice 2 of 3 is missing" "$sim" sweep --merge "$tmp/s1.csv" "$tmp/s3.csv" \
        --plot "$tmp/three/f.png" -o "$tmp/three/m.csv"
    [ -z "$(ls "$tmp/three")" ] && ok merge-plot-nothing-written || fail merge-plot-nothing-written "$(ls "$tmp/three")"
    cp "$tmp/s1.csv" "$tmp/s1.dat"
    expect_error merge-plot-names-slice "--plot's data .*s1.dat is the same file as a merged file" \
        "$sim" sweep --merge "$tmp/s1.dat" "$tmp/s2.csv" "$tmp/s3.csv" --plot "$tmp/s1.png"
else skip merge-plot "no gnuplot"; fi
# each slice ends with its rows' digest: an edited row (same count, one digit changed) or a slice without that
# line (cut after a whole row) is refused (both were merged silently before)
sed '3s/,1,/,2,/' "$tmp/p2.csv" >"$tmp/e2.csv"
cmp -s "$tmp/p2.csv" "$tmp/e2.csv" && fail merge-edited-setup "the edit changed nothing" || true
expect_error merge-edited-row "e2.csv: its rows do not match the digest of its last line (an edited slice?)" \
    "$sim" sweep --merge "$tmp/p1.csv" "$tmp/e2.csv" "$tmp/p3.csv"
sed '$d' "$tmp/p2.jsonl" >"$tmp/c2.jsonl"
expect_error merge-no-digest "c2.jsonl: has no last line with its rows' digest" \
    "$sim" sweep --merge "$tmp/p1.jsonl" "$tmp/c2.jsonl" "$tmp/p3.jsonl"
tail -1 "$tmp/p3.txt" | grep -q '^# dashsim slice end: rows fnv1a64:[0-9a-f]\{16\}$' && ok slice-last-line \
    || fail slice-last-line "$(tail -1 "$tmp/p3.txt")"

# --row K: the row alone, and the outputs of exactly its job (near/far latency matrix included)
row=5
expect_exit row-outputs 0 "$sim" sweep "$ci" --row $row --csv "$tmp/ph.csv" --trace "$tmp/t.json" \
    --emit-plan "$tmp/p.plan" --dot "$tmp/d.dot"
[ "$(wc -l <"$tmp/out")" -eq 2 ] && [ "$(tail -1 "$tmp/out")" = "$(sed -n "$((row + 1))p" "$tmp/all.csv")" ] \
    && ok row-is-the-row || fail row-is-the-row "$(cat "$tmp/out")"
python3 - "$tmp/out" "$tmp/ph.csv" "$tmp/t.json" "$tmp/d.dot" <<'PY' && ok row-makespan-in-outputs || fail row-makespan-in-outputs "see above"
import csv, json, sys
row = list(csv.DictReader(open(sys.argv[1])))[0]
m = int(row["makespan_ns"])
ends = [int(r["end_ns"]) for r in csv.DictReader(open(sys.argv[2]))]
assert max(ends) == m and len([r for r in ends]) >= int(row["tasks"]), (max(ends), m)
t = json.load(open(sys.argv[3]))
ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
assert round(max(e["ts"] + e["dur"] for e in ev) * 1000) == m, "trace end"
assert open(sys.argv[4]).read().split("\n")[1].startswith("digraph"), "dot" # after the version comment
PY
# one latency (near = far): the emitted plan replays to the row's makespan in the low-level command
expect_exit row-plan 0 "$sim" sweep "$ci" --row $row --set hardware.latency_far_ns=580 --emit-plan "$tmp/q.plan"
m=$(tail -1 "$tmp/out" | cut -d, -f22)
"$sim" --plan "$tmp/q.plan" --json | python3 -c "import json,sys; assert json.load(sys.stdin)['makespan_ns'] == $m" \
    && ok row-plan-replays || fail row-plan-replays "makespan $m not reproduced"
if command -v gnuplot >/dev/null; then
    expect_exit row-gantt 0 "$sim" run "$ci" --row $row --gantt "$tmp/g.png"
    [ -s "$tmp/g.png" ] && [ -s "$tmp/g.gp" ] && ok row-gantt-drawn || fail row-gantt-drawn "no chart"
else
    skip row-gantt "no gnuplot"
fi
expect_error row-beyond "--row 1000: the config has $(($(wc -l <"$tmp/all.csv") - 1)) rows" "$sim" sweep "$ci" --row 1000
expect_error outputs-need-row "select its row with --row K" "$sim" sweep "$ci" --trace "$tmp/x.json"
expect_error row-and-shard "--row and --shard exclude each other" "$sim" sweep "$ci" --row 1 --shard 1/2
expect_error row-two-stdouts "only one output can go to standard output" "$sim" sweep "$ci" --row 1 --trace -
expect_exit row-trace-stdout 0 "$sim" sweep "$ci" --row 1 --trace - -o "$tmp/r1.csv"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" && [ "$(wc -l <"$tmp/r1.csv")" -eq 2 ] \
    && ok row-trace-stdout-is-the-trace || fail row-trace-stdout-is-the-trace "stdout is not the trace alone"
expect_error row-flows-need-trace "--trace-flows needs --trace" "$sim" sweep "$ci" --row 1 --trace-flows
expect_exit row-skipped 2 "$sim" sweep "$ci" --set 'sweep={}' \
    --set workload.mask=causal --set 'policies=["symmetric-shift"]' --set workload.seqlen_q=640 --row 1 --csv "$tmp/s.csv"
grep -q "the selected row (symmetric-shift) was skipped" "$tmp/err" && [ ! -e "$tmp/s.csv" ] && ok row-skipped-nothing-written || fail row-skipped-nothing-written "wrote $tmp/s.csv"
finish
