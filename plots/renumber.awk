# plots/renumber.awk - sets the chapter column of measured rows to the
# chapter chapters/kernels.list gives their kernel. The column says which
# chapter introduces the kernel, and the CSV reader (book/csv_reader.c)
# refuses a row where it is not the list's; when a kernel moves to another
# chapter, its rows measured before the move are renumbered by this script.
# Nothing else of a row changes (idempotent: a row that agrees is left as it is):
#
#   awk -f plots/renumber.awk chapters/kernels.list plots/data/msa.csv > msa.new &&
#       mv msa.new plots/data/msa.csv
#
# The chapter, kernel and problem fields hold no comma or quote (the reader
# checks that), so splitting at commas finds them even in a row with a quoted
# field further on; the rest of the row is joined back as it was.
BEGIN { FS = OFS = "," }
NR == FNR {  # the list: problem chapter role pipe accuracy needs name symbol
    if ($0 !~ /^[ \t]*(#|$)/) {
        count = split($0, word, /[ \t]+/)
        chapter[word[1] "," word[count - 1]] = word[2]
    }
    next
}
FNR > 1 {
    kernel = $2
    sub(/\+graph$/, "", kernel)  # a graph replay is its kernel's
    if ((($3 "," kernel) in chapter) && $1 != chapter[$3 "," kernel])
        $1 = chapter[$3 "," kernel]
}
{ print }
