#!/bin/bash
# make install into a fresh prefix, then the library as a client sees it (docs/api.md): the headers (only
# include/dashsim/, extern "C" in each), the flags of `pkg-config dashsim`, the exported symbols (exactly the
# DASHSIM_API functions), the soname; a C client linked to the shared library, the same client linked
# statically (`pkg-config --static` on a prefix without the .so), a C++ client; dashsim_run_json against
# `dashsim run --format jsonl`, from C and from Python (ctypes, the recipe of docs/api.md); the program as
# `dashsim` (finding its configs there), the man page; then make uninstall leaves nothing behind.
. "$(dirname "$0")/lib.sh"
sim=$1
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$tmp/prefix
# The tree's own build directories (the sanitizer build passes its own through BIN/LIB/BUILD).
bin=$(cd "$(dirname "$sim")" && pwd)
libdir=$top/$(basename "$bin" | sed 's/^bin/lib/')
build=$top/$(basename "$bin" | sed 's/^bin/build/')
make -s -C "$top" install PREFIX="$prefix" BIN="$bin" LIB="$libdir" BUILD="$build" >"$tmp/install.log" 2>&1 &&
    ok install || fail install "$(tail -5 "$tmp/install.log")"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
header=$prefix/include/dashsim/dashsim.h

# Headers: only dashsim/ under include/, so no generic name (plan.h, status.h) reaches a client's path.
found=$(cd "$prefix/include" && find . -type f | sort | tr '\n' ' ')
[ "$found" = "./dashsim/dashsim.h ./dashsim/version.h " ] && ok installed-headers || fail installed-headers "found: $found"
lacking=$(grep -L '^extern "C" {' "$prefix"/include/dashsim/*.h)
[ -z "$lacking" ] && ok extern-c || fail extern-c "no extern \"C\" block in $lacking"
[ "$(pkg-config --cflags dashsim | xargs)" = "-I$prefix/include" ] && ok pkg-config-cflags ||
    fail pkg-config-cflags "pkg-config --cflags dashsim gave '$(pkg-config --cflags dashsim)'"
# Below the API layer nothing includes the public header (the layer rule of the Makefile, for include/).
upward=$(cd "$top" && grep -rl 'dashsim/dashsim\.h' sim policies dag gpu --include='*.[ch]' --include='*.cu' \
         --include='*.cuh' | grep -v '^sim/api/')
[ -z "$upward" ] && ok api-layer || fail api-layer "below sim/api: $upward"

# Exports: exactly the functions the header declares (each must carry DASHSIM_API: one without it stays
# hidden and fails here), in the shared library and as the static archive's globals; the soname the
# header names.
sed -n 's/^[A-Za-z][^(]*[ *]\(dashsim_[a-z0-9_]*\)(.*/\1/p' "$header" | sort >"$tmp/declared"
nm -D --defined-only "$prefix/lib/libdashsim.so" | awk '{ print $3 }' | sort >"$tmp/exported"
if [ "$(wc -l <"$tmp/declared")" -ge 15 ] && cmp -s "$tmp/declared" "$tmp/exported"; then
    ok exports
else
    fail exports "$(diff "$tmp/declared" "$tmp/exported" | head -5 | tr '\n' ' ') ($(wc -l <"$tmp/declared") declared)"
fi
nm -g --defined-only "$prefix/lib/libdashsim.a" | awk 'NF == 3 { print $3 }' | sort >"$tmp/archived"
cmp -s "$tmp/declared" "$tmp/archived" && ok archive-globals ||
    fail archive-globals "libdashsim.a: $(diff "$tmp/declared" "$tmp/archived" | head -5 | tr '\n' ' ')"
so=$(sed -n 's/^#define DASHSIM_SOVERSION \([0-9]*\)$/\1/p' "$prefix/include/dashsim/version.h")
soname=$(readelf -d "$prefix/lib/libdashsim.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$so" ] && [ "$soname" = "libdashsim.so.$so" ] && grep -q "^SOVERSION := $so$" "$top/Makefile" && ok soname ||
    fail soname "soname $soname, DASHSIM_SOVERSION '$so', Makefile $(grep '^SOVERSION' "$top/Makefile")"

# Clients. A library built with the sanitizers (make check-asan) needs them at link time too.
sanitize=$(nm "$libdir/libdashsim.a" 2>/dev/null | grep -q __asan && echo "-fsanitize=address,undefined")
version=$("$sim" --version | awk '{ print $3 }')
want="$("$sim" --policy shift --n 8 --heads 2 --kv-tiles 8 --q-tiles 8 --json |
        sed -n 's/.*"makespan_ns": *\([0-9]*\).*/\1/p')"
# build NAME COMPILER SOURCE FLAGS...: compiles a client to $tmp/NAME; the check fails with the compiler's words.
build() {
    local name=$1 cc=$2 src=$3; shift 3
    $cc $sanitize -Wall -Wextra -Werror -pedantic -o "$tmp/$name" "$top/tests/install/$src" "$@" 2>"$tmp/cc.log" ||
        { fail "$name" "$(head -5 "$tmp/cc.log")"; return 1; }
}
# the C client on the shared library (C99 is enough for the header)
if build client-shared cc client.c -std=c99 $(pkg-config --cflags --libs dashsim) -Wl,-rpath,"$prefix/lib"; then
    out=$("$tmp/client-shared" 2>&1)
    [ "$out" = "$version shift makespan_ns $want" ] && ok client-shared || fail client-shared "printed '$out', want makespan $want"
fi
# the same client linked statically: a prefix with the archive alone, the flags of pkg-config --static as printed
make -s -C "$top" install PREFIX="$tmp/static" BIN="$bin" LIB="$libdir" BUILD="$build" >"$tmp/install.log" 2>&1
rm -f "$tmp/static"/lib/libdashsim.so*
if build client-static cc client.c -std=c99 $(PKG_CONFIG_PATH=$tmp/static/lib/pkgconfig pkg-config --cflags --static \
        --libs dashsim); then
    out=$("$tmp/client-static" 2>&1)
    if readelf -d "$tmp/client-static" | grep -q 'NEEDED.*libdashsim'; then fail client-static "linked to libdashsim.so"
    elif [ "$out" = "$version shift makespan_ns $want" ]; then ok client-static
    else fail client-static "printed '$out', want makespan $want"; fi
fi
# the C++ client: every registered policy, the same makespan, and the sentence a bad request gets
if build client-cxx c++ client.cpp -std=c++11 $(pkg-config --cflags --libs dashsim) -Wl,-rpath,"$prefix/lib"; then
    { "$sim" --list-policies | awk '{ print "policy " $1 }'; echo "$version shift makespan_ns $want"; } >"$tmp/want-cxx"
    "$tmp/client-cxx" >"$tmp/cxx" 2>&1
    if ! head -n "$(wc -l <"$tmp/want-cxx")" "$tmp/cxx" | cmp -s - "$tmp/want-cxx"; then fail client-cxx "$(diff "$tmp/want-cxx" "$tmp/cxx" | head -3)"
    elif ! grep -q '^bad request: bad input: request: /workload/heads: must be an integer' "$tmp/cxx"; then
        fail client-cxx "bad request: $(grep -A2 '^bad request' "$tmp/cxx")"
    else ok client-cxx; fi
fi

# dashsim_run_json: the rows of `dashsim run --format jsonl`, byte for byte, as one JSON array; then bad requests.
config=$top/configs/ci-sweep.json
"$prefix/bin/dashsim" run "$config" --format jsonl >"$tmp/rows.jsonl"
{ echo "["; sed '$!s/$/,/' "$tmp/rows.jsonl"; echo "]"; } >"$tmp/want.json"
if [ -x "$tmp/client-shared" ]; then
    "$tmp/client-shared" "$config" >"$tmp/got.json" 2>"$tmp/err"
    [ "$(wc -l <"$tmp/rows.jsonl")" -ge 40 ] && cmp -s "$tmp/got.json" "$tmp/want.json" && ok run-json ||
        fail run-json "$(cmp "$tmp/got.json" "$tmp/want.json" 2>&1) $(head -c 200 "$tmp/err")"
    bad_request() { # NAME PATTERN REQUEST: exit 2, nothing on stdout, the sentence on stderr
        expect_error "run-json-$1" "$2" "$tmp/client-shared" - <<<"$3"
    }
    bad_request syntax 'request:1:20: invalid JSON' '{"schema_version": }'
    bad_request not-object 'request: the config must be a JSON object' '[1, 2]'
    bad_request unknown-key "request: /workload/heds: unknown key" \
        "$(sed 's/"heads"/"heds"/' "$config")"
    bad_request too-big 'the request is over 1 MiB' "$(head -c 1100000 /dev/zero | tr '\0' ' ')"
fi
# From Python, with ctypes and no C: the recipe of docs/api.md as printed, its rows against the same rows.
recipe=$(awk '$0 == "<!-- recipe:ctypes -->" { on = 1; next } /<!-- recipe:end -->/ { on = 0 } on && !/^```/' \
         "$top/docs/api.md")
if [ -n "$sanitize" ]; then
    skip python-ctypes "a library built with ASan does not load into python3 without LD_PRELOAD"
elif ! command -v python3 >/dev/null; then
    skip python-ctypes "no python3"
elif [ -z "$recipe" ]; then
    fail python-ctypes "no recipe:ctypes block in docs/api.md"
else
    printf '%s\n' "$recipe" >"$tmp/recipe.py"
    cat >>"$tmp/recipe.py" <<'PY'
import sys
want = [json.loads(line) for line in open(sys.argv[1])]
rows = run_json(open(sys.argv[2]).read())
assert rows == want, (len(rows), len(want))
try:
    run_json('{"schema_version": 1, "workload": {"heads": -1}}')
    raise SystemExit("a bad request was accepted")
except ValueError as e:
    assert "request: /workload/heads: must be an integer" in str(e), e
print("ok", len(rows))
PY
    out=$(cd "$tmp" && LD_LIBRARY_PATH=$prefix/lib python3 recipe.py "$tmp/rows.jsonl" "$config" 2>&1)
    [ "$out" = "ok $(wc -l <"$tmp/rows.jsonl")" ] && ok python-ctypes || fail python-ctypes "$(tail -3 <<<"$out")"
fi

( cd "$tmp" && "$prefix/bin/dashsim" run h100.json --format csv >"$tmp/run.csv" 2>"$tmp/run.err" ) &&
    ok installed-configs || fail installed-configs "$(cat "$tmp/run.err")"
if command -v man >/dev/null; then
    MANPATH=$prefix/share/man man -w dashsim >/dev/null 2>&1 && ok man-page || fail man-page "man -w dashsim found nothing"
else
    skip man-page "man is not installed"
fi
# the documents the man page's SEE ALSO and FILES name
[ -f "$prefix/share/doc/dashsim/README.md" ] && [ -f "$prefix/share/doc/dashsim/docs/api.md" ] \
    && ok installed-docs || fail installed-docs "no $prefix/share/doc/dashsim/docs/api.md"
make -s -C "$top" uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$prefix" -type f -o -type l 2>/dev/null)
[ -z "$left" ] && ok uninstall || fail uninstall "left: $left"
finish
