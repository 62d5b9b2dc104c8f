#!/bin/bash
# `make bench`: what load-dependent costs cost the engine. The shape front end ranks every full-mask policy
# on 16384 tokens, hdim 64, batch 2 x 16 heads twice: with the profile's load model
# (reductions sharing the L2 by processor sharing, hand-offs growing with load) and with fixed costs
# (--model paper, async). Medians of 3 runs of CPU time; the ratio is the slowdown of the load model.
set -eu
sim=${1:-bin/sim}
shape="--seqlen 16384 --head-dim 64 --batch 2 --heads 16 --mask full"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for model in "profile" "paper --reduce async"; do
    : >"$t/cpu"
    for _ in 1 2 3; do
        /usr/bin/time -f "%U %S" -o "$t/time" "$sim" $shape --model $model >/dev/null
        awk '{ print $1 + $2 }' "$t/time" >>"$t/cpu"
    done
    median <"$t/cpu" >"$t/${model%% *}"
done
echo "# load model: shape front end, full mask, every registered full-mask policy, CPU seconds (median of 3)"
awk -v a="$(cat "$t/profile")" -v b="$(cat "$t/paper")" 'BEGIN {
    printf "with the profile load model %.2f s, fixed costs %.2f s: %.2fx\n", a, b, a / b }'
