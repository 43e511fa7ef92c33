# plots/style.gp - what every plot of the workbook shares; plots/*.gp load it.
#
# Each plot script is run from the repository root by make plots as
#   gnuplot -e "datadir='build/plots'; svg='plots/out/NAME.svg'; png='plots/png/NAME.png';
#               caption='plots/out/NAME.caption'" plots/NAME.gp
# and reads what `results plotdata` (book/results.c) wrote into datadir:
# NAME.dat (the rows), NAME.vars.gp (the card, the dates and the plot's own
# numbers). It writes the plot's one-line caption for the book too.

set encoding utf8
svg_terminal = "set terminal svg size 960,560 font 'DejaVu Sans,15' noenhanced background rgb 'white'"
png_terminal = "set terminal pngcairo size 1280,747 font 'DejaVu Sans,15' noenhanced background rgb 'white'"

# 1: an FP32 champion (cuBLAS), 2: the book's FP32 kernels, 3: tensor cores (TF32)
colour(kind) = kind == 1 ? 0x8a8f98 : kind == 2 ? 0x1f6fb2 : 0xd9822b
# a distinct colour per line of the sweep and per bar group
series_colour(i) = word("#1f6fb2 #d9822b #2e9e5b #c23b3b #7a4fb0 #8a6a3b #d163a8 #5f6b7a #b5a22d #2bb5c2", (i - 1) % 10 + 1)

# key entries for the three colours, to append to a plot command
kinds_key = ", NaN with boxes lc rgb '#8a8f98' title 'cuBLAS', " . \
            "NaN with boxes lc rgb '#1f6fb2' title 'this book, FP32', " . \
            "NaN with boxes lc rgb '#d9822b' title 'TF32 tensor cores'"

set border 3 lw 1.2
set tics nomirror
set grid ytics lc rgb '#e3e3e3' lw 1
set key noautotitle
