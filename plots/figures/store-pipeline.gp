# plots/figures/store-pipeline.gp - chapter 11: one block of tf32x3+tma-store
# step by step: how each warp sends each tile of scores (a stage and the copy
# engine, the lanes on the diagonal, nothing above it), and each tile of
# keys' slot in the ring and when thread 0 asks for it.
load 'plots/figures/style.gp'
load datadir.'/store-pipeline.vars.gp'
data = datadir.'/store-pipeline.dat'
if (lost || masked_written || unasked) {
    print sprintf("store-pipeline: %d kept scores lost, %d masked scores written, %d tiles asked too late", \
                  lost, masked_written, unasked)
    exit status 1
}

width = 800; height = 520
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.20
    set rmargin at screen 0.95
    set tmargin at screen 0.78
    set bmargin at screen 0.17
    set xrange [-0.5 : tiles - 0.5]
    set yrange [warps - 0.5 : -2.15]
    unset xtics
    set x2tics out nomirror scale 0 (sprintf("c = 0\n0-%d", keys - 1) 0)
    do for [c = 1:tiles - 1] {
        set x2tics add (sprintf("c = %d\n%d-%d", c, c * keys, c * keys + keys - 1) c)
    }
    set label 1 "tile c of keys (keys from-to), its scores sent at step c of the walk" at screen 0.575, 0.94 center tc rgb ink
    set ytics out nomirror scale 0 ("keys'\nslot" -1.4)
    do for [w = 0:warps - 1] {
        set ytics add (sprintf("warp %d: %d-%d", w, first + w * rows, first + w * rows + rows - 1) w)
    }
    set border 0
    set style fill solid 1.0 border lc rgb '#ffffff'
    set key at screen 0.20, 0.07 left center horizontal maxrows 1 samplen 1.5 reverse Left width 2
    plot data index 0 using 1:2:(0.5):(0.5):($3 == 0 ? ($4 == 0 ? 0x5b9bd5 : 0x9dc3e6) : $3 == 1 ? 0xf4a261 : 0xeeeeee) \
             with boxxyerror fc rgb variable notitle, \
         data index 0 using 1:2:($3 == 0 ? sprintf("stage %d", $4) : $3 == 1 ? "lanes" : "") \
             with labels font ',15' tc rgb ink notitle, \
         data index 1 using 1:(-1.4):(0.5):(0.68) with boxxyerror fc rgb '#d6eaf8' notitle, \
         data index 1 using 1:(-1.4):($3 < 0 ? sprintf("slot %d\nat the start", $2) \
                                              : sprintf("slot %d\nat step %d", $2, $3)) \
             with labels font ',14' tc rgb ink notitle, \
         keyentry with boxes fc rgb '#5b9bd5' title "stage 0: box stores", \
         keyentry with boxes fc rgb '#9dc3e6' title "stage 1: box stores", \
         keyentry with boxes fc rgb '#f4a261' title "the lanes (diagonal)", \
         keyentry with boxes fc rgb '#eeeeee' title "not written"
    set output
}
