#!/bin/sh
# The whole device run of the kernel benchmark (docs/kernel.md), from the repository root on the GPU machine.
# Expects the carried build (bin/gpu-bwd, bin/gpu-wg-test, build/gpu/bwd/libdashbwd.so,
# build/gpu/bwd/plans/*.plan.xz from gpu/scripts/plans-kernel-bench.sh). Runs the Hopper kernel's layout test, the smoke
# runs, then bench.py (its environment: BENCH_KERNELS, BENCH_VARIANTS). Writes $OUT/bench.json, $OUT/log.txt,
# $OUT/smoke.txt, $OUT/traces-d128.tgz, $OUT/traces-d64.tgz. Usage: OUT=DIR gpu/scripts/run-kernel-bench.sh [--quick]
set -u
: "${OUT:?set OUT}"
sh gpu/scripts/run-kernel-smoke.sh || exit 1  # the layout test, then the smoke runs
PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-420}" python3 gpu/bwd/bench.py "$@"
rc=$?
for d in d128 d64; do  # one archive per head dim: each file that comes back is at most 16 MB
  [ -d "$OUT/traces/$d" ] && tar czf "$OUT/traces-$d.tgz" -C "$OUT/traces" $d
done
rm -rf "$OUT/traces"
ls -la "$OUT"
exit $rc
