#!/usr/bin/env python3
# Issue 13 item 4 (docs/kernel.md): makespan of every policy predicted by bin/sim with c from the ATOMIC-mode run
# of the same shape (bench.json: ms x 132 / tasks), r from configs/profiles/h100-sxm.json (bulk, tile 64 x 128,
# k = 1 and k = 132 ends of its load curve; the curve itself is not applied), latency = the profile handoff idle_ns.
# Run from the repository root after make all: python3 scripts/kernel-predict.py > traces/kernel/prediction.txt
import json, subprocess, gzip
B = json.load(open('./traces/kernel/bench.json'))
prof = json.load(open('./configs/profiles/h100-sxm.json'))
bulk = [x for x in prof['reduce'] if x['tile_m'] == 64 and x['head_dim'] == 128 and x['op'] == 'bulk'][0]
L = prof['handoff']['idle_ns']
POL = {'full': ['fa3', 'descending', 'shift'], 'causal': ['fa3', 'fa3-spt', 'descending', 'symmetric-shift']}
def rec(mask, s, pol, mode):
    for r in B['records']:
        if r['backend'] == 'dashsim' and r['mask'] == mask and r['seqlen'] == s and r['head_dim'] == 128 \
           and r['batch'] * r['heads'] == 16 and r['policy'] == pol and r['mode'] == mode:
            return r
def sim(pol, mask, s, c, r):
    out = subprocess.run(['./bin/sim', '--policy', pol, '--mask', mask, '--n', '132', '--heads', '16',
        '--kv-tiles', str(s // 128), '--q-tiles', str(s // 64), '--tile-ratio', '2', '--reduce', 'async',
        '--c', str(c), '--r', str(r), '--latency', str(L), '--json'], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)
rows = []
for mask, s in (('causal', 4096), ('causal', 8192), ('full', 4096)):
    at = rec(mask, s, 'fa3', 'atomic')
    tasks = sim('fa3', mask, s, 1000, 1)['tasks']
    c = round(at['ms'] * 1e6 * 132 / tasks)
    res = {}
    for rname, r in (('k1', bulk['ns'][0]), ('k132', bulk['ns'][-1])):
        for p in POL[mask]:
            res[(rname, p)] = sim(p, mask, s, c, r)['makespan_ns']
    for p in POL[mask]:
        d = rec(mask, s, p, 'deterministic')
        tr = json.loads(gzip.open(f'./traces/kernel/traces/{p}-{mask}-s{s}-bh16-d128.json.gz').read())['metadata']['makespan_ns']
        f3 = rec(mask, s, 'fa3', 'deterministic')
        f3tr = json.loads(gzip.open(f'./traces/kernel/traces/fa3-{mask}-s{s}-bh16-d128.json.gz').read())['metadata']['makespan_ns']
        rows.append(dict(mask=mask, s=s, pol=p, atomic_ms=at['ms'], tasks=tasks, c=c, meas_ms=d['ms'], trace_ms=tr / 1e6,
            pred_ms=res[('k1', p)] / 1e6, pred132_ms=res[('k132', p)] / 1e6,
            meas_sp=f3['ms'] / d['ms'], trace_sp=f3tr / tr, pred_sp=res[('k1', 'fa3')] / res[('k1', p)],
            pred132_sp=res[('k132', 'fa3')] / res[('k132', p)]))
print('r k1', bulk['ns'][0], 'k132', bulk['ns'][-1], 'L', L)
print('| mask | seqlen | policy | atomic ms (fa3 order) | tasks | c ns | measured ms (bench) | measured makespan ms (trace) | predicted ms (r=%d) | error vs bench | predicted ms (r=%d) | speedup over fa3: bench | trace | predicted (r=%d) | predicted (r=%d) |' % (bulk['ns'][0], bulk['ns'][-1], bulk['ns'][0], bulk['ns'][-1]))
print('|' + '---|' * 15)
for x in rows:
    print(f"| {x['mask']} | {x['s']} | {x['pol']} | {x['atomic_ms']:.3f} | {x['tasks']} | {x['c']} | {x['meas_ms']:.3f} | {x['trace_ms']:.3f} | "
          f"{x['pred_ms']:.3f} | {100*(x['pred_ms']/x['meas_ms']-1):+.1f}% | {x['pred132_ms']:.3f} | {x['meas_sp']:.2f} | {x['trace_sp']:.2f} | {x['pred_sp']:.2f} | {x['pred132_sp']:.2f} |")
# Sensitivity (not the prescribed calibration): causal 4096 with c from the FULL-mask atomic run of seqlen 4096,
# which has no causal load imbalance in the fa3 order.
c_full = round(rec('full', 4096, 'fa3', 'atomic')['ms'] * 1e6 * 132 / sim('fa3', 'full', 4096, 1000, 1)['tasks'])
m = {p: sim(p, 'causal', 4096, c_full, bulk['ns'][0])['makespan_ns'] for p in POL['causal']}
print(f"\nsensitivity: causal 4096 with c = {c_full} ns (full-mask atomic run), r = {bulk['ns'][0]}, latency = {L}")
for p in POL['causal']:
    d = rec('causal', 4096, p, 'deterministic')
    print(f"  {p:16s} predicted {m[p]/1e6:.3f} ms, bench {d['ms']:.3f} ms ({100*(m[p]/1e6/d['ms']-1):+.1f}%), "
          f"predicted speedup over fa3 {m['fa3']/m[p]:.2f}")
