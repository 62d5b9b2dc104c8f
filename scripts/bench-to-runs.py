#!/usr/bin/env python3
"""Converts a kernel benchmark (gpu/bwd/bench.py's dashsim-kernel-bench) into the dashsim-kernel-runs format
that `sim validate` reads: gpu/bwd's own records (deterministic and atomic) and their shapes, with the bench's
metadata. A bench of several kernels gives one of them: KERNEL (default wgmma, the Hopper kernel).
Usage: scripts/bench-to-runs.py BENCH.json[.gz] NAME [KERNEL] > RUNS.json"""
import gzip, json, sys

if len(sys.argv) not in (3, 4):
    sys.exit("usage: scripts/bench-to-runs.py BENCH.json[.gz] NAME [KERNEL] > RUNS.json")
kernel = sys.argv[3] if len(sys.argv) == 4 else "wgmma"
opener = gzip.open if sys.argv[1].endswith(".gz") else open
with opener(sys.argv[1], "rt") as f:
    bench = json.load(f)
if bench.get("format") != "dashsim-kernel-bench":
    sys.exit(f"{sys.argv[1]}: /format: must be \"dashsim-kernel-bench\"")
keys = ("mask", "seqlen", "batch", "heads", "kv_heads", "head_dim")
recs = [r for r in bench["records"] if r.get("backend") == "dashsim" and r.get("kernel") == kernel and r.get("ms")]
if not recs:
    sys.exit(f"{sys.argv[1]}: no timed records of kernel {kernel}")
shapes = []
for r in recs:
    s = {k: r[k] for k in keys}
    if s not in shapes:
        shapes.append(s)
meta = dict(bench["metadata"])
meta["kernel"] = "dashsim-bwd-" + kernel if kernel != "mma" else "dashsim-bwd"
out = dict(format="dashsim-kernel-runs", version=1, name=sys.argv[2], metadata=meta, shapes=shapes, records=recs)
json.dump(out, sys.stdout, indent=1)
sys.stdout.write("\n")
