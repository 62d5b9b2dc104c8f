#!/bin/bash
# `make validate`: the model against every committed measured trace (traces/**/*.json, calibration files
# excluded), with the measured latency matrix when present. Fails (exit 1) on a regression against
# tests/validate-baseline.json, the errors recorded when the traces were committed; the 3% / 2 pp
# targets are reported, and `bin/sim validate traces --tolerance 0.03` checks them directly.
set -eu
sim=${1:-bin/sim}
baseline=tests/validate-baseline.json
if ! find traces -name '*.json' ! -name 'calib-*' | grep -q .; then
    echo "validate: no measured traces committed under traces/"
    exit 0
fi
args=(traces)
[ -f traces/calib-latency.json ] && args+=(--latency-matrix traces/calib-latency.json)
if [ ! -f "$baseline" ]; then
    echo "validate: no $baseline yet; write it with: $sim validate ${args[*]} --json > $baseline" >&2
    "$sim" validate "${args[@]}" || true
    exit 0
fi
out=$("$sim" validate "${args[@]}" --baseline "$baseline") && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then echo "validate: ${out##*$'\n'}"; else echo "$out"; fi
exit "$rc"
