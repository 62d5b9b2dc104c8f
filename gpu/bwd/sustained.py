#!/usr/bin/env python3
"""The SM clock while gpu/bwd.shapes.py times a shape list (issue 31, docs/profile.md "The clock under sustained load"):
shapes.py unchanged (the same timed runs, checks and traces, OUT/NAME.json), with its timing wrapped so that NVML's
SM clock, power and temperature are polled (about every 2 ms, through libnvidia-ml) while each run's timed repetitions
execute, and, after them, while BURST_MS more of the same launch run back to back (the clock the load settles at).
Writes OUT/NAME-clock.json ("dashsim-kernel-clock"): per timed run, in the order of OUT/NAME.json's timed records,
each repetition's ms and the samples (ms since the first repetition's start, MHz, W, C) of the timing and the burst.
Usage: OUT=DIR [BWD_KERNEL=K] [BURST_MS=300] python3 gpu/bwd/sustained.py SHAPES.json PLANS_DIR [LIB.so]"""
import ctypes
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import shapes  # noqa: E402


class Nvml:
    def __init__(self):
        self.L = ctypes.CDLL("libnvidia-ml.so.1")
        self.h = ctypes.c_void_p()
        if self.L.nvmlInit_v2() or self.L.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.h)):
            raise RuntimeError("NVML did not start")

    def sample(self, t0):
        clk, mw, temp = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        self.L.nvmlDeviceGetClockInfo(self.h, 1, ctypes.byref(clk))  # NVML_CLOCK_SM
        self.L.nvmlDeviceGetPowerUsage(self.h, ctypes.byref(mw))
        self.L.nvmlDeviceGetTemperature(self.h, 0, ctypes.byref(temp))  # NVML_TEMPERATURE_GPU
        return [round((time.perf_counter() - t0) * 1e3, 2), clk.value, round(mw.value / 1e3, 1), temp.value]


NVML, RUNS, HARNESS = Nvml(), [], bench.time_fn
BURST_MS = float(os.environ.get("BURST_MS", "300"))


def poll(done, t0):
    samples = []
    while not done.query():
        samples.append(NVML.sample(t0))
        time.sleep(0.002)
    samples.append(NVML.sample(t0))
    return samples


def time_fn(fn, budget_s=0.03):
    """bench.time_fn itself, its repetitions polled; then the burst, polled apart."""
    run = {}

    def watch(start, ev, t0):
        samples = poll(ev[-1][1], t0)
        first = start.elapsed_time(ev[0][0])  # the sleep: samples are shifted to the first repetition's start
        run.update(rep_ms=[round(a.elapsed_time(b), 4) for a, b in ev],
                   samples=[[s[0] - first] + s[1:] for s in samples])

    ms, reps = HARNESS(fn, budget_s, watch)
    n = max(1, int(BURST_MS / max(ms, 1e-3)))
    end = torch.cuda.Event(enable_timing=True)
    t1 = time.perf_counter()
    for _ in range(n):
        fn()
    end.record()
    burst = poll(end, t1)
    torch.cuda.synchronize()
    RUNS.append(dict(run, burst_reps=n, burst=burst))
    return ms, reps


def main():
    bench.time_fn = time_fn
    name = json.load(open(sys.argv[1]))["name"]
    out = os.environ.get("OUT", "/tmp/shapes-out")
    try:
        shapes.main()
    finally:
        with open(os.path.join(out, f"{name}-clock.json"), "w") as f:
            json.dump({"format": "dashsim-kernel-clock", "version": 1, "name": name, "burst_ms": BURST_MS,
                       "columns": ["ms", "sm_mhz", "power_w", "temp_c"], "runs": RUNS}, f)


if __name__ == "__main__":
    main()
