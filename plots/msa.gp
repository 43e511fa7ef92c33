# plots/msa.gp - MSA gated attention (msa-chapterN: the kernels of chapters
# 1 to N only, style.gp) at each size that at least three of them ran (results.c picks them; every key kept, never the drawn mask):
# a panel per size, a bar per kernel in the story's order (the champions,
# the unfused layer and PyTorch, first; at most 8), coloured as the progress
# plots are (grey the champions, blue the book's FP32 kernels, orange its
# tensor-core ones), its time at the end of its bar. A linear axis, its
# ticks 3 to 5 round steps (a panel is narrow), no grid (no line reaches a
# bar's number).
load 'plots/style.gp'
load datadir.'/msa.vars.gp'
data = datadir.'/msa.dat'     # see style.gp
# the panels: each size (its place among them, its shape) with 3 kernels or more
stats data using 10 nooutput
array panel_place[int(STATS_max) + 1]
array shapes[int(STATS_max) + 1]
panels = 0
set print datadir.'/'.name.'.series'   # how many bars each panel has (the tests read it)
do for [q = 0:int(STATS_max)] {
    stats data using (column(10) == q && met(column(14)) ? (s = strcol(11), 1) : NaN) nooutput
    if (STATS_records >= 3) {
        panels = panels + 1; panel_place[panels] = q; shapes[panels] = s; print STATS_records
    }
}
unset print
columns = panels > 1 ? 2 : 1
rows = (panels + 1) / 2
height = 60 + rows * 290

set title font ',14'
set format x "%g"
unset grid
# a round step (1, 2 or 5 times a power of ten) that cuts 0 to TOP into 3 to 5 ticks
nice_step(top) = (p10 = 10 ** floor(log10(top / 4.0)), top / p10 <= 5 ? p10 : top / p10 <= 10 ? 2 * p10 : 5 * p10)
set ytics scale 0 font ',14'
set xtics out font ',14'   # the ticks below the axis, clear of the last bar's number
set style fill solid 0.9 noborder
set lmargin 20
set rmargin 5
panel_of(p) = column(10) == panel_place[p] && met(column(14))
# a row of another panel goes far below this one, where its name is not shown
y_in(p) = panel_of(p) ? $1 : $1 + 1000
panel_title(p) = strstrt(shapes[p], " mask=") ? shapes[p][1:strstrt(shapes[p], " mask=") - 1] : shapes[p]
# the chapters whose kernels the panels draw (the champions' aside: kinds 1 and 2)
stats data using (met(column(14)) && column(7) >= 3 && column(14) >= 1 && column(14) <= 100 && \
    sum [p = 1:panels] (panel_of(p) ? 1 : 0) > 0 ? (has_chapter[int(column(14))] = 1, 0) : 0) nooutput
eval list_chapters
msa_title = sprintf("MSA gated attention, every key kept%s: median time, ms\n%s, %s", \
    runs > 0 ? sprintf(', the champions and %s %s', chapters_word, chapter_list) : ', the champions', gpu, date)
# the kernels it shows, one a line (the tests read it)
set print datadir.'/'.name.'.kernels'
shown = ' '
stats data using (met(column(14)) && strstrt(shown, ' '.strcol(2).' ') == 0 && \
    sum [p = 1:panels] (panel_of(p) ? 1 : 0) > 0 ? (shown = shown . strcol(2) . ' ', 0) : 0) nooutput
do for [i = 1:words(shown)] { print word(shown, i) }
unset print

draw = "set multiplot layout rows, columns title msa_title font ',15'; " . \
       "do for [p = 1:panels] { " . \
       "  set xrange [*:*]; set yrange [*:*]; " . \
       "  stats data using (panel_of(p) ? $4 : NaN) nooutput; " . \
       "  set xrange [0 : STATS_max * 1.3]; set xtics 0, nice_step(STATS_max * 1.3); " . \
       "  set yrange [STATS_records - 0.5 : -0.5]; " . \
       "  set title panel_title(p); " . \
       "  plot data using 4:(y_in(p)):(0):4:(y_in(p) - 0.36):(y_in(p) + 0.36):" . \
       "(kind_colour($7)):ytic(2) with boxxyerror lc rgb variable, " . \
       "  data using 4:(y_in(p)):(sprintf(' %.3g', $4)) with labels left font ',14' " . \
       "}; unset multiplot"

# the caption the book shows under the plot
set print caption
print sprintf("MSA gated attention with every key kept, a panel per size that three or more kernels were measured at%s: each kernel's median time (linear scale: a bar half as long is twice as fast). In grey the champions, the unfused layer and PyTorch eager and compiled (dark: FP32, light: TF32); in blue the book's FP32 kernels, in orange its tensor-core ones. Measured on the %s, %s.", \
    runs > 0 ? sprintf(' (the champions and the kernels of %s %s)', chapters_word, chapter_list) : ' (the champions)', gpu, date)
unset print

eval draw_both
