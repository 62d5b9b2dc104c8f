#!/bin/bash
# One way to add a schedule: in a copy of the committed tree, a new attention policy is one new file plus one
# registry line, for a full-mask schedule (shift under another name) and a block-mask one (spt under another
# name); the copy builds, lists them with their masks, runs each as it runs the original (closed form
# included: it is the policy's own hook, not a table by name), and passes the Check suites that iterate the
# registry (policies, conformance, engine_paths). The rest of the suite does not depend on which policies are
# registered, and runs on this tree already.
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${DASHSIM_SKIP_EXTEND:-}" ]; then skip extend-policy "make check-asan: the copy builds without sanitizers, as in make test"; finish; exit; fi
if ! git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then skip extend-policy "not a git checkout"; finish; exit; fi
copy=$tmp/tree
mkdir -p "$copy" && git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp -p --parents -t "$copy")
# This tree's objects (make test has just built them) go along with their times, so the copy compiles only
# what the new policy changes (the registry and the two new files) and links: the same build and link check
# as a cold build, without compiling the whole tree a second time (it was most of make test's CPU time).
[ -d "$top/build" ] && cp -rp "$top/build" "$copy/build"
reg=$copy/policies/attention
for p in shift spt; do
    sed "s/policy_$p\b/policy_${p}_copy/; s/\.name = \"$p\"/.name = \"$p-copy\"/" "$reg/$p.c" >"$reg/${p}_copy.c"
    # the list's last line (the one without a backslash) gets one, and the new line follows it
    sed -i "s/^\(    X(policy_[a-z_]*)\)\$/\1 \\\\\n    X(policy_${p}_copy)/" "$reg/registry.c"
    grep -q "^    X(policy_${p}_copy)" "$reg/registry.c" && ok "extend-one-line-$p" || fail "extend-one-line-$p" "registry line not added"
done
# a plain build of the copy, whatever build variables the make running this test has passed down
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$copy" BIN=bin BUILD=build LIB=lib bin/sim bin/test-sim \
    >"$tmp/build.log" 2>&1; then ok extend-builds
else fail extend-builds "$(tail -5 "$tmp/build.log")"; finish; exit; fi
"$copy/bin/sim" --list-policies >"$tmp/list"
grep -q "^shift-copy  *full  " "$tmp/list" && grep -q "^spt-copy  *block  " "$tmp/list" && ok extend-listed \
    || fail extend-listed "not in --list-policies with their masks: $(cat "$tmp/list")"
# the same schedules as shift (closed form included) and spt (on block masks): the JSON differs only in the name
k=0
for run in "shift|--n 8 --heads 3" "spt|--mask window:3 --n 4 --heads 2 --kv-tiles 8 --q-tiles 8" \
           "spt|--mask random:0.4:3 --n 5 --heads 3 --kv-tiles 6 --q-tiles 9 --reduce async"; do
    p=${run%%|*} args=${run#*|} k=$((k + 1))
    : >"$tmp/runs"
    for name in "$p" "$p-copy"; do
        "$copy/bin/sim" --policy "$name" $args --json | sed "s/\"$p-copy\"/\"$p\"/" >>"$tmp/runs"
    done
    [ "$(sed -n 1p "$tmp/runs")" = "$(sed -n 2p "$tmp/runs")" ] && grep -q '"makespan_ns":[1-9]' "$tmp/runs" \
        && ok "extend-runs-as-$p-$k" || fail "extend-runs-as-$p-$k" "$args: $(cat "$tmp/runs")"
done
grep -q '"closed_form_ns":[1-9]' <("$copy/bin/sim" --policy shift-copy --n 8 --heads 3 --json) && ok extend-closed-form \
    || fail extend-closed-form "shift-copy has no closed form"
for suite in policies conformance engine_paths; do
    (cd "$copy" && CK_RUN_SUITE=$suite CK_DEFAULT_TIMEOUT=600 bin/test-sim >"$tmp/$suite.log" 2>&1) \
        && grep -q "^check: [1-9][0-9]* passed, 0 failed" "$tmp/$suite.log" && ok "extend-suite-$suite" \
        || fail "extend-suite-$suite" "$(grep -v '^ok' "$tmp/$suite.log" | tail -5)"
done
finish
