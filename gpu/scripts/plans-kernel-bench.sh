#!/bin/sh
# Emits the kernel benchmark's plans (docs/kernel.md) into build/gpu/bwd/plans/ as xz files:
# POLICY-MASK-sSEQ-bhBH.plan.xz, tiles kBlockM 64 x kBlockN 128 (tile_ratio 2), n = 132, async reduce.
# A plan depends on neither head dim nor batch/heads split, only on heads x batch. SHAPES (e.g. "s8192-bh16
# s4096-bh64") emits only those shapes' plans; JOBS sims at once (12). TILE_M=128 emits the plans of the kernels of
# 128-row Q tiles (the Hopper variants named ...m128, head dim 64): POLICY-MASK-sSEQ-bhBH-m128.plan.xz, tile_ratio 1,
# task and reduction costs twice the 64-row tiles' (c 6000, r 4000).
# Usage: [SHAPES=...] [JOBS=N] [TILE_M=64|128] gpu/scripts/plans-kernel-bench.sh [SIM]
set -eu
SIM=${1:-bin/sim}
DIR=build/gpu/bwd/plans
mkdir -p "$DIR"
case "${TILE_M:-64}" in
  64) SUFFIX="" RATIO=2 C=3000 R=2000 ;;
  128) SUFFIX=-m128 RATIO=1 C=6000 R=4000 ;;
  *) echo "plans-kernel-bench.sh: TILE_M is 64 or 128, not '$TILE_M'." >&2; exit 2 ;;
esac
jobs=""
for bh in 16 64; do
  for s in 1024 2048 4096 8192 16384; do
    n=$((s / 128)); m=$((s * RATIO / 128))
    case " ${SHAPES:-s$s-bh$bh} " in *" s$s-bh$bh "*) ;; *) continue ;; esac
    for pm in fa3:full descending:full shift:full fa3:causal fa3-spt:causal descending:causal symmetric-shift:causal; do
      p=${pm%%:*}; mask=${pm##*:}
      f="$DIR/$p-$mask-s$s-bh$bh$SUFFIX.plan"
      [ -s "$f.xz" ] && continue
      ( "$SIM" --policy "$p" --mask "$mask" --n 132 --heads "$bh" --kv-tiles "$n" --q-tiles "$m" --tile-ratio "$RATIO" \
          --reduce async --dq-buffers 1 --c "$C" --r "$R" --max-memory-mb 16384 --emit-plan "$f" >/dev/null &&
        xz -f -9 "$f" ) &
      jobs="$jobs $!"
      [ "$(jobs -p | wc -l)" -ge "${JOBS:-12}" ] && wait $(jobs -p | head -1)
    done
  done
done
wait
ls "$DIR" | wc -l
