# plots/figures/mma-fragments.gp - chapter 8: which lane holds which element
# of A, B and C in mma.sync.m16n8k8 (TF32).
load 'plots/figures/style.gp'
load datadir.'/mma-fragments.vars.gp'
data = datadir.'/mma-fragments.dat'

tint(lane) = int(lane) % 4 == 0 ? 0xcfe3f3 : int(lane) % 4 == 1 ? 0xfbe3b3 : \
             int(lane) % 4 == 2 ? 0xc4eadb : 0xe9d3e3
width = 960; height = 900
cell_x = 34.0 / width; cell_y = 44.0 / height   # two lines of 16-point type a cell
top = 0.88
ax0 = 0.06;  ax1 = ax0 + k * cell_x      # A: 16 x 8 (m x k)
bx0 = 0.39;  bx1 = bx0 + n * cell_x      # B: 8 x 8 (k x n)
cx0 = 0.71;  cx1 = cx0 + n * cell_x      # C: 16 x 8 (m x n)
# a cell is a filled rectangle without a border, a pixel short of its
# neighbours on each axis: the white between them is the page (a stroked
# border would make each cell a group of its own in the SVG, several times
# the bytes)
half_x = 0.5 - 0.5 / (cell_x * width); half_y = 0.5 - 0.5 / (cell_y * height)

do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set multiplot
    set tics out nomirror scale 0.5
    set style fill solid 1.0 noborder
    unset key
    set x2tics 0, 1 offset 0, -0.2
    unset xtics
    set ytics 0, 1
    panels = "A B C"
    do for [p = 1:3] {
        name = word(panels, p)
        rows = p == 2 ? k : m
        cols = p == 2 ? n : k
        x0 = p == 1 ? ax0 : p == 2 ? bx0 : cx0
        set lmargin at screen x0
        set rmargin at screen x0 + cols * cell_x
        set tmargin at screen top
        set bmargin at screen top - rows * cell_y
        set xrange [-0.5 : cols - 0.5]; set x2range [-0.5 : cols - 0.5]
        set yrange [rows - 0.5 : -0.5]
        set label 10 (p == 1 ? "A (16 x 8): row m, column k" : p == 2 ? "B (8 x 8): row k, column n" \
                           : "C (16 x 8): row m, column n") at screen x0 - 0.03, top + 0.07 left
        letter = p == 1 ? "a" : p == 2 ? "b" : "c"
        plot data index (p - 1) using 2:1:(half_x):(half_y):(tint($3)) with boxxyerror fc rgb variable, \
             data index (p - 1) using 2:($1 - 0.17):(sprintf("%d", $3)) with labels font ',16' tc rgb ink, \
             data index (p - 1) using 2:($1 + 0.25):(sprintf("%s%d", letter, $4)) with labels font ',16' tc rgb '#555555'
    }
    unset label 10
    # the colours: a lane's place in its group
    unset border; unset tics; unset x2tics
    set lmargin at screen bx0; set rmargin at screen 0.66
    set tmargin at screen 0.46; set bmargin at screen 0.22
    set xrange [0:1]; set yrange [0:1]
    unset label
    set label 1 "lane = 4 g + t, coloured by t:" at 0.0, 0.92 left
    do for [t = 0:3] {
        set label (t + 2) sprintf("t = %d", t) at 0.16, 0.72 - 0.2 * t left
    }
    plot for [t = 0:3] '+' using (0.06):(0.72 - 0.2 * t):(0.05):(0.07) every ::0::0 \
        with boxxyerror fc rgb tint(t)
    unset label
    unset multiplot
    set output
}
