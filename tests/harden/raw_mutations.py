# Writes 22 malformed raw calibration files (valid JSON, each one defect) into DIR: tests/cli_output_layer_and_readers.sh
# checks that sim calibrate refuses 21 of them and that the one it accepts (hand-offs faster under load)
# makes a profile its reader accepts. Usage: raw_mutations.py RAW.json DIR
import json, sys, copy
src, out = sys.argv[1], sys.argv[2]
base = json.load(open(src))
def m(name, f):
    d = copy.deepcopy(base); f(d)
    with open(f"{out}/{name}.json", "w") as fh: fh.write(json.dumps(d, allow_nan=True))
rows = lambda d, s: d[s]["rows"]
def setall(lst, key, v):
    for r in lst: r[key] = v
m("iters-equal", lambda d: [r.update(iters=[4] * len(r["iters"])) for r in rows(d, "compute")])
m("iters-string", lambda d: [r.update(iters=["x"] * len(r["iters"])) for r in rows(d, "compute")])
m("median-null", lambda d: [r.update(median_ns=[None] * len(r["median_ns"])) for r in rows(d, "compute")])
m("clock-zero", lambda d: [r.update(sm_clock_mhz=[0] * len(r["sm_clock_mhz"])) for r in rows(d, "compute")])
m("clock-string", lambda d: [r.update(sm_clock_mhz=["fast"] * len(r["sm_clock_mhz"])) for r in rows(d, "compute")])
m("stage-string", lambda d: [r.update(stage_serial_median_ns=["s"] * len(r["stage_serial_median_ns"])) for r in rows(d, "compute")])
m("median-negative", lambda d: [r.update(median_ns=[-1e6] * len(r["median_ns"])) for r in rows(d, "compute")])
m("compute-no-all-sm", lambda d: [r.update(sms=1) for r in rows(d, "compute")])
m("compute-rows-other-sms", lambda d: d["metadata"].update(sm_count=100))
m("staging-none-32", lambda d: [r.update(compute_iters=1) for r in d["staging"]["async"]])
m("reduce-all-k2", lambda d: d["reduce_inflight"].update(rows=[r for r in rows(d, "reduce_inflight") if r["k"] != 1]))
m("handoff-none-bulk", lambda d: [r.update(load_op="ldst") for r in rows(d, "handoff_load")])
m("handoff-decreasing", lambda d: [r.update(one_way_median_ns=5000 - 100 * i) for i, r in enumerate(rows(d, "handoff_load"))])
m("launch-first-none", lambda d: [r.update(grid_ctas=7) for r in d["launch"]["kernel_to_first_cta"]])
m("prologue-string", lambda d: [r.update(tasks="many") for r in d["launch"]["prologue"]])
m("prologue-descending", lambda d: d["launch"].update(prologue=list(reversed(d["launch"]["prologue"]))))
m("task-loop-clock-high", lambda d: [r.update(sm_clock_mhz=1e5) for r in rows(d, "task_loop")])
m("task-loop-iters-equal", lambda d: [r.update(iters=8) for r in rows(d, "task_loop")])
m("task-loop-compute-negative", lambda d: [r.update(compute_mean_ns=-5) for r in rows(d, "task_loop")])
m("stamped-rows-empty", lambda d: d["handoff_stamped"].update(rows=[]))
m("stamped-k-descending", lambda d: d["handoff_stamped"].update(rows=list(reversed(rows(d, "handoff_stamped")))))
m("metadata-sm-count-string", lambda d: d["metadata"].update(sm_count="132"))
