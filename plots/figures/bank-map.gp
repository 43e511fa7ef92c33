# plots/figures/bank-map.gp - chapter 5: the banks one warp's accesses to a
# shared tile hit; each stack is the words of one bank, one per wavefront.
load 'plots/figures/style.gp'
load datadir.'/bank-map.vars.gp'
data = datadir.'/bank-map.dat'

what(i) = value(sprintf("what%d", i))
wavefronts(i) = value(sprintf("wavefronts%d", i))
# panel i (0 at the top) takes its wavefronts' rows and 2.6 rows for its title
rows_above(i) = i == 0 ? 0 : sum [p = 0:i - 1] (wavefronts(p) + 2.6)
total = rows_above(5)
top(i) = total - rows_above(i) - 2.6      # the top of panel i's stacks
colour(i) = i == 4 ? blue : vermilion
fewest(i) = value(sprintf("fewest%d", i))
pairs(i) = value(sprintf("pairs%d", i))
bytes(i) = value(sprintf("bytes%d", i))
wave_word(n) = n == 1 ? "1 wavefront" : sprintf("%d wavefronts", n)
article(n) = n == 8 || n == 11 || n == 18 ? "an" : "a"
verdict(i) = wavefronts(i) > fewest(i) ? sprintf("%s, %s %d-way conflict", wave_word(wavefronts(i)), \
                                                 article(wavefronts(i) / fewest(i)), wavefronts(i) / fewest(i)) \
           : sprintf("%s, the fewest for %d bytes", wave_word(wavefronts(i)), bytes(i))

width = 960; height = 860
do for [output = 1:2] {
    reset
    load 'plots/figures/style.gp'
    eval start_output(output, width, height)
    set lmargin at screen 0.03
    set rmargin at screen 0.98
    set tmargin at screen 0.99
    set bmargin at screen 0.09
    set xrange [-0.5:31.5]
    set yrange [0:total]
    set xtics 0, 1, 31 out nomirror font ',16'
    unset ytics
    set border 1
    set xlabel "shared-memory bank (the word at float offset a is in bank a mod 32)" offset 0, 0.4
    unset label
    do for [i = 0:4] {
        set label (i + 1) sprintf("%s: %s", what(i), verdict(i)) \
            at -0.45, top(i) + 1.2 left font ',16'
    }
    set style fill solid 0.85 border lc rgb '#ffffff'
    plot for [i = 0:4] data index i using 1:(top(i) - $2 - 0.5):(0.46):(0.5) \
             with boxxyerror fc rgb colour(i), \
         for [i = 0:4] data index i using 1:(top(i) - $2 - 0.5):3 \
             with labels font ',16' tc rgb '#ffffff'
    set output
}
