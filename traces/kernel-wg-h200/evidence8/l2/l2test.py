"""Call 44 (session 9): is a short launch's first compute fast because its inputs are in L2? Two d 64 full shapes (fa3
order, default kernel): f3072 b1 h6 (first compute 3.5 us in evidence 8) and f1792 b1 h16 (4.6 us). Each recorded
after a plain backward (as shapes.py records), after a 256 MB write that evicts L2 (flush), and after reading the
inputs (touch). Writes OUT/<shape>-<mode>-<trial>.json traces."""
import ctypes, lzma, os, sys
import torch
sys.path.insert(0, "gpu/bwd")
import bench

out = os.environ["OUT"]
lib = bench.Lib("build/gpu/bwd/libdashbwd.so")
junk = torch.empty(64 << 20, device="cuda", dtype=torch.float32)
for (s, h) in ((3072, 6), (1792, 16), (2048, 8)):
    name = f"fa3-full-s{s}-bh{h}.plan"
    path = "/tmp/" + name
    with lzma.open(".dev/plans8/" + name + ".xz") as f, open(path, "wb") as g:
        g.write(f.read())
    err = ctypes.create_string_buffer(1024)
    hd = lib.L.bwd_new(path.encode(), err, 1024)
    assert hd, err.value
    assert not lib.L.bwd_set_kernel(hd, b"wgmma")
    t, scale = bench.make_inputs(1, h, h, s, 64, False, seed=s + h)
    for trial in range(3):
        for mode in ("plain", "flush", "touch"):
            lib.run(hd, t, scale, False)
            if mode == "flush":
                junk.fill_(float(trial))
            elif mode == "touch":
                x = sum(float(t[k].sum()) for k in ("q", "k", "v", "do", "o"))
            torch.cuda.synchronize()
            lib.run(hd, t, scale, False, record=True)
            torch.cuda.synchronize()
            lib.check(hd)
            fn = os.path.join(out, f"s{s}-h{h}-{mode}-{trial}.json")
            assert not lib.L.bwd_write_trace(hd, fn.encode(), f"mode=deterministic;seqlen={s};head_dim=64;batch=1;heads_per_batch={h};kv_heads={h};plan_file={name};l2={mode}".encode())
            print(fn, flush=True)
    lib.L.bwd_free(hd)
