#!/bin/bash
# `make bench`: sim validate over every committed measured trace, as `make validate` runs it (both models,
# the latency matrix and the profile), and the part of it that is reading the traces (bench/load_traces.c:
# sim_trace_load on each, in one process). Wall seconds (validate checks traces on threads while it loads
# the rest: --jobs, default the processors) and CPU seconds (user + system), medians of RUNS runs (default
# 5) taken in turn. Target (issue 35): the whole validate at most 3 s of CPU (issue 24 had asked 3 s of wall time).
set -eu
sim=${1:-bin/sim}
runs=${RUNS:-5}
here=$(dirname "$0")
root=$here/..
# every module's names: the tree's internal archive (a tree from before issue 26 has only lib/libdashsim.a)
archive=$root/build/libdashsim-internal.a
[ -f "$archive" ] || archive=$root/lib/libdashsim.a
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# shellcheck disable=SC2046 # pkg-config's flags are words
${CC:-cc} -O2 -std=c11 -D_DEFAULT_SOURCE -I"$root/sim/core" -I"$root/include" -I"$root/dag" \
    -I"$root/policies/attention" -I"$root/policies/pipeline" -I"$root/policies/decode" $(for d in "$root"/sim/model/*/; do printf -- "-I%s " "${d%/}"; done) \
    -I"$root/sim/io" -I"$root/sim/run" $(pkg-config --cflags glib-2.0 libcjson) \
    -o "$t/load_traces" "$here/load_traces.c" "$archive" \
    $(pkg-config --libs igraph glib-2.0 libcjson zlib) -lm -lpthread
dirs=()
for d in traces/h100 traces/h100-spin traces/h100-predict traces/h100-mask traces/h100-mask16 traces/kernel/traces; do
    [ -d "$root/$d" ] && dirs+=("$root/$d")
done
# the files validate reads from those directories: *.json and *.json.gz below them, calibration files aside
mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.json' -o -name '*.json.gz' \) ! -name 'calib-*' | sort)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for _ in $(seq "$runs"); do
    rc=0 # exit 1: some trace beyond the default tolerance (make validate compares with its baseline instead)
    /usr/bin/time -f "%e %U %S" -o "$t/time" "$sim" validate "${dirs[@]}" --latency-matrix "$root/traces/calib-latency.json" \
        --profile "$root/configs/profiles/h100-sxm.json" >/dev/null || rc=$?
    [ "$rc" -le 1 ] || { echo "bench_validate: sim validate failed (exit $rc)" >&2; exit 2; }
    tail -1 "$t/time" | awk '{ print $2 + $3 }' >>"$t/validate" # (time's first line may say the exit status)
    tail -1 "$t/time" | awk '{ print $1 }' >>"$t/wall"
    "$t/load_traces" "${files[@]}" | awk '{ print $1 }' >>"$t/load"
done
echo "# validate: every committed trace (${#files[@]} files), both models; medians of $runs runs, $(nproc) processors"
awk -v w="$(median <"$t/wall")" -v v="$(median <"$t/validate")" -v l="$(median <"$t/load")" -v n="${#files[@]}" 'BEGIN {
    printf "validate %.2f s wall, %.2f s CPU (target at most 3), of which reading the %d traces %.2f s (%.0f%%)\n",
           w, v, n, l, 100 * l / v }'
