#!/bin/bash
# `make bench`: wall time of the DASH paper sweep (configs/dash-paper.json, 84 jobs) with --jobs 1 and 2,
# and a check that both give the same bytes. The target is under 20 s with --jobs 2 on a 2-core machine.
set -eu
sim=${1:-bin/sim}
cfg=$(dirname "$0")/../configs/dash-paper.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# sweep: configs/dash-paper.json (seqlen 512..16384 x head_dim 64,128 x full,causal x every policy)"
printf "%-6s %6s %9s %9s\n" jobs rows seconds rss_mb
for jobs in 1 2; do
    /usr/bin/time -f "%e %M" -o "$out/time" "$sim" sweep "$cfg" --jobs "$jobs" >"$out/$jobs.csv"
    read -r secs kb <"$out/time"
    printf "%-6s %6d %9s %9d\n" "$jobs" $(($(wc -l <"$out/$jobs.csv") - 1)) "$secs" $((kb / 1024))
done
cmp -s "$out/1.csv" "$out/2.csv" && echo "same bytes for --jobs 1 and 2" || { echo "--jobs 1 and 2 differ" >&2; exit 1; }
