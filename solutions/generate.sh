#!/bin/sh
# solutions/generate.sh - makes the exercises from the solutions (`make exercises`).
#
#   solutions/generate.sh OUT_DIR                 every solutions/NN-*.cu into OUT_DIR/
#   solutions/generate.sh OUT_DIR FILE.cu ...     only these files
#
# A solution marks each part a student writes:
#
#       // exercise:begin what the student writes, on one line
#       ... the solution's code ...
#       // exercise:stub code the exercise gets instead (zero or more lines)
#       // exercise:end
#
# and the exercise gets, in its place, with the indentation of the markers:
#
#       // TODO: what the student writes, on one line
#       code the exercise gets instead
#
# Everything outside the regions is copied unchanged. The stub is there to
# make the exercise compile; it must not make it pass (tests/suites/
# 80-exercises.sh grades every untouched exercise on the GPU to prove it).
#
# A malformed marker stops the generator with "FILE:LINE: what is wrong" on
# stderr and exit status 1; OUT_DIR then keeps its old copy of that file.
# Exit status: 0 all files made, 1 a file was malformed, 2 bad usage.

if [ $# -lt 1 ]; then
    echo "usage: $0 OUT_DIR [SOLUTION.cu ...]" >&2
    exit 2
fi
out=$1
shift
all=no
if [ $# -eq 0 ]; then
    all=yes
    set -- solutions/[0-9][0-9]-*.cu
    if [ ! -f "$1" ]; then
        echo "$0: no solutions/NN-*.cu here (a student's copy has none), nothing to generate" >&2
        exit 2
    fi
fi

# One file in, its exercise out. Marker lines start (after blanks) with
# "// exercise:"; the word after the colon says which marker it is.
program='
function complain(line, message) {
    printf "%s:%d: %s\n", file, line, message > "/dev/stderr"
    broken = 1
    exit 1
}
/^[ \t]*\/\/[ \t]*exercise:/ {
    indent = $0; sub(/[^ \t].*$/, "", indent)
    rest = $0; sub(/^[ \t]*\/\/[ \t]*exercise:/, "", rest)
    keyword = rest; sub(/[ \t].*$/, "", keyword)
    text = substr(rest, length(keyword) + 1)
    if (keyword == "begin") {
        if (inside) complain(FNR, "exercise:begin inside the region opened at line " opened)
        sub(/^[ \t]+/, "", text); sub(/[ \t]+$/, "", text)
        if (text == "") complain(FNR, "exercise:begin needs a description of what to write")
        inside = 1; opened = FNR; code = 0; regions++
        print indent "// TODO: " text
    } else if (keyword == "stub") {
        if (!inside) complain(FNR, "exercise:stub outside an exercise:begin ... exercise:end region")
        sub(/^[ \t]/, "", text)      # one blank separates the marker from the code
        print indent text
    } else if (keyword == "end") {
        if (!inside) complain(FNR, "exercise:end without an exercise:begin")
        if (!code) complain(opened, "the region opened here holds no solution code")
        inside = 0
    } else {
        complain(FNR, "unknown marker exercise:" keyword " (the markers are exercise:begin, exercise:stub, exercise:end)")
    }
    next
}
inside { if ($0 ~ /[^ \t]/) code = 1; next }   # the solution: left out
{ print }
END {
    if (broken) exit 1
    if (inside) complain(opened, "exercise:begin is never closed by an exercise:end")
    if (!regions) complain(1, "no exercise:begin marker: the exercise would be the solution")
}'

mkdir -p "$out" || exit 2
status=0
for solution in "$@"; do
    exercise=$out/$(basename "$solution")
    if awk -v file="$solution" "$program" "$solution" > "$exercise.new"; then
        # an unchanged exercise keeps its date, so make does not rebuild it
        if cmp -s "$exercise.new" "$exercise"; then rm -f "$exercise.new"; else mv "$exercise.new" "$exercise"; fi
    else
        rm -f "$exercise.new"
        status=1
    fi
done

# Regenerating them all also removes the exercises whose solution is gone.
if [ $all = yes ]; then
    for exercise in "$out"/[0-9][0-9]-*.cu; do
        [ -f "$exercise" ] || continue
        [ -f "solutions/$(basename "$exercise")" ] || rm -f "$exercise"
    done
fi
exit $status
