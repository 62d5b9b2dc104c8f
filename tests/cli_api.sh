#!/bin/bash
# The library's command entry points (issue 36, docs/api.md) from Python (ctypes) and C++ against the CLI's
# --json: dashsim_search_json, dashsim_decode_json, dashsim_pipeline_json, dashsim_replay_json,
# dashsim_shape_json and dashsim_validate_json give the bytes `sim search|decode|pipeline ... --json`, `sim --plan
# FILE ... --json`, `sim --seqlen S ... --json` and `sim validate ... --json` print for the same options, and
# validate's failed check is status 6 (DASHSIM_ERR_CHECK) with the report, as the command's exit 1; the getters
# read its fields; dashsim_version_number is the header's. Uses the tree's lib/libdashsim.so and include/.
set -u
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$(cd "$(dirname "$sim")/.." && pwd)/lib/libdashsim.so
[ -f "$lib" ] || lib=$root/lib/libdashsim.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

requests=(
    '{"mask": "random:0.3:1", "tiles": 5, "n": 4, "heads": 2}|--mask random:0.3:1 --tiles 5 --n 4 --heads 2'
    '{"mask": "window:2", "kv_tiles": 6, "q_tiles": 7, "n": 3, "reduce": "async", "latency_ns": 200, "iterations": 30, "seed": 9}|--mask window:2 --kv-tiles 6 --q-tiles 7 --n 3 --reduce async --latency 200 --iterations 30 --seed 9'
    '{"mask": "causal", "tiles": 8, "n": 4, "heads": 4, "gqa": 2, "exact_max_nodes": 0}|--mask causal --tiles 8 --n 4 --heads 4 --gqa 2 --exact-max 0'
)
# decode: one run
requests+=(
    'decode|{"lk": 2048}|--lk 2048'
    'decode|{"batch": 4, "hq": 16, "hkv": 2, "lk": 8192, "head_dim": 64, "paged": true, "split_policy": "best", "n": 100}|--batch 4 --hq 16 --hkv 2 --lk 8192 --head-dim 64 --paged --split-policy best --n 100'
    'decode|{"lk": 4096, "dtype": "fp16", "split_policy": "fixed:3", "combine_ns": 900, "block_ns": 2000}|--lk 4096 --dtype fp16 --split-policy fixed:3 --combine-ns 900 --block-ns 2000'
)
# pipeline: one run
requests+=(
    'pipeline|{"policy": "amla"}|--policy amla'
    'pipeline|{"policy": "preload", "blocks": 6, "c_ns": [1000, 800, 500], "v_ns": [600, 400, 300], "explain": true}|--policy preload --blocks 6 --c 1000,800,500 --v 600,400,300 --explain'
    'pipeline|{"c_ns": [900, 700], "v_ns": [800, 300], "cube": 2, "vector": 2, "ring": 2, "min_preload": true}|--c 900,700 --v 800,300 --cube 2 --vector 2 --ring 2 --min-preload'
)
# plan replay, the shape ranking and validate (the CLI's command is no subcommand for the first two); the GQA
# shape with 4 heads over 2 KV heads (16 over 4 took 3 s of make test's time, run three ways, for the same check)
"$sim" --policy symmetric-shift --mask causal --n 6 --heads 3 --emit-plan "$tmp/sym.plan" >/dev/null
requests+=(
    "replay|{\"plan\": \"$tmp/sym.plan\"}|--plan $tmp/sym.plan"
    "replay|{\"plan\": \"tests/golden/plans/window-search.plan\", \"c_ns\": 700, \"reduce\": \"async\", \"dq_buffers\": 2}|--plan tests/golden/plans/window-search.plan --c 700 --reduce async --dq-buffers 2"
    'shape|{"seqlen": 2048, "heads": 8, "mask": "causal"}|--seqlen 2048 --heads 8 --mask causal'
    'shape|{"seqlen": 4096, "heads": 4, "kv_heads": 2, "kernel": "gpu-bwd-wgmma", "hardware": "h200-sxm", "mask": "window:1024"}|--seqlen 4096 --heads 4 --kv-heads 2 --kernel gpu-bwd-wgmma --hardware h200-sxm --mask window:1024'
    'validate|{"traces": ["tests/golden/validate"], "jobs": 1}|tests/golden/validate --jobs 1'
    'validate|{"traces": ["traces/kernel-wg/h100/traces"], "predict": true}|traces/kernel-wg/h100/traces --predict'
)
cd "$root" || exit 2 # validate's report names each trace by the path given
i=0
for r in "${requests[@]}"; do
    i=$((i + 1))
    case $r in decode\|* | pipeline\|* | replay\|* | shape\|* | validate\|*) cmd[i]=${r%%|*} r=${r#*|} ;; *) cmd[i]=search ;; esac
    printf '%s' "${r%%|*}" >"$tmp/req$i.json"
    sub=${cmd[i]}
    [ "$sub" = replay ] || [ "$sub" = shape ] && sub=
    # shellcheck disable=SC2086 # the options are split on purpose
    $sim $sub ${r#*|} --json >"$tmp/cli$i.json"
    echo $? >"$tmp/cli$i.rc"
done

cat >"$tmp/call.py" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
entry = getattr(lib, "dashsim_%s_json" % sys.argv[3])
entry.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
lib.dashsim_json_get_int64.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p]
lib.dashsim_free.argtypes = [ctypes.c_void_p]
out, err = ctypes.c_void_p(), ctypes.c_void_p()
rc = entry(open(sys.argv[2], "rb").read(), ctypes.byref(out), ctypes.byref(err))
if rc and not (rc == 6 and out.value):  # 6: DASHSIM_ERR_CHECK, a failed check with its report
    sys.exit("status %d: %s" % (rc, ctypes.string_at(err.value).decode()))
text = ctypes.string_at(out.value)
ms = ctypes.c_int64()
key = {"decode": b"/latency_ns", "shape": b"/n", "validate": b"/traces/0/measured_ns"}.get(sys.argv[3], b"/makespan_ns")
assert lib.dashsim_json_get_int64(text, key, ctypes.byref(ms), None) == 0
sys.stdout.buffer.write(text)
sys.stderr.write("%d %d\n" % (ms.value, rc))
lib.dashsim_free(out)
lib.dashsim_free(err)
PY
for n in $(seq "$i"); do
    python3 "$tmp/call.py" "$lib" "$tmp/req$n.json" "${cmd[n]}" >"$tmp/py$n.json" 2>"$tmp/py$n.ms"
    [ -s "$tmp/cli$n.json" ] && cmp -s "$tmp/py$n.json" "$tmp/cli$n.json" && ok "python-${cmd[n]}-$n" \
        || fail "python-${cmd[n]}-$n" "$(head -c 300 "$tmp/py$n.ms") $(diff "$tmp/py$n.json" "$tmp/cli$n.json" | head -4)"
    want=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
v = {"decode": lambda: j["latency_ns"], "shape": lambda: j["n"], "validate": lambda: j["traces"][0]["measured_ns"]}
print(v.get(sys.argv[2], lambda: j["makespan_ns"])(), 6 * int(sys.argv[3]))' "$tmp/cli$n.json" "${cmd[n]}" "$(cat "$tmp/cli$n.rc")")
    [ "$(cat "$tmp/py$n.ms")" = "$want" ] && ok "python-get-$n" || fail "python-get-$n" "$(cat "$tmp/py$n.ms") != $want"
done

if command -v c++ >/dev/null; then
    cat >"$tmp/call.cpp" <<'CPP'
// dashsim_search_json, dashsim_decode_json or dashsim_pipeline_json from C++: the request file's result on standard output, the version number on stderr.
#include <dashsim/dashsim.h>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    std::ifstream in(argv[2]);
    std::string command(argv[1]);
    std::stringstream req;
    req << in.rdbuf();
    char *out = nullptr, *error = nullptr;
    std::string request = req.str();
    const char *r = request.c_str();
    DashsimStatus status = command == "search"     ? dashsim_search_json(r, &out, &error)
                           : command == "decode"   ? dashsim_decode_json(r, &out, &error)
                           : command == "replay"   ? dashsim_replay_json(r, &out, &error)
                           : command == "shape"    ? dashsim_shape_json(r, &out, &error)
                           : command == "validate" ? dashsim_validate_json(r, &out, &error)
                                                   : dashsim_pipeline_json(r, &out, &error);
    if (status != DASHSIM_OK && !(status == DASHSIM_ERR_CHECK && out)) {
        std::cerr << error << "\n";
        dashsim_free(error);
        return 1;
    }
    std::string text(out);
    dashsim_free(out);
    dashsim_free(error);
    std::cout << text;
    std::cerr << dashsim_version_number() << " " << DASHSIM_VERSION_NUMBER << "\n";
    return 0;
}
CPP
    ln -s "$lib" "$tmp/libdashsim.so.1" # the soname the program asks for (the tree's lib/ has the link-time name)
    if c++ -std=c++11 -Wall -Werror -I"$root/include" "$tmp/call.cpp" -o "$tmp/call" "$lib" 2>"$tmp/cxx.err"; then
        for n in $(seq "$i"); do
            LD_LIBRARY_PATH=$tmp "$tmp/call" "${cmd[n]}" "$tmp/req$n.json" >"$tmp/cxx$n.json" 2>"$tmp/cxx$n.err"
            cmp -s "$tmp/cxx$n.json" "$tmp/cli$n.json" && ok "cxx-${cmd[n]}-$n" || fail "cxx-${cmd[n]}-$n" "$(head -c 300 "$tmp/cxx$n.err")"
        done
        read -r got want <"$tmp/cxx1.err"
        [ "$got" = "$want" ] && [ "$got" -gt 0 ] && ok cxx-version-number || fail cxx-version-number "$got != $want"
    else
        fail cxx-build "$(head -c 400 "$tmp/cxx.err")"
    fi
else
    skip cxx-search "no C++ compiler here"
fi
finish
