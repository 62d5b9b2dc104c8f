#!/bin/bash
# On the GPU machine: the schedules `sim search` finds with 5000 moves under the H100 profile (issue 26;
# traces/plans-search16/*/found.plan, each different from every hand-made order) against the hand-made
# orders of the same workloads (traces/plans-mask16/*/{ascending,descending,spt}.plan), in one session:
# window:16, document:22,22,22, prefix:16 and random:0.2:1, 16 heads x 66 x 66 tiles, async bulk reduction,
# 80x128 tiles, 5 compute rounds, as gpu/run-mask.sh runs them. Three rounds, each running every plan once
# with 5 repeats, so a drift of the clocks reaches every plan alike. Expects a built bin/gpu-exec (carried).
# Writes $OUT/search16-traces.tgz and $OUT/log.txt. Usage: OUT=DIR gpu/run-search16.sh
set -u
out=${OUT:?set OUT}
work=$(mktemp -d)
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
fails=0
for round in 1 2 3; do
    for dir in traces/plans-search16/*/; do
        mask=$(basename "$dir")
        mkdir -p "$work/round$round/$mask"
        for plan in "$dir/found.plan" traces/plans-mask16/"$mask"/{ascending,descending,spt}.plan; do
            name=$(basename "$plan" .plan)
            timeout 60 bin/gpu-exec "$plan" --out "$work/round$round/$mask/$name.json" --tile-m 80 --head-dim 128 \
                --compute-iters 5 --reduce-op bulk --repeats 5 --meta "gpu_name=$gpu_name" --meta "driver=$driver" \
                --meta "mask_spec=$mask" --meta "grid=search16-round$round" || { echo "FAILED: $plan"; fails=$((fails + 1)); }
        done
    done
done
tar -czf "$out/search16-traces.tgz" -C "$work" .
echo "done; failures: $fails"
