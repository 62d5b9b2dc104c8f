#!/bin/bash
# The main job of `make run`: every policy on the built-in H100 preset (132 SMs), the DASH paper's
# shape (N = M = n) for 16 heads, both masks; summaries and JSON under out/.
set -eu
sim=${SIM:-bin/sim}
mkdir -p out
: >out/h100-policies.jsonl.tmp
for mask in full causal; do
    for p in $("$sim" --list-policies | awk '{print $1}'); do
        "$sim" --list-policies | awk -v p="$p" '$1 == p {print $2}' | grep -q "$mask" || continue
        "$sim" --policy "$p" --mask "$mask" --n 132 --heads 16 --json >>out/h100-policies.jsonl.tmp
        "$sim" --policy "$p" --mask "$mask" --n 132 --heads 16
    done
done
mv out/h100-policies.jsonl.tmp out/h100-policies.jsonl
echo "wrote out/h100-policies.jsonl"
