#!/bin/bash
# On the GPU machine, one call: gpu-calib --profile (calibration kernels only, now with the task_loop and
# handoff_stamped sections, docs/gpu.md) into calib3/, then two small executor plans (serial and async, c:r 1,
# 80x128 bulk) whose traces show the same per-task costs as the executor sees them, for a cross-check only
# (the profile never reads them). Uses the carried bin/gpu-calib and bin/gpu-exec when they know the new
# sections, else builds them. Writes $OUT/log.txt, $OUT/calib-profile-raw.json and $OUT/calib3.tgz.
# The plans are ignored files (.git/info/exclude): name traces/plans-predict in the device call's carry, else
# the cross-check is skipped (the 2026-11-23 run lacked them).
# Usage: OUT=/some/dir gpu/scripts/run-profile-calibration.sh [PLAN_DIR]
set -u
export PATH=$PATH:/usr/local/cuda/bin
plans=${1:-traces/plans-predict}
out=${OUT:?set OUT to the output folder}
work=$(mktemp -d)
mkdir -p "$work/calib3/check"
fails=0

say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | sed 's/ *$//'; }
finish() {
    cp "$work/calib3/calib-profile-raw.json" "$out/" 2>/dev/null
    (cd "$work" && tar -czf "$out/calib3.tgz" calib3)
    ls -l "$out"
    say "done; failures: $fails"
}
trap finish EXIT

say "host $(hostname); $(uname -m)"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw \
    --format=csv
meta=(--meta "gpu_name=$(smi name)" --meta "driver=$(smi driver_version)")

if bin/gpu-calib --help 2>/dev/null | grep -q task_loop && bin/gpu-exec --help 2>/dev/null | grep -q -- --ref-hashes; then
    say "using the carried bin/gpu-calib and bin/gpu-exec"
else
    say "build"
    make -f gpu/gpu.mk -j16 bin/gpu-calib bin/gpu-exec || { say "BUILD FAILED"; fails=$((fails + 1)); exit 1; }
fi

say "calibration: gpu-calib --profile"
timeout 150 bin/gpu-calib --profile --out-dir "$work/calib3" "${meta[@]}" || { fails=$((fails + 1)); say "gpu-calib --profile failed"; }

say "cross-check: two executor traces (not read by the profile)"
[ -f "$plans/fa3-full-q8-h2-cr1-serial.plan" ] || { say "no plans in $plans (carry them): cross-check skipped"; exit 0; }
for mode in serial async; do
    timeout 60 bin/gpu-exec "$plans/fa3-full-q8-h2-cr1-$mode.plan" --out "$work/calib3/check/fa3-full-q8-h2-cr1-$mode.json" \
        --compute-iters 5 --repeats 3 --ref-hashes "$plans/ref-hashes.txt" "${meta[@]}" --meta grid=calib3-check ||
        { fails=$((fails + 1)); say "gpu-exec failed: $mode"; }
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
