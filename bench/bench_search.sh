#!/bin/bash
# Part of `make bench`: `sim search` (100 moves, seed 1, the defaults) at 132 SMs x 64 heads on a window
# and a random mask, CPU time (user + system, /usr/bin/time) and peak RSS, the median of RUNS (default 3)
# runs; then peak memory per task over a range of sizes, which a search linear in tasks keeps flat.
# Targets (issue 24): at most 2 s for window and random masks at 132 x 64, and linear memory.
set -eu
sim=${1:-bin/sim}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The process alone (a one-task search): its peak KB is taken off the peaks below for bytes per task
base_kb=$(/usr/bin/time -f "%M" "$sim" search --mask full --tiles 1 --n 1 2>&1 >/dev/null | tail -1)

# LABEL MASK_BYTES ARGS...: one line: tasks, the median CPU seconds and peak MB of RUNS runs, and the peak
# bytes per task above the process alone and the mask (the input's, one byte a tile pair: given)
row() {
    local label=$1 mask_bytes=$2; shift 2
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$sim" search "$@" --json >"$tmp/j"
        awk '{ print $1 + $2, $3 }' "$tmp/t" >>"$tmp/runs"
    done
    local tasks secs kb m=$(((runs + 1) / 2))
    tasks=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tasks"])' "$tmp/j")
    secs=$(cut -d' ' -f1 "$tmp/runs" | sort -g | sed -n "${m}p")
    kb=$(cut -d' ' -f2 "$tmp/runs" | sort -g | sed -n "${m}p")
    awk -v label="$label" -v t="$tasks" -v s="$secs" -v kb="$kb" -v base="$base_kb" -v m="$mask_bytes" 'BEGIN {
        printf "%-32s %9d %8.2f %8.1f %10.0f\n", label, t, s, kb / 1024, ((kb - base) * 1024 - m) / t }' | tee -a "$tmp/rows"
    rm -f "$tmp/runs"
}

echo "# search: 132 SMs, serial c 1000 r 500; CPU seconds (user + system) and peak RSS, medians of $runs runs;"
echo "# net B/task: the peak above a one-task search's ($((base_kb / 1024)) MB) and the mask's bytes, over the tasks"
printf "%-32s %9s %8s %8s %10s\n" search tasks seconds peak_mb net_B/task
row "window:32 64 heads" 17424 --mask window:32 --n 132 --heads 64
row "random:0.3:1 64 heads" 17424 --mask random:0.3:1 --n 132 --heads 64
awk 'NR <= 2 && $(NF - 2) > worst { worst = $(NF - 2) } END { printf "132 x 64 heads, 100 moves: at most %.2f s (target at most 2 s)\n", worst }' \
    "$tmp/rows"
for heads in 16 64 256; do
    row "window:8 $heads heads, 20 moves" 17424 --mask window:8 --n 132 --heads "$heads" --iterations 20
done
row "window:8 4096 tiles" 16777216 --mask window:8 --n 132 --tiles 4096 --iterations 20
row "window:8 4096 tiles 16 heads" 16777216 --mask window:8 --n 132 --tiles 4096 --heads 16 --iterations 20
awk 'NR > 2 { b = $NF; t = $(NF - 3); if (lo == "" || b < lo) lo = b; if (b > hi) hi = b; if (tl == "" || t < tl) tl = t; if (t > th) th = t }
     END { printf "memory: %.0f to %.0f net bytes a task from %d to %d tasks (linear: flat)\n", lo, hi, tl, th }' "$tmp/rows"
