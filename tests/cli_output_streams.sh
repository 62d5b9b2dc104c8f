#!/bin/bash
# Where output goes: with an output on standard output (`-`) the data alone is there and the report goes
# to standard error (issue 25 item 3); progress with elapsed time on a terminal only, nothing when piped
# (item 9).
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
ci=$root/configs/ci-sweep.json

# Item 3: with an output on standard output, the report goes to standard error.
"$sim" --policy shift --n 8 --heads 2 --emit-plan "$tmp/s.plan" >/dev/null && "$sim" --plan "$tmp/s.plan" --json >"$tmp/want.json"
bash -c "\"$sim\" --policy shift --n 8 --heads 2 --emit-plan - 2>\"$tmp/err1\" | \"$sim\" --plan - --json" >"$tmp/out" 2>"$tmp/err" \
    && cmp -s "$tmp/out" "$tmp/want.json" && grep -q '^policy shift' "$tmp/err1" && ok stdout-plan-pipe \
    || fail stdout-plan-pipe "$(cat "$tmp/err")"
"$sim" search --mask window:8 --tiles 16 --n 8 --emit-plan "$tmp/w.plan" >/dev/null && "$sim" --plan "$tmp/w.plan" --json >"$tmp/want.json"
bash -c "\"$sim\" search --mask window:8 --tiles 16 --n 8 --emit-plan - 2>\"$tmp/err1\" | \"$sim\" --plan - --json" >"$tmp/out" 2>"$tmp/err" \
    && cmp -s "$tmp/out" "$tmp/want.json" && grep -q '^mask window:8' "$tmp/err1" && ok stdout-search-plan-pipe \
    || fail stdout-search-plan-pipe "$(cat "$tmp/err")"
"$sim" search --mask window:8 --tiles 16 --n 8 --emit-plan - --json 2>"$tmp/err" >/dev/null
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/err" && ok stdout-search-json-on-stderr || fail stdout-search-json-on-stderr "$(head -c 200 "$tmp/err")"
"$sim" --policy fa3 --n 4 --heads 2 --trace - 2>"$tmp/err" | python3 -m json.tool >/dev/null \
    && grep -q 'makespan' "$tmp/err" && ok stdout-trace-json || fail stdout-trace-json "not JSON alone"
"$sim" --policy fa3 --n 4 --heads 2 --csv - --json 2>"$tmp/err" >"$tmp/out"
python3 - "$tmp/out" "$tmp/err" <<'PY' && ok stdout-csv-alone || fail stdout-csv-alone "$(tail -2 "$tmp/out")"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][:3] == ["op", "cta", "sm"] and len(rows) > 2 and all(len(r) == len(rows[0]) for r in rows), rows[-1]
assert json.load(open(sys.argv[2]))["makespan_ns"] > 0
PY
"$sim" --seqlen 1024 --heads 2 --mask causal --csv - 2>"$tmp/err" >"$tmp/out"
head -1 "$tmp/out" | grep -q '^op,cta,sm' && ! grep -q winner "$tmp/out" && grep -Eq '^(winner|fastest modelled) ' "$tmp/err" \
    && ok stdout-shape-csv || fail stdout-shape-csv "$(tail -2 "$tmp/out")"
"$sim" pipeline --trace - 2>"$tmp/err" | python3 -m json.tool >/dev/null && grep -q '^pipeline preload' "$tmp/err" \
    && ok stdout-pipeline-trace || fail stdout-pipeline-trace "$(head -2 "$tmp/err")"

# Item 9: progress with elapsed time and what is left on a terminal (script(1) gives one), nothing when piped.
if command -v script >/dev/null; then
    jobs=$("$sim" sweep "$ci" | tail -n +2 | wc -l) # a row per job (policies x points: the registry's count)
    export DASHSIM_PROGRESS_DELAY_MS=0 # the line's form, on runs shorter than the one-second delay
    script -qec "\"$sim\" sweep \"$ci\" -o /dev/null" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
    grep -aq "sim sweep: [0-9]* of $jobs jobs, [0-9.]* s elapsed" "$tmp/tty" && grep -aq "sim sweep: $jobs of $jobs jobs" "$tmp/tty" \
        && ok progress-sweep-tty || fail progress-sweep-tty "$(cat -v "$tmp/tty" | tail -3)"
    script -qec "\"$sim\" search --mask window:4 --n 8 --tiles 8 --iterations 30" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
    grep -aq 'sim search: 30 of 30 moves, [0-9.]* s elapsed, best [0-9]* ns' "$tmp/tty" \
        && ok progress-search-tty || fail progress-search-tty "$(cat -v "$tmp/tty" | tail -3)"
    script -qec "\"$sim\" validate \"$root/traces/h100-mask\" --json" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
    grep -aq 'sim validate: 16 of 16 traces, [0-9.]* s elapsed' "$tmp/tty" \
        && ok progress-validate-tty || fail progress-validate-tty "$(cat -v "$tmp/tty" | tail -3)"
    # One rule for every long command (issue 33): on a terminal, the first line only once the delay has passed
    # (one second; DASHSIM_PROGRESS_DELAY_MS). Quick runs show none at the default; runs of 0.2 s or more with a
    # 50 ms delay show a first line whose elapsed time is not 0.0 s.
    progress_case() { # NAME DELAY_MS EXPECT(none|late) CMD
        local first t0 ms
        t0=$(date +%s%N)
        DASHSIM_PROGRESS_DELAY_MS=$2 script -qec "$4" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
        ms=$((($(date +%s%N) - t0) / 1000000))
        first=$(grep -a -m1 -o 'sim [a-z]*: [0-9]* of [0-9]* [a-z]*, [0-9.]* s elapsed' "$tmp/tty")
        # "quick" is the premise: a run that took 0.9 s or more here (a slow machine, a sanitizer build) is no test of it
        if [ "$3" = none ] && [ "$ms" -ge 900 ]; then skip "$1" "the run took $ms ms on this machine: not a quick run"
        elif [ "$3" = none ]; then [ -z "$first" ] && ok "$1" || fail "$1" "a quick run showed: $first"
        else [ -n "$first" ] && ! echo "$first" | grep -q ' 0\.0 s elapsed' && ok "$1" || fail "$1" "first line: '$first'"; fi
    }
    unset DASHSIM_PROGRESS_DELAY_MS
    progress_case progress-sweep-quick-none "" none "\"$sim\" sweep \"$ci\" -o /dev/null"
    progress_case progress-search-quick-none "" none "\"$sim\" search --mask window:4 --n 8 --tiles 8 --iterations 30"
    progress_case progress-validate-quick-none "" none "\"$sim\" validate \"$root/traces/h100-mask\" --json"
    progress_case progress-sweep-after-delay 50 late "\"$sim\" sweep \"$root/configs/h100.json\" -o /dev/null"
    progress_case progress-search-after-delay 50 late "\"$sim\" search --mask window:8 --n 32 --tiles 64 --iterations 30000"
    progress_case progress-validate-after-delay 50 late "\"$sim\" validate \"$root/traces/h100-mask\" --json"
else
    skip progress-tty "no script(1)"
fi
"$sim" sweep "$ci" -o /dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok progress-sweep-piped || fail progress-sweep-piped "$(cat -v "$tmp/err")"
"$sim" search --mask window:4 --n 8 --tiles 8 --iterations 30 2>"$tmp/err" >/dev/null && [ ! -s "$tmp/err" ] \
    && ok progress-search-piped || fail progress-search-piped "$(cat -v "$tmp/err")"
"$sim" validate "$root/traces/h100-mask" --json 2>"$tmp/err" >/dev/null; [ ! -s "$tmp/err" ] \
    && ok progress-validate-piped || fail progress-validate-piped "$(cat -v "$tmp/err")"

finish
