# plots/figures/warp-sectors.gp - chapter 4: the sectors one warp
# instruction touches, chapter 3's accesses against chapter 4's.
load 'plots/figures/style.gp'
load datadir.'/warp-sectors.vars.gp'
data = datadir.'/warp-sectors.dat'

# strip i (0 at the top) holds its sectors' 8 words in rows base(i) .. base(i) + 7
band = 14
base(i) = (3 - i) * band
who_colour(who) = who == 1 ? 0x0072b2 : who == 2 ? 0xe69f00 : who == 3 ? 0xcc79a7 : 0xffffff
what(i) = value(sprintf("what%d", i))
note(i) = value(sprintf("note%d", i))
sectors(i) = value(sprintf("sectors%d", i))
useful(i) = value(sprintf("useful%d", i))

width = 960; height = 660
# half a pixel, in units of each axis (the plot spans 0.93 of the width over
# 32 sectors and 0.85 of the height over the four strips)
edge_x = 0.5 * 32 / (0.93 * width)
edge_y = 0.5 * (4 * band - 0.5) / (0.85 * height)
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.04
    set rmargin at screen 0.97
    set tmargin at screen 0.97
    set bmargin at screen 0.12
    set xrange [0:32]
    set yrange [-0.5:4 * band - 1]
    set xtics 0, 4, 32 out nomirror
    set mxtics 4
    unset ytics
    set border 1
    set xlabel "the sectors the instruction touches, in address order (32 bytes each: 8 words of 4 bytes, stacked)" offset 0, 0.3
    unset label
    do for [i = 0:3] {
        set label (2 * i + 1) sprintf("%s: %d sectors, %d of their %d bytes asked for", \
            what(i), sectors(i), useful(i), 32 * sectors(i)) at 0, base(i) + 10.6 left font ',16'
        set label (2 * i + 2) note(i) at 0, base(i) + 8.9 left font ',16' tc rgb '#444444'
    }
    set style fill solid 1.0 noborder
    set key at first 17.5, first base(0) + 7.8 left top vertical samplen 1.2 spacing 1.0 reverse Left
    # each sector a grey block, its 8 words filled on it a pixel short of each
    # other: the grey between them draws the words' edges (a stroked border
    # would make each word a group of its own in the SVG, several times the bytes)
    plot for [i = 0:3] data index i using ($1 + 0.5):($2 == 0 ? base(i) + 4 : NaN):(0.42 + edge_x):(4 + edge_y) \
             with boxxyerror fc rgb '#888888', \
         for [i = 0:3] data index i using ($1 + 0.5):(base(i) + $2 + 0.5):(0.42 - edge_x):(0.5 - edge_y):(who_colour($3)) \
             with boxxyerror fc rgb variable, \
         keyentry with boxes fc rgb blue fs solid 1.0 border lc rgb '#888888' title "lanes 0-15", \
         keyentry with boxes fc rgb orange fs solid 1.0 border lc rgb '#888888' title "lanes 16-31", \
         keyentry with boxes fc rgb purple fs solid 1.0 border lc rgb '#888888' title "lanes l and l + 16 alike (the same bytes)", \
         keyentry with boxes fc rgb '#ffffff' fs solid 1.0 border lc rgb '#888888' title "fetched, not asked for"
    set output
}
