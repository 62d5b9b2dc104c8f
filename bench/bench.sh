#!/bin/bash
# `make bench`: time and peak memory of bin/sim at growing sizes, then every bench/bench_*.sh.
# Prints one line per size: tasks, seconds (wall), peak RSS in MB. GNU time gives RSS.
set -eu
sim=${1:-bin/sim}
command -v /usr/bin/time >/dev/null || { echo "bench needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
echo "# attention: fa3, full mask, 132 SMs, serial reduction (engine + DAG + critical path)"
printf "%-10s %-6s %-6s %12s %9s %9s\n" heads kv q tasks seconds rss_mb
for size in "4 64 64" "8 128 128" "16 128 128" "32 128 128"; do
    set -- $size
    /usr/bin/time -f "%e %M" -o /tmp/bench.$$ "$sim" --policy fa3 --n 132 --heads "$1" --kv-tiles "$2" \
        --q-tiles "$3" --json >/tmp/bench.out.$$
    read -r secs kb </tmp/bench.$$
    tasks=$(sed -n 's/.*"tasks":\([0-9]*\).*/\1/p' /tmp/bench.out.$$)
    printf "%-10s %-6s %-6s %12s %9s %9d\n" "$1" "$2" "$3" "$tasks" "$secs" $((kb / 1024))
done
rm -f /tmp/bench.$$ /tmp/bench.out.$$
for b in "$(dirname "$0")"/bench_*.sh; do
    [ -e "$b" ] && bash "$b" "$sim"
done
exit 0
