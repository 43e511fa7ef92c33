# tests/suites/80-exercises.sh - the exercises and their grader
# (solutions/README.md): one source for exercises and solutions, a generator
# that refuses malformed markers, a grader that tells the reasons apart, and
# the proof on a GPU that every untouched exercise fails and every solution
# passes. Without a GPU the gradings are counted as skipped; everything else
# (the set, the generator, the compiles, the refusals) runs for real.
#
# In a student's copy (solutions/NN-*.cu removed, see `make handout`) the
# tests that need the solutions are skipped.

exercise_build=${BUILD:-build}
exercise_tmp=$(mktemp -d)
solution_files=$(ls solutions/[0-9][0-9]-*.cu 2>/dev/null)

# expect_rejected NAME FILE PATTERN: the generator exits 1 on FILE and its
# message matches PATTERN (FILE:LINE: what is wrong).
expect_rejected() {
    local name=$1 file=$2 pattern=$3
    local log; log=$(log_of "$name")
    solutions/generate.sh "$exercise_tmp/rejected" "$file" >"$log" 2>&1
    local status=$?
    if [ $status -ne 1 ]; then
        fail "$name" "exit $status, expected 1" "$log"
    elif ! grep -Eq -- "$pattern" "$log"; then
        fail "$name" "no line matches /$pattern/" "$log"
    else
        pass "$name"
    fi
}

# graded_as NAME TABLE EXERCISE PATTERN: the grade table's line for EXERCISE
# matches PATTERN; a line saying SKIP (no GPU) counts as skipped.
graded_as() {
    local name=$1 table=$2 exercise=$3 pattern=$4
    local line; line=$(grep -E "^$exercise +(PASS|FAIL|SKIP) " "$table")
    if echo "$line" | grep -Eq -- "^$exercise +$pattern"; then
        pass "$name"
    elif echo "$line" | grep -Eq "^$exercise +SKIP "; then
        skip "$name" "no GPU: compiled, not run"
    else
        fail "$name" "graded: ${line:-no line in the table}" "$table"
    fi
}

# ---------------------------------------------------------------- the set
if [ -z "$solution_files" ]; then
    skip "exercises: the set and its generation" "no solutions/NN-*.cu here (a student's copy)"
else
    for chapter in 02 03 04 05 06 08; do
        count=$(ls solutions/$chapter-*.cu 2>/dev/null | wc -l)
        if [ "$count" -ge 2 ]; then pass "chapter ${chapter#0} has $count exercises"
        else fail "chapter ${chapter#0} has $count exercises" "at least 2 wanted"; fi
    done
    expect_status "exercises/ and solutions/ hold the same names" 0 \
        diff <(cd solutions && ls [0-9][0-9]-*.cu) <(cd exercises && ls [0-9][0-9]-*.cu)

    # exercises/ is exactly what the generator makes of solutions/.
    expect_status "the generator accepts every solution" 0 solutions/generate.sh "$exercise_tmp/fresh"
    expect_status "exercises/ is up to date with solutions/ (else: make exercises)" 0 \
        diff -r "$exercise_tmp/fresh" exercises --exclude='*.md'

    # Each statement (the first /*md block, which the book prints at the end
    # of its chapter) has a title, a difficulty and the line that grades it.
    for solution in $solution_files; do
        name=$(basename "$solution" .cu)
        statement=$(awk '$0 == "/*md" { inside = 1; next } inside && $0 == "*/" { exit } inside' "$solution")
        if ! echo "$statement" | grep -Eq '^###? '; then
            fail "statement of $name" "its first /*md block has no ## or ### title"
        elif ! echo "$statement" | grep -q 'Difficulty'; then
            fail "statement of $name" "it does not give its difficulty"
        elif ! echo "$statement" | grep -q "make grade EX=$name"; then
            fail "statement of $name" "it does not say: make grade EX=$name"
        else
            pass "statement of $name: title, difficulty, how to check"
        fi
    done
fi

# ---------------------------------------------------------------- the generator
expect_status "the generator turns markers into TODOs and stubs exactly" 0 sh -c \
    "solutions/generate.sh '$exercise_tmp/wellformed' tests/fixtures/exercises/wellformed.cu &&
     diff tests/fixtures/exercises/wellformed.expected '$exercise_tmp/wellformed/wellformed.cu'"
fixtures=tests/fixtures/exercises
expect_rejected "generator: a region never closed" $fixtures/malformed-unclosed.cu \
    "^$fixtures/malformed-unclosed.cu:5: exercise:begin is never closed"
expect_rejected "generator: a region inside a region" $fixtures/malformed-nested.cu \
    "^$fixtures/malformed-nested.cu:6: exercise:begin inside the region opened at line 4"
expect_rejected "generator: an end with no region" $fixtures/malformed-stray-end.cu \
    "^$fixtures/malformed-stray-end.cu:5: exercise:end without an exercise:begin"
expect_rejected "generator: a stub outside a region" $fixtures/malformed-stray-stub.cu \
    "^$fixtures/malformed-stray-stub.cu:4: exercise:stub outside"
expect_rejected "generator: a misspelt marker" $fixtures/malformed-unknown.cu \
    "^$fixtures/malformed-unknown.cu:4: unknown marker exercise:begni"
expect_rejected "generator: a region that says nothing" $fixtures/malformed-no-description.cu \
    "^$fixtures/malformed-no-description.cu:4: exercise:begin needs a description"
expect_rejected "generator: a region with no solution in it" $fixtures/malformed-empty.cu \
    "^$fixtures/malformed-empty.cu:4: the region opened here holds no solution code"
expect_rejected "generator: a solution with no region" $fixtures/malformed-no-markers.cu \
    "^$fixtures/malformed-no-markers.cu:1: no exercise:begin marker"
expect_status "generator: a malformed file leaves no half-made exercise" 1 \
    test -e "$exercise_tmp/rejected/malformed-unclosed.cu"

# ---------------------------------------------------------------- the compiles
# (`make test` has built them already with `make all`; this is then quick.)
for source in exercises/[0-9][0-9]-*.cu $solution_files; do
    [ -f "$source" ] || continue
    expect_status "$source compiles" 0 \
        ${MAKE:-make} -s --no-print-directory BUILD="$exercise_build" "$exercise_build/${source%.cu}"
done

# ---------------------------------------------------------------- the grader's reasons
# One file per reason; the first two need no GPU, the others do.
reasons_table=$(log_of "grade the grader's fixtures")
GRADE_DIR=tests/fixtures/grade GRADE_TIMEOUT=10 solutions/grade.sh >"$reasons_table" 2>&1
expect_status "grader: exit status 1 when a file fails" 0 test $? -eq 1
graded_as "grader: a compile error is 'does not compile'" "$reasons_table" \
    02-does-not-compile "FAIL +does not compile: line [0-9]+: error"
graded_as "grader: a refused size is named, with its reason" "$reasons_table" \
    02-refuses-every-size "FAIL +refused size B=1 T=128 C=32 NH=1: this fixture supports no size"
graded_as "grader: an output left unwritten is 'NaN or unwritten'" "$reasons_table" \
    02-writes-nothing "FAIL +NaN or unwritten output at B=1 T=128 C=32 NH=1 \(seed [0-9]+\)"
graded_as "grader: wrong values are 'wrong', with the error" "$reasons_table" \
    02-wrong-values "FAIL +wrong at B=1 T=128 C=32 NH=1 \(seed [0-9]+\): rel_l2"
graded_as "grader: a crashed kernel is a CUDA error" "$reasons_table" \
    02-illegal-address "FAIL +CUDA error at B=1 T=128 C=32 NH=1 "
graded_as "grader: a kernel that never ends times out" "$reasons_table" \
    02-never-ends "FAIL +timed out after 10 s at B=1 T=128 C=32 NH=1"
expect_status "grader: an unknown exercise is bad usage" 2 solutions/grade.sh 99-no-such-exercise

# make grade takes EX as names of exercises, never as shell text: an EX that
# names no exercise is refused (make exits non-zero, as the grader's exit 2
# says) and nothing in it runs; a marker file shows whether it did.
grade_marker=$exercise_build/grade-ran-this
expect_refused_running_nothing "make grade EX='a;touch FILE' is refused and runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX="a;touch $grade_marker"
expect_refused_running_nothing "make grade EX='02-naive-index \`touch FILE\`' runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX="02-naive-index \`touch $grade_marker\`"
expect_refused_running_nothing "make grade EX='\$(shell touch FILE)' runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX="\$(shell touch $grade_marker)"
expect_refused_running_nothing "make grade EX=99-no-such-exercise exits non-zero" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX=99-no-such-exercise
expect_output "make grade EX=exercises/NAME.cu grades that one exercise" \
    "^grading exercises/: 1 exercise" ${MAKE:-make} -s --no-print-directory grade EX=exercises/02-naive-index.cu

# ---------------------------------------------------------------- the proof
# Every untouched exercise fails cleanly (a refused size, NaN or wrong values:
# no compile error, crash or hang), and every solution passes at every size.
if [ -z "$solution_files" ]; then
    skip "every untouched exercise fails, every solution passes" "no solutions here (a student's copy)"
else
    stubs_table=$(log_of "grade the untouched exercises")
    solutions_table=$(log_of "grade the solutions")
    GRADE_DIR=exercises solutions/grade.sh >"$stubs_table" 2>&1
    GRADE_DIR=solutions solutions/grade.sh >"$solutions_table" 2>&1
    for solution in $solution_files; do
        name=$(basename "$solution" .cu)
        graded_as "untouched exercise $name fails" "$stubs_table" "$name" \
            "FAIL +(refused size|NaN or unwritten|wrong at)"
        graded_as "solution $name passes" "$solutions_table" "$name" "PASS +all [0-9]+ sizes"
    done
fi

rm -rf "$exercise_tmp"
