#!/bin/sh
# solutions/generate.sh - makes the exercises from the solutions (`make exercises`).
#
#   solutions/generate.sh OUT_DIR                 every solutions/NN-*.cu into OUT_DIR/
#   solutions/generate.sh OUT_DIR FILE.cu ...     only these files
#   solutions/generate.sh --solved OUT_DIR FILE.cu ...
#                                                 the solutions as a student would hand them
#                                                 in: the exercise with each TODO's stub
#                                                 replaced by the solution's code (what the
#                                                 grader grades for GRADE_DIR=solutions, and
#                                                 what its fixtures are patches of,
#                                                 tests/grade_fixtures.sh)
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
#       // TODO end
#
# The student writes between the two lines. Outside them a submission must
# be the exercise, token for token: the grader compares them
# (solutions/tokens.awk), and the end line says where a region stops.
#
# Several exercises may share one source (chapter 6's layer, in
# solutions/06-msa-layer.cuh). A solution pulls a shared file in with
#
#       #include "06-msa-layer.cuh" // exercise:inline
#
# which compiles as an #include in solutions/ and becomes, in the exercise,
# the file's text itself (the exercise stays one standalone file). A region
# of a shared file belongs to one exercise, named in its begin marker:
#
#       // exercise:begin(06-msa-softmax) the softmax of the kept keys
#
# In 06-msa-softmax.cu that region becomes a TODO; in every other exercise
# that inlines the file its solution code stays, without the markers. A
# region without a name applies to every exercise that reads it.
#
# Everything outside the regions is copied unchanged. The stub is there to
# make the exercise compile; it must not make it pass (tests/suites/
# 80-exercises.sh grades every untouched exercise to prove it).
#
# A malformed marker stops the generator with "FILE:LINE: what is wrong" on
# stderr and exit status 1; OUT_DIR then keeps its old copy of that file.
# Exit status: 0 all files made, 1 a file was malformed, 2 bad usage.

solved=0
if [ "${1:-}" = --solved ]; then
    solved=1
    shift
    if [ $# -lt 2 ]; then
        echo "usage: $0 --solved OUT_DIR SOLUTION.cu ..." >&2
        exit 2
    fi
fi
if [ $# -lt 1 ]; then
    echo "usage: $0 [--solved] OUT_DIR [SOLUTION.cu ...]" >&2
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

# One solution in, its exercise out. Marker lines start (after blanks) with
# "// exercise:"; the word after the colon says which marker it is, with the
# name of the exercise it belongs to in parentheses where a shared file says.
program='
function complain(path, line, message) {
    printf "%s:%d: %s\n", path, line, message > "/dev/stderr"
    broken = 1
    exit 1
}
function readable(path,    probe) {
    if ((getline probe < path) < 0) return 0
    close(path)
    return 1
}
# Whether solution NAME (beside the including one) inlines shared file FILE.
function inlines(name, file,    path, line, found) {
    path = folder "/" name ".cu"
    if (!readable(path)) return -1
    found = 0
    while ((getline line < path) > 0)
        if (line ~ /^[ \t]*#[ \t]*include[ \t]+"/ && index(line, "\"" file "\"") &&
            line ~ /\/\/[ \t]*exercise:inline[ \t]*$/) found = 1
    close(path)
    return found
}
# Copies one file to the exercise: its own regions become TODOs, regions of
# other exercises keep their code. shared: the file was inlined.
function process(path, shared,    line, number, inside, keep, mine, opened, code, indent, rest,
                                  keyword, text, owner, file, target, found) {
    number = 0; inside = 0
    while ((getline line < path) > 0) {
        number++
        if (line ~ /\/\/[ \t]*exercise:inline/ && line !~ /^[ \t]*\/\/[ \t]*exercise:/) {
            if (line !~ /^[ \t]*#[ \t]*include[ \t]+"[^"]+"[ \t]*\/\/[ \t]*exercise:inline[ \t]*$/)
                complain(path, number, not_include)
            if (shared)
                complain(path, number, "exercise:inline inside an inlined file (one level only)")
            if (inside)
                complain(path, number, "exercise:inline inside the region opened at line " opened)
            file = line; sub(/^[^"]*"/, "", file); sub(/".*$/, "", file)
            target = folder "/" file
            if (!readable(target)) complain(path, number, "exercise:inline: no such file " target)
            inlined++
            process(target, 1)
            continue
        }
        if (line ~ /^[ \t]*\/\/[ \t]*exercise:/) {
            indent = line; sub(/[^ \t].*$/, "", indent)
            rest = line; sub(/^[ \t]*\/\/[ \t]*exercise:/, "", rest)
            keyword = rest; sub(/[ \t(].*$/, "", keyword)
            text = substr(rest, length(keyword) + 1)
            if (keyword == "begin") {
                if (inside)
                    complain(path, number,
                             "exercise:begin inside the region opened at line " opened)
                owner = ""
                if (text ~ /^\(/) {
                    if (text !~ /^\([0-9][0-9]-[A-Za-z0-9_-]+\)/)
                        complain(path, number, "exercise:begin(NAME): NAME is an exercise, NN-slug")
                    owner = text; sub(/^\(/, "", owner); sub(/\).*$/, "", owner)
                    text = substr(text, length(owner) + 3)
                    if (!shared && owner != exercise)
                        complain(path, number, "exercise:begin(" owner ") in the file of " \
                                 exercise ": a named region belongs in a shared file")
                    if (shared && owner != exercise) {
                        found = inlines(owner, substr(path, length(folder) + 2))
                        if (found < 0)
                            complain(path, number, "exercise:begin(" owner "): no " folder "/" \
                                     owner ".cu")
                        if (!found)
                            complain(path, number, "exercise:begin(" owner "): " owner \
                                     ".cu does not inline this file")
                    }
                }
                sub(/^[ \t]+/, "", text); sub(/[ \t]+$/, "", text)
                if (text == "")
                    complain(path, number, "exercise:begin needs a description of what to write")
                inside = 1; opened = number; code = 0
                mine = owner == "" || owner == exercise
                keep = solved || !mine
                if (mine) { regions++; print indent "// TODO: " text }
            } else if (keyword == "stub") {
                if (!inside)
                    complain(path, number,
                             "exercise:stub outside an exercise:begin ... exercise:end region")
                sub(/^[ \t]/, "", text)      # one blank separates the marker from the code
                if (!keep) print indent text
            } else if (keyword == "end") {
                if (!inside) complain(path, number, "exercise:end without an exercise:begin")
                if (!code) complain(path, opened, "the region opened here holds no solution code")
                if (mine) print indent "// TODO end"
                inside = 0
            } else if (keyword == "inline") {
                complain(path, number, not_include)
            } else {
                complain(path, number, "unknown marker exercise:" keyword " (the markers are " \
                         "exercise:begin, exercise:stub, exercise:end, exercise:inline)")
            }
            continue
        }
        if (inside) {                   # the solution: left out, or kept for another exercise
            if (line ~ /[^ \t]/) code = 1
            if (keep) print line
            continue
        }
        print line
    }
    close(path)
    if (inside) complain(path, opened, "exercise:begin is never closed by an exercise:end")
}
BEGIN {
    not_include = "exercise:inline ends an #include \"FILE\" line, nothing else"
    exercise = file; sub(/^.*\//, "", exercise); sub(/\.cu$/, "", exercise)
    folder = file; if (folder ~ /\//) sub(/\/[^\/]*$/, "", folder); else folder = "."
    process(file, 0)
    if (!broken && !regions && !solved) {
        if (inlined)
            complain(file, 1, "no exercise:begin marker and no region named " exercise \
                     " in the files it inlines: the exercise would be the solution")
        complain(file, 1, "no exercise:begin marker: the exercise would be the solution")
    }
    exit broken
}'

mkdir -p "$out" || exit 2
status=0
for solution in "$@"; do
    exercise=$out/$(basename "$solution")
    if awk -v file="$solution" -v solved=$solved "$program" > "$exercise.new"; then
        # an unchanged exercise keeps its date, so make does not rebuild it
        if cmp -s "$exercise.new" "$exercise"; then
            rm -f "$exercise.new"
        else
            mv "$exercise.new" "$exercise"
        fi
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
