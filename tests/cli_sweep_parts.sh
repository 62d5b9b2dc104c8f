#!/bin/bash
# CLI tests of issue 14's sweep items: --set of a field that excludes another (heads/hidden,
# batch/total_tokens), --shard K/N and --merge (the slices join into the single-machine bytes), and
# --row K with the job outputs of exactly that row (its makespan equals the trace's, CSV's and plan's).
. "$(dirname "$0")/lib.sh"
sim=$1
cfgs=$(dirname "$0")/../configs
ci=$cfgs/ci-sweep.json

# --set workload.heads on a config that gives hidden (configs/h100.json) replaces it
expect_exit set-heads-over-hidden 0 "$sim" sweep "$cfgs/h100.json" --set 'sweep={}' --set workload.heads=16 \
    --set 'policies=["fa3"]'
tail -1 "$tmp/out" | grep -q "^fa3,full,128,4096,4096,4,16," && ok set-heads-applied || fail set-heads-applied "$(cat "$tmp/out")"
expect_exit set-hidden-over-heads 0 "$sim" sweep "$ci" --set 'sweep={}' --set workload.hidden=256 --set 'policies=["fa3"]'
tail -1 "$tmp/out" | grep -q "^fa3,full,64,512,512,2,4," && ok set-hidden-applied || fail set-hidden-applied "$(cat "$tmp/out")"
expect_exit set-batch-over-tokens 0 "$sim" sweep "$cfgs/h100.json" --set 'sweep={}' --set workload.batch=1 \
    --set 'policies=["fa3"]'
tail -1 "$tmp/out" | grep -q "^fa3,full,128,4096,4096,1,16," && ok set-batch-applied || fail set-batch-applied "$(cat "$tmp/out")"
