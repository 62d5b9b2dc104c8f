#!/bin/bash
# `make bench`: bin/sim (fa3, full mask, 132 SMs, serial: engine + full DAG analysis) at 16k to 10M tasks
# against the floor, a plain array binary-heap event loop (bench/floor_heap.c: push + pop on (time, seq),
# 132 in flight) over the same number of events (one per op, 2 per task), measured in the same run. CPU time
# (user + system, bench/cpu_time.c: wait4's rusage, microseconds; the floor: its own process CPU clock)
# and peak RSS. RUNS rounds (default 5): in each round every size runs in turn, 3 times or, for the small
# sizes, up to 32 (a 16k-task run takes about 8 ms), and gives the median of those runs; a figure is the
# median over the rounds. Then every bench/bench_*.sh.
# Columns: tasks, seconds, ns per task, floor ns per event, ratio = the median over the rounds of each
# round's own seconds / (events x floor) (the two measured back to back), peak MB, peak bytes per task,
# hot ns/task: the same job run again in one process (bench/hot_job.c, linked to
# build/libdashsim-internal.a), its memory already mapped, so without the cost of fresh pages, and the
# per-pair ratios' min-max. Targets: 524288 tasks at most 1.0x the floor (issue 35) and 80 bytes a task
# (issue 24); ns/task flat within 20% from 16k to 10M tasks (issue 17). ev_ratio and ev_bytes/t: the same
# job with --engine event (the event engine where the fast path would apply) in the same round, against the
# same floor reading (targets, issue 35: at most 1.5x, 80 bytes a task).
set -eu
sim=${1:-bin/sim}
runs=${RUNS:-5}
sizes=${HEADS:-1 8 32 128 640}   # heads of 128 x 128 tiles: 16k, 131k, 524k, 2.1M, 10.5M tasks
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -std=c11 -o "$tmp/floor_heap" "$here/floor_heap.c"
${CC:-cc} -O2 -std=c11 -o "$tmp/cpu_time" "$here/cpu_time.c"
root=$here/..
# every module's names: the tree's internal archive (a tree from before issue 26 has only lib/libdashsim.a)
archive=$root/build/libdashsim-internal.a
[ -f "$archive" ] || archive=$root/lib/libdashsim.a
# shellcheck disable=SC2046 # pkg-config's flags are words
${CC:-cc} -O2 -std=c11 -D_DEFAULT_SOURCE -I"$root/sim/core" -I"$root/include" -I"$root/dag" \
    -I"$root/policies/attention" -I"$root/policies/pipeline" -I"$root/policies/decode" $(for d in "$root"/sim/model/*/; do printf -- "-I%s " "${d%/}"; done) \
    -I"$root/sim/io" -I"$root/sim/run" $(pkg-config --cflags glib-2.0) -o "$tmp/hot_job" \
    "$here/hot_job.c" "$archive" $(pkg-config --libs igraph glib-2.0 libcjson zlib) -lm -lpthread

# one HEADS KV Q [FLAG...]: median CPU seconds and peak KB of the attention command over a round's runs
one() {
    local tasks=$(($1 * $2 * $3)) reps heads=$1 kv=$2 q=$3
    shift 3
    reps=$((524288 / tasks > 3 ? 524288 / tasks : 3))
    reps=$((reps > 32 ? 32 : reps))
    "$tmp/cpu_time" "$reps" "$sim" --policy fa3 --n 132 --heads "$heads" --kv-tiles "$kv" --q-tiles "$q" \
        --max-memory-mb 16384 "$@"
}

# The sizes take turns, round after round (RUNS rounds), so a drift of the machine's speed during the run
# reaches every size alike. Within a round the simulator and the floor of one size run back to back as a
# pair, in alternating order (sim first in odd rounds, floor first in even ones), and the pair gives its own
# ratio: the figure quoted is the median of the per-pair ratios, never a ratio of two medians taken at
# different moments (one slow floor reading would flatter it).
for round in $(seq "$runs"); do
    echo "0 $(one 1 1 1)" >>"$tmp/runs"
    for heads in $sizes; do
        if [ $((round % 2)) -eq 1 ]; then
            sim_fields=$(one "$heads" 128 128)
            floor_fields=$("$tmp/floor_heap" $((2 * heads * 128 * 128)) 132)
            event_fields=$(one "$heads" 128 128 --engine event)
        else
            event_fields=$(one "$heads" 128 128 --engine event)
            floor_fields=$("$tmp/floor_heap" $((2 * heads * 128 * 128)) 132)
            sim_fields=$(one "$heads" 128 128)
        fi
        # fields: heads, seconds, KB (cpu_time), floor ns/event, checksum (floor_heap), first, hot (hot_job),
        # ratio (this pair), the event engine's seconds and KB (--engine event), its ratio to the same floor
        echo "$heads $sim_fields $floor_fields $("$tmp/hot_job" "$heads" $((heads < 32 ? 9 : heads < 128 ? 3 : 1)))" \
            "$event_fields" |
            awk -v e=$((2 * heads * 128 * 128)) '{ print $1, $2, $3, $4, $5, $6, $7, $2 * 1e9 / (e * $4), $8, $9,
                $8 * 1e9 / (e * $4) }' >>"$tmp/runs"
    done
done
# median COLUMN of the rounds of HEADS (0: the one-task run)
median() {
    awk -v h="$1" -v c="$2" '$1 == h { print $c }' "$tmp/runs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
# "min-max" of COLUMN over the rounds of HEADS
spread() {
    awk -v h="$1" -v c="$2" '$1 == h { v = $c; lo = !n || v < lo ? v : lo; hi = !n || v > hi ? v : hi; n++ }
        END { printf "%.2f-%.2f", lo, hi }' "$tmp/runs"
}

echo "# attention: fa3, full mask, 132 SMs, 128 x 128 tiles per head, serial reduction, full analysis;"
echo "# CPU time, medians of $runs rounds (the sizes in turn; 3 to 32 runs of each size a round);"
echo "# floor = bare heap push+pop, 132 in flight, same number of events, run next to the simulator in each round;"
echo "# ratio = median over the rounds of each pair's seconds / (events x floor ns), span = those ratios' min-max;"
echo "# ev_ratio, ev_bytes/t = the same for --engine event (the event engine forced), run beside the same floor;"
echo "# net ns/task = (seconds - a one-task run's seconds, the process start and exit) / tasks;"
echo "# hot ns/task = the job run again in one process (bench/hot_job.c): no fresh pages to fault in"
empty=$(median 0 2)
printf "%10s %9s %8s %8s %10s %7s %8s %11s %7s %10s %9s %10s\n" tasks seconds ns/task net_ns floor_ns/ev ratio peak_mb \
    bytes/task hot_ns ratio_span ev_ratio ev_bytes/t
for heads in $sizes; do
    tasks=$((heads * 128 * 128))
    awk -v t="$tasks" -v s="$(median "$heads" 2)" -v z="$empty" -v f="$(median "$heads" 4)" -v r="$(median "$heads" 8)" \
        -v kb="$(median "$heads" 3)" -v hot="$(median "$heads" 7)" -v span="$(spread "$heads" 8)" \
        -v er="$(median "$heads" 11)" -v ekb="$(median "$heads" 10)" 'BEGIN {
        printf "%10d %9.3f %8.0f %8.0f %10.1f %7.2f %8.1f %11.0f %7.0f %10s %9.2f %10.0f\n", t, s, s * 1e9 / t,
               (s - z) * 1e9 / t, f, r, kb / 1024, kb * 1024 / t, hot * 1e9 / t, span, er, ekb * 1024 / t }' |
        tee -a "$tmp/rows"
done
# flatness of COLUMN (net or hot ns/task)
flatness() {
    awk -v c="$1" -v what="$2" '{ n = $c; lo = NR == 1 || n < lo ? n : lo; hi = NR == 1 || n > hi ? n : hi }
        END { if (NR > 1) printf "%s from %.0f to %.0f, max/min %.2f\n", what, lo, hi, hi / lo }' "$tmp/rows"
}
awk '$1 == 524288 { printf "524288 tasks: %.2fx the floor, median of per-pair CPU-time ratios (target at most 1.0), %.0f bytes a task (target at most 80)\n", $6, $8
    printf "524288 tasks, --engine event: %.2fx the floor (target at most 1.5), %.0f bytes a task (target at most 80)\n", $11, $12 }' \
    "$tmp/rows"
flatness 4 "flatness: net ns/task" | sed 's/$/ (target at most 1.20)/'
flatness 9 "hot flatness (memory already mapped): ns/task"
[ -n "${HEADS:-}" ] && exit 0   # a quick look at some sizes only
for b in "$here"/bench_*.sh; do
    [ -e "$b" ] && bash "$b" "$sim"
done
exit 0
