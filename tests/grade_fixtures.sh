#!/bin/sh
# tests/grade_fixtures.sh OUT_DIR - the grader's fixtures as programs to
# grade (tests/suites/80-exercises.sh): the standalone ones of
# tests/fixtures/grade/*.cu copied, and each tests/fixtures/grade/
# EXERCISE--what.patch applied to solutions/EXERCISE.cu as
# `solutions/generate.sh --solved` writes it, into OUT_DIR/EXERCISE--what.cu.
#
# A fixture is a patch so that it follows its solution: it tests the fault
# it adds to today's solution, never a stale copy. A patch that no longer
# applies exactly (its context unchanged; its lines may have moved) stops
# this script (exit 1, naming it). A student's copy has no solutions and no
# patches, and gets the standalone fixtures only.
# FIXTURES (environment) names another folder of fixtures, for the tests.
# Exit status: 0 made, 1 a patch failed, 2 bad usage.

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT_DIR" >&2
    exit 2
fi
out=$1
fixtures=${FIXTURES:-tests/fixtures/grade}
rm -rf "$out" && mkdir -p "$out/.solved" || exit 2
cp "$fixtures"/[0-9][0-9]-*.cu "$out"/ 2>/dev/null
status=0
for fault in "$fixtures"/[0-9][0-9]-*--*.patch; do
    [ -f "$fault" ] || continue
    name=$(basename "$fault" .patch)
    exercise=${name%%--*}
    solved=$out/.solved/$exercise.cu
    if [ ! -f "$solved" ] && ! solutions/generate.sh --solved "$out/.solved" \
            "solutions/$exercise.cu"; then
        echo "$0: $fault: no solution solutions/$exercise.cu to patch" >&2
        status=1; continue
    fi
    if ! patch --quiet --batch --fuzz=0 --no-backup-if-mismatch -o "$out/$name.cu" "$solved" \
            < "$fault" > "$out/.solved/$name.patch.log" 2>&1; then
        echo "$0: $fault no longer applies to solutions/$exercise.cu:" >&2
        cat "$out/.solved/$name.patch.log" >&2
        rm -f "$out/$name.cu"
        status=1
    fi
done
exit $status
