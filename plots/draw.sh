#!/usr/bin/env bash
# plots/draw.sh - what `make plots` runs: book/results.c turns the measured
# rows into gnuplot's inputs (one set per plot that has rows), then gnuplot
# draws each plot twice, SVG for the book and PNG for the README, and writes
# its caption.
#
#   plots/draw.sh RESULTS DATA KERNELS WORK OUT PNG
#     RESULTS the results tool (build/book/results); DATA the CSV folder
#     (plots/data); KERNELS the list of contenders (chapters/kernels.list);
#     WORK scratch (build/plots); OUT the SVGs, captions and their index
#     (plots/out); PNG the PNGs (plots/png, committed for the README).
# A plot with no rows is left out, and any drawing of it from an earlier
# run is removed, so the book never shows a stale plot.
set -euo pipefail
if [ $# -ne 6 ]; then
    echo "usage: plots/draw.sh RESULTS DATA KERNELS WORK OUT PNG" >&2
    exit 2
fi
results=$1 data=$2 kernels=$3 work=$4 out=$5 png=$6
if ! command -v gnuplot >/dev/null; then
    echo "make plots: gnuplot is missing (make deps installs it)" >&2
    exit 1
fi
rm -rf "$work"
mkdir -p "$work" "$out" "$png"
rm -f "$out"/*.svg "$out"/*.caption "$out"/*.md "$out"/index "$png"/*.png
"$results" plotdata --data "$data" --kernels "$kernels" --out "$work"
# NAME.md is the plot as the book shows it ({{figure|NAME}}); all.md every
# plot, in the index's order ({{figures}}).
echo "*No plots yet: there are no measurements in \`$data\`.*" > "$work/all.md"
while read -r name; do  # plot NAME is drawn by the script named by NAME up to its first '-'
    gnuplot -e "name='$name'; datadir='$work'; svg='$out/$name.svg'; png='$png/$name.png'; caption='$out/$name.caption'" \
        "plots/${name%%-*}.gp"
    printf '![%s](%s){#fig-%s}\n\n' "$(head -n1 "$out/$name.caption")" "$out/$name.svg" "$name" > "$out/$name.md"
    echo "plots: $out/$name.svg $png/$name.png"
done < "$work/index"
if [ -s "$work/index" ]; then
    while read -r name; do cat "$out/$name.md"; done < "$work/index" > "$work/all.md"
fi
cp "$work/index" "$out/index"
cp "$work/all.md" "$out/all.md"
