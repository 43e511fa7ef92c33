# plots/figures/weight-stage.gp - chapter 11: a stage of the split weights in
# shared memory, core matrix by core matrix, and what one wgmma reads.
load 'plots/figures/style.gp'
load datadir.'/weight-stage.vars.gp'
data = datadir.'/weight-stage.dat'
if (places != cols * depth || !whole) {
    print sprintf("weight-stage: %d places for %d values, core matrices whole: %d", places, cols * depth, whole)
    exit status 1
}

# neighbouring core matrices in alternating tints, so that their edges show
tint(core) = (int(core) + int(core) / 8) % 2 == 0 ? 0xcfe3f3 : 0xfbe3b3
width = 960; height = 860
# a cell is a filled rectangle without a border, a pixel short of its
# neighbours on each axis (the plot spans 0.80 of the width and of the height):
# the white between them is the page (a stroked border would make each cell
# a group of its own in the SVG, several times the bytes)
cell_x = 0.5 - 0.5 * depth / (0.80 * width)
cell_y = 0.5 - 0.5 * shown / (0.80 * height)
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.12
    set rmargin at screen 0.92
    set tmargin at screen 0.90
    set bmargin at screen 0.10
    set xrange [-0.5 : depth - 0.5]
    set yrange [shown - 0.5 : -0.5]
    set x2range [-0.5 : depth - 0.5]
    unset xtics
    set x2tics 0, 4 out nomirror scale 0.5
    set ytics 0, 8 out nomirror scale 0.5
    set x2label "k (4 values, 16 bytes, per core matrix row)"
    set ylabel "column n of W (8 per core matrix)"
    set style fill solid 1.0 noborder
    # step 1 of the stage: k = 8 to 15, all the columns
    set object 1 rectangle from 7.5, -0.5 to 15.5, shown - 0.5 front fillstyle empty border lc rgb vermilion lw 3
    set label 1 "what one wgmma reads (step 1)" at 11.5, shown + 1.0 center tc rgb vermilion front
    plot data index 0 using 2:1:(cell_x):(cell_y):(tint($3)) with boxxyerror fc rgb variable, \
         data index 1 using 2:1:(sprintf("%d", $3)) with labels font ',16' tc rgb ink
    set output
}
