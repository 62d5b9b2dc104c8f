#!/bin/bash
# issue 24's wall-time targets on two otherwise idle cores (taskset: cpu0 and the first CPU that is not its SMT
# sibling), for a machine with cores to spare (the shared 2-core test machine has none): the paper sweep with
# --jobs 1 and 2 in turn (PAIRS pairs, default 5), search at 132 SMs x 64 heads on window:32 and random:0.3:1
# (RUNS runs, default 3), and validate over make validate's traces with --jobs 2 (RUNS runs). One line a run:
# LABEL wall user system (bash's time, seconds) rc=EXIT; then the medians and the sweep's pair ratio.
# Usage: bash bench/bench_pinned.sh [bin/sim]   (CPUS=a,b to choose the cores)
set -u
sim=${1:-bin/sim}
pairs=${PAIRS:-5} runs=${RUNS:-3}
cd "$(dirname "$0")/.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
second=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do
    grep -qx "$(cat "$c/topology/thread_siblings_list")" <<<"$sib" || { echo "${c##*cpu}"; break; }; done)
cpus=${CPUS:-0,$second}
echo "# cores $cpus (cpu0's SMT siblings: $sib), $(nproc) processors, load $(cut -d' ' -f1-3 /proc/loadavg)"
TIMEFORMAT="%R %U %S"
run() { # LABEL CMD...
    local times
    times=$( { time taskset -c "$cpus" "${@:2}" >/dev/null 2>"$t/err"; echo $? >"$t/rc"; } 2>&1 )
    echo "$1 $times rc=$(cat "$t/rc")" | tee -a "$t/runs"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for _ in $(seq "$pairs"); do
    run sweep-j1 "$sim" sweep configs/dash-paper.json --jobs 1
    run sweep-j2 "$sim" sweep configs/dash-paper.json --jobs 2
done
for _ in $(seq "$runs"); do
    run search-window "$sim" search --mask window:32 --n 132 --heads 64
    run search-random "$sim" search --mask random:0.3:1 --n 132 --heads 64
done
dirs=()
for d in traces/h100 traces/h100-spin traces/h100-predict traces/h100-mask traces/h100-mask16 traces/kernel/traces \
         traces/kernel-cal/d128 traces/kernel-cal/d64; do [ -d "$d" ] && dirs+=("$d"); done
for _ in $(seq "$runs"); do # rc=1: some trace beyond the tolerance, as make validate without its baseline
    run validate "$sim" validate "${dirs[@]}" --latency-matrix traces/calib-latency.json \
        --profile configs/profiles/h100-sxm.json --jobs 2
done
for l in sweep-j1 sweep-j2 search-window search-random validate; do
    echo "median $l: $(awk -v l=$l '$1 == l { print $2 }' "$t/runs" | median) s wall"
done
awk '$1 == "sweep-j1" { a[++i] = $2 } $1 == "sweep-j2" { b[++j] = $2 } END { for (k = 1; k <= i; k++) print a[k] / b[k] }' \
    "$t/runs" | median | awk '{ printf "sweep --jobs 2 speedup: %.2fx, the median of the pairs (target at least 1.8x)\n", $1 }'
