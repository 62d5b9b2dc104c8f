#!/bin/bash
# CLI tests of `sim validate` on hand-computed traces (tests/golden/validate): exact predictions, the
# verdict's exit codes, the baseline regression check, and every bad trace: one sentence, exit 2.
. "$(dirname "$0")/lib.sh"
sim=$1
g=$(dirname "$0")/golden/validate

expect_exit exact 0 "$sim" validate "$g" --json
python3 - "$tmp/out" <<'PY' && ok exact-numbers || fail exact-numbers "$(cat "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
fa3, shift = j["traces"]
assert (fa3["measured_ns"], fa3["fitted_ns"], fa3["paper_model_ns"]) == (4100, 4100, 3500), fa3
f = fa3["fitted"]
assert (f["c_ns"], f["r_ns"], f["latency_ns"], f["prologue_ns"], f["handoff_source"]) == (1000, 500, 600, 0, "trace hand-offs"), f
assert f["phase_medians_ns"] == {"compute": 1000, "stage": 0, "acquire": 0, "add": 500, "gap": 0, "handoff": 600, "matrix_median": 0}, f
assert fa3["uniform_model_ns"] == 4100, fa3
assert (shift["measured_ns"], shift["fitted_ns"]) == (3000, 3000), shift
assert abs(shift["speedup_measured"] - 4100 / 3000) < 1e-12 and shift["speedup_error_pp"] == 0, shift
assert j["groups"][0]["kendall_tau"] == 1 and j["pass"] is True
PY

# A measured delay the model cannot know: the last reduction of fa3 starts 400 ns late.
sed 's/\[1,-1,1,0,1,1,1,2700,3700,3700,3700,4200\]/[1,-1,1,0,1,1,1,2700,3700,3700,4100,4600]/' "$g/fa3-tiny.json" >"$tmp/fa3-slow.json"
expect_exit beyond-tolerance 1 "$sim" validate "$tmp/fa3-slow.json"
grep -q "BEYOND TOLERANCE" "$tmp/out" && ok beyond-text || fail beyond-text "$(cat "$tmp/out")"
expect_exit loose-tolerance 0 "$sim" validate "$tmp/fa3-slow.json" --tolerance 0.2
"$sim" validate "$g" --json >"$tmp/baseline.json"
expect_exit baseline-same 0 "$sim" validate "$g" --baseline "$tmp/baseline.json"
mkdir "$tmp/worse" && cp "$g/shift-tiny.json" "$tmp/worse/" && cp "$tmp/fa3-slow.json" "$tmp/worse/fa3-tiny.json"
sed "s#$g/#$tmp/worse/#g" "$tmp/baseline.json" >"$tmp/baseline-worse.json"
expect_exit baseline-regression 1 "$sim" validate "$tmp/worse" --baseline "$tmp/baseline-worse.json"
grep -q "regression: .*fa3-tiny.json" "$tmp/err" && ok regression-named || fail regression-named "$(cat "$tmp/err")"

head -c 300 "$g/fa3-tiny.json" >"$tmp/truncated.json"
expect_error truncated "truncated.json:3:.*ends early" "$sim" validate "$tmp/truncated.json"
# The task rows' plain integers are read in batches (sim_json_stream_plain_numbers), the rest token by
# token: spaces, floats, exponents and line breaks in the rows give the numbers of the plain text, and a bad
# byte after a number is reported at its line and column.
python3 - "$g/fa3-tiny.json" "$tmp" <<'PY'
import json, os, sys
t = json.load(open(sys.argv[1]))
rows = t.pop("tasks")
forms = {"plain": (",", str), "spaced": (" ,  ", str), "broken": (",\n ", str),
         "mixed": (", ", lambda v: f"{v}.0" if v % 3 == 0 else f"{v}e0" if v % 3 == 1 else str(v))}
for name, (sep, cell) in forms.items():
    os.makedirs(f"{sys.argv[2]}/{name}")
    text = json.dumps(t)[:-1] + ', "tasks": [' + ", ".join("[" + sep.join(map(cell, r)) + "]" for r in rows) + "]}"
    open(f"{sys.argv[2]}/{name}/fa3-tiny.json", "w").write(text)
    if name == "plain":
        bad = text.replace(",3700,", ",37x00,", 1)
        open(f"{sys.argv[2]}/bad.json", "w").write(bad)
        print(f"bad.json:1:{bad.index('x') + 1}: invalid JSON here", file=open(f"{sys.argv[2]}/bad.want", "w"))
PY
abs_sim=$(cd "$(dirname "$sim")" && pwd)/$(basename "$sim") # run from each form's directory: the same path out
(cd "$tmp/plain" && "$abs_sim" validate fa3-tiny.json --json) >"$tmp/plain.out"
grep -q '"measured_ns":4100' "$tmp/plain.out" && ok rows-plain || fail rows-plain "$(head -c 300 "$tmp/plain.out")"
for form in spaced broken mixed; do
    (cd "$tmp/$form" && "$abs_sim" validate fa3-tiny.json --json) >"$tmp/$form.out"
    cmp -s "$tmp/plain.out" "$tmp/$form.out" && ok "rows-$form" || fail "rows-$form" "$(diff "$tmp/plain.out" "$tmp/$form.out" | head -5)"
done
expect_error rows-bad-byte "$(cat "$tmp/bad.want")" "$sim" validate "$tmp/bad.json"
sed 's/"rank"/"rang"/' "$g/fa3-tiny.json" >"$tmp/nocol.json"
expect_error missing-column 'nocol.json: /columns: has no "rank" column' "$sim" validate "$tmp/nocol.json"
sed 's/\[0,-1,0,0,0,1,0,/[0,-1,0,0,0,1,1,/' "$g/fa3-tiny.json" >"$tmp/wrongplan.json"
expect_error wrong-plan "not this policy's plan" "$sim" validate "$tmp/wrongplan.json"
sed 's/1600,2600,2600,2600,3100/2600,1600,2600,2600,3100/' "$g/fa3-tiny.json" >"$tmp/order.json"
expect_error time-order "/tasks/1: times must satisfy" "$sim" validate "$tmp/order.json"
sed 's/"policy":"fa3"/"policy":"fa9"/' "$g/fa3-tiny.json" >"$tmp/policy.json"
expect_error unknown-policy "/metadata/policy: 'fa9' is no registered policy, and the trace names no plan_file" "$sim" validate "$tmp/policy.json"
sed 's/"heads":1/"heads":0/' "$g/fa3-tiny.json" >"$tmp/heads.json"
expect_error bad-heads "/metadata/heads: must be an integer" "$sim" validate "$tmp/heads.json"
sed 's/"heads":1/"heads":2/' "$g/fa3-tiny.json" >"$tmp/count.json"
expect_error task-count "has 4 tasks, but policy fa3 plans 8" "$sim" validate "$tmp/count.json"
sed 's/\[1,-1,1,0,1,0,1,/[1,-1,7,0,1,0,1,/' "$g/fa3-tiny.json" >"$tmp/smid.json"
expect_error smid-range "/tasks/2: smid 7 is not below n_sm 2" "$sim" validate "$tmp/smid.json"
expect_error no-such-file "cannot read /nonexistent" "$sim" validate /nonexistent/t.json
expect_error no-args "needs a trace file" "$sim" validate
expect_error bad-tolerance "--tolerance expects a non-negative number" "$sim" validate "$g" --tolerance -1
expect_error memory-cap "over the \(limit\|cap\)" "$sim" validate traces/h100 --max-memory-mb 1
mkdir "$tmp/empty"
expect_error empty-dir "no trace files" "$sim" validate "$tmp/empty"
# block masks of one size are distinct shapes (a fingerprint of the task set), not repeats of one
if [ -d traces/h100-mask ]; then
    "$sim" validate traces/h100-mask >"$tmp/mask.out" 2>&1
    n=$(grep -c "^ranking .* block .* mask:[0-9a-f]\{16\} " "$tmp/mask.out")
    [ "$n" -eq 4 ] && ok mask-groups || fail mask-groups "$n ranking groups for 4 masks: $(grep ^ranking "$tmp/mask.out")"
    grep -q "noise floor 0.16% of 1 repeat sets" "$tmp/mask.out" && ok mask-repeats ||
        fail mask-repeats "$(grep 'noise floor' "$tmp/mask.out")"
else
    skip mask-groups "no traces/h100-mask"
    skip mask-repeats "no traces/h100-mask"
fi
# --jobs: the traces are checked on threads while the rest load; the output and the first error are those of
# one thread
if [ -d traces/h100-mask ]; then
    "$sim" validate traces/h100-mask traces/h100/fa3-full-h4-r1-async.json.gz --predict --json --jobs 1 >"$tmp/j1" 2>&1
    "$sim" validate traces/h100-mask traces/h100/fa3-full-h4-r1-async.json.gz --predict --json --jobs 3 >"$tmp/j3" 2>&1
    cmp -s "$tmp/j1" "$tmp/j3" && [ -s "$tmp/j1" ] && ok jobs-same-output || fail jobs-same-output "differs or empty"
    mkdir -p "$tmp/jobs" && cp traces/h100-mask/window-16/*.json.gz "$tmp/jobs/" &&
        printf '{"metadata": {"policy": "fa9"}, "tasks": []}\n' >"$tmp/jobs/b.json"  # sorts between them
    "$sim" validate "$tmp/jobs" --jobs 1 >/dev/null 2>"$tmp/e1"; r1=$?
    "$sim" validate "$tmp/jobs" --jobs 4 >/dev/null 2>"$tmp/e4"; r4=$?
    [ "$r1" = 2 ] && [ "$r4" = 2 ] && cmp -s "$tmp/e1" "$tmp/e4" && ok jobs-same-error ||
        fail jobs-same-error "rc $r1/$r4: $(cat "$tmp/e1") / $(cat "$tmp/e4")"
else
    skip jobs-same-output "no traces/h100-mask"
    skip jobs-same-error "no traces/h100-mask"
fi
expect_error jobs-zero "--jobs expects" "$sim" validate traces --jobs 0
finish
