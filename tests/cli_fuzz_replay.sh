#!/bin/bash
# Fuzz inputs replayed (tests/fuzz/corpus*/ and regress*/, mk/fuzz.mk): every seed and every input a fuzz
# target once crashed on is refused or accepted, never a crash, through the command that reads it; an
# accepted raw file's profile is accepted by the profile reader. (Issues 15 and 27; was the end of
# cli_harden.sh and cli_harden2.sh.)
. "$(dirname "$0")/lib.sh"
sim=$1
top=$(cd "$(dirname "$0")/.." && pwd)
trace=$top/tests/golden/validate/fa3-tiny.json
profile_read() { # profile_read FILE: the profile reader accepts FILE (costing may still lack a tile)
    "$sim" --seqlen 1024 --profile "$1" >/dev/null 2>"$tmp/profile.err" ||
        ! grep -q -- "${1##*/}\(: /\|:[0-9]*:[0-9]*:\)" "$tmp/profile.err"
}

# fuzz regressions (tests/fuzz/regress*/, mk/fuzz.mk): each input is refused or accepted, never a crash
fuzz=$top/tests/fuzz
replay() { # replay NAME CMD...: exit 0, 1 or 2
    "${@:2}" >/dev/null 2>&1
    local rc=$?
    [ "$rc" -le 2 ] && ok "$1" || fail "$1" "exit $rc"
}
for f in "$fuzz"/regress/* "$fuzz"/corpus/*; do [ -f "$f" ] && replay "fuzz-config-${f##*/}" "$sim" run "$f" --format csv; done
for f in "$fuzz"/regress-plan/* "$fuzz"/corpus-plan/*; do [ -f "$f" ] && replay "fuzz-plan-${f##*/}" "$sim" --plan "$f"; done
for f in "$fuzz"/regress-trace/* "$fuzz"/corpus-trace/*; do [ -f "$f" ] && replay "fuzz-trace-${f##*/}" "$sim" validate "$f"; done
for f in "$fuzz"/regress-matrix/* "$fuzz"/corpus-matrix/*; do
    [ -f "$f" ] && tail -c +2 "$f" >"$tmp/matrix" && replay "fuzz-matrix-${f##*/}" "$sim" validate "$trace" --latency-matrix "$tmp/matrix"
done

# the new fuzz targets' seeds and regressions (tests/fuzz/corpus-NAME, regress-NAME; mk/fuzz.mk):
# refused or accepted, never a crash; an accepted raw file's profile is accepted by the profile reader
for f in "$fuzz"/regress-maskspec/* "$fuzz"/corpus-maskspec/*; do
    [ -f "$f" ] || continue
    kv=$((1 + $(od -An -tu1 -N1 "$f") % 64)) q=$((1 + $(od -An -tu1 -j1 -N1 "$f") % 64))
    replay "fuzz-maskspec-${f##*/}" "$sim" --mask "$(tail -c +3 "$f" | tr -d '\000')" --kv-tiles $kv --q-tiles $q --n 4
done
for f in "$fuzz"/regress-maskfile/* "$fuzz"/corpus-maskfile/*; do [ -f "$f" ] && replay "fuzz-maskfile-${f##*/}" "$sim" --mask-file "$f" --n 4; done
for f in "$fuzz"/regress-gz/* "$fuzz"/corpus-gz/*; do
    [ -f "$f" ] && cp "$f" "$tmp/fz.json.gz" && replay "fuzz-gz-${f##*/}" "$sim" validate "$tmp/fz.json.gz"
done
for f in "$fuzz"/regress-profile/* "$fuzz"/corpus-profile/*; do [ -f "$f" ] && replay "fuzz-profile-${f##*/}" "$sim" --seqlen 1024 --profile "$f"; done
# found by fuzz_profile: an op that is no reduction method ("bulk\\\\\\" in JSON) was accepted, and written back
# unescaped, which is not JSON
expect_exit r2-fuzz-profile-op 2 "$sim" --seqlen 1024 --profile "$fuzz/regress-profile/op-not-a-method.json"
grep -q 'reduce/0/op: must be "bulk", "ldst" or "red"' "$tmp/err" && ok r2-fuzz-profile-op-says || fail r2-fuzz-profile-op-says "$(cat "$tmp/err")"
# a stage curve longer than its 4 slots wrote past them into the next fields (inside the struct: no sanitizer sees it)
python3 - "$top/configs/profiles/h100-sxm.json" "$tmp/stage6.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["compute"][0]["stage_iters"], p["compute"][0]["stage_by_iters_ns"] = [1, 2, 3, 4, 5, 6], [500] * 6
json.dump(p, open(sys.argv[2], "w"))
PY
expect_error r2-profile-stage-points "/compute/0/stage_iters: must be an array of 1 to 4 entries" "$sim" --seqlen 1024 --profile "$tmp/stage6.json"
for f in "$fuzz"/regress-raw/* "$fuzz"/corpus-raw/*; do
    [ -f "$f" ] || continue
    rm -f "$tmp/fz.profile"
    "$sim" calibrate "$f" -o "$tmp/fz.profile" >/dev/null 2>&1
    rc=$?
    [ "$rc" -eq 2 ] || { [ "$rc" -eq 0 ] && profile_read "$tmp/fz.profile"; } \
        && ok "fuzz-raw-${f##*/}" || fail "fuzz-raw-${f##*/}" "exit $rc, or its profile refused"
done
for f in "$fuzz"/regress-merge/* "$fuzz"/corpus-merge/*; do
    [ -f "$f" ] || continue
    rm -rf "$tmp/fzm" && mkdir "$tmp/fzm"
    python3 - "$f" "$tmp/fzm" <<'PY'
import sys
parts = open(sys.argv[1], "rb").read().split(b"\n--8<--\n")[:4]
for i, p in enumerate(parts):
    open(f"{sys.argv[2]}/{i}.csv", "wb").write(p + (b"\n" if i < len(parts) - 1 else b""))
PY
    replay "fuzz-merge-${f##*/}" "$sim" sweep --merge "$tmp"/fzm/*.csv
done
finish
