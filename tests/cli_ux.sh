#!/bin/bash
# CLI tests of issue 25 (what a new user trips on, second round): odd KV tile counts still rank (item 2),
# `-` as standard output carries the data alone (item 3), reports name their model (item 4), the man page
# follows --help (item 6), plan format errors (item 7), trace metadata and the Perfetto converter (item 8),
# progress on a terminal only (item 9), README set-up facts (item 10), papercuts (item 12).
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)

# Item 2: a causal shape with an odd number of KV tiles ranks the other policies and says why one is absent.
for s in 1100 4224; do
    expect_exit odd-kv-$s 0 "$sim" --seqlen $s --heads 16 --mask causal
    grep -q '^not ranked  *policy symmetric-shift .*even number of KV tiles' "$tmp/out" && grep -q '^descending ' "$tmp/out" \
        && grep -q '^winner ' "$tmp/out" && ok odd-kv-$s-ranked || fail odd-kv-$s-ranked "$(tail -3 "$tmp/out")"
done
expect_exit odd-kv-json 0 "$sim" --seqlen 8200 --heads 4 --mask causal --json
"$sim" --list-policies | awk '$2 ~ /causal/ && $1 != "symmetric-shift" { print $1 }' | sort >"$tmp/want"
python3 - "$tmp/out" "$tmp/want" <<'PY' && ok odd-kv-json-not-ranked || fail odd-kv-json-not-ranked "$(cat "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert [a["policy"] for a in j["not_ranked"]] == ["symmetric-shift"], j["not_ranked"]
assert "even number of KV tiles" in j["not_ranked"][0]["reason"]
assert sorted(p["policy"] for p in j["policies"]) == open(sys.argv[2]).read().split(), j["policies"]
PY
expect_error odd-kv-named "even number of KV tiles" "$sim" --seqlen 1100 --mask causal --policy symmetric-shift

# head_dim 96 and 192 (in --help) under the default profile, which measured 64x128 and 128x128 dQ tiles: the
# nearest measured tile's reduction scaled by the dQ tile's bytes, said so; r = acquire + (r - acquire) x bytes ratio
for d in 96 192; do
    expect_exit "head-dim-$d" 0 "$sim" --seqlen 8192 --heads 16 --head-dim $d --mask causal
    grep -q "^costs.*scaled by the dQ tile's bytes" "$tmp/out" && ok "head-dim-$d-says" || fail "head-dim-$d-says" "$(grep '^costs' "$tmp/out")"
done
"$sim" --seqlen 8192 --heads 16 --head-dim 128 --mask causal --json >"$tmp/r128.json"
"$sim" --seqlen 8192 --heads 16 --head-dim 96 --mask causal --json >"$tmp/r96.json"
python3 - "$tmp/r128.json" "$tmp/r96.json" "$root/configs/profiles/h100-sxm.json" <<'PY' && ok head-dim-96-scaled || fail head-dim-96-scaled "r not scaled by 0.75"
import json, sys
a, b, p = (json.load(open(f)) for f in sys.argv[1:])
assert a["shape"]["block_m"] == b["shape"]["block_m"] == 64, (a["shape"], b["shape"])
acq = p["acquire_ns"]
assert abs(b["r_ns"] - (acq + (a["r_ns"] - acq) * 96 / 128)) <= 1, (a["r_ns"], b["r_ns"])
PY

# Item 3: with an output on standard output, the report goes to standard error.
"$sim" --policy shift --n 8 --heads 2 --emit-plan "$tmp/s.plan" >/dev/null && "$sim" --plan "$tmp/s.plan" --json >"$tmp/want.json"
bash -c "\"$sim\" --policy shift --n 8 --heads 2 --emit-plan - 2>\"$tmp/err1\" | \"$sim\" --plan - --json" >"$tmp/out" 2>"$tmp/err" \
    && cmp -s "$tmp/out" "$tmp/want.json" && grep -q '^policy shift' "$tmp/err1" && ok stdout-plan-pipe \
    || fail stdout-plan-pipe "$(cat "$tmp/err")"
"$sim" search --mask window:8 --tiles 16 --n 8 --emit-plan "$tmp/w.plan" >/dev/null && "$sim" --plan "$tmp/w.plan" --json >"$tmp/want.json"
bash -c "\"$sim\" search --mask window:8 --tiles 16 --n 8 --emit-plan - 2>\"$tmp/err1\" | \"$sim\" --plan - --json" >"$tmp/out" 2>"$tmp/err" \
    && cmp -s "$tmp/out" "$tmp/want.json" && grep -q '^mask window:8' "$tmp/err1" && ok stdout-search-plan-pipe \
    || fail stdout-search-plan-pipe "$(cat "$tmp/err")"
"$sim" search --mask window:8 --tiles 16 --n 8 --emit-plan - --json 2>"$tmp/err" >/dev/null
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/err" && ok stdout-search-json-on-stderr || fail stdout-search-json-on-stderr "$(head -c 200 "$tmp/err")"
"$sim" --policy fa3 --n 4 --heads 2 --trace - 2>"$tmp/err" | python3 -m json.tool >/dev/null \
    && grep -q 'makespan' "$tmp/err" && ok stdout-trace-json || fail stdout-trace-json "not JSON alone"
"$sim" --policy fa3 --n 4 --heads 2 --csv - --json 2>"$tmp/err" >"$tmp/out"
python3 - "$tmp/out" "$tmp/err" <<'PY' && ok stdout-csv-alone || fail stdout-csv-alone "$(tail -2 "$tmp/out")"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0][:3] == ["op", "cta", "sm"] and len(rows) > 2 and all(len(r) == len(rows[0]) for r in rows), rows[-1]
assert json.load(open(sys.argv[2]))["makespan_ns"] > 0
PY
"$sim" --seqlen 1024 --heads 2 --mask causal --csv - 2>"$tmp/err" >"$tmp/out"
head -1 "$tmp/out" | grep -q '^op,cta,sm' && ! grep -q winner "$tmp/out" && grep -Eq '^(winner|fastest modelled) ' "$tmp/err" \
    && ok stdout-shape-csv || fail stdout-shape-csv "$(tail -2 "$tmp/out")"
"$sim" pipeline --trace - 2>"$tmp/err" | python3 -m json.tool >/dev/null && grep -q '^pipeline preload' "$tmp/err" \
    && ok stdout-pipeline-trace || fail stdout-pipeline-trace "$(head -2 "$tmp/err")"

# Item 4: every report names its model; the plots say what they show and keep each policy's style.
ci=$root/configs/ci-sweep.json
expect_exit run-model 0 "$sim" run "$ci" --set 'sweep={}' --format table
head -1 "$tmp/out" | grep -q '^model numbers, not measurements: c and r from the cost model' \
    && sed -n 3p "$tmp/out" | grep -q ' h100-sxm  serial ' && ok run-table-model || fail run-table-model "$(head -3 "$tmp/out")"
expect_exit decode-model 0 "$sim" decode
grep -q '^model  FA3 split-KV decode on the H100 cost model .*model numbers, not measurements' "$tmp/out" \
    && ok decode-names-model || fail decode-names-model "$(cat "$tmp/out")"
expect_exit decode-sweep 0 "$sim" decode --sweep-splits
awk '!/^#/ && NF != 8 { bad = 1 } END { exit bad }' "$tmp/out" && grep -q '^# model ' "$tmp/out" \
    && ok decode-sweep-comments || fail decode-sweep-comments "$(head -4 "$tmp/out")"
expect_exit pipeline-model 0 "$sim" pipeline
sed -n 2p "$tmp/out" | grep -q "model .*model numbers, not measurements" && ok pipeline-names-model || fail pipeline-names-model "$(head -2 "$tmp/out")"
if command -v gnuplot >/dev/null; then
    expect_exit sweep-plot 0 "$sim" sweep "$ci" --plot "$tmp/p.png"
    grep -q 'title "model numbers, not measurements: .*preset h100-sxm, serial reduction"' "$tmp/p.gp" \
        && grep -q "set xlabel 'seqlen (tokens)'" "$tmp/p.gp" && ok sweep-plot-title || fail sweep-plot-title "$(grep -m2 'title\|xlabel' "$tmp/p.gp")"
    python3 - "$tmp/p.gp" <<'PY' && ok sweep-plot-coincident-visible || fail sweep-plot-coincident-visible "see above"
import re, sys
style = dict((p, (float(lw), int(dt))) for dt, lw, p in re.findall(r"dt (\d+) lw ([0-9.]+) ps [0-9.]+ title '([^']+)'", open(sys.argv[1]).read()))
# descending is drawn over fa3 (equal on the full mask): narrower and dashed, so fa3 stays in sight
assert style["fa3"][0] > style["descending"][0] and style["fa3"][1] != style["descending"][1], style
PY
    expect_exit amla-gantt 0 "$sim" pipeline --policy amla --gantt "$tmp/a.png"
    [ "$(grep -o "title '[CV][0-9]'" "$tmp/a.gp" | tr '\n' ' ')" = "title 'C1' title 'V1' title 'C2' title 'V2' " ] \
        && ok amla-key-stages || fail amla-key-stages "$(grep -o "title '[^']*'" "$tmp/a.gp" | head -5)"
else
    skip plots "no gnuplot"
fi
python3 - "$root/plots/makespan-over-n.gp" <<'PY' && ok figure-one-style-per-policy || fail figure-one-style-per-policy "see above"
import re, sys
styles = {}
for style, policy in re.findall(r'with linespoints (lc rgb "#[0-9a-f]{6}" pt \d+ dt \d+ lw [0-9.]+ ps [0-9.]+) title .(\S+).', open(sys.argv[1]).read()):
    assert styles.setdefault(policy, style) == style, (policy, style, styles[policy])
assert len(styles) == 5 and len(set(styles.values())) == 5, styles
PY

# Item 9: progress with elapsed time and what is left on a terminal (script(1) gives one), nothing when piped.
if command -v script >/dev/null; then
    jobs=$("$sim" sweep "$ci" | tail -n +2 | wc -l) # a row per job (policies x points: the registry's count)
    script -qec "\"$sim\" sweep \"$ci\" -o /dev/null" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
    grep -aq "sim sweep: [0-9]* of $jobs jobs, [0-9.]* s elapsed" "$tmp/tty" && grep -aq "sim sweep: $jobs of $jobs jobs" "$tmp/tty" \
        && ok progress-sweep-tty || fail progress-sweep-tty "$(cat -v "$tmp/tty" | tail -3)"
    script -qec "\"$sim\" search --mask window:4 --n 8 --tiles 8 --iterations 30" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
    grep -aq 'sim search: 30 of 30 moves, [0-9.]* s elapsed, best [0-9]* ns' "$tmp/tty" \
        && ok progress-search-tty || fail progress-search-tty "$(cat -v "$tmp/tty" | tail -3)"
    script -qec "\"$sim\" validate \"$root/traces/h100-mask\" --json" /dev/null </dev/null | tr '\r' '\n' >"$tmp/tty"
    grep -aq 'sim validate: 16 of 16 traces, [0-9.]* s elapsed' "$tmp/tty" \
        && ok progress-validate-tty || fail progress-validate-tty "$(cat -v "$tmp/tty" | tail -3)"
else
    skip progress-tty "no script(1)"
fi
"$sim" sweep "$ci" -o /dev/null 2>"$tmp/err" && [ ! -s "$tmp/err" ] && ok progress-sweep-piped || fail progress-sweep-piped "$(cat -v "$tmp/err")"
"$sim" search --mask window:4 --n 8 --tiles 8 --iterations 30 2>"$tmp/err" >/dev/null && [ ! -s "$tmp/err" ] \
    && ok progress-search-piped || fail progress-search-piped "$(cat -v "$tmp/err")"
"$sim" validate "$root/traces/h100-mask" --json 2>"$tmp/err" >/dev/null; [ ! -s "$tmp/err" ] \
    && ok progress-validate-piped || fail progress-validate-piped "$(cat -v "$tmp/err")"

# Item 6: the man page is what scripts/man-page.py makes from every --help, renders without a warning, and
# has what the first page lacked.
python3 "$root/scripts/man-page.py" "$sim" >"$tmp/dashsim.1" && cmp -s "$tmp/dashsim.1" "$root/docs/dashsim.1" \
    && ok man-from-help || fail man-from-help "docs/dashsim.1 is not what --help says (make docs): $(diff "$tmp/dashsim.1" "$root/docs/dashsim.1" | head -4)"
if command -v groff >/dev/null; then
    groff -man -Tutf8 -ww -z "$root/docs/dashsim.1" 2>"$tmp/groff" && [ ! -s "$tmp/groff" ] && ok man-renders \
        || fail man-renders "$(head -3 "$tmp/groff")"
else
    skip man-renders "no groff"
fi
for want in '\\-\\-seqlen' '"dashsim search"' '"dashsim calibrate"' '"dashsim perfetto"' '\\-\\-plan FILE' 'window:W' \
            '^\.B 130$' 'share/doc/dashsim'; do
    grep -q -- "$want" "$root/docs/dashsim.1" && ok "man-has-$want" || fail "man-has-$want" "docs/dashsim.1 lacks $want"
done
grep -q 'source tree' "$root/docs/dashsim.1" && fail man-see-also "SEE ALSO points into a source tree" || ok man-see-also

# Item 7: the plan format's errors as docs/plan-format.md lists them; a block plan names its mask.
"$sim" --policy fa3 --n 8 --heads 3 --kv-tiles 4 --q-tiles 8 --emit-plan "$tmp/p.plan" >/dev/null
bad_plan() { # NAME PATTERN SED-SCRIPT: the plan edited by the script is refused with PATTERN
    sed "$3" "$tmp/p.plan" >"$tmp/$1.plan"
    expect_error "plan-$1" "$1.plan:[0-9]*: $2" "$sim" --plan "$tmp/$1.plan"
}
bad_plan missing-dq "the header lacks dq_buffers (every header field is required" '/^dq_buffers/d'
bad_plan missing-two "the header lacks c_ns, dq_buffers" '/^dq_buffers/d; /^c_ns/d'
bad_plan first-line "not a dashsim plan" '1s/.*/dashsim-plan 2/'
bad_plan unknown-field "unknown header field 'ctas_'" 's/^ctas /ctas_ /'
bad_plan two-values "header field 'heads' takes exactly one value" 's/^heads 3$/heads 3 4/'
bad_plan mask-word "mask must be full, causal or block, not 'diagonal'" 's/^mask full/mask diagonal/'
bad_plan range "n_sm '0' is not an integer in 1..65536" 's/^n_sm 8/n_sm 0/'
bad_plan empty-cta "the task count '0' is not an integer in 1..96" 's/^cta 0 -1 8/cta 0 -1 0/'
bad_plan task-count "the CTAs hold 96 tasks, the header says 97" 's/^tasks 96/tasks 97/'
bad_plan after-end "text after 'end'" '$a extra'
grep -q '^mask causal  *# full | causal | block$' "$root/docs/plan-format.md" && ok plan-doc-masks || fail plan-doc-masks "mask line"
"$sim" search --mask window:2 --n 4 --tiles 4 --emit-plan "$tmp/b.plan" >/dev/null
expect_exit block-plan 0 "$sim" --plan "$tmp/b.plan"
grep -q '^policy [a-z-]*, block mask, 4 SMs' "$tmp/out" && ok block-plan-mask-name || fail block-plan-mask-name "$(head -1 "$tmp/out")"

# Item 8: the measured trace beside the model; numeric metadata, stable slice names, the version everywhere.
version=$("$sim" --version | awk '{ print $3 }')
grep -q "^VERSION := $version$" "$root/Makefile" && ok version-one-place || fail version-one-place "Makefile VERSION is not $version"
trace=$root/traces/h100/descending-causal-h1-r1-async.json.gz
expect_exit perfetto 0 "$sim" perfetto "$trace" -o "$tmp/v.json"
"$sim" validate "$trace" --json >"$tmp/val.json" 2>/dev/null
python3 - "$tmp/v.json" "$tmp/val.json" "$version" <<'PY' && ok perfetto-two-processes || fail perfetto-two-processes "see above"
import collections, json, sys
j, val, version = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))["traces"][0], sys.argv[3]
m = j["metadata"]
assert m["dashsim_version"] == version and m["n_sm"] == 132 and m["heads"] == 1 and m["measured_ns"] == val["measured_ns"], m
assert m["model_ns"] == val["uniform_model_ns"] and "fitted" in m["model"], (m, val)
names = {e["pid"]: e["args"]["name"] for e in j["traceEvents"] if e["name"] == "process_name"}
assert names[1].startswith("measured: NVIDIA H100") and names[2].startswith("model: fitted"), names
slices = [e for e in j["traceEvents"] if e["ph"] == "X"]
by_pid = collections.Counter((e["pid"], e["cat"]) for e in slices)
assert by_pid[(1, "compute")] == by_pid[(2, "compute")] == 1056 and by_pid[(1, "reduce")] == 1056, by_pid
assert {e["name"] for e in slices} <= {"C h0", "R h0", "P h0"}, {e["name"] for e in slices}
tracks = collections.defaultdict(list)
for e in slices:
    tracks[e["pid"], e["tid"]].append((e["args"]["start_ns"], e["args"]["end_ns"]))
for v in tracks.values():
    v.sort()
    assert all(b[0] >= a[1] for a, b in zip(v, v[1:])), "overlapping slices on one track"
meas = max(e["args"]["end_ns"] for e in slices if e["pid"] == 1) - min(e["args"]["start_ns"] for e in slices if e["pid"] == 1)
assert meas == m["measured_ns"], (meas, m["measured_ns"])
PY
grep -q '^.*measured 153248 ns, model fitted to it' "$tmp/out" && ok perfetto-report || fail perfetto-report "$(cat "$tmp/out")"
"$sim" perfetto "$trace" 2>"$tmp/err" | python3 -m json.tool >/dev/null && grep -q 'measured 153248 ns' "$tmp/err" \
    && ok perfetto-stdout || fail perfetto-stdout "$(cat "$tmp/err")"
expect_exit perfetto-block 0 "$sim" perfetto "$root/traces/h100-mask16/window-16/found.json.gz" -o "$tmp/w.json"
expect_error perfetto-needs-trace "needs one trace file" "$sim" perfetto
expect_error perfetto-overwrite-input "is the same file as the trace" "$sim" perfetto "$tmp/v.json" -o "$tmp/v.json"
expect_error perfetto-not-trace "p.plan:1:1: invalid JSON" "$sim" perfetto "$tmp/p.plan"
expect_exit trace-meta 0 "$sim" --policy fa3 --n 4 --heads 2 --trace "$tmp/t.json" --csv "$tmp/t.csv" --dot "$tmp/t.dot" --json
python3 - "$tmp/t.json" "$tmp/t.csv.meta.json" "$tmp/out" "$version" <<'PY' && ok version-and-numbers || fail version-and-numbers "see above"
import json, sys
t, side, rep, version = (json.load(open(p)) for p in sys.argv[1:4]) , None, None, sys.argv[4]
t, side, rep = t
assert t["metadata"]["dashsim_version"] == version and t["metadata"]["n_sm"] == 4 and t["metadata"]["c_ns"] == 1000
assert side["dashsim_version"] == version and side["meta"]["heads"] == 2
assert rep["dashsim_version"] == version
assert {e["name"] for e in t["traceEvents"] if e["ph"] == "X"} == {"C h0", "R h0", "C h1", "R h1"}
PY
head -1 "$tmp/t.dot" | grep -q "^// made by dashsim $version$" && grep -q 'label="C h1 kv3 q2' "$tmp/t.dot" \
    && ok dot-labels || fail dot-labels "$(sed -n '1p;5p' "$tmp/t.dot")"
for cmd in "pipeline --json" "decode --json" "--seqlen 1024 --heads 2 --json"; do
    "$sim" $cmd | grep -q "\"dashsim_version\":\"$version\"" && ok "version-json-${cmd%% *}" || fail "version-json-${cmd%% *}" "no version"
done

# Item 10: README's set-up facts and order; papers cited by title, not by seed number.
readme=$root/README.md
apt=$(grep -m1 '^sudo apt-get install -y ' "$readme")
missing=$(for p in $(sed -n 's/^pkgs="\(.*\)"$/\1/p' "$root/scripts/install-deps.sh"); do
    [[ " $apt " == *" $p "* ]] || echo "$p"; done)
[ -n "$apt" ] && [ -z "$missing" ] && ok readme-packages || fail readme-packages "README's install command lacks: $missing"
tr '\n' ' ' <"$readme" >"$tmp/readme1"
grep -q 'nvcc[^.]*where it exists, `make gpu` builds' "$tmp/readme1" && grep -q 'graphviz\*\*: `--dot FILE`' "$tmp/readme1" \
    && ok readme-optional || fail readme-optional "nvcc or graphviz not explained"
search_at=$(grep -n '^## Schedule search' "$readme" | cut -d: -f1)
bench_at=$(grep -n '^| tasks (fa3, full, 132 SMs)' "$readme" | cut -d: -f1)
setup_at=$(grep -n 'Set-up (Debian' "$readme" | cut -d: -f1) first_section=$(grep -n '^## ' "$readme" | head -1 | cut -d: -f1)
[ "$search_at" -lt "$bench_at" ] && [ "$setup_at" -lt "$first_section" ] && ok readme-order \
    || fail readme-order "search at $search_at, bench table at $bench_at, set-up at $setup_at"
if grep -n -i 'seed 00[0-9]' "$readme" "$root"/docs/*.md >"$tmp/seeds"; then fail docs-cite-papers "$(head -3 "$tmp/seeds")"
else ok docs-cite-papers; fi
"$sim" pipeline --vfa-report | grep -qi 'seed 00' && fail vfa-report-cites "$("$sim" pipeline --vfa-report | head -1)" || ok vfa-report-cites
grep -q '"AMLA: MUL by ADD in FlashAttention Rescaling", Qichen Liao' "$readme" && grep -q 'Llopart Font, Javier Hernando' "$readme" \
    && ok readme-references || fail readme-references "no References with titles and authors"

# Item 12: papercuts.
"$sim" --help >"$tmp/help"
grep -q '^usage: sim \[--policy NAME\] \[--n N\]' "$tmp/help" && grep -q 'search' "$tmp/help" && grep -q 'calibrate' "$tmp/help" \
    && ok usage-line || fail usage-line "$(head -2 "$tmp/help")"
expect_exit search-kv-q-tiles 0 "$sim" search --mask window:4 --kv-tiles 12 --q-tiles 20 --n 8
grep -q '^mask window:4, 8 SMs, 1 head x 12 KV x 20 Q tiles' "$tmp/out" && ok search-kv-q-tiles-used || fail search-kv-q-tiles-used "$(head -1 "$tmp/out")"
expect_exit one-policy 0 "$sim" --seqlen 1024 --heads 1 --policy fa3
grep -q 'over fa3' "$tmp/out" && fail one-policy-no-margin "$(tail -1 "$tmp/out")" || ok one-policy-no-margin
grep -q '1 head,' "$tmp/out" && ! grep -q '1 heads' "$tmp/out" && ok shape-one-head || fail shape-one-head "$(head -1 "$tmp/out")"
expect_exit tile-one-head-run 0 "$sim" --policy fa3 --n 4
grep -q ' 1 head x ' "$tmp/out" && ok tile-one-head || fail tile-one-head "$(head -1 "$tmp/out")"
mkdir -p "$tmp/nogpu" && ln -sf "$sim" "$tmp/nogpu/sim"
bash "$root/tests/cli_gpu.sh" "$tmp/nogpu/sim" >"$tmp/gpu.out"
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    grep -q 'skip gpu-dry-run.*nvcc exists, but this build leaves gpu/ out' "$tmp/gpu.out" && ok gpu-skip-reason || fail gpu-skip-reason "$(cat "$tmp/gpu.out")"
else
    grep -q 'skip gpu-dry-run.*(no nvcc)' "$tmp/gpu.out" && ok gpu-skip-reason || fail gpu-skip-reason "$(cat "$tmp/gpu.out")"
fi
grep -n -- '--kv \|--q ' "$root"/docs/*.md "$root/README.md" >"$tmp/abbrev" && fail docs-no-abbrev "$(head -2 "$tmp/abbrev")" || ok docs-no-abbrev
finish
