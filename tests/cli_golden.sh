#!/bin/bash
# Golden JSON of the main outputs (issue 36): the attention command, search, pipeline, decode, validate, plan
# replay (a block-mask plan, tests/golden/plans/) and the shape ranking,
# each --json on a small input, compared byte for byte with tests/golden/json/NAME.json (the dashsim version
# written as VERSION). A change to one of these outputs must come with its golden file: regenerate them with
# GOLDEN_UPDATE=1 tests/cli_golden.sh bin/sim and say in the commit why the bytes changed.
set -u
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
golden=$root/tests/golden/json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 2 # validate's JSON names the trace by the path given

cases=(
    "attention-shift-async|--policy shift --n 8 --heads 2 --reduce async --json"
    "attention-fa3-causal|--policy fa3 --mask causal --n 6 --heads 2 --latency 300 --json"
    "search-exact-step|search --mask random:0.3:1 --tiles 5 --n 4 --heads 2 --json"
    "search-window|search --mask window:2 --tiles 6 --n 4 --heads 2 --json"
    "pipeline-amla|pipeline --policy amla --json"
    "pipeline-preload|pipeline --policy preload --blocks 6 --c 1000,800,500 --v 600,400,300 --json"
    "decode-lk2048|decode --lk 2048 --json"
    "validate-fa3-tiny|validate tests/golden/validate/fa3-tiny.json tests/golden/validate/shift-tiny.json --json"
    "replay-window|--plan tests/golden/plans/window-search.plan --reduce async --json"
    "shape-causal-4096|--seqlen 4096 --heads 16 --mask causal --json"
)
for c in "${cases[@]}"; do
    name=${c%%|*} args=${c#*|}
    # shellcheck disable=SC2086 # the arguments are split on purpose
    "$sim" $args >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -le 1 ] || { fail "golden-$name" "exit $rc: $(head -c 300 "$tmp/err")"; continue; }
    sed 's/"dashsim_version":"[^"]*"/"dashsim_version":"VERSION"/' "$tmp/out" >"$tmp/$name.json"
    if [ -n "${GOLDEN_UPDATE:-}" ]; then
        cp "$tmp/$name.json" "$golden/$name.json"
    fi
    cmp -s "$tmp/$name.json" "$golden/$name.json" && ok "golden-$name" \
        || fail "golden-$name" "sim $args differs from tests/golden/json/$name.json: $(diff <(tr , '\n' <"$tmp/$name.json") <(tr , '\n' <"$golden/$name.json" 2>/dev/null) | head -6)"
done
# every golden file is one a case writes (none left behind by a removed case)
for f in "$golden"/*.json; do
    n=$(basename "$f" .json)
    printf '%s\n' "${cases[@]}" | grep -q "^$n|" && ok "golden-used-$n" || fail "golden-used-$n" "no case writes $f"
done
finish
