# plots/sweep.gp - time against the sequence length T, one line per kernel,
# at B=8 C=768 NH=12 (the sizes make bench sweeps). Log-log: the work of
# the causal triangle grows as T squared, so every kernel is near a line of
# slope 2 once the GPU is full.
load 'plots/style.gp'
load datadir.'/sweep.vars.gp'
data = datadir.'/sweep.dat'
count = words(kernels)

set title sprintf("Time against T, triangle at %s\n%s, %s", fixed, gpu, date)
set xlabel "sequence length T (log scale)"
set ylabel "median time, ms (log scale)"
set logscale x 2
set logscale y 10
set format y "%g"
set mxtics 1
set grid xtics ytics lc rgb '#e3e3e3'
set key outside right top
set offsets graph 0.04, graph 0.04, 0, 0

# cuBLAS dashed, the rest solid. The dots are circles, not gnuplot's point
# symbols, which weasyprint (the PDF) cannot draw from gnuplot's SVG.
dash(name) = strstrt(name, "cublas") == 1 ? 2 : 1
set style circle radius screen 0.0045
set style fill solid noborder
draw = "plot for [i=1:count] data index (i-1) using 1:2:xtic(1) with lines lw 2 " . \
       "dt dash(word(kernels, i)) lc rgb series_colour(i) title word(kernels, i), " . \
       "for [i=1:count] data index (i-1) using 1:2 with circles lc rgb series_colour(i) notitle"

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
