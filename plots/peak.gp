# plots/peak.gp - the share of peak each kernel of the triangle reaches at
# the default size, each against the peak of the pipe it runs on (FP32 lanes
# or tensor cores; chapters/kernels.list says which, common/device/gpu_peaks.c
# gives the peaks). results plotdata leaves this plot out for a card it
# knows no peak of.
load 'plots/style.gp'
load datadir.'/trimul.vars.gp'
data = datadir.'/trimul.dat'            # see style.gp
stats data using (strcol(11) eq shape ? $1 : NaN) nooutput
bars = STATS_records
# the other sizes' bars (and their names under the axis) far off to the right
place = "(strcol(11) eq shape ? $1 : $1 + 1000)"

set title sprintf("Share of peak, triangle at %s: FP32 %.1f, TF32 tensor %.1f TFLOP/s\n%s, %s", \
                  shape, fp32_tflops, tensor_tflops, gpu, date)
set ylabel "GFLOP/s as % of the peak of its pipe"
set xrange [-0.6:bars - 0.4]
set yrange [0:110]
set xtics rotate by 30 right font ',14'
set ytics 0, 20, 100
set style fill solid 0.9 noborder
set boxwidth 0.7
set bmargin 8.5
set key outside bottom center horizontal maxrows 2 samplen 1.5 font ',14'

draw = "plot data using ".place.":9:(kind_colour($7)):xtic(2) with boxes lc rgb variable, " . \
       "data using ".place.":9:(sprintf('%.1f%%', $9)) with labels boxed rotate by 90 left offset 0,0.5 font ',14', " . \
       "100 with lines dt 2 lw 1.5 lc rgb '#444444' title 'the peak of its pipe'" . kinds_key('cuBLAS')

# the caption the book shows under the plot
set print caption
print sprintf("Share of peak each kernel of the triangle reaches at the default size %s, each against the pipe it runs on: FP32 kernels against the FP32 peak (%.1f TFLOP/s), tensor-core kernels against the dense TF32 peak (%.1f TFLOP/s). Measured on the %s, %s.", shape, fp32_tflops, tensor_tflops, gpu, date)
unset print

eval draw_both
