#!/bin/bash
# Limits and files (the hardening audit of issue 15): no input the options accept may crash, overflow, eat
# memory or destroy a file.
# One check per finding of the audit, named after it: outputs never replace devices, FIFOs or links
# (h1), never an input or each other (h2); trace cells are range-checked (h3); every allocation
# proportional to the input is under the memory cap (h4); times cannot overflow (h5); derived costs and
# inconsistent shapes are errors, not assertions (h6); signals and closed pipes leave no temporary file,
# and a command's outputs are committed all or none (h7); smaller ones (h8). The fuzz inputs are replayed by
# tests/cli_fuzz_replay.sh.
. "$(dirname "$0")/lib.sh"
sim=$1
ci=configs/ci-sweep.json
trace=tests/golden/validate/fa3-tiny.json
no_tmp() { # no_tmp NAME DIR: no temporary or backup file left in DIR
    if ls -A "$2" | grep -qE '\.(tmp|bak)\.[0-9]+'; then fail "$1" "left $(ls -A "$2" | tr '\n' ' ')"; else ok "$1"; fi
}

# h1: a device, a FIFO, a symbolic link are written through, never replaced
expect_exit h1-dev-null 0 "$sim" --n 8 --trace /dev/null --csv /dev/null
[ -c /dev/null ] && ok h1-dev-null-kept || fail h1-dev-null-kept "$(ls -l /dev/null)"
if [ -e /dev/full ]; then
    expect_error h1-dev-full "cannot write /dev/full" "$sim" --n 8 --trace /dev/full
    [ -c /dev/full ] && ok h1-dev-full-kept || fail h1-dev-full-kept "$(ls -l /dev/full)"
else skip h1-dev-full "no /dev/full"; fi
mkfifo "$tmp/fifo"
# The reader must have the FIFO open before the writer tries (sim refuses a FIFO nobody reads, rather than
# block): retry while the background reader starts, and never wait on a reader that got no writer.
timeout 30 cat "$tmp/fifo" >"$tmp/from-fifo" &
reader=$!
for _ in $(seq 100); do
    "$sim" --n 8 --csv "$tmp/fifo" >"$tmp/out" 2>"$tmp/err" && break
    sleep 0.1
done
[ -s "$tmp/err" ] && fail h1-fifo "$(cat "$tmp/err")" || ok h1-fifo
wait "$reader"
[ -p "$tmp/fifo" ] && grep -q '^op,cta,sm' "$tmp/from-fifo" && ok h1-fifo-kept || fail h1-fifo-kept "$(ls -l "$tmp")"
expect_error h1-fifo-no-reader "no process is reading the FIFO" "$sim" --n 8 --csv "$tmp/fifo"
mkdir "$tmp/real"
echo old >"$tmp/real/t.csv"
ln -s real/t.csv "$tmp/link.csv"
expect_exit h1-symlink 0 "$sim" --n 8 --csv "$tmp/link.csv"
[ -L "$tmp/link.csv" ] && grep -q '^op,cta,sm' "$tmp/real/t.csv" && ok h1-symlink-kept \
    || fail h1-symlink-kept "$(ls -l "$tmp" "$tmp/real")"
ln -s nowhere/x.csv "$tmp/dangling.csv"
expect_error h1-dangling "symbolic link to a missing file" "$sim" --n 8 --csv "$tmp/dangling.csv"
mkdir "$tmp/adir"
expect_error h1-directory "it is a directory" "$sim" --n 8 --csv "$tmp/adir"
no_tmp h1-no-tmp "$tmp"

# h2: an output is never an input or another output
cp "$ci" "$tmp/c.json"
expect_error h2-sweep-o-config "refusing to overwrite an input" "$sim" sweep "$tmp/c.json" -o "$tmp/c.json"
cmp -s "$ci" "$tmp/c.json" && ok h2-config-kept || fail h2-config-kept "the config changed"
ln "$tmp/c.json" "$tmp/hard.json"
expect_error h2-hard-link "the same file as the config" "$sim" run "$tmp/c.json" -o "$tmp/hard.json"
expect_error h2-out-dir "give each output its own path" "$sim" run "$tmp/c.json" --out "$tmp" -o "$tmp/c.csv"
expect_error h2-trace-csv "give each output its own path" "$sim" --n 8 --trace "$tmp/x" --csv "$tmp/./x"
# pipeline outputs: distinct paths, and all of them or none (an existing file survives a failed set)
expect_error h2-pipeline-same "--csv .*p.csv is the same file as --trace" "$sim" pipeline --trace "$tmp/p.csv" --csv "$tmp/p.csv"
echo old >"$tmp/keep.csv"
expect_exit h7-pipeline-set 2 "$sim" pipeline --csv "$tmp/keep.csv" --gantt "$tmp/no/such/dir/g.png"
[ "$(cat "$tmp/keep.csv")" = old ] && ok h7-pipeline-set-kept || fail h7-pipeline-set-kept "--csv replaced though --gantt failed"
# trace times and fitted hand-offs stay inside what the model's ops and 32-bit edge latencies hold
python3 - "$(dirname "$0")/golden/validate/fa3-tiny.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
big = json.loads(json.dumps(d))
for t in big["tasks"]:
    t[7:12] = [v * 10**11 for v in t[7:12]]
json.dump(big, open(sys.argv[2] + "/bigtimes.json", "w"))
d["tasks"][2] = [1, -1, 1, 0, 1, 0, 1, 100, 1100, 1100, 2000001600, 2000002100]
d["tasks"][3] = [1, -1, 1, 0, 1, 1, 1, 2000002100, 2000003100, 2000003100, 2000003100, 2000003600]
json.dump(d, open(sys.argv[2] + "/bighandoff.json", "w"))
PY
expect_error h3-trace-time-cap "/tasks/0/7: c_start must be an integer from 0 to 100000000000" "$sim" validate "$tmp/bigtimes.json"
expect_error h3-handoff-cap "median hand-off of 2000000000 ns is over the model's limit" "$sim" validate "$tmp/bighandoff.json"
expect_error h6-plan-latency-cap "latency_ns '04294967295' is not an integer in 0..1000000000" "$sim" --plan "$(dirname "$0")/fuzz/regress-plan/crash-36a66b3e-latency.plan"
# the files a config names are inputs too: its latency matrix and its block mask file
mkdir -p "$tmp/named"
python3 -c 'print("\n".join(" ".join("0" if i == j else "500" for j in range(4)) for i in range(4)))' >"$tmp/named/m.txt"
printf 'dashsim-mask 1\nkv_tiles 4\nq_tiles 4\nrows\n1111\n0111\n0011\n0001\nend\n' >"$tmp/named/k.mask"
cat >"$tmp/named/c.json" <<'J'
{"schema_version": 1, "workload": {"heads": 2, "seqlen_q": 512, "head_dim": 128, "mask_file": "k.mask"},
 "hardware": {"preset": "h100-sxm", "sm_count": 4, "latency_matrix": "m.txt"}}
J
cp "$tmp/named/m.txt" "$tmp/named/m.bak" && cp "$tmp/named/k.mask" "$tmp/named/k.bak"
expect_error h2-config-matrix "-o .*m.txt is the same file as the config's latency_matrix" "$sim" run "$tmp/named/c.json" -o "$tmp/named/m.txt"
expect_error h2-config-mask "--csv .*k.mask is the same file as the config's mask_file" "$sim" run "$tmp/named/c.json" --row 1 --csv "$tmp/named/k.mask"
cmp -s "$tmp/named/m.txt" "$tmp/named/m.bak" && cmp -s "$tmp/named/k.mask" "$tmp/named/k.bak" && ok h2-config-inputs-intact ||
    fail h2-config-inputs-intact "an input named by the config changed"
expect_error h2-gantt-dat "the Gantt chart's data .* is the same file as --csv" "$sim" --n 8 --gantt "$tmp/g.png" --csv "$tmp/g.dat"
"$sim" --n 8 --emit-plan "$tmp/p.plan" >/dev/null
expect_error h2-plan "the same file as the plan" "$sim" --plan "$tmp/p.plan" --emit-plan "$tmp/p.plan"
expect_error h6-plan-empty-cta "the task count '0' is not an integer in 1..0" "$sim" --plan "$(dirname "$0")/fuzz/regress-plan/empty-cta.plan"
[ ! -e "$tmp/x" ] && ok h2-nothing-written || fail h2-nothing-written "$(ls "$tmp")"

# h3: trace cells: integers in their column's range, no duplicate keys
cell() { # cell FILE COLUMN VALUE: the tiny trace with the first task's COLUMN set to VALUE (raw JSON)
    python3 - "$trace" "$@" <<'PY'
import json, sys
src, out, col, val = sys.argv[1:]
d = json.load(open(src))
d["tasks"][0][d["columns"].index(col)] = json.loads(val)
json.dump(d, open(out, "w"))
PY
}
for c in "smid 4294967295" "smid 2147483648" "smid 8" "smid -1" "head 4294967296" "head 1" "kv 1.5" \
         "q 1e300" "c_start -1" "rank 100" "cta 2147483648"; do
    set -- $c
    cell "$tmp/t.json" "$1" "$2"
    expect_error "h3-$1-$2" "/tasks/0[/0-9]*: $1 \(must be an integer from\|[0-9]* is not below\)" "$sim" validate "$tmp/t.json"
done
sed 's/"format"/"format": "dashsim-trace", "format"/' "$trace" >"$tmp/dup.json" # (a first "x" is refused as no trace)
expect_error h3-duplicate-key "/format: duplicate key" "$sim" validate "$tmp/dup.json"
python3 - "$trace" "$tmp/meta.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["metadata"]["n_sm"] = 4294967296.0; json.dump(d, open(sys.argv[2], "w"))
PY
expect_error h3-meta-range "/metadata/n_sm: must be an integer" "$sim" validate "$tmp/meta.json"

# h4: one memory budget for everything proportional to the input
expect_error h4-sm-count "would need about .* MB to simulate, over the cap" \
    "$sim" run "$ci" --set 'sweep={}' --set hardware.sm_count=100000 --set hardware.latency_far_ns=900
expect_error h4-sm-count-40000 "over the cap of 4096 MB" "$sim" run "$ci" --set 'sweep={}' --set hardware.sm_count=40000
expect_error h4-max-memory "--max-memory-mb expects an integer from 1 to" "$sim" --n 8 --max-memory-mb 8796093022207
expect_error h4-config-max-memory "/options/max_memory_mb: .* over this machine's" \
    "$sim" run "$ci" --set 'sweep={}' --set options.max_memory_mb=10000000
python3 - "$trace" "$tmp/huge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); m = d["metadata"]
m["heads"], m["kv_tiles"], m["q_tiles"] = 1000000, 1000000, 1000000
json.dump(d, open(sys.argv[2], "w"))
PY
expect_error h4-trace-claim "would need about .* MB to check, over the cap" "$sim" validate "$tmp/huge.json"
expect_exit h4-jobs-capped 0 "$sim" sweep "$ci" --jobs 64 --set options.max_memory_mb=64

# h5: times cannot overflow
expect_error h5-overflow "over the simulator's bound of 2^62 ns" \
    "$sim" --n 1 --heads 120 --kv-tiles 200 --q-tiles 200 --c 1000000000000 --r 1000000000000
grep -q "2^62" <("$sim" --help) && ok h5-bound-in-help || fail h5-bound-in-help "--help does not state the bound"

# h6: derived costs are checked like inputs; inconsistent shapes are errors, not assertions
expect_error h6-tflops "/hardware/tensor_tflops: the derived compute cost" \
    "$sim" run "$ci" --set 'sweep={}' --set hardware.tensor_tflops=1e-300 -o "$tmp/h6.csv"
[ ! -e "$tmp/h6.csv" ] && ok h6-no-file || fail h6-no-file "$(ls "$tmp")"
expect_error h6-causal-ratio "needs at least 15 Q tiles" "$sim" --policy fa3 --mask causal --n 8 --tile-ratio 2
no_tmp h6-no-tmp "$tmp"

# h7: signals and closed pipes leave no temporary file; outputs are a set
mkdir "$tmp/sig"
"$sim" --n 132 --heads 256 --dot "$tmp/sig/t.dot" --csv "$tmp/sig/t.csv" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do ls "$tmp/sig" | grep -q tmp && break; sleep 0.1; done
kill -TERM $pid
wait $pid
rc=$?
[ "$rc" -eq 143 ] && ok h7-sigterm-exit || fail h7-sigterm-exit "exit $rc"
[ -z "$(ls -A "$tmp/sig")" ] && ok h7-sigterm-clean || fail h7-sigterm-clean "$(ls -A "$tmp/sig")"
"$sim" --n 132 --heads 256 --dot "$tmp/sig/t.dot" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do ls "$tmp/sig" | grep -q tmp && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
[ "$rc" -eq 130 ] && [ -z "$(ls -A "$tmp/sig")" ] && ok h7-sigint-clean || fail h7-sigint-clean "exit $rc, $(ls -A "$tmp/sig")"
mkdir "$tmp/pipe"
"$sim" run "$ci" --out "$tmp/pipe" | head -1 >/dev/null
[ -z "$(ls -A "$tmp/pipe" | grep -E 'tmp')" ] && ok h7-pipe-clean || fail h7-pipe-clean "$(ls -A "$tmp/pipe")"
mkdir -p "$tmp/set/ci-sweep.jsonl"
expect_error h7-set "ci-sweep.jsonl: it is a directory" "$sim" run "$ci" --out "$tmp/set" -o "$tmp/set-o.txt"
[ ! -e "$tmp/set-o.txt" ] && [ ! -e "$tmp/set/ci-sweep.csv" ] && ok h7-set-none || fail h7-set-none "$(ls -R "$tmp/set"*)"
echo keep >"$tmp/keep.csv"
expect_error h7-set-keeps "cannot write" "$sim" --n 8 --csv "$tmp/keep.csv" --trace /dev/full
grep -qx keep "$tmp/keep.csv" && ok h7-set-kept || fail h7-set-kept "$(head -2 "$tmp/keep.csv")"
no_tmp h7-no-tmp "$tmp"

# h8: smaller ones (the latency matrix's cell ranges are tests/cli_matrix.sh's matrix-cell-*)
expect_error h8-fifo-input "not a regular file" timeout 10 "$sim" run "$tmp/fifo"
expect_error h8-fifo-trace "not a regular file" timeout 10 "$sim" validate "$tmp/fifo"
expect_error h8-fifo-plan "not a regular file" timeout 10 "$sim" --plan "$tmp/fifo"
python3 -c "print('[' * 2000 + ']' * 2000)" >"$tmp/deep.json"
expect_error h8-deep "nested too deep" "$sim" run "$tmp/deep.json"
expect_error h8-plot-bmp "must end in .png" "$sim" sweep "$ci" --plot "$tmp/p.bmp"
python3 - "$tmp/mdup.json" <<'PY'
import sys
open(sys.argv[1], "w").write('{"format": "dashsim-calib-latency", "version": 1, "version": 2, "smids": [0, 1], '
                             '"latency_ns": [[-1, 600], [600, -1]]}')
PY
expect_error h8-matrix-duplicate "/version: duplicate key" "$sim" validate "$trace" --latency-matrix "$tmp/mdup.json"
expect_exit h8-json-ints 0 "$sim" --n 1 --kv-tiles 1 --q-tiles 1 --c 1000000000000 --r 0 --json
grep -q '"makespan_ns":1000000000000,' "$tmp/out" && ok h8-json-digits || fail h8-json-digits "$(cat "$tmp/out")"

# h2 over every output flag (issue 33): an existing file at an output's path is replaced (as cp, sort -o and
# gcc -o do) unless the command reads it: --csv, --trace, --dot, --emit-plan, -o, --plot (and the .gp/.dat
# beside it) and --json's standard output never write onto a config, a trace, or a hardware or kernel profile,
# named on the command line or by a config; each is refused in one sentence, exit 2, every input intact.
io=$tmp/io root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$io" && cp "$root/configs/profiles/h100-sxm.json" "$io/hp.json" && cp "$io/hp.json" "$io/hp.dat"
cp "$root/configs/kernels/gpu-bwd.json" "$io/kp.json" && cp "$root/tests/golden/validate/fa3-tiny.json" "$io/tr.json"
printf '{"schema_version": 1, "workload": {"seqlen_q": 1024, "head_dim": 128, "heads": 2, "mask": "causal"},
 "hardware": {"profile": "./hp.json"}, "options": {"kernel": "./kp.json"}, "policies": ["fa3"]}\n' >"$io/cfg.json"
for f in hp.json hp.dat kp.json tr.json cfg.json; do cp "$io/$f" "$io/$f.orig"; done
into_input() { # NAME CMD...: refused, nothing on stdout, every input as it was
    expect_error "$1" "refusing to overwrite an input\|it is a file this command reads" "${@:2}"
    for f in hp.json hp.dat kp.json tr.json cfg.json; do cmp -s "$io/$f" "$io/$f.orig" || fail "$1-intact" "$f changed"; done
}
into_input h2-io-shape-csv-profile "$sim" --seqlen 1024 --profile "$io/hp.json" --csv "$io/hp.json"
into_input h2-io-shape-trace-kernel "$sim" --seqlen 1024 --kernel "$io/kp.json" --trace "$io/kp.json"
into_input h2-io-shape-dot-kernel "$sim" --seqlen 1024 --kernel "$io/kp.json" --dot "$io/kp.json"
into_input h2-io-shape-plan-profile "$sim" --seqlen 1024 --profile "$io/hp.json" --emit-plan "$io/hp.json"
into_input h2-io-shape-json-profile sh -c "'$sim' --seqlen 1024 --profile '$io/hp.json' --json 1<>'$io/hp.json'"
into_input h2-io-config-csv-profile "$sim" run "$io/cfg.json" --row 1 --csv "$io/hp.json"
into_input h2-io-config-trace-kernel "$sim" run "$io/cfg.json" --row 1 --trace "$io/kp.json"
into_input h2-io-config-o-kernel "$sim" sweep "$io/cfg.json" -o "$io/kp.json"
into_input h2-io-config-stdout-config sh -c "'$sim' sweep '$io/cfg.json' 1<>'$io/cfg.json'"
into_input h2-io-perfetto-o-trace "$sim" perfetto "$io/tr.json" -o "$io/tr.json"
into_input h2-io-validate-json-trace sh -c "'$sim' validate '$io/tr.json' --json 1<>'$io/tr.json'"
if command -v gnuplot >/dev/null; then
    into_input h2-io-list-plot-data-profile "$sim" --seqlen 1024,2048 --mask causal --profile "$io/hp.dat" --plot "$io/hp.png"
    into_input h2-io-shape-gantt-data-profile "$sim" --seqlen 1024 --profile "$io/hp.dat" --gantt "$io/hp.png"
    into_input h2-io-config-plot-data-profile "$sim" sweep "$io/cfg.json" --set hardware.profile=./hp.dat --plot "$io/hp.png"
else skip h2-io-plot "no gnuplot"; fi
echo old >"$io/other.csv"
expect_exit h2-io-other-replaced 0 "$sim" --seqlen 1024 --profile "$io/hp.json" --csv "$io/other.csv"
head -1 "$io/other.csv" | grep -q '^op,cta,sm' && ok h2-io-other-is-output || fail h2-io-other-is-output "$(head -1 "$io/other.csv")"

finish
