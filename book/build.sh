#!/usr/bin/env bash
# book/build.sh - what `make book` and `make book-instructor` run: the
# results tables, then the weave of the front matter, every chapter (with
# its exercises) and the two appendices (the roads not taken, where a
# chapter has a tried/ folder, and all measured results) into one Markdown
# file, then pandoc renders it as HTML (one self-contained file), EPUB and
# PDF.
#
#   book/build.sh [--instructor | --markdown]
#
# --markdown stops after the weave ($WORK/workbook.md): every chapter and
# appendix filled from the data, no pandoc (make book-markdown).
# Its inputs come from the environment; book/book.mk sets them:
#   WEAVE RESULTS  the weaver and the results tool (build/book/)
#   DATA KERNELS   the measured CSV files (plots/data), the list of kernels
#   FIGURES        the plots drawn from them, with captions and an index (plots/out)
#   CHAPTERS       the chapters' main files, in order
#   CLOSING        the closing chapter, after them (book/closing.md)
#   EXERCISES  SOLUTIONS   the exercise and solution folders
#   WORK           scratch space (build/book)    OUT  where the book goes (book/out)
# Any error of the tools (a broken marker, a placeholder with no row, a
# malformed CSV row) names its file and line and stops the build.
#
# A failed build leaves no book in OUT: the old one is removed first (make
# book removes it too, before it draws the plots), and the new files are
# rendered under temporary names in OUT (the folder .workbook.html.partial,
# .workbook.epub.partial, ...) and
# renamed only when all three were made; an interrupted or failed build
# removes its temporary files on the way out. (WORK is emptied at every
# start, so what is half written there never outlives the build.)
set -euo pipefail

edition=workbook
solutions_option=()
markdown_only=0
if [ "${1:-}" = --instructor ]; then
    edition=workbook-instructor
    solutions_option=(--solutions "$SOLUTIONS")
elif [ "${1:-}" = --markdown ]; then
    markdown_only=1  # the woven Markdown alone, $WORK/workbook.md: no pandoc
elif [ $# -gt 0 ]; then
    echo "usage: book/build.sh [--instructor | --markdown]" >&2
    exit 2
fi

[ "$markdown_only" = 1 ] || rm -rf "$OUT/$edition".{html,epub,pdf} "${OUT:?}/$edition"
if [ "$markdown_only" = 0 ] && ! command -v pandoc >/dev/null; then
    echo "make book: pandoc is missing (make deps installs it)" >&2
    exit 1
fi
tables="$WORK/tables"
unplaced="$WORK/unplaced"  # the plots no chapter places: the appendix's {{figures}}
rm -rf "$WORK/rendered" "$tables" "$unplaced"
mkdir -p "$WORK" "$OUT" "$tables"
rendered() { printf '%s/.%s.%s.partial' "$OUT" "$edition" "$1"; }  # rendered FORMAT
trap 'rm -rf "$(rendered html)" "$(rendered epub)" "$(rendered pdf)"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

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

for table in headline all summary; do
    "$RESULTS" table "$table" --data "$DATA" --kernels "$KERNELS" > "$tables/$table.md"
done
weave=("$WEAVE" --data "$DATA" --kernels "$KERNELS" --figures "$FIGURES" --tables "$tables")
markdown="$WORK/$edition.md"
{
    "${weave[@]}" prose book/front.md
    for chapter in $CHAPTERS; do
        echo  # a heading needs a blank line before it
        "${weave[@]}" chapter --exercises "$EXERCISES" "${solutions_option[@]}" "$chapter"
    done
    echo
    "${weave[@]}" prose "$CLOSING"  # the closing chapter: no code of its own
    # shellcheck disable=SC2086 # one argument per chapter
    tried=$("${weave[@]}" tried $CHAPTERS)
    if [ -n "$tried" ]; then  # the appendix only where a chapter has a tried/ folder
        echo
        "${weave[@]}" prose book/roads-not-taken.md
        printf '%s\n' "$tried"
    fi
} > "$markdown.partial"
# A plot belongs in the chapter that places it ({{figure|NAME}}); the appendix
# of all results shows ({{figures}}) the plots that no chapter places, but for
# a chapter's own (NAME-chapterN), which only that chapter would show.
mkdir -p "$unplaced"
: > "$unplaced/all.md"
while read -r name; do
    case $name in *-chapter[0-9]*) continue ;; esac
    grep -q "{#fig-$name}" "$markdown.partial" || cat "$FIGURES/$name.md" >> "$unplaced/all.md"
done < <(cat "$FIGURES/index" 2>/dev/null)
{
    echo
    "${weave[@]}" --figures "$unplaced" prose book/all-results.md
    echo
    cat book/references.md  # the bibliography, last
} >> "$markdown.partial"
mv "$markdown.partial" "$markdown"
if [ "$markdown_only" = 1 ]; then
    echo "book: $markdown"
    exit 0
fi

# The contents go two levels deep (the PDF's, on its first page, one: book.css).
# The filters, in every format: the cross-references made links and the
# figures numbered (crossref.lua), the first mention of an instruction linked
# to NVIDIA's manual (manuals.lua), the formulas drawn once as SVG (math.lua,
# into $BOOK_MATH), a paragraph that introduces a figure or a table kept with
# it on paper (lead_ins.lua), a change's lines coloured as CUDA with their
# bands (changes.lua), the citations (--citeproc, references.bib).
common=(--from markdown --metadata-file=book/metadata.yaml --syntax-definition=book/cuda.xml
        --highlight-style=tango --number-sections --toc --toc-depth=2
        --lua-filter=book/crossref.lua --lua-filter=book/manuals.lua --lua-filter=book/math.lua
        --lua-filter=book/lead_ins.lua --lua-filter=book/changes.lua
        --citeproc --bibliography=book/references.bib
        --columns=1000)  # tables as wide as their text, not squeezed to 72 columns
if [ "$edition" = workbook-instructor ]; then
    common+=(--metadata subtitle="Instructor's edition, with the solutions")
fi
export BOOK_MATH="$WORK/math"

# HTML: a folder, index.html and a page per chapter (book/html.sh). pandoc
# picks the writer from --to, not from the temporary names.
book/html.sh "$markdown" "$(rendered html)" "${common[@]}"
# The EPUB's style is book.css without its @page rule: a page's margin boxes
# (@bottom-center, the PDF's page numbers) are CSS an EPUB reader does not
# parse (epubcheck: CSS-008), and its errors spill over the rules after it.
sed '/^@page {$/,/^}$/d' book/book.css > "$WORK/epub.css"
pandoc "$markdown" "${common[@]}" --css="$WORK/epub.css" --epub-chapter-level=1 --to epub \
    --output "$(rendered epub)"
pandoc "$markdown" "${common[@]}" --css=book/book.css --pdf-engine=weasyprint --to pdf \
    --output "$(rendered pdf)"
mv -f "$(rendered html)" "$OUT/$edition"
echo "book: $OUT/$edition/index.html"
for format in epub pdf; do
    mv -f "$(rendered $format)" "$OUT/$edition.$format"
    echo "book: $OUT/$edition.$format"
done
