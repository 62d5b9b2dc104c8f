#!/bin/bash
# CLI tests of issue 25 (what a new user trips on, second round): odd KV tile counts still rank (item 2),
# `-` as standard output carries the data alone (item 3), reports name their model (item 4), the man page
# follows --help (item 6), plan format errors (item 7), trace metadata and the Perfetto converter (item 8),
# progress on a terminal only (item 9), README set-up facts (item 10), papercuts (item 12).
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)

# Item 2: a causal shape with an odd number of KV tiles ranks the other policies and says why one is absent.
for s in 1100 4224; do
    expect_exit odd-kv-$s 0 "$sim" --seqlen $s --heads 16 --mask causal
    grep -q '^not ranked  *policy symmetric-shift .*even number of KV tiles' "$tmp/out" && grep -q '^descending ' "$tmp/out" \
        && grep -q '^winner ' "$tmp/out" && ok odd-kv-$s-ranked || fail odd-kv-$s-ranked "$(tail -3 "$tmp/out")"
done
expect_exit odd-kv-json 0 "$sim" --seqlen 8200 --heads 4 --mask causal --json
python3 - "$tmp/out" <<'PY' && ok odd-kv-json-not-ranked || fail odd-kv-json-not-ranked "$(cat "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert [a["policy"] for a in j["not_ranked"]] == ["symmetric-shift"], j["not_ranked"]
assert "even number of KV tiles" in j["not_ranked"][0]["reason"]
assert {p["policy"] for p in j["policies"]} == {"fa3", "fa3-spt", "descending"}
PY
expect_error odd-kv-named "even number of KV tiles" "$sim" --seqlen 1100 --mask causal --policy symmetric-shift

# Item 3: with an output on standard output, the report goes to standard error.
"$sim" --policy shift --n 8 --heads 2 --emit-plan "$tmp/s.plan" >/dev/null && "$sim" --plan "$tmp/s.plan" --json >"$tmp/want.json"
bash -c "\"$sim\" --policy shift --n 8 --heads 2 --emit-plan - 2>\"$tmp/err1\" | \"$sim\" --plan - --json" >"$tmp/out" 2>"$tmp/err" \
    && cmp -s "$tmp/out" "$tmp/want.json" && grep -q '^policy shift' "$tmp/err1" && ok stdout-plan-pipe \
    || fail stdout-plan-pipe "$(cat "$tmp/err")"
"$sim" --policy fa3 --n 4 --heads 2 --trace - 2>"$tmp/err" | python3 -m json.tool >/dev/null \
    && grep -q 'makespan' "$tmp/err" && ok stdout-trace-json || fail stdout-trace-json "not JSON alone"
"$sim" --policy fa3 --n 4 --heads 2 --csv - --json 2>"$tmp/err" >"$tmp/out"
python3 - "$tmp/out" "$tmp/err" <<'PY' && ok stdout-csv-alone || fail stdout-csv-alone "$(tail -2 "$tmp/out")"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][:3] == ["op", "cta", "sm"] and len(rows) > 2 and all(len(r) == len(rows[0]) for r in rows), rows[-1]
assert json.load(open(sys.argv[2]))["makespan_ns"] > 0
PY
"$sim" --seqlen 1024 --heads 2 --mask causal --csv - 2>"$tmp/err" >"$tmp/out"
head -1 "$tmp/out" | grep -q '^op,cta,sm' && ! grep -q winner "$tmp/out" && grep -q '^winner' "$tmp/err" \
    && ok stdout-shape-csv || fail stdout-shape-csv "$(tail -2 "$tmp/out")"
"$sim" pipeline --trace - 2>"$tmp/err" | python3 -m json.tool >/dev/null && grep -q '^pipeline preload' "$tmp/err" \
    && ok stdout-pipeline-trace || fail stdout-pipeline-trace "$(head -2 "$tmp/err")"

# Item 12: papercuts.
"$sim" --help >"$tmp/help"
grep -q '^usage: sim \[--policy NAME\] \[--n N\]' "$tmp/help" && grep -q 'search' "$tmp/help" && grep -q 'calibrate' "$tmp/help" \
    && ok usage-line || fail usage-line "$(head -2 "$tmp/help")"
expect_exit one-policy 0 "$sim" --seqlen 1024 --heads 1 --policy fa3
grep -q 'over fa3' "$tmp/out" && fail one-policy-no-margin "$(tail -1 "$tmp/out")" || ok one-policy-no-margin
grep -q '1 head,' "$tmp/out" && ! grep -q '1 heads' "$tmp/out" && ok shape-one-head || fail shape-one-head "$(head -1 "$tmp/out")"
expect_exit tile-one-head-run 0 "$sim" --policy fa3 --n 4
grep -q ' 1 head x ' "$tmp/out" && ok tile-one-head || fail tile-one-head "$(head -1 "$tmp/out")"
finish
