#!/bin/sh
# The whole device run of the kernel benchmark (docs/kernel.md), from the repository root on the GPU machine.
# Expects the carried build (bin/gpu-bwd, build/gpu/bwd/libdashbwd.so, build/gpu/bwd/plans/*.plan.xz from
# gpu/bwd/make-plans.sh). Writes $OUT/bench.json, $OUT/log.txt, $OUT/smoke.txt, $OUT/traces.tgz.
# Usage: OUT=DIR gpu/bwd/run-bench.sh [--quick]
set -u
: "${OUT:?set OUT}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw --format=csv \
  > "$OUT/smoke.txt" 2>&1
# Smoke: the CLI on synthetic inputs, deterministic and atomic, both head dims (a hang ends in a timeout).
mkdir -p /tmp/dash-plans
for p in fa3-causal-s2048-bh16 symmetric-shift-causal-s2048-bh16; do
  xz -dc "build/gpu/bwd/plans/$p.plan.xz" > "/tmp/dash-plans/$p.plan"
  for d in 64 128; do
    timeout 60 bin/gpu-bwd "/tmp/dash-plans/$p.plan" --head-dim $d --repeats 5 >> "$OUT/smoke.txt" 2>&1 \
      || echo "smoke FAILED: $p d$d rc $?" >> "$OUT/smoke.txt"
    timeout 60 bin/gpu-bwd "/tmp/dash-plans/$p.plan" --head-dim $d --repeats 5 --atomic >> "$OUT/smoke.txt" 2>&1 \
      || echo "smoke FAILED: $p d$d atomic rc $?" >> "$OUT/smoke.txt"
  done
done
cat "$OUT/smoke.txt"
PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-420}" python3 gpu/bwd/bench.py "$@"
rc=$?
[ -d "$OUT/traces" ] && tar czf "$OUT/traces.tgz" -C "$OUT" traces && rm -rf "$OUT/traces"
ls -la "$OUT"
exit $rc
