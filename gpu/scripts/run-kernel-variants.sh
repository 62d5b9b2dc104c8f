#!/bin/sh
# Issue 32's variant run (docs/kernel.md "Variants"; the predictions in gpu/bwd/NOTES.md, written before it), from the
# repository root. Here, after `make gpu` and the plans (SHAPES below, gpu/scripts/plans-kernel-bench.sh, and with
# TILE_M=128 too where a variant of VARIANTS has 128-row Q tiles: a name ending in m128), `--pack` writes
# .dev/kernel-variants.tar.xz (stripped bin/gpu-bwd, bin/gpu-wg-test, libdashbwd.so and the plans it needs, about
# 1.5 MB: the carry). On the GPU machine, without arguments: unpacks it, runs the layout test and smoke
# (run-kernel-smoke.sh), a smoke of each new variant (both head dims, deterministic and atomic), then
# gpu/bwd/variants.py (VARIANTS, VARIANT_BASE, VARIANT_ROUNDS, DET_RUNS). Every step has its own limit; the whole ends within
# 420 s on one H200. Writes $OUT/variants.json, variants.md, smoke.txt, log-variants.txt; exit 1 on a failure.
# Usage: gpu/scripts/run-kernel-variants.sh --pack   |   OUT=DIR gpu/scripts/run-kernel-variants.sh
set -u
PACK=.dev/kernel-variants.tar.xz
SHAPES="s1024-bh16 s2048-bh16 s4096-bh16 s8192-bh16 s4096-bh64"
VARIANTS=${VARIANTS:-wgmma,wgmma-s2b2o1p0w2m128}
export VARIANTS
case ",$VARIANTS," in
  *m128,*) SUFFIXES=" -m128" ;;
  *) SUFFIXES="" ;;
esac
if [ "${1:-}" = "--pack" ]; then
  tmp=$(mktemp -d) || exit 2
  mkdir -p "$tmp/bin" "$tmp/build/gpu/bwd/plans" .dev
  for f in bin/gpu-bwd bin/gpu-wg-test build/gpu/bwd/libdashbwd.so; do
    [ -s "$f" ] || { echo "run-kernel-variants: $f is missing: run make gpu first" >&2; rm -rf "$tmp"; exit 2; }
    cp "$f" "$tmp/$f" && strip "$tmp/$f"
  done
  for sh in $SHAPES; do
    for pm in fa3-full descending-full shift-full fa3-causal fa3-spt-causal descending-causal symmetric-shift-causal; do
      for x in "" $SUFFIXES; do
        f=build/gpu/bwd/plans/$pm-$sh$x.plan.xz
        [ -s "$f" ] || { echo "run-kernel-variants: $f is missing: SHAPES=\"$SHAPES\" TILE_M=${x:+128}${x:-64}" \
          "gpu/scripts/plans-kernel-bench.sh" >&2; rm -rf "$tmp"; exit 2; }
        cp "$f" "$tmp/$f"
      done
    done
  done
  tar cJf "$PACK.tmp" -C "$tmp" bin build && mv "$PACK.tmp" "$PACK"
  rc=$?
  rm -rf "$tmp"
  ls -la "$PACK"
  exit $rc
fi
: "${OUT:?set OUT}"
t0=$(date +%s)
[ -s "$PACK" ] && { tar xJf "$PACK" || exit 1; }
timeout 150 sh gpu/scripts/run-kernel-smoke.sh || { echo "smoke failed or took over 150 s: rc $?"; exit 1; }
mkdir -p /tmp/dash-plans
for x in "" $SUFFIXES; do
  xz -dc build/gpu/bwd/plans/symmetric-shift-causal-s2048-bh16$x.plan.xz > /tmp/dash-plans/variant-smoke$x.plan
done
for k in $(echo "$VARIANTS" | tr , ' '); do
  [ "$k" = wgmma ] && continue
  for d in 128 64; do
    x=""
    case "$k" in *m128) [ $d = 64 ] && x=-m128 ;; esac  # 128-row Q tiles at head dim 64: the tile_ratio-1 plan
    for mode in "" --atomic; do
      timeout 20 bin/gpu-bwd /tmp/dash-plans/variant-smoke$x.plan --kernel "$k" --head-dim $d --repeats 5 $mode \
        >> "$OUT/smoke.txt" 2>&1 || { echo "variant smoke FAILED: $k d$d $mode rc $?" | tee -a "$OUT/smoke.txt"; exit 1; }
    done
  done
done
tail -n 8 "$OUT/smoke.txt"
left=$((400 - ($(date +%s) - t0)))
echo "smoke done in $(($(date +%s) - t0)) s; variants.py gets $left s"
PYTHONUNBUFFERED=1 timeout "$left" python3 gpu/bwd/variants.py
rc=$?
[ -s "$OUT/variants.md" ] && cat "$OUT/variants.md"
ls -la "$OUT"
exit $rc
