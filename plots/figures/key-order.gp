# plots/figures/key-order.gp - chapter 13: the features of a key row that the
# values of lane t's B fragments stand for (score_feature), and where they
# lie in the row: one stretch per lane, read in 16-byte loads.
load 'plots/figures/style.gp'
load datadir.'/key-order.vars.gp'
data = datadir.'/key-order.dat'
if (loads != hd / 16) {
    print sprintf("key-order: lane 0 needs %d loads of 16 bytes, not %d", loads, hd / 16)
    exit status 1
}

# the lanes' colours, as in the figure of the fragments (chapter 8)
tint(t) = int(t) % 4 == 0 ? 0xcfe3f3 : int(t) % 4 == 1 ? 0xfbe3b3 : \
          int(t) % 4 == 2 ? 0xc4eadb : 0xe9d3e3
width = 960; height = 400
cell_x = 26.0 / width; cell_y = 30.0 / height
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set multiplot
    set tics out nomirror scale 0.5
    set style fill solid 1.0 border lc rgb '#ffffff'
    unset key
    unset xtics
    # the fragments: feature block kk by k = t + 4j
    x0 = 0.5 - 4 * cell_x; top = 0.78
    set lmargin at screen x0; set rmargin at screen x0 + 8 * cell_x
    set tmargin at screen top; set bmargin at screen top - blocks * cell_y
    set xrange [-0.5 : 7.5]; set x2range [-0.5 : 7.5]; set yrange [blocks - 0.5 : -0.5]
    set x2tics 0, 1 offset 0, -0.2
    set ytics 0, 1
    set x2label "k of B (lane t holds k = t and t + 4)"
    set ylabel "feature block kk"
    plot data index 0 using 1:2:(0.5):(0.5):(tint($4)) with boxxyerror fc rgb variable, \
         data index 0 using 1:2:(sprintf("%d", $3)) with labels font ',16' tc rgb ink
    # the key row in memory, frames around the 16-byte pieces
    unset x2tics; unset x2label; unset ylabel; unset ytics
    x0 = 0.5 - hd / 2 * cell_x; top = 0.32
    set lmargin at screen x0; set rmargin at screen x0 + hd * cell_x
    set tmargin at screen top; set bmargin at screen top - cell_y
    set xrange [-0.5 : hd - 0.5]; set yrange [0.5 : -0.5]
    set xtics 0, 4 out nomirror scale 0.5
    set xlabel "feature of the key row (16 bytes a frame)"
    do for [q = 0:hd / 4 - 1] {
        set object (q + 1) rectangle from 4 * q - 0.5, -0.5 to 4 * q + 3.5, 0.5 front \
            fillstyle empty border lc rgb ink lw 1.5
    }
    do for [t = 0:3] {
        set label (t + 1) sprintf("lane t = %d", t) at first 8 * t + 3.5, -1.0 center tc rgb ink
    }
    plot data index 1 using 1:(0):(0.5):(0.5):(tint($2)) with boxxyerror fc rgb variable, \
         data index 1 using 1:(0):(sprintf("%d", $1)) with labels font ',16' tc rgb ink
    unset multiplot
    set output
}
