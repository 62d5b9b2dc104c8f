#!/bin/bash
# CLI tests of the rendered outputs (--trace, --trace-flows, --csv, --gantt): a golden trace and CSV for a
# tiny case, PNG/SVG drawn by gnuplot with their script and data, and every bad input: one sentence, exit 2,
# no file left (also no earlier output of the same run).
. "$(dirname "$0")/lib.sh"
sim=$1
golden=$(dirname "$0")/golden/render

expect_exit help 0 "$sim" --help
grep -q -- "--trace FILE.json" "$tmp/out" && grep -q -- "--gantt FILE.png|FILE.svg" "$tmp/out" && grep -q -- "--csv FILE" "$tmp/out" \
    && ok help-render-flags || fail help-render-flags "--help lacks the render flags"

expect_exit golden-run 0 "$sim" --policy fa3 --n 2 --heads 2 --reduce async --trace "$tmp/g.json" --trace-flows \
    --csv "$tmp/g.csv"
# the golden file says VERSION where the trace names the dashsim version that wrote it
sed -i 's/"dashsim_version":"[^"]*"/"dashsim_version":"VERSION"/' "$tmp/g.json"
cmp -s "$tmp/g.json" "$golden/fa3-async-n2.json" && ok golden-trace || fail golden-trace "$(diff "$tmp/g.json" "$golden/fa3-async-n2.json" | head -5)"
cmp -s "$tmp/g.csv" "$golden/fa3-async-n2.csv" && ok golden-csv || fail golden-csv "$(diff "$tmp/g.csv" "$golden/fa3-async-n2.csv" | head -5)"

# --engine event runs the event engine where the fast path would apply: the same schedule, so the same bytes
# (the golden files above, and the summary of a causal async run); any other engine is refused.
expect_exit engine-event-run 0 "$sim" --policy fa3 --n 2 --heads 2 --reduce async --trace "$tmp/e.json" --trace-flows \
    --csv "$tmp/e.csv" --engine event
sed -i 's/"dashsim_version":"[^"]*"/"dashsim_version":"VERSION"/' "$tmp/e.json"
cmp -s "$tmp/e.json" "$golden/fa3-async-n2.json" && cmp -s "$tmp/e.csv" "$golden/fa3-async-n2.csv" && ok engine-event-golden \
    || fail engine-event-golden "--engine event wrote other bytes"
"$sim" --policy fa3 --mask causal --reduce async --n 8 --heads 4 --json >"$tmp/auto.json" &&
    "$sim" --policy fa3 --mask causal --reduce async --n 8 --heads 4 --json --engine event >"$tmp/event.json" &&
    cmp -s "$tmp/auto.json" "$tmp/event.json" && ok engine-event-summary || fail engine-event-summary "summaries differ"
expect_exit engine-bad 2 "$sim" --policy fa3 --n 2 --engine calendar
grep -q "expected auto or event" "$tmp/err" && ok engine-bad-msg || fail engine-bad-msg "$(cat "$tmp/err")"

# The CSV's last end is the makespan the summary reports (causal, async, 8 SMs, 4 heads).
expect_exit csv-run 0 "$sim" --policy fa3 --mask causal --reduce async --n 8 --heads 4 --json --csv "$tmp/c.csv"
makespan=$(sed 's/.*"makespan_ns":\([0-9]*\).*/\1/' "$tmp/out")
last=$(awk -F, 'NR > 1 && $11 > m { m = $11 } END { print m }' "$tmp/c.csv")
[ -n "$makespan" ] && [ "$last" = "$makespan" ] && ok csv-last-end || fail csv-last-end "last end $last, makespan $makespan"

# Trace: parses, no two slices on one track overlap, flows pair up.
expect_exit trace-run 0 "$sim" --policy symmetric-shift --mask causal --n 8 --heads 2 --trace "$tmp/t.json" --trace-flows
python3 - "$tmp/t.json" <<'PY' && ok trace-tracks || fail trace-tracks "see above"
import json, sys, collections
j = json.load(open(sys.argv[1]))
tracks = collections.defaultdict(list)
for e in j["traceEvents"]:
    if e["ph"] == "X":
        tracks[e["tid"]].append((e["args"]["start_ns"], e["args"]["end_ns"]))
for t in tracks.values():
    t.sort()
    assert all(a[1] <= b[0] for a, b in zip(t, t[1:])), t
assert sum(map(len, tracks.values())) == 2 * 2 * 36  # C and R of every causal task: 8*9/2 per head
s = [e["id"] for e in j["traceEvents"] if e["ph"] == "s"]
f = [e["id"] for e in j["traceEvents"] if e["ph"] == "f"]
assert sorted(s) == sorted(f) and len(s) == 2 * (36 - 8), len(s)
assert j["metadata"]["policy"] == "symmetric-shift"
PY

expect_exit gantt-png 0 "$sim" --policy shift --n 4 --heads 2 --gantt "$tmp/s.png"
[ "$(head -c 4 "$tmp/s.png" | od -An -c | tr -d ' ')" = "211PNG" ] && [ -s "$tmp/s.gp" ] && [ -s "$tmp/s.dat" ] \
    && ok gantt-png-files || fail gantt-png-files "$(ls "$tmp")"
(cd "$tmp" && mv s.png s0.png && gnuplot s.gp 2>/dev/null && cmp -s s.png s0.png) && ok gantt-redraw || fail gantt-redraw "gnuplot s.gp did not redraw the same image"
expect_exit gantt-svg 0 "$sim" --policy fa3 --mask causal --reduce async --n 4 --heads 2 --gantt "$tmp/f.svg"
grep -q '<svg' "$tmp/f.svg" && ok gantt-svg-file || fail gantt-svg-file "no <svg"
expect_exit gantt-132 0 "$sim" --policy shift --n 132 --gantt "$tmp/big.png"
grep -q 'every 3rd SM drawn (44 of 132)' "$tmp/big.gp" && ok gantt-sampled || fail gantt-sampled "no sampling caption"
# 264 phases per SM row: boxes about 4 px wide, so critical ops become a stripe and boxes lose their borders
grep -q 'black stripe = critical path' "$tmp/big.gp" && grep -q 'fill solid 1.0 noborder' "$tmp/big.gp" \
    && ok gantt-dense || fail gantt-dense "no dense mode at n = 132"
grep -q 'black outline = critical path' "$tmp/s.gp" && ok gantt-outline || fail gantt-outline "no outline at n = 4"
expect_exit gantt-empty 0 "$sim" --n 4 --c 0 --r 0 --gantt "$tmp/z.png" --trace "$tmp/z.json"
[ -s "$tmp/z.png" ] && grep -q 'set xrange \[0:1\]' "$tmp/z.gp" && ok gantt-empty-file || fail gantt-empty-file "no image"
expect_exit same-bytes 0 "$sim" --policy fa3 --mask causal --n 8 --heads 2 --trace "$tmp/d1.json" --trace-flows
"$sim" --policy fa3 --mask causal --n 8 --heads 2 --trace "$tmp/d2.json" --trace-flows >/dev/null
cmp -s "$tmp/d1.json" "$tmp/d2.json" && ok deterministic-trace || fail deterministic-trace "two runs differ"

mkdir "$tmp/e"
expect_error gantt-suffix "ending in .png or .svg, got '$tmp/e/g.jpg'" "$sim" --n 4 --gantt "$tmp/e/g.jpg"
expect_error gantt-quote "quotes, backslashes and newlines" "$sim" --n 4 --gantt "$tmp/e/it's.png"
expect_error flows-alone "--trace-flows needs --trace" "$sim" --n 4 --trace-flows
expect_error trace-mb-zero "--trace-max-mb expects an integer from 1" "$sim" --n 4 --trace "$tmp/e/t.json" --trace-max-mb 0
expect_error trace-cap "over the cap of 1 MB (--trace-max-mb)" "$sim" --policy fa3 --n 64 --heads 4 \
    --trace "$tmp/e/t.json" --trace-max-mb 1 --csv "$tmp/e/c.csv"
expect_error unwritable-trace "cannot write /nonexistent/t.json" "$sim" --n 4 --trace /nonexistent/t.json
expect_error unwritable-csv "cannot write /nonexistent/t.csv" "$sim" --n 4 --csv /nonexistent/t.csv \
    --trace "$tmp/e/t.json"
expect_error unwritable-gantt "cannot write /nonexistent/g" "$sim" --n 4 --gantt /nonexistent/g.png --csv "$tmp/e/c.csv"
expect_error no-gnuplot "cannot run gnuplot to draw $tmp/e/g.png" env PATH=/nonexistent "$sim" --n 4 \
    --gantt "$tmp/e/g.png" --trace "$tmp/e/t.json" --csv "$tmp/e/c.csv" --dot "$tmp/e/g.dot"
[ -z "$(ls -A "$tmp/e")" ] && ok errors-leave-nothing || fail errors-leave-nothing "left $(ls "$tmp/e")"
finish
