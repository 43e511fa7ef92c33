# tests/book/pages.awk - the pages of the PDF book, as `pdftotext -layout`
# prints them (a form feed ends each page).
#
#   awk -f tests/book/pages.awk TITLES workbook.txt
#
# TITLES holds the text of each <h1> of the HTML edition, one a line ("1 The
# race", "All measured results"): every one starts a page of the PDF. For
# each page this prints
#   page P LINES [starts TITLE]
# (LINES: the lines with text, the page number at the foot aside), then
#   first-page TITLE P    the page each title starts on
#   short P LINES         each page of fewer than 10 lines that is not the last
#                         page before a title starts (a chapter's last page)
#                         nor the book's last page
#   short-pages N         how many of those

function squeeze(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }

FNR == 1 { file++ }
file == 1 { if (squeeze($0) != "") titles[++title_count] = squeeze($0); next }

function end_page(    k, line) {
    if (!in_page) return
    if (last != "" && last ~ /^[0-9]+$/) lines--  # the page number
    pages++
    count[pages] = lines
    started[pages] = ""
    for (k = 1; k <= title_count; k++)
        if (first != "" && length(first) >= 4 && index(titles[k], first) == 1) { started[pages] = titles[k]; break }
    lines = 0; first = ""; last = ""; in_page = 0
}

file == 2 {
    n = split($0, parts, "\f")
    for (p = 1; p <= n; p++) {
        if (p > 1) end_page()
        line = squeeze(parts[p])
        if (p > 1 || parts[p] != "" || n == 1) in_page = 1
        if (line == "") continue
        lines++
        if (first == "") first = line
        last = line
    }
}

END {
    if (lines > 0) end_page()
    for (p = 1; p <= pages; p++) {
        printf "page %d %d%s\n", p, count[p], started[p] != "" ? " starts " started[p] : ""
        if (started[p] != "" && !(started[p] in seen)) { seen[started[p]] = p; order[++seen_count] = started[p] }
    }
    for (k = 1; k <= seen_count; k++) printf "first-page %s %d\n", order[k], seen[order[k]]
    for (p = 1; p <= pages; p++)
        if (count[p] < 10 && p < pages && started[p + 1] == "") { short++; printf "short %d %d\n", p, count[p] }
    printf "short-pages %d\n", short
}
