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
clauses = re.findall(r"with linespoints (lc rgb '#[0-9a-f]{6}' pt \d+ dt \d+ lw [0-9.]+ ps [0-9.]+) title '([^']+)'", gp)
assert len(clauses) >= 8, clauses
for style, policy in clauses:
    assert styles.setdefault(policy, style) == style, (policy, style, styles[policy])
assert len(set(styles.values())) == len(styles), styles   # distinct policies, distinct styles
PY
grep -q "^set yrange \[0:\*\]" "$tmp/p.gp" && ok plot-y-from-zero || fail plot-y-from-zero "no yrange from 0"

# Gantt at 132 SMs and 20 heads: a key entry per head up to 16, 16 distinct colours, then the note
expect_exit gantt-132 0 "$sim" --n 132 --heads 20 --kv-tiles 8 --q-tiles 8 --policy fa3 --gantt "$tmp/g.png"
python3 - "$tmp/g.gp" <<'PY' && ok gantt-legend-16-heads || fail gantt-legend-16-heads "$(grep title "$tmp/g.gp" | head -20)"
import re, sys
gp = open(sys.argv[1]).read()
heads = re.findall(r"fc rgb '(#[0-9a-f]{6})' title 'head (\d+)'", gp)
assert [int(h) for _, h in heads] == list(range(16)), heads
assert len({c for c, _ in heads}) == 16, heads
assert "20 heads in all (colour = head mod 16)" in gp and "colour = head mod 16;" in gp
assert "set key outside right top" in gp
PY
grep -q "with labels" "$tmp/g.gp" && fail gantt-no-labels-by-default "labels without --gantt-labels" || ok gantt-no-labels-by-default
# --gantt-labels: "kv,q" in each box wide enough (here the 128 compute boxes; the reductions are too narrow)
expect_exit gantt-labels 0 "$sim" --policy shift --n 8 --kv-tiles 8 --q-tiles 8 --heads 2 --gantt "$tmp/l.png" --gantt-labels
grep -q "with labels" "$tmp/l.gp" && grep -q '^[0-9.]* [0-9.]* "3,5"$' "$tmp/l.dat" && grep -q "boxes labelled kv,q" "$tmp/l.gp" \
    && [ "$(grep -c '"[0-9]*,[0-9]*"$' "$tmp/l.dat")" -eq 128 ] && ok gantt-labelled || fail gantt-labelled "$(tail -3 "$tmp/l.gp")"
expect_error gantt-labels-need-gantt "--gantt-labels needs --gantt FILE" "$sim" --policy shift --gantt-labels
finish
