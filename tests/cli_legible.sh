#!/bin/bash
# CLI tests of issue 14 item 6 (figures that do not mislead): sweep --plot gives each policy one colour
# and point type in every panel and starts y at zero; the Gantt chart has a legend entry per head up to 16
# in distinct colours (then "colour = head mod 16") and, with --gantt-labels, "kv,q" in boxes wide enough.
. "$(dirname "$0")/lib.sh"
sim=$1
ci=$(dirname "$0")/../configs/ci-sweep.json
if ! command -v gnuplot >/dev/null; then skip legible "no gnuplot"; finish; exit; fi

expect_exit sweep-plot 0 "$sim" sweep "$ci" --plot "$tmp/p.png"
python3 - "$tmp/p.gp" <<'PY' && ok plot-one-style-per-policy || fail plot-one-style-per-policy "$(grep plot "$tmp/p.gp")"
import re, sys
gp = open(sys.argv[1]).read()
styles = {}
clauses = re.findall(r"with linespoints (lc rgb '#[0-9a-f]{6}' pt \d+) title '([^']+)'", gp)
assert len(clauses) >= 8, clauses
for style, policy in clauses:
    assert styles.setdefault(policy, style) == style, (policy, style, styles[policy])
assert len(set(styles.values())) == len(styles), styles   # distinct policies, distinct styles
PY
grep -q "^set yrange \[0:\*\]" "$tmp/p.gp" && ok plot-y-from-zero || fail plot-y-from-zero "no yrange from 0"
finish
