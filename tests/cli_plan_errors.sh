#!/bin/bash
# The plan format's errors as docs/plan-format.md lists them, each with its line; a block plan names its mask
# (issue 25 item 7).
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)

# Item 7: the plan format's errors as docs/plan-format.md lists them; a block plan names its mask.
"$sim" --policy fa3 --n 8 --heads 3 --kv-tiles 4 --q-tiles 8 --emit-plan "$tmp/p.plan" >/dev/null
bad_plan() { # NAME PATTERN SED-SCRIPT: the plan edited by the script is refused with PATTERN
    sed "$3" "$tmp/p.plan" >"$tmp/$1.plan"
    expect_error "plan-$1" "$1.plan:[0-9]*: $2" "$sim" --plan "$tmp/$1.plan"
}
bad_plan missing-dq "the header lacks dq_buffers (every header field is required" '/^dq_buffers/d'
bad_plan missing-two "the header lacks c_ns, dq_buffers" '/^dq_buffers/d; /^c_ns/d'
bad_plan first-line "not a dashsim plan" '1s/.*/dashsim-plan 2/'
bad_plan unknown-field "unknown header field 'ctas_'" 's/^ctas /ctas_ /'
bad_plan two-values "header field 'heads' takes exactly one value" 's/^heads 3$/heads 3 4/'
bad_plan mask-word "mask must be full, causal or block, not 'diagonal'" 's/^mask full/mask diagonal/'
bad_plan range "n_sm '0' is not an integer in 1..65536" 's/^n_sm 8/n_sm 0/'
bad_plan empty-cta "the task count '0' is not an integer in 1..96" 's/^cta 0 -1 8/cta 0 -1 0/'
bad_plan task-count "the CTAs hold 96 tasks, the header says 97" 's/^tasks 96/tasks 97/'
bad_plan after-end "text after 'end'" '$a extra'
grep -q '^mask causal  *# full | causal | block$' "$root/docs/plan-format.md" && ok plan-doc-masks || fail plan-doc-masks "mask line"
"$sim" search --mask window:2 --n 4 --tiles 4 --emit-plan "$tmp/b.plan" >/dev/null
expect_exit block-plan 0 "$sim" --plan "$tmp/b.plan"
grep -q '^policy [a-z-]*, block mask, 4 SMs' "$tmp/out" && ok block-plan-mask-name || fail block-plan-mask-name "$(head -1 "$tmp/out")"

finish
