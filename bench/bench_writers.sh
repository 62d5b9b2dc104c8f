#!/bin/bash
# `make bench`: what each output costs beside the simulation. CPU time (bench/cpu_time.c: user + system) of
# the attention job of bench.sh (fa3, full mask, 132 SMs, 128 x 128 tiles a head, serial, full analysis)
# alone and with --csv, --trace, --trace --trace-flows at 524,288 tasks, and alone and with --gantt
# (gnuplot's CPU time included: it runs as the job's child) at 131,072 tasks, each output a new file.
# RUNS rounds (default 5): each round runs every variant in turn, 3 times; a figure is the median over
# the rounds of the rounds' medians. ratio = (with the output - alone) / alone: the output's cost in units
# of the simulation's own time, computed within each round (the two measured minutes apart at most, in
# turn) and quoted as the median of the rounds' ratios, with their min-max; out_mb: the CSV, the trace or the Gantt's data file (MB = 2^20 bytes).
# Targets (issue 35): CSV at most 1, Perfetto at most 1.5.
set -eu
sim=${1:-bin/sim}
runs=${RUNS:-5}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -std=c11 -o "$tmp/cpu_time" "$here/cpu_time.c"

# variant NAME HEADS OUTPUT-FLAGS...: one round's median CPU seconds and output MB, as "NAME seconds MB"
variant() {
    local name=$1 heads=$2 out=$tmp/out/$1
    shift 2
    mkdir -p "$tmp/out"
    local t
    t=$(CPU_TIME_REMOVE="$out.csv:$out.csv.meta.json:$out.json:$out.png:$out.gp:$out.dat" "$tmp/cpu_time" 3 \
        "$sim" --policy fa3 --n 132 --heads "$heads" --kv-tiles 128 --q-tiles 128 "${@/OUT/$out}")
    local bytes
    bytes=$(cat "$out".csv "$out".json "$out".dat 2>/dev/null | wc -c)
    echo "$name ${t%% *} $bytes $round"
}

for round in $(seq "$runs"); do
    {
        variant alone-524k 32
        variant csv 32 --csv OUT.csv
        variant trace 32 --trace OUT.json
        variant trace-flows 32 --trace OUT.json --trace-flows
        variant alone-131k 8
        variant gantt 8 --gantt OUT.png
    } >>"$tmp/runs"
done
median() {
    awk -v n="$1" -v c="$2" '$1 == n { print $c }' "$tmp/runs" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
echo "# outputs: fa3, full mask, 132 SMs, serial, full analysis; CPU seconds, medians of $runs rounds of 3 runs;"
echo "# ratio = (with the output - the job alone) / the job alone (targets, issue 35: CSV at most 1, Perfetto at most 1.5)"
printf "%10s %-24s %9s %9s %7s %8s %10s\n" tasks output seconds alone_s ratio out_mb ratio_span
# each round's ratio of NAME against ALONE, one a line
ratios() {
    awk -v n="$1" -v a="$2" '$1 == a { alone[$4] = $2 } $1 == n { with[$4] = $2 }
        END { for (r in with) if (r in alone) print (with[r] - alone[r]) / alone[r] }' "$tmp/runs" | sort -g
}
row() { # TASKS NAME LABEL ALONE
    local r
    r=$(ratios "$2" "$4")
    awk -v t="$1" -v l="$3" -v s="$(median "$2" 2)" -v a="$(median "$4" 2)" -v mb="$(median "$2" 3)" \
        -v rs="$(echo "$r" | tr '\n' ' ')" 'BEGIN {
        n = split(rs, v, " ")
        printf "%10d %-24s %9.3f %9.3f %7.2f %8.1f %4.2f-%4.2f\n", t, l, s, a, v[int((n + 1) / 2)], mb / 1048576,
               v[1], v[n] }'
}
row 524288 csv "--csv" alone-524k
row 524288 trace "--trace" alone-524k
row 524288 trace-flows "--trace --trace-flows" alone-524k
row 131072 gantt "--gantt (with gnuplot)" alone-131k
