#!/bin/bash
# CLI tests of `sim pipeline`: closed forms through the CLI, the theorem flags, outputs, reports, and every
# bad input: one sentence, exit 2, nothing on stdout, no file left.
. "$(dirname "$0")/lib.sh"
sim=$1
json() { python3 -c "import json,sys; j=json.load(open('$tmp/out')); assert $1, j" 2>/dev/null; }

expect_exit help 0 "$sim" pipeline --help
grep -q -- "--min-preload" "$tmp/out" && ok help-text || fail help-text "no --min-preload in --help"

expect_exit default-json 0 "$sim" pipeline --json --min-preload
json 'j["makespan_ns"]==14800==j["critical_path_ns"] and j["steady_cycle_ns"]==1800 and j["stall_free"] and j["preload_count"]==2==j["min_preload_count"] and not j["deadlock"] and abs(j["cube_busy_fraction"]-14400/14800)<1e-12' \
    && ok default-fields || fail default-fields "$(cat "$tmp/out")"
expect_exit serial 0 "$sim" pipeline --policy serial --c 1000,800 --v 600,400 --blocks 8 --json
json 'j["makespan_ns"]==22400 and j["steady_cycle_ns"]==2800 and not j["stall_free"] and j["preload_count"]==0' \
    && ok serial-closed-form || fail serial-closed-form "$(cat "$tmp/out")"
expect_exit amla 0 "$sim" pipeline --policy amla --c 1000,900 --v 700,300 --blocks 3 --json
json 'j["makespan_ns"]==6000 and j["steady_cycle_ns"]==1900 and j["stall_free"] and j["v_ns"]==[700,0]' \
    && ok amla-by-hand || fail amla-by-hand "$(cat "$tmp/out")"
expect_exit vector-engines 0 "$sim" pipeline --policy serial --c 1000,800 --v 601,400 --vector 2 --blocks 5 --json
json 'j["makespan_ns"]==5*(1800+301+200)' && ok two-vector-engines || fail two-vector-engines "$(cat "$tmp/out")"
expect_exit n3-min 0 "$sim" pipeline --c 5,1,1 --v 1,1,1 --preload 1 --min-preload --json
json 'j["min_preload_count"]==1==j["preload_count"] and j["stall_free"]' && ok preload-below-n || fail preload-below-n "$(cat "$tmp/out")"
expect_exit preload-too-short 0 "$sim" pipeline --c 25,1 --v 10,10 --preload 1 --json
json 'j["preload_count"]==1 and not j["stall_free"] and j["steady_cycle_ns"]==45 and j["cycle"]=="C1+0 C2+0 | V1+0 V2+1"' \
    && ok preload-below-min-stalls || fail preload-below-min-stalls "$(cat "$tmp/out")"
expect_exit lemma-b2 0 "$sim" pipeline --c 10,10,10 --v 25,1,1 --min-preload --json
json 'j["min_preload_count"]==3 and j["stall_free"] and j["preload_count"]==3' && ok lemma-b2 || fail lemma-b2 "$(cat "$tmp/out")"

expect_exit explain 0 "$sim" pipeline --explain --min-preload
grep -q "prefix sums F(0..2) = 0 -200 -800" "$tmp/out" && grep -q "k = argmin F = 2" "$tmp/out" \
    && ok explain-prefix-sums || fail explain-prefix-sums "$(cat "$tmp/out")"
expect_exit deadlock 2 "$sim" pipeline --order C2,C1,V1,V2 --json
json 'j["deadlock"] and j["makespan_ns"] is None' && grep -q "deadlocks" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] \
    && ok deadlock-reported || fail deadlock-reported "$(cat "$tmp/out" "$tmp/err")"
expect_exit order 0 "$sim" pipeline --order C1,C2+2,V1+1,V2+2 --json
json 'j["preload_count"]==2 and j["cycle"]=="C1+0 C2+2 | V1+1 V2+2"' && ok order-parsed || fail order-parsed "$(cat "$tmp/out")"

expect_exit outputs 0 "$sim" pipeline --policy amla --blocks 4 --trace "$tmp/t.json" --csv "$tmp/t.csv"
python3 -c "import json; t=json.load(open('$tmp/t.json')); ev=t['traceEvents'] if isinstance(t,dict) else t; names={e['args']['name'] for e in ev if e.get('name')=='thread_name'}; assert any('CUBE' in n for n in names) and any('VECTOR' in n for n in names), names" \
    && ok trace-tracks || fail trace-tracks "no CUBE/VECTOR tracks"
[ "$(grep -vc '^#' "$tmp/t.csv")" -eq 17 ] && ok csv-rows || fail csv-rows "$(cat "$tmp/t.csv")"
if command -v gnuplot >/dev/null; then
    expect_exit gantt 0 "$sim" pipeline --gantt "$tmp/g.svg"
    [ -s "$tmp/g.svg" ] && ok gantt-written || fail gantt-written "no svg"
fi
"$sim" pipeline --json --blocks 50 >"$tmp/a"; "$sim" pipeline --json --blocks 50 >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" && ok deterministic || fail deterministic "two runs differ"

expect_exit amla-report 0 "$sim" pipeline --amla-report
[ "$(grep -c '^[12] ' "$tmp/out")" -eq 12 ] && grep -q "^2    16384     32 .* 86.8% " "$tmp/out" \
    && ok amla-report-rows || fail amla-report-rows "$(cat "$tmp/out")"
expect_exit vfa-report 0 "$sim" pipeline --vfa-report
[ "$(grep -c '^C[0-9]' "$tmp/out")" -eq 8 ] && ok vfa-report-rows || fail vfa-report-rows "$(cat "$tmp/out")"

expect_exit theorem-report 0 "$sim" pipeline --theorem-report --seed 5
awk '$1 ~ /^[1-6]$/ { if ($2 != $5 || $9 != $11) bad = 1; if ($1 <= 2 && $8 != $2) bad = 1; n++ } END { exit bad || n != 6 }' "$tmp/out" \
    && ok theorem-report-rows || fail theorem-report-rows "$(cat "$tmp/out")"
# a trace over the command's fixed 1 GiB cap names that cap, not another command's --trace-max-mb
expect_error trace-cap "over the cap of 1024 MB (a fixed cap); use fewer --blocks" "$sim" pipeline --blocks 1000000 --trace "$tmp/big.json"
[ ! -e "$tmp/big.json" ] && ok trace-cap-no-file || fail trace-cap-no-file "a file was left"
expect_error seed "--seed expects an integer" "$sim" pipeline --theorem-report --seed -1

expect_error malformed-list "--c expects a comma-separated list" "$sim" pipeline --c 10,,3 --v 1,1,1
expect_error negative "--v expects a comma-separated list" "$sim" pipeline --c 10,3 --v 1,-1
expect_error more-v "--v has 3 entries but --c has 2" "$sim" pipeline --c 10,3 --v 1,1,1
expect_error no-v "--c has 3 entries; give --v" "$sim" pipeline --c 10,3,4
expect_error too-many "--c has more than 8 entries" "$sim" pipeline --c 1,1,1,1,1,1,1,1,1 --v 1
expect_error zero-blocks "--blocks expects an integer from 1" "$sim" pipeline --blocks 0
expect_error policy "unknown pipeline policy 'fast'" "$sim" pipeline --policy fast
expect_error amla-n "--policy amla needs n = 2" "$sim" pipeline --policy amla --c 1,2,3 --v 1,1,1
expect_error order-dup "--order lists C1 twice" "$sim" pipeline --order C1,C1,V1,V2
expect_error order-short "--order lists 3 stages" "$sim" pipeline --order C1,C2,V1
expect_error order-offset "offsets must not decrease" "$sim" pipeline --order C1+1,C2+1,V1,V2+1
expect_error order-serial "apply to --policy preload only" "$sim" pipeline --policy serial --preload 2
expect_error min-big "--min-preload enumerates" "$sim" pipeline --c 1,1,1,1,1,1,1 --v 1,1,1,1,1,1,1 --min-preload
expect_error engines "--vector expects an integer from 1 to 4" "$sim" pipeline --vector 5
expect_error too-big "more than the 4000000" "$sim" pipeline --blocks 1000000 --cube 4 --vector 4
expect_error extra-arg "unexpected argument 'x'" "$sim" pipeline x
expect_error gantt-suffix ".png or .svg" "$sim" pipeline --gantt "$tmp/g.pdf"
expect_error no-file-left "--blocks expects" "$sim" pipeline --csv "$tmp/left.csv" --blocks 0
[ ! -e "$tmp/left.csv" ] && ok no-file-left-csv || fail no-file-left-csv "csv written on error"
finish
