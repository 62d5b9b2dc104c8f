#!/bin/bash
# The library's command entry points (issue 36, docs/api.md) from Python (ctypes) and C++ against the CLI's
# --json: dashsim_search_json, dashsim_decode_json and dashsim_pipeline_json give the bytes `sim
# search|decode|pipeline ... --json` prints for the
# same options; the getters
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
i=0
for r in "${requests[@]}"; do
    i=$((i + 1))
    case $r in decode\|*) cmd[i]=decode r=${r#decode|} ;; pipeline\|*) cmd[i]=pipeline r=${r#pipeline|} ;; *) cmd[i]=search ;; esac
    printf '%s' "${r%%|*}" >"$tmp/req$i.json"
    # shellcheck disable=SC2086 # the options are split on purpose
    "$sim" "${cmd[i]}" ${r#*|} --json >"$tmp/cli$i.json"
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
if rc:
    sys.exit("status %d: %s" % (rc, ctypes.string_at(err.value).decode()))
text = ctypes.string_at(out.value)
ms = ctypes.c_int64()
key = b"/latency_ns" if sys.argv[3] == "decode" else b"/makespan_ns"
assert lib.dashsim_json_get_int64(text, key, ctypes.byref(ms), None) == 0
sys.stdout.buffer.write(text)
sys.stderr.write("%d\n" % ms.value)
lib.dashsim_free(out)
PY
for n in $(seq "$i"); do
    python3 "$tmp/call.py" "$lib" "$tmp/req$n.json" "${cmd[n]}" >"$tmp/py$n.json" 2>"$tmp/py$n.ms"
    [ -s "$tmp/cli$n.json" ] && cmp -s "$tmp/py$n.json" "$tmp/cli$n.json" && ok "python-${cmd[n]}-$n" \
        || fail "python-${cmd[n]}-$n" "$(head -c 300 "$tmp/py$n.ms") $(diff "$tmp/py$n.json" "$tmp/cli$n.json" | head -4)"
    want=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j.get("makespan_ns", j.get("latency_ns")))' "$tmp/cli$n.json")
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
    DashsimStatus status = command == "search"   ? dashsim_search_json(req.str().c_str(), &out, &error)
                           : command == "decode" ? dashsim_decode_json(req.str().c_str(), &out, &error)
                                                 : dashsim_pipeline_json(req.str().c_str(), &out, &error);
    if (status != DASHSIM_OK) {
        std::cerr << error << "\n";
        dashsim_free(error);
        return 1;
    }
    std::string text(out);
    dashsim_free(out);
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
