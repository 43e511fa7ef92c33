# plots/msa.gp - MSA gated attention: each kernel's time at each size, the
# unfused baseline first. Log scale: the sizes span three orders of
# magnitude. A kernel that was not run at a size leaves a gap.
load 'plots/style.gp'
load datadir.'/msa.vars.gp'
data = datadir.'/msa.dat'

set title sprintf("MSA gated attention, fused against unfused\n%s, %s", gpu, date)
set ylabel "median time, ms (log scale)"
set logscale y
set style data histograms
set style histogram clustered gap 1.5
set style fill solid 0.9 noborder
set boxwidth 0.9
set xtics scale 0
set bmargin 5
set key top left box opaque
set datafile missing "NaN"

# "B=1 S=512 N=256 D=256 H=8" is too wide for one line under its bars
two_lines(shape) = (cut = strstrt(shape, " N="), cut > 0 ? shape[1:cut - 1] . "\n" . shape[cut + 1:*] : shape)
draw = "plot for [i=2:kernel_count + 1] data using i:xtic(two_lines(strcol(1))) lc rgb series_colour(i-1) title columnheader(i)"

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
