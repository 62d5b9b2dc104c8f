#!/bin/bash
# On the GPU machine, one call: the predictor's profile calibration (gpu-calib --profile, calibration kernels
# only) and then gpu-exec on every plan of the prediction grid (traces/plans-predict/manifest.txt, made by
# gpu/scripts/plans-prediction-grid.sh --hashes), traces the profile never sees. Every trace is checked as in
# run-validation-grid.sh: dQ bit-exact against the host reference (through the reference hashes computed beforehand,
# --ref-hashes; small smoke plans against the full reference), the timed repeats bit-identical, no timeout.
# Writes $OUT/log.txt, $OUT/calib2.tgz (calib-profile-raw.json), $OUT/predict-{full,causal,repeats}.tgz.
# Budget: BUDGET_S (default 330 s) for the grid; later plans are skipped (and logged) when time runs short.
# ONLY=REGEX runs only the manifest's plans whose names match (grep -E); CALIB=0 skips the calibration.
# Usage: OUT=/some/dir gpu/scripts/run-prediction-grid.sh [PLAN_DIR]
set -u
export PATH=$PATH:/usr/local/cuda/bin
plans=${1:-traces/plans-predict}
out=${OUT:?set OUT to the output folder}
log=$out/log.txt
work=$(mktemp -d)
mkdir -p "$work/h100-predict/repeats" "$work/calib2" "$work/smoke"
budget_s=${BUDGET_S:-330}
exec > >(tee -a "$log") 2>&1

say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | sed 's/ *$//'; }
finish() {
    cp "$log" "$work/h100-predict/run-log.txt" 2>/dev/null
    say "plans exact: $(grep -c ' dq exact repeats identical$' "$log"); not: $(grep -c 'MISMATCH\|DIFFER\|TIMEOUT' "$log")"
    (cd "$work" && tar -czf "$out/calib2.tgz" calib2 smoke &&
        tar -czf "$out/predict-full.tgz" h100-predict/*-full-*.json h100-predict/run-log.txt &&
        tar -czf "$out/predict-causal.tgz" h100-predict/*-causal-*.json &&
        tar -czf "$out/predict-repeats.tgz" h100-predict/repeats)
    ls -l "$out"
    say "done; failures: $fails"
    sleep 1
}
fails=0
trap finish EXIT

say "host $(hostname); $(uname -m)"
nvidia-smi -L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw \
    --format=csv
gpu_name=$(smi name)
driver=$(smi driver_version)
meta=(--meta "gpu_name=$gpu_name" --meta "driver=$driver")

if bin/gpu-calib --help 2>/dev/null | grep -q -- --profile && bin/gpu-exec --help 2>/dev/null | grep -q -- --ref-hashes; then
    say "using the carried bin/gpu-calib and bin/gpu-exec"
else
    say "build"
    make -f gpu/gpu.mk -j16 bin/gpu-calib bin/gpu-exec || { say "BUILD FAILED"; fails=$((fails + 1)); exit 1; }
fi

# Runs gpu-exec (it reads the clocks itself through NVML); a hang costs at most 60 s.
exec_run() {
    local rc
    timeout 60 bin/gpu-exec "${meta[@]}" "$@"
    rc=$?
    [ $rc = 0 ] || { fails=$((fails + 1)); say "gpu-exec exit $rc: $*"; }
    return $rc
}

say "calibration: gpu-calib --profile"
[ "${CALIB:-1}" = 0 ] || timeout 150 bin/gpu-calib --profile --out-dir "$work/calib2" "${meta[@]}" || { fails=$((fails + 1)); say "gpu-calib --profile failed"; }

say "smoke: full host reference, new executor options (serial ldst by 32 threads, async ldst)"
exec_run "$plans/fa3-full-q8-h2-cr03-serial.plan" --out "$work/smoke/serial-ldst32.json" --compute-iters 1 \
    --reduce-op ldst --reduce-threads 32 --repeats 3
exec_run "$plans/fa3-full-q8-h2-cr03-serial.plan" --out "$work/smoke/serial-red64.json" --compute-iters 1 \
    --reduce-op red --reduce-threads 64 --repeats 3
exec_run "$plans/fa3-full-q8-h2-cr03-async.plan" --out "$work/smoke/async-ldst.json" --compute-iters 1 \
    --reduce-op ldst --repeats 3
exec_run "$plans/fa3-full-q8-h2-cr1-serial.plan" --out "$work/smoke/serial-bulk.json" --compute-iters 5 --repeats 3

say "grid: $(grep -v '^#' "$plans/manifest.txt" | grep -cE "${ONLY:-.}") plans"
grep -v '^#' "$plans/manifest.txt" | grep -E "${ONLY:-.}" | while read -r name k op thr cr sw runs; do
    if [ $SECONDS -gt $budget_s ]; then
        say "SKIPPED (time): $name"
        continue
    fi
    common=(--compute-iters "$k" --reduce-op "$op" --reduce-threads "$thr" --repeats 5
        --ref-hashes "$plans/ref-hashes.txt" --meta "c_r_ratio_target=$cr" --meta "head_swizzle=$sw"
        --meta "grid=h100-predict" --meta "iters_source=a priori from traces/calib-reduce.json (docs/gpu.md)")
    if [ "$runs" = 1 ]; then
        exec_run "$plans/$name.plan" --out "$work/h100-predict/$name.json" "${common[@]}"
    else
        exec_run "$plans/$name.plan" --out "$work/h100-predict/$name.json" "${common[@]}" --meta repeat_index=1
        for rep in 2 3; do
            exec_run "$plans/$name.plan" --out "$work/h100-predict/repeats/$name-rep$rep.json" "${common[@]}" \
                --meta repeat_index=$rep
        done
    fi
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
