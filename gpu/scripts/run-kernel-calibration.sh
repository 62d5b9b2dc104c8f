#!/bin/bash
# On the GPU machine, one call: everything a GPU's two profiles are made from (docs/profile.md). The hardware
# calibration (gpu-calib --profile, then --steady for the clock rule) and the Hopper kernel's calibration
# shapes (gpu/bwd/shapes.py over SHAPES, default gpu/bwd/shapes/wgmma-calibration.json, BWD_KERNEL=wgmma:
# timed runs and phase-stamped traces). Carried: bin/gpu-calib, build/gpu/bwd/libdashbwd.so and the shapes'
# plans in build/gpu/bwd/plans (gpu/bwd/make-shape-plans.py). Writes to $OUT: nvsmi.txt, calib-profile-raw.json,
# calib-steady-raw.json, NAME.json (the runs), NAME-log.txt, NAME-d128-traces.tgz, NAME-d64-traces.tgz, log.txt.
# Usage: OUT=/some/dir gpu/scripts/run-kernel-calibration.sh [SHAPES.json]
set -u
out=${OUT:?set OUT to the output folder}
shapes=${1:-gpu/bwd/shapes/wgmma-calibration.json}
work=$(mktemp -d)
fails=0
exec > >(tee -a "$out/log.txt") 2>&1
say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | sed 's/ *$//'; }
nvsmi() { nvidia-smi --query-gpu=name,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw \
    --format=csv >> "$out/nvsmi.txt"; }
say "host $(hostname); $(uname -m); $(date -u +%FT%TZ)"
nvsmi
meta=(--meta "gpu_name=$(smi name)" --meta "driver=$(smi driver_version)")
say "hardware: gpu-calib --profile"
timeout 150 bin/gpu-calib --profile --out-dir "$work/hw" "${meta[@]}" || { fails=$((fails + 1)); say "--profile failed"; }
cp "$work/hw/calib-profile-raw.json" "$out/" 2>/dev/null
say "hardware: gpu-calib --steady --seed 1"
timeout 200 bin/gpu-calib --steady --seed 1 --out-dir "$work/steady" "${meta[@]}" --meta run=1 ||
    { fails=$((fails + 1)); say "--steady failed"; }
cp "$work/steady/calib-steady-raw.json" "$out/" 2>/dev/null
nvsmi
say "kernel: $shapes"
BWD_KERNEL=wgmma PYTHONUNBUFFERED=1 OUT="$work/k" timeout 300 python3 gpu/bwd/shapes.py "$shapes" build/gpu/bwd/plans ||
    { fails=$((fails + 1)); say "shapes.py failed"; }
cp "$work"/k/*.json "$work"/k/*-log.txt "$work"/k/*.tgz "$out/" 2>/dev/null
nvsmi
ls -l "$out"
say "done; failures: $fails"
exit $fails
