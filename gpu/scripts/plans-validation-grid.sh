#!/bin/bash
# Emits the validation grid's plans (docs/gpu.md) into traces/plans/ with bin/sim --emit-plan:
# policies x masks (where the policy defines the mask; sim exits 2 otherwise) x heads {1,4,16} x
# c/r ratios {1,3,8} x reduce {serial,async}, for 132 SMs. Names: <policy>-<mask>-h<H>-r<ratio>-<reduce>.plan
# Tiles per head: full N = M (32 for one head, else 16); causal kBlockN = 2 kBlockM (tile_ratio 2, hdim 128),
# N as for full and M = 2N, with FA3's L2 head swizzle S_w for that sequence length (see below).
# The plans' c_ns / r_ns / latency_ns are nominal (r 1500 ns, c = ratio x r, latency 600 ns): gpu-exec ignores
# them, and sim validate fits the costs from each measured trace.
set -eu
sim=${SIM:-bin/sim}
out=${1:-traces/plans}
mkdir -p "$out"
rm -f "$out"/*.plan
r_ns=1500
n_ok=0
n_skip=0
for policy in fa3 fa3-spt descending shift symmetric-shift; do
    for mask in full causal; do
        for heads in 1 4 16; do
            if [ "$heads" = 1 ]; then n=32; else n=16; fi
            if [ "$mask" = full ]; then
                shape=(--kv-tiles $n --q-tiles $n)
            else
                # size_one_head = Sq*(d+dv)*2 + Sq*d*4 = Sq*1024 bytes (hdim 128, Sq = 2N*64);
                # S_w = 2^floor(log2(40 MiB / size_one_head)): 8 for Sq 4096, 16 for Sq 2048
                sq=$((2 * n * 64))
                sw=1
                while [ $((sw * 2 * sq * 1024)) -le $((40 * 1024 * 1024)) ]; do sw=$((sw * 2)); done
                shape=(--kv-tiles $n --q-tiles $((2 * n)) --tile-ratio 2 --head-swizzle $sw)
            fi
            for ratio in 1 3 8; do
                for reduce in serial async; do
                    f="$out/$policy-$mask-h$heads-r$ratio-$reduce.plan"
                    set +e
                    "$sim" --policy "$policy" --n 132 --heads "$heads" --mask "$mask" "${shape[@]}" \
                        --c $((ratio * r_ns)) --r $r_ns --latency 600 --reduce "$reduce" --emit-plan "$f" \
                        >/dev/null 2>"$f.err"
                    rc=$?
                    set -e
                    if [ $rc = 0 ]; then
                        n_ok=$((n_ok + 1))
                        rm -f "$f.err"
                    elif [ $rc = 2 ] && grep -q "not defined for" "$f.err"; then
                        n_skip=$((n_skip + 1))
                        rm -f "$f" "$f.err"
                    else
                        cat "$f.err" >&2
                        exit 1
                    fi
                done
            done
        done
    done
done
echo "make-plans: $n_ok plans in $out ($n_skip policy/mask combinations skipped: not defined)"
