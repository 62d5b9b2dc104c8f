#!/bin/bash
# Runs on a lent Linux x86-64 machine from the folder tests/fuzz/bundle.sh made (.dev/fuzz): every target
# at once, WORKERS libFuzzer workers each (-fork; default 5, so 3 targets use 15 of 16 cores), for
# ROUND_SECONDS of wall time (default 540: under a 10-minute command limit). Corpora, findings and the CPU
# seconds spent so far stay in the bundle's state/ between rounds (the folder persists while the machine is
# held); call it again until every target has CPU_SECONDS (default 3600). Each round copies state/ to $OUT:
# per target its log, crash/timeout/oom artifacts, corpus size, the last stats line (execs) and cpu_seconds.
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
for t in $targets; do
    mkdir -p "$state/$t/corpus" "$state/$t/artifacts"
    cp -n "$here/data/corpus-$t"/* "$state/$t/corpus/" 2>/dev/null
    spent=$(cat "$state/$t/cpu_seconds" 2>/dev/null || echo 0)
    [ "$spent" -ge "$need" ] && continue
    (
        cd "$state/$t"
        "$here/bin/fuzz_$t" -fork="$workers" -max_total_time="$round" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
            -print_final_stats=1 -dict="$here/data/$t.dict" -artifact_prefix="$state/$t/artifacts/" \
            -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 corpus >>log 2>&1
        # CPU of this round (all workers: user + system of the children), added to the total
        times >times.txt # in this shell: a pipe or $(...) would run it in a subshell with no children
        cpu=$(tail -1 times.txt | tr 'ms' '  ' | awk '{ printf "%d", $1 * 60 + $2 + $3 * 60 + $4 }')
        echo $(( spent + cpu )) >cpu_seconds
    ) &
done
wait
all_done=yes
for t in $targets; do
    d=$state/$t
    echo "cpu_seconds $(cat "$d/cpu_seconds" 2>/dev/null || echo 0)" >"$d/summary"
    echo "corpus_files $(ls "$d/corpus" | wc -l)" >>"$d/summary"
    echo "artifacts $(ls "$d/artifacts" | wc -l)" >>"$d/summary"
    grep -E '^#[0-9]+' "$d/log" | tail -1 | sed 's/^/last_stats /' >>"$d/summary"
    [ "$(cat "$d/cpu_seconds" 2>/dev/null || echo 0)" -ge "$need" ] || all_done=no
    mkdir -p "$out/$t"
    cp "$d/summary" "$out/$t/"
    tail -c 200000 "$d/log" >"$out/$t/log.tail"
    cp -r "$d/artifacts" "$out/$t/"
    echo "$t: $(tr '\n' ' ' <"$d/summary")"
done
[ "$all_done" = yes ] && echo "all done" || echo "call again: some targets have less than $need CPU seconds"
