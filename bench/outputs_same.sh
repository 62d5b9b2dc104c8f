#!/bin/bash
# Checks that two builds of sim write the same bytes: runs a broad set of commands (every attention policy on
# its masks, serial and async, with the summary, --json, --csv, --trace --trace-flows, --dot, --emit-plan;
# shift with more CTAs than SMs; a config; validate over the committed traces) with binary A and binary B
# and compares stdout, stderr's first line and every file written. For speed work: build the old tree's
# sim somewhere, then `bench/outputs_same.sh OLD/bin/sim bin/sim`. ENGINE=event adds `--engine event` to
# every attention command (the config and validate runs take no such flag): the event engine's outputs,
# for both binaries. Exit 0 when all agree, 1 otherwise.
set -u
a=${1:?usage: outputs_same.sh SIM_A SIM_B}
b=${2:?usage: outputs_same.sh SIM_A SIM_B}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "outputs in $tmp"
same=0 differ=0
eng=()
[ -n "${ENGINE:-}" ] && eng=(--engine "$ENGINE")

# check NAME ARGS...: runs both binaries with ARGS (OUT/ stands for the run's own output folder)
check() {
    local name=$1
    shift
    for side in a b; do
        local bin=$a
        [ "$side" = b ] && bin=$b
        mkdir -p "$tmp/$side/$name"
        "$bin" "${@//OUT\//$tmp/$side/$name/}" >"$tmp/$side/$name.stdout" 2>"$tmp/$side/$name.stderr"
        echo "exit $?" >>"$tmp/$side/$name.stdout"
        head -1 "$tmp/$side/$name.stderr" >"$tmp/$side/$name.err1"
        rm "$tmp/$side/$name.stderr"
        # the version a trace or plan names is not part of the comparison
        find "$tmp/$side/$name" -type f -exec sed -i 's/"dashsim_version":"[^"]*"/"dashsim_version":"V"/' {} +
    done
    if diff -r "$tmp/a/$name" "$tmp/b/$name" >/dev/null && cmp -s "$tmp/a/$name.stdout" "$tmp/b/$name.stdout" &&
        cmp -s "$tmp/a/$name.err1" "$tmp/b/$name.err1"; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "DIFFER $name: $*"
    fi
}

i=0
while read -r policy masks; do
    masks=${masks//,/ }
    for mask in ${masks//block/window:2 document:4,8 random:0.5:7}; do  # "block": any block mask
        for reduce in serial async; do
            i=$((i + 1))
            base=(--policy "$policy" --mask "$mask" --reduce "$reduce" --n 16 --heads 3 --kv-tiles 12 --q-tiles 12
                ${eng[@]+"${eng[@]}"})
            check "p$i-summary" "${base[@]}"
            check "p$i-json" "${base[@]}" --json
            check "p$i-files" "${base[@]}" --csv OUT/x.csv --trace OUT/x.json --trace-flows --dot OUT/x.dot \
                --emit-plan OUT/x.plan
            check "p$i-summary-analysis" "${base[@]}" --analysis summary --json
            check "p$i-none-analysis" "${base[@]}" --analysis none --json
        done
    done
done < <("$a" --list-policies | awk '{ print $1, $2 }')
check shift-over "--policy" shift --n 8 --heads 4 --kv-tiles 16 --q-tiles 16 --json --csv OUT/s.csv ${eng[@]+"${eng[@]}"}
check shift-132 --policy shift --n 132 --heads 8 --kv-tiles 32 --q-tiles 32 --json ${eng[@]+"${eng[@]}"}
check fa3-large --policy fa3 --n 132 --heads 4 --kv-tiles 128 --q-tiles 128 --json --csv OUT/l.csv --trace OUT/l.json \
    ${eng[@]+"${eng[@]}"}
check fa3-causal-async --policy fa3 --mask causal --reduce async --dq-buffers 2 --n 132 --heads 8 --json \
    ${eng[@]+"${eng[@]}"}
check shape --seqlen 4096 --heads 16 --json ${eng[@]+"${eng[@]}"}
check config run "$root/configs/dash-paper.json"
check validate validate "$root/traces/h100" "$root/traces/h100-mask" --latency-matrix "$root/traces/calib-latency.json" \
    --profile "$root/configs/profiles/h100-sxm.json" --json
echo "outputs_same: $same same, $differ differ"
[ "$differ" -eq 0 ]
