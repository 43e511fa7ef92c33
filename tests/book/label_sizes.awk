# tests/book/label_sizes.awk - the size each plot's smallest label prints at
# in the PDF book, for SVG files as gnuplot and graphviz write them.
#
#   awk -v text_width=493 -f tests/book/label_sizes.awk plots/out/*.svg
#
# An SVG's width (in px, 0.75pt each, or in pt) is its size on the page,
# but a figure never grows past the text's width (TEXT_WIDTH, in pt:
# book.css, max-width: 100%) and shrinks to it when wider; its font sizes
# are in units of its viewBox. For each file this prints
#   NAME SMALLEST-FONT-IN-PT
# and, last,
#   smallest SIZE NAME

function on_page(    shown) {
    shown = width_pt < text_width ? width_pt : text_width
    return least * shown / view_width
}

function end_file() {
    if (file == "") return
    if (least > 0 && view_width > 0) {
        size = on_page()
        printf "%s %.1f\n", file, size
        if (!any || size < smallest) { smallest = size; smallest_file = file }
        any = 1
    }
    least = 0; width_pt = 0; view_width = 0; in_svg = 0
}

FNR == 1 { end_file(); file = FILENAME; sub(/.*\//, "", file) }

/<svg/ { in_svg = 1 }
in_svg && width_pt == 0 && match($0, /width="[0-9.]+(pt|px)?"/) {
    value = substr($0, RSTART + 7, RLENGTH - 8)
    width_pt = value ~ /pt$/ ? value + 0 : (value + 0) * 0.75
}
in_svg && view_width == 0 && match($0, /viewBox="[-0-9. ]+"/) {
    split(substr($0, RSTART + 9, RLENGTH - 10), box, " ")
    view_width = box[3]
}
/>/ && in_svg && view_width > 0 { in_svg = 0 }
{
    line = $0
    while (match(line, /font-size(="|:)[0-9.]+/)) {
        value = substr(line, RSTART, RLENGTH)
        sub(/font-size(="|:)/, "", value)
        if (least == 0 || value + 0 < least) least = value + 0
        line = substr(line, RSTART + RLENGTH)
    }
}

END {
    end_file()
    if (any) printf "smallest %.1f %s\n", smallest, smallest_file
}
