#!/usr/bin/env bash
# book/html.sh - the HTML book, a folder of pages (book/build.sh runs it):
# pandoc renders the woven book once into the frame book/page.html, a
# section per chapter (--section-divs), with the filters every format has
# and book/sources.lua; book/split.mjs cuts it into index.html and a page per
# chapter and appendix, copies the images next to them and writes the search
# index; then each source file the pages link to gets a page of its own
# (src/PATH.html), the whole file with its line numbers.
#
#   book/html.sh BOOK.md DIR PANDOC-OPTION...
#
# DIR must not exist yet. Any step that fails stops it (exit status non-zero).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: book/html.sh BOOK.md DIR PANDOC-OPTION..." >&2
    exit 2
fi
markdown=$1 dir=$2
shift 2
if ! command -v node >/dev/null; then
    echo "make book: node is missing (make deps installs it)" >&2
    exit 1
fi
mkdir -p "$dir"
whole="$dir.whole.html"
# footnotes at the end of their chapter, not of the book, so that they stay on its page
pandoc "$markdown" "$@" --lua-filter=book/sources.lua --standalone --template=book/page.html \
    --section-divs --reference-location=section --css=book.css --output "$whole"
node book/split.mjs "$whole" "$dir" --sources "$dir.sources"
cp book/book.css book/search.js "$dir/"

# src/chapters/01-race/race.cu.html shows chapters/01-race/race.cu; a fence
# of ten backticks, longer than any run of them in C
while read -r page; do
    path=${page#src/}
    path=${path%.html}
    case $path in /* | *..*) echo "make book: a source outside the repository: $path" >&2; exit 1 ;; esac
    up=$(dirname "$page" | sed 's|[^/][^/]*|..|g')  # from the page back to the book's folder
    mkdir -p "$dir/$(dirname "$page")"
    { printf '``````````{#L .cuda .numberLines}\n'; cat "$path"; printf '``````````\n'; } |
        pandoc --from markdown --to html5 --standalone --metadata title="$path" --metadata lang=en \
            --syntax-definition=book/cuda.xml --highlight-style=tango --css="$up/book.css" \
            --variable include-before="<p class=\"back\"><a href=\"$up/index.html\">The book</a></p>" \
            --output "$dir/$page.partial"
    mv "$dir/$page.partial" "$dir/$page"
done < "$dir.sources"
rm -f "$whole" "$dir.sources"
