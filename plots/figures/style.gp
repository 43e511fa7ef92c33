# plots/figures/style.gp - what every figure drawn from the code shares;
# plots/figures/NAME.gp load it. make figures runs each script from the
# repository root as
#   gnuplot -e "datadir='DIR'; svg='OUT/NAME.svg'; png='DIR/NAME.png'" plots/figures/NAME.gp
# where DIR holds what the figure's program wrote (NAME.dat, NAME.vars.gp).
# Each script draws its figure twice, SVG for the book and PNG (to look at,
# or for the README), in a loop over `output`.

set encoding utf8
svg_terminal(width, height) = sprintf("set terminal svg size %d,%d font 'DejaVu Sans,16' noenhanced background rgb 'white'", width, height)
png_terminal(width, height) = sprintf("set terminal pngcairo size %d,%d font 'DejaVu Sans,16' fontscale 0.75 noenhanced background rgb 'white'", width, height)
# output 1: the SVG; output 2: the PNG, at the same size in pixels (cairo sets
# type at 96 dots an inch where the SVG counts pixels: fontscale 0.75 matches them)
start_output(n, width, height) = (n == 1 ? svg_terminal(width, height) . "; set output svg" \
                                          : png_terminal(width, height) . "; set output png")

# The colours, told apart in print and by most colour-blind readers
# (Okabe and Ito); where colour alone would carry a meaning, a pattern or a
# label carries it too.
blue = '#0072b2'
orange = '#e69f00'
green = '#009e73'
vermilion = '#d55e00'
sky = '#56b4e9'
purple = '#cc79a7'
yellow = '#f0e442'
grey = '#999999'
light = '#dddddd'
ink = '#222222'

set border lw 1.2
set tics nomirror
set key noautotitle
