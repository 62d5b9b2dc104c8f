#!/bin/bash
# Runs on a lent Linux x86-64 machine from the folder tests/fuzz/bundle.sh made (.dev/fuzz): every target
# (default baseline, runjson, clock) at once, WORKERS libFuzzer workers each (-fork; default 5: 3 targets on
# 15 of 16 cores), for ROUND_SECONDS of wall time (default 540: under a 10-minute command limit). Corpora,
# findings and the CPU seconds spent stay in the bundle's state/ between rounds (while the machine is held);
# a target stops once it has CPU_SECONDS (default 3600). Each round writes at most 7 files to $OUT:
# summary.txt (per target: CPU seconds this round and in all, measured from the process tree's rusage, execs,
# crashes/timeouts/ooms, corpus size, wall and worker counts) and per target its log's tail and a
# findings.tgz of the crash-/timeout-/oom- inputs (capped at 4 MB each). Prints "all done" when every target
# has its CPU seconds; else call it again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?set OUT to the folder that comes back}
workers=${WORKERS:-5} round=${ROUND_SECONDS:-540} need=${CPU_SECONDS:-3600}
targets=${TARGETS:-$(cd "$here/bin" && ls | sed 's/^fuzz_//')}
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export DASHSIM_FUZZ_REFERENCE=$here/data/gpu-bwd.json DASHSIM_FUZZ_PROFILE=$here/data/h100-sxm.json
export TMPDIR=${FUZZ_TMPDIR:-/dev/shm}  # the harnesses write each input to a file: keep it off the disk
export ASAN_OPTIONS=detect_leaks=1
state=$here/state

# CPU seconds (user + system) of this shell's waited-for children and their descendants, from bash's `times`
# (second line, "XmY.YYYs XmY.YYYs") written to FILE: `times` must run in the shell that waited, never in a
# pipe or $(...) (a fresh process, no children). libFuzzer -fork waits for its workers: their time counts.
children_cpu() {
    tail -1 "$1" | tr 'ms' '  ' | awk '{ printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }'
}

run_target() { # run_target NAME: one round in state/NAME, its CPU added to cpu_seconds
    local t=$1 d=$state/$1 spent
    spent=$(cat "$d/cpu_seconds" 2>/dev/null || echo 0)
    [ "$spent" -ge "$need" ] && return
    local start=$SECONDS
    (cd "$d" && "$here/bin/fuzz_$t" -fork="$workers" -max_total_time="$round" -max_len=65536 -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -dict="$here/data/$t.dict" -artifact_prefix="$d/artifacts/" \
        -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 corpus >>log 2>&1)
    times >"$d/times.txt" # in this (background) subshell: only this target's fuzzer counts
    local cpu
    cpu=$(children_cpu "$d/times.txt")
    echo "$cpu" >"$d/round_cpu"
    echo $((SECONDS - start)) >"$d/round_wall"
    echo $((spent + cpu)) >"$d/cpu_seconds"
}

for t in $targets; do
    mkdir -p "$state/$t/corpus" "$state/$t/artifacts"
    cp -n "$here/data/corpus-$t"/* "$state/$t/corpus/" 2>/dev/null
    run_target "$t" &
done
wait

mkdir -p "$out"
all_done=yes
{
    echo "# dashsim fuzz round: $(date -u +%FT%TZ), $(nproc) cores, $workers workers a target, $round s a round"
    echo "# target cpu_s_total cpu_s_round wall_s_round execs crashes timeouts ooms corpus_files"
    for t in $targets; do
        d=$state/$t
        total=$(cat "$d/cpu_seconds" 2>/dev/null || echo 0)
        # the fork mode's stats line: "#EXECS: cov: ... oom/timeout/crash: O/T/C time: ..."
        stats=$(grep -aE '^#[0-9]+: cov' "$d/log" | tail -1)
        execs=$(echo "$stats" | sed -n 's/^#\([0-9]*\):.*/\1/p')
        echo "$t $total $(cat "$d/round_cpu" 2>/dev/null || echo 0) $(cat "$d/round_wall" 2>/dev/null || echo 0)" \
            "${execs:-?} $(ls "$d/artifacts" | grep -c '^crash-') $(ls "$d/artifacts" | grep -c '^timeout-')" \
            "$(ls "$d/artifacts" | grep -c '^oom-') $(ls "$d/corpus" | wc -l)"
        [ "$total" -ge "$need" ] || all_done=no
    done
} >"$out/summary.txt"
for t in $targets; do
    d=$state/$t
    tail -c 100000 "$d/log" >"$out/$t.log.tail"
    # the 200 smallest findings' inputs, within 4 MB (else an empty archive; the counts are in summary.txt)
    (cd "$d/artifacts" && ls -rS | head -200 | tar -czf "$out/$t.findings.tgz" -T - 2>/dev/null)
    [ "$(stat -c %s "$out/$t.findings.tgz")" -le $((4 << 20)) ] || tar -czf "$out/$t.findings.tgz" -T /dev/null
done
cat "$out/summary.txt"
[ "$all_done" = yes ] && echo "all done" || echo "call again: some targets have less than $need CPU seconds"
