# plots/figures/thread-patches.gp - chapter 2: the threads of a block on the
# diagonal and the patch of scores each owns.
load 'plots/figures/style.gp'
load datadir.'/thread-patches.vars.gp'
data = datadir.'/thread-patches.dat'

width = 960; height = 600
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    # a square: 0.48 of the width, 0.77 of the height
    set lmargin at screen 0.08
    set rmargin at screen 0.56
    set tmargin at screen 0.87
    set bmargin at screen 0.10
    set xrange [0:tile]
    set yrange [tile:0]
    # threads on the bottom and left, scores of the tile on the top and right
    set xtics ("0" 4, "" 12, "2" 20, "" 28, "4" 36, "" 44, "6" 52, "" 60, "8" 68, "" 76, \
               "10" 84, "" 92, "12" 100, "" 108, "14" 116, "" 124) out scale 0.5
    set ytics ("0" 4, "" 12, "2" 20, "" 28, "4" 36, "" 44, "6" 52, "" 60, "8" 68, "" 76, \
               "10" 84, "" 92, "12" 100, "" 108, "14" 116, "" 124) out scale 0.5
    set x2tics 0, 32, tile out
    set y2tics 0, 32, tile out
    set x2range [0:tile]
    set y2range [tile:0]
    set xlabel "threadIdx.x" offset 0, 0.5
    set ylabel "threadIdx.y" offset 1, 0
    set x2label sprintf("key j - %d, in the tile", tile * tile_index) offset 0, -0.5
    set y2label sprintf("query i - %d", tile * tile_index) offset -1, 0
    unset object
    do for [row = 0:threads - 1] {
        do for [col = 0:threads - 1] {
            set object (row * threads + col + 1) rect from col * patch, row * patch \
                to (col + 1) * patch, (row + 1) * patch front fs empty border lc rgb '#666666' lw 0.6
        }
    }
    set key at screen 0.66, 0.62 left top maxcols 1 samplen 1.5 spacing 1.6 reverse Left
    set label 1 sprintf("the block of tile (%d, %d):\n%d x %d threads,\n%d x %d scores each", \
        tile_index, tile_index, threads, threads, patch, patch) at screen 0.66, 0.80 left
    plot data index 0 using 1:2 with filledcurves closed fc rgb blue fs solid 1.0 noborder, \
         data index 1 using 1:2 with filledcurves closed fc rgb orange fs solid 1.0 noborder, \
         data index 2 using 1:2 with filledcurves closed fc rgb grey fs pattern 4 noborder, \
         keyentry with boxes fc rgb blue fs solid 1.0 noborder \
             title sprintf("%d patches: all %d scores kept", whole, patch * patch), \
         keyentry with boxes fc rgb orange fs solid 1.0 noborder \
             title sprintf("%d on the diagonal: %d of %d kept", partial, partial_scores, patch * patch), \
         keyentry with boxes fc rgb grey fs pattern 4 border lc rgb grey \
             title sprintf("%d patches: every score skipped", none)
    set output
}
