#!/bin/sh
# tests/book/tex_left.sh - TeX the book failed to typeset, in what a reader
# reads: prints each line of text holding a dollar sign, a TeX command (a
# backslash and two letters or more: \frac, \mathrm) or a sub- or superscript
# in braces (_{ ^{), as FILE:LINE:TEXT (the words around it), and exits 1
# if there is one.
#
#   tests/book/tex_left.sh html PAGE.html...   the text of HTML pages: code
#                                               blocks, code spans, scripts and
#                                               tags aside (an image's alt text
#                                               is no text), entities decoded
#   tests/book/tex_left.sh text FILE.txt...    plain text (pdftotext of the PDF),
#                                               a listing's lines (a line number,
#                                               two blanks, code) aside, and a
#                                               change's (from a hunk's "@@ -A,B
#                                               +C,D @@" on, while lines start
#                                               with -, + or a blank; a page's
#                                               number or a blank line between)
set -eu
kind=$1
shift
pattern='\$|\\[A-Za-z]{2,}|[_^]\{'
found=0
lines=$(mktemp)
for file in "$@"; do
    if [ "$kind" = html ]; then
        perl -0777 -pe 's{<(pre|code|script|style)\b.*?</\1>}{ }gs; s{<[^>]*>}{}gs;
            s{&lt;}{<}g; s{&gt;}{>}g; s{&quot;}{"}g; s{&#39;}{\x27}g; s{&#(\d+);}{chr($1)}ge; s{&amp;}{&}g' "$file"
    else  # blanked, not dropped, so that the line numbers stay the file's
        awk '{ line = $0; sub(/^\f/, "", line)
               if (line ~ /^@@ -[0-9]+,[0-9]+ \+[0-9]+,[0-9]+ @@/) diff = 1
               else if (diff && line !~ /^[-+ ]/ && line !~ /^[0-9]*$/) diff = 0
               print (diff || line ~ /^[0-9]+  +/) ? "" : $0 }' "$file"
    fi | grep -noE -- ".{0,60}($pattern).{0,40}" | sed "s|^|$file:|" > "$lines"
    [ -s "$lines" ] && { cat "$lines"; found=1; }
done
rm -f "$lines"
[ "$found" -eq 0 ]
