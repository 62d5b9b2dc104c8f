#!/bin/bash
# CLI tests: runs every tests/cli_*.sh with the binary under test; each prints "N passed, M failed, K
# skipped" last. Sums them and prints the total as the last line; exit 1 if any failed. With --all (make
# test), the Check suites (bin/test-sim beside the binary) and scripts/validate.sh run in the same pool, so a
# core never waits for the other's long job. The jobs run CLI_JOBS at a time (default: the machine's cores and one
# more, which keeps the cores busy while a job waits on its files and processes: one back-to-back pair on 2 cores
# read 90 against 96 s, not a median of pairs),
# the longest first, each into its own files; their outputs are printed whole (the suites, validate, then the
# scripts in name order), so the log reads as if they ran one after another.
set -u
all=false
[ "${1:-}" = --all ] && all=true && shift
sim=${1:-bin/sim}
jobs=${CLI_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
here=$(dirname "$0")
outs=$(mktemp -d)
trap 'rm -rf "$outs"' EXIT
scripts=("$here"/cli_*.sh)
# The pool's order: the jobs of most CPU time first (measured 2026-11-29, session 10: cli_kernel 45 s, cli_docs 23 s,
# cli_gpu 17 s, the Check suites 10 s), then the rest in name order; a long job started last would run alone on one
# core at the end.
first=(cli_kernel.sh cli_docs.sh cli_gpu.sh checks cli_rank.sh cli_api.sh cli_predict.sh cli_output_layer_and_readers.sh cli_resource.sh cli_search.sh cli_harden3.sh cli_extend.sh)
order=()
for j in "${first[@]}"; do
    if [ "$j" = checks ]; then $all && order+=(checks validate); elif [ -f "$here/$j" ]; then order+=("$here/$j"); fi
done
for t in "${scripts[@]}"; do [[ " ${first[*]} " == *" $(basename "$t") "* ]] || order+=("$t"); done
run_job() { # JOB SIM OUTDIR
    case $1 in
        checks) CK_DEFAULT_TIMEOUT=600 "$(dirname "$2")/test-sim" ;;
        validate) scripts/validate.sh "$2" ;;
        *) bash "$1" "$2" ;;
    esac >"$3/$(basename "$1").out" 2>"$3/$(basename "$1").err"
    echo $? >"$3/$(basename "$1").rc"
}
export -f run_job
printf '%s\0' "${order[@]}" | xargs -0 -P "$jobs" -I{} bash -c 'run_job "$@"' _ {} "$sim" "$outs"
status=0
if $all; then
    for j in checks validate; do
        cat "$outs/$j.out"
        cat "$outs/$j.err" >&2
        [ "$(cat "$outs/$j.rc")" = 0 ] || status=1
    done
fi
passed=0 failed=0 skipped=0
for t in "${scripts[@]}"; do
    out=$(cat "$outs/$(basename "$t").out")
    printf '%s\n' "$out"
    cat "$outs/$(basename "$t").err" >&2
    line=${out##*$'\n'}
    re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
    if [[ ! $line =~ $re ]]; then echo "$t: no summary line" >&2; failed=$((failed + 1)); continue; fi
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2])) skipped=$((skipped + BASH_REMATCH[3]))
done
echo "cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
