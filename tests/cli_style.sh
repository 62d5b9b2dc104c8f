#!/bin/bash
# Guard rails (issue 36): functions of at most 60 lines outside tests/function-length.allow, the house style's
# .clang-format readable by clang-format, and the stricter warnings the Makefile adds (WARN_STRICT) really on.
set -u
. "$(dirname "$0")/lib.sh"
sim=$1
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$(python3 "$root/scripts/check-function-length.py" "$root" 2>&1) && ok function-length || fail function-length "$out"
# a new long function fails; an allow-list entry for a function no longer long fails too
mkdir -p "$tmp/t/sim/x" "$tmp/t/tests"
{ echo "static int f(void)"; echo "{"; for i in $(seq 61); do echo "    x++;"; done; echo "}"; } >"$tmp/t/sim/x/a.c"
: >"$tmp/t/tests/function-length.allow"
python3 "$root/scripts/check-function-length.py" "$tmp/t" >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "sim/x/a.c:f: 61 lines" "$tmp/o" && ok function-length-new-fails || fail function-length-new-fails "$(cat "$tmp/o")"
echo "sim/x/a.c:f generated" >"$tmp/t/tests/function-length.allow"
python3 "$root/scripts/check-function-length.py" "$tmp/t" >"$tmp/o" 2>&1 && ok function-length-allowed \
    || fail function-length-allowed "$(cat "$tmp/o")"
{ echo "static int f(void)"; echo "{"; echo "    x++;"; echo "}"; } >"$tmp/t/sim/x/a.c"
python3 "$root/scripts/check-function-length.py" "$tmp/t" >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "no longer over" "$tmp/o" && ok function-length-stale-entry || fail function-length-stale-entry "$(cat "$tmp/o")"

if command -v clang-format >/dev/null; then
    (cd "$root" && clang-format --dump-config >/dev/null 2>"$tmp/e") && ok clang-format-config \
        || fail clang-format-config "$(head -c 300 "$tmp/e")"
else
    skip clang-format-config "no clang-format here"
fi
# the stricter warnings are on in the build: -Wshadow (for one) refuses a shadowed local
make -s -C "$root" -pn 2>/dev/null | grep -q '^WARN_STRICT := .*-Wshadow' && grep -q '^DASH_CFLAGS = .*\$(WARN_STRICT)' "$root/Makefile" \
    && ok warn-strict-on || fail warn-strict-on "WARN_STRICT lost -Wshadow or is not in DASH_CFLAGS"
finish
