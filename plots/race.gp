# plots/race.gp - a race chart: each kernel's speedup over the strongest
# champion (the fastest champion's median time over the kernel's), a bar a
# kernel in the story's order, on a linear axis, longer is faster; its
# speedup and its time printed on its row in a column right of the plot,
# where no line reaches (the floors and the grid end at the plot's edge);
# the floors of the pipes met so far as lines drawn behind the bars (the
# time the dense work takes at the pipe's peak, as a speedup).
#
#   race-chapterN    chapter N's chart: the kernels of chapters 1 to N only,
#                    at the size results.c picked (race-chapterN.vars.gp:
#                    problem, upto, race_shape, tensor_met), the FP32 floor,
#                    and the TF32 and memory floors once a chapter's own
#                    kernel has run on the tensor cores
#   progress-PROBLEM the closing chapter's chart (plots/progress.gp loads this
#                    script): the champions and each chapter's best kernel
#                    (the list's `best`, its steps left to the chapters'
#                    charts, so that it repeats none of them), each named
#                    with its chapter, at the default size, and the three
#                    floors (FP32, dense TF32, the compulsory bytes at the
#                    card's memory bandwidth)
# The bars drawn are written to build/plots/NAME.bars (place, speedup, ms,
# kind, chapter, kernel): the tests read which kernels a chart shows.
load 'plots/style.gp'
peak_mode = name eq 'peak'             # plots/peak.gp: shares of the FP32 peak
closing = strstrt(name, 'progress-') == 1 || peak_mode
if (closing) { problem = peak_mode ? 'trimul' : name[10:] } else { load datadir.'/'.name.'.vars.gp' }
load datadir.'/'.problem.'.vars.gp'    # gpu date shape title champions fp32_tflops tensor_tflops memory_tbs peaks_from
if (closing) { upto = 1000; race_shape = shape; tensor_met = 1 }
data = datadir.'/'.problem.'.dat'      # see style.gp; column 14 the kernel's chapter
progress_mode = closing && !peak_mode  # progress-PROBLEM: no steps (role 1), only each chapter's best
ours(row) = strcol(11) eq race_shape && column(14) <= upto && !(progress_mode && column(8) == 1)   # row: unused
here(value) = ours(0) ? value : NaN

# the bars, in the story's order
array bar_name[64]
array bar_ms[64]
array bar_kind[64]
array bar_chapter[64]
bars = 0
add_bar(kernel, ms, kind, chapter) = bars < 64 ? (bars = bars + 1, bar_name[bars] = kernel, \
    bar_ms[bars] = ms, bar_kind[bars] = kind, bar_chapter[bars] = chapter, 0) : 0
stats data using (ours(0) ? add_bar(strcol(2), $4, column(7), column(14)) : 0) nooutput
# the strongest champion: the fastest of the champions (PyTorch's too) met so far
strongest = ''
strongest_ms = 1e30
stats data using (ours(0) && (column(8) == 0 || column(8) == 4) && $4 < strongest_ms ? \
    (strongest_ms = $4, strongest = strcol(2), 0) : 0) nooutput
stats data using (here($12 * $4 / 1000)) nooutput
work = STATS_mean                 # GFLOP
stats data using (here($13 * $4 / 1000)) nooutput
traffic = STATS_mean              # GB

# the floors: name, ms, colour, dash
array floor_name[3]
array floor_ms[3]
array floor_colour[3] = ['#1f4f8a', '#b35f0f', '#2e7d4f']
array floor_dash[3] = [2, 4, 3]
floor_name[1] = 'FP32 floor'; floor_ms[1] = fp32_tflops > 0 ? work / fp32_tflops : NaN   # GFLOP / TFLOP/s = ms
floor_name[2] = 'TF32 floor'; floor_ms[2] = tensor_met && tensor_tflops > 0 ? work / tensor_tflops : NaN
# the memory floor once the tensor cores have made the arithmetic cheap
# (the chapters from 8 on): from there the bytes are what bind
memory_met = closing || tensor_met
floor_name[3] = 'memory floor'; floor_ms[3] = memory_met ? traffic / memory_tbs : NaN   # GB / TB/s = ms

# a bar's length: its speedup over the strongest champion or, for peak, its
# useful rate as a share of the FP32 peak (the FP32 floor's time over its
# own): either way the faster kernel has the longer bar
speedup(ms) = peak_mode ? 100 * floor_ms[1] / ms : strongest_ms / ms
if (peak_mode) { floor_name[1] = 'FP32 peak'; floor_name[2] = 'TF32 tensor peak'; floor_name[3] = 'memory floor' }
widest = 0
do for [i = 1:bars] { widest = speedup(bar_ms[i]) > widest ? speedup(bar_ms[i]) : widest }
# A floor within 2.5 times the longest bar is a line across the bars, drawn
# behind them (the axis reaches it); one further off would squeeze every bar
# into a corner, so it is named in the key with its speedup, off the scale.
off_scale = 2.5 * widest
array floor_on[3]
do for [f = 1:3] {
    floor_on[f] = floor_ms[f] == floor_ms[f] && speedup(floor_ms[f]) <= off_scale
    if (floor_on[f]) {
        widest = speedup(floor_ms[f]) > widest ? speedup(floor_ms[f]) : widest
        set arrow f from first speedup(floor_ms[f]), graph 0 to first speedup(floor_ms[f]), graph 1 \
            nohead back lw 2 dt floor_dash[f] lc rgb floor_colour[f]
    }
}
times(x) = peak_mode ? sprintf('%.1f%%', x) : sprintf(x >= 0.1 ? '%.2f×' : '%.3f×', x)

set print datadir.'/'.name.'.bars'
# (and, last, the bar's name on the chart: in the closing chapter's, a kernel
# of the book's with its chapter)
do for [i = 1:bars] { print sprintf('%d %.6g %.6g %d %d "%s" "%s"', i, speedup(bar_ms[i]), bar_ms[i], \
    bar_kind[i], bar_chapter[i], bar_name[i], \
    progress_mode && bar_kind[i] >= 3 ? sprintf('%s (ch. %d)', bar_name[i], bar_chapter[i]) : bar_name[i]) }
set print datadir.'/'.name.'.kernels'   # the kernels it shows, one a line (the tests read it)
do for [i = 1:bars] { print bar_name[i] }
unset print
bars_file = datadir.'/'.name.'.bars'

chart_title = progress_mode ? title . ", each chapter's best" : closing ? title : sprintf('%s after chapter %d', title, upto)
measure = peak_mode ? sprintf('useful GFLOP/s as %% of the FP32 peak (%.1f TFLOP/s)', fp32_tflops) : \
    sprintf('speedup over %s', strongest)
set title sprintf("%s: %s\nat %s, %s, %s", chart_title, measure, race_shape, gpu, date)
set xlabel measure . ' (longer is faster)'
# the key under the plot, an entry a row (the plot is too narrow for two of
# its longest), its rows counted (the kinds of bar, the floors) to place it:
# the plot's foot leaves room for the ticks, the axis's title and, a line
# below it, the key
key_rows = 2 + (upto > 1) + (tensor_met != 0)
do for [f = 1:3] { key_rows = key_rows + (floor_ms[f] == floor_ms[f]) }
foot = 100 + 22 * key_rows    # px: ticks, the axis's title, a gap, the key
height = 95 + 30 * bars + foot
set tmargin at screen 1 - 85.0 / height
set bmargin at screen 1.0 * foot / height
set yrange [bars + 0.6 : 0.4]
set xrange [0 : widest * 1.04]
set ytics scale 0 font ',14'
set xtics font ',14'
unset grid
set grid xtics back lc rgb '#e3e3e3' lw 1
set rmargin 20       # room for the column of numbers
set style fill solid 0.9 noborder
# the key under the axis's title
set key at screen 0.5, screen (22.0 * key_rows + 14) / height center top vertical maxcols 1 \
    samplen 2.5 font ',14'
# each bar's speedup and time on its row, right of the plot: a label outside
# the plot is not clipped, and no line of the plot reaches it
do for [i = 1:bars] {
    set label 100 + i sprintf('%s (%.3g ms)', times(speedup(bar_ms[i])), bar_ms[i]) \
        at graph 1, first i offset char 1, 0 left font ',14' front
}

# chapter 1 races the champions alone: no kernel of the book to name in the key
key_of_kinds = sprintf("NaN with boxes lc rgb '#5f6570' title '%s, FP32', " . \
    "NaN with boxes lc rgb '#b4b8bf' title '%s, TF32'", champions, champions) . \
    (upto > 1 ? ", NaN with boxes lc rgb '#1f6fb2' title 'this book, FP32'" : "") . \
    (tensor_met ? ", NaN with boxes lc rgb '#d9822b' title 'this book, tensor cores'" : "")
key_of_floors = ''
do for [f = 1:3] {
    if (floor_ms[f] == floor_ms[f]) {
        key_of_floors = key_of_floors . sprintf(", NaN with lines lw 2 dt %d lc rgb '%s' title '%s %s'", \
            floor_dash[f], floor_colour[f], floor_name[f], floor_on[f] ? times(speedup(floor_ms[f])) : \
            sprintf('%s, off the scale', times(speedup(floor_ms[f]))))
    }
}
draw = "plot bars_file using (0):1:(0):2:($1 - 0.36):($1 + 0.36):(kind_colour($4)):ytic(7) " . \
       "with boxxyerror lc rgb variable, " . \
       key_of_kinds . key_of_floors

# the chapters whose kernels the bars show (the champions' aside), as the
# caption names them: "chapter 6", "chapters 2 to 5, 8 and 9" (style.gp)
do for [i = 1:bars] { if (bar_kind[i] >= 3 && bar_chapter[i] >= 1 && bar_chapter[i] <= 100) { has_chapter[bar_chapter[i]] = 1 } }
eval list_chapters
shown_kernels = runs == 0 ? 'the champions alone' : \
    progress_mode ? sprintf("the champions and the best kernel of each of chapters %s (their steps are in the chapters' own charts)", chapter_list) : \
    sprintf('the champions and %s%s %s%s', closing ? 'every kernel of the book (' : 'the kernels of ', \
            chapters_word, chapter_list, closing ? ')' : '')

# the caption the book shows under the plot
floor_text(f) = floor_ms[f] == floor_ms[f] ? sprintf(", %s %.3g ms (%s%s)", floor_name[f], floor_ms[f], \
    times(speedup(floor_ms[f])), floor_on[f] ? '' : ', off the scale of the bars') : ''
set print caption
if (peak_mode) {
    print sprintf("Each kernel of the triangle at %s as a share of one peak, the FP32 peak (%.1f TFLOP/s): its useful GFLOP/s (the dense work, %.3g GFLOP, over its median time) over that peak, so that the faster kernel always has the longer bar, whichever pipe it runs on. The lines are the peaks of both pipes, FP32 at 100%% and the dense TF32 tensor peak (%.1f TFLOP/s) at %s, and the memory floor (the compulsory bytes, %.3g GB, at the memory bandwidth) at %s; peaks and bandwidth derived from %s. Measured on the %s, %s.", \
        race_shape, fp32_tflops, work, tensor_tflops, times(speedup(floor_ms[2])) . (floor_on[2] ? '' : ', off the scale of the bars'), \
        traffic, floor_ms[3] == floor_ms[3] ? times(speedup(floor_ms[3])) . (floor_on[3] ? '' : ', off the scale of the bars') : 'no share (bandwidth not known for this card)', peaks_from, gpu, date)
} else {
    print sprintf("%s at %s: %s, as a speedup over the strongest champion met so far, %s (%.3g ms; longer is faster), each kernel's speedup and median time on its row, right of the plot. The lines are the floors no kernel can pass: the dense work, %.3g GFLOP, at the FP32 peak (%.1f TFLOP/s)%s%s: %s. Measured on the %s, %s.", \
        chart_title, race_shape, shown_kernels, \
        strongest, strongest_ms, work, fp32_tflops, \
        tensor_met ? sprintf(" and at the dense TF32 tensor peak (%.1f TFLOP/s)", tensor_tflops) : "", \
        memory_met ? sprintf("; the compulsory bytes, %.3g GB (inputs read once, outputs written once), at the memory bandwidth%s", \
            traffic, memory_tbs == memory_tbs ? sprintf(" (%.2f TB/s)", memory_tbs) : " (not known for this card: no memory floor)") : "", \
        (floor_text(1) . floor_text(2) . floor_text(3))[3:] . (strlen(peaks_from) ? sprintf("; peaks and bandwidth derived from %s", peaks_from) : ""), \
        gpu, date)
}
unset print

eval draw_both
