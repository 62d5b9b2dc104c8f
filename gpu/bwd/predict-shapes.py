#!/usr/bin/env python3
"""The model's predictions for a shape list (gpu/bwd/shapes.py's format), made before the runs: for each shape,
`sim --seqlen ... --kernel KERNEL --json` ranks the shape's policies with the kernel profile (and, where it reports a
tie, the schedules it cannot order and its validated error: "tie", "validated_error"). Writes one JSON
("dashsim-kernel-predictions") to stdout. `sim validate RUNS.json` later recomputes the same numbers from the
same committed profile; this file is the record that they were written down first.
Usage: predict-shapes.py SHAPES.json [SIM] [KERNEL]"""
import json, subprocess, sys


def main():
    spec = json.load(open(sys.argv[1]))
    sim = sys.argv[2] if len(sys.argv) > 2 else "bin/sim"
    kernel = sys.argv[3] if len(sys.argv) > 3 else "gpu-bwd"
    out = []
    for sh in spec["shapes"]:
        cmd = [sim, "--seqlen", str(sh["seqlen"]), "--batch", str(sh["batch"]), "--heads", str(sh["heads"]),
               "--head-dim", str(sh["head_dim"]), "--mask", sh["mask"], "--kernel", kernel, "--json",
               "--max-memory-mb", "16000"]
        if sh["kv_heads"] != sh["heads"]:
            cmd += ["--kv-heads", str(sh["kv_heads"])]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        j = json.loads(r.stdout)
        keep = set(sh.get("policies", [p["policy"] for p in j["policies"]]))
        pols = [dict(policy=p["policy"], time_ns=p["time_ns"], makespan_ns=p["makespan_ns"]) for p in j["policies"]
                if p["policy"] in keep]
        best = min(pols, key=lambda p: p["time_ns"])
        rec = dict(shape=sh, command=" ".join(cmd[1:]), fixed_ns=j["fixed_ns"], policies=pols, winner=best["policy"])
        if j.get("is_tie"):  # the model's own verdict: these lead by less than its validated error
            rec.update(tie=[p for p in j["tie"] if p in keep], validated_error=j["validated_error"])
        out.append(rec)
    json.dump({"format": "dashsim-kernel-predictions", "version": 1, "shapes_file": sys.argv[1], "kernel": kernel,
               "predictions": out}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
