# TFLOPS of every backend against seqlen, one panel per (mask, head dim, batch x heads): gpu/bwd/table.py
# calls it with dat (gpu/bwd/table.py's bench.dat), png (output), groups (the panel names, in index order) and
# head (the title's start). Each of the 10 columns has its own colour; the DASH kernel's lines are solid,
# PyTorch's (cudnn, flash, flash-det) dashed, the mma.sync kernel's best deterministic policy dotted.
set terminal pngcairo size 1800,1000 font ",9"
set output png
n = words(groups)
set multiplot layout 2, (n + 1) / 2 title head.": TFLOPS = 2.5 x forward FLOPs / median time; solid = DASH kernel, dashed = PyTorch, dotted = mma.sync kernel" font ",11"
set logscale x 2
set xlabel "seqlen (tokens)"
set ylabel "TFLOPS (2.5 x fwd FLOPs / s)"
set key top left font ",7" box
set yrange [0:*]
set offsets 0, 0, graph 0.55, 0  # headroom above the data for the key
set grid
names = "fa3 fa3-spt descending shift symmetric-shift atomic cudnn flash flash-det mma"
colors = "#1f77b4 #2ca02c #17becf #ff7f0e #d62728 #7f7f7f #000000 #9467bd #e377c2 #bcbd22"
pts = "1 2 3 4 5 6 7 8 9 10"
dt(c) = c == 11 ? 3 : c >= 8 ? 2 : 1
do for [i = 1:n] {
    set title word(groups, i)
    plot for [c = 2:11] dat index (i - 1) using 1:c with linespoints lw 1.5 dt dt(c) pt int(word(pts, c - 1)) \
        lc rgb word(colors, c - 1) title word(names, c - 1)
}
unset multiplot
