#!/bin/bash
# On the GPU machine, one call: the Hopper kernel at evidence shape lists whose predictions are already committed
# (issue 31 item 3): gpu/bwd/shapes.py over each SHAPES file (BWD_KERNEL, default wgmma: every policy timed, gradients
# checked, bit identity over 3 runs; no traces unless the list asks), into $OUT/NAME.json and NAME-log.txt, with
# nvidia-smi before and after. REQUIRE_GPU (e.g. H100) refuses, in one sentence and with exit 2, a GPU whose name
# does not contain it: predictions made for one GPU's profile are not evidence on another. Carried:
# build/gpu/bwd/libdashbwd.so and the shapes' plans in build/gpu/bwd/plans (gpu/bwd/make-shape-plans.py).
# Usage: OUT=/some/dir [REQUIRE_GPU=H100] [BWD_KERNEL=wgmma] gpu/scripts/run-kernel-evidence.sh SHAPES.json...
set -u
out=${OUT:?set OUT to the output folder}
[ $# -ge 1 ] || { echo "usage: OUT=DIR [REQUIRE_GPU=NAME] gpu/scripts/run-kernel-evidence.sh SHAPES.json..." >&2; exit 2; }
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$name" in
*"${REQUIRE_GPU:-}"*) ;;
*) echo "run-kernel-evidence: this GPU is '${name:-none}', not the ${REQUIRE_GPU} the predictions were made for" >&2; exit 2 ;;
esac
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1
say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
nvsmi() { nvidia-smi --query-gpu=name,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,driver_version,temperature.gpu,power.draw \
    --format=csv >> "$out/nvsmi.txt"; }
say "host $(hostname); $name; $(date -u +%FT%TZ)"
nvsmi
fails=0
for shapes in "$@"; do
    say "kernel ${BWD_KERNEL:-wgmma}: $shapes"
    BWD_KERNEL=${BWD_KERNEL:-wgmma} PYTHONUNBUFFERED=1 OUT="$out" timeout 400 python3 gpu/bwd/shapes.py "$shapes" \
        build/gpu/bwd/plans || { fails=$((fails + 1)); say "shapes.py failed on $shapes"; }
    nvsmi
done
ls -l "$out"
say "done; failures: $fails"
exit $fails
