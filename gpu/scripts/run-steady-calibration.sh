#!/bin/bash
# On the GPU machine, one call: gpu-calib --steady twice (seeds $SEEDS, default 1 and 2, two runs of the same session, so
# that a per-SM property can be told from noise), into $OUT/run1 and $OUT/run2: calib-steady-raw.json and
# steady-samples.tsv.gz each (docs/profile.md, "The steady-load calibration"). Uses GPU_CALIB (default
# bin/gpu-calib): a helper's call carries its own build (the checkout sent is the session's).
# Usage: OUT=/some/dir [GPU_CALIB=path] gpu/scripts/run-steady-calibration.sh
set -u
export PATH=$PATH:/usr/local/cuda/bin
out=${OUT:?set OUT to the output folder}
calib=${GPU_CALIB:-bin/gpu-calib}
say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | sed 's/ *$//'; }
say "host $(hostname); $(uname -m)"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw --format=csv
meta=(--meta "gpu_name=$(smi name)" --meta "driver=$(smi driver_version)")
fails=0
for run in ${SEEDS:-1 2}; do
    mkdir -p "$out/run$run"
    say "gpu-calib --steady --seed $run"
    timeout 200 "$calib" --steady --seed "$run" --out-dir "$out/run$run" "${meta[@]}" --meta "run=$run" ||
        { fails=$((fails + 1)); say "run $run failed"; }
    gzip -9 -f "$out/run$run/steady-samples.tsv" 2>/dev/null
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
ls -l "$out"/run*
say "done; failures: $fails"
