# TFLOPS of every backend against seqlen, one panel per (mask, head dim, batch x heads): gpu/bwd/table.py
# calls it with dat (gpu/bwd/table.py's bench.dat), png (output) and groups (the panel names, in index order).
set terminal pngcairo size 1800,1000 font ",9"
set output png
n = words(groups)
set multiplot layout 2, (n + 1) / 2
set logscale x 2
set xlabel "seqlen"
set ylabel "TFLOPS (2.5 x fwd)"
set key top left font ",7"
set grid
names = "fa3 fa3-spt descending shift symmetric-shift atomic cudnn flash flash-det"
do for [i = 1:n] {
    set title word(groups, i)
    plot for [c = 2:10] dat index (i - 1) using 1:c with linespoints title word(names, c - 1)
}
unset multiplot
