#!/bin/bash
# One way to add a schedule: in a copy of the committed tree, a new attention policy (shift under another
# name) is one new file plus one registry line; the copy builds, lists it, runs it as it runs shift, and
# passes the Check suites that iterate the registry (policies, conformance, engine_paths). The rest of the
# suite does not depend on which policies are registered, and runs on this tree already.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${DASHSIM_SKIP_EXTEND:-}" ]; then skip extend-policy "make check-asan: the copy builds without sanitizers, as in make test"; finish; exit; fi
if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then skip extend-policy "not a git checkout"; finish; exit; fi
copy=$tmp/tree
mkdir -p "$copy" && git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$copy")
sed 's/policy_shift\b/policy_shift_copy/; s/\.name = "shift"/.name = "shift-copy"/' "$copy/policies/shift.c" \
    >"$copy/policies/shift_copy.c"
sed -i 's/^    X(policy_symmetric_shift)$/    X(policy_symmetric_shift) \\\n    X(policy_shift_copy)/' "$copy/policies/registry.c"
grep -q 'X(policy_shift_copy)' "$copy/policies/registry.c" && ok extend-one-line || fail extend-one-line "registry line not added"
# a plain build of the copy, whatever build variables the make running this test has passed down
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$copy" BIN=bin BUILD=build LIB=lib bin/sim bin/test-sim \
    >"$tmp/build.log" 2>&1; then ok extend-builds
else fail extend-builds "$(tail -5 "$tmp/build.log")"; finish; exit; fi
"$copy/bin/sim" --list-policies | grep -q "^shift-copy " && ok extend-listed || fail extend-listed "not in --list-policies"
# the same schedule as shift: the JSON summaries differ only in the name (and the closed form, known by name)
for sim in "$copy/bin/sim --policy shift" "$copy/bin/sim --policy shift-copy"; do
    $sim --n 8 --heads 3 --json | sed 's/"shift-copy"/"shift"/; s/"closed_form_ns":[^,]*,"closed_form_exact":[a-z]*,//' >>"$tmp/runs"
done
[ "$(sed -n 1p "$tmp/runs")" = "$(sed -n 2p "$tmp/runs")" ] && [ -s "$tmp/runs" ] && ok extend-runs-as-shift \
    || fail extend-runs-as-shift "$(cat "$tmp/runs")"
for suite in policies conformance engine_paths; do
    (cd "$copy" && CK_RUN_SUITE=$suite CK_DEFAULT_TIMEOUT=600 bin/test-sim >"$tmp/$suite.log" 2>&1) \
        && grep -q "^check: [1-9][0-9]* passed, 0 failed" "$tmp/$suite.log" && ok "extend-suite-$suite" \
        || fail "extend-suite-$suite" "$(grep -v '^ok' "$tmp/$suite.log" | tail -5)"
done
finish
