# plots/figures/tf32-split.gp - chapter 9: a float, its TF32 big part and
# its residual, bit by bit, for two floats.
load 'plots/figures/style.gp'
load datadir.'/tf32-split.vars.gp'
data = datadir.'/tf32-split.dat'

# kinds: 0 sign, 1 exponent, 2 a mantissa bit kept, 3 zero (left to the
# residual), 4 lost (the tensor core drops it)
fill(kind) = kind == 0 ? 0xd9d9d9 : kind == 1 ? 0xbfdcef : kind == 2 ? 0x8fc1e3 : \
             kind == 3 ? 0xffffff : 0xf3b48b
row_y(row) = row < 3 ? 7 - row : 7.4 - row    # rows 0-2 and 4-6, a gap between the floats

width = 960; height = 560
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.22
    set rmargin at screen 0.78
    set tmargin at screen 0.86
    set bmargin at screen 0.20
    set xrange [-0.5:31.5]
    set yrange [0.4:7.6]
    unset border
    set x2tics ("31" 0, "23" 8, "13" 18, "0" 31) out nomirror scale 0.4 font ',16' offset 0, -0.3
    set x2range [-0.5:31.5]
    unset xtics; unset ytics
    unset label
    set label 1 "sign" at first 0, graph 1.11 center font ',16'
    set label 2 "exponent" at first 4.5, graph 1.11 center font ',16'
    set label 3 "10 bits TF32 keeps" at first 13.5, graph 1.11 center font ',16'
    set label 4 sprintf("%d low bits it drops", dropped) at first 25.5, graph 1.11 center font ',16'
    do for [c = 0:1] {
        r0 = 4 * c
        x_text = value(sprintf("x%d", c))
        set label (10 + 10 * c) (c == 0 ? "the first input x" : "x = 1/3") \
            at screen 0.21, first row_y(r0) right
        set label (11 + 10 * c) "big = tf32(x)" at screen 0.21, first row_y(r0 + 1) right
        set label (12 + 10 * c) "small = x - big" at screen 0.21, first row_y(r0 + 2) right
        set label (13 + 10 * c) value(sprintf("x%d", c)) at screen 0.79, first row_y(r0) left
        set label (14 + 10 * c) value(sprintf("big%d", c)) at screen 0.79, first row_y(r0 + 1) left
        set label (15 + 10 * c) value(sprintf("small%d", c)) at screen 0.79, first row_y(r0 + 2) left
        set label (16 + 10 * c) sprintf("lost: %s", value(sprintf("lost%d", c))) \
            at screen 0.79, first row_y(r0 + 2) - 0.55 left font ',16' tc rgb '#8a3b12'
    }
    set style fill solid 1.0 border lc rgb '#777777'
    set key at screen 0.22, 0.07 left center horizontal samplen 1.2 width 1 reverse Left
    plot data using 1:(row_y($2)):(0.5):(0.42):(fill($4)) with boxxyerror fc rgb variable, \
         data using 1:(row_y($2)):(sprintf("%d", $3)) with labels font ',16' tc rgb ink, \
         keyentry with boxes fc rgb '#8fc1e3' title "kept", \
         keyentry with boxes fc rgb '#ffffff' title "0: left to the residual", \
         keyentry with boxes fc rgb '#f3b48b' title "dropped by the tensor core"
    set output
}
