#!/bin/bash
# Part of `make bench`: wall time and peak memory of `sim decode --regression` (160 configurations, each
# simulating fa3, seq-aware and every split count of `best`), contiguous and paged KV.
set -eu
sim=${1:-bin/sim}
echo "# decode regression: 160 configs x (fa3 + seq-aware + best over s = 1..min(128, n_blocks))"
printf "%-12s %9s %9s\n" kv seconds rss_mb
for mode in contiguous paged; do
    flag=; [ "$mode" = paged ] && flag=--paged
    /usr/bin/time -f "%e %M" -o /tmp/bench-decode.$$ "$sim" decode --regression $flag >/dev/null
    read -r secs kb </tmp/bench-decode.$$
    printf "%-12s %9s %9d\n" "$mode" "$secs" $((kb / 1024))
done
rm -f /tmp/bench-decode.$$
