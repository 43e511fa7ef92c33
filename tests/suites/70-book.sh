# tests/suites/70-book.sh - the weaver, the results tool, the plots, the book
# and the browser.
#
# From fixtures (tests/fixtures/book/, invented numbers and their own list of
# kernels): each kind of broken input makes `make book` fail naming its file
# and line; placeholders take the newest row; shares of peak are against the
# kernel's pipe; tables and plots follow the list's order; a chapter in
# several files and its tried/ variants are woven; the weave is faithful;
# plots with no rows are left out; the tools stay fast on many rows, clean
# under the sanitizers, and a failed book leaves no book. From the real
# repository: every chapter weaves faithfully, plots/data is well formed,
# `make book` renders, the HTML passes a real browser and the PDF's pages
# are full (chapter 1 by page 6, at most two short pages).
# Fixture builds go to build/book-tests/, never to book/out or plots/.
# test-runner: about 200 s

fixtures=tests/fixtures/book
fixture_kernels=$fixtures/kernels.list
scratch=build/book-tests
weave=build/book/weave
results=build/book/results
rm -rf "$scratch"
mkdir -p "$scratch"


# make, with every output of the book and the plots moved into $scratch/$1;
# the plots into $book_plots instead where it is set (the fixture data's
# plots, drawn once and shared: make plots draws only when its inputs changed)
book_make() {
    local where=$scratch/$1; shift
    local plots=${book_plots:-$where}
    make --no-print-directory "$@" PLOTS_OUT="$plots/plots" PLOTS_PNG="$plots/png" \
        PLOTS_WORK="$plots/plotwork" BOOK_WORK="$where/work" BOOK_OUT="$where/out" \
        BOOK_EXERCISES=$fixtures/exercises BOOK_SOLUTIONS=$fixtures/solutions \
        BOOK_CLOSING=$fixtures/closing.md KERNEL_LIST=$fixture_kernels
}
fixture_plots=$scratch/plots  # the plots of the fixture data, which the fixture books share
fixture_book_make() {  # fixture_book_make NAME ARGUMENTS...: book_make on the fixture data and its shared plots
    book_plots=$fixture_plots book_make "$@" WORKBOOK_DATA=$fixtures/data
}
good=$fixtures/chapters/01-good/good.cu
broken_book() {  # broken_book NAME CHAPTER [DATA]: make book on the good chapter and CHAPTER
    if [ -n "${3:-}" ]; then  # data of its own: its own plots
        book_make "$1" book BOOK_CHAPTERS="$good $2" WORKBOOK_DATA="$3"
    else
        fixture_book_make "$1" book BOOK_CHAPTERS="$good $2"
    fi
}

expect_status "weave and results build" 0 make --no-print-directory $weave $results

# ------------------------------------------------------------ faithfulness
# Each chapter is woven from its story (slug.cuh where the chapter's code is a
# header, else slug.cu); every file of it with prose, and every file of its
# tried/ folder (woven into the appendix), must be faithful.
faithful_chapter() {  # faithful_chapter MAIN.cu: a test per file the book shows
    local main=$1 folder; folder=$(dirname "$1")
    $weave chapter --keep-placeholders "$main" > $scratch/woven.md 2>/dev/null
    $weave tried --keep-placeholders "$main" > $scratch/woven-tried.md 2>/dev/null
    for file in "$folder"/*.cu "$folder"/*.cuh; do
        [ -f "$file" ] || continue
        grep -qx '[[:blank:]]*/\*md[[:blank:]]*' "$file" || continue
        expect_status "faithful weave: $file" 0 awk -f tests/book/faithful.awk "$file" $scratch/woven.md
    done
    for file in "$folder"/tried/*.cu; do
        [ -f "$file" ] || continue
        expect_status "faithful weave: $file (the appendix)" 0 \
            awk -f tests/book/faithful.awk "$file" $scratch/woven-tried.md
    done
}
for folder in chapters/[0-9][0-9]-*/; do
    folder=${folder%/}
    faithful_chapter "$folder/${folder#chapters/[0-9][0-9]-}.cu"
done
faithful_chapter $fixtures/chapters/03-multi/multi.cu
$weave chapter --keep-placeholders "$good" > $scratch/good-kept.md 2>/dev/null
expect_status "faithful weave: the fixture with hidden code and odd fences" 0 \
    awk -f tests/book/faithful.awk "$good" $scratch/good-kept.md
sed 's/pairs\[0\]\[1\]/pairs[1][0]/' $scratch/good-kept.md > $scratch/altered.md
expect_failure "faithfulness check catches an altered code line" "line 40: the book shows" \
    awk -f tests/book/faithful.awk "$good" $scratch/altered.md
grep -v '^}$' $scratch/good-kept.md > $scratch/dropped.md
expect_failure "faithfulness check catches a dropped code line" "line 41: missing from the book" \
    awk -f tests/book/faithful.awk "$good" $scratch/dropped.md
sed 's/^__global__ void good_kernel/static int HIDDEN_SENTINEL_helper(void) { return 42; }\n&/' \
    $scratch/good-kept.md > $scratch/leaked.md
expect_failure "faithfulness check catches hidden code shown" "prose or hidden code in the source" \
    awk -f tests/book/faithful.awk "$good" $scratch/leaked.md
# the header and the #include lines are hidden without a marker; the check knows it
printf '\n```` {.cuda .numberLines startFrom="16" source="%s"}\n#include <math.h>\n````\n' "$good" \
    | cat $scratch/good-kept.md - > $scratch/leaked-include.md
expect_failure "faithfulness check catches an #include shown" "line 16: the book shows \"#include" \
    awk -f tests/book/faithful.awk "$good" $scratch/leaked-include.md
expect_status "the weave hides a file's opening comment, without a marker" 1 \
    grep -q 'a fixture chapter for the' $scratch/good-kept.md
expect_status "... and its #include lines" 1 grep -q '^#include' $scratch/good-kept.md
expect_output "... quietly: no note for them, one mark for the helper code hidden" "^1$" \
    grep -c 'hidden-code' $scratch/good-kept.md
expect_status "... and no \"left out here\" note anywhere" 1 grep -q 'left out here' $scratch/good-kept.md
expect_output "a chapter's code starts with one line naming its file" \
    '^::: \{\.source-file source="tests/fixtures/book/chapters/01-good/good\.cu"\}$' cat $scratch/good-kept.md
# every real chapter: no header, no #include of its first run, no code line over 100
# columns, no pointer into notes/
for folder in chapters/[0-9][0-9]-*/; do
    folder=${folder%/}
    main="$folder/${folder#chapters/[0-9][0-9]-}.cu"
    { $weave chapter --keep-placeholders "$main"; $weave tried --keep-placeholders "$main"; } \
        > $scratch/shown.md 2>/dev/null
    expect_status "$main: the book shows no file header and no #include line" 1 \
        grep -Eq '^(// |/\* )chapters/|^#include' $scratch/shown.md
    expect_output "$main: no code line over 100 columns" "^0$" awk '
        /^```+ \{\.cuda/ { code = 1; next } /^```+$/ { code = 0; next }
        code && length($0) > 100 { long++ } END { print long + 0 }' $scratch/shown.md
    # DESIGN 11: the book never sends the reader to the lab notebook
    expect_status "$main: the book never names notes/" 1 grep -q 'notes/' $scratch/shown.md
done

# ------------------------------------------------------------ openings
# Every chapter opens with its question (its first section, a heading that
# ends with "?", straight after the title, at most 200 words) and ends with
# its measured answer (a {{placeholder}} in its last section):
# tests/book/openings.sh, first on made-up chapters, then on the real ones.
mkdir -p $scratch/openings/good/01-asked $scratch/openings/bad/01-told $scratch/openings/bad/02-late
printf '%s\n' '/*md' '# Asked' '' '## How fast can it go?' '' 'We ask.' '' '## The answer' '' \
    'It took {{median_ms|k|S}} ms.' '*/' > $scratch/openings/good/01-asked/asked.cu
printf '%s\n' '/*md' '# Told' '' '## The plan' '' 'We tell.' '' '## The end' '' 'Done.' '*/' \
    > $scratch/openings/bad/01-told/told.cu
printf '%s\n' '/*md' '# Late' '' 'A paragraph first.' '' '## Why?' '' 'Because.' '*/' 'int x;' \
    '/*md' '## Measured' '' '{{figure|race-chapter2}}' '*/' > $scratch/openings/bad/02-late/late.cu
expect_output "openings.sh: a chapter that opens with its question and ends with a number passes" \
    "^checked 1 chapters, 0 faults\$" tests/book/openings.sh $scratch/openings/good
expect_failure "openings.sh: a first section that is not a question fails" \
    '^01-told: the first section "The plan" is not a question' tests/book/openings.sh $scratch/openings/bad
expect_failure "openings.sh: a last section with no measured number fails" \
    '^01-told: the last section "The end" has no measured number' tests/book/openings.sh $scratch/openings/bad
expect_failure "openings.sh: prose between the title and the question fails" \
    '^02-late: 3 words between the title and the first section' tests/book/openings.sh $scratch/openings/bad
expect_output "the real chapters: each opens with its question and ends with its measured answer (tests/book/openings.sh)" \
    "^checked $(ls -d chapters/[0-9][0-9]-*/ | wc -l) chapters, 0 faults\$" tests/book/openings.sh chapters

# ------------------------------------------------------------ no typed figures
# After make bench the book is the reader's card's: no prose types a time or a
# rate (tests/book/typed_figures.py), first on sentences that did (a floor of
# a part of the MSA layer, an intermediate's traffic at one card's bandwidth,
# a data sheet's peak, the figures split over lines), then on the real prose.
mkdir -p $scratch/typed
printf '%s\n' '/*md' '# Typed' '' 'The projections alone take 0.32, 1.28 and 0.24 ms at the three' \
    'shapes; the exponentials need at least 0.01, 0.13 and' '0.77 ms.' '' \
    'Some 2 GB at $S = 512$, over 0.4 ms at the 4.8 TB/s of one card,' \
    '0.48 ms instead of 0.16 at 535 TFLOP/s, on 22 MFLOP of work.' '' \
    'Computed: {{part_ms|fp32|10*B*S*N*D*D|k|S}} ms at {{card_memory_tbs|k|S}} TB/s, `0.5 ms` in code,' \
    '$10^{-3}$ ms in a formula, 8 `float4`s.' '*/' 'int x; /* 2.5 ms in code */' > $scratch/typed/typed.cu
expect_failure "typed_figures.py: typed times and rates fail, a list of them as one" \
    '^checked 1 files, 7 typed figures$' tests/book/typed_figures.py $scratch/typed/typed.cu
expect_output "... each named with its paragraph's line" \
    '^.*typed\.cu:4: typed "0\.01, 0\.13 and 0\.77 ms"$' tests/book/typed_figures.py $scratch/typed/typed.cu
expect_output "... a data sheet's bandwidth and peak too" \
    '^.*typed\.cu:8: typed "535 TFLOP/s"$' tests/book/typed_figures.py $scratch/typed/typed.cu
expect_output "... and a count of work, the same on every card but written as the shape's formula" \
    '^.*typed\.cu:8: typed "22 MFLOP"$' tests/book/typed_figures.py $scratch/typed/typed.cu
expect_output "the real prose types no time, rate or count of work (tests/book/typed_figures.py)" \
    '^checked [0-9]+ files, 0 typed figures$' \
    sh -c 'tests/book/typed_figures.py chapters/*/*.cu chapters/*/*.cuh chapters/*/tried/*.cu* book/front.md \
        book/closing.md book/roads-not-taken.md book/all-results.md'

# One baseline per race (tests/book/baselines.sh): a speedup over a champion
# is over the race's baseline (`champion`, the triangle's `cublas-tf32`), never
# over another champion; a step over a step, a champion over a champion pass.
printf '%s\n' '/*md' '# Two baselines' '' \
    'Fused is {{speedup|fused|unfused|S}} times the unfused layer and' \
    '{{speedup|fused-tiled|torch-compile|S}} times PyTorch, {{speedup|fused+graph|unfused+graph|S}} as graphs;' \
    'allowed: {{speedup|fused|champion|S}}, {{speedup|naive|cublas-tf32|T}},' \
    '{{speedup|fused-tiled-tf32|fused-tiled|S}}, {{speedup|cublas-tf32|cublas-rows|T}}.' '*/' \
    > $scratch/typed/baselines.cu
expect_failure "baselines.sh: a speedup over another champion than the race's baseline fails" \
    '^checked 1 files, 3 speedups over another champion$' \
    tests/book/baselines.sh chapters/kernels.list $scratch/typed/baselines.cu
expect_output "... naming it" '^.*baselines\.cu:5: fused-tiled is over torch-compile, not the race.s baseline$' \
    tests/book/baselines.sh chapters/kernels.list $scratch/typed/baselines.cu
expect_output "the real prose: every speedup over a champion is over the race's baseline (tests/book/baselines.sh)" \
    '^checked [0-9]+ files, 0 speedups over another champion$' \
    sh -c 'tests/book/baselines.sh chapters/kernels.list chapters/*/*.cu chapters/*/*.cuh chapters/*/tried/*.cu* \
        book/front.md book/closing.md book/roads-not-taken.md book/all-results.md'

# ------------------------------------------------------------ listings from other files
# {{listing|FILE|FUNCTION}}: FUNCTION's definition (not its declaration), with
# the template line and the comment above it, numbered as in FILE
mkdir -p $scratch/listing
printf 'x\n\n{{listing|tests/fixtures/book/wrapper.h|fixture_wrapper}}\n\n{{listing|tests/fixtures/book/wrapper.h|fixture_other}}\n' \
    > $scratch/listing/ok.md
expect_status "listing: the directive weaves" 0 sh -c "$weave prose $scratch/listing/ok.md > $scratch/listing/ok.out"
expect_output "listing: the definition, from its comment on, numbered as in the file" \
    '^``` \{\.cuda \.numberLines startFrom="7" source="tests/fixtures/book/wrapper\.h"\}$' cat $scratch/listing/ok.out
expect_output "... its template line and its body" "^template <int N>\$" cat $scratch/listing/ok.out
expect_output "... to its closing brace" "WRAPPER_BODY_SENTINEL" cat $scratch/listing/ok.out
expect_output "... a line comment above another function goes with it" \
    'startFrom="16".*' sh -c "grep -o 'startFrom=\"[0-9]*\"' $scratch/listing/ok.out | tail -1"
printf '{{listing|tests/fixtures/book/wrapper.h|no_such_function}}\n' > $scratch/listing/missing.md
expect_output "listing: a function the file does not define stops the weave, naming it" \
    "missing\.md:1: .*wrapper\.h has no definition of no_such_function\(\)" $weave prose $scratch/listing/missing.md
expect_status "... with exit status 1" 1 sh -c "$weave prose $scratch/listing/missing.md > /dev/null 2>&1"
printf '{{listing|tests/fixtures/book/no-such-file.h|f}}\n' > $scratch/listing/nofile.md
expect_output "listing: a file that is not there, named" "cannot read tests/fixtures/book/no-such-file\.h" \
    $weave prose $scratch/listing/nofile.md
printf '{{listing|tests/fixtures/book/wrapper.h}}\n' > $scratch/listing/short.md
expect_output "listing: a directive without its function says how to write it" \
    "write \{\{listing\|FILE\|FUNCTION\}\}" $weave prose $scratch/listing/short.md

# ------------------------------------------------------------ placeholders
mkdir -p $scratch/figures  # what plots/draw.sh writes for a plot, without gnuplot
printf '![The progress-trimul plot](%s/progress-trimul.svg){#fig-progress-trimul}\n\n' $scratch/figures \
    > $scratch/figures/progress-trimul.md
fixture_weave=($weave --data $fixtures/data --kernels $fixture_kernels --figures $scratch/figures)
"${fixture_weave[@]}" chapter "$good" > $scratch/good.md 2>$scratch/good.err
expect_status "the good fixture chapter weaves" 0 test -s $scratch/good.md
expect_output "a placeholder takes the newest row by date" "The naive kernel takes 3\.90 ms" cat $scratch/good.md
expect_output "among rows of one date, the later in the file wins" "registers 1\.15 ms" cat $scratch/good.md
expect_output "speedup, peak share, gpu and date placeholders" \
    "^13\.4 times as fast as naive and reaches$" cat $scratch/good.md
expect_output "peak share from the card's FP32 peak" "^33\.2 % of the FP32 peak" cat $scratch/good.md
expect_output "a tensor-core kernel's share is of the dense TF32 peak" \
    "reaches 12\.7 % of the dense TF32 peak" cat $scratch/good.md
expect_output "a graph replay's share is of its kernel's pipe" "graph 18\.7 % of the FP32 peak" cat $scratch/good.md
expect_output "gpu and date placeholders" "^Fixture H200 \(invented numbers\), 2025-01-02;$" cat $scratch/good.md
expect_output "placeholders of an MSA row" "67882 GFLOP/s and 4167 GB/s" cat $scratch/good.md
expect_output "code keeps its {{ }} untouched" "\{\{1, 2\}, \{3, 4\}\}; /\* \{\{not a placeholder\}\}" cat $scratch/good.md
expect_status "hidden code is not in the book" 1 grep -q HIDDEN_SENTINEL $scratch/good.md
expect_output "a hidden region leaves a quiet mark with its file and lines" \
    '^::: \{\.hidden-code source="tests/fixtures/book/chapters/01-good/good\.cu" first="32" last="34"\}$' \
    cat $scratch/good.md
expect_output "a code block's fence outgrows the backticks in it" '^```` \{\.cuda' cat $scratch/good.md
expect_output "a figure placeholder brings in the plot" '^!\[The progress-trimul plot\]\(.*progress-trimul\.svg\)' \
    cat $scratch/good.md

# ------------------------------------------------------------ line endings
# A chapter saved with a UTF-8 byte-order mark or with CRLF line endings is
# read as the same chapter saved plainly; one with CR-only line endings is
# refused with its file and line (it is one long line), as is a ``` fence
# left open in prose. The chapters are written here, byte by byte.
encodings=$scratch/encodings
mkdir -p $encodings/chapters/02-bom $encodings/chapters/02-crlf $encodings/chapters/02-cr-only
encoded_chapter() {  # encoded_chapter TITLE: a small chapter with a placeholder, LF endings
    printf '/*md\n# %s\n\nNaive takes {{median_ms|naive|B=8 T=1024 C=768 NH=12}} ms.\n*/\n#include <stdio.h>\n\n__global__ void encoded_kernel(float *out) { out[0] = 1.0f; }\n' "$1"
}
{ printf '\357\273\277'; encoded_chapter "A chapter that starts with a byte-order mark"; } \
    > $encodings/chapters/02-bom/bom.cu
encoded_chapter "A chapter with CRLF line endings" | sed 's/$/\r/' > $encodings/chapters/02-crlf/crlf.cu
encoded_chapter "A chapter with CR line endings" | tr '\n' '\r' > $encodings/chapters/02-cr-only/cr-only.cu
for name in bom crlf; do
    "${fixture_weave[@]}" chapter $encodings/chapters/02-$name/$name.cu > $encodings/$name.md 2> $encodings/$name.err
    expect_status "a chapter with a ${name^^}: woven, no warning" 0 \
        sh -c "test -s $encodings/$name.md && test ! -s $encodings/$name.err"
    expect_output "... its title read as its title" "^# A chapter (that starts with a byte-order mark|with CRLF line endings)$" \
        head -n 1 $encodings/$name.md
    expect_output "... its placeholder filled, in prose" "^Naive takes 3\.90 ms\.$" cat $encodings/$name.md
    expect_output "... its #include hidden, its code shown" "^__global__ void encoded_kernel" cat $encodings/$name.md
    expect_status "... and no carriage return or byte-order mark left" 1 grep -q $'\r\|\xef\xbb\xbf' $encodings/$name.md
done
expect_failure "a chapter with CR-only line endings is refused with its file and line" \
    "02-cr-only/cr-only\.cu:1: a carriage return that does not end a line" \
    "${fixture_weave[@]}" chapter $encodings/chapters/02-cr-only/cr-only.cu
expect_failure "a fence left open in a chapter's prose is refused at the fence" \
    "02-open-fence/open-fence\.cu:7: this fence \(\`\`\`\) is not closed before the prose block ends at line 9" \
    "${fixture_weave[@]}" chapter $fixtures/chapters/02-open-fence/open-fence.cu
printf 'Front matter.\n\n~~~\nnot closed\n' > $encodings/open-fence.md
expect_failure "a fence left open in a prose file is refused at the fence" \
    "open-fence\.md:3: this fence .* is not closed before the end of the file" \
    "${fixture_weave[@]}" prose $encodings/open-fence.md

# ------------------------------------------------------------ the fixtures' plots
# Drawn once, here; every make book of the fixture data below finds them
# drawn, and the tests of the plots further down read them.
if command -v gnuplot >/dev/null 2>&1; then
    expect_status "make plots from the fixtures" 0 fixture_book_make plots plots
fi

# ------------------------------------------------------------ what must fail
# make book draws the plots (gnuplot) and checks for pandoc before it weaves,
# so without them these cases cannot reach the weaver: skipped, with the reason.
if ! tool_missing "make book on broken input" gnuplot && ! tool_missing "make book on broken input" pandoc; then
    expect_failure "make book fails: /*md never closed" "02-unclosed/unclosed\.cu:7: .*never closed" \
        broken_book unclosed $fixtures/chapters/02-unclosed/unclosed.cu
    expect_failure "make book fails: book:hide without book:show" "hide-unclosed\.cu:5: .*never closed" \
        broken_book hide $fixtures/chapters/02-hide-unclosed/hide-unclosed.cu
    expect_failure "make book fails: book:show without book:hide" "show-alone\.cu:5: // book:show without" \
        broken_book show $fixtures/chapters/02-show-alone/show-alone.cu
    expect_failure "make book fails: */ in the middle of a prose line" "close-midline\.cu:4: \*/ inside" \
        broken_book midline $fixtures/chapters/02-close-midline/close-midline.cu
    expect_failure "make book fails: a placeholder naming a kernel and shape with no row" \
        "no-row\.cu:5: placeholder .*no row for kernel \"shared\"" \
        broken_book no-row $fixtures/chapters/02-no-row/no-row.cu
    expect_failure "make book fails: a placeholder with an unknown field" "bad-field\.cu:4: .*unknown field" \
        broken_book bad-field $fixtures/chapters/02-bad-field/bad-field.cu
    expect_failure "make book fails: a fence left open in prose" \
        "open-fence\.cu:7: this fence" broken_book open-fence $fixtures/chapters/02-open-fence/open-fence.cu
    expect_failure "make book fails: CR-only line endings" \
        "cr-only\.cu:1: a carriage return" broken_book cr-only $encodings/chapters/02-cr-only/cr-only.cu
    expect_failure "make book fails: a second '# ' title in a chapter's other file" \
        "02-second-title/part\.cu:2: a '# ' heading: the chapter's one title is in" \
        broken_book second-title $fixtures/chapters/02-second-title/second-title.cu
    # (a figure placeholder for a plot with no rows: with the plots below, which draw that data)

    # One malformed row (line 3 of trimul.csv) per case; the rest is the good fixture.
    malformed() {  # malformed NAME 'REPLACEMENT LINE 3' PATTERN
        local dir=$scratch/bad-csv-${1// /-}
        mkdir -p "$dir"
        awk -v row="$2" 'NR == 3 { print row; next } { print }' $fixtures/data/trimul.csv > "$dir/trimul.csv"
        expect_failure "make book fails on a malformed CSV row: $1" "$dir/trimul\.csv:3: malformed row: $3" \
            broken_book "csv-${1// /-}" "" "$dir"
    }
    row_tail='Fixture H200 (invented numbers),13.0,fixture,2025-01-02'
    malformed "12 fields" "2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,$row_tail" "12 fields"
    malformed "a word for a time" "2,naive,trimul,B=8 T=256 C=768 NH=12,fast,0.4,0.6,100.0,10.0,$row_tail" \
        "median_ms \"fast\" is not a number"
    malformed "min above median" "2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.7,0.9,100.0,10.0,$row_tail" \
        "min_ms <= median_ms"
    malformed "an unknown kernel" "2,turbo,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,$row_tail" \
        "kernel \"turbo\" is not one of"
    malformed "a variant the list does not name" \
        "5,shared+turbo,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,$row_tail" \
        "kernel \"shared\+turbo\" is not one of the trimul kernels"
    malformed "a rate above the peak of its pipe" \
        "2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,70000.0,10.0,$row_tail" \
        "gflops 70000\.0 is 104\.6% of the FP32 peak"
    malformed "a shape with missing keys" "2,naive,trimul,B=8 T=256,0.5,0.4,0.6,100.0,10.0,$row_tail" \
        "shape \"B=8 T=256\""
    malformed "a date not ISO" \
        "2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,Fixture H200,13.0,fixture,29/11/2025" \
        "date \"29/11/2025\""
    malformed "an unclosed quote" "2,naive,trimul,\"B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,$row_tail" \
        "a quoted field is never closed"
    malformed "an empty line" "" "an empty line"
    # rows that are well formed but impossible
    date_row="2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,Fixture H200,13.0,fixture"
    malformed "a day not in the calendar" "$date_row,2026-02-31" "date \"2026-02-31\" is not a day of the calendar"
    malformed "a date in the future" "$date_row,9999-12-31" "date \"9999-12-31\" is after today \(UTC\)"
    malformed "a chapter other than the list gives" "99,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,$row_tail" \
        "chapter 99, but the kernel list introduces naive in chapter 2"
    malformed "a hexadecimal time" "2,naive,trimul,B=8 T=256 C=768 NH=12,0x1p-1,0.4,0.6,100.0,10.0,$row_tail" \
        "median_ms \"0x1p-1\" is not a number"
    malformed "a size past int" \
        "2,naive,trimul,B=8 T=99999999999999999999999 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,$row_tail" \
        "shape .*: a size is larger than 2147483647"
    malformed "a line break in the gpu" \
        "2,naive,trimul,B=8 T=256 C=768 NH=12,0.5,0.4,0.6,100.0,10.0,\"Fixture\n# H200\",13.0,fixture,2025-01-02" \
        "gpu holds a control character"
    mkdir -p $scratch/bad-header
    sed '1s/gbps/gb_per_s/' $fixtures/data/trimul.csv > $scratch/bad-header/trimul.csv
    expect_failure "make book fails on a CSV with the wrong header" \
        "bad-header/trimul\.csv:1: the first line is not the header" broken_book header "" $scratch/bad-header
fi

# ------------------------------------------------------------ markup in the CSV's text
# A card's name and a commit are text from the CSV: a <script> or an <img
# onerror=...> there reaches the tables and the prose as characters, never
# as HTML. The fixture data plus a commit with a script on a headline row
# and the newest row from a card named like an image tag; a chapter shows
# both through placeholders.
markup=$scratch/markup
mkdir -p $markup/data $markup/chapters/01-markup
cp $fixtures/data/msa.csv $markup/data/
awk 'NR == 27 { sub(/,fixture,/, ",<script>alert(1)</script>,") } { print }
     END { print "3,registers,trimul,B=1 T=128 C=64 NH=1,0.5,0.4,0.6,100.0,10.0,<img src=x onerror=alert(2)>,13.0,x,2025-01-03" }' \
    $fixtures/data/trimul.csv > $markup/data/trimul.csv
printf '/*md\n# Markup\n\nOn the {{gpu|registers|B=1 T=128 C=64 NH=1}}, at {{commit|shared+swizzle|B=8 T=1024 C=768 NH=12}}.\n*/\n' \
    > $markup/chapters/01-markup/markup.cu
for table in headline all summary; do
    $results table $table --data $markup/data --kernels $fixture_kernels > $markup/$table.md 2>&1
done
$weave chapter --data $markup/data --kernels $fixture_kernels $markup/chapters/01-markup/markup.cu \
    > $markup/chapter.md 2>&1
expect_status "markup in a commit: the headline table escapes it" 0 \
    grep -qF '(commits fixture and \<script\>alert(1)\</script\>)' $markup/headline.md
expect_status "markup in a card's name: the table of all results escapes it" 0 \
    grep -qF '\<img src=x onerror=alert(2)\>, CUDA 13.0' $markup/all.md
expect_status "markup in the prose: placeholders escape it" 0 \
    grep -qxF 'On the \<img src=x onerror=alert(2)\>, at \<script\>alert(1)\</script\>.' $markup/chapter.md
expect_status "... and nothing of it is a tag in Markdown" 1 \
    grep -Eq '(^|[^\])<(script|img)' $markup/headline.md $markup/all.md $markup/chapter.md
if ! tool_missing "markup rendered by pandoc" pandoc; then
    cat $markup/headline.md $markup/all.md $markup/chapter.md | pandoc -f markdown -t html > $markup/page.html
    expect_status "markup rendered by pandoc: no <script> and no <img> tag in the HTML" 1 \
        grep -Eq '<script|<img' $markup/page.html
    expect_output "... but their text, escaped" '&lt;script&gt;alert\(1\)&lt;/script&gt;.*|&lt;img src=x onerror=alert\(2\)&gt;' \
        cat $markup/page.html
fi

# ------------------------------------------------------------ numbers it cannot print
# A time so small that a ratio to it has 31 digits would overflow the
# table's buffers: a value the tools cannot print sensibly is an error with
# the file and line of its row, never a truncated or overflowing number.
unprintable() {  # unprintable NAME 'REPLACEMENT LINE' LINE PATTERN: $results table must refuse it
    local dir=$scratch/unprintable-${1// /-}
    mkdir -p "$dir"
    awk -v row="$2" -v at="$3" 'NR == at { print row; next } { print }' $fixtures/data/trimul.csv > "$dir/trimul.csv"
    expect_failure "a value it cannot print is an error: $1" "$dir/trimul\.csv:$3: malformed row: $4" \
        $results table all --data "$dir" --kernels $fixture_kernels
}
default_tail='Fixture H200 (invented numbers),13.0,fixture,2025-01-02'
unprintable "a time 1e31 times shorter than cuBLAS's" \
    "2,naive,trimul,B=8 T=1024 C=768 NH=12,4e-32,3e-32,5e-32,100.0,10.0,$default_tail" 23 "median_ms"
unprintable "a time of 1e300 ms" \
    "1,cublas-permute,trimul,B=8 T=1024 C=768 NH=12,1e300,1e300,1e300,100.0,10.0,$default_tail" 20 "median_ms"
infinite=$scratch/unprintable-an-infinite-ratio
mkdir -p $infinite
awk -v tail="$default_tail" '
    NR == 20 { print "1,cublas-permute,trimul,B=8 T=1024 C=768 NH=12,1e300,1e300,1e300,100.0,10.0," tail; next }
    NR == 23 { print "2,naive,trimul,B=8 T=1024 C=768 NH=12,1e-10,1e-10,1e-10,100.0,10.0," tail; next }
    { print }' $fixtures/data/trimul.csv > $infinite/trimul.csv
expect_failure "a value it cannot print is an error: a ratio that overflows to infinity" \
    "$infinite/trimul\.csv:20: malformed row: median_ms" $results table all --data $infinite \
    --kernels $fixture_kernels
unprintable "an infinite rate" \
    "2,naive,trimul,B=8 T=1024 C=768 NH=12,3.9,3.8,4.0,inf,10.0,$default_tail" 23 "gflops"
unprintable "a rate of 1e40 GFLOPs" \
    "2,naive,trimul,B=8 T=1024 C=768 NH=12,3.9,3.8,4.0,1e40,10.0,$default_tail" 23 "gflops"

# ------------------------------------------------------------ sanitizers
# The book tools built with AddressSanitizer and UndefinedBehaviorSanitizer,
# run over the real chapters and measurements and over the failure fixtures.
# A report makes the tool exit 86 (a failure of the input exits 1): any
# report, or a sanitizer's line in the output, fails. Leaks are not checked:
# the tools are one-shot processes whose memory the exit gives back.
asan=build/book-asan
expect_status "the sanitized book tools build" 0 make --no-print-directory $asan/weave $asan/results
sanitized() {  # sanitized NAME COMMAND...: no sanitizer report, whatever the exit status
    local name="sanitizers: $1"; shift
    local log; log=$(log_of "$name")
    ASAN_OPTIONS=halt_on_error=1:detect_leaks=0:exitcode=86 \
        UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86 "$@" >"$log" 2>&1
    local status=$?
    if [ "$status" -eq 86 ] || grep -Eq 'runtime error:|AddressSanitizer|UndefinedBehaviorSanitizer' "$log"; then
        fail "$name" "a sanitizer report (exit $status)" "$log"
    else pass "$name"; fi
}
# The plot data is all the results tool does for the plots (gnuplot draws
# them); the weave reads the real plots' Markdown, drawn by make plots into
# plots/out, where the real make book below finds them drawn.
mkdir -p $scratch/asan-plotwork $scratch/asan-tables
sanitized "the plots of plots/data" $asan/results plotdata --data plots/data --kernels chapters/kernels.list \
    --out $scratch/asan-plotwork
if command -v gnuplot >/dev/null 2>&1; then
    expect_status "make plots (the real measurements), for the weave" 0 make --no-print-directory plots
fi
asan_figures=plots/out
sanitized "check plots/data" $asan/results check --data plots/data
for table in headline all summary; do
    sanitized "the $table table of plots/data" sh -c \
        "$asan/results table $table --data plots/data > $scratch/asan-tables/$table.md"
done
asan_weave=($asan/weave --data plots/data --figures $asan_figures --tables $scratch/asan-tables)
sanitized "the front matter" "${asan_weave[@]}" prose book/front.md
sanitized "the appendix of all results" "${asan_weave[@]}" prose book/all-results.md
sanitized "the appendix of the roads not taken" "${asan_weave[@]}" tried chapters/[0-9][0-9]-*/*.cu
for chapter in chapters/[0-9][0-9]-*/*.cu; do
    sanitized "$chapter, with its exercises and solutions" "${asan_weave[@]}" chapter \
        --exercises exercises --solutions solutions "$chapter"
done
for chapter in $fixtures/chapters/*/*.cu $encodings/chapters/*/*.cu; do
    sanitized "the fixture $chapter" $asan/weave chapter --data $fixtures/data --kernels $fixture_kernels \
        --figures $asan_figures --exercises $fixtures/exercises --solutions $fixtures/solutions "$chapter"
done
sanitized "the fixture $encodings/open-fence.md" $asan/weave prose --data $fixtures/data \
    --kernels $fixture_kernels $encodings/open-fence.md
sanitized "the fixtures' appendix of the roads not taken" $asan/weave tried --data $fixtures/data \
    --kernels $fixture_kernels $fixtures/chapters/*/*.cu
for dir in $scratch/unprintable-* $scratch/bad-csv-* $scratch/bad-header; do
    [ -d "$dir" ] || continue
    sanitized "the tables of the failure fixture $dir" $asan/results table all --data "$dir" \
        --kernels $fixture_kernels
done

# ------------------------------------------------------------ many rows
# The table and plot steps must stay linear (or n log n) in the rows: 100,000
# rows (two kernels at 20,000 sizes of each problem, and 20,000 repeated
# measurements at the default size) take well under a second; a quadratic
# step takes a minute.
many=$scratch/many-rows
mkdir -p $many/plots
awk -v tail='Fixture H200 (invented numbers),13.0,fixture,2025-01-02' 'BEGIN {
    header = "chapter,kernel,problem,shape,median_ms,min_ms,max_ms,gflops,gbps,gpu,cuda,commit,date"
    print header > "'$many'/trimul.csv"; print header > "'$many'/msa.csv"
    for (i = 1; i <= 20000; i++) {
        printf "2,naive,trimul,B=8 T=%d C=768 NH=12,2.0,1.9,2.1,100.0,10.0,%s\n", i, tail > "'$many'/trimul.csv"
        printf "3,registers,trimul,B=8 T=%d C=768 NH=12,1.0,0.9,1.1,200.0,20.0,%s\n", i, tail > "'$many'/trimul.csv"
        printf "2,naive,trimul,B=8 T=1024 C=768 NH=12,%.4f,1.0,9.0,100.0,10.0,%s\n", 1 + i / 20000, tail > "'$many'/trimul.csv"
        printf "6,unfused,msa,B=1 S=%d N=32 D=64 H=4,2.0,1.9,2.1,100.0,10.0,%s\n", i, tail > "'$many'/msa.csv"
        printf "6,fused,msa,B=1 S=%d N=32 D=64 H=4,1.0,0.9,1.1,200.0,20.0,%s\n", i, tail > "'$many'/msa.csv"
    }
}'
# Seconds of CPU (ulimit -t), not of the clock: a loaded machine (the other
# suites run beside this one) must not fail it, a quadratic reader still does.
expect_status "100,000 rows: the results tables within 5 CPU seconds" 0 \
    sh -c "ulimit -t 5; timeout 120 $results table all --data $many --kernels $fixture_kernels > $many/table.md"
expect_status "100,000 rows: the plot data within 5 CPU seconds" 0 \
    sh -c "ulimit -t 5; timeout 120 $results plotdata --data $many --kernels $fixture_kernels --out $many/plots"

# ------------------------------------------------------------ a failed book leaves no book
# Whatever step fails (the plots, the weaver, pandoc midway, weasyprint at
# the end), book/out holds no workbook.* afterwards: neither this run's
# half-written files nor an older book that would look fresh.
if ! tool_missing "a failed make book leaves no book" pandoc && ! tool_missing "a failed make book leaves no book" gnuplot; then
    stale=$scratch/stale
    fixture_book_make stale book BOOK_CHAPTERS="$good" >/dev/null 2>&1
    cp -r $stale/out $stale/old-book
    mkdir -p $stale/failing-weasyprint $stale/failing-pandoc
    printf '#!/bin/sh\necho "weasyprint: failing on purpose" >&2\nexit 1\n' > $stale/failing-weasyprint/weasyprint
    printf '#!/bin/sh\ncase "$*" in *.epub*) echo "pandoc: failing on purpose" >&2; exit 1;; esac\nexec %s "$@"\n' \
        "$(command -v pandoc)" > $stale/failing-pandoc/pandoc
    chmod +x $stale/failing-weasyprint/weasyprint $stale/failing-pandoc/pandoc
    no_book_left() {  # no_book_left NAME COMMAND...: COMMAND fails, and no workbook.* is left
        local name="a failed make book leaves no book: $1"; shift
        rm -rf $stale/out && cp -r $stale/old-book $stale/out
        local log; log=$(log_of "$name")
        "$@" >"$log" 2>&1
        local status=$? left
        left=$(ls $stale/out 2>/dev/null | grep '^workbook' | tr '\n' ' ')
        if [ "$status" -eq 0 ]; then fail "$name" "make book succeeded" "$log"
        elif [ -n "$left" ]; then fail "$name" "left $left" "$log"
        else pass "$name"; fi
    }
    book_plots=$stale/bad-plots no_book_left "the plots fail (a malformed row)" \
        book_make stale book BOOK_CHAPTERS="$good" WORKBOOK_DATA=$scratch/bad-csv-12-fields
    no_book_left "the weaver fails (a broken chapter)" \
        fixture_book_make stale book BOOK_CHAPTERS="$good $fixtures/chapters/02-unclosed/unclosed.cu"
    no_book_left "pandoc fails midway (the EPUB)" env PATH="$stale/failing-pandoc:$PATH" \
        make --no-print-directory book PLOTS_OUT=$fixture_plots/plots PLOTS_PNG=$fixture_plots/png \
        PLOTS_WORK=$fixture_plots/plotwork BOOK_WORK=$stale/work BOOK_OUT=$stale/out BOOK_CHAPTERS="$good" WORKBOOK_DATA=$fixtures/data \
        BOOK_EXERCISES=$fixtures/exercises KERNEL_LIST=$fixture_kernels
    no_book_left "weasyprint fails (the PDF, last)" env PATH="$stale/failing-weasyprint:$PATH" \
        make --no-print-directory book PLOTS_OUT=$fixture_plots/plots PLOTS_PNG=$fixture_plots/png \
        PLOTS_WORK=$fixture_plots/plotwork BOOK_WORK=$stale/work BOOK_OUT=$stale/out BOOK_CHAPTERS="$good" WORKBOOK_DATA=$fixtures/data \
        BOOK_EXERCISES=$fixtures/exercises KERNEL_LIST=$fixture_kernels
fi

# ------------------------------------------------------------ tables
# The front matter's headline: the champions and each chapter's best kernel
# at the default sizes, in the list's order (not the alphabet's), at most 20
# rows; the appendix: every kernel at every size, tried ones and graph
# replays too. A share of peak is against the kernel's own pipe.
$results table headline --data $fixtures/data --kernels $fixture_kernels > $scratch/headline.md 2>&1
$results table all --data $fixtures/data --kernels $fixture_kernels > $scratch/all.md 2>&1
expect_output "headline table: a chapter's best kernel" "^\| 5 \| shared\+swizzle \| 0\.250 \|" cat $scratch/headline.md
expect_status "headline table: no step, no tried kernel, no graph replay" 1 \
    grep -Eq '^\| 5 \| shared \||shared\+unrolled|\+graph' $scratch/headline.md
expect_status "headline table: the default sizes only" 1 grep -q 'T=256' $scratch/headline.md
expect_output "headline table: in the order of the list, not the alphabet's" "^permute direct$" sh -c \
    "grep -oE '[|] cublas-(permute|direct) [|]' $scratch/headline.md | sed -E 's/.*-([a-z]+) .*/\1/' | paste -sd ' '"
expect_output "headline table: the MSA default size" "MSA gated attention\*\* at B=1 S=512 N=256 D=256 H=8" \
    cat $scratch/headline.md
# speedups against the fastest champion at the table's size, as the race
# charts draw them (cublas-tf32 here; the list's first champion, cublas-permute,
# before 2026-12-07)
expect_output "tables: a column '% of peak', speedups over the fastest champion" \
    "\| GFLOP/s \| % of peak \| vs cublas-tf32 \|" cat $scratch/headline.md
expect_output "tables: a tensor-core kernel against the dense TF32 peak" "\| tf32 \|.*\| 12\.7 \(TF32\) \|" \
    cat $scratch/headline.md
expect_output "tables: an FP32 kernel against the FP32 peak" "\| shared\+swizzle \|.*\| 38\.6 \(FP32\) \|" \
    cat $scratch/headline.md
expect_output "tables: a note says which peak is which pipe's" \
    "FP32 kernels against the FP32 peak of the Fixture H200 \(invented numbers\), 66\.9 TFLOP/s, tensor-core kernels against its dense TF32 peak, 535\.3 TFLOP/s" \
    cat $scratch/headline.md
expect_output "all results: every size, with its shape" "^\| B=8 T=256 C=768 NH=12 \| 1 \| cublas-permute \|" \
    cat $scratch/all.md
expect_output "all results: the tried kernels" "^\| B=8 T=1024 C=768 NH=12 \| 5 \| shared\+unrolled \|" cat $scratch/all.md
expect_output "all results: a graph replay right after its kernel, with its kernel's pipe" \
    "^\| B=2 S=8 N=32 D=64 H=4 \| 6 \| fused\+graph \|.*\| 18\.7 \(FP32\) \|" \
    sh -c "grep -A1 '| fused |' $scratch/all.md | grep -A0 'fused+graph'"
expect_output "the real headline table: at most 20 rows a card" "^([0-9]|1[0-9]|20)$" sh -c \
    "$results table headline | awk '/^[*][*]/ { t++ } /^[|] [0-9]/ { n[t]++ } END { for (k in n) if (n[k] > m) m = n[k]; print m + 0 }'"
# The printed appendix: per problem a row per size (the story's: every key
# kept where a mask is named), the floors, the champions on each pipe and
# every chapter's fastest kernel; the sizes all rows share in the caption.
$results table summary --data $fixtures/data --kernels $fixture_kernels > $scratch/summary.md 2>&1
expect_output "summary: the columns, floors and champions first, then every chapter" \
    "^\| Shape \| FP32 floor \| TF32 floor \| Champion FP32 \| Champion TF32 \| Ch\. 2 \| Ch\. 3 \| Ch\. 4 \| Ch\. 5 \| Ch\. 8 \|$" \
    cat $scratch/summary.md
expect_output "summary: a size, its floors and each chapter's fastest (shared+swizzle, not a slower step)" \
    "^\| T=1024 \| 0\.0964 \| 0\.0577 \| 0\.310 \| 0\.120 \| 3\.90 \| 1\.15 \| 0\.620 \| 0\.250 \| 0\.0950 \|$" \
    cat $scratch/summary.md
expect_output "summary: the sizes every row shares go to the caption" "Every shape here has B=8 C=768 NH=12;" \
    cat $scratch/summary.md
expect_output "summary: a row per size of each problem (5 and 3)" "^8$" sh -c "grep -c '^| [BT]=' $scratch/summary.md"
expect_output "summary: a chapter not measured at a size shows a dash" \
    "^\| B=1 S=1024 N=384 D=64 H=8 \| .* \| - \| - \| 1\.60 \|$" cat $scratch/summary.md

# ------------------------------------------------------------ your card, your book
# After make bench on a student's card, the tables show that card's numbers
# first and the H200's after them, for comparison; the plots draw that card;
# the prose takes that card's rows, and another card's, with a footnote,
# where that card has none. A card with too few rows (one row of an unknown
# card, newer than all) never takes over; nor does a card that lacks a
# headline kernel it could have run. The fixture data plus the same headline
# rows measured on an RTX 4090 (twice the times), and a newer row from a
# card the peaks table does not know.
cards=$scratch/cards
mkdir -p $cards/full $cards/partial $cards/chapters/01-cards
student_rows() {  # student_rows DIR SKIP: the fixture's default-size rows of the headline kernels
                  # (but SKIP), as an RTX 4090 measured them, into DIR/trimul.new and DIR/msa.new
    awk -F, -v OFS=, -v out="$1" -v skip="$2" 'FNR > 1 && ($4 == "B=8 T=1024 C=768 NH=12" || $4 == "B=1 S=512 N=256 D=256 H=8") &&
        $10 ~ /Fixture H200/ && $2 !~ /^shared$|^shared\+unrolled$|\+graph$|^torch/ && $2 != skip && !seen[$2 $4]++ {
            for (k = 5; k <= 7; k++) $k = sprintf("%.6f", 2 * $k)
            $8 = sprintf("%.1f", $8 / 2); $9 = sprintf("%.1f", $9 / 2)
            $10 = "NVIDIA GeForce RTX 4090"; $11 = "13.0"; $12 = "student"; $13 = "2025-01-05"
            print > (out "/" (FILENAME ~ /msa/ ? "msa" : "trimul") ".new")
        }' $fixtures/data/trimul.csv $fixtures/data/msa.csv
}
mystery='2,naive,trimul,B=8 T=1024 C=768 NH=12,5.0,4.9,5.1,1290.0,55.0,Mystery GPU,13.0,one-row,2025-01-06'
for kind in full partial; do
    student_rows $cards/$kind "$([ $kind = partial ] && echo tf32)"
    for problem in trimul msa; do
        cat $fixtures/data/$problem.csv $cards/$kind/$problem.new > $cards/$kind/$problem.csv
        rm $cards/$kind/$problem.new
    done
    echo "$mystery" >> $cards/$kind/trimul.csv
    $results table headline --data $cards/$kind --kernels $fixture_kernels > $cards/$kind/headline.md 2>&1
    $results table all --data $cards/$kind --kernels $fixture_kernels > $cards/$kind/all.md 2>&1
done
expect_output "your card: the headline shows the student's card first" \
    "^\*\*The triangle\*\* at B=8 T=1024 C=768 NH=12, the champions and each chapter's best kernel\. NVIDIA GeForce RTX 4090, CUDA 13\.0, measured 2025-01-05" \
    cat $cards/full/headline.md
expect_output "... its numbers (naive twice the fixture's 3.90 ms)" "^\| 2 \| naive \| 7\.80 \|" cat $cards/full/headline.md
expect_output "... then the H200's, for comparison" \
    "^\*\*The triangle\*\* at B=8 T=1024 C=768 NH=12 on another card, for comparison\. Fixture H200 \(invented numbers\)" \
    cat $cards/full/headline.md
cards_in() {  # the card of each table of a Markdown file, in order, one word each
    grep '^\*\*' "$1" | grep -oE '(RTX 4090|H200 \(invented numbers\)|Mystery GPU), CUDA' |
        sed -E 's/.*(RTX|H200|Mystery).*/\1/' | paste -sd ' '
}
expect_output "... for both problems: two tables each, the student's card first" \
    "^RTX H200 RTX H200$" cards_in $cards/full/headline.md
expect_output "... each card's share of peak against its own peaks" \
    "FP32 peak of the NVIDIA GeForce RTX 4090, 82\.6 TFLOP/s, .*dense TF32 peak, 82\.6 TFLOP/s" cat $cards/full/headline.md
expect_status "one row from an unknown card takes over nothing in the headline" 1 grep -q 'Mystery GPU' $cards/full/headline.md
expect_output "... but is in the table of all results, after the cards measured in full" \
    "^RTX H200 Mystery RTX H200$" cards_in $cards/full/all.md
expect_output "a newer card without a kernel it could run (tf32) does not take over the triangle" \
    "^\*\*The triangle\*\* at B=8 T=1024 C=768 NH=12, the champions and each chapter's best kernel\. Fixture H200" \
    cat $cards/partial/headline.md
expect_status "... nor shows beside it" 1 grep -q 'The triangle.*RTX 4090' $cards/partial/headline.md
expect_output "... while the MSA layer, measured in full on it, shows it first" \
    "^\*\*MSA gated attention\*\* at B=1 S=512 N=256 D=256 H=8, the champions and each chapter's best kernel\. NVIDIA GeForce RTX 4090" \
    cat $cards/partial/headline.md
mkdir -p $cards/plots
$results plotdata --data $cards/full --kernels $fixture_kernels --out $cards/plots 2>/dev/null
expect_output "the plots draw the student's card" "^gpu = 'NVIDIA GeForce RTX 4090'$" cat $cards/plots/trimul.vars.gp
expect_output "... with its memory bandwidth for the memory floor (1008 GB/s, common/device/gpu_peaks.c)" \
    "^memory_tbs = 1\.008$" cat $cards/plots/trimul.vars.gp
printf '%s\n' '/*md' '# Cards' '' \
    'On the {{gpu|naive|B=8 T=1024 C=768 NH=12}}, naive takes {{median_ms|naive|B=8 T=1024 C=768 NH=12}} ms,' \
    '{{speedup|tf32|naive|B=8 T=1024 C=768 NH=12}} times as long as tf32 ({{peak_pct|tf32|B=8 T=1024 C=768 NH=12}} %);' \
    'at T=256 it takes {{median_ms|naive|B=8 T=256 C=768 NH=12}} ms.' \
    'Its memory: {{card_memory_tbs|naive|B=8 T=1024 C=768 NH=12}} TB/s, {{card_sms|naive|B=8 T=1024 C=768 NH=12}} SMs, floor {{floor_fp32_ms|naive|B=8 T=1024 C=768 NH=12}} ms.' \
    'Pinned: {{median_ms|naive|B=8 T=1024 C=768 NH=12|card=Fixture H200}} ms.' '*/' > $cards/chapters/01-cards/cards.cu
$weave --data $cards/full --kernels $fixture_kernels chapter $cards/chapters/01-cards/cards.cu > $cards/chapter.md 2>&1
expect_output "the prose takes the student's card, not the newer unknown one" \
    "^On the NVIDIA GeForce RTX 4090, naive takes 7\.80 ms,$" cat $cards/chapter.md
expect_output "... its speedups and shares of peak too" "^41\.1 times as long as tf32 \(41\.1 %\);$" cat $cards/chapter.md
expect_output "... and another card's row where it has none, with a footnote naming both" \
    "^at T=256 it takes 0\.332\^\[Measured on the Fixture H200 \(invented numbers\); the NVIDIA GeForce RTX 4090, whose numbers this book shows, has no row of naive at B=8 T=256 C=768 NH=12\.\] ms\.$" \
    cat $cards/chapter.md
# The card's facts: the RTX 4090's bandwidth (1008 GB/s) and 128 SMs, the
# floor its 82.6 TFLOP/s FP32 peak puts under naive's work (the work:
# 827 GFLOP/s, the fixture's halved, times 7.80 ms).
expect_output "a card's facts come from the card the prose shows (RTX 4090)" \
    "^Its memory: 1\.01 TB/s, 128 SMs, floor 0\.078[0-9] ms\.$" cat $cards/chapter.md
expect_output "card= pins the card: the H200's row, no footnote" "^Pinned: 3\.90 ms\.$" cat $cards/chapter.md
printf '%s\n' '/*md' '# Cards' '' '{{median_ms|naive|B=8 T=1024 C=768 NH=12|card=Nowhere}}' '*/' \
    > $cards/chapters/01-cards/pinned.cu
expect_failure "card= with no such card is an error, not another card's number" \
    "pinned\.cu:4: placeholder .*no card whose name holds \"Nowhere\"" \
    $weave --data $cards/full --kernels $fixture_kernels chapter $cards/chapters/01-cards/pinned.cu
# A part of the work, its count a formula of the shape's sizes, on one pipe of
# the card the prose shows (the RTX 4090: 82.6 TFLOP/s FP32, 1008 GB/s, 128
# SMs x 16 special-function results a clock at 2.52 GHz): 2 B NH T^2 HS =
# 12.9 GFLOP at the FP32 peak, the input's 75.5 MB at its bandwidth,
# B NH T^2 = 1.01e8 exponentials at the special-function unit's rate.
shape_1024='B=8 T=1024 C=768 NH=12'
mkdir -p $cards/chapters/02-parts $cards/chapters/03-broken  # a chapter each: a folder weaves whole
printf '%s\n' '/*md' '# Parts' '' \
    "FP32 {{part_ms|fp32|2*B*NH*T*T*64|naive|$shape_1024}} ms, TF32 {{part_ms|tf32|2*B*NH*T*T*64|naive|$shape_1024}} ms," \
    "memory {{part_ms|memory|4*B*T*3*C|naive|$shape_1024}} ms, SFU {{part_ms|sfu|B*NH*T*T|naive|$shape_1024}} ms" \
    "at {{card_sfu_tops|naive|$shape_1024}} trillion a second," \
    "counts {{count|B*NH*T*T|naive|$shape_1024}} and {{count_giga|2*B*NH*T*T*64|naive|$shape_1024}} G." \
    "Baseline {{champion|naive|$shape_1024}}: {{speedup|naive|champion|$shape_1024}} = {{speedup|naive|cublas-tf32|$shape_1024}}." \
    "At T=256 {{champion|naive|B=8 T=256 C=768 NH=12}}." '*/' \
    > $cards/chapters/02-parts/parts.cu
$weave --data $cards/full --kernels $fixture_kernels chapter $cards/chapters/02-parts/parts.cu > $cards/parts.md 2>&1
expect_output "part_ms: a part of the work at the FP32 and dense TF32 peaks of the card the prose shows" \
    "^FP32 0\.156 ms, TF32 0\.156 ms,$" cat $cards/parts.md
expect_output "... bytes at its bandwidth, results at its special-function unit's rate" \
    "^memory 0\.0749 ms, SFU 0\.0195 ms$" cat $cards/parts.md
expect_output "... that rate a card fact (card_sfu_tops)" "^at 5\.16 trillion a second,$" cat $cards/parts.md
expect_output "... and the counts themselves, typeset as a power of ten or in billions" \
    '^counts \$1\.01 \\times 10\^\{8\}\$ and 12\.9 G\.$' cat $cards/parts.md
expect_output "champion: the race's baseline, the fastest champion on that card (not the list's first), its speedup the same" \
    '^Baseline cublas-tf32: ([0-9.]+) = \1\.$' cat $cards/parts.md
expect_output "... from another card, with its footnote, where the book's card has no row there" \
    '^At T=256 cublas-[a-z0-9]+\^\[Measured on the Fixture H200 \(invented numbers\); the NVIDIA GeForce RTX 4090' \
    cat $cards/parts.md
for broken in "part_ms|fp64|B*T|naive|$shape_1024:unknown pipe \"fp64\"" \
              "part_ms|fp32|B*X|naive|$shape_1024:the count \"B\*X\": no such size in the shape: \"X\"" \
              "part_ms|fp32|T-T|naive|$shape_1024:the count \"T-T\" is 0 at" \
              "count|B*T|$shape_1024:expected \{\{FIELD\|COUNT\|KERNEL\|SHAPE\}\}"; do
    printf '%s\n' '/*md' '# Parts' '' "{{${broken%%:*}}}" '*/' > $cards/chapters/03-broken/broken-part.cu
    expect_failure "part_ms and count refuse: ${broken#*:}" "broken-part\.cu:4: placeholder .*${broken#*:}" \
        $weave --data $cards/full --kernels $fixture_kernels chapter $cards/chapters/03-broken/broken-part.cu
done

# ------------------------------------------------------------ plots
if ! tool_missing "plots from the fixtures" gnuplot; then
    # $fixture_plots ($scratch/plots) was drawn before the books that share it
    # a race chart per chapter with kernels of the problem (the fixture list's
    # chapters 1 to 5 and 8 for the triangle, 6 and 7 for the MSA layer), and
    # a sweep or msa plot for each of those chapters
    expect_output "plots: a race chart per chapter, the multi-size plots bound to a chapter" \
        "^race-chapter1 race-chapter2 race-chapter3 race-chapter4 race-chapter5 race-chapter8 progress-trimul peak sweep-chapter1 sweep-chapter2 sweep-chapter3 sweep-chapter4 sweep-chapter5 sweep-chapter8 race-chapter6 race-chapter7 progress-msa msa-chapter6 msa-chapter7\$" \
        sh -c "paste -sd ' ' $scratch/plots/plots/index"
    for plot in progress-trimul progress-msa peak sweep-chapter5 msa-chapter7 race-chapter2 race-chapter5; do
        expect_status "plot $plot: SVG and PNG drawn" 0 \
            test -s $scratch/plots/plots/$plot.svg -a -s $scratch/plots/png/$plot.png
        expect_output "plot $plot: its title names the GPU and the date" \
            "Fixture H200 \(invented numbers\), 2025-01-02" cat $scratch/plots/plots/$plot.svg
    done
    expect_output "plots: the kernels in the order of the list" "^cublas-permute cublas-direct cublas-tf32 naive" \
        sh -c "grep '\"B=8 T=1024 C=768 NH=12\"' $scratch/plots/plotwork/trimul.dat | awk '{ print \$2 }' |
               tr -d '\"' | paste -sd ' '"
    expect_status "plots: no tried kernel, no graph replay" 1 \
        grep -Eq 'shared\+unrolled|\+graph' $scratch/plots/plotwork/trimul.dat $scratch/plots/plotwork/msa.dat
    for floor in "FP32 floor" "TF32 floor" "memory floor"; do
        expect_output "progress plots: the $floor drawn" "^2$" \
            sh -c "cat $scratch/plots/plots/progress-*.svg | grep -c '>$floor '"
    done
    expect_output "progress plots: the caption says how the floors are computed" \
        "the dense work, .* GFLOP, at the FP32 peak .* at the memory bandwidth \(4\.80 TB/s\).*; peaks and bandwidth derived from the card's data sheet\." \
        cat $scratch/plots/plots/progress-trimul.caption
    expect_output "progress plots: the champions as bars" ">cublas-direct<" \
        cat $scratch/plots/plots/progress-trimul.svg
    expect_output "race chart of chapter 2: the champions and naive, nothing later" \
        "^cublas-permute cublas-direct cublas-tf32 naive\$" sh -c "paste -sd ' ' $scratch/plots/plotwork/race-chapter2.kernels"
    expect_output "... the FP32 floor, and no TF32 floor before a chapter's kernel runs on the tensor cores" \
        "^1 0\$" sh -c "echo \$(grep -c '>FP32 floor' $scratch/plots/plots/race-chapter2.svg) \$(grep -c '>TF32 floor' $scratch/plots/plots/race-chapter2.svg)"
    expect_output "... a linear axis: a speedup, longer is faster" "speedup over cublas-tf32 \(longer is faster\)" \
        cat $scratch/plots/plots/race-chapter2.svg
    expect_output "... each bar's value printed on an opaque box (a line behind it never crosses it)" \
        "^$(grep -c . $scratch/plots/plotwork/race-chapter2.bars)\$" \
        sh -c "grep -o '>[0-9.]*× ([0-9.e-]* ms)<' $scratch/plots/plots/race-chapter2.svg | sort -u | wc -l"
    expect_output "peak: one yardstick, the FP32 peak, so the tensor-core kernel is drawn longer than the FP32 ones" \
        "^tf32$" sh -c "sort -k2,2g $scratch/plots/plotwork/peak.bars | tail -n1 | awk '{ print \$6 }' | tr -d '\"'"
    expect_output "... with both pipes' peaks" "^1 1\$" sh -c "echo \$(grep -c '>FP32 peak' $scratch/plots/plots/peak.svg) \$(grep -c '>TF32 tensor peak' $scratch/plots/plots/peak.svg)"
    expect_output "sweep: each chapter's best up to chapter 5 and each pipe's fastest champion" "^6$" \
        cat $scratch/plots/plotwork/sweep-chapter5.series
    expect_status "... and not chapter 8's tf32" 1 grep -qx tf32 $scratch/plots/plotwork/sweep-chapter5.kernels
    expect_output "msa: a panel per size that three kernels ran at" "^3 3$" \
        sh -c "paste -sd ' ' $scratch/plots/plotwork/msa-chapter7.series"
    # the checker of chapter bounds (tests/book/chapter_bound.sh), on a chapter 2 that places chapter 5's chart
    mkdir -p $scratch/bound/02-early
    printf '/*md\n{{figure|race-chapter5}}\n*/\n' > $scratch/bound/02-early/early.cuh
    expect_output "chapter bounds: a chapter placing a later chapter's chart fails, naming the kernel" \
        "^02-early: race-chapter5 shows registers \(chapter 3\)" tests/book/chapter_bound.sh $scratch/bound $fixture_kernels $scratch/plots/plotwork
    # drawn again from less data over a copy of the fixtures' plots, which the books still share
    mkdir -p $scratch/trimul-only
    cp $fixtures/data/trimul.csv $scratch/trimul-only/
    cp -a $fixture_plots $scratch/plots-redrawn
    expect_status "make plots with no MSA rows succeeds" 0 \
        book_make plots-redrawn plots WORKBOOK_DATA=$scratch/trimul-only
    expect_status "... and leaves the MSA plot out" 1 test -e $scratch/plots-redrawn/plots/msa-chapter6.svg
    expect_output "... and draws the others" "^race-chapter1 race-chapter2 race-chapter3 race-chapter4 race-chapter5 race-chapter8 progress-trimul peak sweep-chapter1 sweep-chapter2 sweep-chapter3 sweep-chapter4 sweep-chapter5 sweep-chapter8\$" \
        sh -c "paste -sd ' ' $scratch/plots-redrawn/plots/index"
    if command -v pandoc >/dev/null 2>&1; then  # a book of that data, its plots drawn
        book_plots=$scratch/plots-redrawn \
            expect_failure "make book fails: a figure placeholder for a plot with no rows" \
            "missing-figure\.cu:4: placeholder \{\{figure\|msa\}\}" book_make figure book \
            BOOK_CHAPTERS=$fixtures/chapters/02-missing-figure/missing-figure.cu WORKBOOK_DATA=$scratch/trimul-only
    fi
    expect_status "make plots with no data at all succeeds" 0 \
        book_make plots-redrawn plots WORKBOOK_DATA=$scratch/no-such-folder
    expect_status "... and draws nothing" 0 test ! -s $scratch/plots-redrawn/plots/index
    mkdir -p $scratch/markup-plot-data
    sed 's/Fixture H200 (invented numbers)/Fixture H200 <b>bold<\/b> \& more/' $fixtures/data/trimul.csv \
        > $scratch/markup-plot-data/trimul.csv
    book_make markup-plot plots WORKBOOK_DATA=$scratch/markup-plot-data > /dev/null 2>&1
    expect_status "markup in a card's name: the plots' captions escape it" 0 \
        grep -qF 'Measured on the Fixture H200 \<b\>bold\</b\> \& more, ' $scratch/markup-plot/plots/sweep-chapter5.md
fi

# ------------------------------------------------------------ labels on boxes
# plots/textbox.awk: gnuplot's filtered label box (which WeasyPrint ignores)
# becomes a white rectangle behind the label, sized by its text and anchor
mkdir -p $scratch/textbox
printf '%s\n' "<path d='M10,0 L10,100'/>" \
    "<g transform=\"translate(100.00,50.00)\" stroke=\"none\" fill=\"black\" font-size=\"10.00\"  text-anchor=\"start\" style='filter:url(#textbox)'>" \
    "<text>1.74× (0.104 ms)</text>" "</g>" \
    "<g transform=\"translate(100.00,50.00)\" stroke=\"none\" fill=\"black\" font-size=\"10.00\"  text-anchor=\"start\">" \
    "<text>1.74× (0.104 ms)</text>" "</g>" > $scratch/textbox/label.svg
expect_output "textbox.awk: a white rectangle behind the label, 16 characters wide, from its start" \
    "^<rect x='97.00' y='40.50' width='105.20' height='12.50' fill='#FFFFFF' stroke='none'/>\$" \
    sh -c "awk -f plots/textbox.awk $scratch/textbox/label.svg | sed 's/^[[:space:]]*//'"
expect_output "... the filtered copy gone, the label and the rest kept" "^1 0 1$" sh -c "
    awk -f plots/textbox.awk $scratch/textbox/label.svg > $scratch/textbox/out.svg &&
    echo \$(grep -c '<text>' $scratch/textbox/out.svg) \$(grep -c filter $scratch/textbox/out.svg) \$(grep -c '<path' $scratch/textbox/out.svg)"

# ------------------------------------------------------------ TeX left in the text
# tests/book/tex_left.sh finds TeX a reader would see; book/math.lua reports
# it as it renders, and stops on a formula MathJax cannot read.
mkdir -p $scratch/tex
printf '<p>writing only the columns $j &lt; $ <code>first_row + rows</code></p>\n<p>clean, <code>$x</code> in code</p>\n<pre>printf("$%%d\\\\n")</pre>\n' \
    > $scratch/tex/leak.html
printf '<p><math><semantics><mi>T</mi><annotation encoding="application/x-tex">T \\times T</annotation></semantics></math> kept</p>\n' \
    > $scratch/tex/mathml.html
printf '<p>typeset: <img src="a.svg" alt="x^{2} \\le \\sqrt{y}" class="math" />, with <code>a_{b}</code> in code</p>\n' \
    > $scratch/tex/clean.html
expect_output "tex_left.sh: a dollar left in the text, named with its file and line" \
    "leak\.html:1:writing only the columns \\\$j < \\\$" tests/book/tex_left.sh html $scratch/tex/leak.html
expect_output "tex_left.sh: ... and TeX as MathML carries it (the old book's annotations)" \
    'mathml\.html:1:.*T \\times T kept' tests/book/tex_left.sh html $scratch/tex/mathml.html
expect_status "tex_left.sh: formulas as images and code are no TeX left" 0 tests/book/tex_left.sh html $scratch/tex/clean.html
printf 'o = e^{s_j - M} / \\frac{1}{2}\n' > $scratch/tex/flat.txt
expect_status "tex_left.sh: TeX in the PDF's text" 1 tests/book/tex_left.sh text $scratch/tex/flat.txt
printf '141        asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %%36, 0;\\n"\n' > $scratch/tex/listing.txt
expect_status "tex_left.sh: a listing's line in the PDF's text is code, not TeX" 0 \
    tests/book/tex_left.sh text $scratch/tex/listing.txt
printf 'see \\frac{1}{2}, then\n141        code\n' > $scratch/tex/after.txt
expect_output "tex_left.sh: ... and the lines around it still count, numbered as in the file" \
    'after\.txt:1:see \\frac' tests/book/tex_left.sh text $scratch/tex/after.txt
if ! tool_missing "book/math.lua" pandoc && ! tool_missing "book/math.lua" node; then
    printf 'Keep only the columns $j < $ `first_row + rows`, and $T \\times T$ is typeset.\n' > $scratch/tex/leak.md
    expect_output "math.lua: TeX it could not typeset is reported, with its words" \
        'book/math\.lua: TeX left as text, no formula: "Keep only the columns \$j < \$ first_row \+ rows' \
        env BOOK_MATH=$scratch/tex/math pandoc $scratch/tex/leak.md --lua-filter=book/math.lua -t html5 --wrap=none \
        -o $scratch/tex/leak-out.html
    expect_output "math.lua: ... and the formula beside it is an SVG image" '<img src="[^"]*\.svg" class="math"' \
        cat $scratch/tex/leak-out.html
    printf 'A broken formula, $\\frac{a$.\n' > $scratch/tex/broken.md
    expect_failure "math.lua: a formula MathJax cannot read stops the book, named" \
        'tex2svg: TeX error in \$\\frac\{a\$' \
        env BOOK_MATH=$scratch/tex/math pandoc $scratch/tex/broken.md --lua-filter=book/math.lua -t html5 -o $scratch/tex/broken.html
    # each formula's text (book/math_text.mjs), as tex2svg.mjs writes it
    # beside the SVG: TeX in, TEXT out, a case a line
    cat > $scratch/tex/cases.txt <<'CASES'
T \times T	T × T
P(j, i)	P(j, i)
x_{\text{small}} \le 2^{-11} |x|	x_small ≤ 2⁻¹¹|x|
y_{s,f} = \sum_k \mathit{in}_{s,k}\, w_{f,k}	y_(s,f) = ∑_k in_(s,k) w_(f,k)
\frac{2mn}{4(m+n)}	2mn/(4(m + n))
1/\sqrt{HS} = 1/\sqrt d	1/√(HS) = 1/√d
\ell' = e^{m - m'}\,\ell	ℓ′ = e^(m−m′) ℓ
a_{\text{big}} b_{\text{small}}	a_big b_small
\hat X W_q^T + K^\top	X̂W_qᵀ + Kᵀ
O \mathrel{+}= P V	O += PV
e_j = \exp(s_j - m), \log_2 e	e_j = exp(s_j − m), log₂ e
256 \times 64 = 262{,}144	256 × 64 = 262,144
\lfloor \ell / 8 \rfloor \bmod 4	⌊ℓ/8⌋ mod 4
CASES
    awk -F'\t' '{ printf "%08x\tinline\t%s\n", NR, $1 }' $scratch/tex/cases.txt | tr '\n' '\0' > $scratch/tex/cases.records
    expect_status "math_text.mjs: tex2svg.mjs writes each formula's text beside its SVG" 0 sh -c "
        node book/tex2svg.mjs $scratch/tex/texts < $scratch/tex/cases.records &&
        test -s $scratch/tex/texts/00000001.svg && test -s $scratch/tex/texts/00000001.txt"
    cut -f2 $scratch/tex/cases.txt > $scratch/tex/cases.want
    for k in $(seq "$(wc -l < $scratch/tex/cases.txt)"); do
        cat "$scratch/tex/texts/$(printf %08x "$k").txt" 2>/dev/null || echo "(case $k: no text)"
    done > $scratch/tex/cases.got
    expect_status "math_text.mjs: each formula's text as a reader would type it (13 cases)" 0 \
        diff $scratch/tex/cases.want $scratch/tex/cases.got
    expect_status "math_text.mjs: ... and no TeX in it" 0 tests/book/tex_left.sh text $scratch/tex/cases.got
fi

# ------------------------------------------------------------ the splitter
# book/split.mjs on a frame of its own: what it cannot place is an error.
if ! tool_missing "book/split.mjs" node; then
    frame='<html><head><title><!--book:title--></title></head><body><nav><!--book:toc--><ul><li><a href="#one">One</a></li><li><a href="#two">Two</a></li></ul><!--/book:toc--></nav><main><!--book:prevnext--><!--book:front--><header><h1 class="title">T</h1></header><!--/book:front--><!--book:content-->'
    printf '%s%s<!--/book:content--><!--book:prevnext--></main></body></html>\n' "$frame" \
        '<section id="one" class="level1"><h1>One</h1><p id="here">See <a href="#there">there</a>.</p></section><section id="two" class="level1"><h1>Two</h1><p id="there">Back <a href="#one">one</a>.</p></section>' \
        > $scratch/tex/split.html
    expect_status "split.mjs: a page per section" 0 node book/split.mjs $scratch/tex/split.html $scratch/tex/split
    expect_output "split.mjs: a link to an id on another page goes to that page" 'See <a href="two.html#there">there</a>' \
        cat $scratch/tex/split/one.html
    expect_output "split.mjs: ... and to another page's own section, to the page" 'Back <a href="one.html">one</a>' \
        cat $scratch/tex/split/two.html
    printf '%s%s<!--/book:content--><!--book:prevnext--></main></body></html>\n' "$frame" \
        '<section id="one" class="level1"><h1>One</h1><img src="no/such/plot.svg" alt="x" /></section>' \
        > $scratch/tex/split-missing.html
    expect_failure "split.mjs: an image that is not there stops it, named" "split: an image that is not there: no/such/plot\.svg" \
        node book/split.mjs $scratch/tex/split-missing.html $scratch/tex/split-missing
    printf '%s%s<!--/book:content--><!--book:prevnext--></main></body></html>\n' "$frame" \
        '<section id="one" class="level1"><h1>One</h1><section id="sub" class="level2"></section>' \
        > $scratch/tex/split-open.html
    expect_failure "split.mjs: a section never closed stops it" "split: a <section> never closed" \
        node book/split.mjs $scratch/tex/split-open.html $scratch/tex/split-open
fi

# ------------------------------------------------------------ the book, from fixtures
# The HTML book is a folder: index.html (the title and the contents) and a
# page per chapter and appendix. book_pages prints its pages in the book's
# order, from index.html along the "next" links; book_text cats them.
book_pages() {  # book_pages DIR
    local page=index.html seen=" "
    while [ -n "$page" ] && [ -f "$1/$page" ] && [ "${seen#* $page }" = "$seen" ]; do
        echo "$1/$page"
        seen="$seen$page "
        page=$(grep -o '<a class="next" rel="next" href="[^"]*"' "$1/$page" | head -n 1 | sed 's/.*href="//; s/"$//')
    done
}
book_text() { book_pages "$1" | xargs cat; }
page_order() { book_pages "$1" | xargs -n1 basename | paste -sd ' '; }
# the PDF's bookmarks, one title a line (weasyprint writes each /Title as
# (text) or, beyond ASCII, as UTF-16 <feff...>)
pdf_bookmarks() {
    perl -0777 -ne 'binmode STDOUT, ":utf8";
        while (m{/Title\s*(\((?:[^()\\]|\\.)*\)|<[0-9a-fA-F]*>)}g) {
        my $t = $1;
        if ($t =~ s/^<(?:feff|FEFF)?(.*)>$/$1/) { $t = pack("U*", unpack("n*", pack("H*", $t))) }
        else { $t =~ s/^\(|\)$//g; $t =~ s/\\(.)/$1/g }
        print "$t\n" }' "$1"
}
# the text of each <h1> of the HTML pages, tags and entities aside
h1_titles() {
    book_pages "$1" | tail -n +2 | xargs grep -ho '<h1[^>]*>.*</h1>' | sed 's/<[^>]*>//g; s/&amp;/\&/g; s/&#39;/'"'"'/g'
}
tex_left() {  # tex_left KIND FILE...: tests/book/tex_left.sh, each line cut at 300 characters
    local found status
    found=$(tests/book/tex_left.sh "$@")
    status=$?
    printf '%s\n' "$found" | cut -c1-300
    return $status
}
bookmarked() {  # bookmarked DIR PDF: "N of M", how many of the M <h1> titles are bookmarks
    local marks all=0 found=0 title
    marks=$(pdf_bookmarks "$2")
    while read -r title; do
        all=$((all + 1))
        printf '%s\n' "$marks" | grep -Fxq "$title" && found=$((found + 1))
    done < <(h1_titles "$1")
    echo "$found of $all"
}
if ! tool_missing "the book from the fixtures" pandoc && ! tool_missing "the book from the fixtures" node; then
    plain=$fixtures/chapters/02-plain/plain.cu
    multi=$fixtures/chapters/03-multi/multi.cu
    links=$fixtures/chapters/04-links/links.cu
    expect_status "make book from the fixtures" 0 \
        fixture_book_make book book BOOK_CHAPTERS="$good $plain $multi $links"
    site=$scratch/book/out/workbook
    html=$scratch/book/all-pages.html  # every page, in the book's order
    book_text $site > $html
    expect_status "fixture book: the HTML book's first page, workbook/index.html" 0 test -s $site/index.html
    for format in epub pdf; do
        expect_status "fixture book: workbook.$format written" 0 test -s $scratch/book/out/workbook.$format
    done
    expect_output "fixture book: the results table" "<td[^>]*>shared\+swizzle</td>" cat $html
    expect_output "fixture book: CUDA highlighted by book/cuda.xml" '<span class="at">__global__</span>' cat $html
    expect_output "fixture book: numbered sections" 'class="header-section-number">1\.1<' cat $html
    expect_output "fixture book: both chapters, the second titled from its folder" \
        '<section id="plain" class="level1" data-number="2">.*<h1 data-number="2"><span class="header-section-number">2</span> Plain</h1>' \
        sh -c "tr -d '\n' < $site/plain.html"
    expect_output "fixture book: a table of contents on the first page" '<nav id="TOC"' cat $site/index.html
    expect_output "fixture book: a chapter in several files, its other file after its main" \
        '^multi_main_kernel multi_more_kernel$' sh -c "grep -o 'multi_[a-z]*_kernel' $html | uniq | paste -sd ' '"
    expect_status "fixture book: a file without prose is not in the book" 1 grep -q MULTI_HELPER_SENTINEL $html
    expect_output "fixture book: the appendix of the roads not taken, unnumbered" \
        '<section id="roads-not-taken" class="level1 unnumbered">.*<h1 class="unnumbered">Roads not taken</h1>' \
        sh -c "tr -d '\n' < $html"
    expect_output "fixture book: a section per chapter with a tried/ folder" \
        '<section id="chapter-3-a-chapter-in-several-files" class="level2 unnumbered">.*<h2 class="unnumbered">Chapter 3: A chapter in several files</h2>' \
        sh -c "tr -d '\n' < $html"
    expect_output "fixture book: each tried file under it, its headings two levels down" \
        '<h3 class="unnumbered">A first try: smaller tiles</h3>.*<h4 class="unnumbered">Why it lost</h4>' \
        sh -c "tr -d '\n' < $html"
    expect_output "fixture book: the tried files after the chapters, in name order" \
        '^multi_main_kernel multi_more_kernel first_try_kernel second_try_kernel$' \
        sh -c "grep -o '[a-z_]*_\(main\|more\|try\)_kernel' $html | uniq | paste -sd ' '"
    expect_output "fixture book: the appendix of all results, after it" \
        'id="roads-not-taken".*<section id="all-measured-results" class="level1 unnumbered">' \
        sh -c "tr -d '\n' < $html"
    expect_output "fixture book: the chapters are numbered, the closing one too, the appendices not" "^5$" \
        sh -c "grep -o '<h1 data-number=' $html | wc -l"
    expect_output "fixture book: the exercise's statement" "Exercise 1\.1: write the good kernel" cat $html
    expect_status "fixture book: no solution in the student's edition" 1 grep -q SOLUTION_SENTINEL $html
    expect_status "fixture book: no hidden code" 1 grep -Eq 'HIDDEN_SENTINEL|LINKS_HIDDEN_SENTINEL' $html
    # the appendix shows what no chapter places but a chapter's own charts
    # (NAME-chapterN): peak and progress-msa
    expect_output "fixture book: 3 plots, each once (1 in its chapter, 2 in the appendix)" "^3$" \
        sh -c "grep -o '<figure>' $html | wc -l"
    expect_output "... the appendix has the 2 no chapter places, and no chapter's own" "^2$" \
        sh -c "grep -o '<figure>' $site/all-measured-results.html | wc -l"

    # the pages: one per chapter and appendix, each in the frame
    expect_output "HTML: a page per chapter and appendix (front matter, 4 chapters and the closing one, 2 appendices, references)" \
        "^index.html about-this-workbook.html a-good-chapter.html plain.html a-chapter-in-several-files.html links-and-formulas.html closing.html roads-not-taken.html all-measured-results.html references.html$" \
        page_order $site
    expect_output "HTML: index.html holds the title and the contents of every page" "^9$" sh -c "
        grep -q '<h1 class=\"title\">' $site/index.html &&
        sed -n '/<main>/,/<\/main>/p' $site/index.html | grep -o '<li><a href=\"[a-z0-9-]*\.html\"' | sort -u | wc -l"
    expect_status "HTML: every page in the frame, its own chapter marked in the sidebar" 0 sh -c "
        for page in \$(ls $site/*.html | grep -v '/index.html\$'); do
            name=\$(basename \$page)
            grep -q '<nav class=\"sidebar\"' \$page &&
            test \$(grep -o '<li class=\"current\"><a href=\"'\$name'\" aria-current=\"page\"' \$page | wc -l) -eq 1 &&
            test \$(grep -o '<h1' \$page | wc -l) -eq 1 || { echo \"\$name\"; exit 1; }
        done"
    expect_output "HTML: previous and next links" \
        'rel="prev" href="a-chapter-in-several-files.html".*rel="next" href="closing.html"' \
        sh -c "tr -d '\n' < $site/links-and-formulas.html"
    expect_output "HTML: the first page's next is the front matter" 'rel="next" href="about-this-workbook.html"' \
        cat $site/index.html
    expect_output "HTML: \"chapter 1\" is a link to its page" '<a href="a-good-chapter.html">chapter 1</a>' \
        cat $site/links-and-formulas.html
    expect_output "HTML: \"chapters 1 and 3\" links both numbers" \
        '<a href="a-good-chapter.html">chapters 1</a> and <a href="a-chapter-in-several-files.html">3</a>' \
        cat $site/links-and-formulas.html
    expect_output "HTML: a section, a figure and an exercise (after a bracket), each a link into its page" \
        '<a href="a-good-chapter.html#the-numbers">section 1\.1</a>.*<a href="a-good-chapter.html#fig-progress-trimul">figure 1</a>.*\(<a href="a-good-chapter.html#exercise-1\.1-write-the-good-kernel">exercise 1\.1</a>' \
        cat $site/links-and-formulas.html
    expect_output "HTML: a chapter the book does not have stays text" ' chapter 9, stays text' \
        cat $site/links-and-formulas.html
    expect_output "HTML: figures are numbered in the caption" '<figcaption[^>]*><strong>Figure 1\.</strong> ' \
        cat $site/a-good-chapter.html
    expect_output "HTML: the first mention of cp.async links to the PTX ISA, once" \
        '^https://docs\.nvidia\.com/cuda/parallel-thread-execution/index\.html#data-movement-and-conversion-instructions-cp-async$' \
        sh -c "grep -o 'href=\"[^\"]*\" class=\"manual\"' $site/links-and-formulas.html | sed 's/href=\"//; s/\" class.*//'"
    expect_output "HTML: a citation links to its reference" \
        '\(<a href="references\.html#ref-milakov2018softmax" role="doc-biblioref">Milakov and Gimelshein 2018</a>\)' \
        cat $site/links-and-formulas.html
    expect_output "HTML: the references page lists the work cited" 'id="ref-milakov2018softmax".*Online Normalizer Calculation for Softmax' \
        sh -c "tr -d '\n' < $site/references.html"
    expect_output "HTML: the chapter's source line links to the whole file" \
        '<a href="src/tests/fixtures/book/chapters/04-links/links\.cu\.html"><code>tests/fixtures/book/chapters/04-links/links\.cu</code></a>' \
        cat $site/links-and-formulas.html
    links_page=$site/src/tests/fixtures/book/chapters/04-links/links.cu.html
    expect_output "HTML: the mark where lines are hidden links to the first of them" \
        '<a href="src/tests/fixtures/book/chapters/04-links/links\.cu\.html#L-25">lines 25 to 27 of <code>links\.cu</code> not shown</a>' \
        cat $site/links-and-formulas.html
    expect_status "HTML: ... on a page of the whole file, a line per id" 0 sh -c "
        grep -q '<span id=\"L-25\"><a href=\"#L-25\"></a><span class=\"co\">// book:hide</span>' $links_page &&
        grep -q '<span id=\"L-26\"><a href=\"#L-26\"></a>.*LINKS_HIDDEN_SENTINEL' $links_page"
    expect_output "HTML: the search index holds every section" '"t":"4\.1 Hidden helpers"' cat $site/search-index.js
    expect_status "HTML: images are files next to the pages, none inlined" 0 sh -c "
        ! grep -q 'src=\"data:' $site/*.html && ! grep -o '<img [^>]*src=\"[^\"]*\"' $site/*.html | grep -v 'src=\"images/'"
    expect_status "HTML: nothing from the network: no script, style or image from a URL" 1 \
        grep -Eq '<(script|img)[^>]* src="[a-z]+:|<link[^>]* href="[a-z]+:' $site/*.html

    # the mathematics: an SVG image per formula, in every format, and under
    # it the formula's text (book/math_text.mjs), for the PDF's text layer,
    # a copy, a find, a screen reader and the search
    expect_output "math: each formula an SVG image, its text in a span laid under it" \
        '<span class="math inline"><span class="math-text" style="transform: scaleX\([0-9.]+\)">x² ≤ √y</span><img src="images/[0-9a-f]{40}\.svg" class="math" alt="" style="width: [0-9.]+ex; height: [0-9.]+ex; vertical-align: -?[0-9.]+ex" /></span>' \
        cat $site/links-and-formulas.html
    expect_output "math: a display formula centred on its own line, its text too" \
        '<span class="math display"><span class="math-text" style="transform: scaleX\([0-9.]+\)">o = \(∑_j e\^\(s_j−M\) v_j\)/\(∑_j e\^\(s_j−M\)\), tf32\(x\) = x_big</span><img src="images/[0-9a-f]{40}\.svg" class="math" alt="" style="width: [0-9.]+ex; max-width: 100%; height: auto" /></span>' \
        cat $site/links-and-formulas.html
    expect_output "math: the search index's entry of the formula's section holds its text" \
        'and x² ≤ √y sits inline' sh -c "grep -o '{\"u\":\"links-and-formulas.html\"[^}]*}' $site/search-index.js"
    expect_status "math: every SVG holds its glyphs as paths, with no font or link it needs" 0 sh -c "
        ls $scratch/book/work/math/*.svg >/dev/null &&
        for svg in $scratch/book/work/math/*.svg; do
            grep -q '<path [^>]*d=\"M' \$svg && ! grep -Eq '<(use|text|image)[ >]|@font-face|href=' \$svg || { echo \$svg; exit 1; }
        done"
    expect_status "math: no TeX left in the HTML pages' text" 0 tests/book/tex_left.sh html $site/*.html
    if ! tool_missing "the fixture PDF's text" pdftotext; then
        pdftotext $scratch/book/out/workbook.pdf $scratch/book/workbook.txt
        expect_status "math: no TeX left in the PDF's text" 0 tests/book/tex_left.sh text $scratch/book/workbook.txt
        expect_output "math: the PDF's text holds an inline formula's text, in its sentence" \
            '^and x² ≤ √y sits inline\.' cat $scratch/book/workbook.txt
        expect_output "math: ... and a display formula's" 'tf32\(x\) = x_big' cat $scratch/book/workbook.txt
        expect_output "math: every formula's text in the PDF's text and in the search index (tests/book/formulas_found.mjs)" \
            '^formulas [1-9][0-9]*, not in the PDF.s text 0, not in the search index 0$' \
            node tests/book/formulas_found.mjs $site $scratch/book/workbook.txt
        expect_output "PDF: a bookmark for each chapter and appendix" "^9 of 9$" \
            bookmarked $site $scratch/book/out/workbook.pdf
    fi
    if ! tool_missing "the fixture EPUB" unzip; then
        expect_output "EPUB: a file per chapter and appendix" "^9$" \
            sh -c "unzip -l $scratch/book/out/workbook.epub | grep -c 'EPUB/text/ch[0-9]*\.xhtml'"
        expect_status "EPUB: the formulas are SVG images in it, no MathML" 0 sh -c "
            unzip -p $scratch/book/out/workbook.epub 'EPUB/text/*.xhtml' > $scratch/book/epub.xhtml &&
            grep -q '<img src=\"../media/[^\"]*\.svg\" class=\"math\"' $scratch/book/epub.xhtml &&
            ! grep -q '<math' $scratch/book/epub.xhtml"
    fi

    expect_status "make book-instructor from the fixtures" 0 \
        fixture_book_make book book-instructor BOOK_CHAPTERS="$good $plain $multi $links"
    expect_output "instructor's edition: the solution's code" "SOLUTION_SENTINEL" \
        sh -c "cat $scratch/book/out/workbook-instructor/*.html"

    printf 'Intro.\n\n<!-- results:begin -->\nstale\n<!-- results:end -->\n\nAfter.\n' > $scratch/README.md
    expect_status "make readme's script fills the markers" 0 env RESULTS=$results DATA=$fixtures/data \
        KERNELS=$fixture_kernels \
        PNG=$scratch/plots/png PLOTS_OUT=$scratch/plots/plots book/readme.sh $scratch/README.md
    expect_output "... with the table" "^\| 5 \| shared\+swizzle \| 0\.250 \|" cat $scratch/README.md
    expect_output "... naming the commit measured" "measured 2025-01-0[0-9].* \(commit fixture\)\." cat $scratch/README.md
    expect_status "... replacing what was there, keeping the rest" 0 sh -c \
        "! grep -q stale $scratch/README.md && grep -q '^Intro.$' $scratch/README.md && grep -q '^After.$' $scratch/README.md"
    cp $scratch/README.md $scratch/README.first
    env RESULTS=$results DATA=$fixtures/data KERNELS=$fixture_kernels PNG=$scratch/plots/png \
        PLOTS_OUT=$scratch/plots/plots book/readme.sh $scratch/README.md >/dev/null
    expect_status "... and a second run changes nothing" 0 cmp $scratch/README.first $scratch/README.md
    mkdir -p $scratch/readme-trimul-only
    cp $fixtures/data/trimul.csv $scratch/readme-trimul-only/
    env RESULTS=$results DATA=$scratch/readme-trimul-only KERNELS=$fixture_kernels \
        PNG=$scratch/plots/png PLOTS_OUT=$scratch/plots/plots book/readme.sh $scratch/README.md >/dev/null
    expect_output "... saying which problem has no measurement yet" \
        "No measurement yet: .make bench. on a GPU writes .plots/data/msa\.csv." cat $scratch/README.md
fi

# ------------------------------------------------------------ counting the PDF's pages
# tests/book/pages.awk on a made-up pdftotext output: a title page, a full
# page, a short one, a chapter's short last page, then the book's last
printf 'The Book\n1 The start\n' > $scratch/pages-titles.txt
{
    printf 'The Book\n\nContents\n'; for k in $(seq 10); do printf '%s The chapter\n' "$k"; done; printf '1\n\f'
    for k in $(seq 12); do printf 'line %s\n' "$k"; done; printf '2\n\f'
    printf 'a\nb\nc\n3\n\f'
    printf 'the end of a chapter\n4\n\f'
    printf '1   The start\nand more\n5\n\f'
} > $scratch/pages-made-up.txt
awk -f tests/book/pages.awk $scratch/pages-titles.txt $scratch/pages-made-up.txt > $scratch/pages-made-up.out
expect_output "pages.awk: the page a title starts on" "^first-page 1 The start 5$" cat $scratch/pages-made-up.out
expect_output "pages.awk: a short page, the page number aside" "^short 3 3$" cat $scratch/pages-made-up.out
expect_output "pages.awk: a chapter's last page and the book's are not counted" "^short-pages 1$" \
    cat $scratch/pages-made-up.out

# ------------------------------------------------------------ the real book
expect_status "plots/data is well formed" 0 $results check --data plots/data
# Every committed row, as the appendix prints it: a share of peak is against
# the kernel's own pipe, so none can pass 100% (a TF32 kernel set against
# the FP32 peak would, at 2 to 3 times).
$results table all --data plots/data --kernels chapters/kernels.list > $scratch/real-all.md 2>&1
expect_status "the committed rows: no share of peak above 100%" 1 sh -c \
    "grep -oE '[|] [0-9.]+ [(](FP32|TF32)[)] [|]' $scratch/real-all.md | awk '\$2 > 100' | grep ."
expect_output "... and the table has shares of both pipes" "FP32.*TF32|TF32.*FP32" sh -c \
    "grep -oE '[(](FP32|TF32)[)]' $scratch/real-all.md | sort -u | paste -sd ' '"
if ! tool_missing "make book" pandoc && ! tool_missing "make plots" gnuplot; then
    expect_status "make book (the real chapters and measurements)" 0 make --no-print-directory book
    chapter_count=$(make --no-print-directory -s book-chapter-count)  # and the closing one:
    site=book/out/workbook
    if [ ! -s $site/index.html ]; then
        skip "the real book's chapters and the browser test" "make book failed, see above"
    else
        book_text $site > $scratch/real-pages.html
        page_count=$(book_pages $site | wc -l)
        expect_output "the book has every chapter and the closing one, numbered ($((chapter_count + 1)))" \
            "^$((chapter_count + 1))\$" \
            sh -c "grep -o '<h1 data-number=' $scratch/real-pages.html | wc -l"
        expect_output "the HTML: a page per chapter and appendix, every one reached from index.html" \
            "^$page_count\$" sh -c "ls $site/*.html | wc -l"
        expect_status "the HTML: no page, search index or image over 1 MB" 0 \
            sh -c "find $site -type f -size +1024k | grep . && exit 1 || exit 0"
        expect_status "the HTML: no TeX left in any page's text (tests/book/tex_left.sh)" 0 \
            tex_left html $site/*.html
        expect_output "the HTML: every formula an SVG image" "^[1-9][0-9]*$" \
            sh -c "grep -o '<img [^>]*class=\"math\"' $scratch/real-pages.html | wc -l"
        expect_output "the references: every work of book/references.bib cited and listed" \
            "^$(grep -c '^@' book/references.bib)\$" sh -c "grep -o 'class=\"csl-entry\"' $site/references.html | wc -l"
        expect_status "the real plots: no MSA row on a drawn or padded mask" 1 \
            grep -Eq 'mask=(drawn|pad)' build/plots/msa.dat
        expect_output "... and PyTorch among the MSA champions" '"torch-compile-tf32"' cat build/plots/msa.dat
        expect_output "the real plots: at most 8 series a panel" "^0$" \
            sh -c "cat build/plots/*.series | awk '\$1 > 8 { n++ } END { print n + 0 }'"
        expect_output "the real chapters: no chart shows a kernel of a later chapter (tests/book/chapter_bound.sh)" \
            "^checked [1-9][0-9]* plots in $chapter_count chapters, 0 kernels of later chapters\$" \
            tests/book/chapter_bound.sh chapters chapters/kernels.list build/plots
    fi
    if [ -s book/out/workbook.epub ] && [ -s $site/index.html ] && ! tool_missing "the EPUB's chapters" unzip; then
        expect_output "the EPUB: a file per chapter and appendix" "^$((page_count - 1))\$" \
            sh -c "unzip -l book/out/workbook.epub | grep -c 'EPUB/text/ch[0-9]*\.xhtml'"
    fi
    # epubcheck (a jar; Debian's /usr/bin/epubcheck needs binfmt to run alone):
    # the stylesheet, the SVGs (no external DTD, no id twice) and the pages.
    # The JVM's quick compiler alone and one collector thread: a run of a few
    # seconds never pays back the optimizing compiler (18 CPU-s to 7 here).
    if [ -s book/out/workbook.epub ] && ! tool_missing "the EPUB: valid (epubcheck)" epubcheck &&
       ! tool_missing "the EPUB: valid (epubcheck)" java; then
        expect_output "the EPUB: epubcheck finds no error" "^Messages: 0 fatals / 0 errors" \
            java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$(command -v epubcheck)" book/out/workbook.epub
    fi
    # The PDF: each page's lines (tests/book/pages.awk); every <h1> of the HTML starts a page
    if [ -s book/out/workbook.pdf ] && [ -s $site/index.html ] && ! tool_missing "the PDF's pages" pdftotext; then
        h1_titles $site > $scratch/titles.txt
        book_pages $site | tail -n +2 | xargs grep -ho '<h[2-5][^>]*>.*</h[2-5]>' |
            sed 's/<[^>]*>//g; s/&amp;/\&/g; s/&#39;/'"'"'/g' > $scratch/headings.txt
        pdftotext -layout book/out/workbook.pdf $scratch/workbook.txt
        awk -f tests/book/pages.awk $scratch/titles.txt $scratch/workbook.txt > $scratch/pages.txt
        expect_output "the PDF: chapter 1 starts by page 6 (front matter of at most 5 pages)" \
            "^first-page 1 .* [1-6]\$" cat $scratch/pages.txt
        expect_output "the PDF: at most two pages of fewer than 10 lines, chapters' last pages aside" \
            "^short-pages [0-2]\$" cat $scratch/pages.txt
        # The appendix of results prints a page or two a problem (its summary);
        # the full tables are the HTML's.
        expect_output "the PDF: the appendix of results in at most 4 pages" "^ok" awk '
            /^first-page All measured results / { start = $NF } /^first-page References / { end = $NF }
            END { print (start && end && end - start <= 4 ? "ok, " : "too long: ") end - start " pages" }' \
            $scratch/pages.txt
        expect_output "... and the HTML's appendix has every row (a tried kernel's)" "shared\+persistent" \
            cat $site/all-measured-results.html
        expect_output "the PDF: no heading left at a page's foot (tests/book/feet.awk)" "^headings-at-foot 0\$" \
            awk -f tests/book/feet.awk $scratch/headings.txt $scratch/workbook.txt
        expect_output "the PDF: no page under half full in the middle of a chapter (tests/book/page_fill.py)" \
            "^0 of the chapters' [0-9]+ pages" python3 tests/book/page_fill.py book/out/workbook.pdf
        expect_status "the PDF: no TeX left in its text" 0 tex_left text $scratch/workbook.txt
        expect_output "the PDF and the search: every formula's text in the PDF's text and in the search index" \
            '^formulas [1-9][0-9]*, not in the PDF.s text 0, not in the search index 0$' \
            node tests/book/formulas_found.mjs $site $scratch/workbook.txt
        expect_output "the PDF: a bookmark for every chapter and appendix" "^$((page_count - 1)) of $((page_count - 1))\$" \
            bookmarked $site book/out/workbook.pdf
        # code at 8pt or more: __global__ is 10 columns of DejaVu Sans Mono, 6.02 em wide
        pdftotext -bbox book/out/workbook.pdf $scratch/workbook-boxes.html
        expect_output "the PDF: code set at 8pt or more" "^smallest 8\.0" awk -F'"' '
            />__global__</ { width = $6 - $2; if (!seen || width < least) least = width; seen = 1 }
            END { printf "smallest %.1f pt\n", least / 6.02 }' $scratch/workbook-boxes.html
    fi
    # every plot and figure as the PDF prints it: 493pt wide at most (A4 less
    # 18mm each side, book.css), its labels scaled with it
    # Each plot's own line: a plot or figure under 8pt fails, by name and size.
    awk -v text_width=493 -f tests/book/label_sizes.awk plots/out/*.svg > $scratch/label-sizes
    expect_status "the PDF: each plot's and figure's smallest label measured" 0 \
        grep -q '^smallest ' $scratch/label-sizes
    while read -r name size; do
        [ "$name" = smallest ] && continue
        if awk -v s="$size" 'BEGIN { exit !(s >= 8) }'; then pass "the PDF: $name labels at 8pt or more ($size)"
        else fail "the PDF: $name labels at 8pt or more" "its smallest prints at ${size}pt" "$scratch/label-sizes"; fi
    done < $scratch/label-sizes
    if [ -s $site/index.html ] && ! tool_missing "the browser test" "${CHROMIUM:-chromium}" &&
       ! tool_missing "the browser test" node; then
        chromium_path=$(command -v "${CHROMIUM:-chromium}")
        expect_status "the browser test: every page and link of the book, images loaded, no page error, a search" 0 \
            make --no-print-directory book-check CHROMIUM="$chromium_path"
        expect_output "... a screenshot per page, the source pages' too" \
            "^$(find $site -name '*.html' | wc -l)\$" sh -c "ls book/out/screenshots/*.png | wc -l"
        # the check itself fails a book with a broken image, an error in its
        # console, a figure without its image, a code block that cuts its
        # lines off, links to a page and to an id that are not there, and no
        # search box
        mkdir -p $scratch/broken-book
        printf '<!DOCTYPE html><html><head><title>x</title></head><body><h1>One</h1>%s%s%s%s</body></html>\n' \
            '<figure><img src="data:image/png;base64,AAAA" alt="broken"></figure>' \
            '<div class="sourceCode" style="width: 80px; overflow: hidden"><pre>a line far too long for its box</pre></div>' \
            '<a href="two.html#nowhere">to two</a> <a href="three.html">to three</a>' \
            '<script>console.error("broken on purpose")</script>' > $scratch/broken-book/index.html
        printf '<!DOCTYPE html><html><head><title>y</title></head><body><h1 id="two">Two</h1></body></html>\n' \
            > $scratch/broken-book/two.html
        expect_failure "the browser test fails a broken book" "failures" \
            node book/browser_check.mjs --browser "$chromium_path" --min-figures 1 --search word \
            --screenshots $scratch/broken-shots $scratch/broken-book/index.html
        broken_log=$(log_of "the browser test fails a broken book")
        expect_status "... naming the broken image and the console error" 0 sh -c "
            grep -q 'index.html: console error: broken on purpose' $broken_log &&
            grep -q 'index.html: image 1 of 1 did not load' $broken_log"
        expect_status "... the figure without its image, and the code cut off" 0 sh -c "
            grep -q 'figure 1 of 1 shows no image' $broken_log &&
            grep -q '1 of 1 code blocks cut their lines off' $broken_log"
        expect_status "... the link to an id that is not there, and to a page that is not" 0 sh -c "
            grep -q 'a broken link \"to two\" to two.html#nowhere: no id \"nowhere\" there' $broken_log &&
            grep -q 'a broken link \"to three\" to three.html: no such page' $broken_log"
        expect_status "... and the search that found nothing" 0 grep -q 'the search for "word" found nothing' $broken_log
        expect_output "... having walked both pages" "^browser_check: 2 pages" cat $broken_log
    fi
fi

# ------------------------------------------------------------ an interrupted make book
# Ctrl-C at any moment of make book leaves the committed files whole: every
# file is written under a temporary name in its folder and renamed when
# complete, and the temporary files are removed on the way out. The real
# make book is interrupted in its first 0.35 s (as the report that found
# plots/png/msa.png deleted and sweep.png half drawn did), while gnuplot
# draws the first plot and the middle one, right after it drew the last one
# (before the rename), and later, in the weave or pandoc; after each, git's
# view of plots/ and every PNG are as before and no temporary file is left.
# The interrupt is SIGINT to the whole process group, as a terminal sends
# it: make runs in a session of its own (setsid) and a gnuplot put first in
# PATH sends it at its call number INTERRUPT_AT. The book in book/out is
# kept aside and put back afterwards.
if [ -s book/out/workbook.html ] && ! tool_missing "an interrupted make book" gnuplot &&
   ! tool_missing "an interrupted make book" setsid; then
    interrupts=$scratch/interrupts
    rm -rf "$interrupts" && mkdir -p "$interrupts/bin" "$interrupts/kept"
    real_gnuplot=$(command -v gnuplot)
    {
        echo '#!/bin/sh'
        echo '# INTERRUPT_AT=N:during interrupts during call N, N:after once call N is done'
        echo "calls=\$(( \$(cat $interrupts/calls 2>/dev/null || echo 0) + 1 ))"
        echo "echo \$calls > $interrupts/calls"
        echo 'case $INTERRUPT_AT in'
        echo "    \$calls:during) ( sleep 0.05; kill -INT 0 ) & exec $real_gnuplot \"\$@\" ;;"
        echo "    \$calls:after) $real_gnuplot \"\$@\"; kill -INT 0; exit 130 ;;"
        echo 'esac'
        echo "exec $real_gnuplot \"\$@\""
    } > "$interrupts/bin/gnuplot"
    chmod +x "$interrupts/bin/gnuplot"
    cp -p book/out/workbook.* "$interrupts/kept/"
    tree_state() {  # what must not change: git's view of plots/, every PNG's bytes, no temporary file
        git status --short --untracked-files=all plots
        sha256sum plots/png/*.png
        find plots book/out -name '*.partial'
    }
    tree_state > "$interrupts/before"
    plot_count=$(wc -l < plots/out/index)
    interrupted() {  # interrupted NAME COMMAND...: COMMAND is interrupted; the tree must be as before
        local name="an interrupted make book leaves the committed files whole: $1"; shift
        local log; log=$(log_of "$name")
        rm -f "$interrupts/calls"
        rm -f plots/out/.drawn  # the plots' stamp (plots/plots.mk): without it make book draws them again
        "$@" >"$log" 2>&1
        local status=$?
        tree_state > "$interrupts/after"
        if [ "$status" -eq 0 ]; then fail "$name" "make book was not interrupted" "$log"
        elif ! cmp -s "$interrupts/before" "$interrupts/after"; then
            diff "$interrupts/before" "$interrupts/after" >> "$log"
            fail "$name" "the tree changed" "$log"
        else pass "$name"; fi
    }
    interrupted "after 0.35 s" timeout -s INT 0.35 make --no-print-directory book
    for point in 1:during $((plot_count / 2 + 1)):during $plot_count:after; do
        interrupted "gnuplot's call ${point/:/, }" env PATH="$interrupts/bin:$PATH" \
            INTERRUPT_AT=$point setsid -w make --no-print-directory book
    done
    interrupted "after 3 s" timeout -s INT 3 make --no-print-directory book
    interrupted "after 12 s" timeout -s INT 12 make --no-print-directory book
    cp -p "$interrupts/kept/"workbook.* book/out/
fi

# ------------------------------------------------------------ accuracy placeholders
# {{rel_l2|KERNEL|SHAPE[|SCALE]}} reads plots/data/accuracy/ (what --errors appends).
mkdir -p $scratch/accuracy/chapters/01-acc $scratch/accuracy/chapters/02-missing
printf '/*md\n# Acc\n\nError {{rel_l2|tf32x3|B=8 T=1024 C=768 NH=12}} and {{rel_l2|tf32x3|B=8 T=1024 C=768 NH=12|1000}}.\n*/\n' \
    > $scratch/accuracy/chapters/01-acc/acc.cu
printf '/*md\n# Acc\n\nError {{rel_l2|naive|B=1 T=1 C=1 NH=1}}.\n*/\n' > $scratch/accuracy/chapters/02-missing/missing.cu
# typeset as the prose writes powers of ten ($1.44 \times 10^{-7}$), never 1.44e-07
expect_output "an accuracy placeholder takes the measured error, typeset" \
    '^Error [$][0-9.]+ [\]times 10\^[{]-[0-9]+[}][$] and [$][0-9.]+ [\]times 10\^[{]-[0-9]+[}][$][.]$' \
    $weave chapter --data plots/data $scratch/accuracy/chapters/01-acc/acc.cu
expect_failure "an accuracy placeholder with no row names its file and line" \
    "missing\.cu:4: placeholder .*no accuracy row for kernel \"naive\"" \
    $weave chapter --data plots/data $scratch/accuracy/chapters/02-missing/missing.cu
