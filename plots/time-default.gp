# plots/time-default.gp - time per kernel at the default size, in the order
# of the story, against the FP32 cuBLAS champions (dashed lines across).
# Log scale: the kernels span 40x.
load 'plots/style.gp'
load datadir.'/time-default.vars.gp'
data = datadir.'/time-default.dat'   # position kernel T median min max colour share
stats data using 1 nooutput
bars = STATS_records
stats data using 4 nooutput
slowest = STATS_max
fastest = STATS_min

set title sprintf("Time per kernel, triangle at %s\n%s, %s", shape, gpu, date)
set ylabel "median time, ms (log scale)"
set logscale y
set yrange [fastest / 3 : slowest * 60]   # room above the bars for the key
set xrange [-0.6:bars - 0.4]
set xtics rotate by 30 right
set style fill solid 0.9 noborder
set boxwidth 0.7
set key top right box opaque

# a champion's time as a dashed line across the plot (colour 1: an FP32 champion)
champions = ", data using (-0.6):(column(7) == 1 ? $4 : NaN):(bars):(0) with vectors nohead " . \
            "dt 2 lw 1.5 lc rgb '#444444' title 'the FP32 cuBLAS champions'"
draw = "plot data using 1:4:(colour($7)):xtic(2) with boxes lc rgb variable, " . \
       "data using 1:4:(sprintf('%.3g', $4)) with labels offset 0,0.7 font ',12'" . \
       kinds_key . champions

# the caption the book shows under the plot
set print caption
print sprintf("Time per kernel at the default size %s (median of the repetitions, log scale); the dashed lines are the FP32 cuBLAS champions. Measured on the %s, %s.", shape, gpu, date)
unset print

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
