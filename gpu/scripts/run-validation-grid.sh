#!/bin/bash
# On the GPU machine: build gpu-calib and gpu-exec, check every kernel variant on small plans, calibrate
# (SM-pair latency, tile reduction and compute costs), then run gpu-exec on every plan of traces/plans/
# with compute sizes for c/r = 1, 3, 8 measured in place (a probe of two sizes); then a spin-compute subset.
# Writes $OUT/traces.tgz (calib-*.json, grid-iters.txt, h100/, h100-spin/, smoke/, probe/) and $OUT/log.txt.
# Budget: about 8 minutes at most; later stages are skipped (and logged) when time runs short.
# Usage: OUT=/some/dir gpu/scripts/run-validation-grid.sh [PLAN_DIR]
set -u
export PATH=$PATH:/usr/local/cuda/bin
plans=${1:-traces/plans}
out=${OUT:?set OUT to the output folder}
log=$out/log.txt
work=$(mktemp -d)
mkdir -p "$work/h100" "$work/h100-spin" "$work/smoke"
budget_s=${BUDGET_S:-400}
exec > >(tee -a "$log") 2>&1

say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | sed 's/ *$//'; }
finish() {
    cp "$work"/calib-* "$out"/ 2>/dev/null
    say "plans exact: $(grep -c ' dq exact repeats identical$' "$log"); not: $(grep -c 'MISMATCH\|DIFFER\|TIMEOUT' "$log")"
    tar -czf "$out/traces.tgz" -C "$work" . && say "wrote $out/traces.tgz ($(du -k "$out/traces.tgz" | cut -f1) KiB)"
    say "done; failures: $fails"
    sleep 1
}
fails=0
trap finish EXIT

say "host $(hostname); $(uname -m)"
nvidia-smi -L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw \
    --format=csv
nvcc --version | tail -2
gpu_name=$(smi name)
driver=$(smi driver_version)
meta=(--meta "gpu_name=$gpu_name" --meta "driver=$driver")

say "build"
make -f gpu/gpu.mk -j4 gpu || { say "BUILD FAILED"; fails=$((fails + 1)); exit 1; }

# Runs gpu-exec (it reads the clocks itself through NVML); a hang costs at most 100 s.
exec_run() {
    local rc
    timeout 100 bin/gpu-exec "${meta[@]}" "$@"
    rc=$?
    [ $rc = 0 ] || { fails=$((fails + 1)); say "gpu-exec exit $rc: $*"; }
    return $rc
}

say "smoke: every tile x reduce op on small plans (serial, async, 2 buffers, persistent)"
for tile in "80 128" "64 128" "128 64" "128 128"; do
    set -- $tile
    for op in bulk ldst red; do
        mkdir -p "$work/smoke/$op-$1x$2"
        exec_run traces/plans-smoke/*.plan --out-dir "$work/smoke/$op-$1x$2" --tile-m "$1" --head-dim "$2" \
            --reduce-op "$op" --compute-iters 8 --repeats 3
    done
done
mkdir -p "$work/smoke/spin"
exec_run traces/plans-smoke/*.plan --out-dir "$work/smoke/spin" --compute spin --compute-iters 8 --repeats 3

say "calibration"
timeout 120 bin/gpu-calib --out-dir "$work" "${meta[@]}" ||
    { fails=$((fails + 1)); say "gpu-calib failed"; }
cat "$work/calib-iters.txt" 2>/dev/null

# Compute sizes for c/r = 1, 3, 8 measured in place: fa3 h16 c/r-3 async plan with 8 and 96 mma rounds;
# c(iters) = fixed + per_iter * iters from the two median compute phases, r = mean of the two median
# reductions; iters(ratio) = (ratio * r - fixed) / per_iter.
say "probe: in-place c and r"
mkdir -p "$work/probe"
for mask in full causal; do
    for k in 8 96; do
        exec_run "$plans/fa3-$mask-h16-r3-async.plan" --out "$work/probe/fa3-$mask-h16-k$k.json" --compute-iters $k \
            --repeats 3
    done
done
python3 - "$work/probe" >"$work/grid-iters.txt" <<'PY'
import json, statistics, sys
d = sys.argv[1]
print("# mask ratio compute_iters c_fixed_ns c_ns_per_iter r_ns (medians of the probe traces)")
for mask in ("full", "causal"):
    c, r = {}, []
    for k in (8, 96):
        tasks = json.load(open("%s/fa3-%s-h16-k%d.json" % (d, mask, k)))["tasks"]
        c[k] = statistics.median(t[8] - t[7] for t in tasks)
        r.append(statistics.median(t[11] - t[10] for t in tasks))
    per_iter = (c[96] - c[8]) / 88.0
    if per_iter <= 0:
        sys.exit("probe: compute time does not grow with iterations")
    fixed = c[8] - 8 * per_iter
    rr = sum(r) / len(r)
    for ratio in (1, 3, 8):
        print(mask, ratio, max(1, round((ratio * rr - fixed) / per_iter)), round(fixed), round(per_iter, 2), round(rr))
PY
cat "$work/grid-iters.txt"
iters_for() { # mask ratio -> compute iters: probe, else gpu-calib's estimate, else a guess
    local k
    k=$(awk -v m="$1" -v r="$2" '$1 == m && $2 == r { print $3 }' "$work/grid-iters.txt" 2>/dev/null)
    if [ -z "$k" ]; then
        if [ "$1" = full ]; then set -- 80 128 "$2"; else set -- 64 128 "$2"; fi
        k=$(awk -v m="$1" -v d="$2" -v r="$3" '$1 == m && $2 == d && $3 == r { print $4 }' \
            "$work/calib-iters.txt" 2>/dev/null)
    fi
    echo "${k:-$((25 * $2))}"
}

say "grid: $(ls "$plans"/*.plan | wc -l) plans"
for ratio in 1 3 8; do
    for mask in full causal; do
        k=$(iters_for $mask $ratio)
        for heads in 1 4 16; do
            files=$(ls "$plans"/*-$mask-h$heads-r$ratio-*.plan 2>/dev/null)
            [ -n "$files" ] || continue
            if [ $SECONDS -gt $budget_s ]; then
                say "SKIPPED (time): $mask h$heads r$ratio"
                fails=$((fails + 1))
                continue
            fi
            sw=1
            if [ $mask = causal ]; then if [ $heads = 1 ]; then sw=8; else sw=16; fi; fi
            say "$mask h$heads ratio $ratio: compute_iters $k, head_swizzle $sw"
            exec_run $files --out-dir "$work/h100" --compute-iters "$k" --repeats 5 \
                --meta "head_swizzle=$sw" --meta "c_r_ratio_target=$ratio"
        done
    done
done

say "spin compute subset: h16, c/r 3, async"
for mask in full causal; do
    if [ $SECONDS -gt $((budget_s + 30)) ]; then say "SKIPPED (time): spin $mask"; continue; fi
    k=$(iters_for $mask 3)
    if [ $mask = full ]; then sw=1; else sw=16; fi
    exec_run "$plans"/*-$mask-h16-r3-async.plan --out-dir "$work/h100-spin" --compute spin --compute-iters "$k" \
        --repeats 5 --meta "head_swizzle=$sw" --meta "c_r_ratio_target=3"
done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
