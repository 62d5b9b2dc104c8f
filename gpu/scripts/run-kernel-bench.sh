#!/bin/sh
# The whole device run of the kernel benchmark (docs/kernel.md), from the repository root on the GPU machine.
# Expects the carried build (bin/gpu-bwd, bin/gpu-wg-test, build/gpu/bwd/libdashbwd.so,
# build/gpu/bwd/plans/*.plan.xz from gpu/scripts/plans-kernel-bench.sh). Runs the Hopper kernel's layout test, the smoke
# runs, then bench.py (its environment: BENCH_KERNELS, BENCH_VARIANTS). Writes $OUT/bench.json, $OUT/log.txt,
# $OUT/smoke.txt, $OUT/traces-d128.tgz, $OUT/traces-d64.tgz. Usage: OUT=DIR gpu/scripts/run-kernel-bench.sh [--quick]
set -u
: "${OUT:?set OUT}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw --format=csv \
  > "$OUT/smoke.txt" 2>&1
# The layout test first: a wrong fragment layout makes every later number meaningless.
timeout 30 bin/gpu-wg-test >> "$OUT/smoke.txt" 2>&1 || { echo "layout test FAILED: rc $?" >> "$OUT/smoke.txt";
  cat "$OUT/smoke.txt"; exit 1; }
# Smoke: the CLI on synthetic inputs, both kernels, deterministic and atomic, both head dims. A hang (a named
# barrier; semaphore and mbarrier waits time out inside the kernel) ends at 20 s and stops the run.
mkdir -p /tmp/dash-plans
smoke_ok=1
for p in fa3-causal-s2048-bh16 symmetric-shift-causal-s2048-bh16 shift-full-s2048-bh16; do
  xz -dc "build/gpu/bwd/plans/$p.plan.xz" > "/tmp/dash-plans/$p.plan"
  for k in wgmma mma; do
    for d in 128 64; do
      for mode in "" --atomic; do
        [ $smoke_ok = 1 ] || continue
        timeout 20 bin/gpu-bwd "/tmp/dash-plans/$p.plan" --kernel $k --head-dim $d --repeats 5 $mode \
          >> "$OUT/smoke.txt" 2>&1 || { echo "smoke FAILED: $p $k d$d $mode rc $?" >> "$OUT/smoke.txt"; smoke_ok=0; }
      done
    done
  done
done
cat "$OUT/smoke.txt"
[ $smoke_ok = 1 ] || exit 1
PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-420}" python3 gpu/bwd/bench.py "$@"
rc=$?
for d in d128 d64; do  # one archive per head dim: each file that comes back is at most 16 MB
  [ -d "$OUT/traces/$d" ] && tar czf "$OUT/traces-$d.tgz" -C "$OUT/traces" $d
done
rm -rf "$OUT/traces"
ls -la "$OUT"
exit $rc
