# plots/figures/swizzled-box.gp - chapter 11: a box of X in shared memory,
# swizzled, and the pieces one fragment load of a warp reads.
load 'plots/figures/style.gp'
load datadir.'/swizzled-box.vars.gp'
data = datadir.'/swizzled-box.dat'
if (places != floats) {
    print sprintf("swizzled-box: %d places for %d floats", places, floats)
    exit status 1
}

# one tint per piece of k, so that a piece's wandering shows down the rows
tint(piece) = word("0xcfe3f3 0xfbe3b3 0xcdeee2 0xf6d0c0 0xdcebf8 0xecd5e3 0xf7f1b5 0xe2e2e2", int(piece) + 1) + 0
width = 900; height = 900
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.13
    set rmargin at screen 0.93
    set tmargin at screen 0.90
    set bmargin at screen 0.12
    set xrange [-0.5 : pieces - 0.5]
    set yrange [shown - 0.5 : -0.5]
    set x2range [-0.5 : pieces - 0.5]
    unset xtics
    set x2tics 0, 1 out nomirror scale 0.5
    set ytics 0, 4 out nomirror scale 0.5
    set x2label "place in the row: 16 bytes, banks 4p to 4p + 3"
    set ylabel "row of the box (128 bytes each)"
    set style fill solid 1.0 border lc rgb '#ffffff'
    set label 1 sprintf("framed: one load, %d banks, %d lane%s a bank", banks, ways, ways == 1 ? "" : "s") \
        at (pieces - 1) / 2.0, shown + 0.9 center tc rgb vermilion front
    plot data index 0 using 2:1:(0.5):(0.5):(tint($3)) with boxxyerror fc rgb variable, \
         data index 0 using 2:1:(sprintf("%d", $3)) with labels font ',16' tc rgb ink, \
         data index 1 using 2:1:(0.46):(0.46) with boxxyerror lc rgb vermilion lw 3 fs empty border lc rgb vermilion
    set output
}
