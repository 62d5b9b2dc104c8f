#!/bin/bash
# What reports say: each names its model, the plots say what they show and keep each policy's style (issue 25
# item 4); measured traces carry numeric metadata, stable slice names and the version, and the Perfetto
# converter shows model and measurement side by side (item 8); usage line, singular heads, margins (item 12).
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)

# Item 4: every report names its model; the plots say what they show and keep each policy's style.
ci=$root/configs/ci-sweep.json
expect_exit run-model 0 "$sim" run "$ci" --set 'sweep={}' --format table
head -1 "$tmp/out" | grep -q '^model numbers, not measurements: c from the FLOPs cost model, r from the cost model' \
    && sed -n 3p "$tmp/out" | grep -q ' h100-sxm  serial ' && ok run-table-model || fail run-table-model "$(head -3 "$tmp/out")"
expect_exit decode-model 0 "$sim" decode
grep -q '^model  FA3 split-KV decode on the H100 cost model .*model numbers, not measurements' "$tmp/out" \
    && ok decode-names-model || fail decode-names-model "$(cat "$tmp/out")"
expect_exit decode-sweep 0 "$sim" decode --sweep-splits
awk '!/^#/ && NF != 8 { bad = 1 } END { exit bad }' "$tmp/out" && grep -q '^# model ' "$tmp/out" \
    && ok decode-sweep-comments || fail decode-sweep-comments "$(head -4 "$tmp/out")"
expect_exit pipeline-model 0 "$sim" pipeline
sed -n 2p "$tmp/out" | grep -q "model .*model numbers, not measurements" && ok pipeline-names-model || fail pipeline-names-model "$(head -2 "$tmp/out")"
if command -v gnuplot >/dev/null; then
    expect_exit sweep-plot 0 "$sim" sweep "$ci" --plot "$tmp/p.png"
    grep -q 'title "model numbers, not measurements: .*preset h100-sxm, serial reduction"' "$tmp/p.gp" \
        && grep -q "set xlabel 'seqlen (tokens)'" "$tmp/p.gp" && ok sweep-plot-title || fail sweep-plot-title "$(grep -m2 'title\|xlabel' "$tmp/p.gp")"
    python3 - "$tmp/p.gp" <<'PY' && ok sweep-plot-coincident-visible || fail sweep-plot-coincident-visible "see above"
import re, sys
style = dict((p, (float(lw), int(dt))) for dt, lw, p in re.findall(r"dt (\d+) lw ([0-9.]+) ps [0-9.]+ title '([^']+)'", open(sys.argv[1]).read()))
# descending is drawn over fa3 (equal on the full mask): narrower and dashed, so fa3 stays in sight
assert style["fa3"][0] > style["descending"][0] and style["fa3"][1] != style["descending"][1], style
PY
    expect_exit amla-gantt 0 "$sim" pipeline --policy amla --gantt "$tmp/a.png"
    [ "$(grep -o "title '[CV][0-9]'" "$tmp/a.gp" | tr '\n' ' ')" = "title 'C1' title 'V1' title 'C2' title 'V2' " ] \
        && ok amla-key-stages || fail amla-key-stages "$(grep -o "title '[^']*'" "$tmp/a.gp" | head -5)"
else
    skip plots "no gnuplot"
fi
python3 - "$root/plots/makespan-over-n.gp" <<'PY' && ok figure-one-style-per-policy || fail figure-one-style-per-policy "see above"
import re, sys
styles = {}
for style, policy in re.findall(r'with linespoints (lc rgb "#[0-9a-f]{6}" pt \d+ dt \d+ lw [0-9.]+ ps [0-9.]+) title .(\S+).', open(sys.argv[1]).read()):
    assert styles.setdefault(policy, style) == style, (policy, style, styles[policy])
assert len(styles) == 5 and len(set(styles.values())) == 5, styles
PY

# Item 8: the measured trace beside the model; numeric metadata, stable slice names, the version everywhere.
version=$("$sim" --version | awk '{ print $3 }')
grep -q "^VERSION := $version$" "$root/Makefile" && ok version-one-place || fail version-one-place "Makefile VERSION is not $version"
trace=$root/traces/h100/descending-causal-h1-r1-async.json.gz
expect_exit perfetto 0 "$sim" perfetto "$trace" -o "$tmp/v.json"
"$sim" validate "$trace" --json >"$tmp/val.json" 2>/dev/null
python3 - "$tmp/v.json" "$tmp/val.json" "$version" <<'PY' && ok perfetto-two-processes || fail perfetto-two-processes "see above"
import collections, json, sys
j, val, version = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["traces"][0], sys.argv[3]
m = j["metadata"]
assert m["dashsim_version"] == version and m["n_sm"] == 132 and m["heads"] == 1 and m["measured_ns"] == val["measured_ns"], m
assert m["model_ns"] == val["uniform_model_ns"] and "fitted" in m["model"], (m, val)
names = {e["pid"]: e["args"]["name"] for e in j["traceEvents"] if e["name"] == "process_name"}
assert names[1].startswith("measured: NVIDIA H100") and names[2].startswith("model: fitted"), names
slices = [e for e in j["traceEvents"] if e["ph"] == "X"]
by_pid = collections.Counter((e["pid"], e["cat"]) for e in slices)
assert by_pid[(1, "compute")] == by_pid[(2, "compute")] == 1056 and by_pid[(1, "reduce")] == 1056, by_pid
assert {e["name"] for e in slices} <= {"C h0", "R h0", "P h0"}, {e["name"] for e in slices}
tracks = collections.defaultdict(list)
for e in slices:
    tracks[e["pid"], e["tid"]].append((e["args"]["start_ns"], e["args"]["end_ns"]))
for v in tracks.values():
    v.sort()
    assert all(b[0] >= a[1] for a, b in zip(v, v[1:])), "overlapping slices on one track"
meas = max(e["args"]["end_ns"] for e in slices if e["pid"] == 1) - min(e["args"]["start_ns"] for e in slices if e["pid"] == 1)
assert meas == m["measured_ns"], (meas, m["measured_ns"])
PY
grep -q '^.*measured 153248 ns, model fitted to it' "$tmp/out" && ok perfetto-report || fail perfetto-report "$(cat "$tmp/out")"
"$sim" perfetto "$trace" 2>"$tmp/err" | python3 -m json.tool >/dev/null && grep -q 'measured 153248 ns' "$tmp/err" \
    && ok perfetto-stdout || fail perfetto-stdout "$(cat "$tmp/err")"
expect_exit perfetto-block 0 "$sim" perfetto "$root/traces/h100-mask16/window-16/found.json.gz" -o "$tmp/w.json"
expect_error perfetto-needs-trace "needs one trace file" "$sim" perfetto
expect_error perfetto-overwrite-input "is the same file as the trace" "$sim" perfetto "$tmp/v.json" -o "$tmp/v.json"
"$sim" --policy fa3 --n 8 --heads 3 --kv-tiles 4 --q-tiles 8 --emit-plan "$tmp/p.plan" >/dev/null # a plan, not a trace
expect_error perfetto-not-trace "p.plan:1:1: invalid JSON" "$sim" perfetto "$tmp/p.plan"
expect_exit trace-meta 0 "$sim" --policy fa3 --n 4 --heads 2 --trace "$tmp/t.json" --csv "$tmp/t.csv" --dot "$tmp/t.dot" --json
python3 - "$tmp/t.json" "$tmp/t.csv.meta.json" "$tmp/out" "$version" <<'PY' && ok version-and-numbers || fail version-and-numbers "see above"
import json, sys
t, side, rep, version = (json.load(open(p)) for p in sys.argv[1:4]) , None, None, sys.argv[4]
t, side, rep = t
assert t["metadata"]["dashsim_version"] == version and t["metadata"]["n_sm"] == 4 and t["metadata"]["c_ns"] == 1000
assert side["dashsim_version"] == version and side["meta"]["heads"] == 2
assert rep["dashsim_version"] == version
assert {e["name"] for e in t["traceEvents"] if e["ph"] == "X"} == {"C h0", "R h0", "C h1", "R h1"}
PY
head -1 "$tmp/t.dot" | grep -q "^// made by dashsim $version$" && grep -q 'label="C h1 kv3 q2' "$tmp/t.dot" \
    && ok dot-labels || fail dot-labels "$(sed -n '1p;5p' "$tmp/t.dot")"
for cmd in "pipeline --json" "decode --json" "--seqlen 1024 --heads 2 --json"; do
    "$sim" $cmd | grep -q "\"dashsim_version\":\"$version\"" && ok "version-json-${cmd%% *}" || fail "version-json-${cmd%% *}" "no version"
done

# Item 12: papercuts.
"$sim" --help >"$tmp/help"
grep -q '^usage: sim \[--policy NAME\] \[--n N\]' "$tmp/help" && grep -q 'search' "$tmp/help" && grep -q 'calibrate' "$tmp/help" \
    && ok usage-line || fail usage-line "$(head -2 "$tmp/help")"
expect_exit search-kv-q-tiles 0 "$sim" search --mask window:4 --kv-tiles 12 --q-tiles 20 --n 8
grep -q '^mask window:4, 8 SMs, 1 head x 12 KV x 20 Q tiles' "$tmp/out" && ok search-kv-q-tiles-used || fail search-kv-q-tiles-used "$(head -1 "$tmp/out")"
expect_exit one-policy 0 "$sim" --seqlen 1024 --heads 1 --policy fa3
grep -q 'over fa3' "$tmp/out" && fail one-policy-no-margin "$(tail -1 "$tmp/out")" || ok one-policy-no-margin
grep -q '1 head,' "$tmp/out" && ! grep -q '1 heads' "$tmp/out" && ok shape-one-head || fail shape-one-head "$(head -1 "$tmp/out")"
expect_exit tile-one-head-run 0 "$sim" --policy fa3 --n 4
grep -q ' 1 head x ' "$tmp/out" && ok tile-one-head || fail tile-one-head "$(head -1 "$tmp/out")"
mkdir -p "$tmp/nogpu" && ln -sf "$sim" "$tmp/nogpu/sim"
bash "$root/tests/cli_gpu.sh" "$tmp/nogpu/sim" >"$tmp/gpu.out"
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    grep -q 'skip gpu-dry-run.*nvcc exists, but this build leaves gpu/ out' "$tmp/gpu.out" && ok gpu-skip-reason || fail gpu-skip-reason "$(cat "$tmp/gpu.out")"
else
    grep -q 'skip gpu-dry-run.*(no nvcc)' "$tmp/gpu.out" && ok gpu-skip-reason || fail gpu-skip-reason "$(cat "$tmp/gpu.out")"
fi
grep -n -- '--kv \|--q ' "$root"/docs/*.md "$root/README.md" >"$tmp/abbrev" && fail docs-no-abbrev "$(head -2 "$tmp/abbrev")" || ok docs-no-abbrev
finish
