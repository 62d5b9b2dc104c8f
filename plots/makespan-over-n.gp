# Makespan over n of every policy (scripts/figures.sh). Redraw: gnuplot makespan-over-n.gp, in this directory.
if (!exists("datafile")) datafile = 'makespan-over-n.dat'
if (!exists("outfile")) outfile = 'makespan-over-n.png'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1400,1000 font 'sans,10' } else { set terminal png size 1400,1000 }
set output outfile
set multiplot layout 2,2 title "Makespan over n (the DASH paper's tile-level model; model numbers): 16 heads, N = M = n tiles, c 1000 ns, r 500 ns, serial reduction" noenhanced
set xlabel "n (SMs = KV tiles = Q tiles)"
set grid
set key top left noenhanced
set xrange [0:136]
set ylabel "makespan (us)"
set title "full mask: makespan" noenhanced
plot datafile index 0 using 1:($2/1000) with linespoints lc rgb "#1f77b4" pt 1 dt 1 lw 5.0 ps 1.8 title 'fa3', datafile index 1 using 1:($2/1000) with linespoints lc rgb "#2ca02c" pt 3 dt 3 lw 2.6 ps 1.2 title 'descending', datafile index 2 using 1:($2/1000) with linespoints lc rgb "#d62728" pt 4 dt 4 lw 1.4 ps 0.9 title 'shift'
set title "causal mask: makespan" noenhanced
plot datafile index 3 using 1:($2/1000) with linespoints lc rgb "#1f77b4" pt 1 dt 1 lw 5.0 ps 1.8 title 'fa3', datafile index 4 using 1:($2/1000) with linespoints lc rgb "#ff7f0e" pt 2 dt 2 lw 3.8 ps 1.5 title 'fa3-spt', datafile index 5 using 1:($2/1000) with linespoints lc rgb "#2ca02c" pt 3 dt 3 lw 2.6 ps 1.2 title 'descending', datafile index 6 using 1:($2/1000) with linespoints lc rgb "#9467bd" pt 5 dt 5 lw 1.0 ps 0.6 title 'symmetric-shift'
set ylabel "makespan / (work / n)"
set title "full mask: makespan over the work bound (1 = no bubble)" noenhanced
plot datafile index 0 using 1:($2/$3) with linespoints lc rgb "#1f77b4" pt 1 dt 1 lw 5.0 ps 1.8 title 'fa3', datafile index 1 using 1:($2/$3) with linespoints lc rgb "#2ca02c" pt 3 dt 3 lw 2.6 ps 1.2 title 'descending', datafile index 2 using 1:($2/$3) with linespoints lc rgb "#d62728" pt 4 dt 4 lw 1.4 ps 0.9 title 'shift'
set title "causal mask: makespan over the work bound (1 = no bubble)" noenhanced
plot datafile index 3 using 1:($2/$3) with linespoints lc rgb "#1f77b4" pt 1 dt 1 lw 5.0 ps 1.8 title 'fa3', datafile index 4 using 1:($2/$3) with linespoints lc rgb "#ff7f0e" pt 2 dt 2 lw 3.8 ps 1.5 title 'fa3-spt', datafile index 5 using 1:($2/$3) with linespoints lc rgb "#2ca02c" pt 3 dt 3 lw 2.6 ps 1.2 title 'descending', datafile index 6 using 1:($2/$3) with linespoints lc rgb "#9467bd" pt 5 dt 5 lw 1.0 ps 0.6 title 'symmetric-shift'
unset multiplot
