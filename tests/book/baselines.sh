#!/bin/sh
# tests/book/baselines.sh - one baseline per race: each speedup the prose
# gives over a champion is over the race's baseline, never over another
# champion. A {{speedup|KERNEL|BASELINE|SHAPE}} whose KERNEL is not a
# champion (role champion or torch in the list) and whose BASELINE is one
# must name `champion` (the fastest champion at SHAPE on the card, as the
# tables and race charts have it) or the triangle's `cublas-tf32` (chapter
# 1's). A step against an earlier step (fused-tiled-tf32 over fused-tiled)
# and a champion against another (chapter 1's table) are not races.
# Prints FILE:LINE: the placeholder for each, then how many; exits 1 when
# there is one.
#
#     baselines.sh KERNELS.LIST FILE...
list=$1; shift
awk '
FNR == NR { if ($0 !~ /^#/ && NF >= 8 && ($3 == "champion" || $3 == "torch")) champion[$7] = 1; next }
{
    line = $0
    while (match(line, /\{\{speedup\|[^|}]+\|[^|}]+\|/)) {
        split(substr(line, RSTART + 2, RLENGTH - 3), part, "|")
        kernel = part[2]; base = part[3]; sub(/\+graph$/, "", kernel); sub(/\+graph$/, "", base)
        if (!(kernel in champion) && (base in champion) && base != "cublas-tf32") {
            printf "%s:%d: %s is over %s, not the race'"'"'s baseline\n", FILENAME, FNR, part[2], part[3]
            found++
        }
        line = substr(line, RSTART + RLENGTH)
    }
}
END { printf "checked %d files, %d speedups over another champion\n", ARGC - 2, found; exit found > 0 }
' "$list" "$@"
