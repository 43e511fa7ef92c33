# plots/figures/gemm-pipeline.gp - chapter 11: the ring of the copy-engine
# GEMM through a block's first stages, a row per buffer: each stage's copy in
# flight, its full wait, its multiplication, the empty barrier's completion
# and the refill it lets thread 0 start.
load 'plots/figures/style.gp'
load datadir.'/gemm-pipeline.vars.gp'
data = datadir.'/gemm-pipeline.dat'
if (races || deadlocks || wrong_full || uncopied) {
    print sprintf("gemm-pipeline: %d races, %d deadlocks, %d wrong full waits, %d stages never copied", \
                  races, deadlocks, wrong_full, uncopied)
    exit status 1
}

# No point symbols (with points): the book's PDF engine, WeasyPrint, fails on
# the nested <use> of gnuplot's SVG markers; circles and arrows draw the
# marks instead. The key is placed by its left edge: in a centred key with
# long titles gnuplot's SVG puts a circle's sample off the canvas; and it
# has no box, which gnuplot's SVG would make wider than the titles.
band = 0.22                 # half the height of a buffer's row of boxes
copy_fill = '#d6eaf8'       # a copy in flight: sky, lightened
width = 960; height = 660
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.115
    set rmargin at screen 0.955
    set tmargin at screen 0.87
    set bmargin at screen 0.33
    set xrange [-1 : stages + 0.15]   # room for the last completion
    set x2range [-1 : stages + 0.15]
    set yrange [buffers - 0.45 : -0.62]
    # the slots' edges as ticks on both axes, out (a line across the rows
    # would run through the labels: no grid)
    set xtics out nomirror scale 0.75 format "" 0, 1, stages
    set x2tics out nomirror scale 0 ("before\nthe loop" -0.5)
    do for [s = 0:stages - 1] { set x2tics add (sprintf("%d", s) s + 0.5) }
    do for [s = 0:stages] {
        set arrow (s + 1) from first s, graph 1 to first s, screen 0.87 + 6.0 / height nohead lc rgb 'black' lw 1.2
    }
    set x2label "slot s: iteration s of the loop, which multiplies stage s (a slot per stage)" offset 0, -0.3
    set ytics out nomirror scale 0 ("buffer 0" 0)
    do for [b = 1:buffers - 1] { set ytics add (sprintf("buffer %d", b) b) }
    # the shaded slot: one stage multiplied, the others in flight
    set object 1 rectangle from shown, graph 0 to shown + 1, graph 1 behind \
        fillcolor rgb '#fbe8bd' fillstyle solid 1.0 noborder
    set label 1 note at graph 0.5, graph 0 offset 0, -1.1 center tc rgb ink front
    set key at screen 0.095, screen 0.25 left top maxcols 1 samplen 2 spacing 1.15 reverse Left nobox
    set style fill solid 1.0 border lc rgb '#ffffff'
    plot data index 0 using (($3 + $4) / 2.0):2:(($4 - $3) / 2.0):(band) with boxxyerror \
             fc rgb copy_fill fs solid 1.0 border lc rgb sky lw 1.5, \
         data index 0 using (($3 + $4) / 2.0):2:(sprintf("copy %d", $1)) with labels \
             font ',16' tc rgb ink, \
         data index 0 using ($4 + 0.5):2:(0.5):(band) with boxxyerror \
             fc rgb blue fs solid 1.0 border lc rgb '#ffffff' lw 1.5, \
         data index 0 using ($4 + 0.47):2:(sprintf("stage %d", $1)) with labels \
             font ',16' tc rgb '#ffffff', \
         data index 0 using 4:($2 - band - 0.15):(0):(0.14) with vectors \
             head filled size 0.1, 30 lw 2 lc rgb ink, \
         data index 0 using 4:($2 - band - 0.24):(sprintf("full %d", $5)) with labels \
             font ',16' tc rgb ink, \
         data index 1 using 3:2:($5 >= 0 ? $6 - $3 - 0.04 : NaN):(0) with vectors \
             head filled size 0.12, 25 lw 2.5 lc rgb vermilion, \
         data index 1 using (($3 + $6) / 2.0):($5 >= 0 ? $2 - band - 0.24 : NaN):(sprintf("empty %d", $7)) \
             with labels font ',16' tc rgb vermilion, \
         data index 1 using 3:2:(0.075) with circles fc rgb vermilion fs solid 1.0 noborder, \
         keyentry with boxes fc rgb copy_fill fs solid 1.0 border lc rgb sky \
             title "copy N: stage N's copies in flight, issued by thread 0, landed by the copy engine", \
         keyentry with boxes fc rgb blue fs solid 1.0 noborder \
             title "stage N: multiplied by both warp groups", \
         keyentry with vectors head filled size 0.1, 30 lw 2 lc rgb ink \
             title "full p: the warp groups' wait on the buffer's full barrier, with parity p", \
         keyentry with circles fc rgb vermilion fs solid 1.0 noborder \
             title "the 8 warps' arrivals complete the buffer's empty barrier", \
         keyentry with lines lw 2.5 lc rgb vermilion \
             title "empty p: then thread 0's wait on it, with parity p, passes, and it refills the buffer"
    set output
}
