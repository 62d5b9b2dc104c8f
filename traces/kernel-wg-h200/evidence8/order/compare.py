#!/usr/bin/env python3
"""Call 43's figures (README.md): evidence 8's shapes timed in the usual policy order and reversed, twice each, on one
card; printed against each other and against call 41's runs. Usage: python3 compare.py (from this folder or the root)"""
import json
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    d = json.load(open(path))
    return {(r["mask"], r["seqlen"], r["batch"], r["heads"], r["kv_heads"], r["head_dim"], r["policy"]): r["ms"]
            for r in d["records"] if r["mode"] == "deterministic"}


F1, F2, R1, R2 = (load(os.path.join(HERE, n + ".json")) for n in ("forward-1", "forward-2", "reversed-1", "reversed-2"))
E = load(os.path.join(HERE, "..", "wgmma-evidence8-default.json"))
fwd = {k: (F1[k] + F2[k]) / 2 for k in F1}
rev = {k: (R1[k] + R2[k]) / 2 for k in F1}
rat = [rev[k] / fwd[k] - 1 for k in F1]
pct = lambda x: 100 * x
print("runs: %d; reversed / forward: median %+.2f%%, |.| median %.2f%%, range %+.2f..%+.2f%%" % (
    len(rat), pct(st.median(rat)), pct(st.median(abs(x) for x in rat)), pct(min(rat)), pct(max(rat))))
for a, b, name in ((F1, F2, "forward 2 / forward 1"), (R1, R2, "reversed 2 / reversed 1")):
    v = [abs(b[k] / a[k] - 1) for k in a]
    print("%s: |.| median %.2f%%, max %.2f%%" % (name, pct(st.median(v)), pct(max(v))))
for p in ("fa3", "fa3-spt", "descending", "symmetric-shift", "shift"):
    v = [rev[k] / fwd[k] - 1 for k in F1 if k[6] == p]
    print("  %-16s n %2d  reversed / forward median %+.2f%%, range %+.2f..%+.2f%%" % (
        p, len(v), pct(st.median(v)), pct(min(v)), pct(max(v))))
sp = [100 * (rev[k[:6] + ("fa3",)] / rev[k] - fwd[k[:6] + ("fa3",)] / fwd[k]) for k in F1 if k[6] != "fa3"]
print("speedup over fa3, reversed less forward: median %+.2f pp, |.| median %.2f pp, range %+.2f..%+.2f pp" % (
    st.median(sp), st.median(abs(x) for x in sp), min(sp), max(sp)))
cc = [fwd[k] / E[k] - 1 for k in F1]
print("this card (forward) / call 41's: median %+.2f%%, |.| median %.2f%%, max |.| %.2f%%" % (
    pct(st.median(cc)), pct(st.median(abs(x) for x in cc)), pct(max(abs(x) for x in cc))))
k = ("causal", 1792, 2, 8, 8, 128)
for p in ("fa3", "symmetric-shift"):
    print("causal s1792 b2 h8 d 128 %-16s call 41 %.1f us; here forward %.1f, %.1f, reversed %.1f, %.1f us" % (
        p, 1000 * E[k + (p,)], 1000 * F1[k + (p,)], 1000 * F2[k + (p,)], 1000 * R1[k + (p,)], 1000 * R2[k + (p,)]))
