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
"$sim" --policy symmetric-shift --mask causal --n 2 --heads 1 --kv-tiles 4 --q-tiles 8 --tile-ratio 2 \
    --reduce async --emit-plan "$tmp/wg-causal.plan" >/dev/null
expect_exit emu-wgmma-causal-persistent 0 "$emu" "$tmp/wg-causal.plan" --head-dim 128 --kernel wgmma --runs 2 \
    --atomic-runs 0 --jitter-us 20
# --same-as (the emulated wgmma is asynchronous, so an operand written while a wgmma is in flight stops the run) is
# checked on the m128 variant against the default; the one-store-warp variant's run was dropped for test time.
# 128 x 128 tiles at head dim 64 (wgmma-...m128, on a tile_ratio-1 plan): the same products per 64 Q rows as the
# default, so on fa3's order (the same partial products added in the same order) the same bits as the default on the
# 64 x 128 plan; a 64-row plan is refused with the tile it needs. One run checks both kernels: the default against
# float64 and bit-identical over two jittered runs, then the m128 variant (with its own timeouts) bit-identical to
# that (so within the same error of float64)
"$sim" --policy fa3 --mask full --n 2 --heads 2 --kv-tiles 2 --q-tiles 4 --tile-ratio 2 --reduce async \
    --emit-plan "$tmp/wg-full.plan" >/dev/null
"$sim" --policy fa3 --mask full --n 2 --heads 2 --kv-tiles 2 --q-tiles 2 --tile-ratio 1 --reduce async \
    --emit-plan "$tmp/wg-full-m128.plan" >/dev/null
expect_exit emu-wgmma-full-gqa-and-m128 0 "$emu" "$tmp/wg-full.plan" --head-dim 64 --heads 2 --kv-heads 1 \
    --kernel wgmma --runs 2 --atomic-runs 0 --jitter-us 20 --same-as wgmma-s2b2o1p0w2m128 \
    --same-as-plan "$tmp/wg-full-m128.plan"
grep -q "2 deterministic runs bit-identical.*bit-identical to wgmma-s2b2o1p0w2m128" "$tmp/out" && ok emu-wgmma-m128-bits \
    || fail emu-wgmma-m128-bits "$(cat "$tmp/out")"
expect_error emu-wgmma-m128-needs-its-plan "needs tile_ratio 1" "$emu" "$tmp/wg-full.plan" --head-dim 64 \
    --kernel wgmma-s2b2o1p0w2m128 --runs 1 --atomic-runs 0
expect_exit emu-inflight-write-caught 1 "$emu" "$tmp/wg-full.plan" --head-dim 64 --kernel wgmma --runs 1 \
    --atomic-runs 0 --inject-inflight-write
grep -q "changed while it was in flight" "$tmp/err" && ok emu-inflight-write-message \
    || fail emu-inflight-write-message "$(head -c 300 "$tmp/err")"
# gpu/bwd/dash_attn.py's plans: the shape front end ranked with the Hopper kernel's profile, as dash_attn runs it
# (GQA, the emulated wgmma kernel must accept the plan and match the float64 reference)
"$sim" --seqlen 256 --head-dim 64 --heads 2 --mask causal --kernel configs/kernels/gpu-bwd-wgmma.json --analysis none \
    --emit-plan "$tmp/ranked.plan" >/dev/null
expect_exit emu-ranked-plan-gqa 0 "$emu" "$tmp/ranked.plan" --head-dim 64 --heads 2 --kv-heads 1 --kernel wgmma \
    --runs 1 --atomic-runs 0 --jitter-us 20  # one run: the two-run bit identity is checked on the plans above
# Issue 32: cuDNN's modes through JAX in the bench's tables; the tables of benches without them unchanged
bwd=$(dirname "$0")/../gpu/bwd
# bench.py's grid with a kernel of 128-row Q tiles (m128): its own plans at d 64, the 64-row plans at d 128, one plan per
# kernel, policy and Q tile (torch stubbed out: the plan bookkeeping alone, no GPU)
python3 - "$bwd" >"$tmp/grid.txt" 2>&1 <<'PY'
import sys
from unittest import mock
for m in ("torch", "torch.nn", "torch.nn.functional", "torch.nn.attention"):
    sys.modules[m] = mock.MagicMock()
sys.path.insert(0, sys.argv[1])
import bench  # noqa: E402
calls, used = [], []


class FakeLib:
    class L:
        bwd_free = staticmethod(lambda h: None)

    def plan(self, p, mask, s, bh, k="wgmma", d=None):
        bm = bench.block_m(k, d)
        calls.append((k, p, bm))
        return f"{k}|{p}|{bm}", f"{p}-{bm}"


bench.KERNELS, bench.TRACE_SET = ["wgmma", "wgmma-s2b2o1p0w2m128"], set()
bench.shape_inputs = lambda mask, bh, s, d: (None, 1.0, None, 1.0, dict(head_dim=d))
bench.dash_fn = lambda lib, h, t, scale, atomic: h
bench.torch_runs = lambda t, causal, scale: []
bench.timed_rounds = lambda runs: [[(1.0, 1)] for _ in runs]
bench.measure = lambda fn, handle, fl, ref, rounds=None, **f: used.append((f["kernel"], f["head_dim"], handle)) or f
bench.show = lambda rec: None
bench.bench(FakeLib(), [("full", 16, 1024)], (64, 128), [], lambda: None)
m = "wgmma-s2b2o1p0w2m128"
assert (m, 64, m + "|shift|128") in used and (m, 128, m + "|shift|64") in used, used
assert all(h.endswith("|64") for k, d, h in used if k == "wgmma"), used
assert len(calls) == len(set(calls)) == 9, calls  # one plan per kernel, policy and Q tile
print("grid plans ok")
PY
grep -q "grid plans ok" "$tmp/grid.txt" && ok bench-grid-m128-plans || fail bench-grid-m128-plans "$(tail -2 "$tmp/grid.txt")"
# dash_attn's kernel and profile per GPU and head dim: on an H200 the wm128 variant with its own profile at d 64, the t
# variant with its own at d 128; elsewhere the default with the H100 profile; DASHSIM_KERNEL_PROFILE overrides
python3 - "$bwd" >"$tmp/kfor.txt" 2>&1 <<'PY'
import os, sys
from unittest import mock
for m in ("torch", "torch.nn", "torch.nn.functional", "torch.nn.attention"):
    sys.modules[m] = mock.MagicMock()
sys.path.insert(0, sys.argv[1])
import dash_attn  # noqa: E402
b = lambda k, p: (k, os.path.basename(p))
assert b(*dash_attn.kernel_for(64, "NVIDIA H200")) == ("wgmma-s2b2o1p0w2em128", "gpu-bwd-wgmma-em128-h200.json")
assert b(*dash_attn.kernel_for(128, "NVIDIA H200")) == ("wgmma-s2b2o1p0w2e", "gpu-bwd-wgmma-e-h200.json")
assert b(*dash_attn.kernel_for(64, "NVIDIA H100 80GB HBM3")) == ("wgmma", "gpu-bwd-wgmma.json")
assert all(os.path.exists(dash_attn.kernel_for(d, g)[1]) for d in (64, 128) for g in ("NVIDIA H200", "H100"))
os.environ["DASHSIM_KERNEL_PROFILE"] = "x.json"
assert dash_attn.kernel_for(64, "NVIDIA H200") == ("wgmma", "x.json")
print("kernel_for ok")
PY
grep -q "kernel_for ok" "$tmp/kfor.txt" && ok dash-attn-kernel-for || fail dash-attn-kernel-for "$(tail -3 "$tmp/kfor.txt")"
cat >"$tmp/bench.json" <<'J'
{"format": "dashsim-kernel-bench", "metadata": {"gpu_name": "test", "kernels": ["wgmma"]}, "correctness_ok": true,
 "determinism_ok": true, "records": [
J
for r in "dashsim wgmma symmetric-shift deterministic 400" "dashsim wgmma fa3 deterministic 200" \
         "dashsim wgmma fa3 atomic 380" "cudnn - - default 500" "flash - - default 300" "flash - - deterministic 150" \
         "cudnn jax - default 480" "cudnn jax - deterministic 330"; do
    set -- $r
    k=$([ "$2" = wgmma ] && echo "\"kernel\": \"wgmma\"," || echo "\"kernel\": null,")
    v=$([ "$2" = jax ] && echo "\"via\": \"jax\", \"runs_differing_from_first\": 0," || echo "")
    p=$([ "$3" = - ] && echo null || echo "\"$3\"")
    echo "{\"backend\": \"$1\", $k $v \"policy\": $p, \"mode\": \"$4\", \"tflops\": $5, \"mask\": \"causal\"," \
         "\"head_dim\": 128, \"batch\": 1, \"heads\": 16, \"seqlen\": 8192, \"bitwise_repeatable\": true}," >>"$tmp/bench.json"
done
sed -i '$ s/},$/}]}/' "$tmp/bench.json"
python3 "$bwd/summary.py" "$tmp/bench.json" >"$tmp/sum.txt" 2>&1
grep -q "causal 128  16   8192  400.0 symmetric-shift   380.0  500.0  480.0  330.0 ( 0)     0.800    1.212    1.053" \
    "$tmp/sum.txt" && ok summary-cudnn-det || fail summary-cudnn-det "$(tail -2 "$tmp/sum.txt")"
if command -v gnuplot >/dev/null; then
    python3 "$bwd/table.py" "$tmp/bench.json" "$tmp/tab" >/dev/null 2>&1
    grep -q "| cudnn-jax | cudnn-det | best/fa3" "$tmp/tab/bench-table.md" &&
        grep -q "| 480 | 330 | 2.00 | 1.05 | 0.40 | 0.80 | 2.67 | 1.21 |" "$tmp/tab/bench-table.md" &&
        grep -q "best det >= 1.2 cuDNN deterministic (issue 32): minimum 1.212.*met at every one" "$tmp/tab/bench-table.md" &&
        ok table-cudnn-det || fail table-cudnn-det "$(grep '^| causal' "$tmp/tab/bench-table.md")"
    python3 "$bwd/table.py" "$(dirname "$0")/../traces/kernel-wg/bench.json.gz" "$tmp/old" wgmma >/dev/null 2>&1
    cmp -s "$tmp/old/bench-table.md" "$(dirname "$0")/../traces/kernel-wg/bench-table.md" && ok table-without-jax-unchanged \
        || fail table-without-jax-unchanged "traces/kernel-wg/bench-table.md differs from table.py's output"
else
    skip table-cudnn-det "no gnuplot"; skip table-without-jax-unchanged "no gnuplot"
fi
expect_error emu-unknown-kernel "unknown kernel 'bogus'" "$emu" "$tmp/wg-full.plan" --head-dim 64 --kernel bogus
finish
