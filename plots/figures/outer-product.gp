# plots/figures/outer-product.gp - chapter 3: one thread's loads at one step
# k, and the 8 x 8 sums they feed (an outer product). Only the thread's own
# rows are drawn; the axes number them as the kernel does.
load 'plots/figures/style.gp'
load datadir.'/outer-product.vars.gp'
data = datadir.'/outer-product.dat'

width = 960; height = 680
u = 7.0                      # pixels per value
ux = u / width; uy = u / height
qx0 = 0.17; qx1 = qx0 + HS * ux             # the query rows, left of the sums
sx0 = qx1 + 0.012; sx1 = sx0 + patch * ux   # the sums
sy0 = 0.14; sy1 = sy0 + patch * uy
ky0 = sy1 + 0.012 * width / height; ky1 = ky0 + HS * uy   # the keys, above them
shade(now) = now != 0 ? 0xd55e00 : 0x9ecae1
# a cell is a filled square without a border, a pixel short of its neighbours
# on each axis: the white between them is the page (a stroked border would
# make each cell a group of its own in the SVG, several times the bytes)
cell = 0.5 - 0.5 / u

$swatches << EOD
0.04 0.72 0xd55e00
0.04 0.60 0x9ecae1
0.04 0.43 0x0072b2
EOD

do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set multiplot
    set tics out nomirror
    set style fill solid 1.0 noborder
    unset key

    # the thread's keys, transposed: key j across, k down
    set lmargin at screen sx0; set rmargin at screen sx1
    set bmargin at screen ky0; set tmargin at screen ky1
    set xrange [first_key - 0.5 : first_key + patch - 0.5]; set yrange [HS - 0.5 : -0.5]
    set x2range [first_key - 0.5 : first_key + patch - 0.5]
    unset xtics; set x2tics first_key, 7, first_key + patch - 1 scale 0.5
    set ytics 0, 8, HS - 1 scale 0.5
    set x2label "key j" offset 0, -0.3
    set ylabel "k" offset 1, 0
    unset xlabel
    plot data index 1 using 1:2:(cell):(cell):(shade($3)) with boxxyerror fc rgb variable
    unset x2tics; unset x2label; set xtics

    # the thread's query rows: k across, query i down
    set lmargin at screen qx0; set rmargin at screen qx1
    set bmargin at screen sy0; set tmargin at screen sy1
    set xrange [-0.5 : HS - 0.5]; set yrange [first_query + patch - 0.5 : first_query - 0.5]
    set xtics 0, 8, HS - 1 scale 0.5
    set ytics first_query, 7, first_query + patch - 1 scale 0.5
    set xlabel "k"
    set ylabel "query i" norotate offset 1, 0
    plot data index 0 using 1:2:(cell):(cell):(shade($3)) with boxxyerror fc rgb variable

    # its sums: key j across, query i down
    set lmargin at screen sx0; set rmargin at screen sx1
    set xrange [first_key - 0.5 : first_key + patch - 0.5]
    set xtics first_key, 7, first_key + patch - 1 scale 0.5
    set format y ""
    unset ylabel
    set xlabel "j"
    plot data index 2 using 1:2:(cell):(cell) with boxxyerror fc rgb blue
    set format y "%g"

    # what the colours say, in the free corner above the queries
    set lmargin at screen qx0; set rmargin at screen qx1
    set bmargin at screen ky0; set tmargin at screen ky1
    unset border; unset tics; unset xlabel; unset ylabel
    set xrange [0:1]; set yrange [0:1]
    set label 1 sprintf("thread (%d, %d) of tile (%d, %d), at step k = %d:", tx, ty, tile_row, tile_col, step) at 0.0, 0.94 left
    set label 6 sprintf("queries %d to %d, keys %d to %d", first_query, first_query + patch - 1, first_key, first_key + patch - 1) at 0.0, 0.86 left
    set label 2 sprintf("the %d + %d values it loads", patch, patch) at 0.10, 0.72 left
    set label 3 "its other values of k, loaded at other steps" at 0.10, 0.60 left
    set label 4 sprintf("its %d sums, in registers: each adds", patch * patch) at 0.10, 0.46 left
    set label 5 "the product of one query and one key value" at 0.10, 0.38 left
    plot $swatches using 1:2:(0.03):(0.025):3 with boxxyerror fc rgb variable
    unset label
    set border; set tics
    unset multiplot
    set output
}
