#!/bin/bash
# One device call (2026-11-23, second session): the calibration profile with the joint async load curve
# (gpu-calib --profile: staging rows for bulk and ldst store-warp reductions on 1..132 SMs computing at once,
# issue 12), the block-mask executor traces (gpu/scripts/run-mask-plans.sh, issue 16) and the kernel benchmark with
# PyTorch's flash in real deterministic mode (gpu/scripts/run-kernel-bench.sh, issue 13). Expects the carried bin/,
# build/gpu/bwd/libdashbwd.so and build/gpu/bwd/plans. Writes $OUT/session.log, $OUT/calib-profile-raw.json,
# $OUT/calib4.tgz, $OUT/mask.tgz, $OUT/kernel.tgz. Usage: OUT=DIR gpu/scripts/run-profile-masks-kernel-bench.sh
set -u
out=${OUT:?set OUT}
work=$(mktemp -d)
exec > >(tee -a "$out/session.log") 2>&1
say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | sed 's/ *$//'; }
say "host $(uname -m); $(python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())' 2>&1)"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw --format=csv
meta=(--meta "gpu_name=$(smi name)" --meta "driver=$(smi driver_version)")

say "1. calibration: gpu-calib --profile"
mkdir -p "$work/calib4"
timeout 180 bin/gpu-calib --profile --out-dir "$work/calib4" "${meta[@]}" > "$work/calib4/run-log.txt" 2>&1
say "gpu-calib rc $?"; grep -E "async staging|reduce .*k 132" "$work/calib4/run-log.txt" | head -80
cp "$work/calib4/calib-profile-raw.json" "$out/" 2>/dev/null
(cd "$work" && tar -czf "$out/calib4.tgz" calib4)

say "2. block-mask plans on the executor"
mkdir -p "$work/mask"
OUT="$work/mask" timeout 200 gpu/scripts/run-mask-plans.sh > /dev/null 2>&1
say "run-mask rc $?"; tail -3 "$work/mask/log.txt"
(cd "$work" && tar -czf "$out/mask.tgz" mask)

say "3. kernel benchmark"
mkdir -p "$work/kernel"
OUT="$work/kernel" BENCH_TIMEOUT=300 sh gpu/scripts/run-kernel-bench.sh > "$work/kernel/console.txt" 2>&1
say "run-bench rc $?"; grep -E "flash .*deterministic|done in" "$work/kernel/log.txt" | head -50
(cd "$work" && tar -czf "$out/kernel.tgz" kernel)
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
ls -l "$out"; say "end"
