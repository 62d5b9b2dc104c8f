#!/bin/bash
# make install into a fresh prefix: the program as `dashsim` (finding its configs there), the man page,
# and a ten-line client (tests/install/shift.c) built with `pkg-config dashsim` against the installed
# static and shared libraries; then make uninstall leaves nothing behind.
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
want="$("$sim" --policy shift --n 8 --heads 2 --json | sed -n 's/.*"makespan_ns": *\([0-9]*\).*/\1/p')"
# A library built with the sanitizers (make check-asan) needs them at link time too.
sanitize=$(nm "$libdir/libdashsim.a" 2>/dev/null | grep -q __asan && echo "-fsanitize=address,undefined")
for link in shared static; do
    if [ $link = static ]; then # the archive, and its dependencies as the .pc file names them
        flags="$(pkg-config --cflags dashsim) $prefix/lib/libdashsim.a $(pkg-config --libs \
            $(pkg-config --print-requires-private dashsim)) -lm -lpthread"
    else
        flags="$(pkg-config --cflags --libs dashsim) -Wl,-rpath,$prefix/lib"
    fi
    if cc -std=c11 -Wall -Wextra -Werror $sanitize -o "$tmp/client-$link" "$top/tests/install/shift.c" $flags \
        2>"$tmp/cc.log"; then
        out=$("$tmp/client-$link" 2>&1)
        [ "$out" = "0.2.0 shift makespan_ns $want" ] && ok "client-$link" || fail "client-$link" "printed '$out', want makespan $want"
    else
        fail "client-$link" "$(head -5 "$tmp/cc.log")"
    fi
done
( cd "$tmp" && "$prefix/bin/dashsim" run h100.json --format csv >"$tmp/run.csv" 2>"$tmp/run.err" ) &&
    ok installed-configs || fail installed-configs "$(cat "$tmp/run.err")"
if command -v man >/dev/null; then
    MANPATH=$prefix/share/man man -w dashsim >/dev/null 2>&1 && ok man-page || fail man-page "man -w dashsim found nothing"
else
    skip man-page "man is not installed"
fi
# the documents the man page's SEE ALSO and FILES name
[ -f "$prefix/share/doc/dashsim/README.md" ] && [ -f "$prefix/share/doc/dashsim/docs/plan-format.md" ] \
    && ok installed-docs || fail installed-docs "no $prefix/share/doc/dashsim/docs/plan-format.md"
make -s -C "$top" uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$prefix" -type f 2>/dev/null)
[ -z "$left" ] && ok uninstall || fail uninstall "left: $left"
finish
