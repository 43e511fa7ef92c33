# plots/style.gp - what every plot of the workbook shares; plots/*.gp load it.
#
# Each plot NAME is drawn by the script named by NAME up to its first '-'
# (progress-trimul and progress-msa by progress.gp), run from the repository
# root by make plots as
#   gnuplot -e "name='NAME'; datadir='build/plots'; svg='plots/out/NAME.svg';
#               png='plots/png/NAME.png'; caption='plots/out/NAME.caption'" plots/SCRIPT.gp
# and reads what `results plotdata` (book/results.c) wrote into datadir:
# PROBLEM.dat (trimul.dat, msa.dat: every row of the story) and
# PROBLEM.vars.gp (gpu, date, the default shape, title, champions,
# fp32_tflops, tensor_tflops, memory_tbs: NaN when not known, and then no
# memory floor is drawn). A row of PROBLEM.dat is
#   1 place among its shape's rows  2 kernel  3 T (the shape's second size)
#   4 median ms  5 min ms  6 max ms  7 kind (below)  8 role (0 champion,
#   1 step, 2 best, 4 torch)  9 % of its pipe's peak  10 the shape's place
#   11 shape  12 GFLOP/s  13 GB/s  14 the chapter that introduces the kernel
# in the story's order within each shape, the shapes smallest first. The
# script writes the plot's one-line caption for the book too.

# A plot named NAME-chapterN (race-chapter5, sweep-chapter8, msa-chapter7)
# belongs in chapter N and shows the kernels of chapters 1 to N only (column
# 14 of PROBLEM.dat is a kernel's chapter); another shows every kernel.
upto = strstrt(name, '-chapter') ? int(name[strstrt(name, '-chapter') + 8:]) : 1000
met(chapter) = chapter <= upto

set encoding utf8
width = 840
height = 520    # a plot may set its own before it draws
svg_terminal(width, height) = sprintf("set terminal svg size %d,%d font 'DejaVu Sans,15' noenhanced " . \
    "background rgb 'white'", width, height)
# the PNG (the README's) 4/3 the SVG's size and its type as large (cairo counts
# 96 dots an inch, the SVG's sizes are pixels)
png_terminal(width, height) = sprintf("set terminal pngcairo size %d,%d font 'DejaVu Sans,15' " . \
    "noenhanced background rgb 'white'", width * 4 / 3, height * 4 / 3)

# results.c's kinds: 1 a champion on the FP32 pipe, 2 a champion on the tensor
# cores, 3 the book's FP32 kernels, 4 its tensor-core kernels
kind_colour(kind) = kind == 1 ? 0x5f6570 : kind == 2 ? 0xb4b8bf : kind == 3 ? 0x1f6fb2 : 0xd9822b
kinds_key(champions) = sprintf(", NaN with boxes lc rgb '#5f6570' title '%s, FP32', " . \
    "NaN with boxes lc rgb '#b4b8bf' title '%s, TF32', " . \
    "NaN with boxes lc rgb '#1f6fb2' title 'this book, FP32', " . \
    "NaN with boxes lc rgb '#d9822b' title 'this book, tensor cores'", champions, champions)
# a distinct colour per line of the sweep and per kernel of the MSA panels
array palette[10] = [0x1f6fb2, 0xd9822b, 0x2e9e5b, 0xc23b3b, 0x7a4fb0, 0x8a6a3b, 0xd163a8, 0x5f6b7a, \
                     0xb5a22d, 0x2bb5c2]
series_rgb(i) = palette[(i - 1) % 10 + 1]
series_colour(i) = sprintf("#%06x", series_rgb(i))


# A caption or title names the chapters whose kernels a chart draws, from
# what it draws: set has_chapter[C] = 1 for each, then `eval list_chapters`
# sets chapter_list ("6", "2 to 5, 8 and 9"), runs (how many items) and
# chapters_word ("chapter" or "chapters").
array has_chapter[100]
do for [c = 1:100] { has_chapter[c] = 0 }
list_chapters = "chapter_runs = ''; runs = 0; run_start = 0; long_runs = 0; " . \
    "do for [c = 1:101] { " . \
    "  here_c = c <= 100 ? has_chapter[c] == 1 : 0; " . \
    "  if (here_c && run_start == 0) { run_start = c }; " . \
    "  if (!here_c && run_start > 0) { " . \
    "    if (c - 1 - run_start >= 2) { chapter_runs = chapter_runs . sprintf(' %d_to_%d', run_start, c - 1); " . \
    "                                  runs = runs + 1; long_runs = 1 } " . \
    "    else { do for [k = run_start:c - 1] { chapter_runs = chapter_runs . sprintf(' %d', k); runs = runs + 1 } }; " . \
    "    run_start = 0 } }; " . \
    "chapter_list = ''; " . \
    "do for [i = 1:runs] { chapter_list = chapter_list . (i == 1 ? '' : i == runs ? ' and ' : ', ') . word(chapter_runs, i) }; " . \
    "do for [k = 1:100] { if (strstrt(chapter_list, '_')) { at = strstrt(chapter_list, '_'); " . \
    "  chapter_list = chapter_list[1:at - 1] . ' ' . chapter_list[at + 1:] } }; " . \
    "chapters_word = runs == 1 && !long_runs ? 'chapter' : 'chapters'"

set border 3 lw 1.2
set tics nomirror
set grid ytics lc rgb '#e3e3e3' lw 1
set key noautotitle
set datafile missing "NaN"
set style textbox opaque noborder margins 0.5, 0.5   # labels drawn over lines stay legible

# Draws `draw` twice, the SVG for the book and the PNG for the README: each
# script ends with `eval draw_both`.
draw_both = "eval svg_terminal(width, height); set output svg; eval draw; " . \
            "eval png_terminal(width, height); set output png; eval draw; set output"
