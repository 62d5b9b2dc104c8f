#!/bin/bash
# The evidence of docs/masks.md. Table: sim search over masks and head counts at 132 SMs (serial model,
# c 1000 ns, r 500 ns), with both lower bounds and the hand-made orders; prints a markdown table.
# Ranges: the same on 96 instances that are not in the table (other windows, documents, tile counts, SM
# counts, head counts), then per mask family the range of found vs ascending and vs the best hand-made
# order, and the largest gap to the space's bound: figures that hold beyond the table's own instances.
# Usage: scripts/search-table.sh [bin/sim] [iterations] [table|ranges]
set -eu
sim=${1:-bin/sim}
iters=${2:-20}
what=${3:-table}

# MASK N HEADS TILES: one JSON line of sim search
one() {
    "$sim" search --mask "$1" --n "$2" --heads "$3" --tiles "$4" --iterations "$iters" --json
}

if [ "$what" = table ]; then
    echo "| mask | heads | bound, any plan (ns) | bound, the space (ns) | found (ns) | gap to the space bound | ascending | descending | spt | found vs best hand-made | found vs ascending |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
    for mask in full causal window:8 window:32 window:16:16 document:66,66 document:8,16,32,76 document:44,44,44 \
                prefix:16 prefix:66 random:0.05:1 random:0.2:1; do
        for heads in 1 16 64; do
            one "$mask" 132 "$heads" 132 | python3 -c '
import json, sys
j = json.load(sys.stdin); b = j["baselines"]; f = j["makespan_ns"]
hand = [v for k, v in b.items() if v is not None]
fmt = lambda v: "deadlock" if v is None else "%d" % v
print("| %s | %d | %d | %d | %d | %.2f%% | %s | %s | %s | %.3fx | %.3fx |" % (j["mask"], j["heads"], j["lower_bound_ns"],
      j["space_bound_ns"], f, 100 * j["space_gap"], fmt(b["ascending"]), fmt(b["descending"]), fmt(b["spt"]),
      min(hand) / f, (b["ascending"] or 0) / f))'
        done
    done
    exit 0
fi

# ranges: window and document masks of other shapes, prefix and random ones, 2 SM counts x 3 head counts
for shape in "66 33" "132 100" "132 264"; do
    read -r n tiles <<<"$shape"
    w1=$((tiles / 16 + 1)) w2=$((tiles / 4)) d1=$((tiles / 3)) d2=$((tiles - 2 * (tiles / 3)))
    for mask in "window:$w1" "window:$w2" "window:$w1:$w1" "document:$d1,$d1,$d2" \
                "document:$((tiles / 8)),$((tiles - tiles / 8))" "prefix:$w1" "random:0.1:7" "random:0.3:9"; do
        for heads in 3 5 24 48; do
            one "$mask" "$n" "$heads" "$tiles"
        done
    done
done | python3 -c '
import json, sys
fam = {}
for line in sys.stdin:
    j = json.loads(line); b = [v for v in j["baselines"].values() if v is not None]
    k = j["mask"].split(":")[0]
    f = fam.setdefault(k, {"asc": [], "best": [], "gap": [], "n": 0})
    f["n"] += 1
    f["asc"].append(j["baselines"]["ascending"] / j["makespan_ns"])
    f["best"].append(min(b) / j["makespan_ns"])
    f["gap"].append(100 * j["space_gap"])
print("| family | instances | found vs ascending | found vs best hand-made | gap to the space bound |")
print("|---|---|---|---|---|")
for k, f in fam.items():
    print("| %s | %d | %.2f-%.2fx | %.3f-%.3fx | %.2f-%.2f%% |" % (k, f["n"], min(f["asc"]), max(f["asc"]), min(f["best"]),
          max(f["best"]), min(f["gap"]), max(f["gap"])))'
