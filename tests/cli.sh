#!/bin/bash
# CLI tests: runs every tests/cli_*.sh with the binary under test; each prints "N passed, M failed, K
# skipped" last. Sums them and prints the total as the last line; exit 1 if any failed. The scripts run
# CLI_JOBS at a time (default: the machine's cores), each into its own files, and their outputs are
# printed whole in name order, so the log reads as if they ran one after another.
set -u
sim=${1:-bin/sim}
jobs=${CLI_JOBS:-$(nproc 2>/dev/null || echo 1)}
outs=$(mktemp -d)
trap 'rm -rf "$outs"' EXIT
scripts=("$(dirname "$0")"/cli_*.sh)
printf '%s\0' "${scripts[@]}" | xargs -0 -P "$jobs" -I{} bash -c \
    'bash "$1" "$2" >"$3/$(basename "$1").out" 2>"$3/$(basename "$1").err"' _ {} "$sim" "$outs"
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
[ "$failed" -eq 0 ]
