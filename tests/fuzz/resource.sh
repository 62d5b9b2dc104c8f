#!/bin/bash
# The resource harness (issue 34): any input of 1 MB or less ends within 10 s of CPU and under its memory cap
# with a status (0, 1 or 2), or is refused; never a signal, a timeout or a cap passed. It generates hostile
# inputs of about 1 MB (deep JSON, many keys, long strings, huge numbers, a gzip bomb, one long line, many
# blank lines) and gives each to every reader of that kind through the CLI.
#   tests/fuzz/resource.sh BIN/SIM [short|long]
# short (make test, through tests/cli_resource.sh): every kind once, on its main reader. long: every kind on
# every reader. Output: "ok NAME" / "FAIL NAME: why" lines and the lib.sh summary line.
# Measures with /usr/bin/time (CPU = user + system; peak RSS); the wall clock is only a 120 s guard, since a
# loaded machine stretches it. Limits: CPU_LIMIT_S (10), RSS_LIMIT_MB (1024: what --max-memory-mb 1024 allows).
. "$(dirname "$0")/../lib.sh"
sim=$1 mode=${2:-short}
cpu_limit=${CPU_LIMIT_S:-10} rss_limit=${RSS_LIMIT_MB:-1024}
if [ ! -x /usr/bin/time ]; then skip resource-harness "no /usr/bin/time"; finish; exit; fi

# gen KIND FILE: about 1 MB of KIND
gen() {
    python3 - "$1" "$2" "$mode" <<'PY'
import gzip, sys
kind, path, M = sys.argv[1], sys.argv[2], 1000000
G = 1000 * M if sys.argv[3] == "long" else 100 * M  # a gzip bomb's text: 1 GB (1 MB file), short 100 MB
if kind == "deep":      t = "[" * M
elif kind == "deepobj": t = '{"a":' * (M // 5)
elif kind == "keys":    t = "{" + ",".join('"k%d":1' % i for i in range(M // 10)) + "}"
elif kind == "string":  t = '{"schema_version": 1, "format": "' + "a" * M + '"}'
elif kind == "number":  t = '{"schema_version": ' + "9" * M + "}"
elif kind == "exponent": t = '{"schema_version": 1e' + "9" * M + "}"
elif kind == "line":    t = "x" * M
elif kind == "blank":   t = "\n" * M
elif kind == "floats":  t = "[" + ",".join(["1e308"] * (M // 6)) + "]"
if kind == "gzbomb":
    open(path, "wb").write(gzip.compress(b"\n" * G, 9))
elif kind == "gzjson":
    open(path, "wb").write(gzip.compress(b" " * G, 9))
else:
    open(path, "w").write(t)
PY
}

# run NAME CMD...: ends with 0, 1 or 2 within the CPU and RSS limits
run() {
    local name=$1; shift
    timeout 120 /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err"
    local rc=$?
    read -r user sys rss < <(tail -1 "$tmp/time") || { user=0 sys=0 rss=0; } # after "Command exited ..."
    local cpu
    cpu=$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN { printf "%.2f", u + s }')
    if [ "$rc" -gt 2 ]; then
        fail "$name" "exit $rc (signal, abort or timeout): $(grep -v 'Command exited' "$tmp/err" | head -c 200)"
    elif awk -v c="$cpu" -v l="$cpu_limit" 'BEGIN { exit !(c > l) }'; then
        fail "$name" "took $cpu s of CPU, over $cpu_limit s"
    elif [ "${rss:-0}" -gt $((rss_limit * 1024)) ]; then
        fail "$name" "peak RSS $((rss / 1024)) MB, over $rss_limit MB"
    else
        ok "$name"
    fi
}

json_kinds="deep deepobj keys string number exponent floats"
line_kinds="line blank"
[ "$mode" = long ] || json_kinds="deep keys string number" line_kinds="blank"
mem="--max-memory-mb $rss_limit"
for k in $json_kinds gzjson; do
    f=$tmp/$k.json; [ "$k" = gzjson ] && f=$tmp/$k.json.gz
    gen "$k" "$f"
    run "config-$k" "$sim" run "$f"
    run "trace-$k" "$sim" validate "$f"
    [ "$mode" = long ] || continue
    run "baseline-$k" "$sim" calibrate --kernel --baseline "$f" --reference gpu-bwd -o "$tmp/k.json" $mem
    run "raw-$k" "$sim" calibrate "$f" -o "$tmp/p.json"
    run "clock-$k" "$sim" calibrate traces/h200-calib/calib-profile-raw.json --clock "$f" -o "$tmp/p.json"
    run "validate-baseline-$k" "$sim" validate --baseline "$f" traces/h100-mask/document-22-22-22/ascending.json.gz
done
for k in $line_kinds gzbomb; do
    f=$tmp/$k.txt; [ "$k" = gzbomb ] && f=$tmp/$k.txt.gz
    gen "$k" "$f"
    run "maskfile-$k" "$sim" search --mask-file "$f" --n 4 $mem
    run "plan-$k" "$sim" --plan "$f" $mem
    [ "$mode" = long ] || continue
    run "merge-$k" "$sim" sweep --merge "$f"
    run "matrix-$k" "$sim" calibrate traces/h200-calib/calib-profile-raw.json --latency-matrix "$f" -o "$tmp/p.json"
done
finish
