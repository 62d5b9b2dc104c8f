#!/bin/sh
# Packs the planner (bin/sim) and every shared library it loads but libc's own (libc, libm, libpthread, libdl,
# librt, ld-linux), stripped, into DIR/payload.tar.xz (DIR default .dev/sim, ignored; about 15 MB: ICU's data
# alone is 30 MB unpacked, too much for a device call's 64 MiB carry) with a wrapper DIR/sim that unpacks it
# beside itself on first use and runs it with LD_LIBRARY_PATH set, so that a machine without igraph, GLib or cJSON
# (the GPU machines) runs the planner: gpu/bwd/dash_attn.py finds DIR/sim. The bundle checks itself by running
# the wrapper. Usage: gpu/scripts/bundle-sim.sh [DIR]
set -eu
DIR=${1:-.dev/sim}
[ -x bin/sim ] || { echo "bundle-sim.sh: bin/sim is not built (make)" >&2; exit 2; }
rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp/x/lib"
cp bin/sim "$DIR.tmp/x/sim.bin"
ldd bin/sim | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*) ;;
    *) cp -L "$lib" "$DIR.tmp/x/lib/$(basename "$lib")" ;;
  esac
done
strip --strip-unneeded "$DIR.tmp/x/sim.bin" "$DIR.tmp"/x/lib/* 2>/dev/null || true
tar cf - -C "$DIR.tmp" x | xz -9 -T2 > "$DIR.tmp/payload.tar.xz"
rm -rf "$DIR.tmp/x"
cat > "$DIR.tmp/sim" <<'W'
#!/bin/sh
# bin/sim with its bundled libraries (gpu/scripts/bundle-sim.sh): unpacks payload.tar.xz beside itself once
here=$(dirname "$(readlink -f "$0")")
if [ ! -x "$here/x/sim.bin" ]; then
  t=$(mktemp -d "$here/unpack.XXXXXX") && xz -dc "$here/payload.tar.xz" | tar xf - -C "$t" &&
    { mv "$t/x" "$here/x" 2>/dev/null || [ -x "$here/x/sim.bin" ]; } || { echo "sim bundle: cannot unpack" >&2; exit 2; }
  rm -rf "$t"
fi
LD_LIBRARY_PATH="$here/x/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/x/sim.bin" "$@"
W
chmod +x "$DIR.tmp/sim"
"$DIR.tmp/sim" --version >/dev/null || { echo "bundle-sim.sh: the bundled sim does not run" >&2; exit 1; }
rm -rf "$DIR.tmp/x"  # unpacked by the check: the carried bundle holds the payload only
rm -rf "$DIR" && mv "$DIR.tmp" "$DIR"
du -sh "$DIR"
