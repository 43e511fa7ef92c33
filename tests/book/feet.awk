# tests/book/feet.awk - headings left at the foot of a page of the PDF book,
# as `pdftotext -layout` prints its pages (a form feed ends each page).
#
#   awk -f tests/book/feet.awk HEADINGS workbook.txt
#
# HEADINGS holds the text of each heading of the HTML edition, one a line,
# with its number ("4.1 How a warp's access is served", "Exercise 4.1: ...").
# A page whose last or second-to-last line of text (its page number aside)
# is a heading, or the start of one, leaves that heading at its foot with
# its text on the next page (at most one line of it above the break): for
# each this prints
#   foot P HEADING
# then
#   headings-at-foot N

function squeeze(s) { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s); return s }

FNR == 1 { file++ }
file == 1 { if (squeeze($0) != "") headings[++heading_count] = squeeze($0); next }

function is_heading(line,    k) {
    for (k = 1; k <= heading_count; k++)
        if (line != "" && (line == headings[k] || (length(line) >= 8 && index(headings[k], line) == 1)))
            return k
    return 0
}

function end_page(    k) {
    if (!in_page) return
    pages++
    if (tail[0] ~ /^[0-9]+$/) { tail[0] = tail[1]; tail[1] = tail[2] }  # the page number
    if ((k = is_heading(tail[0])) || (k = is_heading(tail[1]))) {
        printf "foot %d %s\n", pages, headings[k]
        feet++
    }
    tail[0] = tail[1] = tail[2] = ""; in_page = 0
}

file == 2 {
    n = split($0, parts, "\f")
    for (p = 1; p <= n; p++) {
        if (p > 1) end_page()
        line = squeeze(parts[p])
        if (p > 1 || parts[p] != "" || n == 1) in_page = 1
        if (line == "") continue
        tail[2] = tail[1]; tail[1] = tail[0]; tail[0] = line  # the page's last three lines
    }
}

END {
    end_page()
    printf "headings-at-foot %d\n", feet + 0
}
