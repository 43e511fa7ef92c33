#!/usr/bin/env bash
# book/build.sh - what `make book` and `make book-instructor` run: weaves the
# front matter and every chapter (with its exercises) into one Markdown file,
# then renders it with pandoc as HTML (one self-contained file), EPUB and PDF.
#
#   book/build.sh [--instructor]
#
# Its inputs come from the environment; book/book.mk sets them:
#   WEAVE      the weaver (build/book/weave)
#   DATA       the measured CSV files (plots/data)
#   FIGURES    the plots drawn from them, with captions and an index (plots/out)
#   CHAPTERS   the chapter sources, in order
#   EXERCISES  SOLUTIONS   the exercise and solution folders
#   WORK       scratch space (build/book)    OUT  where the book goes (book/out)
# Any error of the weaver (a broken marker, a placeholder with no row, a
# malformed CSV row) names its file and line and stops the build.
#
# A failed build leaves no book in OUT: the old one is removed first (make
# book removes it too, before it draws the plots), and the new files are
# rendered in WORK and moved into OUT only when all three were made.
set -euo pipefail

edition=workbook
solutions_option=()
if [ "${1:-}" = --instructor ]; then
    edition=workbook-instructor
    solutions_option=(--solutions "$SOLUTIONS")
elif [ $# -gt 0 ]; then
    echo "usage: book/build.sh [--instructor]" >&2
    exit 2
fi

rm -f "$OUT/$edition".{html,epub,pdf}
if ! command -v pandoc >/dev/null; then
    echo "make book: pandoc is missing (make deps installs it)" >&2
    exit 1
fi
mkdir -p "$WORK" "$OUT"
rendered="$WORK/rendered"
rm -rf "$rendered"
mkdir -p "$rendered"

# pandoc numbers the chapters in the order they come; say so if a number is skipped
expected=1
for chapter in $CHAPTERS; do
    number=$(basename "$(dirname "$chapter")" | cut -c1-2 | sed 's/^0//')
    if [ "$number" != "$expected" ]; then
        echo "make book: warning: $chapter comes where chapter $expected would;" \
             "the book numbers it $expected" >&2
    fi
    expected=$((expected + 1))
done

markdown="$WORK/$edition.md"
{
    "$WEAVE" prose --data "$DATA" --figures "$FIGURES" book/front.md
    for chapter in $CHAPTERS; do
        echo  # a heading needs a blank line before it
        "$WEAVE" chapter --data "$DATA" --figures "$FIGURES" --exercises "$EXERCISES" \
            "${solutions_option[@]}" "$chapter"
    done
} > "$markdown.partial"
mv "$markdown.partial" "$markdown"

common=(--from markdown --metadata-file=book/metadata.yaml --syntax-definition=book/cuda.xml
        --highlight-style=tango --number-sections --toc --toc-depth=2 --css=book/book.css
        --columns=1000)  # tables as wide as their text, not squeezed to 72 columns
if [ "$edition" = workbook-instructor ]; then
    common+=(--metadata subtitle="Instructor's edition, with the solutions")
fi

pandoc "$markdown" "${common[@]}" --standalone --self-contained --mathml \
    --output "$rendered/$edition.html"
pandoc "$markdown" "${common[@]}" --mathml --output "$rendered/$edition.epub"
pandoc "$markdown" "${common[@]}" --mathml --pdf-engine=weasyprint --output "$rendered/$edition.pdf"
for format in html epub pdf; do
    mv "$rendered/$edition.$format" "$OUT/$edition.$format"
    echo "book: $OUT/$edition.$format"
done
