#!/bin/bash
# `make bench`: wall time of the DASH paper sweep (configs/dash-paper.json, 84 jobs) with --jobs 1 and 2,
# PAIRS pairs (default 5) run in turn (1, 2, 1, 2, ...), so a drift of the machine reaches both alike; the
# medians of each and the median of the pairs' ratios; and a check that both give the same bytes. Targets:
# under 20 s with --jobs 2, and --jobs 2 at least 1.8x faster than --jobs 1 (issue 17), on a 2-core machine.
set -eu
sim=${1:-bin/sim}
pairs=${PAIRS:-5}
cfg=$(dirname "$0")/../configs/dash-paper.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# median of the numbers on standard input
median() {
    sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for pair in $(seq "$pairs"); do
    for jobs in 1 2; do
        /usr/bin/time -f "%e %M" -o "$out/time" "$sim" sweep "$cfg" --jobs "$jobs" >"$out/$jobs.csv"
        echo "$pair $jobs $(cat "$out/time")" >>"$out/runs"
    done
done
echo "# sweep: configs/dash-paper.json (seqlen 512..16384 x head_dim 64,128 x full,causal x every policy);"
echo "# wall seconds and peak RSS, medians of $pairs runs of each, taken in turn"
printf "%-6s %6s %9s %9s\n" jobs rows seconds rss_mb
for jobs in 1 2; do
    secs=$(awk -v j="$jobs" '$2 == j { print $3 }' "$out/runs" | median)
    kb=$(awk -v j="$jobs" '$2 == j { print $4 }' "$out/runs" | median)
    printf "%-6s %6d %9s %9d\n" "$jobs" $(($(wc -l <"$out/$jobs.csv") - 1)) "$secs" $((kb / 1024))
done
awk '$2 == 1 { one[$1] = $3 } $2 == 2 { two[$1] = $3 } END { for (p in one) if (two[p] > 0) print one[p] / two[p] }' \
    "$out/runs" | median | awk '{ printf "--jobs 2 speedup: %.2fx, the median of the pairs (target at least 1.8x)\n", $1 }'
cmp -s "$out/1.csv" "$out/2.csv" && echo "same bytes for --jobs 1 and 2" || { echo "--jobs 1 and 2 differ" >&2; exit 1; }
