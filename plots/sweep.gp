# plots/sweep.gp - the triangle's time against the sequence length T at
# B=8 C=768 NH=12 (the sizes make bench sweeps): each chapter's best kernel
# (sweep-chapterN: of chapters 1 to N only, style.gp)
# and the fastest champion of each pipe, the champions dashed; at most 8
# lines, the earliest chapters' bests left out first. Log-log: the work of the causal triangle
# grows as T squared, so every kernel is near a line of slope 2 once the GPU
# is full.
load 'plots/style.gp'
load datadir.'/trimul.vars.gp'
data = datadir.'/trimul.dat'  # see style.gp
fixed = 'B=8 C=768 NH=12'
swept(s) = strstrt(s, 'B=8 T=') == 1 && strstrt(s, ' C=768 NH=12') == strlen(s) - 11
# the lines: each chapter's best (role 2) and, of each pipe's champions
# (kinds 1 and 2), the fastest at the default size
array fastest[2] = [1e30, 1e30]
array champion[2] = ['', '']
stats data using (strcol(11) eq shape && column(7) <= 2 && met(column(14)) && $4 < fastest[column(7)] ? \
    (fastest[column(7)] = $4, champion[column(7)] = strcol(2), 0) : 0) nooutput
champions = ''
bests = ''
stats data using (strcol(11) eq shape && met(column(14)) && \
    (strcol(2) eq champion[1] || strcol(2) eq champion[2]) ? (champions = champions . ' ' . strcol(2), 0) : \
    strcol(11) eq shape && met(column(14)) && column(8) == 2 ? (bests = bests . ' ' . strcol(2), 0) : 0) nooutput
# at most 8 lines: past that, the earliest chapters' bests give way
room = 8 - words(champions)
kernels = champions
do for [i = (words(bests) > room ? words(bests) - room + 1 : 1) : words(bests)] {
    kernels = kernels . ' ' . word(bests, i)
}
count = words(kernels)
set print datadir.'/'.name.'.series'   # how many lines (the tests read it)
print count
set print datadir.'/'.name.'.kernels'   # the kernels it shows, one a line
do for [i = 1:count] { print word(kernels, i) }
unset print

set title sprintf("Time against T, triangle at %s\n%s, %s", fixed, gpu, date)
set xlabel "sequence length T (log scale)"
set ylabel "median time, ms (log scale)"
set logscale x 2
set logscale y 10
set format x "%g"
set format y "%g"
set xtics 1, 2    # a tic at each power of two: the sizes make bench sweeps
set mxtics 1
set grid xtics ytics lc rgb '#e3e3e3'
set key outside bottom center horizontal maxrows 3 samplen 3   # below the plot: the lines get its whole width
set bmargin 8   # room for the key under the axis label
height = 640    # and for the plot above it: 520 as every plot, plus the key
set offsets graph 0.04, graph 0.04, 0, 0

# kernel i's time on its rows; the others' are missing, and a line skips them
of(i, value) = strcol(2) eq word(kernels, i) && swept(strcol(11)) ? value : NaN
# Each line its own colour and dash (the champions' dashes long). The dots
# are circles, not gnuplot's point symbols, which weasyprint (the PDF)
# cannot draw from gnuplot's SVG.
dash(i) = strstrt(word(kernels, i), "cublas") == 1 ? (i % 2 ? 2 : 4) : (i % 2 ? 1 : 5)
set style circle radius screen 0.0045
set style fill solid noborder
draw = "plot for [i=1:count] data using 3:(of(i, $4)) with lines lw 2.2 " . \
       "dt dash(i) lc rgb series_colour(i) title word(kernels, i), " . \
       "for [i=1:count] data using 3:(of(i, $4)) with circles lc rgb series_colour(i) notitle"

# the caption the book shows under the plot
set print caption
print sprintf("Time against the sequence length T at %s (log-log; the causal triangle's work grows as T squared): each chapter's best kernel, and the fastest champion of each pipe dashed. Measured on the %s, %s.", fixed, gpu, date)
unset print

eval draw_both
