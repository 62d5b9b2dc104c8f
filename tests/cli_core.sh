#!/bin/bash
# CLI tests of `sim` (attention schedules): outputs, and every bad input: one sentence, exit 2, no file.
. "$(dirname "$0")/lib.sh"
sim=$1

expect_exit help 0 "$sim" --help
grep -q -- "--policy NAME" "$tmp/out" && ok help-text || fail help-text "no --policy in --help"
expect_exit version 0 "$sim" --version
expect_exit list 0 "$sim" --list-policies
# one line per registered policy, names unique, the paper's five among them
[ "$(cut -d' ' -f1 "$tmp/out" | sort -u | wc -l)" -eq "$(wc -l <"$tmp/out")" ] \
    && [ "$(grep -cE '^(fa3|fa3-spt|descending|shift|symmetric-shift) ' "$tmp/out")" -eq 5 ] \
    && ok list-policies || fail list-policies "$(cat "$tmp/out")"
# README's policy table is the registry's (make docs).
(cd "$(dirname "$0")/.." && scripts/docs-policies.sh "$sim" --check) && ok readme-policy-table \
    || fail readme-policy-table "README.md's table differs from bin/sim --list-policies: run make docs"

expect_exit json 0 "$sim" --policy shift --n 8 --heads 2 --json
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["makespan_ns"]==24000==j["critical_path_ns"]==j["closed_form_ns"], j; assert j["lemma1_violations"]==0; assert set(j["critical_path_breakdown_ns"])=={"compute","reduce","wait","latency"}' "$tmp/out" \
    && ok json-fields || fail json-fields "$(cat "$tmp/out")"
expect_exit summary 0 "$sim" --policy fa3 --n 132 --heads 2 --mask causal
grep -q "exact for this input" "$tmp/out" && ok summary-exact || fail summary-exact "$(cat "$tmp/out")"
expect_exit same-bytes 0 "$sim" --policy fa3-spt --n 16 --heads 4 --mask causal --json
cp "$tmp/out" "$tmp/first"
"$sim" --policy fa3-spt --n 16 --heads 4 --mask causal --json >"$tmp/second"
cmp -s "$tmp/first" "$tmp/second" && ok deterministic || fail deterministic "two runs differ"

expect_exit dot 0 "$sim" --policy shift --n 4 --dot "$tmp/g.dot"
grep -q "digraph" "$tmp/g.dot" && ok dot-written || fail dot-written "no digraph"
expect_exit plan 0 "$sim" --policy symmetric-shift --mask causal --n 4 --heads 2 --emit-plan "$tmp/p.plan"
[ "$(head -1 "$tmp/p.plan")" = "dashsim-plan 1" ] && [ "$(tail -1 "$tmp/p.plan")" = end ] \
    && [ "$(grep -c '^t ' "$tmp/p.plan")" -eq 20 ] && grep -q '^persistent 1$' "$tmp/p.plan" \
    && ok plan-written || fail plan-written "$(head -20 "$tmp/p.plan")"

expect_error unknown-policy "unknown policy 'nope'" "$sim" --policy nope
expect_error n-zero "--n expects an integer from 1" "$sim" --n 0
expect_error n-text "got 'abc'" "$sim" --n abc
expect_error negative-c "--c expects an integer from 0" "$sim" --c -5
expect_error negative-r "--r expects" "$sim" --r -1
expect_error bad-mask "--mask diagonal: unknown mask (full, causal, window:W" "$sim" --mask diagonal
expect_error unsupported-mask "not defined for the full mask" "$sim" --policy symmetric-shift --n 8
expect_error odd-pairs "even number of KV tiles" "$sim" --policy symmetric-shift --mask causal --n 7
expect_error unknown-flag "unknown option" "$sim" --frobnicate
expect_error missing-value "missing value" "$sim" --n
expect_error stray-arg "unexpected argument" "$sim" --n 4 extra
expect_error memory-cap "over the cap of 4096 MB" "$sim" --n 132 --heads 100000 --kv-tiles 1000 --q-tiles 1000 --dot "$tmp/big.dot"
[ ! -e "$tmp/big.dot" ] && ok memory-cap-no-file || fail memory-cap-no-file "left a file"
expect_error unwritable-dot "cannot write /nonexistent/g.dot" "$sim" --n 4 --dot /nonexistent/g.dot
expect_error unwritable-plan "cannot write /nonexistent/p" "$sim" --n 4 --emit-plan /nonexistent/p
ls "$tmp" | grep -q '\.tmp\.' && fail no-temp-files "$(ls "$tmp")" || ok no-temp-files
finish
