#!/bin/bash
# CLI tests: runs every tests/cli_*.sh with the binary under test; each prints "N passed, M failed, K
# skipped" last. Sums them and prints the total as the last line; exit 1 if any failed.
set -u
sim=${1:-bin/sim}
passed=0 failed=0 skipped=0
for t in "$(dirname "$0")"/cli_*.sh; do
    out=$(bash "$t" "$sim")
    printf '%s\n' "$out"
    line=${out##*$'\n'}
    re='^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$'
    if [[ ! $line =~ $re ]]; then echo "$t: no summary line" >&2; failed=$((failed + 1)); continue; fi
    passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2])) skipped=$((skipped + BASH_REMATCH[3]))
done
echo "cli: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
