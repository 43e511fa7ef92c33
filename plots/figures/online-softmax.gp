# plots/figures/online-softmax.gp - chapter 7: the online softmax of one
# query row, the lazy reference against the running maximum, the weights
# of each step against the limit, and the running sum.
load 'plots/figures/style.gp'
load datadir.'/online-softmax.vars.gp'
data = datadir.'/online-softmax.dat'

width = 960; height = 720
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set termoption enhanced   # the axes' titles set s_j and 2^(s - m) as a subscript and a power
    set multiplot
    set xrange [0:keys]
    set xtics 0, stage, keys out nomirror
    set grid xtics lc rgb '#e3e3e3' lw 1
    set lmargin at screen 0.09
    set rmargin at screen 0.97

    # the scores and the two references
    set tmargin at screen 0.97
    set bmargin at screen 0.52
    set format x ""
    set ylabel "score {/:Italic s}_{/=16 {/:Italic j}} (base 2)" offset 1, 0
    set ytics out nomirror
    set yrange [-5:42]
    set ytics -5, 5, 30
    set key at graph 0.02, graph 0.98 left top samplen 2 spacing 1.1 reverse Left noopaque
    # each score a small square: four corners, where a circle is a polygon of
    # a hundred (the SVG stays small)
    set style fill solid 1.0 noborder
    dot_x = keys / 400.0; dot_y = 47 / 260.0
    plot data index 0 using 1:2:($1 - dot_x):($1 + dot_x):($2 - dot_y):($2 + dot_y) with boxxyerror \
             lc rgb '#9a9a9a' title "the scores of the row's keys", \
         data index 1 using 1:3 with steps lw 2 dt 2 lc rgb blue title "the running maximum (the textbook rule)", \
         data index 1 using 1:2 with steps lw 3 lc rgb vermilion \
             title sprintf("the lazy reference m: it moves %d times after the first step", moves)

    # the weights of each step, and the running sum
    set tmargin at screen 0.48
    set bmargin at screen 0.12
    set format x "%g"
    set xlabel sprintf("key j (a step of %d keys; the grid marks stages of %d)", step, stage)
    # a linear axis: what the panel shows is a step's weights against the limit
    set ylabel "sum of the weights 2^{/=16 {/:Italic s} − {/:Italic m}}" offset 1, 0
    set yrange [*:*]; stats data index 1 using 6 nooutput   # the running sum's top: the key sits above it
    set yrange [0:STATS_max * 1.6]
    set ytics auto
    set key at graph 0.02, graph 0.98 left top noopaque maxcols 1 spacing 1.1
    set boxwidth step * 0.8
    set style fill solid 0.9 noborder
    plot data index 1 using ($1 + step / 2):($5 == 0 ? $4 : NaN) with boxes lc rgb sky \
             title "a step's weights, added in", \
         data index 1 using ($1 + step / 2):($5 == 1 ? $4 : NaN) with boxes lc rgb vermilion \
             title "over the limit: m moves, ℓ is rescaled, the step's weights are recomputed", \
         limit with lines lw 2 dt 3 lc rgb ink title sprintf("the limit, %g", limit), \
         data index 1 using ($1 + step):6 with steps lw 2 lc rgb green title "ℓ, the running sum"
    unset multiplot
    set output
}
