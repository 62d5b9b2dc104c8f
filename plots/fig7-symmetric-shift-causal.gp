# Gantt chart of a dashsim 0.2.0 schedule (sim/render_gantt.c). Redraw: gnuplot fig7-symmetric-shift-causal.gp, run in this directory.
if (!exists("datafile")) datafile = 'fig7-symmetric-shift-causal.dat'
if (!exists("outfile")) outfile = 'fig7-symmetric-shift-causal.png'
if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {
    set terminal pngcairo size 1400,380 font 'sans,10'
} else {
    set terminal png size 1400,380
}
set output outfile
set title "symmetric-shift, causal mask, 8 SMs, 2 heads x 8 KV x 8 Q tiles, c 1000 ns, r 500 ns, serial: makespan 13500 ns" noenhanced
set xlabel "time (us)\ncolour = head; lighter boxes = reductions; grey = idle; black outline = critical path" noenhanced
set xrange [0:13.500]
set yrange [7.5:-0.5]
set ytics ("SM 0" 0, "SM 1" 1, "SM 2" 2, "SM 3" 3, "SM 4" 4, "SM 5" 5, "SM 6" 6, "SM 7" 7) noenhanced
set ytics scale 0
set key outside right top noenhanced
set style fill solid 1.0 border rgb 'white'
box = '(($1+$2)/2):(($3+$4)/2):1:2:3:4'
rgb = '(($1+$2)/2):(($3+$4)/2):1:2:3:4:5'
plot datafile index 0 using @rgb with boxxyerror fc rgb variable notitle, \
     datafile index 1 using @rgb with boxxyerror fc rgb variable notitle, \
     datafile index 2 using @rgb with boxxyerror fc rgb variable notitle, \
     datafile index 3 using @box with boxxyerror lc rgb 'black' lw 2 fs empty notitle, \
     NaN with boxes fs solid fc rgb '#1f77b4' title 'head 0', \
     NaN with boxes fs solid fc rgb '#ff7f0e' title 'head 1', \
     NaN with boxes lc rgb 'black' lw 2 fs empty title 'critical path', \
     NaN with boxes fs solid fc rgb '#e8e8e8' title 'idle'
