#!/bin/bash
# CLI tests: runs every tests/cli_*.sh with the binary under test; each prints "N passed, M failed".
# Sums them and prints the total as the last line; exit 1 if any failed.
set -u
sim=${1:-bin/sim}
passed=0 failed=0
for t in "$(dirname "$0")"/cli_*.sh; do
    out=$(bash "$t" "$sim")
    printf '%s\n' "$out"
    line=${out##*$'\n'}
    p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ]; then echo "$t: no summary line" >&2; failed=$((failed + 1)); continue; fi
    passed=$((passed + p)) failed=$((failed + f))
done
echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
