# plots/time-default.gp - time per kernel at the default size, against the
# two cuBLAS champions (dashed lines). Log scale: the kernels span 40x.
load 'plots/style.gp'
load datadir.'/time-default.vars.gp'
data = datadir.'/time-default.dat'
stats data using 1 nooutput
bars = STATS_records
stats data using 3 nooutput
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

champions = ""
if (permute_ms == permute_ms) champions = champions . \
    sprintf(", permute_ms with lines dt 2 lw 2 lc rgb '#444444' title 'cuBLAS, permute + batched SGEMM: %.3g ms'", permute_ms)
if (direct_ms == direct_ms) champions = champions . \
    sprintf(", direct_ms with lines dt 3 lw 2 lc rgb '#444444' title 'cuBLAS, strided batched SGEMM: %.3g ms'", direct_ms)

draw = "plot data using 1:3:(colour($6)):xtic(2) with boxes lc rgb variable, " . \
       "data using 1:3:(sprintf('%.3g', $3)) with labels offset 0,0.7 font ',12'" . \
       kinds_key . champions

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
