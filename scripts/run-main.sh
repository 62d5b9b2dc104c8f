#!/bin/bash
# The main job of `make run`: configs/h100.json (the built-in h100-sxm preset, the DASH paper's setting at
# two sequence lengths, every policy for each mask): a table on stdout, out/h100.csv and out/h100.jsonl.
set -eu
sim=${SIM:-bin/sim}
mkdir -p out
"$sim" run configs/h100.json --out out
echo "wrote out/h100.csv and out/h100.jsonl"
