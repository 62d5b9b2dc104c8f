#!/bin/sh
# The kernel's layout test and smoke runs on the GPU machine (repository root; carried bin/gpu-bwd,
# bin/gpu-wg-test, build/gpu/bwd/plans/*.plan.xz): the layout test first (a wrong fragment layout makes every later
# number meaningless), then the CLI on synthetic inputs, both kernels, deterministic and atomic, both head dims. A
# hang (a named barrier; semaphore and mbarrier waits time out inside the kernel) ends at 20 s and stops the run.
# Writes $OUT/smoke.txt and prints it; exit 1 on the first failure. Usage: OUT=DIR gpu/scripts/run-kernel-smoke.sh
set -u
: "${OUT:?set OUT}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw --format=csv \
  > "$OUT/smoke.txt" 2>&1
timeout 30 bin/gpu-wg-test >> "$OUT/smoke.txt" 2>&1 || { echo "layout test FAILED: rc $?" >> "$OUT/smoke.txt";
  cat "$OUT/smoke.txt"; exit 1; }
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
[ $smoke_ok = 1 ]
