#!/bin/bash
# The output layer and the bounded readers (the hardening audit of issue 27, of 0fc2215): one check per
# finding, named after its
# number (r2-N; r2-l for the lesser ones), each failing on that commit. The output layer (sim/io/output.h):
# no output replaces an input or another output, a set is committed all or none even under a signal,
# standard output is checked; the bounded input reader (sim/io/input.h): gzip, masks, merged slices;
# calibrate's raw files; install paths. Its fuzz targets' inputs are replayed by tests/cli_fuzz_replay.sh.
. "$(dirname "$0")/lib.sh"
sim=$1
top=$(cd "$(dirname "$0")/.." && pwd)
ci=$top/configs/ci-sweep.json
trace=$top/tests/golden/validate/fa3-tiny.json
harden=$top/tests/harden
no_tmp() { # no_tmp NAME DIR: no temporary or backup file left in DIR
    if ls -A "$2" | grep -qE '\.(tmp|bak)\.[0-9]+'; then fail "$1" "left $(ls -A "$2" | tr '\n' ' ')"; else ok "$1"; fi
}
profile_read() { # profile_read FILE: the profile reader accepts FILE (costing may still lack a tile)
    "$sim" --seqlen 1024 --profile "$1" >/dev/null 2>"$tmp/profile.err" ||
        ! grep -q -- "${1##*/}\(: /\|:[0-9]*:[0-9]*:\)" "$tmp/profile.err"
}
same() { # same NAME FILE TEXT: FILE holds exactly TEXT
    [ "$(cat "$2" 2>/dev/null)" = "$3" ] && ok "$1" || fail "$1" "$2 holds '$(head -c 80 "$2" 2>&1)'"
}
# The fault-injecting shim (tests/harden/fault_fs.c) for the commit's renames and links.
shim=$tmp/fault_fs.so
${CC:-cc} -shared -fPIC -O1 -o "$shim" "$harden/fault_fs.c" -ldl 2>"$tmp/cc.log" || shim=
# A sanitizer build must come first in the preload list: the shim then goes second.
asan_rt=$(ldd "$sim" 2>/dev/null | awk '/libasan/ { print $3 }')
preload=${asan_rt:+$asan_rt:}$shim
printf 'dashsim-mask 1\nkv_tiles 4\nq_tiles 4\nrows\n1000\n1100\n0110\n0011\nend\n' >"$tmp/m.mask"

# r2-2: search never deletes a file: a failed later output leaves the plan path as it was
echo old >"$tmp/old.plan"
expect_error r2-2-search-set "cannot write .*nonexistent/r" "$sim" search --mask window:2 --n 4 --emit-plan "$tmp/old.plan" \
    --ranks "$tmp/nonexistent/r"
same r2-2-old-plan-kept "$tmp/old.plan" old
if [ "$(id -u)" -eq 0 ] && mknod "$tmp/null" c 1 3 2>/dev/null; then # a private copy of /dev/null
    "$sim" search --mask window:2 --n 4 --emit-plan "$tmp/null" --ranks "$tmp/nonexistent/r" >/dev/null 2>&1
    [ -c "$tmp/null" ] && ok r2-2-device-kept || fail r2-2-device-kept "the device node was deleted"
else skip r2-2-device-kept "needs root to make a device node"; fi

# r2-3: a corrupt .gz is refused with zlib's own sentence (it was read after gzclose freed it)
gzip -c "$trace" >"$tmp/t.json.gz"
cp "$tmp/t.json.gz" "$tmp/bad.json.gz"
printf '\000\000\000\000' | dd of="$tmp/bad.json.gz" bs=1 seek=40 conv=notrunc 2>/dev/null
expect_error r2-3-corrupt-gz "bad.json.gz: not a readable gzip file (invalid [a-z /]*)$" "$sim" validate "$tmp/bad.json.gz"
cp "$tmp/bad.json.gz" "$tmp/bad.mask.gz"
expect_error r2-3-corrupt-gz-mask "bad.mask.gz: not a readable gzip file (invalid [a-z /]*)$" "$sim" --mask-file "$tmp/bad.mask.gz"

# r2-4: no output replaces an input: search's mask file, profile, plan = ranks, plan = a baseline;
# calibrate -o RAW (also through a symbolic link, or the latency matrix); --trace on the mask file or the
# profile; the CSV's sidecar = another output
cp "$top/configs/profiles/h100-sxm.json" "$tmp/prof.json"
cp "$tmp/m.mask" "$tmp/m.keep" && cp "$tmp/prof.json" "$tmp/prof.keep"
expect_error r2-4-search-mask "refusing to overwrite an input" "$sim" search --mask-file "$tmp/m.mask" --emit-plan "$tmp/m.mask"
expect_error r2-4-search-profile "refusing to overwrite an input" "$sim" search --mask window:2 --n 4 \
    --profile "$tmp/prof.json" --ranks "$tmp/prof.json"
expect_error r2-4-search-plan-ranks "give each output its own path" "$sim" search --mask window:2 --n 4 \
    --emit-plan "$tmp/s.plan" --ranks "$tmp/s.plan"
mkdir -p "$tmp/base"
expect_error r2-4-search-plan-baseline "give each output its own path" "$sim" search --mask window:2 --n 4 \
    --emit-plan "$tmp/base/spt.plan" --emit-baselines "$tmp/base"
cp "$top/traces/calib-profile-first/calib-profile-raw.json" "$tmp/raw.json" && cp "$tmp/raw.json" "$tmp/raw.keep"
expect_error r2-4-calibrate-raw "refusing to overwrite an input" "$sim" calibrate "$tmp/raw.json" -o "$tmp/raw.json"
ln -s raw.json "$tmp/raw-link.json"
expect_error r2-4-calibrate-link "refusing to overwrite an input" "$sim" calibrate "$tmp/raw.json" -o "$tmp/raw-link.json"
cp "$top/traces/calib-latency.json" "$tmp/lat.json" && cp "$tmp/lat.json" "$tmp/lat.keep"
python3 - "$tmp/raw.json" "$tmp/raw-nostamp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.pop("handoff_stamped", None); json.dump(d, open(sys.argv[2], "w"))
PY
expect_error r2-4-calibrate-matrix "refusing to overwrite an input" "$sim" calibrate "$tmp/raw-nostamp.json" \
    --latency-matrix "$tmp/lat.json" -o "$tmp/lat.json"
expect_error r2-4-trace-mask "refusing to overwrite an input" "$sim" --mask-file "$tmp/m.mask" --trace "$tmp/m.mask"
expect_error r2-4-trace-profile "refusing to overwrite an input" "$sim" --seqlen 1024 --profile "$tmp/prof.json" \
    --policy fa3 --trace "$tmp/prof.json"
cmp -s "$tmp/m.mask" "$tmp/m.keep" && cmp -s "$tmp/prof.json" "$tmp/prof.keep" && cmp -s "$tmp/raw.json" "$tmp/raw.keep" \
    && cmp -s "$tmp/lat.json" "$tmp/lat.keep" && ok r2-4-inputs-intact || fail r2-4-inputs-intact "an input changed"
expect_error r2-4-sidecar "give each output its own path" "$sim" --n 8 --csv "$tmp/c.csv" --trace "$tmp/c.csv.meta.json"
expect_error r2-4-stdout-input "standard output: it is a file this command reads" sh -c "\"$sim\" --mask-file \"$tmp/m.mask\" >>\"$tmp/m.mask\""
no_tmp r2-4-no-tmp "$tmp"

# r2-5: make install and uninstall with a space in PREFIX: one directory, never two
bin=$(cd "$(dirname "$sim")" && pwd)
if [ "$(dirname "$bin")" = "$top" ]; then # a build of this tree (make install would rebuild another one)
    libdir=$top/$(basename "$bin" | sed 's/^bin/lib/') build=$top/$(basename "$bin" | sed 's/^bin/build/')
    mkdir -p "$tmp/inst/keep"
    make -s -C "$top" install PREFIX="$tmp/inst x" BIN="$bin" LIB="$libdir" BUILD="$build" >"$tmp/install.log" 2>&1 &&
        "$tmp/inst x/bin/dashsim" --version >/dev/null && ok r2-5-install-space || fail r2-5-install-space "$(tail -3 "$tmp/install.log")"
    make -s -i -C "$top" uninstall PREFIX="$tmp/inst x" >/dev/null 2>&1
    [ -d "$tmp/inst/keep" ] && [ -z "$(find "$tmp/inst x" -type f 2>/dev/null)" ] && ok r2-5-uninstall-space \
        || fail r2-5-uninstall-space "$(ls -R "$tmp/inst" "$tmp/inst x" 2>&1 | head -5)"
else skip r2-5-install-space "$sim is not a build of this tree"; fi

# r2-6b: every command that allocates by its input's size takes --max-memory-mb (the shared parse: 1 to this
# machine's memory) and refuses over it in one sentence with the estimate and the cap, before allocating;
# under it the output is the same bytes as without the option
for cmd in pipeline decode calibrate; do
    "$sim" $cmd --help | grep -q -- "--max-memory-mb MB" && ok "r2-6b-$cmd-help" || fail "r2-6b-$cmd-help" "no --max-memory-mb"
    expect_error "r2-6b-$cmd-range" "--max-memory-mb expects an integer from 1 to" "$sim" $cmd --max-memory-mb 0
done
under() { # under NAME ARGS...: exit 0 with --max-memory-mb MB (ARGS end in it), the same bytes as without
    local name=$1; shift
    "$@" >"$tmp/under.out" 2>&1 && "${@:1:$#-2}" >"$tmp/plain.out" 2>&1 && cmp -s "$tmp/under.out" "$tmp/plain.out" \
        && ok "$name" || fail "$name" "$(head -c 200 "$tmp/under.out")"
}
expect_error r2-6b-pipeline-over "the pipeline's 4000000 ops would need about 427 MB, over the cap of 100 MB (--max-memory-mb)" \
    "$sim" pipeline --blocks 1000000 --max-memory-mb 100
under r2-6b-pipeline-under "$sim" pipeline --blocks 100000 --json --max-memory-mb 100
expect_error r2-6b-decode-over "4194304 m-blocks x 1 splits (4194304 CTAs) would need about 256 MB to simulate, over the cap of 100 MB (--max-memory-mb)" \
    "$sim" decode --batch 4096 --hq 1024 --hkv 1024 --lk 128 --max-memory-mb 100
expect_error r2-6b-decode-sweep-over "65536 m-blocks x 64 splits (4194304 CTAs) would need about 256 MB" \
    "$sim" decode --batch 64 --hq 1024 --hkv 1024 --lk 1024 --sweep-splits --max-memory-mb 100
under r2-6b-decode-under "$sim" decode --batch 512 --hq 1024 --hkv 1024 --lk 128 --json --max-memory-mb 100
raw=$top/traces/calib-reduce-staggered/calib-profile-raw.json # 185477 bytes: about 8.5 MB as a JSON tree
expect_error r2-6b-calibrate-raw-over "calib-profile-raw.json is 185477 bytes, which would need about 8 MB to read, over the cap of 1 MB (--max-memory-mb)" \
    "$sim" calibrate "$raw" --max-memory-mb 1
expect_error r2-6b-calibrate-load-over "is 185477 bytes, which would need about 8 MB to read, over the cap of 1 MB (--max-memory-mb)" \
    "$sim" calibrate "$tmp/m.mask" --load "$raw" --max-memory-mb 1
expect_error r2-6b-calibrate-clock-over "is 185477 bytes, which would need about 8 MB to read, over the cap of 1 MB (--max-memory-mb)" \
    "$sim" calibrate "$tmp/m.mask" --clock "$raw" --max-memory-mb 1
gzip -c "$raw" >"$tmp/raw.json.gz"
expect_error r2-6b-calibrate-gz-over "raw.json.gz decompresses to over the limit of 43690 bytes, the most that fits --max-memory-mb 2 MB at 48 bytes" \
    "$sim" calibrate "$tmp/raw.json.gz" --max-memory-mb 2
under r2-6b-calibrate-raw-under "$sim" calibrate "$raw" --max-memory-mb 100
kcal=$top/traces/kernel-cal
expect_error r2-6b-calibrate-kernel-over "json.gz is [0-9]* bytes, over the limit of 131072, the most that fits --max-memory-mb 1 MB" \
    "$sim" calibrate --kernel "$kcal"/d128/*.json.gz --max-memory-mb 1
expect_error r2-6b-calibrate-kernel-claim "would need about 32 MB to check, over the cap of 30 MB (--max-memory-mb 40 MB, less the inputs" \
    "$sim" calibrate --kernel "$kcal"/d128/*.json.gz --max-memory-mb 40
under r2-6b-calibrate-kernel-under "$sim" calibrate --kernel "$kcal"/d128/*.json.gz "$kcal"/d64/*.json.gz --runs \
    "$kcal"/runs-calibration.json --name gpu-bwd --max-memory-mb 1000

# r2-leak: the shape front end freed nothing of the winner's run when one of its outputs failed (LeakSanitizer
# under make check-asan, valgrind otherwise; skipped without either)
if [ -n "$asan_rt" ]; then
    ASAN_OPTIONS=detect_leaks=1 "$sim" --seqlen 1024 --csv "$tmp/nonexistent/x.csv" >/dev/null 2>"$tmp/leak.err"
    ! grep -q LeakSanitizer "$tmp/leak.err" && ok r2-leak-shape-output || fail r2-leak-shape-output "$(grep -m1 -A4 'leak of' "$tmp/leak.err")"
elif command -v valgrind >/dev/null; then
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 "$sim" --seqlen 1024 --csv \
        "$tmp/nonexistent/x.csv" >/dev/null 2>"$tmp/leak.err"
    [ $? -eq 2 ] && ok r2-leak-shape-output || fail r2-leak-shape-output "$(grep -m1 -A4 'lost' "$tmp/leak.err")"
else skip r2-leak-shape-output "needs an ASan build or valgrind"; fi

# r2-7: mask files are streamed: blank lines cost nothing, a .gz bomb stops at the cap
{ printf 'dashsim-mask 1\nkv_tiles 2\nq_tiles 2\n'; head -c 20000000 /dev/zero | tr '\0' '\n'; printf 'rows\n11\n01\nend\n'; } >"$tmp/blank.mask"
/usr/bin/time -f '%M' -o "$tmp/rss" "$sim" --mask-file "$tmp/blank.mask" --n 2 >/dev/null 2>&1
[ "$(tail -1 "$tmp/rss")" -lt 100000 ] && ok r2-7-blank-lines || fail r2-7-blank-lines "peak $(tail -1 "$tmp/rss") KB"
# a bomb of 300 MB in 300 gzip members of 1 MB each: read line by line, it stops at the first line's cap
head -c 1048576 /dev/zero | tr '\0' 1 | gzip -9 >"$tmp/member.gz"
for _ in $(seq 300); do cat "$tmp/member.gz"; done >"$tmp/bomb.mask.gz"
/usr/bin/time -f '%M' -o "$tmp/rss" "$sim" --mask-file "$tmp/bomb.mask.gz" --n 2 >"$tmp/out" 2>"$tmp/err"
grep -q "bomb.mask.gz:1: a line is over the limit" "$tmp/err" && [ "$(tail -1 "$tmp/rss")" -lt 100000 ] \
    && ok r2-7-gz-bomb || fail r2-7-gz-bomb "peak $(tail -1 "$tmp/rss") KB: $(cat "$tmp/err")"
# and the decompressed size is capped as it is read (a trace of 20 MB of white space, under 64 MB)
for _ in $(seq 20); do cat "$tmp/member.gz"; done | gzip -dc | tr 1 ' ' | gzip -1 >"$tmp/space.json.gz"
expect_error r2-7-gz-cap "space.json.gz decompresses to over the limit of 8388608 bytes" "$sim" validate \
    "$tmp/space.json.gz" --max-memory-mb 64

# r2-8: writes to standard output are checked: a full disk, a closed descriptor
if [ -w /dev/full ]; then
    expect_error r2-8-stdout-full "cannot write standard output: No space left on device" sh -c "\"$sim\" sweep \"$ci\" >/dev/full"
    expect_error r2-8-stdout-full-set "cannot write standard output" sh -c "\"$sim\" --n 8 --csv \"$tmp/set.csv\" >/dev/full"
    [ ! -e "$tmp/set.csv" ] && ok r2-8-no-file-when-stdout-fails || fail r2-8-no-file-when-stdout-fails "the CSV was written"
    expect_error r2-l-enospc "cannot write /dev/full: No space left on device" "$sim" --n 8 --csv /dev/full
else skip r2-8-stdout-full "no /dev/full"; fi
sh -c "\"$sim\" sweep \"$ci\" >&-" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "cannot write standard output" "$tmp/err" && ok r2-8-stdout-closed || fail r2-8-stdout-closed "$(cat "$tmp/err")"

# r2-9: a signal during the final renames waits for the set: all old or all new, no backup lost; a file
# system without hard links still gets its old file back when a later rename fails
if [ -n "$shim" ]; then
    mkdir -p "$tmp/sig/out"
    for f in "$tmp/sig/a.csv" "$tmp/sig/out/ci-sweep.csv" "$tmp/sig/out/ci-sweep.jsonl"; do echo old >"$f"; done
    LD_PRELOAD=$preload FAULT_RENAME_DELAY_MS=300 "$sim" sweep "$ci" -o "$tmp/sig/a.csv" --out "$tmp/sig/out" \
        >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 400); do [ "$(cat "$tmp/sig/a.csv")" != old ] && break; sleep 0.05; done
    kill -TERM $pid 2>/dev/null
    wait $pid
    olds=$(grep -lx old "$tmp/sig/a.csv" "$tmp/sig/out/ci-sweep.csv" "$tmp/sig/out/ci-sweep.jsonl" | wc -l)
    [ "$olds" -eq 0 ] || [ "$olds" -eq 3 ] && ok r2-9-signal-set || fail r2-9-signal-set "$olds of 3 files old"
    no_tmp r2-9-signal-no-tmp "$tmp/sig"
    no_tmp r2-9-signal-no-tmp-out "$tmp/sig/out"
    echo old >"$tmp/sig/t.json"
    LD_PRELOAD=$preload FAULT_LINK_FAIL=1 FAULT_RENAME_FAIL=c.csv "$sim" --n 8 --trace "$tmp/sig/t.json" \
        --csv "$tmp/sig/c.csv" >/dev/null 2>"$tmp/err"
    same r2-9-no-link-rollback "$tmp/sig/t.json" old
    no_tmp r2-9-no-link-no-tmp "$tmp/sig"
else skip r2-9-signal-set "cannot build tests/harden/fault_fs.c: $(head -1 "$tmp/cc.log")"; fi

# r2-10: --merge takes slices in any order and refuses twice, missing, other configs, NUL, devices, FIFOs
"$sim" sweep "$ci" >"$tmp/all.csv"
for k in 1 2 3; do "$sim" sweep "$ci" --shard $k/3 >"$tmp/p$k.csv"; done
"$sim" sweep --merge "$tmp/p3.csv" "$tmp/p1.csv" "$tmp/p2.csv" | cmp -s - "$tmp/all.csv" && ok r2-10-any-order \
    || fail r2-10-any-order "merged in another order, the bytes differ"
expect_error r2-10-twice "p1.csv and .*p1.csv are both slice 1 of 3" "$sim" sweep --merge "$tmp/p1.csv" "$tmp/p1.csv" "$tmp/p3.csv"
expect_error r2-10-missing "slice 2 of 3 is missing" "$sim" sweep --merge "$tmp/p1.csv" "$tmp/p3.csv"
"$sim" sweep "$ci" --set workload.heads=4 --shard 2/3 >"$tmp/q2.csv"
expect_error r2-10-other-config "q2.csv is a slice of another run" "$sim" sweep --merge "$tmp/p1.csv" "$tmp/q2.csv" "$tmp/p3.csv"
head -n -2 "$tmp/p2.csv" >"$tmp/short.csv"
expect_error r2-10-interrupted "short.csv: has .* rows, its slice line says" "$sim" sweep --merge "$tmp/p1.csv" "$tmp/short.csv" "$tmp/p3.csv"
{ head -c 300 "$tmp/p2.csv"; printf '\000'; tail -c +301 "$tmp/p2.csv"; } >"$tmp/nul.csv"
expect_error r2-10-nul "nul.csv:[0-9]*: binary data" "$sim" sweep --merge "$tmp/p1.csv" "$tmp/nul.csv" "$tmp/p3.csv"
expect_error r2-10-dev-zero "cannot read /dev/zero: not a regular file" timeout 20 "$sim" sweep --merge /dev/zero
mkfifo "$tmp/fifo"
expect_error r2-10-fifo "fifo: not a regular file" timeout 20 "$sim" sweep --merge "$tmp/fifo"

# r2-11: calibrate refuses malformed raw files (21 of tests/harden/raw_mutations.py's 22), and what it
# writes its own reader accepts
mkdir -p "$tmp/raw"
python3 "$harden/raw_mutations.py" "$top/traces/calib-reduce-staggered/calib-profile-raw.json" "$tmp/raw"
refused=0 accepted_ok=0
for f in "$tmp"/raw/*.json; do
    if "$sim" calibrate "$f" -o "$tmp/raw.profile" >/dev/null 2>&1; then
        profile_read "$tmp/raw.profile" && ! grep -q nan "$tmp/raw.profile" && accepted_ok=$((accepted_ok + 1))
    else refused=$((refused + 1)); fi
done
[ "$refused" -eq 21 ] && [ "$accepted_ok" -eq 1 ] && ok r2-11-raw-files || fail r2-11-raw-files "$refused refused, $accepted_ok accepted and readable"

# r2-12: the memory estimate covers the near/far latency matrix: the peak stays under the cap it passed
if [ -z "$asan_rt" ]; then # the sanitizers' own memory is not the simulator's
    /usr/bin/time -f '%M' -o "$tmp/rss" "$sim" run "$ci" --set 'sweep={}' --set hardware.sm_count=12000 \
        --set options.max_memory_mb=1300 >/dev/null 2>"$tmp/err"
    rc=$? peak=$(tail -1 "$tmp/rss")
    [ "$rc" -eq 2 ] || [ "$peak" -lt $((1300 * 1024)) ] && ok r2-12-estimate || fail r2-12-estimate "exit $rc, peak $peak KB over the 1300 MB cap"
else skip r2-12-estimate "peak memory is not the simulator's under the sanitizers"; fi

# lesser findings
python3 -c "print('{\"schema_version\": 1, \"x\": ' + '[' * 600 + '1,,' + ']' * 600 + '}')" >"$tmp/deep.json"
expect_error r2-l-syntax-not-depth "deep.json:1:630: invalid JSON here" "$sim" run "$tmp/deep.json"
head -c -4 "$tmp/t.json.gz" >"$tmp/trunc.json.gz"
expect_error r2-l-gz-truncated "trunc.json.gz: not a readable gzip file (it ends early" "$sim" validate "$tmp/trunc.json.gz"
{ cat "$tmp/t.json.gz"; echo junk; } >"$tmp/trail.json.gz"
expect_error r2-l-gz-trailing "trail.json.gz: not a readable gzip file (data after its end)" "$sim" validate "$tmp/trail.json.gz"
echo old >"$tmp/mode.csv" && chmod 640 "$tmp/mode.csv"
expect_exit r2-l-mode 0 "$sim" --n 8 --csv "$tmp/mode.csv"
[ "$(stat -c %a "$tmp/mode.csv")" = 640 ] && ok r2-l-mode-kept || fail r2-l-mode-kept "mode $(stat -c %a "$tmp/mode.csv")"
echo old >"$tmp/linked.csv" && ln "$tmp/linked.csv" "$tmp/other-name.csv"
expect_exit r2-l-hard-link 0 "$sim" --n 8 --csv "$tmp/linked.csv"
grep -q "linked.csv had 2 names (hard links)" "$tmp/err" && ok r2-l-hard-link-said || fail r2-l-hard-link-said "stderr: $(cat "$tmp/err")"
printf 'dashsim-mask 1\nkv_tiles 2\nq_tiles 2\npairs 1junk\n0 0\nend\n' >"$tmp/junk.mask"
expect_error r2-l-pairs-junk "junk.mask:4: expected 'rows' or 'pairs K'" "$sim" --mask-file "$tmp/junk.mask" --n 2
expect_error r2-l-document-comma "--mask document:4,4,: document lengths" "$sim" --mask document:4,4, --n 8
expect_error r2-l-window-space "--mask window: 4: a window is" "$sim" --mask "window: 4" --n 8

# r2-l: gpu-exec --dry-run refuses a plan that deadlocks, as sim --plan does (CTA 0 on the one SM waits on
# rank 0 of its row, which CTA 1 holds and never gets an SM)
printf 'dashsim-plan 1\npolicy stuck\nmask full\ntile_ratio 1\nn_sm 1\nheads 1\nkv_tiles 2\nq_tiles 1\nc_ns 1000\nr_ns 500\nlatency_ns 0\nreduce serial\ndq_buffers 1\npersistent 0\nctas 2\ntasks 2\ncta 0 -1 1\nt 0 0 0 1\ncta 1 -1 1\nt 0 1 0 0\nend\n' >"$tmp/stuck.plan"
expect_error r2-l-sim-deadlock "deadlocks" "$sim" --plan "$tmp/stuck.plan"
exe=$(dirname "$sim")/gpu-exec
if [ -x "$exe" ]; then
    expect_exit r2-l-gpu-dry-run-deadlock 2 "$exe" --dry-run "$tmp/stuck.plan"
    grep -q "stuck.plan: plan stuck: it deadlocks on 1 SMs" "$tmp/err" && ok r2-l-gpu-dry-run-says || fail r2-l-gpu-dry-run-says "$(cat "$tmp/err")"
else skip r2-l-gpu-dry-run-deadlock "$exe not built (no nvcc)"; fi

finish
