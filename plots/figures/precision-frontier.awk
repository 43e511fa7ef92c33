# plots/figures/precision-frontier.awk - chapter 9's frontier: for each kernel
# of the triangle measured at the default size, its newest median time
# (plots/data/trimul.csv) and its newest relative L2 error at input scale 1
# (plots/data/accuracy/trimul.csv), joined by kernel. Writes DIR/NAME.dat
# (time, error, kind, name, label level; kind 0 FP32 lanes, 1 TF32, 2 3xTF32;
# the level, 1 to 5 in order of time within a kind, lifts labels apart) and
# DIR/NAME.caption, for plots/figures/precision-frontier.gp.
#
#   awk -v out=DIR -f plots/figures/precision-frontier.awk \
#       chapters/kernels.list plots/data/trimul.csv plots/data/accuracy/trimul.csv
BEGIN { FS = ","; shape = "B=8 T=1024 C=768 NH=12" }
FILENAME ~ /kernels\.list$/ {
    if ($0 ~ /^[ \t]*(#|$)/) next
    split($0, f, /[ \t]+/)
    if (f[1] == "trimul") {
        order[f[7]] = ++listed; pipe[f[7]] = f[4]; accuracy[f[7]] = f[5]; role[f[7]] = f[3]
    }
    next
}
FNR == 1 { file++; next }
file == 1 && $4 == shape && ($2 in order) { time[$2] = $5; gpu = $10; if ($13 > date) date = $13 }
file == 2 && $4 == shape && $5 == 1 && ($2 in order) { error[$2] = $7 }
END {
    data = out "/precision-frontier.dat"
    for (name in time) {
        if (!(name in error) || role[name] == "tried")
            continue
        kind_of[name] = pipe[name] == "simt" ? 0 : accuracy[name] == "tf32" ? 1 : 2
    }
    for (name in kind_of) { # the level: how many of its kind are faster, cycling 1 to 5
        faster = 0
        for (other in kind_of)
            faster += kind_of[other] == kind_of[name] && time[other] + 0 < time[name] + 0
        line[order[name]] = sprintf("%s %s %d %s %d", time[name], error[name], kind_of[name],
                                    name, 1 + faster % 5)
    }
    for (k = 1; k <= listed; k++)
        if (k in line) { print line[k] > data; count++ }
    if (!count) {
        print "precision-frontier.awk: no kernel has both a time and an error at " shape > "/dev/stderr"
        exit 1
    }
    printf "Error against time, every kernel of the triangle at %s (median time; relative L2 error against the double referee). Measured on the %s, %s.\n", shape, gpu, date > (out "/precision-frontier.caption")
}
