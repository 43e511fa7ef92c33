# plots/peak.gp - the share of peak each kernel reaches at the default size,
# each against the peak of the pipe it runs on (FP32 lanes or tensor cores;
# chapters/kernels.list says which, common/gpu_peaks.c gives the peaks).
# results plotdata leaves this plot out for a card it knows no peak of.
load 'plots/style.gp'
load datadir.'/peak.vars.gp'
data = datadir.'/time-default.dat'   # position kernel T median min max colour share
stats data using 1 nooutput
bars = STATS_records

set title sprintf("Share of peak, triangle at %s: FP32 %.1f, TF32 tensor %.1f TFLOP/s\n%s, %s", \
                  shape, fp32_tflops, tensor_tflops, gpu, date)
set ylabel "GFLOP/s as % of the peak of its pipe"
set xrange [-0.6:bars - 0.4]
set yrange [0:110]
set xtics rotate by 30 right
set ytics 0, 20, 100
set style fill solid 0.9 noborder
set boxwidth 0.7
set key outside bottom center horizontal samplen 2
set datafile missing "NaN"

draw = "plot data using 1:8:(colour($7)):xtic(2) with boxes lc rgb variable, " . \
       "data using 1:8:(sprintf('%.1f%%', $8)) with labels offset 0,0.7 font ',12', " . \
       "100 with lines dt 2 lw 1.5 lc rgb '#444444' title 'the peak of its pipe'" . kinds_key

# the caption the book shows under the plot
set print caption
print sprintf("Share of peak each kernel reaches at the default size %s, each against the pipe it runs on: FP32 kernels against the FP32 peak (%.1f TFLOP/s), tensor-core kernels against the dense TF32 peak (%.1f TFLOP/s). Measured on the %s, %s.", shape, fp32_tflops, tensor_tflops, gpu, date)
unset print

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
