#!/bin/bash
# CLI tests of issue 14 item 8: every command shown in README.md and docs/*.md runs as printed. Each line that
# starts with `bin/sim` inside a ``` block (a trailing `\` joins the next line) runs with bash in a scratch
# copy of the tree (bin/ and traces/ linked, configs/ copied, so nothing in the tree is written) and must exit
# with the status its trailing comment gives (`# exit N`, anywhere in the comment), else 0. A comment saying
# `needs a GPU` skips it. Check names are FILE:LINE.
. "$(dirname "$0")/lib.sh"
sim=$1
root=$(cd "$(dirname "$0")/.." && pwd)
bindir=$(cd "$(dirname "$sim")" && pwd)
work="$tmp/tree"
mkdir -p "$work/bin" "$work/out"
ln -s "$bindir/sim" "$work/bin/sim"
ln -s "$root/traces" "$work/traces"
ln -s "$root/docs" "$work/docs"
cp -r "$root/configs" "$work/configs"

# FILE<TAB>LINE<TAB>COMMAND per fenced bin/sim command, continuations joined.
list_commands() {
    awk '
        FNR == 1 { fence = 0 }
        /^[ \t]*```/ { fence = !fence; next }
        fence && pending != "" { cmd = cmd " " $0 }
        fence && pending == "" && /^[ \t]*bin\/sim/ { cmd = $0; pending = FNR }
        pending != "" {
            if (cmd ~ /\\[ \t]*$/) { sub(/\\[ \t]*$/, "", cmd); next }
            print FILENAME "\t" pending "\t" cmd; pending = ""
        }' "$@"
}

count=0
while IFS=$'\t' read -r file line cmd; do
    name="${file#"$root"/}:$line"
    comment=""
    [[ $cmd =~ [[:space:]]#[[:space:]](.*)$ ]] && comment=${BASH_REMATCH[1]}
    want=0
    [[ $comment =~ exit[[:space:]]+([0-9]+) ]] && want=${BASH_REMATCH[1]}
    if [[ $comment == *"needs a GPU"* ]]; then skip "$name" "needs a GPU"; continue; fi
    count=$((count + 1))
    (cd "$work" && timeout "${DOCS_TIMEOUT:-120}" bash -c "$cmd" </dev/null >"$tmp/out" 2>"$tmp/err")
    rc=$?
    if [ "$rc" -eq "$want" ]; then ok "$name"; else fail "$name" "exit $rc, expected $want: $cmd; stderr: $(head -c 300 "$tmp/err")"; fi
done < <(list_commands "$root/README.md" "$root"/docs/*.md)
[ "$count" -ge 20 ] && ok docs-command-count || fail docs-command-count "only $count fenced commands found"

# Links in README.md and docs/ point inside the repository (../shared/ exists only beside this checkout).
if grep -n '\.\./shared/' "$root/README.md" "$root"/docs/*.md >"$tmp/links"; then
    fail docs-no-shared-links "$(head -3 "$tmp/links")"
else
    ok docs-no-shared-links
fi
# Every key of every command's JSON is named in docs/json.md (with its unit there).
json_keys() {
    python3 -c '
import json, sys
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            print(k); walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
for line in sys.stdin:
    if line.strip(): walk(json.loads(line))'
}
{
    "$sim" --policy fa3 --mask causal --n 8 --heads 2 --json
    "$sim" --seqlen 2048 --heads 2 --mask causal --json
    "$sim" sweep "$root/configs/ci-sweep.json" --format jsonl
    "$sim" pipeline --json --min-preload
    "$sim" decode --json --sweep-splits
    "$sim" decode --json --regression
    "$sim" search --mask window:4 --n 8 --json
    "$sim" validate "$root/traces/h100-spin" --predict --profile "$root/configs/profiles/h100-sxm.json" --json
} 2>/dev/null | json_keys | sort -u >"$tmp/keys"
missing=$(while read -r k; do grep -q "\`$k\`" "$root/docs/json.md" || echo "$k"; done <"$tmp/keys")
[ -s "$tmp/keys" ] && [ -z "$missing" ] && ok docs-json-keys || fail docs-json-keys "not in docs/json.md: $(echo $missing)"
expect_exit json-attention-run 0 "$sim" --policy fa3 --mask causal --n 8 --json --tile-ratio 2 --q-tiles 16 --dq-buffers 2
grep -q '"tile_ratio":2,"head_swizzle":1,"dq_buffers":2' "$tmp/out" && ok json-attention-workload-keys \
    || fail json-attention-workload-keys "$(cat "$tmp/out")"
# The mask kinds have one source, the table in sim/model/attention/mask.c (sim --list-masks; --help and the errors print
# from it): docs/masks.md's table has each kind's row as the table says it, and README.md and the public header
# name every kind's syntax (issue 26 A).
"$sim" --list-masks >"$tmp/masks" && [ "$(wc -l <"$tmp/masks")" -ge 7 ] && ok docs-list-masks || fail docs-list-masks "$(cat "$tmp/masks")"
while read -r syntax keeps; do
    grep -qF "| \`$syntax\` | $keeps |" "$root/docs/masks.md" && ok "docs-mask-row-$syntax" \
        || fail "docs-mask-row-$syntax" "docs/masks.md lacks the row | \`$syntax\` | $keeps |"
    for f in README.md include/dashsim/dashsim.h; do
        grep -qF -- "$syntax" "$root/$f" && ok "docs-mask-$f-$syntax" || fail "docs-mask-$f-$syntax" "$f does not name $syntax"
    done
done <"$tmp/masks"
# The FA3 baseline profile is what docs/profile.md's command makes from the published times (it wrote out/fa3-h100.json
# above): the committed file must be that command's output, byte for byte
cmp -s "$work/out/fa3-h100.json" "$root/configs/kernels/fa3-h100.json" && ok docs-fa3-h100-profile-reproduced ||
    fail docs-fa3-h100-profile-reproduced "$(diff "$work/out/fa3-h100.json" "$root/configs/kernels/fa3-h100.json" 2>&1 | head -5)"
# A map of traces/ (issue 36): every folder has a README; the two written last name their GPU and their readers.
missing=$(for d in "$root"/traces/*/; do [ -f "$d/README.md" ] || basename "$d"; done)
[ -z "$missing" ] && ok docs-traces-readme || fail docs-traces-readme "traces/ folders without a README.md: $missing"
for n in h200-calib kernel-wg; do
    d=$root/traces/$n
    grep -qiE 'H100|H200|no GPU|CPU' "$d/README.md" 2>/dev/null && grep -qi 'read by' "$d/README.md" &&
        ok "docs-traces-readme-$n" || fail "docs-traces-readme-$n" "traces/$n/README.md names no GPU or no reader (Read by:)"
done
finish
