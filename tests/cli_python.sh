#!/bin/bash
# CLI test of issue 25 item 11: the Python recipe of docs/python.md, run exactly as printed (the blocks between
# its recipe markers), ranks the policies of a list of shapes through `bin/sim --json`; every row is checked
# against the command run on its own. The pandas block runs where a python3 with pandas exists (Debian:
# python3-pandas), else the check stops at the rows (counted as one skipped check).
. "$(dirname "$0")/lib.sh"
sim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$tmp/tree/bin" && ln -s "$sim" "$tmp/tree/bin/sim"
ln -s "$root/configs" "$tmp/tree/configs" # the default profile, as from the repository root
block() { awk -v want="<!-- recipe:$1 -->" '$0 == want { on = 1; next } /<!-- recipe:end -->/ { on = 0 }
                                             on && !/^```/' "$root/docs/python.md"; }
block rank >"$tmp/tree/rank.py"
block pandas >"$tmp/tree/pandas_table.py"
[ -s "$tmp/tree/rank.py" ] && [ -s "$tmp/tree/pandas_table.py" ] && ok recipe-found || fail recipe-found "no recipe blocks"

cat >"$tmp/tree/check.py" <<'PY'
import json, subprocess, sys
exec(open("rank.py").read())
by_shape = {}
for r in rows:
    by_shape.setdefault((r["seqlen"], r["heads"], r["mask"], r["head_dim"]), []).append(r)
assert len(by_shape) == len(shapes) == 4, by_shape.keys()
listed = [line.split() for line in subprocess.run(["bin/sim", "--list-policies"], capture_output=True, text=True,
                                                  check=True).stdout.splitlines()]
want_policies = {m: {p[0] for p in listed if m in p[1].split(",")} for m in ("full", "causal")}  # the registry's
for (seqlen, heads, mask, head_dim), rs in by_shape.items():
    got = {r["policy"] for r in rs}
    want = want_policies[mask] - ({"symmetric-shift"} if seqlen == 1100 else set())
    assert got == want, (seqlen, got, want)
    winners = [r for r in rs if r["is_winner"]]
    assert len(winners) == 1 and winners[0]["makespan_ns"] == min(r["makespan_ns"] for r in rs), rs
    fa3 = [r for r in rs if r["policy"] == "fa3"][0]
    assert fa3["speedup_over_fa3"] == 1
    for r in rs:  # each row is what the command says for that policy alone
        alone = json.loads(subprocess.run(["bin/sim", "--json", "--seqlen", str(seqlen), "--heads", str(heads),
                                           "--head-dim", str(head_dim), "--mask", mask, "--policy", r["policy"]],
                                          capture_output=True, text=True, check=True).stdout)
        assert alone["policies"][0]["makespan_ns"] == r["makespan_ns"], (r, alone["policies"][0])
        assert abs(fa3["makespan_ns"] / r["makespan_ns"] - r["speedup_over_fa3"]) < 1e-9
try:
    rank({"seqlen": 1024, "heads": 2, "head_dim": 256})
    raise SystemExit("head_dim 256 was accepted")
except ValueError as e:
    assert "head_dim 256" in str(e), e
print("rows", len(rows) == sum(len(v) for v in by_shape.values()))
PY
(cd "$tmp/tree" && python3 check.py) >"$tmp/out" 2>&1 && grep -q '^rows True$' "$tmp/out" && ok recipe-rows \
    || fail recipe-rows "$(tail -3 "$tmp/out")"

cat >"$tmp/tree/check_pandas.py" <<'PY'
exec(open("rank.py").read())
exec(open("pandas_table.py").read())
assert table.shape == (4, df.policy.nunique()), table.shape  # 4 shapes x every policy ranked
assert table.loc[("causal", 128, 1100, 16), "symmetric-shift"] != table.loc[("causal", 128, 1100, 16), "symmetric-shift"]  # NaN
assert len(winners) == 4 and set(winners.policy) <= set(df.policy)
PY
py=""
for p in python3 /usr/bin/python3; do "$p" -c 'import pandas' 2>/dev/null && { py=$p; break; }; done
if [ -n "$py" ]; then
    (cd "$tmp/tree" && "$py" check_pandas.py) >"$tmp/out" 2>&1 && ok recipe-pandas || fail recipe-pandas "$(tail -3 "$tmp/out")"
else
    skip recipe-pandas "no python3 with pandas (Debian: python3-pandas)"
fi
finish
