# plots/figures/precision-frontier.gp - chapter 9: each triangle kernel's
# relative error against its time (log-log: the errors span four decades,
# the times two), FP32 lanes, TF32 and 3xTF32
# told apart by colour and named by labels. (Circles, not gnuplot's points:
# weasyprint cannot draw the SVG symbols points are made of.)
load 'plots/figures/style.gp'
data = datadir.'/precision-frontier.dat'
width = 960; height = 600
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    stats data using 5 nooutput   # the labels' highest step (before any range is set)
    top_level = STATS_max
    set logscale xy
    set xlabel 'median time, ms (log scale)'
    set ylabel 'relative L2 error against the referee (log scale)'
    set format y '%.0e'
    unset grid   # the tolerances are the lines that matter; no grid line strikes a label
    set key at graph 0.98, graph 0.75 right top box opaque   # between the tolerances' lines
    set style circle radius screen 0.009
    set xrange [0.07:20]
    set yrange [3e-8:6e-3]
    set label 1 'the FP32 tolerance, 1e-5' at graph 0.02, first 1.3e-5 tc rgb grey font ',16'
    set label 2 'the TF32 tolerance, 2e-3' at graph 0.02, first 2.6e-3 tc rgb grey font ',16'
    # the FP32 and the 3xTF32 kernels crowd at one error each: their labels
    # climb in steps, on leader lines, the leftmost highest: a leader then
    # rises left of every label below it, never through one
    lift(kind, level) = kind == 1 ? 1.35 : 1.9 ** (kind == 0 ? top_level + 1 - level : level)
    plot 1e-5 with lines dt 2 lc rgb grey notitle, 2e-3 with lines dt 2 lc rgb grey notitle, \
         data using 1:2:(0):($2 * (lift($3, $5) - 1)) with vectors nohead lc rgb light notitle, \
         data using ($3 == 0 ? $1 : 1/0):2 with circles fs solid lc rgb blue title 'FP32 lanes', \
         data using ($3 == 1 ? $1 : 1/0):2 with circles fs solid lc rgb orange title 'TF32 tensor cores', \
         data using ($3 == 2 ? $1 : 1/0):2 with circles fs solid lc rgb vermilion title '3xTF32 tensor cores', \
         data using 1:($2 * lift($3, $5)):4 with labels offset char 0.4, char 0.4 left font ',16' tc rgb ink notitle
}
