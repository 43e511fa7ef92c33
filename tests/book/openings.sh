#!/usr/bin/env bash
# tests/book/openings.sh - every chapter opens with its question and ends with
# its measured answer (docs: /work/shared/DESIGN.md section 11).
#
#   tests/book/openings.sh CHAPTERS
#
# A chapter's prose is read in the order the weaver weaves it (book/weave.c):
# its story (NN-slug/slug.cuh where it exists, else slug.cu), then every other
# .cu and .cuh file of its folder, in name order. The checkable form:
#   - nothing but blank lines between the chapter's `# Title` and its first
#     `## ` heading (the question is the first thing the reader meets);
#   - that first heading is the question: it ends with a question mark;
#   - its section is short: at most 200 words;
#   - the chapter's last `## ` section holds a measured number: a
#     {{placeholder}} or a {{figure|...}} drawn from the measured rows.
# Prints a line per fault, `NN-slug: ...`, then `checked C chapters, F faults`;
# exits 1 when F > 0 or when no chapter was checked.
set -uo pipefail
chapters=$1
checked=0 faults=0
shopt -s nullglob
for folder in "$chapters"/[0-9][0-9]-*/; do
    folder=${folder%/}
    slug=$(basename "$folder")
    name=${slug#[0-9][0-9]-}
    story=$folder/$name.cuh
    [ -e "$story" ] || story=$folder/$name.cu
    [ -e "$story" ] || continue
    files=("$story")
    for file in "$folder"/*.cu "$folder"/*.cuh; do
        [ "$file" = "$story" ] || files+=("$file")
    done
    # the files after the story in name order, as the weaver sorts them
    rest=$(printf '%s\n' "${files[@]:1}" | LC_ALL=C sort)
    checked=$((checked + 1))
    # the prose lines, outside fences: `/*md` to `*/`
    report=$(for file in "$story" $rest; do cat "$file"; echo; done | awk -v slug="$slug" '
        $0 == "/*md" { prose = 1; next }
        prose && $0 == "*/" { prose = 0; next }
        !prose { next }
        /^(```|~~~)/ { fence = !fence; next }
        fence { next }
        /^# / && !titled { titled = 1; next }
        /^## / {
            sections++
            heading[sections] = $0
            placeholder[sections] = 0
            if (sections == 1) between_title = words_before
            next
        }
        titled && sections == 0 && NF > 0 { words_before += NF }
        sections > 0 {
            words[sections] += NF
            if (index($0, "{{")) placeholder[sections] = 1
        }
        END {
            if (!titled) { print slug ": no # title"; exit }
            if (sections == 0) { print slug ": no ## section"; exit }
            if (between_title > 0)
                print slug ": " between_title " words between the title and the first section (the question comes first)"
            first = heading[1]
            sub(/[ \t]*\{[^}]*\}[ \t]*$/, "", first)   # an {#id} after the heading
            if (first !~ /\?$/)
                print slug ": the first section \"" substr(heading[1], 4) "\" is not a question (its heading ends with ?)"
            if (words[1] > 200)
                print slug ": the question \"" substr(heading[1], 4) "\" runs " words[1] " words (at most 200)"
            if (!placeholder[sections])
                print slug ": the last section \"" substr(heading[sections], 4) "\" has no measured number ({{placeholder}} or {{figure|...}})"
        }')
    if [ -n "$report" ]; then
        echo "$report"
        faults=$((faults + $(echo "$report" | wc -l)))
    fi
done
echo "checked $checked chapters, $faults faults"
[ "$faults" -eq 0 ] && [ "$checked" -gt 0 ]
