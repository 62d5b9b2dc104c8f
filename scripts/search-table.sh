#!/bin/bash
# The evidence table of docs/masks.md: sim search over masks and head counts at 132 SMs (serial model,
# c 1000 ns, r 500 ns), with the lower bound and the hand-made orders. Prints a markdown table.
# Usage: scripts/search-table.sh [bin/sim] [iterations]
set -eu
sim=${1:-bin/sim}
iters=${2:-20}
echo "| mask | heads | lower bound (ns) | found (ns) | gap | ascending | descending | spt | found vs best hand-made | found vs ascending |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for mask in full causal window:8 window:32 window:16:16 document:66,66 document:8,16,32,76 document:44,44,44 \
            prefix:16 prefix:66 random:0.05:1 random:0.2:1; do
    for heads in 1 16 64; do
        "$sim" search --mask "$mask" --n 132 --heads "$heads" --iterations "$iters" --json | python3 -c '
import json, sys
j = json.load(sys.stdin); b = j["baselines"]; f = j["makespan_ns"]
hand = [v for k, v in b.items() if v is not None]
fmt = lambda v: "deadlock" if v is None else "%d" % v
print("| %s | %d | %d | %d | %.2f%% | %s | %s | %s | %.3fx | %.3fx |" % (j["mask"], j["heads"], j["lower_bound_ns"], f,
      100 * j["gap"], fmt(b["ascending"]), fmt(b["descending"]), fmt(b["spt"]), min(hand) / f,
      (b["ascending"] or 0) / f))'
    done
done
