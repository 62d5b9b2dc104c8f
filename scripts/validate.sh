#!/bin/bash
# `make validate`: both models against every committed measured trace: the executor's (traces/h100,
# traces/h100-spin, traces/h100-predict, traces/h100-mask, traces/h100-mask16) and gpu/bwd's
# (traces/kernel/traces, traces/kernel-cal): the fit (each trace's own phase medians and the latency matrix)
# and the prediction (the executor's from the committed hardware profile configs/profiles/h100-sxm.json,
# gpu/bwd's from the kernel profile configs/kernels/gpu-bwd.json; no per-trace fit). Fails (exit 1) on a
# regression of either against tests/validate-baseline.json, the errors recorded when the traces and the
# profiles were committed. The targets are checked directly by `bin/sim validate DIR --predict` (see
# docs/profile.md for where they are and are not met).
set -eu
sim=${1:-bin/sim}
baseline=tests/validate-baseline.json
dirs=()
for d in traces/h100 traces/h100-spin traces/h100-predict traces/h100-mask traces/h100-mask16 traces/kernel/traces \
         traces/kernel-cal/d128 traces/kernel-cal/d64; do [ -d "$d" ] && dirs+=("$d"); done
if [ ${#dirs[@]} -eq 0 ]; then
    echo "validate: no measured traces committed under traces/"
    exit 0
fi
args=("${dirs[@]}" --latency-matrix traces/calib-latency.json --profile configs/profiles/h100-sxm.json)
if [ ! -f "$baseline" ]; then
    echo "validate: no $baseline yet; write it with: $sim validate ${args[*]} --json > $baseline" >&2
    "$sim" validate "${args[@]}" || true
    exit 0
fi
out=$("$sim" validate "${args[@]}" --baseline "$baseline") && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then echo "validate: ${out##*$'\n'}"; else echo "$out"; fi
exit "$rc"
