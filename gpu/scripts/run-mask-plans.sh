#!/bin/bash
# On the GPU machine: the executor on the block-mask plans of traces/plans-mask/ (sim search --emit-plan
# and --emit-baselines: the found schedule and the hand-made orders for window, document, prefix and random
# masks), async bulk reduction, 80x128 tiles, 5 compute rounds (c:r about 1). Expects a built bin/gpu-exec
# (carried). Writes $OUT/mask-traces.tgz and $OUT/log.txt. Usage: OUT=DIR [PLANS=traces/plans-mask] gpu/scripts/run-mask-plans.sh
set -u
out=${OUT:?set OUT}
work=$(mktemp -d)
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
fails=0
for dir in "${PLANS:-traces/plans-mask}"/*/; do
    mask=$(basename "$dir")
    mkdir -p "$work/$mask"
    for plan in "$dir"*.plan "$dir"*.plan.gz; do # committed plans are gzipped (the reader takes either)
        [ -e "$plan" ] || continue
        name=$(basename "${plan%.gz}" .plan)
        timeout 60 bin/gpu-exec "$plan" --out "$work/$mask/$name.json" --tile-m 80 --head-dim 128 --compute-iters 5 \
            --reduce-op bulk --repeats 5 --meta "gpu_name=$gpu_name" --meta "driver=$driver" --meta "mask_spec=$mask" \
            --meta "grid=mask-search" || { echo "FAILED: $plan"; fails=$((fails + 1)); }
    done
done
tar -czf "$out/mask-traces.tgz" -C "$work" .
echo "done; failures: $fails"
