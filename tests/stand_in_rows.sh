#!/usr/bin/env bash
# tests/stand_in_rows.sh - TEST FIXTURES, never measurements: the committed
# rows of plots/data as if another card had measured them, for the tests
# that build the whole book from a student's card (tests/suites/70-book.sh).
#
#   tests/stand_in_rows.sh CARD CC SCALE OUT [FACTS]
#     CARD   the card's name, as CUDA would report it ("Tesla T4")
#     CC     its compute capability as the kernel list writes it (sm_75):
#            the kernels it could not run are left out, as make bench would
#     SCALE  times multiplied, rates divided by it (the T4 is slower)
#     OUT    a folder: OUT/trimul.csv, OUT/msa.csv (the committed rows, then
#            the stand-in ones, dated after them), OUT/accuracy/ and
#            OUT/cards/cards.csv (the committed cards' facts) and
#            OUT/nsight/nsight.csv (the committed profiler readings)
#     FACTS  the card's facts as `--card` would record them (everything of a
#            CSV_CARD_HEADER row after the name), added to OUT/cards/cards.csv
# The stand-in rows are marked: commit "stand-in", dated today.
set -euo pipefail
if [ $# -ne 4 ] && [ $# -ne 5 ]; then
    echo "usage: tests/stand_in_rows.sh CARD CC SCALE OUT [FACTS]" >&2
    exit 2
fi
card=$1 cc=${2#sm_} scale=$3 out=$4 facts=${5:-}
mkdir -p "$out/accuracy" "$out/cards"
cp plots/data/accuracy/*.csv "$out/accuracy/"
cp plots/data/cards/cards.csv "$out/cards/"
mkdir -p "$out/nsight" && cp plots/data/nsight/nsight.csv "$out/nsight/"
[ -z "$facts" ] || echo "$card,$facts" >> "$out/cards/cards.csv"
for problem in trimul msa; do
    # the kernels this card can run: needs (column 6 of the list) at most its capability
    awk -v cc="${cc%a}" '!/^#/ && NF >= 7 { need = $6; sub(/^sm_/, "", need); sub(/a$/, "", need)
                                            if ($6 ~ /a$/ ? need == cc : need + 0 <= cc + 0) print $7 }' \
        chapters/kernels.list > "$out/.runs"
    awk -F, -v OFS=, -v card="$card" -v scale="$scale" -v today="$(date -u +%F)" -v runs="$out/.runs" '
        BEGIN { while ((getline name < runs) > 0) can[name] = 1 }
        { print }
        FNR > 1 { base = $2; sub(/\+graph$/, "", base)
                  if (base in can) rows[++n] = $0 }
        END { for (k = 1; k <= n; k++) { $0 = rows[k]
                  for (f = 5; f <= 7; f++) $f = sprintf("%.6f", $f * scale)
                  $8 = sprintf("%.1f", $8 / scale); $9 = sprintf("%.1f", $9 / scale)
                  $10 = card; $12 = "stand-in"; $13 = today; print } }' \
        "plots/data/$problem.csv" > "$out/$problem.csv"
done
rm -f "$out/.runs"
