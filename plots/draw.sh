#!/usr/bin/env bash
# plots/draw.sh - what `make plots` runs: the weaver turns the measured rows
# into gnuplot's inputs (one set per plot that has rows), then gnuplot draws
# each plot twice: SVG for the book, PNG for the README.
#
#   plots/draw.sh WEAVE DATA WORK OUT PNG
#     WEAVE the weaver; DATA the CSV folder (plots/data); WORK scratch
#     (build/plots); OUT the SVGs, captions and their index (plots/out);
#     PNG the PNGs (plots/png, committed for the README).
# A plot with no rows is left out, and any drawing of it from an earlier
# run is removed, so the book never shows a stale plot.
set -euo pipefail
if [ $# -ne 5 ]; then
    echo "usage: plots/draw.sh WEAVE DATA WORK OUT PNG" >&2
    exit 2
fi
weave=$1 data=$2 work=$3 out=$4 png=$5
if ! command -v gnuplot >/dev/null; then
    echo "make plots: gnuplot is missing (make deps installs it)" >&2
    exit 1
fi
rm -rf "$work"
mkdir -p "$work" "$out" "$png"
"$weave" plotdata --data "$data" --out "$work"
rm -f "$out"/*.svg "$out"/*.caption "$out"/index "$png"/*.png
while read -r name; do
    gnuplot -e "datadir='$work'; svg='$out/$name.svg'; png='$png/$name.png'" "plots/$name.gp"
    cp "$work/$name.caption" "$out/$name.caption"
    echo "plots: $out/$name.svg $png/$name.png"
done < "$work/index"
cp "$work/index" "$out/index"
