#!/bin/bash
# On the GPU machine, one call: Nsight Compute's counters for gpu/bwd's Hopper kernel and cuDNN's backward at the same
# shapes (issue 32: what bounds a task, measured). For each case, ncu --set full on one launch after a warm-up, with
# the clocks left alone (--clock-control none, device/METHOD.md), into $OUT/NAME.ncu-rep, and its details page as text
# in $OUT/NAME.txt. Carried: build/gpu/bwd/libdashbwd.so and build/gpu/bwd/plans. A case that fails is logged and
# skipped. Usage: OUT=/some/dir gpu/scripts/run-kernel-ncu.sh
set -u
out=${OUT:?set OUT to the output folder}
mkdir -p "$out"
exec > >(tee -a "$out/log.txt") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*"; }
ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
say "host $(hostname); ncu: ${ncu_bin:-none}"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version,temperature.gpu,power.draw --format=csv
[ -n "$ncu_bin" ] || { say "no ncu"; exit 1; }
"$ncu_bin" --version | tail -1
fails=0
# case NAME KERNEL_REGEX SKIP COUNT ARGS...: profile_one.py ARGS under ncu
case_() {
    local name=$1 regex=$2 skip=$3 count=$4
    shift 4
    say "$name: $*"
    if RUNS=3 timeout 240 "$ncu_bin" --clock-control none --set full --kernel-name-base demangled \
        --kernel-name "regex:$regex" --launch-skip "$skip" --launch-count "$count" -f -o "$out/$name" \
        python3 gpu/bwd/profile_one.py "$@" > "$out/$name-run.txt" 2>&1; then
        "$ncu_bin" --import "$out/$name.ncu-rep" --page details > "$out/$name.txt" 2>&1
        "$ncu_bin" --import "$out/$name.ncu-rep" --page raw --csv > "$out/$name-raw.csv" 2>&1
        grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per Thread|Shared Memory Configuration Size" \
            "$out/$name.txt" | head -12
    else
        fails=$((fails + 1))
        say "$name failed"
        tail -5 "$out/$name-run.txt"
    fi
}
case_ dash-full-d128 bwd_wg_kernel 1 1 dash full 8192 128 16 shift
case_ dash-atomic-full-d128 bwd_wg_kernel 1 1 dash-atomic full 8192 128 16
case_ cudnn-full-d128 '[Bb]prop|[Bb]wd|[Bb]ackward|[Dd]grad' 0 4 cudnn full 8192 128 16
case_ dash-causal-d128 bwd_wg_kernel 1 1 dash causal 8192 128 16 symmetric-shift
case_ cudnn-causal-d128 '[Bb]prop|[Bb]wd|[Bb]ackward|[Dd]grad' 0 4 cudnn causal 8192 128 16
export BWD_KERNEL=wgmma-s2b2o1p0w2m128
case_ dash-m128-full-d64 bwd_wg_kernel 1 1 dash full 8192 64 16 shift
unset BWD_KERNEL
case_ cudnn-full-d64 '[Bb]prop|[Bb]wd|[Bb]ackward|[Dd]grad' 0 4 cudnn full 8192 64 16
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
ls -l "$out"
say "done; failures: $fails"
exit $fails
