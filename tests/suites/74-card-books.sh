# tests/suites/74-card-books.sh - your card, your book: the whole book woven
# from another card's data, as after `make bench` on a student's card.
#
# For each card below, tests/stand_in_rows.sh (TEST FIXTURES, never in
# plots/data) adds to the committed rows the same rows as that card would
# measure them: only the kernels it can run (its compute capability against
# the list's `needs`), slower by a factor, dated today. `make book-markdown`
# must then weave every chapter with no error (also for a card the peaks
# table does not know) (the plots a card cannot draw
# are drawn from the reference card's rows, their captions say so), and the
# headline, the charts and a sample of the analysis must be that card's:
# its peaks and floors, its name, never the H200's as "this card".
# Scratch builds go to build/card-books/.
# test-runner: about 120 s

card_scratch=build/card-books
rm -rf "$card_scratch"
mkdir -p "$card_scratch"

# The figures drawn from the code do not depend on the data: drawn once
# in build/figures (shared with the real book's build) and copied by each book.
card_book() {  # card_book SLUG: the woven book of $card_scratch/SLUG/data
    local where=$card_scratch/$1
    make --no-print-directory -s book-markdown WORKBOOK_DATA="$where/data" \
        PLOTS_OUT="$where/plots" PLOTS_PNG="$where/png" PLOTS_WORK="$where/plotwork" \
        BOOK_WORK="$where/book" BOOK_OUT="$where/out"
}

# The reference card: the newest card measured in full in plots/data (the
# first of the real book's headline), whose rows draw what a card cannot.
${MAKE:-make} -s --no-print-directory build/book/results > /dev/null
reference=$(build/book/results table headline |
    sed -n 's/^\*\*The triangle\*\* at [^.]*kernel\. \([^,]*\), CUDA.*/\1/p' | head -n 1)

# SLUG | the name CUDA reports | its capability | times slower than the H200:
# at least the larger ratio of the H200's peaks to the card's (FP32 66.9
# and TF32 535 TFLOP/s against the T4's 8.1 and none, the A100's 19.5 and
# 156, the RTX 4090's 82.6 and 82.6), so that no rate passes a peak of the
# card, which the CSV reader refuses
cards='t4|Tesla T4|sm_75|9
a100|NVIDIA A100-SXM4-80GB|sm_80|4
rtx4090|NVIDIA GeForce RTX 4090|sm_89|7
h100|NVIDIA H100 80GB HBM3|sm_90a|1.2'

if ! tool_missing "card books" gnuplot; then
    while IFS='|' read -r slug card capability scale; do
        tests/stand_in_rows.sh "$card" "$capability" "$scale" "$card_scratch/$slug/data"
        expect_status "$card: the whole book weaves from its rows" 0 card_book "$slug"
        book=$card_scratch/$slug/book/workbook.md
        expect_output "$card: the headline is its own" \
            "^\*\*The triangle\*\* at B=8 T=1024 C=768 NH=12, the champions and each chapter's best kernel\. $card, CUDA" \
            cat "$card_scratch/$slug/book/tables/headline.md"
        expect_output "$card: the charts draw its rows" "^gpu = '$card'$" \
            cat "$card_scratch/$slug/plotwork/trimul.vars.gp"
        expect_output "$card: chapter 1's floors are its own" "^\`preatt\` once \(201\.5 MB\)\. The memory of the $card$" \
            cat "$book"
        expect_no_output "$card: no sentence takes the H200 for this card" \
            "H200 (needs|does|has)|NVIDIA H200, .*this card" cat "$book"
    done <<< "$cards"

    # A card with no TF32 (the T4) runs no chapter 8 to 11 kernel: those
    # charts are the H200's, and their captions say so; the others are its own.
    t4=$card_scratch/t4
    expect_output "T4: chapter 8's chart is the reference card's, named as such" \
        "Drawn from the $reference's measurements: the Tesla T4, whose numbers this book shows first, has none" \
        cat "$t4/plots/race-chapter8.caption"
    expect_output "T4: chapter 8's chart is drawn from the reference card's rows" "^gpu = '$reference'$" \
        cat "$t4/plotwork/trimul-card1/trimul.vars.gp"
    expect_no_output "T4: chapter 5's chart is its own" "Drawn from" cat "$t4/plots/race-chapter5.caption"
    expect_output "T4: its multiprocessors and lanes (40 SMs of 64 FP32 lanes at 1.59 GHz)" \
        "^40 multiprocessors do$" sed -n '/^`preatt` once/,/^## /p' "$t4/book/workbook.md"
    expect_output "T4: its FP32 floor (6.45 GFLOP at 8.14 TFLOP/s)" "^takes at least 0\.79[0-9] ms \(these figures$" \
        cat "$t4/book/workbook.md"
    # An RTX 4090 has TF32 but no wgmma: chapter 10's chart is the H200's,
    # chapter 8's its own, and chapter 8's analysis takes its TF32 peak
    # (a GeForce card: half the Ada rate per SM).
    r=$card_scratch/rtx4090
    expect_output "RTX 4090: chapter 10's chart is the reference card's" "Drawn from the $reference's" \
        cat "$r/plots/race-chapter10.caption"
    expect_no_output "RTX 4090: chapter 8's chart is its own" "Drawn from" cat "$r/plots/race-chapter8.caption"
    expect_output "RTX 4090: chapter 8's TF32 peak is its own (82.6 TFLOP/s)" "about 82\.6 TFLOP/s at 2\.52 GHz" \
        cat "$r/book/workbook.md"
    # A card the data sheets do not know (an RTX 4070, compute capability
    # 8.9): its rows say what it runs (everything but chapter 10's sm_90a
    # kernels), so its headline and charts are its own; its peaks and floors
    # are derived from what its stand-in `--card` row says CUDA reported
    # (TEST FIXTURE: 46 SMs at 2475 MHz, a 192-bit bus at 10501 MHz), its
    # rows 19 times slower than the reference card's (535 over its 29.1 TF32
    # TFLOP/s: no rate above its peak).
    slug=rtx4070 card="NVIDIA GeForce RTX 4070"
    tests/stand_in_rows.sh "$card" sm_89 19 "$card_scratch/$slug/data" \
        "8.9,46,2475,10501,192,99,36864,12.4,$(date -u +%F)"
    expect_status "a card in no table: the whole book weaves from its rows" 0 card_book "$slug"
    expect_output "a card in no table: the headline is its own" \
        "^\*\*The triangle\*\* at B=8 T=1024 C=768 NH=12, the champions and each chapter's best kernel\. $card, CUDA" \
        cat "$card_scratch/$slug/book/tables/headline.md"
    expect_output "a card in no table: the charts draw its rows" "^gpu = '$card'$" \
        cat "$card_scratch/$slug/plotwork/trimul.vars.gp"
    expect_output "a card in no table: chapter 10's chart is the reference card's" "Drawn from the $reference's" \
        cat "$card_scratch/$slug/plots/race-chapter10.caption"
    expect_output "a card in no table: its bandwidth and floors derived from what CUDA reported" \
        "^\`preatt\` once \(201\.5 MB\)\. The memory of the $card$" cat "$card_scratch/$slug/book/workbook.md"
    expect_output "a card in no table: its bandwidth (2 x 10.501 GHz x 24 bytes)" \
        "^moves about 0\.504 TB/s, so moving those 252 MB takes at least$" cat "$card_scratch/$slug/book/workbook.md"
    expect_output "a card in no table: the book says where its figures come from" \
        "derived from what CUDA reported on it: 46 SMs at 2\.48 GHz, compute" \
        cat "$card_scratch/$slug/book/workbook.md"
    expect_no_output "a card in no table: no figure of the H200 stands in for it" \
        "Measured on the NVIDIA H200; the $card, whose numbers this book shows, has no known" \
        cat "$card_scratch/$slug/book/workbook.md"
    expect_output "T4: its figures come from its data sheet (nothing recorded)" \
        "are derived from its data sheet\)\. On this card" cat "$t4/book/workbook.md"

    # A card the book was not measured on but runs everything (an H100):
    # every chart its own.
    expect_status "H100: every chart its own" 1 grep -l "Drawn from" $card_scratch/h100/plots/*.caption
fi
