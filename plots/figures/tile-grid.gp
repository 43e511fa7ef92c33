# plots/figures/tile-grid.gp - chapter 1: the grid of tiles over one head's
# scores, which blocks have work, and the launch that numbers the triangle.
load 'plots/figures/style.gp'
load datadir.'/tile-grid.vars.gp'
data = datadir.'/tile-grid.dat'

width = 960; height = 560
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set multiplot
    set size ratio -1
    set xrange [0:T]
    set yrange [T:0]
    set xtics 0, 2 * tile, T out
    set ytics 0, 2 * tile, T out
    set mxtics 2
    set mytics 2
    set xtics offset 0, 0.3
    set x2tics offset 0, -0.3
    unset x2tics
    set xlabel "key j" offset 0, 0.8
    set ylabel "query i" offset 1.2, 0
    # every tile's outline, over the fills
    unset object
    do for [row = 0:tiles - 1] {
        do for [col = 0:tiles - 1] {
            set object (row * tiles + col + 1) rect from col * tile, row * tile \
                to (col + 1) * tile, (row + 1) * tile front fs empty border lc rgb '#666666' lw 0.8
        }
    }

    # (a) which blocks have work
    set lmargin at screen 0.10
    set rmargin at screen 0.47
    set tmargin at screen 0.90
    set bmargin at screen 0.30
    set title "(a) a block per tile" offset 0, -0.5
    set key at screen 0.05, 0.10 left center horizontal maxcols 1 maxrows 3 samplen 1.5 spacing 1.1 reverse Left
    plot data index 0 using 1:2 with filledcurves closed fc rgb blue fs solid 1.0 noborder, \
         data index 1 using 1:2 with filledcurves closed fc rgb orange fs solid 1.0 noborder, \
         data index 2 using 1:2 with filledcurves closed fc rgb grey fs pattern 4 border lc rgb grey, \
         keyentry with boxes fc rgb blue fs solid 1.0 noborder \
             title sprintf("%d whole tiles: every score kept", full), \
         keyentry with boxes fc rgb orange fs solid 1.0 noborder \
             title sprintf("%d on the diagonal: scores j <= i kept, the rest skipped", partial), \
         keyentry with boxes fc rgb grey fs pattern 4 border lc rgb grey \
             title sprintf("%d above the diagonal: the block returns at once", returning)

    # (b) the triangle alone, numbered row by row
    set lmargin at screen 0.57
    set rmargin at screen 0.95
    set title sprintf("(b) %d blocks, numbered row by row", launched)
    unset key
    unset ylabel
    set ylabel "query i" offset 1.2, 0
    set style fill solid 1.0 border lc rgb '#ffffff'
    unset object
    plot data index 3 using 1:2:(tile / 2):(tile / 2):(int($4) % 2 == 0 ? 0xcfe3f1 : 0x8fbfe0) \
             with boxxyerror fc rgb variable, \
         data index 3 using 1:2:(sprintf("%d", $3)) with labels font ',16' tc rgb ink
    unset multiplot
    set output
}
