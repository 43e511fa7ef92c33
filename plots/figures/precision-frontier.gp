# plots/figures/precision-frontier.gp - chapter 9: each triangle kernel's
# relative error against its time (log-log: the errors span four decades,
# the times two), FP32 lanes, TF32 and 3xTF32
# told apart by colour and named by labels. (Circles, not gnuplot's points:
# weasyprint cannot draw the SVG symbols points are made of.)
load 'plots/figures/style.gp'
data = datadir.'/precision-frontier.dat'
width = 960; height = 600
# the plot's frame, fixed, so that a label's place can be reckoned in pixels
frame_l = 0.10; frame_r = 0.97; frame_b = 0.11; frame_t = 0.97
x_lo = 0.07; x_hi = 20; y_lo = 3e-8; y_hi = 6e-3
x_px(t) = log10(t / x_lo) / log10(x_hi / x_lo) * (frame_r - frame_l) * width
y_px(e) = log10(e / y_lo) / log10(y_hi / y_lo) * (frame_t - frame_b) * height
px_to_y(p) = y_lo * (y_hi / y_lo) ** (p / ((frame_t - frame_b) * height))
px_to_x(p) = x_lo * (x_hi / x_lo) ** (p / ((frame_r - frame_l) * width))
radius = 0.009 * width      # the circles' (screen 0.009)
gap = 4                     # pixels from a point's leader to its label's first letter
char_px = 10.4              # a character of 16-point DejaVu Sans, a little wider than the widest lower-case average
rise = radius + 12          # a label's middle at least this far above its point: clear of its circle
step = 19                   # one label's height and a pixel either side
array tolerances[2] = [1e-5, 2e-3]

# Each label sits right of its point's leader, just above its point or
# higher. Labels are placed from the slowest kernel leftwards: each, where
# its text would reach over a point already labelled, goes above that
# point's label if it would otherwise lie on the point, its leader or its
# label; never on a tolerance's line. Its own leader rises left of every
# label placed before it: no leader runs through a label.
stats data using 1 nooutput
n = STATS_records
array time[n]; array error[n]; array text_px[n]; array label_px[n]; array placed[n]
stats data using (time[int($0) + 1] = $1, error[int($0) + 1] = $2, \
                  text_px[int($0) + 1] = strlen(strcol(4)) * char_px, 0) nooutput
do for [i = 1:n] { placed[i] = 0 }
do for [round = 1:n] {
    next = 0
    do for [i = 1:n] {
        if (!placed[i]) { if (next == 0) { next = i } else { if (time[i] > time[next]) { next = i } } }
    }
    reach = x_px(time[next]) + gap + text_px[next] + 2
    height_px = y_px(error[next]) + rise
    do for [pass = 1:n + 2] {
        do for [j = 1:n] {
            if (placed[j] && x_px(time[j]) < reach && height_px + step > y_px(error[j]) - radius \
                && height_px < label_px[j] + step) { height_px = label_px[j] + step }
        }
        do for [k = 1:2] {
            if (abs(height_px - y_px(tolerances[k])) < step / 2.0) { height_px = y_px(tolerances[k]) + step / 2.0 }
        }
    }
    label_px[next] = height_px
    placed[next] = 1
}
label_y(row) = px_to_y(label_px[int(row) + 1])
label_x(t) = px_to_x(x_px(t) + gap)

do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen frame_l; set rmargin at screen frame_r
    set bmargin at screen frame_b; set tmargin at screen frame_t
    set logscale xy
    set xlabel 'median time, ms (log scale)'
    set ylabel 'relative L2 error against the referee (log scale)'
    set format y '%.0e'
    unset grid   # the tolerances are the lines that matter; no grid line strikes a label
    set key at graph 0.98, graph 0.75 right top box opaque   # between the tolerances' lines
    set style circle radius screen 0.009
    set xrange [x_lo:x_hi]
    set yrange [y_lo:y_hi]
    set label 1 'the FP32 tolerance, 1e-5' at graph 0.02, first 1.3e-5 tc rgb grey font ',16'
    set label 2 'the TF32 tolerance, 2e-3' at graph 0.02, first 2.6e-3 tc rgb grey font ',16'
    plot 1e-5 with lines dt 2 lc rgb grey notitle, 2e-3 with lines dt 2 lc rgb grey notitle, \
         data using 1:2:(0):(label_y($0) - $2) with vectors nohead lc rgb light notitle, \
         data using ($3 == 0 ? $1 : 1/0):2 with circles fs solid lc rgb blue title 'FP32 lanes', \
         data using ($3 == 1 ? $1 : 1/0):2 with circles fs solid lc rgb orange title 'TF32 tensor cores', \
         data using ($3 == 2 ? $1 : 1/0):2 with circles fs solid lc rgb vermilion title '3xTF32 tensor cores', \
         data using (label_x($1)):(label_y($0)):4 with labels left font ',16' tc rgb ink notitle
}
