# plots/msa.gp - MSA gated attention: each kernel of the story's time at
# each size, a group of bars per size (smallest first), the kernels in the
# story's order (the unfused baseline first). Log scale: the sizes span
# three orders of magnitude. A kernel that was not run at a size leaves a gap.
load 'plots/style.gp'
load datadir.'/msa.vars.gp'   # gpu, date, kernels, and the sizes' labels (set xtics)
data = datadir.'/msa.dat'     # position kernel T median min max colour share shape_place shape
count = words(kernels)
stats data using 9 nooutput
shapes = STATS_max + 1
width = 0.85 / count

set title sprintf("MSA gated attention, fused against unfused\n%s, %s", gpu, date)
set ylabel "median time, ms (log scale)"
set logscale y
set xrange [-0.6:shapes - 0.4]
set xtics scale 0 rotate by 30 right font ',12'
set bmargin 7
set lmargin 14     # room for the first size's slanted label
set style fill solid 0.9 noborder
set boxwidth width
set key top left box opaque
set datafile missing "NaN"

# kernel j's bar of each size: its place in the group, only on its own rows
at(j) = $9 + (j - (count + 1) / 2.0) * width
draw = "plot for [j=1:count] data using (at(j)):(strcol(2) eq word(kernels, j) ? $4 : NaN) " . \
       "with boxes lc rgb series_colour(j) title word(kernels, j)"

# the caption the book shows under the plot
set print caption
print sprintf("MSA gated attention: each kernel's time at each size (median, log scale; a missing bar is a size that kernel was not run at). Measured on the %s, %s.", gpu, date)
unset print

eval svg_terminal
set output svg
eval draw
eval png_terminal
set output png
eval draw
set output
