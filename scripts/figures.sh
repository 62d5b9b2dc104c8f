#!/bin/bash
# `make figures`: regenerates plots/ with bin/sim and gnuplot. Six Gantt charts after the DASH paper's
# Figures 2, 3a, 3b, 4, 6 and 7 (c = 1000 ns, r = 500 ns, serial reduction; Figure 2 is the paper's toy of
# two KV and two Q tiles, the others 8 SMs and two heads), and one
# chart of every policy's makespan over n (16 heads, N = M = n) for the full and causal masks.
# Each image keeps its gnuplot script and data beside it (NAME.gp, NAME.dat). Deterministic: same bytes.
set -eu
sim=${1:-bin/sim}
out=${2:-plots}
mkdir -p "$out"

# figure | policy | mask | SMs | heads: the schedule each of the paper's figures shows (its captions:
# 2 the deterministic scheduling problem, naive schedule of 2 KV x 2 Q tiles; 3a/3b FA3's backward, full
# and causal; 4 Descending Q-tile iteration, causal; 6 Shift, full; 7 Symmetric Shift, causal).
gantt_figures="
fig2-fa3-2x2                   fa3              full    2  1
fig3a-fa3-full                 fa3              full    8  2
fig3b-fa3-causal               fa3              causal  8  2
fig4-descending-causal         descending       causal  8  2
fig6-shift-full                shift            full    8  2
fig7-symmetric-shift-causal    symmetric-shift  causal  8  2
"
echo "$gantt_figures" | while read -r name policy mask n heads; do
    [ -n "$name" ] || continue
    "$sim" --policy "$policy" --mask "$mask" --n "$n" --heads "$heads" --gantt "$out/$name.png" >/dev/null
    echo "wrote $out/$name.png"
done

# Makespan over n: one block per (mask, policy) in the order of --list-policies; columns n, makespan_ns,
# and the work bound m * tasks_per_head * (c + r) / n, so makespan / bound = 1 means no bubble at all.
heads=16 c=1000 r=500
ns="4 8 16 24 32 48 64 80 96 112 132"
dat="$out/makespan-over-n.dat" gp="$out/makespan-over-n.gp"
: >"$dat.tmp"
abs_full="" rel_full="" abs_causal="" rel_causal="" index=0
# A policy's style by its place k in the registry, those of full or causal masks first, the same in every
# panel (and as sim sweep --plot draws it, sim/run/sweep.c: style_index): its colour, point type and dash type,
# and lines narrower down the registry so that a policy drawn over an earlier one with the same values leaves
# that one in sight.
policies=$("$sim" --list-policies | awk '$2 ~ /full|causal/ { print $1 }'; "$sim" --list-policies | awk '$2 !~ /full|causal/ { print $1 }')
palette=(1f77b4 ff7f0e 2ca02c d62728 9467bd 8c564b e377c2 7f7f7f bcbd22 17becf)
style() {
    local k=0 p
    for p in $policies; do [ "$p" = "$1" ] && break; k=$((k + 1)); done
    awk -v k=$k -v c="${palette[k % 10]}" 'BEGIN { lw = 5 - 1.2 * k; ps = 1.8 - 0.3 * k
        printf "lc rgb \"#%s\" pt %d dt %d lw %.1f ps %.1f", c, k % 13 + 1, k % 5 + 1, lw < 1 ? 1 : lw, ps < 0.6 ? 0.6 : ps }'
}
for mask in full causal; do
    for policy in $("$sim" --list-policies | awk -v m="$mask" '$2 ~ m {print $1}'); do
        echo "# $mask $policy: n makespan_ns work_bound_ns" >>"$dat.tmp"
        for n in $ns; do
            ms=$("$sim" --policy "$policy" --mask "$mask" --n "$n" --heads $heads --c $c --r $r --json |
                 sed 's/.*"makespan_ns":\([0-9]*\).*/\1/')
            if [ "$mask" = full ]; then bound=$((heads * n * (c + r)))
            else bound=$((heads * (n + 1) * (c + r) / 2)); fi
            echo "$n $ms $bound" >>"$dat.tmp"
        done
        printf '\n\n' >>"$dat.tmp"
        abs="datafile index $index using 1:(\$2/1000) with linespoints $(style "$policy") title '$policy'"
        rel="datafile index $index using 1:(\$2/\$3) with linespoints $(style "$policy") title '$policy'"
        if [ "$mask" = full ]; then abs_full="$abs_full${abs_full:+, }$abs" rel_full="$rel_full${rel_full:+, }$rel"
        else abs_causal="$abs_causal${abs_causal:+, }$abs" rel_causal="$rel_causal${rel_causal:+, }$rel"; fi
        index=$((index + 1))
    done
done
cat >"$gp.tmp" <<GP
# Makespan over n of every policy (scripts/figures.sh). Redraw: gnuplot makespan-over-n.gp, in this directory.
if (!exists("datafile")) datafile = 'makespan-over-n.dat'
if (!exists("outfile")) outfile = 'makespan-over-n.png'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1400,1000 font 'sans,10' } else { set terminal png size 1400,1000 }
set output outfile
set multiplot layout 2,2 title "Makespan over n (the DASH paper's tile-level model; model numbers): $heads heads, N = M = n tiles, c $c ns, r $r ns, serial reduction" noenhanced
set xlabel "n (SMs = KV tiles = Q tiles)"
set grid
set key top left noenhanced
set xrange [0:136]
set ylabel "makespan (us)"
set title "full mask: makespan" noenhanced
plot $abs_full
set title "causal mask: makespan" noenhanced
plot $abs_causal
set ylabel "makespan / (work / n)"
set title "full mask: makespan over the work bound (1 = no bubble)" noenhanced
plot $rel_full
set title "causal mask: makespan over the work bound (1 = no bubble)" noenhanced
plot $rel_causal
unset multiplot
GP
(cd "$out" && gnuplot -e "datafile='makespan-over-n.dat.tmp'; outfile='makespan-over-n.png.tmp'" makespan-over-n.gp.tmp)
mv "$dat.tmp" "$dat" && mv "$gp.tmp" "$gp" && mv "$out/makespan-over-n.png.tmp" "$out/makespan-over-n.png"
echo "wrote $out/makespan-over-n.png"
