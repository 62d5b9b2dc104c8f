#!/bin/bash
# sim --plan FILE: a plan written by --emit-plan simulates to the same makespan as its policy, a user's
# own plan runs with every output, and each plan_check invariant refuses a bad plan with one sentence.
. "$(dirname "$0")/lib.sh"
sim=$1
json_field() { sed -n "s/.*\"$1\":\([^,}]*\).*/\1/p"; }
for spec in "fa3 full" "fa3 causal" "fa3-spt causal" "descending causal" "shift full" "symmetric-shift causal"; do
    set -- $spec
    "$sim" --policy "$1" --mask "$2" --n 8 --heads 3 --kv-tiles 4 --q-tiles 8 --latency 300 --reduce async \
        --emit-plan "$tmp/$1.plan" --json >"$tmp/direct.json"
    expect_exit "plan-$1-$2" 0 "$sim" --plan "$tmp/$1.plan" --json
    want=$(json_field makespan_ns <"$tmp/direct.json") got=$(json_field makespan_ns <"$tmp/out")
    [ "$want" = "$got" ] && ok "plan-$1-$2-same-makespan" || fail "plan-$1-$2-same-makespan" "$got != $want"
done
plan=$tmp/fa3.plan
expect_exit plan-outputs 0 "$sim" --plan "$plan" --trace "$tmp/t.json" --csv "$tmp/t.csv" --dot "$tmp/t.dot"
[ -s "$tmp/t.json" ] && [ -s "$tmp/t.csv" ] && [ -s "$tmp/t.dot" ] && ok plan-outputs-written || fail plan-outputs-written "missing"
"$sim" --plan "$plan" --json >"$tmp/a.json"; "$sim" --plan "$plan" --r 2000 --json >"$tmp/b.json"
[ "$(json_field r_ns <"$tmp/b.json")" = 2000 ] && ok plan-cost-override || fail plan-cost-override "$(cat "$tmp/b.json")"
grep -q '"closed_form_ns":null' "$tmp/a.json" && ok plan-no-closed-form || fail plan-no-closed-form "claims one"
expect_error plan-workload-flag "drop --heads" "$sim" --plan "$plan" --heads 4
# every rank of every row 0: not a permutation (the invariant the GPU reader relied on alone before)
awk '$1 == "t" { $5 = 0 } { print }' "$plan" >"$tmp/rank0.plan"
expect_error plan-ranks-all-zero "permutation" "$sim" --plan "$tmp/rank0.plan"
awk '$1 == "t" && !done { $4 = ($4 + 1) % 8; done = 1 } { print }' "$plan" >"$tmp/dup.plan"
expect_error plan-repeated-pair "repeats tile pair\|permutation" "$sim" --plan "$tmp/dup.plan"
sed 's/^persistent 0$/persistent 1/' "$plan" >"$tmp/pin.plan"
expect_error plan-slot-range "slot" "$sim" --plan "$tmp/pin.plan"
head -30 "$plan" >"$tmp/trunc.plan"
expect_error plan-truncated "trunc.plan:[0-9]*:" "$sim" --plan "$tmp/trunc.plan"
sed 's/^heads 3$/heads 3\nheads 3/' "$plan" >"$tmp/twice.plan"
expect_error plan-field-twice "given twice" "$sim" --plan "$tmp/twice.plan"
sed 's/^tasks .*/tasks 2000000000/' "$plan" >"$tmp/huge.plan"
expect_error plan-huge "over the cap" "$sim" --plan "$tmp/huge.plan" --max-memory-mb 64
expect_error plan-missing "cannot read .*nope.plan: No such file" "$sim" --plan "$tmp/nope.plan"
finish
