#!/bin/sh
# Issue 32's whole device run, from the repository root on the GPU machine: the Hopper kernel's layout test and
# smoke (gpu/scripts/run-kernel-bench.sh's), gpu/bwd/dash_attn.py's tests (gradients against autograd, fallback,
# the 2-layer transformer trained twice bitwise equal, beside PyTorch's deterministic mode), then bench.py on the
# issue's grid (causal and full, d128 and d64, seqlen 4096-8192 at b x h 16 and 64, and 16384 at 16) with cuDNN's
# default and deterministic modes through JAX, and a short table last (gpu/bwd/summary.py). Carried: bin/,
# build/gpu/bwd/libdashbwd.so, build/gpu/bwd/plans (gpu/scripts/plans-kernel-bench.sh), .dev/sim
# (gpu/scripts/bundle-sim.sh). Writes $OUT/smoke.txt, log.txt, bench.json, torch.json, torch-log.txt,
# traces-d128.tgz, traces-d64.tgz. Exit 1 when any step fails; every step runs whatever failed before it but the
# layout test and smoke. Usage: OUT=DIR gpu/scripts/run-kernel-torch.sh [--quick]
set -u
: "${OUT:?set OUT}"
quick=""
[ "${1:-}" = --quick ] && quick=--quick
t0=$(date +%s)
rc=0
for f in bin/gpu-bwd bin/gpu-wg-test build/gpu/bwd/libdashbwd.so .dev/sim/sim build/gpu/bwd/plans/fa3-causal-s8192-bh16.plan.xz; do
  [ -e "$f" ] || { echo "run-kernel-torch.sh: $f was not carried" >&2; exit 2; }
done
if [ -n "$quick" ]; then grid=causal:16:8192,full:16:4096; else
  grid=causal:16:8192,full:16:8192,causal:16:4096,full:16:4096,causal:64:4096,full:64:4096,causal:64:8192,full:64:8192
  grid=$grid,causal:16:16384,full:16:16384; fi
grid=${BENCH_GRID:-$grid}
for g in $(echo "$grid" | tr , ' '); do  # every plan bench.py will open (gpu/scripts/plans-kernel-bench.sh makes them)
  m=${g%%:*}; r=${g#*:}; bh=${r%%:*}; s=${r#*:}
  pols=$([ "$m" = causal ] && echo "fa3 fa3-spt descending symmetric-shift" || echo "fa3 descending shift")
  for p in $pols; do
    f=build/gpu/bwd/plans/$p-$m-s$s-bh$bh.plan.xz
    [ -e "$f" ] || { echo "run-kernel-torch.sh: $f was not carried (gpu/scripts/plans-kernel-bench.sh)" >&2; exit 2; }
  done
done
.dev/sim/sim --version > /dev/null || { echo "run-kernel-torch.sh: the bundled planner does not run" >&2; exit 2; }
for f in configs/kernels/gpu-bwd-wgmma*.json; do  # a stale bundle cannot read today's profiles: dash_attn would fail late
  .dev/sim/sim --seqlen 512 --batch 1 --heads 1 --head-dim 64 --mask causal --kernel "$f" > /dev/null 2>&1 ||
    .dev/sim/sim --seqlen 512 --batch 1 --heads 1 --head-dim 128 --mask causal --kernel "$f" > /dev/null 2>&1 ||
    { echo "run-kernel-torch.sh: the bundled planner cannot plan with $f (rebuild it: gpu/scripts/bundle-sim.sh)" >&2; exit 2; }
done
python3 -c 'import torch, jax; print("torch", torch.__version__, "jax", jax.__version__)' 2>&1 | tail -1
# 1. layout test and smoke, both kernels: a failure stops the run (every later number would be meaningless)
sh gpu/scripts/run-kernel-smoke.sh > /dev/null || { tail -5 "$OUT/smoke.txt"; echo "layout test or smoke FAILED"; exit 1; }
echo "== layout test and smoke ok ($(( $(date +%s) - t0 )) s)"
# 2. gpu/bwd from PyTorch: gradients, fallback, the transformer trained twice
PYTHONUNBUFFERED=1 timeout "${TORCH_TIMEOUT:-150}" python3 gpu/bwd/test_dash_attn.py $quick > "$OUT/torch-log.txt" 2>&1 ||
  { e=$?; rc=1; echo "dash_attn tests FAILED (exit $e; 124: timed out):"; }
grep -E '^(FAIL|ok|     time|dash_attn)' "$OUT/torch-log.txt" | cut -c1-220
tail -3 "$OUT/torch-log.txt" | grep -q 'tests: 0 failed' || tail -15 "$OUT/torch-log.txt"
echo "== torch tests done ($(( $(date +%s) - t0 )) s)"
# 3. the bench on the grid, with cuDNN's two modes through JAX
BENCH_KERNELS=${BENCH_KERNELS:-wgmma} BENCH_GRID=$grid BENCH_JAX_TIMEOUT=${BENCH_JAX_TIMEOUT:-85} \
  PYTHONUNBUFFERED=1 timeout "${BENCH_TIMEOUT:-300}" python3 gpu/bwd/bench.py > /dev/null 2>> "$OUT/log.txt" ||
  { e=$?; rc=1; echo "bench.py FAILED (exit $e; 124: timed out)"; }
rm -f "$OUT"/jax-*.json*  # a JAX process cut short leaves its partial file
grep -E 'correctness|FAIL|jax cudnn|ERROR|WARNING|Error|Traceback|done in' "$OUT/log.txt" | cut -c1-200 | tail -60
for d in d128 d64; do  # one archive per head dim: each file that comes back is at most 16 MB
  [ -d "$OUT/traces/$d" ] && tar czf "$OUT/traces-$d.tgz" -C "$OUT/traces" $d
done
rm -rf "$OUT/traces"
ls -la "$OUT"
echo "== total $(( $(date +%s) - t0 )) s, exit $rc"
[ -s "$OUT/bench.json" ] && python3 gpu/bwd/summary.py "$OUT/bench.json"
exit $rc
