#!/bin/bash
# The shape front end on a causal shape with an odd number of KV tiles: the other policies still rank and
# the absent one says why (issue 25 item 2).
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

finish
