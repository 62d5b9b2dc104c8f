#!/bin/bash
# `make docs`: the attention policy table of README.md, generated from the registry (bin/sim
# --list-policies) between the markers <!-- policies:begin --> and <!-- policies:end -->.
# With --check, prints nothing and exits 1 when README.md's table is not what the registry says.
set -eu
sim=${1:-bin/sim}
mode=${2:-}
table=$("$sim" --list-policies | awk '{ name = $1; masks = $2; sub(/^[^ ]+ +[^ ]+ +/, "");
    gsub(/,/, ", ", masks); printf "| `%s` | %s | %s |\n", name, masks, $0 }')
new=$(awk -v table="| policy | masks | what it does (the registry's summary) |
|---|---|---|
$table" '/<!-- policies:begin -->/ { print; print table; skip = 1; next }
         /<!-- policies:end -->/ { skip = 0 } !skip' README.md)
if [ "$mode" = --check ]; then
    [ "$new" = "$(cat README.md)" ]
else
    printf '%s\n' "$new" >README.md.tmp && mv README.md.tmp README.md
fi
