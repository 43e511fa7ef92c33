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
#
# Every file of OUT and PNG is written under a temporary name in its own
# folder (.NAME.partial) and renamed when complete: a rename replaces a file
# whole, so an interrupted run (Ctrl-C, a timeout) leaves each file as it
# was or as it is now, never half drawn, and the committed PNGs are only
# ever replaced by complete ones. The temporary files of an interrupted run
# are removed on the way out. (WORK is emptied at every start, so what is
# half written there never outlives the run.)
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

partials=()
partial_of() {  # partial_of FILE: the temporary name FILE is written under
    local file=$1 folder=.
    [[ $file == */* ]] && folder=${file%/*}
    printf '%s/.%s.partial' "$folder" "${file##*/}"
}
finish() {  # finish FILE...: each FILE's temporary file, complete, renamed to FILE
    local file
    for file in "$@"; do mv -f "$(partial_of "$file")" "$file"; done
}
# On an interrupt, bash runs the trap once the command it waits for (gnuplot)
# has returned, before any rename: what that command left is only removed.
trap 'rm -f "${partials[@]}"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rm -rf "$work"
mkdir -p "$work" "$out" "$png"
rm -f "$out"/*.svg "$out"/*.caption "$out"/*.md "$out"/index  # git-ignored; drawn again below
"$results" plotdata --data "$data" --kernels "$kernels" --out "$work"
# NAME.md is the plot as the book shows it ({{figure|NAME}}); all.md every
# plot, in the index's order ({{figures}}). The caption is text for the
# Markdown: the card's name in it is the CSV's, so markup is escaped.
markdown_text() { sed 's/[][\\`*_<>|$&~^@{}#]/\\&/g'; }
echo "*No plots yet: there are no measurements in \`$data\`.*" > "$work/all.md"
# A line of the index is NAME, or NAME and the folder of WORK that holds the
# rows of the card it is drawn from when that is not the book's first card
# (book/results.c); such a plot's caption ends with the note that says so.
while read -r name source; do  # plot NAME is drawn by the script named by NAME up to its first '-'
    svg=$out/$name.svg drawing=$png/$name.png caption=$out/$name.caption
    datadir=$work${source:+/$source}
    partials+=("$(partial_of "$svg")" "$(partial_of "$svg").boxed" "$(partial_of "$drawing")" "$(partial_of "$caption").noted"
               "$(partial_of "$caption")" "$(partial_of "$out/$name.md")")
    gnuplot -e "name='$name'; datadir='$datadir'; svg='$(partial_of "$svg")'; png='$(partial_of "$drawing")'; caption='$(partial_of "$caption")'" \
        "plots/${name%%-*}.gp"
    if [ -n "$source" ]; then  # the caption's first line, and the note after it
        { printf '%s ' "$(head -n1 "$(partial_of "$caption")")"; cat "$datadir/$name.note"; } \
            > "$(partial_of "$caption").noted"
        mv -f "$(partial_of "$caption").noted" "$(partial_of "$caption")"
    fi
    # the labels' opaque boxes as rectangles, which the PDF's renderer draws
    awk -f plots/textbox.awk "$(partial_of "$svg")" > "$(partial_of "$svg").boxed" &&
        mv -f "$(partial_of "$svg").boxed" "$(partial_of "$svg")"
    printf '![%s](%s){#fig-%s}\n\n' "$(head -n1 "$(partial_of "$caption")" | markdown_text)" "$svg" \
        "$name" > "$(partial_of "$out/$name.md")"
    finish "$drawing" "$svg" "$caption" "$out/$name.md"
    echo "plots: $svg $drawing"
done < "$work/index"
# a PNG of a plot that has no rows now is stale
for drawing in "$png"/*.png; do
    [ -e "$drawing" ] || continue
    cut -d' ' -f1 "$work/index" | grep -qxF "$(basename "$drawing" .png)" || rm -f "$drawing"
done
if [ -s "$work/index" ]; then
    while read -r name _; do cat "$out/$name.md"; done < "$work/index" > "$work/all.md"
fi
partials+=("$(partial_of "$out/index")" "$(partial_of "$out/all.md")")
cut -d' ' -f1 "$work/index" > "$(partial_of "$out/index")"  # the names alone
cp "$work/all.md" "$(partial_of "$out/all.md")"
finish "$out/index" "$out/all.md"
