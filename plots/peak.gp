# plots/peak.gp - the share of the card's FP32 peak each kernel reaches at
# the default size. weave plotdata knows the peak of a few cards (gpu_peaks
# in book/weave.c) and leaves this plot out for a card it does not know.
load 'plots/style.gp'
load datadir.'/peak.vars.gp'
data = datadir.'/peak.dat'
stats data using 1 nooutput
bars = STATS_records
stats data using 3 nooutput
highest = STATS_max

set title sprintf("Share of the FP32 peak (%.1f TFLOP/s), triangle at %s\n%s, %s", peak_tflops, shape, gpu, date)
set ylabel "useful GFLOP/s as % of FP32 peak"
set xrange [-0.6:bars - 0.4]
set yrange [0:(highest > 100 ? highest : 100) * 1.1]
set xtics rotate by 30 right
set ytics 0, 20
set style fill solid 0.9 noborder
set boxwidth 0.7
set key outside bottom center horizontal samplen 2

draw = "plot data using 1:3:(colour($4)):xtic(2) with boxes lc rgb variable, " . \
       "data using 1:3:(sprintf('%.1f%%', $3)) with labels offset 0,0.7 font ',12', " . \
       "100 with lines dt 2 lw 1.5 lc rgb '#444444' title 'FP32 peak'" . kinds_key

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
