#!/bin/bash
# Builds fuzz targets (default: baseline runjson clock; or name them) and copies them into .dev/fuzz/ (ignored
# by git) with every shared library they load but the C runtime (found by ldd: glib, cJSON, zlib, pcre2,
# igraph when linked shared, libstdc++), their seeds and dictionaries, the two files the harnesses read,
# and run-long.sh: a folder to carry to a machine that has none of those libraries and no clang.
set -eu
cd "$(dirname "$0")/../.."
targets=${*:-baseline runjson clock}
make -j"$(nproc)" $(for t in $targets; do echo "build-fuzz/fuzz_$t"; done)
out=.dev/fuzz
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/data"
for t in $targets; do
    cp "build-fuzz/fuzz_$t" "$out/bin/"
    cp -r "tests/fuzz/corpus-$t" "$out/data/"
    cp "tests/fuzz/$t.dict" "$out/data/"
done
ldd "$out"/bin/* | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
    grep -Ev '/(libc|libm|libpthread|libdl|librt|libresolv|libutil)\.so|/ld-linux' |
    while read -r so; do cp -L "$so" "$out/lib/"; done
cp configs/kernels/gpu-bwd.json configs/profiles/h100-sxm.json "$out/data/"
cp tests/fuzz/run-long.sh "$out/"
du -sh "$out"
echo "carry .dev/fuzz, then run: OUT=\$OUT .dev/fuzz/run-long.sh (again until it prints 'all done')"
