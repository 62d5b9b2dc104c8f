#!/bin/bash
# One way to add a schedule: in a copy of the committed tree, a new attention policy (shift under another
# name) is one new file plus one registry line; the copy builds and its Check suites and CLI tests pass with
# no other edit. (Runs the copy's whole suite but this test and gpu/, which a policy does not touch.)
. "$(dirname "$0")/lib.sh"
if [ -n "${DASHSIM_IN_EXTEND:-}" ]; then skip extend-policy "already inside the copy"; finish; exit; fi
top=$(cd "$(dirname "$0")/.." && pwd)
if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then skip extend-policy "not a git checkout"; finish; exit; fi
copy=$tmp/tree
mkdir -p "$copy" && git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$copy")
sed 's/policy_shift\b/policy_shift_copy/; s/\.name = "shift"/.name = "shift-copy"/' "$copy/policies/shift.c" \
    >"$copy/policies/shift_copy.c"
sed -i 's/^    X(policy_symmetric_shift)$/    X(policy_symmetric_shift) \\\n    X(policy_shift_copy)/' "$copy/policies/registry.c"
grep -q 'X(policy_shift_copy)' "$copy/policies/registry.c" && ok extend-one-line || fail extend-one-line "registry line not added"
# a plain build of the copy, whatever build variables the make running this test has passed down
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$copy" BIN=bin BUILD=build LIB=lib bin/sim bin/test-sim \
    >"$tmp/build.log" 2>&1; then ok extend-builds
else fail extend-builds "$(tail -5 "$tmp/build.log")"; finish; exit; fi
"$copy/bin/sim" --list-policies | grep -q "^shift-copy " && ok extend-listed || fail extend-listed "not in --list-policies"
(cd "$copy" && CK_DEFAULT_TIMEOUT=600 bin/test-sim >"$tmp/check.log" 2>&1) && ok extend-check-suites \
    || fail extend-check-suites "$(grep -v '^ok' "$tmp/check.log" | tail -5)"
(cd "$copy" && DASHSIM_IN_EXTEND=1 tests/cli.sh bin/sim >"$tmp/cli.log" 2>&1) && ok extend-cli-tests \
    || fail extend-cli-tests "$(grep '^FAIL' "$tmp/cli.log" | head -5)"
finish
