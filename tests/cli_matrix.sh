#!/bin/bash
# The latency-matrix reader (sim/io/latency_matrix.c), through `sim validate --latency-matrix`: gpu-calib's
# JSON is read; the older plain format is read with a note; bad cells and SM ids are refused with the JSON
# path of the cell, exit 2.
. "$(dirname "$0")/lib.sh"
sim=$1
trace=$(ls traces/h100/*.json.gz | head -1)
matrix() { # matrix FILE CELL01 [SMID1]: a 2-SM JSON matrix padded to the trace's 132 SMs by -1 cells
    python3 - "$@" <<'PY'
import json, sys
path, cell = sys.argv[1], json.loads(sys.argv[2])
smid1 = json.loads(sys.argv[3]) if len(sys.argv) > 3 else 1
json.dump({"format": "dashsim-calib-latency", "version": 1, "smids": [0, smid1],
           "latency_ns": [[-1, cell], [600, -1]]}, open(path, "w"))
PY
}
expect_exit matrix-calib 0 "$sim" validate "$trace" --latency-matrix traces/calib-latency.json --tolerance 1
matrix "$tmp/ok.json" 600
expect_exit matrix-small 0 "$sim" validate "$trace" --latency-matrix "$tmp/ok.json" --tolerance 1
for bad in 1e20 -1e20 '"600"' 600.5 -2; do
    matrix "$tmp/bad.json" "$bad"
    expect_error "matrix-cell-$bad" "/latency_ns/0/1: must be an integer" "$sim" validate "$trace" --latency-matrix "$tmp/bad.json"
done
matrix "$tmp/dup.json" 600 0
expect_error matrix-duplicate-smid "/smids/1: SM 0 appears twice" "$sim" validate "$trace" --latency-matrix "$tmp/dup.json"
matrix "$tmp/range.json" 600 4294967295
expect_error matrix-smid-range "/smids/1: must be an integer SM id" "$sim" validate "$trace" --latency-matrix "$tmp/range.json"
python3 -c "print('\n'.join(' '.join('0' if i == j else '600' for j in range(132)) for i in range(132)))" >"$tmp/plain.txt"
"$sim" validate "$trace" --latency-matrix "$tmp/plain.txt" --tolerance 1 >/dev/null 2>"$tmp/err"
grep -q "older plain latency-matrix format" "$tmp/err" && ok matrix-plain-note || fail matrix-plain-note "$(cat "$tmp/err")"
head -c 100 "$tmp/plain.txt" >"$tmp/short.txt"
expect_error matrix-plain-short "expected sm_count x sm_count" "$sim" validate "$trace" --latency-matrix "$tmp/short.txt"
finish
