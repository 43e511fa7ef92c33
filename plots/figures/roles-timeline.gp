# plots/figures/roles-timeline.gp - chapter 12: one block of tf32+roles over
# time, a row per buffer and role: the loader's copies into the query
# buffers and the ring's slots (in flight, then held until both groups'
# products are over), each consumer group's products and the scores it
# sends (into a stage, or by the lanes), the storer's box stores in flight
# from each stage. Refuses to draw a schedule the model found a race, a
# deadlock or a lost or masked-written score in.
load 'plots/figures/style.gp'
load datadir.'/roles-timeline.vars.gp'
data = datadir.'/roles-timeline.dat'
if (races || deadlocks || unsent || lost || masked_written || repeated) {
    print sprintf("roles-timeline: %d races, %d deadlocks, %d staged tiles never stored, %d kept scores lost, %d masked scores written, %d rows walked twice", \
                  races, deadlocks, unsent, lost, masked_written, repeated)
    exit status 1
}

# Rows of the figure, as the program numbers them: the query buffers, the
# slots, then a pair of rows a group (products, scores out), then the stages.
y_slot = query_buffers
y_products = y_slot + slots
y_stage = y_products + 2 * groups
rows = y_stage + groups * stages
band = 0.36
held_band = 0.13
copy_fill = '#d6eaf8'
held_fill = '#9ecae1'
stage_fill(s) = s == 0 ? blue : '#5fa8d3'
tile(r, c) = sprintf("%d.%d", r, c)
width = 800; height = 700
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.215
    set rmargin at screen 0.98
    set tmargin at screen 0.90
    set bmargin at screen 0.27
    set xrange [-0.2 : end + 0.4]
    set yrange [rows - 0.5 : -0.5]
    # the steps as ticks on both edges, out: a line across the rows would run
    # through the tiles' labels (no grid)
    set xtics out mirror 0, 2
    set mxtics 2
    set xlabel sprintf("time: steps of the model (products of a tile: %d), not measured", product) offset 0, 0.3
    set ytics out nomirror scale 0 ("loader: queries 0" 0)
    do for [q = 1:query_buffers - 1] { set ytics add (sprintf("loader: queries %d", q) q) }
    do for [s = 0:slots - 1] { set ytics add (sprintf("loader: keys %d", s) y_slot + s) }
    do for [g = 0:groups - 1] {
        set ytics add (sprintf("group %d: products", g) y_products + 2 * g)
        set ytics add (sprintf("group %d: scores", g) y_products + 2 * g + 1)
    }
    do for [g = 0:groups - 1] {
        do for [s = 0:stages - 1] {
            set ytics add (sprintf("storer: g%d, stage %d", g, s) y_stage + g * stages + s)
        }
    }
    # the roles' bands, behind
    set object 1 rectangle from graph 0, first y_slot + slots - 0.5 to graph 1, first y_products + 2 * groups - 0.5 \
        behind fillcolor rgb '#f4f4f4' fillstyle solid 1.0 noborder
    set label 1 sprintf("block 0: row %d (%d tiles), then row %d (%d); r.c: tile c of row r", \
        long_row, long_tiles, short_row, short_tiles) at screen 0.62, screen 0.955 center tc rgb ink
    set key at screen 0.03, screen 0.135 left top vertical maxrows 3 samplen 1.5 spacing 1.15 reverse Left width -3 nobox font ',13'
    set style fill solid 1.0 border lc rgb '#ffffff'
    plot data index 1 using (($2 + $3) / 2.0):1:(($3 - $2) / 2.0):(held_band) with boxxyerror \
             fc rgb held_fill fs solid 1.0 noborder, \
         data index 0 using (($2 + $3) / 2.0):1:(($3 - $2) / 2.0):(band) with boxxyerror \
             fc rgb copy_fill fs solid 1.0 border lc rgb sky lw 1.5, \
         data index 0 using (($2 + $3) / 2.0):1:($5 < 0 ? sprintf("row %d", $4) : tile($4, $5)) \
             with labels font ',13' tc rgb ink, \
         data index 2 using (($2 + $3) / 2.0):1:(($3 - $2) / 2.0):(band) with boxxyerror \
             fc rgb green fs solid 1.0 border lc rgb '#ffffff' lw 1.5, \
         data index 2 using (($2 + $3) / 2.0):1:(tile($4, $5)) with labels font ',13' tc rgb '#ffffff', \
         data index 3 using (($2 + $3) / 2.0):1:(($3 - $2) / 2.0):(band):($4 == 1 ? 0xe69f00 : $5 == 0 ? 0x0072b2 : 0x5fa8d3) \
             with boxxyerror fc rgb variable fs solid 1.0 border lc rgb '#ffffff' lw 1.5, \
         data index 3 using (($2 + $3) / 2.0):1:(tile($6, $7)) with labels font ',13' tc rgb '#ffffff', \
         data index 4 using (($2 + $3) / 2.0):1:(($3 - $2) / 2.0):(band) with boxxyerror \
             fc rgb '#fbe0c8' fs solid 1.0 border lc rgb vermilion lw 1.5, \
         data index 4 using (($2 + $3) / 2.0):1:(tile($4, $5)) with labels font ',13' tc rgb ink, \
         keyentry with boxes fc rgb copy_fill fs solid 1.0 border lc rgb sky \
             title "copy in flight, loader to landing (full)", \
         keyentry with boxes fc rgb held_fill fs solid 1.0 noborder \
             title "buffer held until both groups are done (empty)", \
         keyentry with boxes fc rgb green fs solid 1.0 noborder \
             title "a group's products of a tile", \
         keyentry with boxes fc rgb blue fs solid 1.0 noborder \
             title "scores into stage 0 (stage 1 lighter)", \
         keyentry with boxes fc rgb orange fs solid 1.0 noborder \
             title "diagonal: the lanes write the kept ones", \
         keyentry with boxes fc rgb '#fbe0c8' fs solid 1.0 border lc rgb vermilion \
             title "box stores until the engine read the stage"
    set output
}
