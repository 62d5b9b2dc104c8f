#!/bin/bash
# Rebuilds every H200 profile of gpu/bwd's Hopper kernel (configs/kernels/gpu-bwd-wgmma*-h200.json) from its
# committed calibration traces and timed runs, with the fixed stages timed alone (traces/kernel-wg-h200/stages/):
# the commands tests/cli_kernel.sh checks byte for byte. Usage: scripts/rebuild-h200-kernel-profiles.sh [SIM] [DIR]
# (default bin/sim, configs/kernels). Exit 2 when a calibration is missing or a fit fails.
set -u
sim=${1:-bin/sim} out=${2:-configs/kernels}
T=traces/kernel-wg-h200 stages=traces/kernel-wg-h200/stages/stages.json
one() { # NAME DIR [m128] [--sustained FILE]: DIR/calibration/d128 + d64 (or DIR/m128/calibration/d64) and DIR's
    # wgmma-*-calibration.json; the slowdown under sustained load that scripts/fit-sustained.py fitted, where measured,
    # and with it the turn's jitter (the default kernel's alone: the variants' evidence was predicted without it)
    local name=$1 dir=$2 runs traces extra=()
    [ "${4:-}" = --sustained ] && extra=(--sustained "$5" --turn-jitter)
    if [ -n "${3:-}" ]; then
        traces=("$dir"/m128/calibration/d64/*.json.gz) runs=$(ls "$dir"/m128/wgmma-*calibration.json)
    else
        traces=("$dir"/calibration/d128/*.json.gz "$dir"/calibration/d64/*.json.gz) runs=$(ls "$dir"/wgmma-*calibration.json)
    fi
    [ -e "${traces[0]}" ] && [ -f "$runs" ] || { echo "rebuild-h200-kernel-profiles: no calibration in $dir" >&2; exit 2; }
    "$sim" calibrate --kernel "${traces[@]}" --runs "$runs" --write-rule start --stages "$stages" --clock-dip \
        "${extra[@]}" --name "$name" -o "$out/$name.json" || exit 2
}
one gpu-bwd-wgmma-h200 "$T" "" --sustained "$T/sustained/fit-d128.json" # measured for the default kernel alone
one gpu-bwd-wgmma-m128-h200 "$T" m128
for v in e t u x y z; do one "gpu-bwd-wgmma-$v-h200" "$T/$v"; done
for v in e w x y z; do one "gpu-bwd-wgmma-${v}m128-h200" "$T/$v" m128; done
