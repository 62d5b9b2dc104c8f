#!/bin/bash
# CLI tests of issue 14 item 4: every CSV dashsim writes opens with its header line and parses with standard
# readers (csv.DictReader: every row as wide as the header, no '#' line); metadata is in FILE.meta.json.
. "$(dirname "$0")/lib.sh"
sim=$1

# check_csv NAME FILE FIRST_COLUMN: header first, no comment line, every row as wide as the header.
check_csv() {
    python3 - "$2" "$3" <<'PY' && ok "$1" || fail "$1" "not a plain CSV with its header first"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows and rows[0][0] == sys.argv[2], rows[:1]
assert all(len(r) == len(rows[0]) for r in rows), "ragged rows"
assert not any(r and r[0].startswith("#") for r in rows), "comment line"
d = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(d) == len(rows) - 1 and None not in d[0]
PY
}

expect_exit csv-attention-run 0 "$sim" --policy fa3 --mask causal --n 8 --heads 2 --csv "$tmp/a.csv"
check_csv csv-attention-header "$tmp/a.csv" op
python3 - "$tmp/a.csv.meta.json" <<'PY' && ok csv-attention-sidecar || fail csv-attention-sidecar "no or bad a.csv.meta.json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["csv"] == "a.csv" and j["meta"]["policy"] == "fa3" and j["meta"]["n_sm"] == 8 and "makespan" in j["title"]
PY
expect_exit csv-pipeline-run 0 "$sim" pipeline --policy amla --csv "$tmp/p.csv"
check_csv csv-pipeline-header "$tmp/p.csv" op
[ "$(head -1 "$tmp/p.csv" | tr ',' '\n' | wc -l)" -eq 11 ] && ok csv-pipeline-columns || fail csv-pipeline-columns "$(head -1 "$tmp/p.csv")"
expect_exit csv-sweep-run 0 "$sim" sweep configs/h100.json --format csv -o "$tmp/s.csv"
check_csv csv-sweep-header "$tmp/s.csv" policy
expect_exit csv-run-out 0 "$sim" run configs/h100.json --out "$tmp/o"
check_csv csv-run-out-header "$tmp/o/h100.csv" policy
# A CSV to a device has no sidecar (and the run does not fail trying to write one).
expect_exit csv-device 0 "$sim" --policy shift --n 4 --csv /dev/null
finish
