#!/bin/bash
# gpu/ without a GPU: every policy's plan, as bin/sim emits it, is read and checked by bin/gpu-exec
# --dry-run (strict plan reader + host reference), and bad plans are refused with file:line and exit 2.
# The Hopper kernel (gpu/bwd/wg/): its wgmma wrappers are what their generator writes, and its own source
# passes the CPU emulation (bin/gpu-bwd-emu: float64 reference, two runs bit-identical under timing jitter)
# on a full-mask GQA plan and a persistent causal plan. Skipped (reported as one skipped check) where
# bin/gpu-exec was not built, saying why: no nvcc, or a build such as make check-asan that leaves gpu/ out.
. "$(dirname "$0")/lib.sh"
sim=$1
exe=$(dirname "$sim")/gpu-exec
if [ ! -x "$exe" ]; then # say why: no nvcc, or a build that leaves gpu/ out (make check-asan builds no CUDA code)
    if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
        skip gpu-dry-run "$exe not built: nvcc exists, but this build leaves gpu/ out (make check-asan does)"
    else
        skip gpu-dry-run "$exe not built (no nvcc)"
    fi
    finish; exit
fi
for spec in "fa3 full serial" "fa3 causal async" "fa3-spt causal serial" "descending causal async" \
            "shift full async" "symmetric-shift causal serial"; do
    set -- $spec
    "$sim" --policy "$1" --mask "$2" --reduce "$3" --n 8 --heads 2 --kv-tiles 4 --q-tiles 8 --emit-plan "$tmp/$1.plan" >/dev/null
    expect_exit "dry-run-$1" 0 "$exe" --dry-run "$tmp/$1.plan"
done
sed 's/^t 0 0 0 0$/t 0 0 0 5/' "$tmp/fa3.plan" >"$tmp/bad-rank.plan"
expect_exit bad-rank 2 "$exe" --dry-run "$tmp/bad-rank.plan"
grep -q "bad-rank.plan:[0-9]*:" "$tmp/err" && ok bad-rank-located || fail bad-rank-located "$(cat "$tmp/err")"
head -20 "$tmp/fa3.plan" >"$tmp/truncated.plan"
expect_exit truncated 2 "$exe" --dry-run "$tmp/truncated.plan"

wg=$(dirname "$0")/../gpu/bwd/wg
python3 "$wg/gen-mma.py" | cmp -s - "$wg/wg_mma.cuh" && ok wgmma-wrappers-generated \
    || fail wgmma-wrappers-generated "gpu/bwd/wg/wg_mma.cuh differs from gen-mma.py's output"
emu=$(dirname "$sim")/gpu-bwd-emu
"$sim" --policy fa3 --mask full --n 2 --heads 2 --kv-tiles 2 --q-tiles 4 --tile-ratio 2 --reduce async \
    --emit-plan "$tmp/wg-full.plan" >/dev/null
expect_exit emu-wgmma-full-gqa 0 "$emu" "$tmp/wg-full.plan" --head-dim 64 --heads 2 --kv-heads 1 --kernel wgmma \
    --runs 2 --atomic-runs 0 --jitter-us 20
"$sim" --policy symmetric-shift --mask causal --n 2 --heads 1 --kv-tiles 4 --q-tiles 8 --tile-ratio 2 \
    --reduce async --emit-plan "$tmp/wg-causal.plan" >/dev/null
expect_exit emu-wgmma-causal-persistent 0 "$emu" "$tmp/wg-causal.plan" --head-dim 128 --kernel wgmma --runs 2 \
    --atomic-runs 0 --jitter-us 20
expect_error emu-unknown-kernel "unknown kernel 'bogus'" "$emu" "$tmp/wg-full.plan" --head-dim 64 --kernel bogus
finish
