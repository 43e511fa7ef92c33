# plots/sweep.gp - time against the sequence length T, one line per kernel,
# at B=8 C=768 NH=12 (the sizes make bench sweeps). Log-log: the work of
# the causal triangle grows as T squared, so every kernel is near a line of
# slope 2 once the GPU is full.
load 'plots/style.gp'
load datadir.'/sweep.vars.gp'
data = datadir.'/sweep.dat'   # position kernel T median min max colour share shape_place shape
count = words(kernels)

set title sprintf("Time against T, triangle at %s\n%s, %s", fixed, gpu, date)
set xlabel "sequence length T (log scale)"
set ylabel "median time, ms (log scale)"
set logscale x 2
set logscale y 10
set format x "%g"
set format y "%g"
set xtics 1, 2    # a tic at each power of two: the sizes make bench sweeps
set mxtics 1
set grid xtics ytics lc rgb '#e3e3e3'
set key outside right top
set offsets graph 0.04, graph 0.04, 0, 0

# kernel i's time on its rows; the others' are missing, and a line skips them
set datafile missing "NaN"
of(i, value) = strcol(2) eq word(kernels, i) ? value : NaN
# cuBLAS dashed, the rest solid. The dots are circles, not gnuplot's point
# symbols, which weasyprint (the PDF) cannot draw from gnuplot's SVG.
dash(name) = strstrt(name, "cublas") == 1 ? 2 : 1
set style circle radius screen 0.0045
set style fill solid noborder
draw = "plot for [i=1:count] data using 3:(of(i, $4)) with lines lw 2 " . \
       "dt dash(word(kernels, i)) lc rgb series_colour(i) title word(kernels, i), " . \
       "for [i=1:count] data using 3:(of(i, $4)) with circles lc rgb series_colour(i) notitle"

# the caption the book shows under the plot
set print caption
print sprintf("Time against the sequence length T at %s (log-log; the causal triangle's work grows as T squared). Measured on the %s, %s.", fixed, gpu, date)
unset print

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
