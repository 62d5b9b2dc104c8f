#!/bin/bash
# Emits the prediction grid's plans (docs/gpu.md, "Prediction traces"; traces/h100-predict/README.md) into
# traces/plans-predict/ with bin/sim --emit-plan, and a manifest that gpu/scripts/run-prediction-grid.sh follows:
#   <name> <compute_iters> <reduce_op> <reduce_threads> <c_r_target> <head_swizzle> <runs>
# (runs 1: one trace <name>.json; 3: two more separate runs as well, repeats/<name>-rep2.json and -rep3.json;
# rep1 is <name>.json itself).
# KV tiles per head are 132 (one per SM per head: heads x 132 CTAs = heads waves for the non-persistent
# policies). Shapes: full q8 (80x128 tiles, the waves sweep), full q132 (80x128, so that shift is defined),
# causal s1 q132 (128x64), causal s2 q264 (64x128). Compute iterations are fixed here, a priori, from the
# earlier calibration (traces/calib-reduce.json, docs/gpu.md), never from these traces: c/r 1 and 3 with the
# bulk reduce; c/r 0.3 is out of reach of the bulk reduce (the compute's fixed cost alone is 0.6-0.9 r), so
# those traces add with ldst by one warp (async: the store warp; serial: --reduce-threads 32), r ~4.3-5.1 us.
# With --hashes, also appends every plan's reference dQ hash (gpu-exec --dry-run --ref-hashes) for the run.
# Usage: gpu/scripts/plans-prediction-grid.sh [--hashes] [OUT_DIR]   (SIM=path/to/sim, default bin/sim)
set -eu
sim=${SIM:-bin/sim}
hashes=0
if [ "${1:-}" = --hashes ]; then hashes=1; shift; fi
out=${1:-traces/plans-predict}
mkdir -p "$out"
rm -f "$out"/*.plan "$out"/manifest.txt "$out"/ref-hashes.txt
man=$out/manifest.txt
echo "# name compute_iters reduce_op reduce_threads c_r_target head_swizzle runs" >"$man"
r_ns=1500
rows=0

# iters <shape> <cr>: compute rounds for the tile of that shape
iters() {
    case "$1-$2" in
    full*-0.3) echo 1 ;; full*-1) echo 5 ;; full*-3) echo 62 ;;
    causal-s2*-0.3) echo 1 ;; causal-s2*-1) echo 7 ;; causal-s2*-3) echo 79 ;;
    causal-s1*-0.3) echo 1 ;; causal-s1*-1) echo 1 ;; causal-s1*-3) echo 68 ;;
    esac
}

# plan <policy> <shape> <heads> <cr> <reduce> [runs]
plan() {
    local policy=$1 shape=$2 heads=$3 cr=$4 reduce=$5 runs=${6:-1} args sw=1 op=bulk thr=256 name
    case $shape in
    full-q8) args=(--mask full --kv-tiles 132 --q-tiles 8) ;;
    full-q132) args=(--mask full --kv-tiles 132 --q-tiles 132) ;;
    # FA3's head swizzle S_w = 2^floor(log2(40 MiB / size_one_head)), Sq = 16896 in both causal shapes:
    # hdim 64: Sq*512 bytes -> 4; hdim 128: Sq*1024 bytes -> 2
    causal-s1-q132) sw=4; args=(--mask causal --kv-tiles 132 --q-tiles 132 --tile-ratio 1 --head-swizzle 4) ;;
    causal-s2-q264) sw=2; args=(--mask causal --kv-tiles 132 --q-tiles 264 --tile-ratio 2 --head-swizzle 2) ;;
    esac
    if [ "$cr" = 0.3 ]; then op=ldst; thr=32; fi
    name=$policy-$shape-h$heads-cr${cr/./}-$reduce
    local c=$(awk -v c="$cr" -v r=$r_ns 'BEGIN { printf "%d", c * r }')
    "$sim" --policy "$policy" --n 132 --heads "$heads" "${args[@]}" --c "$c" --r $r_ns --latency 600 \
        --reduce "$reduce" --emit-plan "$out/$name.plan" >/dev/null
    echo "$name $(iters "$shape" "$cr") $op $thr $cr $sw $runs" >>"$man"
    rows=$((rows + $(awk '$1 == "tasks" { print $2; exit }' "$out/$name.plan") * runs))
}

# 1. waves sweep: full mask, q 8, heads 2..32 (2..32 waves of 132 CTAs)
for h in 2 4 8 16 32; do plan fa3 full-q8 $h 1 async; done
for h in 2 4 8 16; do plan descending full-q8 $h 1 async; done
for h in 2 4 8; do plan fa3 full-q8 $h 1 serial; done
for h in 2 8; do
    for p in fa3 descending; do for cr in 0.3 3; do plan $p full-q8 $h $cr async; done; done
done
# 2. full mask, q 132 (shift defined), 2 heads
for cr in 0.3 1 3; do plan shift full-q132 2 $cr async; done
plan shift full-q132 2 1 serial
plan fa3 full-q132 2 1 async
plan fa3 full-q132 2 1 serial
# 3. causal, tile ratio 1, q 132, 2 heads: every causal policy x c/r 0.3, 1, 3 async + c/r 1 serial
for p in fa3 fa3-spt descending symmetric-shift; do
    for cr in 0.3 1 3; do plan $p causal-s1-q132 2 $cr async; done
    plan $p causal-s1-q132 2 1 serial
done
# serial reduction at c/r 0.3 and 3 for the two extremes of each mask's policies
for p in fa3 descending; do for cr in 0.3 3; do plan $p full-q8 2 $cr serial; done; done
for p in fa3 symmetric-shift; do for cr in 0.3 3; do plan $p causal-s1-q132 2 $cr serial; done; done
# 4 heads (4 waves for the non-persistent policies)
plan fa3 causal-s1-q132 4 1 async
plan symmetric-shift causal-s1-q132 4 1 async
# 4. causal, tile ratio 2, q 264, 2 heads, c/r 1 async
for p in fa3 fa3-spt descending symmetric-shift; do plan $p causal-s2-q264 2 1 async; done
# 5. noise: two more separate runs of a subset (its grid trace is rep 1)
repeat() {
    sed -i "s/^\($1 .*\) 1\$/\1 3/" "$man"
    rows=$((rows + 2 * $(awk '$1 == "tasks" { print $2; exit }' "$out/$1.plan")))
}
repeat fa3-full-q8-h4-cr1-async
repeat symmetric-shift-causal-s1-q132-h2-cr1-serial
repeat fa3-causal-s1-q132-h2-cr3-async

n=$(grep -vc '^#' "$man")
echo "plans-prediction-grid: $n plans in $out; $rows task rows to record (repeat subsets counted 3x)"
if [ $hashes = 1 ]; then
    exe=${GPU_EXEC:-bin/gpu-exec}
    grep -v '^#' "$man" | while read -r name k op thr cr sw runs; do echo "$name $k"; done |
        xargs -P "${JOBS:-2}" -L 1 sh -c "$exe --dry-run --ref-hashes $out/ref-hashes.\$\$ --compute-iters \$1 $out/\$0.plan >/dev/null"
    cat "$out"/ref-hashes.* >"$out/ref-hashes.txt.tmp" && rm -f "$out"/ref-hashes.[0-9]* && mv "$out/ref-hashes.txt.tmp" "$out/ref-hashes.txt"
    echo "plans-prediction-grid: $(wc -l <"$out/ref-hashes.txt") reference hashes in $out/ref-hashes.txt"
fi
