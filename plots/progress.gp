# plots/progress.gp - a problem's progression at its default size
# (progress-trimul, progress-msa): each kernel's time in the story's order
# (chapters/kernels.list: the champions first, then each chapter's steps and
# best), the champions as dashed reference lines across, and the floors no
# kernel can pass, dotted: the dense work at the FP32 peak, the same work at
# the dense TF32 tensor peak, and the compulsory bytes (inputs read once,
# outputs written once) at the card's memory bandwidth. Work and bytes are
# the rows' own: GFLOP/s and GB/s times the median. Log scale.
load 'plots/style.gp'
problem = name[10:]                    # progress-PROBLEM
load datadir.'/'.problem.'.vars.gp'    # gpu date shape title champions fp32_tflops tensor_tflops
data = datadir.'/'.problem.'.dat'      # see style.gp
here(value) = strcol(11) eq shape ? value : NaN   # the default size's rows only
# the other rows' bars (and their names under the axis) far off to the right
place = "(strcol(11) eq shape ? $1 : $1 + 1000)"
stats data using (here($1)) nooutput
bars = STATS_records
stats data using (here($4)) nooutput
slowest = STATS_max
fastest = STATS_min
stats data using (here($12 * $4 / 1000)) nooutput
work = STATS_mean                 # GFLOP
stats data using (here($13 * $4 / 1000)) nooutput
traffic = STATS_mean              # GB

# The reference lines: name, ms, colour, dash; the champions from the rows.
array ref_name[24]
array ref_ms[24]
array ref_colour[24]
array ref_dash[24]
refs = 0
add_ref(label, ms, colour, dash) = ms > 0 ? (refs = refs + 1, ref_name[refs] = label, \
    ref_ms[refs] = ms, ref_colour[refs] = colour, ref_dash[refs] = dash, 0) : 0
stats data using (strcol(11) eq shape && column(7) <= 2 ? add_ref(strcol(2), $4, \
    column(7) == 1 ? '#5f6570' : '#9ba0a8', column(7) == 1 ? 2 : 4) : 0) nooutput
fp32_floor = fp32_tflops > 0 ? work / fp32_tflops : NaN   # GFLOP / TFLOP/s = ms
tf32_floor = tensor_tflops > 0 ? work / tensor_tflops : NaN
memory_floor = traffic / memory_tbs               # GB / TB/s = ms
x = add_ref('FP32 floor', fp32_floor, '#1f4f8a', 3)
x = add_ref('TF32 floor', tf32_floor, '#b35f0f', 3)
x = add_ref('memory floor', memory_floor, '#2e7d4f', 3)

lowest = fastest
do for [i = 1:refs] { lowest = ref_ms[i] < lowest ? ref_ms[i] : lowest }
set yrange [lowest / 2 : slowest * 8]   # room above the tallest bar for its upright label
# each line's name in the right margin at its height, in order; a name that
# would touch the one below moves up (a line of type is about 1/22 of the
# plot's height on a log axis)
do for [i = 1:refs] { do for [j = 1:refs - i] {
    if (ref_ms[j] > ref_ms[j + 1]) {
        t = ref_ms[j]; ref_ms[j] = ref_ms[j + 1]; ref_ms[j + 1] = t
        t = ref_name[j]; ref_name[j] = ref_name[j + 1]; ref_name[j + 1] = t
        t = ref_colour[j]; ref_colour[j] = ref_colour[j + 1]; ref_colour[j + 1] = t
        t = ref_dash[j]; ref_dash[j] = ref_dash[j + 1]; ref_dash[j + 1] = t
    }
} }
step = (slowest * 8 / (lowest / 2)) ** (1.0 / 22)
at = 0
do for [i = 1:refs] {
    at = ref_ms[i] > at * step ? ref_ms[i] : at * step
    set arrow i from graph 0, first ref_ms[i] to graph 1, first ref_ms[i] nohead back \
        lw 1.6 dt ref_dash[i] lc rgb ref_colour[i]
    set label i ref_name[i] at graph 1.01, first at left front font ',14' tc rgb ref_colour[i]
}

set title sprintf("%s: the story against its champions and floors\nat %s, %s, %s", \
                  title, shape, gpu, date)  # the shape on the second line: it fits
set ylabel "median time, ms (log scale)"
set logscale y
set xrange [-0.6:bars - 0.4]
set xtics rotate by 30 right font ',14'
set rmargin 17
set bmargin 8.5
set style fill solid 0.9 noborder
set boxwidth 0.7
set key outside bottom center horizontal maxrows 2 samplen 1.5 font ',14'

draw = "plot data using ".place.":4:(kind_colour($7)):xtic(2) with boxes lc rgb variable, " . \
       "data using ".place.":4:(sprintf('%.3g', $4)) with labels boxed rotate by 90 left offset 0,0.5 font ',14'" . \
       kinds_key(champions)

# the caption the book shows under the plot
set print caption
print sprintf("%s at %s: each kernel's median time in the story's order (log scale), the champions (%s) as dashed lines. The dotted floors: the dense work, %.3g GFLOP, at the FP32 peak (%.1f TFLOP/s) and at the dense TF32 tensor peak (%.1f TFLOP/s); the compulsory bytes, %.3g GB (inputs read once, outputs written once), at the data sheet's memory bandwidth%s. Measured on the %s, %s.", \
    title, shape, champions, work, fp32_tflops, tensor_tflops, traffic, \
    memory_floor == memory_floor ? sprintf(" (%.1f TB/s)", memory_tbs) : " (not known for this card: no memory floor)", gpu, date)
unset print

eval draw_both
