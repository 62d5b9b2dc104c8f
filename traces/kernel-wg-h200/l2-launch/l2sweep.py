"""Call 45 (session 9): the first compute at launch against the backward's working set (the L2 rule's calibration).
Full-mask fa3 plans at seqlen 2048 (d 64: 4-48 heads, d 128: 2-24) and 2560 (4 heads, both head dims), each recorded
twice after a plain backward of the same shape (back to back, as timed runs are) and twice after a 256 MB write that
evicts L2 (flush). Writes OUT/dD/s{S}-h{H}-{mode}-{trial}.json traces."""
import ctypes, json, lzma, os, sys
import torch
sys.path.insert(0, "gpu/bwd")
import bench

out = os.environ["OUT"]
lib = bench.Lib("build/gpu/bwd/libdashbwd.so")
junk = torch.empty(64 << 20, device="cuda", dtype=torch.float32)
for sh in json.load(open(".dev/l2sweep.json"))["shapes"]:
    s, h, d = sh["seqlen"], sh["heads"], sh["head_dim"]
    name = f"fa3-full-s{s}-bh{h}.plan"
    path = "/tmp/" + name
    with lzma.open(".dev/plansl2/" + name + ".xz") as f, open(path, "wb") as g:
        g.write(f.read())
    err = ctypes.create_string_buffer(1024)
    hd = lib.L.bwd_new(path.encode(), err, 1024)
    assert hd, err.value
    assert not lib.L.bwd_set_kernel(hd, b"wgmma")
    t, scale = bench.make_inputs(1, h, h, s, d, False, seed=s + h + d)
    os.makedirs(os.path.join(out, f"d{d}"), exist_ok=True)
    for trial in range(2):
        for mode in ("plain", "flush"):
            lib.run(hd, t, scale, False)
            if mode == "flush":
                junk.fill_(float(trial))
            torch.cuda.synchronize()
            lib.run(hd, t, scale, False, record=True)
            torch.cuda.synchronize()
            lib.check(hd)
            fn = os.path.join(out, f"d{d}", f"s{s}-h{h}-{mode}-{trial}.json")
            meta = f"mode=deterministic;seqlen={s};head_dim={d};batch=1;heads_per_batch={h};kv_heads={h};plan_file={name};l2={mode}"
            assert not lib.L.bwd_write_trace(hd, fn.encode(), meta.encode())
            print(fn, flush=True)
    lib.L.bwd_free(hd)
    del t
    torch.cuda.empty_cache()
