#!/bin/sh
# The whole device run of the kernel benchmark (docs/kernel.md), from the repository root on the GPU machine.
# Expects the carried build (bin/gpu-bwd, build/gpu/bwd/libdashbwd.so, build/gpu/bwd/plans/*.plan.xz from
# gpu/bwd/make-plans.sh). Writes $OUT/bench.json, $OUT/log.txt, $OUT/smoke.txt, $OUT/traces.tgz.
# Usage: OUT=DIR gpu/bwd/run-bench.sh [--quick]
set -u
: "${OUT:?set OUT}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw --format=csv \
  > "$OUT/smoke.txt" 2>&1
# Smoke: the CLI on synthetic inputs, deterministic and atomic, both head dims. A hang (a barrier, not a
# semaphore wait: those time out inside the kernel) ends at 20 s and stops the run before the benchmark.
mkdir -p /tmp/dash-plans
smoke_ok=1
for p in fa3-causal-s2048-bh16 symmetric-shift-causal-s2048-bh16 shift-full-s2048-bh16; do
  xz -dc "build/gpu/bwd/plans/$p.plan.xz" > "/tmp/dash-plans/$p.plan"
  for d in 128 64; do
    for mode in "" --atomic; do
      [ $smoke_ok = 1 ] || continue
      timeout 20 bin/gpu-bwd "/tmp/dash-plans/$p.plan" --head-dim $d --repeats 5 $mode >> "$OUT/smoke.txt" 2>&1 \
        || { echo "smoke FAILED: $p d$d $mode rc $?" >> "$OUT/smoke.txt"; smoke_ok=0; }
    done
  done
done
cat "$OUT/smoke.txt"
[ $smoke_ok = 1 ] || { cat "$OUT/smoke.txt"; exit 1; }
PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-420}" python3 gpu/bwd/bench.py "$@"
rc=$?
[ -d "$OUT/traces" ] && tar czf "$OUT/traces.tgz" -C "$OUT" traces && rm -rf "$OUT/traces"
ls -la "$OUT"
exit $rc
