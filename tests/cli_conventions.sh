#!/bin/bash
# CLI tests of issue 14 item 7: `-o -` (and every output option given `-`) writes standard output, `-` reads
# standard input (configs, plans, traces), misspelled policies get "did you mean", and a policy asked for a
# mask it does not support names the one that does.
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)

# Outputs to standard output.
expect_exit stdout-run-o 0 env -C "$tmp" "$sim" run "$root/configs/ci-sweep.json" --format csv -o -
head -1 "$tmp/out" | grep -q '^policy,mask,' && [ ! -e "$tmp/-" ] && ok stdout-run-o-bytes || fail stdout-run-o-bytes "$(head -1 "$tmp/out")"
"$sim" sweep "$root/configs/ci-sweep.json" --format csv >"$tmp/want.csv" 2>/dev/null
expect_exit stdout-sweep-o 0 "$sim" sweep "$root/configs/ci-sweep.json" --format csv -o -
cmp -s "$tmp/out" "$tmp/want.csv" && ok stdout-sweep-same-bytes || fail stdout-sweep-same-bytes "differs from stdout"
expect_exit stdout-csv 0 "$sim" --policy fa3 --n 2 --json --csv -
head -1 "$tmp/out" | grep -q '^op,cta,sm' && ok stdout-csv-first || fail stdout-csv-first "$(head -1 "$tmp/out")"
expect_exit stdout-plan 0 "$sim" --policy fa3 --n 4 --json --emit-plan -
# the plan alone on stdout, the report on stderr (issue 25 item 3)
grep -q '"makespan_ns"' "$tmp/err" && grep -q '^dashsim-plan' "$tmp/out" && ! grep -q '"makespan_ns"' "$tmp/out" \
    && ok stdout-plan-text || fail stdout-plan-text "$(head -2 "$tmp/out")"
expect_exit stdout-calibrate 0 "$sim" calibrate "$root/traces/calib-profile/calib-profile-raw.json" -o -
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out" && ok stdout-calibrate-json || fail stdout-calibrate-json "not JSON"
expect_error stdout-twice "both write standard output" "$sim" --policy fa3 --n 2 --csv - --trace -

# Inputs from standard input.
expect_exit stdin-config 0 bash -c "\"$sim\" run - --format csv <\"$root/configs/ci-sweep.json\""
"$sim" run "$root/configs/ci-sweep.json" --format csv >"$tmp/want.csv" 2>/dev/null
cmp -s "$tmp/out" "$tmp/want.csv" && ok stdin-config-same || fail stdin-config-same "differs from the file's run"
"$sim" --policy shift --n 8 --heads 2 --emit-plan "$tmp/s.plan" >/dev/null
"$sim" --plan "$tmp/s.plan" --json >"$tmp/want.json"
expect_exit stdin-plan 0 bash -c "\"$sim\" --plan - --json <\"$tmp/s.plan\""
cmp -s "$tmp/out" "$tmp/want.json" && ok stdin-plan-same || fail stdin-plan-same "differs from the file's run"
expect_exit stdin-trace 0 bash -c "\"$sim\" validate - <\"$root/tests/golden/validate/fa3-tiny.json\""
grep -q '1 traces' "$tmp/out" && ok stdin-trace-read || fail stdin-trace-read "$(tail -1 "$tmp/out")"

# Policy names.
expect_error did-you-mean "did you mean 'symmetric-shift'" "$sim" --policy symetric-shift
expect_error did-you-mean-short "did you mean 'shift'" "$sim" --policy shfit
expect_error did-you-mean-config "did you mean 'fa3'" "$sim" run "$root/configs/h100.json" --set 'policies=["fa4"]'
expect_error no-guess "unknown policy 'zzzzzz' (sim" "$sim" --policy zzzzzz
expect_error shift-causal "not defined for the causal mask; use symmetric-shift" "$sim" --policy shift --mask causal
expect_error spt-full "not defined for the full mask; use fa3" "$sim" --policy fa3-spt --mask full
finish
