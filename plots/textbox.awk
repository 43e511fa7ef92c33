# plots/textbox.awk - gnuplot's SVG draws an opaque label box ("set style
# textbox opaque", plots/style.gp) with an SVG filter, which browsers draw
# and WeasyPrint, the PDF's renderer, ignores: there a floor's line would
# strike the label through. This puts a white rectangle of the label's
# size behind each such label instead (the filtered copy of the text goes):
#
#   awk -f plots/textbox.awk plot.svg > plot.new.svg     (plots/draw.sh)
#
# The width is estimated from the text (0.62 em a character, DejaVu Sans'
# digits and most letters; a UTF-8 character counted once), the height from
# the font size; text anchored at its start, middle or end. Any other line
# is copied as it is.
/style='filter:url\(#textbox\)'/ {
    group = $0
    if ((getline text) <= 0)
        text = ""
    if ((getline closing) <= 0)
        closing = ""
    x = group; sub(/.*translate\(/, "", x); y = x
    sub(/,.*/, "", x); sub(/^[^,]*,/, "", y); sub(/\).*/, "", y)
    size = group; sub(/.*font-size="/, "", size); sub(/".*/, "", size)
    anchor = group; sub(/.*text-anchor="/, "", anchor); sub(/".*/, "", anchor)
    content = text; sub(/^[ \t]*<text>/, "", content); sub(/<\/text>.*$/, "", content)
    gsub(/&[a-z#0-9]+;/, "x", content)      # an entity is one character
    gsub(/[\200-\277]/, "", content)        # UTF-8 continuation bytes
    width = length(content) * 0.62 * size + 0.6 * size
    left = anchor == "middle" ? x - width / 2 : anchor == "end" ? x - width + 0.3 * size : x - 0.3 * size
    printf "\t<rect x='%.2f' y='%.2f' width='%.2f' height='%.2f' fill='#FFFFFF' stroke='none'/>\n", \
        left, y - 0.95 * size, width, 1.25 * size
    next
}
{ print }
