#!/bin/sh
# CPU check of the backward kernel's source (docs/kernel.md, "CPU emulation"): emits plans for 4 SMs,
# 2 or 4 heads, 4 KV tiles x 8 Q tiles (seqlen 512) for every policy and runs bin/gpu-bwd-emu: every policy
# at d 64, GQA (4 query heads on 2 KV heads), two policies at d 128; float64 reference, 2 deterministic runs
# with timing jitter (bit identity), 1 atomic run. Slow: every GPU thread is an OS thread (tens of minutes).
# KERNEL picks the kernel (gpu-bwd-emu --kernel: mma, the default, or wgmma and its variants); SAME_AS=K2 also
# checks that every run's gradients equal kernel K2's bit for bit (gpu-bwd-emu --same-as); JOBS runs at once (4).
# A kernel of 128-row Q tiles at head dim 64 (a name ending in m128) runs its d 64 rows on plans of 4 x 4 tiles
# (tile_ratio 1), and SAME_AS runs K2 on the 4 x 8 plan of the same policy (--same-as-plan): equal bits are
# expected only where both plans add the same partial products in the same order (docs/kernel.md, "Variants").
# Usage: [KERNEL=K] [SAME_AS=K2] [JOBS=N] gpu/scripts/run-kernel-emulation.sh [SIM] > traces/kernel/emu-results.txt
set -u
SIM=${1:-bin/sim}
KERNEL=${KERNEL:-mma}
SAME=${SAME_AS:+--same-as $SAME_AS}
DIR=${TMPDIR:-/tmp}/dash-emu-plans
mkdir -p "$DIR"
for pm in fa3:full descending:full shift:full fa3:causal fa3-spt:causal descending:causal symmetric-shift:causal; do
  p=${pm%%:*}; m=${pm##*:}
  for h in 2 4; do
    "$SIM" --policy "$p" --mask "$m" --n 4 --heads $h --kv-tiles 4 --q-tiles 8 --tile-ratio 2 --reduce async \
      --emit-plan "$DIR/$p-$m-h$h.plan" >/dev/null || exit 2
    "$SIM" --policy "$p" --mask "$m" --n 4 --heads $h --kv-tiles 4 --q-tiles 4 --tile-ratio 1 --reduce async \
      --emit-plan "$DIR/$p-$m-h$h-m128.plan" >/dev/null || exit 2
  done
done
case "$KERNEL" in
  *m128) M128=-m128 ;;
  *) M128="" ;;
esac
# one row: its d 64 plan for KERNEL (and K2's beside it when they differ)
d64() { echo "$DIR/$1$M128.plan --head-dim 64${SAME:+${M128:+ --same-as-plan $DIR/$1.plan}}"; }
# plan, head dim, heads / kv heads (GQA rows: several query heads per KV head)
cat <<LIST | xargs -P "${JOBS:-4}" -L 1 sh -c 'bin/gpu-bwd-emu "$0" "$@" --runs 2 --atomic-runs 1 --jitter-us 50 --kernel '"$KERNEL $SAME"
$(d64 fa3-full-h2)
$(d64 descending-full-h2)
$(d64 shift-full-h2)
$(d64 fa3-causal-h2)
$(d64 fa3-spt-causal-h2)
$(d64 descending-causal-h2)
$(d64 symmetric-shift-causal-h2)
$(d64 fa3-causal-h4) --heads 4 --kv-heads 2
$DIR/symmetric-shift-causal-h2.plan --head-dim 128
$DIR/shift-full-h2.plan --head-dim 128
LIST
