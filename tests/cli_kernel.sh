#!/bin/bash
# Kernel profiles and the one costing path (issue 22, docs/profile.md): the committed profile is what
# `sim calibrate --kernel` makes of the committed traces; the shape front end, a config and validate give the
# same times for the same shape; the evidence predictions committed before the device run are what the
# profile still predicts; --predict counts unpredicted traces as misses; every bad input is one sentence.
. "$(dirname "$0")/lib.sh"
sim=$1
root=$(cd "$(dirname "$0")/.." && pwd)

# The committed profile, byte for byte, from the committed traces and runs.
expect_exit kernel-calibrate 0 "$sim" calibrate --kernel traces/kernel-cal/d128/*.json.gz traces/kernel-cal/d64/*.json.gz \
    --runs traces/kernel-cal/runs-calibration.json --name gpu-bwd -o "$tmp/k.json"
cmp -s "$tmp/k.json" configs/kernels/gpu-bwd.json && ok kernel-profile-reproduced ||
    fail kernel-profile-reproduced "$(diff "$tmp/k.json" configs/kernels/gpu-bwd.json | head -5)"
# the Hopper kernel's profile (call 4, H100) from its 4 committed traces; in sample every schedule within 4%,
# the fa3 order too (it came out 9-10% slow before a running reduction stopped being lengthened by its SM's
# dK/dV write: docs/profile.md, "The Hopper kernel's fa3 order")
expect_exit kernel-calibrate-wgmma 0 "$sim" calibrate --kernel traces/kernel-wg/h100/traces/*.json.gz --write-rule start \
    --fixed-from gpu-bwd --clock-dip --turn-jitter --sustained traces/kernel-wg-h200/sustained/fit-d128.json \
    -o "$tmp/kw.json"
# (the slowdown under sustained load is the H200's, no H100 having been lent: the profile's source says so)
cmp -s "$tmp/kw.json" configs/kernels/gpu-bwd-wgmma.json &&
    grep -q 'measured on NVIDIA H200: none measured on NVIDIA H100 80GB HBM3, another GPU' "$tmp/kw.json" &&
    ! grep -q "another GPU" configs/kernels/gpu-bwd-wgmma-h200.json && ok kernel-profile-wgmma-reproduced ||
    fail kernel-profile-wgmma-reproduced "$(diff "$tmp/kw.json" configs/kernels/gpu-bwd-wgmma.json | head -5)"
expect_exit kernel-validate-wgmma 1 "$sim" validate traces/kernel-wg/h100/traces/*.json.gz --predict --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); e = {t["policy"]: t["predicted"]["makespan_error"] for t in d["traces"]
                                         if "d128" in t["trace"]}
assert d["not_predicted"] == 0 and abs(e["symmetric-shift"]) < 0.04 and abs(e["fa3"]) < 0.03, e
' "$tmp/out" && ok kernel-wgmma-in-sample || fail kernel-wgmma-in-sample "$(head -c 300 "$tmp/out")"

# The H200 pair: the hardware profile from its raw files, byte for byte; the Hopper kernel's H200 profile predicts
# the 15 evidence shapes run after their predictions were committed (traces/kernel-wg-h200) within issue 31's
# targets: time median <= 2%, max <= 5%, speedup over fa3 median <= 2 pp, max <= 5 pp.
expect_exit h200-profile 0 "$sim" calibrate traces/h200-calib/calib-profile-raw.json --load \
    traces/h200-calib/calib-profile-raw.json --clock traces/h200-calib/calib-steady-raw.json \
    --steady traces/h200-calib/calib-steady-raw.json -o "$tmp/h200.json"
cmp -s "$tmp/h200.json" configs/profiles/h200-sxm.json && ok h200-profile-reproduced ||
    fail h200-profile-reproduced "$(diff "$tmp/h200.json" configs/profiles/h200-sxm.json | head -5)"
# the Hopper kernel's H200 profile from its 20 committed calibration traces and timed runs, byte for byte (with
# the write slope: each dK/dV write slower by write_slope_ns per other SM's write in flight at its start; and the
# slowdown under sustained load that scripts/fit-sustained.py fitted to call 53's long launches, at d 128 alone; the
# turn's jitter at d 64 alone, where a waited chain step outlasts a compute step; and the waited step's growth with the
# reductions in flight, 3.1 ns a reduction at d 128 about 56 in flight, 1.1 at d 64 about 73: docs/profile.md)
expect_exit h200-kernel-calibrate 0 "$sim" calibrate --kernel traces/kernel-wg-h200/calibration/d128/*.json.gz \
    traces/kernel-wg-h200/calibration/d64/*.json.gz --runs traces/kernel-wg-h200/wgmma-calibration.json --write-rule start \
    --stages traces/kernel-wg-h200/stages/stages.json --clock-dip --sustained traces/kernel-wg-h200/sustained/fit-d128.json \
    --turn-jitter --waited-slope --name gpu-bwd-wgmma-h200 -o "$tmp/kh200.json"
cmp -s "$tmp/kh200.json" configs/kernels/gpu-bwd-wgmma-h200.json && grep -q '"write_slope_ns": 19' "$tmp/kh200.json" &&
    [ "$(grep -c '"sustained"' "$tmp/kh200.json")" = 1 ] && [ "$(grep -c '"reduce_turn_jitter_ns": 319' "$tmp/kh200.json")" = 1 ] &&
    [ "$(grep -c '"reduce_turn_jitter_ns"' "$tmp/kh200.json")" = 1 ] &&
    grep -q '"reduce_waited_slope_ns": 3.113, "reduce_waited_k_ref": 56' "$tmp/kh200.json" &&
    grep -q '"reduce_waited_slope_ns": 1.060, "reduce_waited_k_ref": 73' "$tmp/kh200.json" &&
    ok h200-kernel-profile-reproduced || fail h200-kernel-profile-reproduced "$(diff "$tmp/kh200.json" configs/kernels/gpu-bwd-wgmma-h200.json | head -5)"
# The turn's jitter (docs/profile.md, "The jitter around a turn"): a long full d 64 shift order's rows fall into
# waiting, so it predicts shift slower and fa3 (every turn late) the same; --turn-jitter is a kernel-trace option;
# a bad value is one sentence
sed 's/"reduce_turn_jitter_ns": 319, //' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/nojitter.json"
for k in gpu-bwd-wgmma-h200 "$tmp/nojitter.json"; do
    "$sim" --seqlen 8192 --heads 16 --head-dim 64 --hardware h200-sxm --kernel "$k" --json >"$tmp/jit-$(basename "$k").json" 2>&1
done
python3 -c '
import json, sys
t = [{r["policy"]: r["time_ns"] for r in json.load(open(f))["policies"]} for f in sys.argv[1:]]
assert abs(t[0]["fa3"] / t[1]["fa3"] - 1) < 0.001 and 1.002 * t[1]["shift"] < t[0]["shift"] < 1.02 * t[1]["shift"], t
' "$tmp/jit-gpu-bwd-wgmma-h200.json" "$tmp/jit-nojitter.json.json" && ok turn-jitter-slows-long-d64-shift ||
    fail turn-jitter-slows-long-d64-shift "$(head -c 300 "$tmp/jit-gpu-bwd-wgmma-h200.json")"
expect_error turn-jitter-usage "--turn-jitter goes with --kernel and traces" "$sim" calibrate \
    traces/h200-calib/calib-profile-raw.json --turn-jitter
sed 's/"reduce_turn_jitter_ns": 319/"reduce_turn_jitter_ns": -5/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/badjitter.json"
expect_error turn-jitter-negative "reduce_turn_jitter_ns" "$sim" --seqlen 2048 --heads 8 --kernel "$tmp/badjitter.json"
# The waited step's slope (docs/profile.md, "The waited step and the load"): a full d 64 shift launch busy enough that
# its late rows wait predicts slower with it, and the sparse tail of a short causal fa3 launch faster; --waited-slope
# is a kernel-trace option; a slope beyond 1000 ns a reduction is one sentence
sed -E 's/"reduce_waited_slope_ns": [0-9.]+, "reduce_waited_k_ref": [0-9]+, //' configs/kernels/gpu-bwd-wgmma-h200.json \
    >"$tmp/noslope.json"
for k in gpu-bwd-wgmma-h200 "$tmp/noslope.json"; do
    "$sim" --seqlen 8192 --heads 16 --head-dim 64 --hardware h200-sxm --kernel "$k" --json >"$tmp/sl-$(basename "$k")-full.json" 2>&1
    "$sim" --seqlen 1536 --heads 13 --head-dim 64 --mask causal --hardware h200-sxm --kernel "$k" --policy fa3 --json \
        >"$tmp/sl-$(basename "$k")-short.json" 2>&1
done
python3 -c '
import json, sys
t = [{r["policy"]: r["time_ns"] for r in json.load(open(f))["policies"]} for f in sys.argv[1:]]
assert t[0]["shift"] > t[1]["shift"] and t[2]["fa3"] < t[3]["fa3"], t
' "$tmp/sl-gpu-bwd-wgmma-h200-full.json" "$tmp/sl-noslope.json-full.json" "$tmp/sl-gpu-bwd-wgmma-h200-short.json" \
    "$tmp/sl-noslope.json-short.json" && ok waited-slope-direction || fail waited-slope-direction "$(head -c 300 "$tmp/sl-noslope.json-full.json")"
expect_error waited-slope-usage "--waited-slope goes with --kernel and traces" "$sim" calibrate \
    traces/h200-calib/calib-profile-raw.json --waited-slope
sed 's/"reduce_waited_slope_ns": 1.060/"reduce_waited_slope_ns": 5000/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/badslope.json"
expect_error waited-slope-range "reduce_waited_slope_ns" "$sim" --seqlen 2048 --heads 8 --kernel "$tmp/badslope.json"
sed 's/"gpu": "NVIDIA H200"/"gpu": 7/' traces/kernel-wg-h200/sustained/fit-d128.json >"$tmp/fitgpu.json"
expect_error sustained-gpu-not-text "/gpu" "$sim" calibrate --kernel traces/kernel-wg/h100/traces/*.json.gz \
    --write-rule start --fixed-from gpu-bwd --clock-dip --sustained "$tmp/fitgpu.json"
# --sustained: one sentence and exit 2 for a misuse or a bad file (no clock dip, a head dim no trace has, a key out of range)
k128="traces/kernel-wg-h200/calibration/d128/fa3-causal-s4096-b1-h16-kv4-d128.json.gz"
expect_error sustained-needs-clock-dip "--sustained goes with --clock-dip" "$sim" calibrate --kernel "$k128" \
    --sustained traces/kernel-wg-h200/sustained/fit-d128.json
sed 's/"head_dim": 128/"head_dim": 64/' traces/kernel-wg-h200/sustained/fit-d128.json >"$tmp/fit64.json"
expect_error sustained-head-dim-absent "head dim 64, which none of the traces has" "$sim" calibrate --kernel "$k128" \
    --clock-dip --sustained "$tmp/fit64.json"
sed 's/"per_u": [0-9.]*/"per_u": 3/' traces/kernel-wg-h200/sustained/fit-d128.json >"$tmp/fit-wild.json"
expect_error sustained-out-of-range "/sustained/per_u" "$sim" calibrate --kernel "$k128" --clock-dip --sustained "$tmp/fit-wild.json"
sed 's/"tau_ms": [0-9]*/"tau_ms": 70, "tau": 1/' traces/kernel-wg-h200/sustained/fit-d128.json >"$tmp/fit-key.json"
expect_error sustained-unknown-key "/sustained/tau: unknown key" "$sim" calibrate --kernel "$k128" --clock-dip --sustained "$tmp/fit-key.json"
# the profile's own sustained object is checked on reading, in one sentence with its path
sed 's/"u0": 0.73/"u0": 7.3/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/bad-sus.json"
expect_error sustained-profile-checked "/tiles/0/clock/sustained/u0" "$sim" --seqlen 4096 --head-dim 128 --mask causal \
    --kernel "$tmp/bad-sus.json"
# Issue 31's targets on an evidence set, predicted by validate from the installed profile of the runs' kernel and GPU:
# NAME RUNS.json RUNS PAIRS DECISIVE [TIME_MEDIAN, default 2%] [TIME_MAX, default 5%] [SPEEDUP_MAX pp, default 5; - for
# none] [SPEEDUP_MEDIAN pp, default issue 31's 2] (every decisive shape's best picked, always)
evidence_targets() {
    "$sim" validate "$2" --predict --json >"$tmp/${1//\//-}.out" 2>/dev/null
    python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["kernel_runs"][0]["summary"]
t, p, n = s["time_error"], s["speedup_error_pp"], [int(x) for x in sys.argv[2:5]]
assert t["n"] == n[0] and t["median_abs"] <= float(sys.argv[5]) and t["max_abs"] <= float(sys.argv[6]), t
assert p["n"] == n[1] and p["median_abs"] <= float(sys.argv[8]) and (sys.argv[7] == "-" or p["max_abs"] <= float(sys.argv[7])), p
assert s["best_picked_right"] == s["decisive_shapes"] == n[2], s
' "$tmp/${1//\//-}.out" "$3" "$4" "$5" "${6:-0.02}" "${7:-0.05}" "${8:-5}" "${9:-2}" && ok "$1" ||
        fail "$1" "$(head -c 400 "$tmp/${1//\//-}.out")"
}
evidence_targets wgmma-evidence-targets traces/kernel-wg-h200/wgmma-evidence.json 54 39 12
# the second set was predicted from today's profile before it ran (traces/kernel-wg-h200/README.md)
evidence_targets wgmma-evidence2-targets traces/kernel-wg-h200/wgmma-evidence2.json 49 35 11
# The m128 variant's H200 profile (128 x 128 tiles at d64) from its 14 committed calibration traces, byte for byte, and
# its 12 evidence shapes, predicted before they ran (traces/kernel-wg-h200/m128/README.md): time median 2.19%, max
# 4.44%, speedup over fa3 median 1.54 pp (max 9.53: issue 31's 5 pp is not met there), every decisive shape right
expect_exit m128-kernel-calibrate 0 "$sim" calibrate --kernel traces/kernel-wg-h200/m128/calibration/d64/*.json.gz \
    --runs traces/kernel-wg-h200/m128/wgmma-m128-calibration.json --write-rule start --name gpu-bwd-wgmma-m128-h200 \
    --stages traces/kernel-wg-h200/stages/stages.json --clock-dip -o "$tmp/km128.json"
cmp -s "$tmp/km128.json" configs/kernels/gpu-bwd-wgmma-m128-h200.json && grep -q '"block_m": 128' "$tmp/km128.json" &&
    ok m128-kernel-profile-reproduced || fail m128-kernel-profile-reproduced "$(diff "$tmp/km128.json" configs/kernels/gpu-bwd-wgmma-m128-h200.json | head -5)"
evidence_targets m128-evidence traces/kernel-wg-h200/m128/wgmma-m128-evidence.json 43 31 11 0.025 0.05 -
# NAME PROFILE (in configs/kernels) DIR [M128]: the H200 profile of a kernel variant, rebuilt from its committed
# calibration traces (DIR/calibration/d128 and d64, or with M128 DIR/m128/calibration/d64) and timed runs, byte for byte
variant_profile() {
    local name=$1 profile=$2 dir=$3 runs traces
    if [ -n "${4:-}" ]; then
        traces=("$dir"/m128/calibration/d64/*.json.gz) runs=$(ls "$dir"/m128/wgmma-*-calibration.json)
    else
        traces=("$dir"/calibration/d128/*.json.gz "$dir"/calibration/d64/*.json.gz) runs=$(ls "$dir"/wgmma-*-calibration.json)
    fi
    expect_exit "$name-kernel-calibrate" 0 "$sim" calibrate --kernel "${traces[@]}" --runs "$runs" --write-rule start \
        --stages traces/kernel-wg-h200/stages/stages.json --clock-dip --name "${profile%.json}" -o "$tmp/$name.json"
    cmp -s "$tmp/$name.json" "configs/kernels/$profile" && ok "$name-kernel-profile-reproduced" ||
        fail "$name-kernel-profile-reproduced" "$(diff "$tmp/$name.json" "configs/kernels/$profile" | head -5)"
}
# The z and y variants' profiles (issue 32, superseded by x, u, t, e) are not rebuilt here, for test time: the command in
# traces/kernel-wg-h200/z/README.md and y/README.md rebuilds each byte for byte (checked when they were made).
# --grouped-medians (docs/profile.md, "The timer's 32-ns step"; not the default: it predicted the held-out runs worse):
# each median of stamp differences as grouped data on the stamps' own grid, found from the stamps. On the H100's d 64
# trace (32-ns stamps) the phase medians leave the grid, each within a step of the plain one; the same trace with one
# stamp moved by 1 ns has no grid and fits the plain medians.
g1=traces/kernel-wg/h100/traces/wgmma-fa3-causal-s4096-bh16-d64.json.gz
python3 -c '
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1])); d["tasks"][0][d["columns"].index("b_exit")] += 1
json.dump(d, open(sys.argv[2], "w"))
' "$g1" "$tmp/g1-ns.json"
"$sim" calibrate --kernel "$g1" --fixed-from gpu-bwd -o "$tmp/g1-plain.json" &&
    "$sim" calibrate --kernel "$g1" --fixed-from gpu-bwd --grouped-medians -o "$tmp/g1-grouped.json" &&
    "$sim" calibrate --kernel "$tmp/g1-ns.json" --fixed-from gpu-bwd --grouped-medians -o "$tmp/g1-ns-grouped.json" &&
    python3 - "$tmp/g1-plain.json" "$tmp/g1-grouped.json" "$tmp/g1-ns-grouped.json" <<'PY' && ok kernel-grouped-medians-resolution || fail kernel-grouped-medians-resolution "$(head -c 300 "$tmp/g1-grouped.json")"
import json, sys
p, g, n = (json.load(open(f)) for f in sys.argv[1:])
assert "32-ns grid" in g["source"] and "1-ns grid" in n["source"] and "grid" not in p["source"], (g["source"], n["source"])
phases = ("deposit_ns", "reduce_read_ns", "reduce_tail_ns", "reduce_read_waited_ns", "reduce_tail_waited_ns", "handoff_ns",
          "cta_prologue_ns")
tp, tg = p["tiles"][0], g["tiles"][0]
assert all(tp[k] % 16 == 0 and abs(tg[k] - tp[k]) < 32 for k in phases), [(tp[k], tg[k]) for k in phases]
assert sum(tg[k] % 32 != 0 for k in phases) >= 5, [tg[k] for k in phases]
assert n["tiles"] == p["tiles"], (n["tiles"], p["tiles"])
PY
expect_error kernel-grouped-medians-usage "--grouped-medians goes with --kernel and traces" "$sim" calibrate \
    traces/h200-calib/calib-profile-raw.json --grouped-medians
# Evidence set 3 (session 5: 14 shapes no kernel had run), predicted by the default's and m128's H200 profiles before
# the run (traces/kernel-wg-h200/README.md): every target of issue 31 met, the speedup maxima too (m128's set, README's
# command, is not re-checked here for test time: em128 replaced m128)
evidence_targets wgmma-evidence3-targets traces/kernel-wg-h200/wgmma-evidence3.json 50 36 11
# The x variants (y with the task record prefetched, LSE and dS^T by ld/st.shared; issue 32, call 20): profiles byte for
# byte from their committed calibration traces. (Their evidence, traces/kernel-wg-h200/x/README.md, misses issue 31's
# speedup median at d 128, 3.35 / 2.13 pp: the fa3 order 3-5% slower than x's profile says; u, below, replaced x.)
variant_profile x gpu-bwd-wgmma-x-h200.json traces/kernel-wg-h200/x
# wm128 (xm128 with LSE and Delta read before the wgmma waits; call 22): its profile byte for byte, its evidence predicted
# first (traces/kernel-wg-h200/w/README.md): set 1 within issue 31's targets but the speedup max (6.78 pp, the shortest
# causal shape), set 3 within all of them (not re-checked here for test time: em128 replaced wm128)
variant_profile wm128 gpu-bwd-wgmma-wm128-h200.json traces/kernel-wg-h200/w m128
evidence_targets w/wm128-evidence traces/kernel-wg-h200/w/m128/wgmma-wm128-evidence.json 43 31 10 0.02 0.05 -
# u (x with two store warps at head dim 128; call 24), the kernel dash_attn runs at d 128 on an H200: its profile byte for
# byte, its three evidence sets predicted first (traces/kernel-wg-h200/u/README.md): time and speedup medians and every
# pick within issue 31's targets; the speedup maxima of sets 1 and 2 too since its two store warps are modelled (3.26,
# 4.77 pp; docs/profile.md "Store warps"), not set 3's (6.18 pp: causal 6656 GQA d 64)
variant_profile u gpu-bwd-wgmma-u-h200.json traces/kernel-wg-h200/u
# Store warps (docs/profile.md): calibrate writes a tile's store_warps from its traces' metadata (u: 2 at both head
# dims; x: 2 at d 64 only; a tile of one store warp has no key); the same profile without the key (one store engine)
# predicts fa3 slower at a d 64 shape whose SM's reductions overlap on two; traces of one head dim that disagree are
# an error
[ "$(grep -c '"store_warps": 2' "$tmp/u.json")" = 2 ] && [ "$(grep -c '"store_warps"' "$tmp/x.json")" = 1 ] &&
    ok kernel-store-warps-calibrated || fail kernel-store-warps-calibrated "$(grep -c store_warps "$tmp/u.json" "$tmp/x.json")"
sed 's/ "store_warps": 2,//' "$tmp/u.json" >"$tmp/u-sw1.json"
for k in u u-sw1; do
    "$sim" --seqlen 2048 --heads 16 --head-dim 64 --mask full --kernel "$tmp/$k.json" --hardware h200-sxm --json \
        >"$tmp/$k-shape.json"
done
python3 -c '
import json, sys
t = [{p["policy"]: p["time_ns"] for p in json.load(open(f))["policies"]} for f in sys.argv[1:]]
assert t[0]["fa3"] < t[1]["fa3"] and all(t[0][p] <= t[1][p] for p in t[0]), t
' "$tmp/u-shape.json" "$tmp/u-sw1-shape.json" && grep -q "2 store warps" <("$sim" --seqlen 2048 --heads 16 \
    --head-dim 64 --mask full --kernel "$tmp/u.json" --hardware h200-sxm) && ok kernel-store-warps-predict ||
    fail kernel-store-warps-predict "$(head -c 300 "$tmp/u-shape.json")"
u128=(traces/kernel-wg-h200/u/calibration/d128/fa3-full-s1024-b8-h16-kv16-d128.json.gz
      traces/kernel-wg-h200/u/calibration/d128/shift-full-s1024-b8-h16-kv16-d128.json.gz)
zcat "${u128[1]}" | sed 's/"store_warps":2/"store_warps":1/' >"$tmp/sw1-shift.json"
expect_error kernel-store-warps-disagree "store_warps 1, but .* at the same head dim (128) has 2" "$sim" calibrate \
    --kernel "${u128[0]}" "$tmp/sw1-shift.json" --write-rule start -o "$tmp/ksw.json"
[ ! -e "$tmp/ksw.json" ] && ok kernel-store-warps-disagree-no-file || fail kernel-store-warps-disagree-no-file "left behind"
# perfetto lays a 2-store-warp trace on one track per store warp: no two measured reductions of a track overlap (on
# one store track, 2074 did)
"$sim" perfetto "${u128[0]}" -o "$tmp/sw-view.json" >/dev/null && python3 -c '
import json, sys, collections
ev = json.load(open(sys.argv[1]))["traceEvents"]
assert any(e.get("ph") == "M" and e["args"].get("name") == "SM 0 reduction store 2" for e in ev)
track = collections.defaultdict(list)
for e in ev:
    if e.get("ph") == "X":
        track[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
over = sum(b[0] < a[1] - 1e-6 for v in track.values() for a, b in zip(sorted(v), sorted(v)[1:]))
assert over == 0, over
' "$tmp/sw-view.json" && ok kernel-store-warps-tracks || fail kernel-store-warps-tracks "$(head -c 200 "$tmp/sw-view.json")"
# The CTA turnover (docs/profile.md, "The CTA turnover"; not the default: it predicted the held-out runs worse):
# calibrate --kernel --cta-gap writes cta_gap_ns, the median of a block's entry less its SM's previous block's last op
# end (u: 320 ns at d 64, 512 at d 128), the default none (u's profile above, byte for byte); the engine adds it to every
# CTA that starts on an SM another CTA left: at causal 4096 GQA d 64 (512 CTAs, at most 4 an SM) each non-persistent
# order's makespan grows by 1 to 4 gaps, the persistent symmetric-shift's not at all
"$sim" calibrate --kernel traces/kernel-wg-h200/u/calibration/d128/*.json.gz traces/kernel-wg-h200/u/calibration/d64/*.json.gz \
    --runs traces/kernel-wg-h200/u/wgmma-u-calibration.json --write-rule start --name gpu-bwd-wgmma-u-h200 --cta-gap --clock-dip \
    --stages traces/kernel-wg-h200/stages/stages.json \
    -o "$tmp/u-gap.json" && for k in u u-gap; do
    "$sim" --seqlen 4096 --heads 16 --kv-heads 4 --head-dim 64 --mask causal --kernel "$tmp/$k.json" \
        --hardware h200-sxm --json >"$tmp/$k-gap-shape.json"
done && python3 - "$tmp/u.json" "$tmp/u-gap.json" "$tmp/u-gap-shape.json" "$tmp/u-gap-gap-shape.json" <<'PY' &&
import json, sys
u, g = (json.load(open(f)) for f in sys.argv[1:3])
assert all("cta_gap_ns" not in t for t in u["tiles"]), u["tiles"]
assert [t["cta_gap_ns"] for t in g["tiles"]] == [512, 320], g["tiles"]
assert [dict(t, cta_gap_ns=0) for t in g["tiles"]] == [dict(t, cta_gap_ns=0) for t in u["tiles"]]
a, b = ({p["policy"]: p["makespan_ns"] for p in json.load(open(f))["policies"]} for f in sys.argv[3:])
assert b["symmetric-shift"] == a["symmetric-shift"], (a, b)
assert all(320 <= b[p] - a[p] <= 4 * 320 for p in ("fa3", "fa3-spt", "descending")), (a, b)
PY
    ok kernel-cta-gap || fail kernel-cta-gap "$(grep -h cta_gap "$tmp/u-gap.json" | head -c 300)"
expect_error kernel-cta-gap-usage "--cta-gap goes with --kernel and traces" "$sim" calibrate \
    traces/h200-calib/calib-profile-raw.json --cta-gap
# t (u with the LSE and Delta read before the wgmma waits; call 26), what dash_attn ran at d 128 before e: its profile
# byte for byte (its evidence sets, with their commands, in traces/kernel-wg-h200/t/README.md; for test time they are
# not re-checked here since e replaced it)
variant_profile t gpu-bwd-wgmma-t-h200.json traces/kernel-wg-h200/t
# e and em128 (t and wm128 with the LSE read before S^T and dP^T are issued; call 29), the kernels dash_attn runs on an
# H200 since: their profiles byte for byte (their evidence, predicted first: traces/kernel-wg-h200/e/README.md)
variant_profile e gpu-bwd-wgmma-e-h200.json traces/kernel-wg-h200/e
variant_profile em128 gpu-bwd-wgmma-em128-h200.json traces/kernel-wg-h200/e m128
# The group sums' own rate (docs/profile.md, "The group sums' own rate"; the committed profiles take the stage tables
# below instead): without --stages, with GQA calibration traces at two head dims it is pooled from the recorded
# launches' post stage, so both of e's tiles charge a group-sum MiB alike (all + gqa), at 250-400 ns; a negative gqa
# rate reads, a negative all rate is refused
"$sim" calibrate --kernel traces/kernel-wg-h200/e/calibration/d128/*.json.gz traces/kernel-wg-h200/e/calibration/d64/*.json.gz \
    --runs traces/kernel-wg-h200/e/wgmma-e-calibration.json --write-rule start -o "$tmp/e-lines.json" && python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tiles"]; r = [x["fixed"]["all"]["ns_per_mib"] + x["fixed"]["gqa"]["ns_per_mib"] for x in t]
assert len(r) == 2 and abs(r[0] - r[1]) < 1e-6 and 250 < r[0] < 400 and min(x["fixed"]["gqa"]["ns_per_mib"] for x in t) < 0, r
assert all("stages" not in x["fixed"] for x in t)
' "$tmp/e-lines.json" && ok kernel-gqa-rate-pooled || fail kernel-gqa-rate-pooled "e's tiles"
# JSON edits of a profile: PATH=VALUE (a path of keys and indices, the value JSON)
edit_profile() {
    python3 - "$@" <<'PY'
import json, sys
k = json.load(open(sys.argv[1]))
for a in sys.argv[3:]:
    path, value = a.split("=", 1)
    *keys, last = [int(x) if x.isdigit() else x for x in path.split("/")]
    o = k
    for x in keys:
        o = o[x]
    o[last] = json.loads(value)
json.dump(k, open(sys.argv[2], "w"))
PY
}
edit_profile "$tmp/e-lines.json" "$tmp/neg.json" "tiles/0/fixed/all/ns_per_mib=-298.5"
expect_error kernel-negative-rate "/tiles/0/fixed/all/ns_per_mib: must be a number from 0 to 1e+08" "$sim" --seqlen 1024 \
    --heads 4 --head-dim 128 --mask causal --kernel "$tmp/neg.json"
# The fixed stages at the sizes people run (docs/profile.md): the committed H200 profiles carry the stages timed alone
# (bin/gpu-bwd-stages, call 36: 16k-4M rows) as tables, and fixed keeps the launch's rest. (1) The front end's fixed
# cost is the base plus each table read by hand (linear between points, the last two beyond), at sizes inside, between
# and beyond the sweep, with and without GQA; (2) at diag-short's shape (causal s1792 b8 h24 kv8 d 64, no calibration
# used it), e's fixed cost is within 5 us of the median launch less span of its four traced policies (158-177 us),
# where the line over MiB from the same calibration (above) is 15 us off
python3 - "$sim" configs/kernels/gpu-bwd-wgmma-h200.json <<'PY' && ok kernel-stage-tables || fail kernel-stage-tables "see above"
import bisect, json, subprocess, sys
sim, prof = sys.argv[1:3]
tiles = {t["head_dim"]: t["fixed"] for t in json.load(open(prof))["tiles"]}
def table(tab, x):
    xs = [a for a, _ in tab]
    i = min(max(bisect.bisect_left(xs, x), 1), len(tab) - 1)
    (x0, y0), (x1, y1) = tab[i - 1], tab[i]
    return max(0.0, y0 + (y1 - y0) * (x - x0) / (x1 - x0))
for m, s, b, h, kv, d in (("causal", 1024, 1, 8, 8, 64), ("causal", 1024, 16, 12, 4, 128), ("full", 128, 40, 1024, 128, 128),
                          ("full", 256, 64, 20, 20, 64)):
    f = tiles[d]
    rows = b * h * s
    want = f["all"]["base_ns"] + table(f["stages"], rows)
    if kv < h:
        want += table(f["sums"], (rows * d * 8 + b * kv * s * d * 4) / 2**20)
    out = subprocess.run([sim, "--seqlen", str(s), "--batch", str(b), "--heads", str(h), "--kv-heads", str(kv),
                          "--head-dim", str(d), "--mask", m, "--kernel", prof, "--policy", "fa3", "--json",
                          "--max-memory-mb", "16000"], capture_output=True, text=True, check=True).stdout
    got = json.loads(out)["fixed_ns"]
    assert got == round(want), (s, b, h, kv, d, got, want)
PY
python3 - "$sim" configs/kernels/gpu-bwd-wgmma-e-h200.json "$tmp/e-lines.json" <<'PY' && ok kernel-stages-diag-short ||
import glob, gzip, json, statistics, subprocess, sys
runs = json.load(open("traces/kernel-wg-h200/diag-short/runs-e.json"))["records"]
over = []
for f in sorted(glob.glob("traces/kernel-wg-h200/diag-short/e/*.json.gz")):
    d = json.load(gzip.open(f)); c = d["columns"]
    span = max(t[c.index("r_end")] for t in d["tasks"]) - min(t[c.index("c_start")] for t in d["tasks"])
    pol = f.split("/")[-1].split("-causal")[0]
    over.append([r for r in runs if r["policy"] == pol and r["mode"] == "deterministic"][0]["ms"] * 1e6 - span)
fixed = [json.loads(subprocess.run([sys.argv[1], "--seqlen", "1792", "--batch", "8", "--heads", "24", "--kv-heads", "8",
         "--head-dim", "64", "--mask", "causal", "--kernel", k, "--json"], capture_output=True, text=True,
         check=True).stdout)["fixed_ns"] for k in sys.argv[2:4]]
m = statistics.median(over)
assert len(over) == 4 and abs(fixed[0] - m) <= 5000 and abs(fixed[1] - m) > 10000, (over, fixed)
PY
    fail kernel-stages-diag-short "e's fixed cost at diag-short"
# bad stage input: a sweep of another GPU, a GQA point without its group-1 partner, one size, --stages with
# --fixed-from; a profile table out of order or of one point
python3 - traces/kernel-wg-h200/stages/stages.json "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def put(name, doc):
    json.dump(doc, open(f"{sys.argv[2]}/{name}", "w"))
put("st-gpu.json", dict(d, metadata=dict(d["metadata"], gpu_name="NVIDIA H100 80GB HBM3")))
put("st-lone.json", dict(d, points=[p for p in d["points"] if not (p["group"] == 1 and p["rows"] == 65536)]))
put("st-one.json", dict(d, points=[p for p in d["points"] if p["head_dim"] == 128 or (p["group"], p["rows"]) == (1, 65536)]))
put("st-format.json", dict(d, format="dashsim-kernel-runs"))
PY
cal_stages() { "$sim" calibrate --kernel traces/kernel-wg-h200/m128/calibration/d64/*.json.gz --runs \
    traces/kernel-wg-h200/m128/wgmma-m128-calibration.json --write-rule start "$@"; }
expect_error kernel-stages-gpu "st-gpu.json: /metadata/gpu_name: NVIDIA H100 80GB HBM3 is not the traces' GPU (NVIDIA H200)" \
    cal_stages --stages "$tmp/st-gpu.json" -o "$tmp/stages-out.json"
expect_error kernel-stages-partner "st-lone.json: /points/" cal_stages --stages "$tmp/st-lone.json" -o "$tmp/stages-out.json"
expect_error kernel-stages-one-size "st-one.json: 1 sizes for head dim 64 at group 1: a stage table needs 2 to 64" \
    cal_stages --stages "$tmp/st-one.json" -o "$tmp/stages-out.json"
expect_error kernel-stages-format 'st-format.json: /format: must be "dashsim-kernel-stages"' \
    cal_stages --stages "$tmp/st-format.json" -o "$tmp/stages-out.json"
expect_error kernel-stages-fixed-from "--stages goes with --kernel and traces, not --fixed-from" "$sim" calibrate --kernel \
    traces/kernel-wg/h100/traces/*.json.gz --fixed-from gpu-bwd --stages traces/kernel-wg-h200/stages/stages.json
[ ! -e "$tmp/stages-out.json" ] && ok kernel-stages-no-output || fail kernel-stages-no-output "an output file was left behind"
edit_profile configs/kernels/gpu-bwd-wgmma-h200.json "$tmp/tab-order.json" "tiles/0/fixed/stages/1=[16384, 1]"
expect_error kernel-stages-table-order "/tiles/0/fixed/stages/1: must be .x, ns., x above the previous point" "$sim" \
    --seqlen 1024 --heads 4 --head-dim 128 --mask causal --kernel "$tmp/tab-order.json"
edit_profile configs/kernels/gpu-bwd-wgmma-h200.json "$tmp/tab-one.json" "tiles/0/fixed/sums=[[10, 5]]"
expect_error kernel-stages-table-one "/tiles/0/fixed/sums: a stage table needs at least 2 points" "$sim" \
    --seqlen 1024 --heads 4 --head-dim 128 --mask causal --kernel "$tmp/tab-one.json"
# ... but not a group-sum rate below zero in all (all + gqa), nor a write-extra slope where the write rule cannot apply it
edit_profile "$tmp/e-lines.json" "$tmp/neg-gqa.json" 'tiles/0/fixed/gqa={"base_ns": 1, "ns_per_mib": -400}'
expect_error kernel-negative-gqa-total "/tiles/0/fixed/gqa/ns_per_mib: the group sums' rate" "$sim" --seqlen 1024 \
    --heads 4 --head-dim 128 --mask causal --kernel "$tmp/neg-gqa.json"
python3 -c '
import json, sys
k = json.load(open(sys.argv[1])); k["tiles"][0]["overlap"]["write_extra_slope_ns"] = 5; k["geometry"]["write_rule"] = "overlap"
json.dump(k, open(sys.argv[2], "w"))
' configs/kernels/gpu-bwd-wgmma-e-h200.json "$tmp/slope-overlap.json"
expect_error kernel-slope-overlap-rule "write_extra_slope_ns: applies only under /geometry/write_rule" "$sim" --seqlen 1024 \
    --heads 4 --head-dim 128 --mask causal --kernel "$tmp/slope-overlap.json"
# Evidence 4 (call 32: 14 shapes, predicted first, run on one card with that card's calibration;
# traces/kernel-wg-h200/evidence4/README.md) and evidence 5 (call 34, predicted first; evidence5/README.md): the default
# kernel within every target of issue 31 with the stage tables (their time maxima were 5.29% and 4.84%, evidence 5's
# median 2.12%, with the fixed costs' line over MiB extrapolated beyond the calibration's 28-224 MiB)
evidence_targets evidence4-default traces/kernel-wg-h200/evidence4/wgmma-evidence4-default.json 50 36 12
evidence_targets evidence5-default traces/kernel-wg-h200/evidence5/wgmma-evidence5-default.json 50 36 11
# Evidence 6 (call 37, predicted first with the stage tables) and 7 (call 39, predicted first with the penalty measured
# within each trace): the default within every target (evidence 7 as predicted: 0.92% / 2.19%, 0.91 / 3.37 pp; with the
# clock dip at launch, session 10: 0.41% / 2.57%, 0.79 / 3.48 pp)
evidence_targets evidence6-default traces/kernel-wg-h200/evidence6/wgmma-evidence6-default.json 50 36 10
evidence_targets evidence7-default traces/kernel-wg-h200/evidence7/wgmma-evidence7-default.json 50 36 11 0.006 0.026
python3 scripts/compare-runs.py traces/kernel-wg-h200/e/wgmma-e-evidence.json \
    traces/kernel-wg-h200/evidence4/rerun/ev1-e-wgmma-evidence.json >"$tmp/cards.txt" 2>&1 &&
    grep -q '^all .* n  54  |ratio - 1| median 0.45%, max 4.30%' "$tmp/cards.txt" && ok evidence4-card-to-card ||
    fail evidence4-card-to-card "$(cat "$tmp/cards.txt")"
# (trace folders pair by file name: `python3 scripts/compare-runs.py traces/h200-predict
# traces/kernel-wg-h200/evidence4/exec-grid`, the executor's grid on two cards, n 56, median 0.56%, max 1.70%; not
# re-run here for test time)
# two calibration runs of em128 (call 29's committed profile, call 32's from evidence4/calibration) predict evidence 4
# within a tenth of a percent (a percent apart while the overlap penalty was fitted across traces: 32 ns in one, 0 in
# the other; scripts/compare-profiles.py; docs/profile.md, "The overlap penalty within a trace"); with the clock dip
# fitted to each run's traces, 0.28% / 0.39%: the two cards' dips differ a little (docs/profile.md, "The clock dip")
"$sim" calibrate --kernel traces/kernel-wg-h200/evidence4/calibration/em128/d64/*.json.gz --runs \
    traces/kernel-wg-h200/evidence4/calibration/wgmma-em128-calibration.json --write-rule start \
    --stages traces/kernel-wg-h200/stages/stages.json --clock-dip --name gpu-bwd-wgmma-em128-h200 -o "$tmp/em32.json" && python3 scripts/compare-profiles.py --sim "$sim" \
    configs/kernels/gpu-bwd-wgmma-em128-h200.json "$tmp/em32.json" traces/kernel-wg-h200/evidence4/wgmma-evidence4-em128.json \
    >"$tmp/profiles.txt" 2>&1 && grep -q 'n  25  |second / first - 1| median 0.28%, max 0.39%' "$tmp/profiles.txt" &&
    ok two-calibration-runs || fail two-calibration-runs "$(cat "$tmp/profiles.txt")"
expect_error compare-profiles-usage "give FIRST.json SECOND.json RUNS.json" python3 scripts/compare-profiles.py a b
expect_error compare-runs-unpaired "give pairs of runs files" python3 scripts/compare-runs.py \
    traces/kernel-wg-h200/e/wgmma-e-evidence.json
# The write extra by writes in flight (docs/profile.md, "The write extra and the writes in flight"; not the default:
# it predicted the held-out runs worse): calibrate --kernel --write-extra-slope fits em128's reductions that start
# inside a dK/dV write as 874 ns + 18 ns per other SM's write in flight (one median: 1280), the default none (em128's
# profile above, byte for byte); the engine then ends fa3-spt's CTAs sooner at causal 4096 GQA d 64 (few writes in
# flight) and lengthens the symmetric-shift order's write waves
"$sim" calibrate --kernel traces/kernel-wg-h200/e/m128/calibration/d64/*.json.gz --write-rule start --write-extra-slope \
    --runs traces/kernel-wg-h200/e/m128/wgmma-em128-calibration.json --name gpu-bwd-wgmma-em128-h200 --clock-dip \
    --stages traces/kernel-wg-h200/stages/stages.json -o "$tmp/em128-wes.json" && for k in em128 em128-wes; do
    "$sim" --seqlen 4096 --heads 16 --kv-heads 4 --head-dim 64 --mask causal --kernel "$tmp/$k.json" \
        --hardware h200-sxm --json >"$tmp/$k-shape.json"
done && python3 - "$tmp/em128.json" "$tmp/em128-wes.json" "$tmp/em128-shape.json" "$tmp/em128-wes-shape.json" <<'PY' &&
import json, sys
e, w = (json.load(open(f))["tiles"][0] for f in sys.argv[1:3])
assert "write_extra_slope_ns" not in e["overlap"] and e["overlap"]["write_extra_ns"] == 1280, e["overlap"]
assert (w["overlap"]["write_extra_ns"], w["overlap"]["write_extra_slope_ns"]) == (874, 18), w["overlap"]
strip = lambda t: dict(t, overlap={k: v for k, v in t["overlap"].items() if not k.startswith("write_extra")})
assert strip(w) == strip(e)
a, b = ({p["policy"]: p["makespan_ns"] for p in json.load(open(f))["policies"]} for f in sys.argv[3:])
assert b["fa3-spt"] < a["fa3-spt"] and b["symmetric-shift"] > a["symmetric-shift"], (a, b)
PY
    ok kernel-write-extra-slope || fail kernel-write-extra-slope "$(grep -h write_extra "$tmp/em128-wes.json" | head -c 300)"
expect_error kernel-write-extra-slope-usage "--write-extra-slope goes with --kernel, traces and --write-rule start" \
    "$sim" calibrate --kernel traces/kernel-wg-h200/e/m128/calibration/d64/*.json.gz --write-extra-slope
# The write extra by the time into the write (docs/profile.md; not the default: mixed on the held-out sets):
# calibrate --kernel --write-extra-window fits the default's reductions that start inside a dK/dV write as two medians
# split at the best window, 1824 ns in the first 1500 ns at d 128 and 352 after it, 1088 / 750 / 160 at d 64 (one
# median: 1280, 704); the rest of the profile is the committed one's; the fa3 order at causal 4096 GQA d 128 moves
# from 923203 to 923248 ns (925944 to 928144 before the waited step's slope, 933504 to 935824 before the clock dip). The
# keys are refused under the overlap rule.
"$sim" calibrate --kernel traces/kernel-wg-h200/calibration/d128/*.json.gz traces/kernel-wg-h200/calibration/d64/*.json.gz \
    --runs traces/kernel-wg-h200/wgmma-calibration.json --write-rule start --stages traces/kernel-wg-h200/stages/stages.json \
    --write-extra-window --clock-dip --sustained traces/kernel-wg-h200/sustained/fit-d128.json --turn-jitter --waited-slope \
    --name gpu-bwd-wgmma-h200 \
    -o "$tmp/win.json" && for k in kh200 win; do
    "$sim" --seqlen 4096 --heads 16 --kv-heads 4 --head-dim 128 --mask causal --kernel "$tmp/$k.json" --policy fa3 \
        --json >"$tmp/$k-fa3.json"
done && python3 - "$tmp/kh200.json" "$tmp/win.json" "$tmp/kh200-fa3.json" "$tmp/win-fa3.json" <<'PY' &&
import json, sys
a, b = (json.load(open(f))["tiles"] for f in sys.argv[1:3])
got = [tuple(t["overlap"][k] for k in ("write_extra_ns", "write_extra_window_ns", "write_extra_late_ns")) for t in b]
assert got == [(1824, 1500, 352), (1088, 750, 160)], got
strip = lambda t: dict(t, overlap={k: v for k, v in t["overlap"].items() if not k.startswith("write_extra")})
assert [strip(t) for t in a] == [strip(t) for t in b] and all("write_extra_window_ns" not in t["overlap"] for t in a)
x, y = (json.load(open(f))["policies"][0]["makespan_ns"] for f in sys.argv[3:5])
assert (x, y) == (923203, 923248), (x, y)
PY
    ok kernel-write-extra-window || fail kernel-write-extra-window "$(grep -h write_extra "$tmp/win.json" | head -c 300)"
expect_error kernel-write-extra-window-usage "--write-extra-window goes with --kernel, traces and --write-rule start" \
    "$sim" calibrate --kernel traces/kernel-wg-h200/e/m128/calibration/d64/*.json.gz --write-extra-window
edit_profile "$tmp/win.json" "$tmp/win-overlap.json" "geometry/write_rule=\"overlap\""
expect_error kernel-window-overlap-rule "overlap/write_extra_window_ns: applies only under /geometry/write_rule" "$sim" \
    --seqlen 1024 --heads 4 --head-dim 128 --mask causal --kernel "$tmp/win-overlap.json"
# The overlap penalty within a trace (docs/profile.md): over the default's 10 calibration traces at d 128 the inside
# computes are -101 to +22 ns slower than the outside ones of the same trace (median 4), where the pooled groups gave 32
python3 scripts/overlap-within.py 750 1500 traces/kernel-wg-h200/calibration/d128/*.json.gz >"$tmp/within.txt" 2>&1 &&
    grep -q '^10 traces: differences of means -101.0 to +22.1 ns, median +4.0$' "$tmp/within.txt" &&
    ok overlap-within || fail overlap-within "$(tail -2 "$tmp/within.txt")"
expect_error overlap-within-usage "BEFORE and AFTER are ns" python3 scripts/overlap-within.py a b "$tmp/within.txt"
expect_error overlap-within-bad "not a kernel trace with phase stamps" python3 scripts/overlap-within.py 750 1500 \
    "$tmp/within.txt"
# Per-SM reduction time on two H200 cards (docs/profile.md): at c:r 0.3 the slowest SMs are the same on both cards
mkdir -p "$tmp/cr03a" "$tmp/cr03b" && ln -s "$PWD"/traces/h200-predict/*cr03*async*.json.gz "$tmp/cr03a/" &&
    ln -s "$PWD"/traces/kernel-wg-h200/evidence4/exec-grid/*cr03*async*.json.gz "$tmp/cr03b/" &&
    python3 scripts/executor-per-sm.py "$tmp/cr03a" "$tmp/cr03b" >"$tmp/persm.txt" 2>&1 &&
    grep -q 'cr03a: 9 traces, 132 SMs, slowest SM 1.139x the median SM.*slowest SMs \[0, 2, 14, 8' "$tmp/persm.txt" &&
    grep -q 'correlation of the two cards. per-SM figures: 0.88' "$tmp/persm.txt" && ok executor-per-sm ||
    fail executor-per-sm "$(cat "$tmp/persm.txt")"
expect_error executor-per-sm-empty "no async executor traces" python3 scripts/executor-per-sm.py "$tmp" "$tmp/cr03b"
# The per-SM ring calibration (call 42, docs/profile.md): stable on its card, it carries to the grid's rings (the
# prototype replay takes shift from -11.78% to +3.07%; with the fa3-spt causal s1 trace too, that one goes from -3.79% to
# +8.48%: not re-run here for test time)
python3 scripts/experiments/per-sm-ring.py traces/h200-calib/per-sm traces/h200-predict/shift-full-q132-h2-cr03-async.json.gz \
    >"$tmp/ring.txt" 2>&1 &&
    grep -q '^calibration ldst: 3 runs, slowest SM 1.182x the median SM.*run-to-run correlation 0.99$' "$tmp/ring.txt" &&
    grep -q '^shift-full-q132-h2-cr03-async.json.gz .* ldst  +0.45 | .* -11.78%  +3.07%  -0.47%$' "$tmp/ring.txt" &&
    ok per-sm-ring || fail per-sm-ring "$(cat "$tmp/ring.txt")"
expect_error per-sm-ring-empty "no ring-ldst-async-rep" python3 scripts/experiments/per-sm-ring.py "$tmp" \
    traces/h200-predict/shift-full-q132-h2-cr03-async.json.gz
expect_error per-sm-ring-bad "not an executor trace" python3 scripts/experiments/per-sm-ring.py traces/h200-calib/per-sm \
    "$tmp/ring.txt"
# Short launches (evidence 8, call 41, predicted first; docs/profile.md "Short launches"): the default within issue 31's
# time targets (as predicted 1.23% / 4.86%; with the clock dip 1.03% / 4.18%) and its speedup median (1.83, now 1.16 pp),
# not its 5 pp max (8.85, now 6.74 pp)
evidence_targets evidence8-default traces/kernel-wg-h200/evidence8/wgmma-evidence8-default.json 57 41 10 0.0105 0.042 6.8 1.35
# Evidence 9 (call 46): 14 shapes drawn at random over issue 31's ranges, predicted first: every target of the issue (as
# predicted 0.56% / 2.00%, 0.81 / 3.61 pp; with the clock dip 0.55% / 2.39%, 0.60 / 2.91 pp)
evidence_targets evidence9-default traces/kernel-wg-h200/evidence9/wgmma-evidence9-default.json 52 38 11 0.006 0.024 3.0 0.75
python3 scripts/kernel-first-compute.py traces/kernel-wg-h200/evidence8/traces/d64/fa3-causal-s3072-b1-h4-kv4-d64.json.gz \
    traces/kernel-wg-h200/calibration/d64/fa3-full-s2048-b1-h16-kv16-d64.json.gz >"$tmp/first.txt" 2>&1 &&
    grep -q '^fa3-causal-s3072-b1-h4-kv4-d64.json.gz  *96 |  *3264  *704  *2560  *4495 |  *- |  *1536$' "$tmp/first.txt" &&
    grep -q '^fa3-full-s2048-b1-h16-kv16-d64.json.gz  *256 |  *4768  *1088  *3616  *6532 |  *3424 |  *1536$' "$tmp/first.txt" &&
    ok kernel-first-compute || fail kernel-first-compute "$(cat "$tmp/first.txt")"
expect_error kernel-first-compute-bad "first.txt is not a kernel trace with phase stamps" python3 scripts/kernel-first-compute.py "$tmp/first.txt"
E8=traces/kernel-wg-h200/evidence8
# Evidence 10-12 (call 48; traces/kernel-wg-h200/evidence10/README.md): 28 shapes drawn at random and predicted with the
# clock dip before they ran: over the issue's ranges every target (0.55% / 1.54%, 0.62 / 2.19 pp), the short launches
# within the time targets and the speedup medians (1.21% / 3.39%, 1.97 pp; 0.62% / 3.35%, 1.69 pp), not evidence 11's
# speedup max (6.72 pp)
evidence_targets evidence10-default traces/kernel-wg-h200/evidence10/wgmma-evidence10-default.json 55 39 13 0.006 0.018 2.6 0.65
evidence_targets evidence11-default traces/kernel-wg-h200/evidence10/wgmma-evidence11-default.json 29 21 8 0.0125 0.035 6.8 2
evidence_targets evidence12-default traces/kernel-wg-h200/evidence10/wgmma-evidence12-default.json 16 12 2 0.0065 0.034 4.6 1.7
# Evidence 21 and 22 (call 60, traces/kernel-wg-h200/evidence21/README.md), predicted by aa1e577's profile before
# they ran: over the issue's ranges every target (0.45% / 1.97%, 0.75 / 2.38 pp); the short launches the time targets
# (1.19% / 4.01%), not the speedup's max (5.33 pp) nor quite its median (2.00 pp); with the waited step's slope since
# (34ad89e) 0.48% / 1.76%, 0.76 / 2.48 pp and 1.09% / 4.01%, 1.33 / 4.89 pp (the bounds hold both)
evidence_targets evidence21-default traces/kernel-wg-h200/evidence21/wgmma-evidence21-default.json 54 38 13 0.005 0.02 2.5 0.8
evidence_targets evidence22-default traces/kernel-wg-h200/evidence21/wgmma-evidence22-default.json 30 22 6 0.012 0.041 5.4 2.01
# Evidence 23 and 24 (call 62, traces/kernel-wg-h200/evidence23/README.md), predicted with the waited step's slope before
# they ran: every target on both (0.46% / 2.08%, 1.03 / 4.04 pp; 1.40% / 2.93%, 1.03 / 3.69 pp)
evidence_targets evidence23-default traces/kernel-wg-h200/evidence23/wgmma-evidence23-default.json 59 43 11 0.005 0.021 4.1 1.05
evidence_targets evidence24-default traces/kernel-wg-h200/evidence23/wgmma-evidence24-default.json 30 22 7 0.0145 0.03 3.7 1.05
# The clock dip at launch (docs/profile.md): the H200 default's d 128 clock as fitted (settled 1797.7 MHz, its compute at
# 1779.0, 293.1 MHz of dip per unit of busy from 0.34, the deepest bin the fourth, 75-100 us); a prediction with the clock
# is faster than at the profile's compute for a long low-load launch (the settled clock) and slower for a short busy one
# (in the dip); the clock's keys are checked; --clock-dip goes with --kernel traces; kernel-clock.py bins prints the dip
python3 - <<'PY' && ok clock-dip-fitted || fail clock-dip-fitted "$(head -c 300 "$tmp/out")"
import json
k = json.load(open("configs/kernels/gpu-bwd-wgmma-h200.json"))["tiles"][0]
c = k["clock"]
assert (c["max_mhz"], c["ref_mhz"], c["dip_u0"], c["dip_mhz_per_u"]) == (1797.7, 1779.0, 0.34, 293.1), c
assert c["dip"].index(max(c["dip"])) == 3 and c["dip_bin_ns"] == 25000, c
PY
python3 - "$tmp/noclock.json" <<'PY'
import json, sys
p = json.load(open("configs/kernels/gpu-bwd-wgmma-h200.json"))
for t in p["tiles"]:
    del t["clock"]
json.dump(p, open(sys.argv[1], "w"))
PY
for k in configs/kernels/gpu-bwd-wgmma-h200.json "$tmp/noclock.json"; do
    "$sim" --seqlen 16384 --heads 16 --head-dim 128 --mask causal --policy fa3 --kernel "$k" --json
    "$sim" --seqlen 2048 --heads 8 --batch 2 --head-dim 128 --mask causal --policy symmetric-shift --kernel "$k" --json
done >"$tmp/dip-shapes.json" 2>/dev/null && python3 - "$tmp/dip-shapes.json" <<'PY' && ok clock-dip-predicts || fail clock-dip-predicts "$(head -c 300 "$tmp/dip-shapes.json")"
import json, sys
dec, text, i, rows = json.JSONDecoder(), open(sys.argv[1]).read(), 0, []
while i < len(text):
    if text[i].isspace():
        i += 1
        continue
    obj, i = dec.raw_decode(text, i)
    rows.append(obj["policies"][0]["makespan_ns"])
long_dip, short_dip, long_plain, short_plain = rows
assert long_dip < long_plain and short_dip > short_plain, rows
PY
"$sim" --seqlen 2048 --heads 8 --batch 2 --head-dim 128 --mask causal --kernel configs/kernels/gpu-bwd-wgmma-h200.json \
    --json >"$tmp/dip-clock.json" && python3 - "$tmp/dip-clock.json" <<'PY' && ok clock-dip-reported || fail clock-dip-reported "$(head -c 300 "$tmp/dip-clock.json")"
import json, sys
p = {r["policy"]: r["clock_mhz"] for r in json.load(open(sys.argv[1]))["policies"]}
assert p["fa3"] > 1795 and 1730 < p["symmetric-shift"] < 1745, p  # the short busy order in the dip (evidence 8: 1741)
PY
sed 's/"dip_u0": 0.34/"dip_u0": 1.5/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/badclock.json"
expect_error clock-dip-bad-u0 "clock/dip_u0" "$sim" --seqlen 2048 --heads 8 --kernel "$tmp/badclock.json"
sed 's/"dip": \[0.238/"dip": [1.238/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/badclock2.json"
expect_error clock-dip-bad-shape "clock/dip/0: must be a number from 0 to 1" "$sim" --seqlen 2048 --heads 8 --kernel "$tmp/badclock2.json"
sed 's/"ref_mhz": 1779.0/"ref_mhz": 100000/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/badclock4.json"
expect_error clock-dip-not-a-clock "ref_mhz must be within 1.5x of max_mhz" "$sim" --seqlen 2048 --heads 8 \
    --kernel "$tmp/badclock4.json"
sed 's/"dip_bin_ns": 25000/"dip_bin_ns": 25000, "dip_depth": 3/' configs/kernels/gpu-bwd-wgmma-h200.json >"$tmp/badclock3.json"
expect_error clock-dip-unknown-key "dip_depth" "$sim" --seqlen 2048 --heads 8 --kernel "$tmp/badclock3.json"
expect_error clock-dip-usage "--clock-dip goes with --kernel and traces" "$sim" calibrate traces/h200-calib/calib-profile-raw.json \
    --clock-dip
python3 scripts/kernel-clock.py bins 25 traces/kernel-wg-h200/calibration/d128/symmetric-shift-causal-s4096-b1-h16-kv4-d128.json.gz \
    >"$tmp/bins.txt" 2>&1 && grep -q 'busy 0.73 | 1763 1766 1706 1677 1712 1728 1756 1788' "$tmp/bins.txt" && ok kernel-clock-bins ||
    fail kernel-clock-bins "$(cat "$tmp/bins.txt")"
expect_error kernel-clock-bins-width "bins takes a bin width in us above 0" python3 scripts/kernel-clock.py bins 0 "$tmp/bins.txt"
expect_error kernel-clock-bins-cycles "has no cycle counts" python3 scripts/kernel-clock.py bins 25 traces/kernel-cal/d128/fa3-causal-s4096-b1-h16-kv4-d128.json.gz
expect_error l2-launch-runs "not a kernel-runs file" python3 scripts/experiments/l2-launch.py "$tmp/ring.txt"
echo '{"records": [{"mode": "deterministic", "ms": 1}]}' >"$tmp/runs-bare.json"
expect_error l2-launch-bare-runs "runs-bare.json: not a kernel-runs file" python3 scripts/experiments/l2-launch.py "$tmp/runs-bare.json"
expect_error kernel-fixed-costs-bare-runs "runs-bare.json or .*: not a kernel-runs file" python3 scripts/kernel-fixed-costs.py \
    "$tmp/runs-bare.json" $E8/predictions-default.json $E8/traces
expect_error l2-launch-range "0 < hot < cold" python3 scripts/experiments/l2-launch.py --hot 60 --cold 30 $E8/wgmma-evidence8-default.json
# call 44: evicting L2 before a recorded run costs the launch's first compute 1.1 us (docs/profile.md, "Short launches")
python3 scripts/kernel-first-compute.py $E8/l2/s2048-h8-plain-0.json.gz $E8/l2/s2048-h8-flush-0.json.gz >"$tmp/l2.txt" 2>&1 &&
    grep -q '^s2048-h8-plain-0.json.gz  *128 |  *3360 ' "$tmp/l2.txt" && grep -q '^s2048-h8-flush-0.json.gz  *128 |  *4480 ' "$tmp/l2.txt" &&
    ok l2-first-compute || fail l2-first-compute "$(cat "$tmp/l2.txt")"
python3 scripts/compare-predictions.py $E8/predictions-default.json $E8/wgmma-evidence8-default.json >"$tmp/cmp8.txt" 2>&1 &&
    grep -q '^57 runs: |time error| median 1.23%, max 4.86%; speedup over fa3: 41 pairs, |error| median 1.83 pp, max 8.85 pp; predicted winner within 1% of the measured best at 15 of 16 shapes$' "$tmp/cmp8.txt" &&
    ok compare-predictions || fail compare-predictions "$(tail -1 "$tmp/cmp8.txt")"
expect_error compare-predictions-bad "not gpu/bwd/predict-shapes.py's predictions" python3 scripts/compare-predictions.py \
    "$tmp/cmp8.txt" $E8/wgmma-evidence8-default.json
expect_error compare-predictions-other-set "no timed run of causal-s1536-b1-h4-kv4-d128's predicted winner" python3 \
    scripts/compare-predictions.py $E8/predictions-default.json traces/kernel-wg-h200/evidence9/wgmma-evidence9-default.json
# a shape the model called a tie (predict-shapes.py records it since session 9) is counted apart, not as a win
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["predictions"]:
    if p["shape"]["seqlen"] == 4096:
        p.update(tie=["fa3-spt", "descending"], validated_error=0.0145)
json.dump(d, open(sys.argv[2], "w"))
' $E8/predictions-default.json "$tmp/p8tie.json"
python3 scripts/compare-predictions.py "$tmp/p8tie.json" $E8/wgmma-evidence8-default.json 2>&1 | tail -1 |
    grep -q 'at 15 of 16 shapes (1 more where the model reported a tie naming the best)$' && ok compare-predictions-tie ||
    fail compare-predictions-tie "$(python3 scripts/compare-predictions.py "$tmp/p8tie.json" $E8/wgmma-evidence8-default.json | tail -1)"
python3 scripts/kernel-fixed-costs.py $E8/wgmma-evidence8-default.json $E8/predictions-default.json $E8/traces \
    >"$tmp/fixed.txt" 2>&1 && tail -n +2 $E8/fixed-costs.txt | cmp -s - "$tmp/fixed.txt" && ok kernel-fixed-costs ||
    fail kernel-fixed-costs "$(diff "$tmp/fixed.txt" $E8/fixed-costs.txt | head -5)"
expect_error kernel-fixed-costs-bad "not a kernel-runs file" python3 scripts/kernel-fixed-costs.py $E8/predictions-default.json \
    $E8/predictions-default.json $E8/traces
# The H100 Hopper profile (fixed costs from gpu-bwd.json, the same GPU's shared pre/post kernels) on issue 23's H100
# grid, which it was not made from (docs/profile.md has all 112 runs at seqlen >= 2048: 1.27% / 4.51%). For test time
# the shapes of at most 16k tokens (84 runs, 24 shapes; b4 x 16384 alone takes 8 s): time median <= 2%, max <= 5%,
# speedup over fa3 median <= 2 pp, the best schedule within 1% of the measured best at 23 of 24 shapes
python3 scripts/bench-to-runs.py traces/kernel-wg/h100/bench.json.gz h100-grid >"$tmp/h100-grid-all.json" &&
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keep = lambda r: r["seqlen"] >= 2048 and r["seqlen"] * r["batch"] <= 16384
d["records"], d["shapes"] = [r for r in d["records"] if keep(r)], [s for s in d["shapes"] if keep(s)]
json.dump(d, open(sys.argv[2], "w"))
' "$tmp/h100-grid-all.json" "$tmp/h100-grid.json" &&
    "$sim" validate "$tmp/h100-grid.json" --predict --json >"$tmp/h100-grid.out" 2>/dev/null
python3 -c '
import json, statistics, sys
runs = [r for r in json.load(open(sys.argv[1]))["kernel_runs"][0]["runs"]
        if r["mode"] == "deterministic"]
e = sorted(abs(r["error"]) for r in runs)
shapes = {}
for r in runs:
    shapes.setdefault((r["mask"], r["seqlen"], r["batch"], r["head_dim"]), {})[r["policy"]] = r
pp = [100 * abs(v["fa3"]["measured_ns"] / r["measured_ns"] - v["fa3"]["predicted_ns"] / r["predicted_ns"])
      for v in shapes.values() for p, r in v.items() if p != "fa3"]
right = sum(min(v.values(), key=lambda r: r["predicted_ns"])["measured_ns"] <=
            1.01 * min(r["measured_ns"] for r in v.values()) for v in shapes.values())
assert len(e) == 84 and statistics.median(e) <= 0.02 and e[-1] <= 0.05, (len(e), statistics.median(e), e[-1])
assert statistics.median(pp) <= 2 and right >= 23 and len(shapes) == 24, (statistics.median(pp), right)
' "$tmp/h100-grid.out" && ok h100-grid-targets || fail h100-grid-targets "$(head -c 300 "$tmp/h100-grid.out")"

# The shape front end stages dQ in the kernel profile's buffers unless --dq-buffers says otherwise (it used 1,
# so its ranking of the Hopper kernel, which has 2, differed from validate's).
"$sim" --seqlen 4096 --heads 16 --mask causal --kernel configs/kernels/gpu-bwd-wgmma-h200.json --json >"$tmp/b2.json"
"$sim" --seqlen 4096 --heads 16 --mask causal --kernel configs/kernels/gpu-bwd-wgmma-h200.json --dq-buffers 1 --json \
    >"$tmp/b1.json"
python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["dq_buffers"] == 2 and b["dq_buffers"] == 1, (a["dq_buffers"], b["dq_buffers"])
' "$tmp/b2.json" "$tmp/b1.json" && ok kernel-front-end-dq-buffers || fail kernel-front-end-dq-buffers "$(head -c 300 "$tmp/b2.json")"

# --hardware picks the preset GPU's own profiles (issue 31 item 2): h200-sxm takes profiles/h200-sxm.json and,
# for a kernel named bare, kernels/gpu-bwd-wgmma-h200.json; h800-sxm has none, so its report says whose numbers
# it used, in the costs line and the JSON, and h100-sxm's says nothing of another GPU.
for hw in h100-sxm h200-sxm h800-sxm; do
    "$sim" --seqlen 4096 --heads 16 --mask causal --hardware $hw --kernel gpu-bwd-wgmma --json >"$tmp/hw-$hw.json"
    "$sim" --seqlen 4096 --heads 16 --mask causal --hardware $hw >"$tmp/hw-$hw.txt"
done
python3 -c '
import json, sys
t = sys.argv[1]
j = {hw: json.load(open(f"{t}/hw-{hw}.json"))["shape"] for hw in ("h100-sxm", "h200-sxm", "h800-sxm")}
txt = {hw: open(f"{t}/hw-{hw}.txt").read() for hw in j}
assert j["h200-sxm"]["kernel"].endswith("gpu-bwd-wgmma-h200.json"), j["h200-sxm"]["kernel"]
assert j["h100-sxm"]["kernel"].endswith("gpu-bwd-wgmma.json"), j["h100-sxm"]["kernel"]
assert j["h200-sxm"]["profile"].endswith("profiles/h200-sxm.json"), j["h200-sxm"]["profile"]
assert "profiles/h200-sxm.json" in txt["h200-sxm"] and "NVIDIA H200" in txt["h200-sxm"], txt["h200-sxm"]
for hw in ("h100-sxm", "h200-sxm"):
    assert "another GPU" not in json.dumps(j[hw]) + txt[hw], hw
h8 = j["h800-sxm"]
assert "no H800 profile" in h8["compute_from"] and "H100" in h8["compute_from"], h8["compute_from"]
assert "no H800 profile" in h8["reduce_from"], h8["reduce_from"]
assert "no H800 profile" in txt["h800-sxm"].split("costs", 1)[1].split("\n", 1)[0], txt["h800-sxm"]
' "$tmp" && ok hardware-picks-its-profiles || fail hardware-picks-its-profiles "$(grep -h costs "$tmp"/hw-*.txt)"

# The front end and a config give the same makespans and times (the same costing path).
cat >"$tmp/cfg.json" <<'EOF'
{ "schema_version": 1, "workload": { "batch": 2, "heads": 24, "kv_heads": 6, "seqlen_q": 3072, "head_dim": 128,
  "mask": "causal" }, "hardware": { "preset": "h100-sxm" }, "policies": "all",
  "options": { "reduce": "async", "kernel": "gpu-bwd" } }
EOF
"$sim" run "$tmp/cfg.json" --format jsonl >"$tmp/run.jsonl" 2>"$tmp/err" &&
"$sim" --seqlen 3072 --batch 2 --heads 24 --kv-heads 6 --head-dim 128 --mask causal --kernel gpu-bwd --json \
    >"$tmp/front.json" 2>>"$tmp/err" && python3 - "$tmp/run.jsonl" "$tmp/front.json" <<'PY' && ok kernel-config-equals-front-end || fail kernel-config-equals-front-end "$(cat "$tmp/err")"
import json, sys
rows = {r["policy"]: r for r in map(json.loads, open(sys.argv[1]))}
front = json.load(open(sys.argv[2]))
assert front["policies"] and len(rows) == len(front["policies"]), (rows.keys(), front["policies"])
for p in front["policies"]:
    r = rows[p["policy"]]
    assert (r["makespan_ns"], r["time_ns"]) == (p["makespan_ns"], p["time_ns"]), (r, p)
    assert r["kernel"] == "gpu-bwd"
PY

# validate recomputes, from the committed profile, the predictions committed before the mma.sync evidence run,
# and the mma kernel stays inside issue 31's targets (3% median, 6% max).
"$sim" validate traces/kernel-evidence/runs-evidence.json --predict --json >"$tmp/ev.json"
python3 - "$tmp/ev.json" traces/kernel-evidence/predictions.json <<'PY' && ok kernel-evidence-predictions || fail kernel-evidence-predictions "differ"
import json, sys
ev = json.load(open(sys.argv[1]))["kernel_runs"][0]
pred = {}
for p in json.load(open(sys.argv[2]))["predictions"]:
    s = p["shape"]
    for q in p["policies"]:
        pred[(s["mask"], s["seqlen"], s["batch"], s["heads"], s["kv_heads"], s["head_dim"], q["policy"])] = q["time_ns"]
runs = [r for r in ev["runs"] if r["mode"] == "deterministic"]
assert ev["summary"]["predicted"] == len(runs) == 57
for r in runs:
    k = (r["mask"], r["seqlen"], r["batch"], r["heads"], r["kv_heads"], r["head_dim"], r["policy"])
    # the committed file predates sim_cost_time_ns (its times hold the first CTA's prologue once more: up to
    # +2 us), cta_first_extra_ns (mma.sync's later CTAs' K/V load, 0.16-0.26 us a CTA: down to -3.4 us) and the
    # write slope (kv_write_ns became the base with no write beside it, 0.9 us less at d 128, plus 40 ns a write
    # in flight: -5.8 to +7.3 us), and the overlap penalty measured within each trace (596 and 182 ns where the
    # pooled groups gave 576 and 160: docs/profile.md, "The overlap penalty within a trace"); together they move no
    # prediction by 1.5% (the largest: causal s1536 b8 h8 d 64 symmetric-shift, +1.4%)
    assert abs(pred[k] - r["predicted_ns"]) <= 0.015 * pred[k], (k, pred[k], r["predicted_ns"])
s = ev["summary"]
assert s["time_error"]["median_abs"] <= 0.03 and s["time_error"]["max_abs"] <= 0.06, s
assert s["speedup_error_pp"]["median_abs"] <= 3 and s["best_picked_right"] == s["decisive_shapes"], s
PY

# Timed runs without a kernel profile to check them against: said so, not reported as 0.00% errors.
expect_exit kernel-runs-unpredicted 1 "$sim" validate traces/kernel-wg-h200/wgmma-evidence.json
grep -q "54 timed deterministic runs, none predicted: .*--predict" "$tmp/out" && ! grep -q "0.00%" "$tmp/out" &&
    ok kernel-runs-unpredicted-said || fail kernel-runs-unpredicted-said "$(tail -1 "$tmp/out")"

# --predict: a trace nothing predicts is a miss; the exit status says so.
expect_exit kernel-miss-exit 1 "$sim" validate traces/h100-spin --predict
grep -q "7 not predicted (misses)" "$tmp/out" && ok kernel-miss-counted || fail kernel-miss-counted "$(tail -1 "$tmp/out")"

# Profiles are found from any directory.
(cd "$tmp" && "$root/$sim" --seqlen 2048 --heads 4 --mask causal --kernel gpu-bwd >/dev/null 2>"$tmp/err") &&
    ok kernel-from-anywhere || fail kernel-from-anywhere "$(cat "$tmp/err")"
expect_error kernel-unknown-name "cannot find kernels/no-such.json: looked at" "$sim" --seqlen 2048 --kernel no-such

# Bad profiles and bad use: one sentence, exit 2.
sed 's/"compute_ns"/"compute_nz"/' configs/kernels/gpu-bwd.json >"$tmp/bad.json"
expect_error kernel-unknown-key "/tiles/0/compute_nz: unknown key" "$sim" --seqlen 2048 --kernel "$tmp/bad.json"
sed 's/"release": "completion"/"release": "later"/' configs/kernels/gpu-bwd.json >"$tmp/bad.json"
expect_error kernel-bad-release "/geometry/release: must be" "$sim" --seqlen 2048 --kernel "$tmp/bad.json"
expect_error kernel-no-tile "has no tile for head_dim 96" "$sim" --seqlen 2048 --head-dim 96 --kernel gpu-bwd
expect_error kernel-kv-heads "--kv-heads 5 must divide --heads 16" "$sim" --seqlen 2048 --heads 16 --kv-heads 5 --kernel gpu-bwd
expect_error kernel-tile-level-needs-dim "give --head-dim" "$sim" --kernel gpu-bwd --reduce async
expect_error kernel-calibrate-plain-trace "not a kernel trace with phase stamps" "$sim" calibrate --kernel \
    traces/h100/fa3-full-h1-r1-async.json.gz
expect_error kernel-fixed-from-and-runs "--runs and --fixed-from both give the fixed costs" "$sim" calibrate --kernel \
    traces/kernel-wg/h100/traces/*.json.gz --runs x.json --fixed-from gpu-bwd
expect_error kernel-fixed-from-other-gpu "is not the traces' GPU (NVIDIA H100 80GB HBM3)" "$sim" calibrate --kernel \
    traces/kernel-wg/h100/traces/*.json.gz --fixed-from gpu-bwd-wgmma-h200
expect_error kernel-baseline-usage "--baseline FILE goes with --kernel and --reference" "$sim" calibrate --kernel \
    --baseline traces/fa3-public/fa3-published.json
expect_error kernel-atomic-trace "only deterministic runs follow a plan" "$sim" validate \
    traces/kernel-atomic/d64/fa3-atomic-full-s2048-b1-h16-kv16-d64.json.gz
finish
