#!/bin/bash
# Issue 34's findings, each with its reproducer (small variants: every one is refused before it allocates,
# so each runs in well under a second once fixed; on the code before the fix they abort, wrap or run long).
. "$(dirname "$0")/lib.sh"
sim=$1
# signal NAME CMD...: the command ends with a status (not a signal, not a timeout) within 20 s.
no_signal() {
    local name=$1; shift
    timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ge 124 ]; then fail "$name" "exit $rc (signal or timeout): $(head -c 300 "$tmp/err")"; else ok "$name"; fi
}
# baseline NAME SEQLEN BATCH HEADS: a baseline file of fa3-published.json's first tile with one fa3 record.
baseline() {
    python3 - "$tmp/$1" "$2" "$3" "$4" <<'PY'
import json, sys
b = json.load(open("traces/fa3-public/fa3-published.json"))
r = [r for r in b["records"] if r["policy"] == "fa3" and r["head_dim"] == 64][0]
r.update(seqlen=int(sys.argv[2]), batch=int(sys.argv[3]), heads=int(sys.argv[4]), kv_heads=int(sys.argv[4]))
b["tiles"], b["records"] = b["tiles"][:1], [r]
json.dump(b, open(sys.argv[1], "w"))
PY
}

# H1: calibrate --kernel --baseline checks each record's size before simulating it
baseline big.json 1048576 64 64
expect_error h1-baseline-4tib "the record of seqlen 1048576, batch 64, heads 64: .* over the cap of 4096 MB" \
    timeout 20 "$sim" calibrate --kernel --baseline "$tmp/big.json" --reference gpu-bwd -o "$tmp/k.json"
[ ! -e "$tmp/k.json" ] && ok h1-baseline-no-output || fail h1-baseline-no-output "left $tmp/k.json"
baseline mid.json 65536 4 1
expect_error h1-baseline-max-memory "over the cap of 100 MB (--max-memory-mb)" \
    timeout 20 "$sim" calibrate --kernel --baseline "$tmp/mid.json" --reference gpu-bwd --max-memory-mb 100
baseline wrap.json 512 1048576 4097
expect_error h1-baseline-batch-heads "batch 1048576 x heads 4097 is over the 2^31 - 1 heads" \
    timeout 20 "$sim" calibrate --kernel --baseline "$tmp/wrap.json" --reference gpu-bwd
expect_error h1-shape-batch-heads "batch 1000000 x heads 4097 is over the 2^31 - 1 heads" \
    timeout 20 "$sim" --seqlen 512 --batch 1000000 --heads 4097

# M4: validate --baseline refuses a file that is not a validate report (it said "no regression", exit 0)
one=traces/h100-mask/document-22-22-22/ascending.json.gz
for b in '[]' '{}' '"hello"' '{"traces":[],"pass":true}'; do
    printf '%s\n' "$b" >"$tmp/base.json"
    expect_error "m4-baseline-$b" "not a validate report" "$sim" validate "$one" --baseline "$tmp/base.json"
done
"$sim" validate "$one" --json >"$tmp/report.json"
expect_exit m4-baseline-report-accepted 0 "$sim" validate "$one" --baseline "$tmp/report.json"

# M1: the streamed reader finds repeated keys through a hash (200,000 keys of one object took minutes)
python3 -c 'import sys; n = 200000; k = ",".join("\"k%d\":0" % i for i in range(n))
open(sys.argv[1], "w").write("{" + k + "}")
open(sys.argv[2], "w").write("{\"format\":\"dashsim-trace\",\"metadata\":{" + k + ",\"k7\":1}}")' "$tmp/keys.json" "$tmp/nested.json"
expect_error m1-top-keys-linear '/format: must be "dashsim-trace"' timeout 10 "$sim" validate "$tmp/keys.json"
expect_error m1-nested-keys-linear "/metadata/k7: duplicate key" timeout 10 "$sim" validate "$tmp/nested.json"
# a document that cannot be a trace is refused when its format is read, not at its (here broken) end
printf '{"format": "chrome-trace", "tasks": [[1, 2' >"$tmp/notrace.json"
expect_error m1-format-first '/format: must be "dashsim-trace"' "$sim" validate "$tmp/notrace.json"

# M2: a block mask is capped before it is allocated or filled, and a job counts the pairs it keeps
mem_under() { # mem_under NAME KB CMD...: the command's peak RSS stays under KB
    local name=$1 kb=$2; shift 2
    /usr/bin/time -f %M -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err"
    local rss; rss=$(tail -1 "$tmp/rss")
    [ "$rss" -lt "$kb" ] && ok "$name" || fail "$name" "peak RSS $rss KB, over $kb KB"
}
expect_error m2-window-capped "take 1024 MB as a mask, over the cap of 1 MB" \
    "$sim" --mask window:1 --kv-tiles 32768 --q-tiles 32768 --max-memory-mb 1
mem_under m2-window-capped-rss 65536 "$sim" --mask window:1 --kv-tiles 32768 --q-tiles 32768 --max-memory-mb 1
expect_error m2-random-capped "take 1024 MB as a mask, over the cap of 100 MB" \
    timeout 10 "$sim" --mask random:1e-6:1 --kv-tiles 32768 --q-tiles 32768 --max-memory-mb 100
expect_exit m2-kept-pairs-counted 0 "$sim" --mask window:1 --kv-tiles 8192 --q-tiles 8192 --max-memory-mb 200 --policy ascending

# Low: an empty output path is refused; pipeline's text reports refuse --json; an all-zero trace is refused
expect_error low-empty-output "an output path is empty" "$sim" --n 4 --kv-tiles 4 --q-tiles 4 --trace ''
for r in amla vfa theorem; do
    expect_error "low-$r-report-json" "--$r-report prints a text table only" "$sim" pipeline --$r-report --json
done
python3 -c 'import gzip, json, sys
t = json.load(gzip.open(sys.argv[1])); c = t["columns"]
for row in t["tasks"]:
    for k in ("c_start", "c_end", "r_ready", "r_start", "r_end"): row[c.index(k)] = 0
json.dump(t, open(sys.argv[2], "w"))' traces/h100-mask/document-22-22-22/ascending.json.gz "$tmp/zero.json"
expect_error low-all-zero-trace "every time is 0, so the trace has no makespan" "$sim" validate "$tmp/zero.json"

# Low: a .gz reader is bounded in CPU as well as bytes: a file of 100 MB of newlines (100 KB compressed) is
# refused at 64 times its size (64 MiB here) instead of being read whole (a 1 MB file of 1 GB took 41-81 s)
head -c 100000000 /dev/zero | tr '\0' '\n' | gzip -1 >"$tmp/nl.mask.gz"
expect_error low-gz-ratio-mask "decompresses to over the limit of 67108864 bytes (64 times its size" \
    "$sim" search --mask-file "$tmp/nl.mask.gz" --n 4
cp "$tmp/nl.mask.gz" "$tmp/nl.plan.gz"
expect_error low-gz-ratio-plan "decompresses to over the limit of 67108864 bytes (64 times its size" \
    "$sim" --plan "$tmp/nl.plan.gz"

finish
