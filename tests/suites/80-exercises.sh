# tests/suites/80-exercises.sh - the exercises and their grader
# (solutions/README.md): one source for exercises and solutions (chapter 6's
# layer and chapter 8's tile shared by several), a generator that refuses
# malformed markers, a grader that checks what each exercise asks, and the
# proof both ways: every untouched exercise fails, every solution passes,
# and for each property the grader checks, a fixture with one deliberate
# fault (tests/fixtures/grade/EXERCISE--what.patch) fails for that reason.
#
# Without a GPU the host checks run for real (index functions, bank
# conflicts counted from the exercises' own address functions, an emulated
# cuBLAS, the counts of the predictions, a simulated ring of barriers, ptxas
# and the PTX), so the host-side fixtures fail here; what needs a GPU
# (values, sanitizers, ncu, timings) is counted as skipped, with the reason.
#
# In a student's copy (solutions/NN-*.cu removed, see `make handout`) the
# tests that need the solutions are skipped.
# test-runner: about 400 s

exercise_tmp=$(mktemp -d)
solution_files=$(ls solutions/[0-9][0-9]-*.cu 2>/dev/null)

# The grader keys the handout's build, and its cache of builds, by ARCH and
# DEVICE_CODE, which make grade passes and a direct solutions/grade.sh does
# not: every grading here gets make's, so that all of them share one build
# and one cache (mixed, each switch built the handout's library anew and
# compiled again what the other had cached).
ARCH=$(${MAKE:-make} -s --no-print-directory arch) DEVICE_CODE=$(${MAKE:-make} -s --no-print-directory print-device-code)
export ARCH DEVICE_CODE

# The fixtures whose fault only a GPU run shows (values, a sanitizer, ncu, a
# timing): without a GPU each would be compiled in full only to be graded
# SKIP, so there they are left out of the gradings below and their tests
# are skipped, as the GPU checks are (graded_gpu). Where there is a GPU they
# are graded, and fail for their reason, as before. Pass 1 compares them
# first: those refused there (cheaply, before any compile) stay in it.
gpu_only_graded=" 04-vectorized-stores--writes-masked-runs 05-shared-predict--pessimistic \
05-shared-stage-tiles--kernel-ignores-its-mapping 06-msa-layernorm--warp-barrier-mask \
06-msa-softmax--no-maximum 02-illegal-address 02-never-ends 02-refuses-every-size \
02-writes-nothing 02-wrong-values "
gpu_only_uncompared=" 02-naive-any-length--reads-past-T 05-shared-stage-tiles--missing-barrier \
09-tf32-split--flushes-tiny-residuals "
left_out=" "   # TABLE|FIXTURE of each left out
left_out_here() { # TABLE FIXTURE LIST: true, and noted, without a GPU where LIST names FIXTURE
    have_gpu && return 1
    [[ $3 == *" $2 "* ]] || return 1
    left_out+="$1|$2 "
}

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

# The grade table's line of EXERCISE: "NAME RESULT HOST GPU REASON".
table_line() { grep -E "^$2 +(PASS|FAIL|SKIP) " "$1"; }

# no_fixture NAME EXERCISE: true, with a skip, for a fixture made of a
# solution (EXERCISE--what) in a student's copy, which has none.
no_fixture() {
    case $2 in *--*) ;; *) return 1 ;; esac
    [ -f "tests/fixtures/grade/$2.patch" ] && return 1
    skip "$1" "no tests/fixtures/grade/$2.patch here (a student's copy)"
}

# graded_host NAME TABLE EXERCISE PATTERN: EXERCISE failed on its host part,
# here and now, and the reason matches PATTERN. No GPU excuses it.
graded_host() {
    local name=$1 table=$2 exercise=$3 pattern=$4 line
    if no_fixture "$name" "$exercise"; then return; fi
    line=$(table_line "$table" "$exercise")
    if echo "$line" | grep -Eq -- "^$exercise +FAIL +FAIL +- +$pattern"; then
        pass "$name"
    else
        fail "$name" "graded: ${line:-no line in the table}" "$table"
    fi
}

# graded_gpu NAME TABLE EXERCISE PATTERN: EXERCISE failed on its GPU part
# with a reason matching PATTERN; SKIP (no GPU here) counts as skipped, but
# only when its host part, if any, passed.
graded_gpu() {
    local name=$1 table=$2 exercise=$3 pattern=$4 line
    if no_fixture "$name" "$exercise"; then return; fi
    if [[ $left_out == *" $table|$exercise "* ]]; then
        skip "$name" "no GPU: its fixture is graded only where there is one"; return
    fi
    line=$(table_line "$table" "$exercise")
    if echo "$line" | grep -Eq -- "^$exercise +FAIL +(PASS|-) +FAIL +$pattern"; then
        pass "$name"
    elif echo "$line" | grep -Eq "^$exercise +SKIP +(PASS|-) +SKIP "; then
        skip "$name" "no GPU: not run (its host part, if any, passed)"
    else
        fail "$name" "graded: ${line:-no line in the table}" "$table"
    fi
}

# graded_pass NAME TABLE EXERCISE: passed; without a GPU, its host part
# passed (a pass) and its GPU part was skipped (a skip).
graded_pass() {
    local name=$1 table=$2 exercise=$3 line
    line=$(table_line "$table" "$exercise")
    if echo "$line" | grep -Eq "^$exercise +PASS "; then
        pass "$name"
    elif echo "$line" | grep -Eq "^$exercise +SKIP +(PASS|-) +SKIP "; then
        if echo "$line" | grep -Eq "^$exercise +SKIP +PASS "; then pass "$name: host part"; fi
        skip "$name" "no GPU: compiled, host checks passed, not run"
    else
        fail "$name" "graded: ${line:-no line in the table}" "$table"
    fi
}

# ---------------------------------------------------------------- the gradings
# Every grading the tests read starts here, side by side in the background,
# so that the suite takes about as long as its longest chain of gradings,
# not their sum: each writes its own table and, when it ends, its exit
# status beside it (TABLE.status); a test waits for the table it reads
# (await_table). Two gradings of one folder never overlap (their logs are
# the folder's): pass 2 and the card's grading get copies of the fixtures,
# and a grading of a folder graded in the background waits for it. A file
# graded in several of them (a solution in the spaced, stale and class
# folders) is built once: the later ones find its build in the grader's
# cache, which is why they follow the solutions.
graded_table() { # TABLE COMMAND...: runs COMMAND, its output in TABLE
    local table=$1; shift
    "$@" > "$table" 2>&1
    echo $? > "$table.status"
}
start_table() { # TABLE COMMAND...: the same, in the background
    rm -f "$1.status"
    graded_table "$@" &
}
await_table() { # TABLE: waits for its grading to end; its exit status in REPLY
    until [ -f "$1.status" ] || [ -z "$(jobs -pr)" ]; do sleep 1; done
    REPLY=$(cat "$1.status" 2>/dev/null || echo "no status: its grading did not end")
}

fixture_dir=build/grade-fixtures
expect_status "the grader's fixtures are made, each patch applying to its solution" 0 \
    tests/grade_fixtures.sh "$fixture_dir"

# Pass 1, as students are graded: every fixture made of an exercise
# (EXERCISE--what), each compared with its exercise first.
exercise_fixtures=()
reasons_table=$(log_of "grade the grader's fixtures")
for source in "$fixture_dir"/[0-9][0-9]-*--*.cu; do
    [ -f "$source" ] || continue
    left_out_here "$reasons_table" "$(basename "$source" .cu)" "$gpu_only_graded" ||
        exercise_fixtures+=("$(basename "$source" .cu)")
done
start_table "$reasons_table" env GRADE_DIR="$fixture_dir" solutions/grade.sh \
    "${exercise_fixtures[@]}"

# Pass 2, without the comparison (GRADE_COMPARE=no): the reasons of the
# value checks (standalone programs, no exercise of the handout), the
# properties whose fixtures change a file outside its TODOs on purpose, and
# what stops a submission that got past the comparison. The standalone
# programs (GPU runs only, and here the one that does not compile) with
# runs of 10 s, for the one that never ends;
# the fixtures made of exercises, whose host checks run here, with the
# grader's own limit, which a loaded machine does not reach.
layers_table=$(log_of "grade the fixtures without the comparison")
uncompared=$exercise_tmp/fixtures-uncompared
cp -a "$fixture_dir" "$uncompared"
reasons_names=()
for source in "$uncompared"/[0-9][0-9]-*.cu; do
    case $source in *--*) continue ;; esac
    left_out_here "$layers_table" "$(basename "$source" .cu)" "$gpu_only_graded" ||
        reasons_names+=("$(basename "$source" .cu)")
done
start_table "$layers_table" env GRADE_COMPARE=no GRADE_DIR="$uncompared" GRADE_TIMEOUT=10 \
    solutions/grade.sh "${reasons_names[@]}"
uncompared_fixtures=$exercise_tmp/exercise-fixtures-uncompared
mkdir -p "$uncompared_fixtures"
layers_exercise_table=$(log_of "grade the exercise fixtures without the comparison")
uncompared_names=()
for name in 02-naive-any-length--reads-past-T 05-shared-stage-tiles--missing-barrier \
    09-tf32-split--flushes-tiny-residuals 02-triangle-grid--constructor-writes \
    02-triangle-grid--exits-0 02-triangle-grid--fake-harness 02-triangle-grid--includes-the-solution \
    06-msa-softmax--fake-comparison 02-triangle-grid--swallows-verdicts \
    02-triangle-grid--destructor-verdict 02-triangle-grid--signal-verdict; do
    # (a student's copy has fewer)
    [ -f "$fixture_dir/$name.cu" ] || continue
    left_out_here "$layers_exercise_table" "$name" "$gpu_only_uncompared" && continue
    cp "$fixture_dir/$name.cu" "$uncompared_fixtures/" && uncompared_names+=("$name")
done
host_check_before=$(sha256sum solutions/host/02-triangle-grid.cu)
if [ ${#uncompared_names[@]} -gt 0 ]; then
    start_table "$layers_exercise_table" env GRADE_COMPARE=no GRADE_DIR="$uncompared_fixtures" \
        solutions/grade.sh "${uncompared_names[@]}"
fi

# The grader's own look at the card, nvidia-smi saying there is one (a
# stand-in here), with the grader's own run limit: a program's start in the
# sandbox looking for a card that is not there takes a while on a loaded
# machine.
if [ -n "$solution_files" ]; then
    fake_gpu=$exercise_tmp/fake-gpu
    mkdir -p "$fake_gpu"
    printf '#!/bin/sh\necho "NVIDIA H200"\n' > "$fake_gpu/nvidia-smi"
    chmod +x "$fake_gpu/nvidia-smi"
    card_fixtures=$exercise_tmp/fixtures-card
    cp -a "$fixture_dir" "$card_fixtures"
    card_table=$(log_of "grade with nvidia-smi listing a card")
    start_table "$card_table" env GRADE_COMPARE=no GRADE_NVIDIA_SMI="$fake_gpu/nvidia-smi" \
        COMPUTE_SANITIZER=none NCU=none GRADE_DIR="$card_fixtures" \
        solutions/grade.sh 02-naive-any-length--exits-77 02-naive-any-length--forged-table \
        02-naive-any-length--forges-results
fi

# Every untouched exercise (it compiles, and fails) and every solution (it
# compiles, and passes); after the solutions, the folders that hold copies
# of them: one with a space in its name, one whose file is replaced by an
# older one, a class.
stubs_table=$(log_of "grade the untouched exercises")
start_table "$stubs_table" env GRADE_DIR=exercises solutions/grade.sh
solutions_table=$(log_of "grade the solutions")
if [ -n "$solution_files" ]; then
    spaced="$exercise_tmp/bob smith"
    mkdir -p "$spaced"
    cp "$fixture_dir/.solved/02-triangle-grid.cu" "$spaced/"
    spaced_table=$(log_of "grade a folder with a space in its name")
    # A build is fresh: a file with an old date is graded as what it is, not
    # as the program the folder had before.
    stale=$exercise_tmp/stale
    mkdir -p "$stale"
    cp "$fixture_dir/.solved/02-triangle-grid.cu" "$stale/"
    stale_table=$(log_of "grade a file older than the last build")
    # A class in one command: five students, one table each, one CSV.
    class=$exercise_tmp/class
    mkdir -p "$class/alice" "$class/bob smith" "$class/carol" "$class/dave" "$class/eve"
    cp "$fixture_dir/.solved/02-triangle-grid.cu" "$fixture_dir/.solved/03-registers-counts.cu" \
        "$class/alice/" 2>/dev/null ||
        solutions/generate.sh --solved "$class/alice" solutions/02-triangle-grid.cu \
            solutions/03-registers-counts.cu
    cp exercises/02-triangle-grid.cu "$class/bob smith/"
    cp "$class/alice/03-registers-counts.cu" "$class/bob smith/"
    cp "$fixture_dir/02-triangle-grid--tiles-above-diagonal.cu" "$class/carol/02-triangle-grid.cu"
    sed 's/TOLERANCE_FP32}/1e-2}/' "$class/alice/02-triangle-grid.cu" > "$class/dave/02-triangle-grid.cu"
    cp "$class/alice/02-triangle-grid.cu" "$class/eve/"
    ln -s "$PWD/solutions/03-registers-counts.cu" "$class/eve/03-registers-counts.cu"
    # A student's folder that is a link, and a name of 250 characters with a
    # space (its log folder's name was 259 characters, more than a file
    # name may have): each
    # still gets its rows in the gradebook (a FAIL naming the link; the long
    # name graded as any other).
    ln -s "$class/alice" "$class/frank"
    long_student="$(printf 'l%.0s' $(seq 124)) $(printf 'l%.0s' $(seq 125))"   # (a space: made safe, hashed)
    mkdir -p "$class/$long_student" && cp "$class/alice/02-triangle-grid.cu" "$class/$long_student/"
    class_log=$(log_of "make grade-class")
    rm -f "$solutions_table.status" "$spaced_table.status" "$stale_table.status" "$class_log.status"
    {
        graded_table "$solutions_table" env GRADE_DIR=solutions solutions/grade.sh
        graded_table "$spaced_table" env GRADE_DIR="$spaced" solutions/grade.sh
        GRADE_DIR=$stale solutions/grade.sh >/dev/null 2>&1
        cp exercises/02-triangle-grid.cu "$stale/"
        touch -d '2000-01-01' "$stale/02-triangle-grid.cu"
        graded_table "$stale_table" env GRADE_DIR="$stale" solutions/grade.sh
        graded_table "$class_log" ${MAKE:-make} -s --no-print-directory grade-class DIR="$class/" \
            EX="02-triangle-grid 03-registers-counts"
    } &
fi

# ---------------------------------------------------------------- the set
if [ -z "$solution_files" ]; then
    skip "exercises: the set and its generation" "no solutions/NN-*.cu here (a student's copy)"
else
    count=$(echo "$solution_files" | wc -w)
    if [ "$count" -ge 23 ]; then pass "$count exercises, at least 23"
    else fail "$count exercises" "at least 23 wanted"; fi
    for chapter in 1 2 3 4 5 6 7 8 9 10 11 12 13; do
        count=$(ls solutions/$(printf %02d "$chapter")-*.cu 2>/dev/null | wc -l)
        if [ "$count" -ge 1 ]; then pass "chapter $chapter has $count exercise(s)"
        else fail "chapter $chapter has no exercise" "at least 1 wanted"; fi
    done
    # "predict, then measure" in each part of the book: the triangle (1-5),
    # the MSA layer (6-7), the tensor cores (8-9).
    for part in "the triangle:0[1-5]" "the MSA layer:0[67]" "the tensor cores:0[89]"; do
        found=$(ls solutions/ | grep -E "^${part#*:}-.*predict.*\.cu$" | head -n 1)
        if [ -n "$found" ]; then pass "a predict-then-measure exercise for ${part%%:*}: $found"
        else fail "no predict-then-measure exercise for ${part%%:*}"; fi
    done
    expect_status "exercises/ and solutions/ hold the same names" 0 \
        diff <(cd solutions && ls [0-9][0-9]-*.cu) <(cd exercises && ls [0-9][0-9]-*.cu)

    # exercises/ is exactly what the generator makes of solutions/.
    expect_status "the generator accepts every solution" 0 \
        solutions/generate.sh "$exercise_tmp/fresh"
    expect_status "exercises/ is up to date with solutions/ (else: make exercises)" 0 \
        diff -r "$exercise_tmp/fresh" exercises --exclude='*.md'
    # Chapter 6's layer and chapter 8's tile live once, in solutions/NN-*.cuh.
    for shared in solutions/06-msa-layer.cuh solutions/08-tensor-tile.cuh; do
        inline_line="^#include \"$(basename "$shared")\" // exercise:inline"
        users=$(grep -l "$inline_line" $solution_files | wc -l)
        if [ "$users" -ge 2 ]; then pass "$shared is the one source of $users exercises"
        else fail "$shared" "inlined by $users solution(s), 2 or more wanted"; fi
    done
    if grep -l '__global__ void __launch_bounds__(THREADS) msa_' solutions/06-*.cu >/dev/null; then
        fail "chapter 6's solutions hold no copy of the layer" "a kernel in solutions/06-*.cu"
    else
        pass "chapter 6's solutions hold no copy of the layer"
    fi

    # Each statement (the first /*md block, which the book prints at the end
    # of its chapter) has a title, a difficulty and the line that grades it.
    for solution in $solution_files; do
        name=$(basename "$solution" .cu)
        statement=$(awk '$0 == "/*md" { inside = 1; next }
                         inside && $0 == "*/" { exit }
                         inside' "$solution")
        if ! echo "$statement" | grep -Eq '^###? '; then
            fail "statement of $name" "its first /*md block has no ## or ### title"
        elif ! echo "$statement" | grep -Eq '^\*Difficulty: (easy|medium|hard)\.\*'; then
            fail "statement of $name" "no *Difficulty: easy|medium|hard.* line"
        elif ! echo "$statement" | grep -q "make grade EX=$name"; then
            fail "statement of $name" "it does not say: make grade EX=$name"
        else
            pass "statement of $name: title, difficulty, how to check"
        fi
    done
fi

# ---------------------------------------------------------------- the generator
fixtures=tests/fixtures/exercises
expect_status "the generator turns markers into TODOs and stubs exactly" 0 sh -c \
    "solutions/generate.sh '$exercise_tmp/wellformed' $fixtures/wellformed.cu &&
     diff $fixtures/wellformed.expected '$exercise_tmp/wellformed/wellformed.cu'"
expect_status "generator: a shared file inlined, its region for this exercise a TODO" 0 sh -c \
    "solutions/generate.sh '$exercise_tmp/shared' $fixtures/01-shared-one.cu &&
     diff $fixtures/01-shared-one.expected '$exercise_tmp/shared/01-shared-one.cu'"
expect_status "generator: another exercise's region of a shared file stays solved" 0 sh -c \
    "solutions/generate.sh '$exercise_tmp/shared' $fixtures/01-shared-two.cu &&
     diff $fixtures/01-shared-two.expected '$exercise_tmp/shared/01-shared-two.cu'"
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
expect_rejected "generator: an inlined file that is not there" \
    $fixtures/malformed-inline-missing.cu \
    "^$fixtures/malformed-inline-missing.cu:2: exercise:inline: no such file"
expect_rejected "generator: an inline marker not on an #include" \
    $fixtures/malformed-inline-alone.cu \
    "^$fixtures/malformed-inline-alone.cu:4: exercise:inline ends an #include"
expect_rejected "generator: an inlined file that inlines another" \
    $fixtures/malformed-inline-nested.cu \
    "^$fixtures/nested-inline.cuh:2: exercise:inline inside an inlined file"
expect_rejected "generator: a region named for no solution" $fixtures/02-unknown-owner.cu \
    "^$fixtures/unknown-owner.cuh:4: exercise:begin\(02-no-such-exercise\): no "
expect_rejected "generator: a region named for a solution that does not inline the file" \
    $fixtures/02-owner-not-inlining.cu \
    "^$fixtures/lone-owner.cuh:4: exercise:begin\(02-lone\): 02-lone.cu does not inline"
expect_rejected "generator: a named region in a solution's own file" \
    $fixtures/03-named-in-own-file.cu \
    "^$fixtures/03-named-in-own-file.cu:5: exercise:begin\(01-shared-one\) in the file of"
expect_rejected "generator: nothing of its own in what it inlines" \
    $fixtures/03-nothing-of-its-own.cu \
    "^$fixtures/03-nothing-of-its-own.cu:1: no exercise:begin marker and no region named"
expect_status "generator: a malformed file leaves no half-made exercise" 1 \
    test -e "$exercise_tmp/rejected/malformed-unclosed.cu"

# ---------------------------------------------------------------- the compiles
# Each exercise and solution compiles (and links) in the grader's sandbox,
# as the gradings of the untouched exercises and of the solutions built it:
# its line in their table says anything but that it was not built (does not
# compile, refused, malformed markers, missing).
await_table "$stubs_table"
[ -n "$solution_files" ] && await_table "$solutions_table"
for source in exercises/[0-9][0-9]-*.cu $solution_files; do
    [ -f "$source" ] || continue
    name=$(basename "$source" .cu) table=$stubs_table
    case $source in solutions/*) table=$solutions_table ;; esac
    line=$(table_line "$table" "$name")
    if [ -z "$line" ]; then
        fail "$source compiles" "no line for $name in its grading's table" "$table"
    elif echo "$line" | grep -Eq "^$name +FAIL +- +- +(does not compile|refused: |a solution with malformed markers|missing: |$name\.cu is not a regular file)"; then
        fail "$source compiles" "graded: $line" "$table"
    else
        pass "$source compiles"
    fi
done

# ---------------------------------------------------------------- Nsight Compute's CSV
ncu_output=tests/fixtures/grade/ncu-output.txt
expect_output "grader: ncu's CSV read, thousands separators dropped" '^1536$' \
    awk -v metric=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
    -f solutions/ncu_metric.awk "$ncu_output"
expect_output "grader: a second metric of the same run" '^3072$' \
    awk -v metric=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
    -f solutions/ncu_metric.awk "$ncu_output"
expect_status "grader: a metric ncu did not give is no number" 1 \
    awk -v metric=no_such_metric.sum -f solutions/ncu_metric.awk "$ncu_output"

# ---------------------------------------------------------------- the grader's reasons
# One fixture per reason and per property. The host-side ones fail here for
# real; the GPU ones are skipped without a GPU.
# The fixtures made of solutions are patches (tests/grade_fixtures.sh makes
# the programs); one that no longer applies to its solution is named.
if [ -n "$solution_files" ]; then
    if grep -l "exercise:\(begin\|stub\|end\)" "$fixture_dir"/.solved/*.cu; then
        fail "generate.sh --solved leaves no marker" "markers in the files above"
    else
        pass "generate.sh --solved leaves no marker"
    fi
    stale_fixtures=$exercise_tmp/stale-fixtures
    mkdir -p "$stale_fixtures"
    sed 's/mine = merge_moments(mine, other);/mine = merge(mine, other);/' \
        tests/fixtures/grade/06-msa-layernorm--warp-barrier-mask.patch \
        > "$stale_fixtures/06-msa-layernorm--stale.patch"
    expect_output "a fixture's patch that no longer applies is named" \
        "06-msa-layernorm--stale.patch no longer applies to solutions/06-msa-layernorm.cu" \
        env FIXTURES="$stale_fixtures" tests/grade_fixtures.sh "$exercise_tmp/stale-out"
    expect_status "... and fails" 1 \
        env FIXTURES="$stale_fixtures" tests/grade_fixtures.sh "$exercise_tmp/stale-out"
fi

# Pass 1 and pass 2 (started above, with the gradings).
await_table "$reasons_table"
expect_status "grader: exit status 1 when a file fails" 0 test "$REPLY" = 1
await_table "$layers_table"
[ ${#uncompared_names[@]} -gt 0 ] && await_table "$layers_exercise_table"

at="at B=1 T=128 C=32 NH=1"
line=$(table_line "$layers_table" 02-does-not-compile)
if echo "$line" |
   grep -Eq '^02-does-not-compile +FAIL +- +- +does not compile: line [0-9]+: error'; then
    pass "grader: a compile error is 'does not compile', with its line"
else
    fail "grader: a compile error is 'does not compile'" "graded: ${line:-no line}" "$layers_table"
fi
graded_gpu "grader: a refused size is named, with its reason" "$layers_table" \
    02-refuses-every-size "refused size B=1 T=128 C=32 NH=1: this fixture supports no size"
graded_gpu "grader: an output left unwritten is 'NaN or unwritten'" "$layers_table" \
    02-writes-nothing "NaN or unwritten output $at \(seed [0-9]+\)"
graded_gpu "grader: wrong values are 'wrong', with the error" "$layers_table" \
    02-wrong-values "wrong $at \(seed [0-9]+\): rel_l2"
graded_gpu "grader: a crashed kernel is a CUDA error" "$layers_table" \
    02-illegal-address "CUDA error $at "
graded_gpu "grader: a kernel that never ends times out" "$layers_table" \
    02-never-ends "timed out after 10 s $at"

# Properties checked on the host: these must fail here, without a GPU.
graded_host "property: the work of the cuBLAS calls (host, emulated cuBLAS)" "$reasons_table" \
    01-cublas-rows-packed--whole-square "host: work: .*100% of the square, more than the 75%"
graded_host "property: every tile below the diagonal once (host)" "$reasons_table" \
    02-triangle-grid--tiles-above-diagonal "host: tile_of_block: block [0-9]+ .*above the diagonal"
graded_host "property: the counts of a kernel (host, enumerated grid)" "$reasons_table" \
    03-registers-counts--dense-count "host: working_threads: .*the grid has 792576"
graded_host "grader: a host check that crashes is named with its signal" "$reasons_table" \
    03-registers-counts--crashes "host: the record of the program's answers ended at call [0-9]+ \([a-z_]+\): the program crashed \(signal 11, SIGSEGV\)"
graded_host "property: no local memory (ptxas)" "$reasons_table" \
    03-registers-epilogue--local-memory \
    "local memory \(ptxas\): registers_epilogue_scores has a [1-9][0-9]*-byte stack frame"
graded_host "property: no local memory where 5.2 says so (ptxas)" "$reasons_table" \
    05-shared-inner-loop--local-memory \
    "local memory \(ptxas\): shared_inner_scores has a [1-9][0-9]*-byte stack frame"
graded_host "property: 16-byte loads (PTX)" "$reasons_table" \
    04-vectorized-loads--scalar-loads \
    "16-byte loads \(float4\) \(PTX\): vectorized_loads_scores<4> has 0"
graded_host "property: 16-byte stores (PTX)" "$reasons_table" \
    04-vectorized-stores--scalar-stores \
    "16-byte stores \(float4\) \(PTX\): vectorized_stores_scores has 0"
graded_host "property: 8-byte stores (PTX)" "$reasons_table" \
    08-tensor-epilogue--scalar-stores "8-byte stores \(float2\) \(PTX\): tensor_tile_scores has 0"
graded_host "property: conflict-free stores, from copy_slot and PAD (host)" "$reasons_table" \
    05-shared-stage-tiles--row-major-unpadded "host: bank conflicts of the stores: .* 4 wavefronts"
graded_host "property: conflict-free reads, counted from the ownership (host)" "$reasons_table" \
    05-shared-inner-loop--neighbour-columns "host: bank conflicts of the reads: .* 4 wavefronts"
graded_host "property: conflict-free phase 3, from projection_stride (host)" "$reasons_table" \
    06-msa-gate--unpadded-rows "host: bank conflicts in phase 3: .* 32 wavefronts"
graded_host "property: conflict-free fragment loads, from PAD (host)" "$reasons_table" \
    08-tensor-fragments--unpadded "host: bank conflicts of the fragment loads: .* 8 wavefronts"
graded_host "property: LayerNorm's moments keep their digits (host)" "$reasons_table" \
    06-msa-layernorm--one-pass "host: merge_moments: D=[0-9]+, mean"
graded_host "property: the online softmax rescales its output (host)" "$reasons_table" \
    07-online-softmax--no-rescale "host: online softmax: "
graded_host "property: the TF32 split rounds to nearest (host)" "$reasons_table" \
    09-tf32-split--truncated "host: split_tf32: .*not the TF32 value nearest"
graded_host "property: a ring's waits on empty that pass too early (host, simulated ring)" \
    "$reasons_table" 11-hopper-ring--waits-parity-1 \
    "host: the ring: stages=[0-9]+ ahead=[0-9]+, .*a race: thread 0 starts copying stage [0-9]+ into buffer [0-9]+ while warp [0-9]+ has not finished stage"
graded_host "property: a ring copied so far ahead that it deadlocks (host, simulated ring)" \
    "$reasons_table" 11-hopper-ring--ahead-a-whole-ring \
    "host: the ring: with ahead = largest_ahead: stages=2 ahead=2, .*a deadlock: thread 0 waits on empty\[0\] with parity 0 to copy stage 2"
graded_host "property: a ring right only up to 8 buffers fails beyond (host, rings to 64 buffers)" \
    "$reasons_table" 11-hopper-ring--wrong-past-8 \
    "host: the ring: with ahead = largest_ahead: stages=16 ahead=16, .*a deadlock"
graded_host "property: a widest load right only at the sizes the check once named fails at a drawn one (host)" \
    "$reasons_table" 04-vectorized-loads--right-to-24 \
    "host: widest_load: B=[0-9]+ T=[0-9]+ C=[0-9]+ NH=[0-9]+ \(HS = [0-9]+\): widest_load says 4"
graded_host "property: a descriptor's stride that does not match the layout (host, wgmma's reading modelled)" \
    "$reasons_table" 10-wgmma-steps--stride-one-core-matrix \
    "host: the layout: step_descriptor\(0, 16, 8\) = \{start 0, leading 128, stride 128\}: wgmma reads key 8 value 0 \(k' = 0\) at byte 128, but key_slot put it at float 64"
graded_host "property: a descriptor's start counted in floats (host, wgmma's reading modelled)" \
    "$reasons_table" 10-wgmma-steps--start-in-floats \
    "host: the layout: step_descriptor\(1, 8, 16\) = \{start 64, .*\}: wgmma reads key 0 value 8 \(k' = 0\) at byte 64, but key_slot put it at float 64 \(byte 256\)"
graded_host "property: a schedule that loses the last middle row (host, every unit walked)" \
    "$reasons_table" 12-roles-schedule--loses-last-middle-row \
    "host: schedule: schedule_units\(1, 1\) is 0; .* makes 1"
graded_host "property: a schedule that is not head-major (host, every unit walked)" \
    "$reasons_table" 12-roles-schedule--middles-last \
    "host: schedule: 2 heads of 3 rows, unit 2 of 3: row 0 is of head 0, after a row of head 1: the head decreases"
graded_host "property: a pair of values that one load cannot bring in order (host)" \
    "$reasons_table" 13-layer-value-pairs--keys-swapped \
    "host: value_pair: lane 0 \(g 0, t 0\), key group 0: b0 is key 1, b1 = B\[4\]\[0\] key 0, which is not the float after it"
graded_host "property: conflict-free pair loads, from VALUES_T_STRIDE (host)" "$reasons_table" \
    13-layer-value-pairs--stride-68 \
    "host: bank conflicts of the pair loads: with VALUES_T_STRIDE = 68 .* takes 4 wavefronts; 2 would do"
graded_host "property: the counts behind a prediction (host)" "$reasons_table" \
    05-shared-predict--dense-square "host: tile_flops: .*the referee counts"
graded_host "property: a prediction is never below its card's floor (host)" "$reasons_table" \
    05-shared-predict--memory-floor "host: prediction: .* on the NVIDIA H200, below that card's floor"
graded_host "property: a prediction follows other cards' floors, not typed-in times (host)" \
    "$reasons_table" 05-shared-predict--typed-times \
    "host: prediction: .* on the (Tesla T4|NVIDIA A100|NVIDIA GeForce RTX 4090)"

# Properties checked on the GPU: each fixture passes every check before it.
graded_gpu "property: no access out of bounds (memcheck)" "$layers_exercise_table" \
    02-naive-any-length--reads-past-T "memcheck at B=1 T=129 C=32 NH=1 \(seed [0-9]+\): "
graded_gpu "property: no race on shared memory (racecheck)" "$layers_exercise_table" \
    05-shared-stage-tiles--missing-barrier "racecheck at B=1 T=256 C=128 NH=2 \(seed [0-9]+\): "
graded_gpu "property: no misused barrier (compute-sanitizer)" "$reasons_table" \
    06-msa-layernorm--warp-barrier-mask \
    "(memcheck|synccheck) at B=1 S=5 N=3 D=64 H=2 \(seed [0-9]+\): .*(Illegal instruction|Invalid arguments)"
graded_gpu "property: a softmax that survives large logits (--logits 90)" "$reasons_table" \
    06-msa-softmax--no-maximum "large logits: (NaN or unwritten output|wrong) at .*--logits 90"
graded_gpu "property: accuracy at other magnitudes (--input-scale)" "$layers_exercise_table" \
    09-tf32-split--flushes-tiny-residuals "inputs in \+-1e-3: wrong at .*--input-scale 1e-3"
graded_gpu "property: masked runs left unwritten, as 4.2 says (GPU)" "$reasons_table" \
    04-vectorized-stores--writes-masked-runs "masked runs unwritten: at B=2 T=384"
graded_gpu "property: a prediction within a factor 2 of the time (GPU timing)" "$reasons_table" \
    05-shared-predict--pessimistic "prediction: measured .* outside 1/2 to 2"
# Nsight Compute needs the counters, which a driver may keep to
# administrators; the sandbox's user is none (solutions/README.md).
ncu_refused=""
if [ "$(id -u)" -eq 0 ] && grep -qs 'RmProfilingAdminOnly: 1' /proc/driver/nvidia/params; then
    ncu_refused="this driver keeps the counters to administrators (RmProfilingAdminOnly: 1)"
fi
if [ -n "$ncu_refused" ]; then
    skip "property: bank conflicts as the hardware counts them (ncu)" "$ncu_refused"
else
    graded_gpu "property: bank conflicts as the hardware counts them (ncu)" "$reasons_table" \
        05-shared-stage-tiles--kernel-ignores-its-mapping \
        "bank conflicts \(ncu, shared stores of shared_stage_scores"
fi

# ---------------------------------------------------------------- what a submission may not do
# Each hole a submission once used, proven closed (notes/grader.md has the
# runs of the grader before these, where each of them passed or harmed).
# Outside its TODOs a submission is its exercise, token for token; inside,
# no preprocessor line but #pragma unroll, nothing that ends the program,
# reads the environment or opens a file.
if [ -z "$solution_files" ]; then
    skip "what a submission may not do: its fixtures" "no solutions here (a student's copy)"
else
    refused_for() { # NAME TABLE FIXTURE PATTERN: failed before anything was built, for PATTERN
        local line; line=$(table_line "$2" "$3")
        if echo "$line" | grep -Eq -- "^$3 +FAIL +- +- +refused: $4"; then pass "$1"
        else fail "$1" "graded: ${line:-no line in the table}" "$2"; fi
    }
    refused_for "a tolerance, an include, a statement changed outside the TODOs is refused, with its line" \
        "$reasons_table" 02-naive-any-length--reads-past-T "line 68: .* where the exercise has"
    refused_for "the solution #included by its path is refused" "$reasons_table" \
        02-triangle-grid--includes-the-solution "line 1: the exercise has 2 TODO regions, this file 0"
    refused_for "a constructor (__attribute__) in a TODO is refused" "$reasons_table" \
        02-triangle-grid--constructor-writes "line [0-9]+: \`__attribute__\` inside a TODO"
    refused_for "a #define in a TODO (the host check's own guard) is refused" "$reasons_table" \
        02-triangle-grid--fake-harness "line [0-9]+: #define inside a TODO"
    refused_for "exit() in a TODO is refused" "$reasons_table" \
        02-naive-any-length--exits-77 "line [0-9]+: \`exit\` inside a TODO"
    # What the compiler reads otherwise than the comparison's tokens, each
    # accepted by the comparison before these checks.
    refused_for "a line splice (a \\ ending a // comment) is refused" "$reasons_table" \
        02-triangle-grid--line-splice "line 50: a \\\\ at the end of a line \(a line splice\)"
    refused_for "a trigraph is refused" "$reasons_table" \
        02-triangle-grid--trigraph "line 56: a trigraph \(\?\?/\)"
    refused_for "a digraph (%:define) is refused" "$reasons_table" \
        02-triangle-grid--digraph "line 56: the digraph \`%:\`"
    refused_for "a raw string literal is refused" "$reasons_table" \
        02-triangle-grid--raw-string "line 56: a raw string literal"
    refused_for "a digit separator is refused" "$reasons_table" \
        02-triangle-grid--digit-separator "line 56: a digit separator"
    refused_for "a TODO that closes its function's scope is refused" "$reasons_table" \
        02-triangle-grid--closes-scope "line 57: this \`\}\` inside a TODO closes a scope"
    # The harness's functions defined anew: the comparison refuses the `}`
    # that leaves the TODO's function to define them; past the comparison,
    # nm finds them in the object.
    refused_for "functions defined outside the TODO's function are refused" "$reasons_table" \
        06-msa-softmax--fake-comparison "line [0-9]+: this \`\}\` inside a TODO closes a scope"
    await_table "$layers_exercise_table"
    line=$(table_line "$layers_exercise_table" 06-msa-softmax--fake-comparison)
    if echo "$line" | grep -Eq "^06-msa-softmax--fake-comparison +FAIL +- +- +defines the library's own compare_print, compare_results"; then
        pass "the harness's own functions defined in a submission are refused (nm)"
    else
        fail "the harness's own functions defined in a submission are refused (nm)" \
            "graded: ${line:-no line}" "$layers_exercise_table"
    fi
    line=$(table_line "$reasons_table" 05-shared-predict--reads-stdin)
    if echo "$line" | grep -q "T=1024" && echo "$line" | grep -q "T=4096"; then
        pass "stdin is closed: a submission that reads it leaves the grader's checks alone"
    else
        fail "stdin is closed: both timing checks are there" "graded: ${line:-no line}" "$reasons_table"
    fi

    # Past the comparison (GRADE_COMPARE=no), the sandbox, the harness's own
    # result and the build in a copy of the handout stop them still.
    if echo "$(table_line "$layers_exercise_table" 02-triangle-grid--constructor-writes)" |
       grep -Eq "FAIL +FAIL +- +host: tile_of_block" &&
       [ "$host_check_before" = "$(sha256sum solutions/host/02-triangle-grid.cu)" ]; then
        pass "sandbox: a constructor that rewrites the host check ran, and changed nothing"
    else
        fail "sandbox: a constructor rewrote the host check, or the fixture did not fail" \
            "graded: $(table_line "$layers_exercise_table" 02-triangle-grid--constructor-writes)" \
            "$layers_exercise_table"
    fi
    graded_host "referee: _exit(0) before any check is no pass" "$layers_exercise_table" \
        02-triangle-grid--exits-0 "host: the record of the program's answers ended at call 1 \\(tiles_per_head\\): the program exited 0"
    line=$(table_line "$layers_exercise_table" 02-triangle-grid--fake-harness)
    if echo "$line" | grep -Eq "^02-triangle-grid--fake-harness +FAIL "; then
        pass "referee: a harness of its own (its guard defined) is no pass"
    else
        fail "referee: a harness of its own (its guard defined) is no pass" "graded: ${line:-no line}" \
            "$layers_exercise_table"
    fi
    # The verdict is the referee's, in a process with no student code: what
    # the student's code prints of a verdict, however it gets to print it,
    # is not read.
    graded_host "referee: a host_check of its own that swallows the verdicts is no pass" \
        "$layers_exercise_table" 02-triangle-grid--swallows-verdicts "host: tile_of_block: tiles_per_head\\(2\\) is 1"
    graded_host "referee: a destructor that prints a passing closing line is no pass" \
        "$layers_exercise_table" 02-triangle-grid--destructor-verdict "host: tile_of_block: tiles_per_head\\(2\\) is 1"
    graded_host "referee: a crash whose handler prints a passing closing line is no pass" \
        "$layers_exercise_table" 02-triangle-grid--signal-verdict "host: the record of the program's answers ended at call [0-9]+ \\(tiles_per_head\\): the program exited 0"
    line=$(table_line "$layers_exercise_table" 02-triangle-grid--includes-the-solution)
    if echo "$line" | grep -Eq "FAIL +- +- +does not compile: .*solutions/02-triangle-grid.cu"; then
        pass "the handout's copy holds no solution to include"
    else
        fail "the handout's copy holds no solution to include" "graded: ${line:-no line}" "$layers_exercise_table"
    fi

    # The grader's own look at the card: with nvidia-smi saying there is one (a
    # stand-in here), a run that exits 77 fails, and the next exercise still
    # runs its GPU checks; what a submission prints reaches the table escaped.
    await_table "$card_table"
    line=$(table_line "$card_table" 02-naive-any-length--exits-77)
    if echo "$line" | grep -Eq "FAIL +- +FAIL +exit 77 \(no GPU, says the program\) .*but nvidia-smi lists"; then
        pass "exit 77 where the grader sees a card fails"
    else
        fail "exit 77 where the grader sees a card fails" "graded: ${line:-no line}" "$card_table"
    fi
    line=$(table_line "$card_table" 02-naive-any-length--forged-table)
    if echo "$line" | grep -Eq "FAIL +- +FAIL +refused size .*: \?\?\[2K02-naive-any-length +PASS" &&
       ! LC_ALL=C grep -q "$(printf '[\r\033]')" "$card_table"; then
        pass "a submission's \\r and escape codes reach the table escaped (and the run after 77 ran)"
    else
        fail "a submission's bytes reach the table escaped" "graded: ${line:-no line}" "$card_table"
    fi
    # The values are judged by the referee, in a process of its own: no
    # results file is named on the program's command line for it to forge.
    line=$(table_line "$card_table" 02-naive-any-length--forges-results)
    if echo "$line" | grep -Eq "^02-naive-any-length--forges-results +FAIL +- +FAIL "; then
        pass "referee: a constructor that forges the harness's results is no pass"
    else
        fail "referee: a constructor that forges the harness's results is no pass" \
            "graded: ${line:-no line}" "$card_table"
    fi
fi

# Names are data: a folder with a space grades; a file whose name is not
# NN-name is refused and nothing in it runs; nor does a $(...) in GRADE_DIR.
if [ -n "$solution_files" ]; then
    await_table "$spaced_table"
    graded_pass "names: a folder with a space in its name grades" "$spaced_table" 02-triangle-grid
fi
named=$exercise_tmp/named
mkdir -p "$named"
grade_marker=grade-ran-this   # in the repository's root, where the grader runs
cp exercises/02-triangle-grid.cu "$named/02-x\$(touch $grade_marker).cu"
cp exercises/02-triangle-grid.cu "$named/02-a b.cu"
expect_refused_running_nothing "names: a file named 02-x\$(touch FILE).cu is refused, runs nothing" \
    "$grade_marker" env GRADE_DIR="$named" solutions/grade.sh
expect_output "names: ... with a line in the table saying why" \
    "^\(refused\) +FAIL .*'02-x\\\$\(touch .*\)\.cu' is not named NN-name\.cu" \
    env GRADE_DIR="$named" solutions/grade.sh
expect_refused_running_nothing "names: make grade GRADE_DIR='x/\$(shell touch FILE)' runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade \
    GRADE_DIR="$exercise_tmp/\$(shell touch $grade_marker)"

# Limits before a byte is read: a file over GRADE_SOURCE_KB is refused
# before the comparison reads it (a 13 MB one took it 112 s and 2.1 GB).
oversized=$exercise_tmp/oversized
mkdir -p "$oversized"
{ cat exercises/02-triangle-grid.cu; yes '// padding' | head -c 300000; } > "$oversized/02-triangle-grid.cu"
expect_output "limits: a file over 256 KiB is refused before the comparison reads it" \
    "^02-triangle-grid +FAIL +- +- +refused: [0-9]+ bytes, over the 256 KiB" \
    env GRADE_DIR="$oversized" solutions/grade.sh 02-triangle-grid

# A build is fresh: a file with an old date is graded as what it is, not as
# the program the folder had before.
if [ -n "$solution_files" ]; then
    await_table "$stale_table"
    graded_host "a file older than the last grading's build is built afresh" "$stale_table" \
        02-triangle-grid "host: tile_of_block: tiles_per_head"
fi

# The sandbox itself: the handout read-only, the scratch folder writable,
# nothing else of the tree in sight, no network, an unprivileged user.
sandbox_ro=$exercise_tmp/sandbox-ro sandbox_rw=$exercise_tmp/sandbox-rw
mkdir -p "$sandbox_ro" "$sandbox_rw" && echo kept > "$sandbox_ro/file"
[ "$(id -u)" -eq 0 ] && chown "$(solutions/sandbox.sh --user)" "$sandbox_rw"
expect_status "sandbox: bwrap starts here (make deps installs it)" 0 solutions/sandbox.sh --check
expect_status "sandbox: a folder bound read-only cannot be written" 1 \
    solutions/sandbox.sh --ro "$sandbox_ro" /work --cd /work -- touch file
expect_status "sandbox: the scratch folder can" 0 \
    solutions/sandbox.sh --rw "$sandbox_rw" /scratch --cd /scratch -- sh -c 'echo x > file'
expect_output "sandbox: a run's folder holds no more than its size: no run fills the disk" \
    "No space left" solutions/sandbox.sh --scratch /scratch 1 -- \
    sh -c 'head -c 2097152 /dev/zero > /scratch/file'
expect_output "sandbox: nor does /tmp" "No space left" env GRADE_TMP_MB=1 solutions/sandbox.sh -- \
    sh -c 'head -c 2097152 /dev/zero > /tmp/file'
expect_status "sandbox: the instructor's tree is not there" 1 \
    solutions/sandbox.sh --ro "$sandbox_ro" /work -- test -e "$PWD/solutions"
expect_output "sandbox: no network device but the loopback" "^0$" \
    solutions/sandbox.sh -- sh -c 'tail -n +3 /proc/net/dev | grep -vc "^ *lo:"; true'
if [ "$(id -u)" -eq 0 ]; then
    expect_output "sandbox: the grader is root, the submission runs as a uid of its own, no account's" \
        "^61999 no account$" solutions/sandbox.sh -- sh -c 'echo "$(id -u) $(getent passwd "$(id -u)" || echo no account)"'
fi
# The seccomp filter: no namespace of any kind inside (a user namespace was
# the way to capabilities), no mount; the calls a compile and a run use
# still work (threads, processes).
expect_output "sandbox: no new user namespace inside" "unshare failed: Operation not permitted" \
    solutions/sandbox.sh -- unshare --user true
expect_output "sandbox: no new network namespace inside" "unshare failed: Operation not permitted" \
    solutions/sandbox.sh -- unshare --net true
expect_output "sandbox: processes and threads still start" "^forked threaded$" \
    solutions/sandbox.sh -- python3 -c 'import os, threading
pid = os.fork()
if pid == 0: os._exit(0)
os.waitpid(pid, 0); t = threading.Thread(target=lambda: None); t.start(); t.join(); print("forked threaded")'

# Its limits are hard: the command cannot raise them (a soft one it could).
expect_status "sandbox: the file-size limit is hard, the command cannot raise it" 1 \
    solutions/sandbox.sh -- sh -c 'ulimit -f unlimited 2>/dev/null && exit 0; exit 1'
expect_status "sandbox: a file past the limit stops the command (SIGXFSZ: 128 + 25)" 153 \
    env GRADE_FILE_MB=1 solutions/sandbox.sh --rw "$sandbox_rw" /scratch --cd /scratch -- \
    sh -c 'head -c 2000000 /dev/zero > big'
expect_output "sandbox: --memory bounds the address space (a 100 MiB buffer in 64 MiB)" \
    "memory exhausted" solutions/sandbox.sh --memory 64 -- dd if=/dev/zero of=/dev/null bs=100M count=1
if [ "$(id -u)" -eq 0 ]; then
    # (as a uid of its own: the limit counts every process of the uid, and
    # the suite's gradings run beside this test)
    expect_output "sandbox: at most GRADE_PROCESSES processes (a fork bomb stops)" "[Cc]annot fork|fork: " \
        env GRADE_PROCESSES=20 GRADE_SANDBOX_USER=61998:61998 solutions/sandbox.sh -- \
        sh -c 'for i in $(seq 40); do sleep 1 & done; wait'
fi

# A class in one command: five students, one table each, one CSV.
if [ -n "$solution_files" ]; then
    await_table "$class_log"
    class_csv=build/grade-class/$(. solutions/gradebook.sh; safe_file_name "$class")/class.csv
    expect_status "grade-class: one CSV, a header and a row per student and exercise" 0 \
        test "$(wc -l < "$class_csv" 2>/dev/null)" -eq 15
    class_row() { grep -E -- "^\"$1\",\"$2\",\"$3\",\"$4" "$class_csv" >/dev/null; }
    if class_row alice 02-triangle-grid "(PASS|SKIP)" "" && class_row alice 03-registers-counts "(PASS|SKIP)" "" &&
       class_row "bob smith" 02-triangle-grid FAIL "host: tile_of_block" &&
       class_row carol 02-triangle-grid FAIL "host: tile_of_block: block" &&
       class_row carol 03-registers-counts FAIL "missing: no 03-registers-counts.cu" &&
       class_row dave 02-triangle-grid FAIL "refused: line [0-9]+: .1e. where the exercise has .TOLERANCE_FP32." &&
       class_row eve 03-registers-counts FAIL "03-registers-counts.cu is not a regular file"; then
        pass "grade-class: each student's results, the property that failed, missing ones failing"
    else
        fail "grade-class: the rows" "see the CSV" "$class_csv"
    fi
    if class_row frank 02-triangle-grid FAIL "not graded: the student's folder is a link" &&
       class_row frank 03-registers-counts FAIL "not graded: the student's folder is a link"; then
        pass "grade-class: a student's folder that is a link gets its rows, FAIL with the reason"
    else
        fail "grade-class: a student's folder that is a link gets its rows" "see the CSV" "$class_csv"
    fi
    if class_row "$long_student" 02-triangle-grid "(PASS|SKIP)" "" &&
       class_row "$long_student" 03-registers-counts FAIL "missing: no 03-registers-counts.cu"; then
        pass "grade-class: a student's name of 250 characters is graded, with its rows"
    else
        fail "grade-class: a student's name of 250 characters is graded" "see the CSV" "$class_csv"
    fi
    expect_status "grade-class: a table per student" 0 \
        test -s "$(dirname "$class_csv")/$(. solutions/gradebook.sh; safe_file_name "bob smith").txt"

    # Four right answers in folders whose safe names are alike, graded four
    # at a time: each keeps its own logs, so each is graded as it would be
    # alone (PASS, or SKIP with no GPU); sharing a log folder failed them all.
    alike=$exercise_tmp/alike
    for student in "p q" "p,q" "p_q" "p=q"; do
        mkdir -p "$alike/$student" && cp "$class/alice/02-triangle-grid.cu" "$alike/$student/"
    done
    GRADE_JOBS=4 ${MAKE:-make} -s --no-print-directory grade-class DIR="$alike/" EX=02-triangle-grid \
        > "$(log_of "grade-class: alike names")" 2>&1
    alike_csv=build/grade-class/$(. solutions/gradebook.sh; safe_file_name "$alike")/class.csv
    expect_output "grade-class: four folders with alike names, four at a time, each graded as alone" \
        "^4$" sh -c "grep -cE '^\"p[ ,_=]q\",\"02-triangle-grid\",\"(PASS|SKIP)\"' '$alike_csv'"

    # Right work saved by another editor: a byte-order mark and CRLF line
    # endings (refused before: "a second // TODO: before the // TODO end").
    crlf=$exercise_tmp/crlf
    mkdir -p "$crlf"
    { printf '\357\273\277'; sed 's/$/\r/' "$class/alice/02-triangle-grid.cu"; } > "$crlf/02-triangle-grid.cu"
    expect_output "a right answer with a BOM and CRLF line endings is graded as the same answer" \
        "^02-triangle-grid +(PASS|SKIP) +PASS" env GRADE_DIR="$crlf" solutions/grade.sh

    # Right work with a note and a name of its own: a `// TODO:` note inside
    # a region (refused before: "a second // TODO:") and a variable named
    # like a denied call (refused before: "`signal` inside a TODO"), while
    # the library's function, by name or after its hiding block, stays
    # refused. The comparison alone (tokens.awk), on the solved file.
    own=$exercise_tmp/own-names
    mkdir -p "$own"
    solutions/generate.sh --solved "$own" solutions/02-triangle-grid.cu
    compared() { # LINE: the solved file with LINE before its line 56, compared
        sed "56i\\$1" "$own/02-triangle-grid.cu" > "$own/try.cu"
        awk -v exercise=exercises/02-triangle-grid.cu -v submission="$own/try.cu" -f solutions/tokens.awk
    }
    expect_status "a // TODO: note inside a TODO is the student's comment" 0 \
        compared '    // TODO: double-check the overflow at n = 2^16'
    expect_status "a variable named signal inside a TODO is accepted" 0 \
        compared '    int signal = 2; (void)signal;'
    expect_status "a lambda's parameter named exit is accepted" 0 \
        compared '    auto g = [](int exit) { return exit + 1; }; (void)g;'
    expect_output "exit taken by name is still refused" "^line 56: \`exit\` inside a TODO" \
        compared '    auto f = exit; (void)f;'
    expect_output "::exit under a local of its name is still refused" "^line 56: \`exit\` inside a TODO" \
        compared '    auto exit = ::exit; (void)exit;'
    expect_output "exit after its hiding block closed is still refused" "^line 56: \`exit\` inside a TODO" \
        compared '    { int exit = 1; (void)exit; } auto f = exit; (void)f;'

    # The results as the courses' autograders read them (Gradescope's
    # results.json, PrairieLearn's external grader's): a passing answer
    # (10.1 is graded on the host alone) and a refused one whose reason
    # holds a backslash, read back with every documented field checked.
    autograder=$exercise_tmp/autograder
    mkdir -p "$autograder"
    solutions/generate.sh --solved "$autograder" solutions/11-hopper-ring.cu
    cp "$fixture_dir/02-triangle-grid--line-splice.cu" "$autograder/"
    env GRADE_DIR="$autograder" GRADE_GRADESCOPE="$exercise_tmp/gradescope.json" \
        GRADE_PRAIRIELEARN="$exercise_tmp/prairielearn.json" solutions/grade.sh \
        > "$(log_of "grade for the autograders")" 2>&1
    expect_status "Gradescope's results.json: every documented field, a pass and a failure" 0 \
        python3 tests/autograder_json.py gradescope "$exercise_tmp/gradescope.json" \
        11-hopper-ring=passed 02-triangle-grid--line-splice=failed
    expect_status "PrairieLearn's results.json: every documented field, a pass and a failure" 0 \
        python3 tests/autograder_json.py prairielearn "$exercise_tmp/prairielearn.json" \
        11-hopper-ring=passed 02-triangle-grid--line-splice=failed
    expect_status "... and the check of them fails on a field left out" 1 sh -c \
        "sed 's/\"max_score\": 1, //' '$exercise_tmp/gradescope.json' > '$exercise_tmp/broken.json' &&
         python3 tests/autograder_json.py gradescope '$exercise_tmp/broken.json'"
fi

# make handout: the tracked files only, written whole or not at all.
handout_repo=$exercise_tmp/handout-repo
mkdir -p "$handout_repo/solutions" "$handout_repo/tests/fixtures/grade"
cp solutions/handout.sh "$handout_repo/solutions/"
echo kept > "$handout_repo/solutions/README.md"
echo solution > "$handout_repo/solutions/02-triangle-grid.cu"
echo fixture > "$handout_repo/tests/fixtures/grade/02-triangle-grid--fault.patch"
(cd "$handout_repo" && git init -q && git add . && git -c user.email=t@t -c user.name=t commit -qm t)
mkdir -p "$handout_repo/submissions/alice" && echo student > "$handout_repo/submissions/alice/02-x.cu"
"$handout_repo/solutions/handout.sh" "$handout_repo/out/handout.tar.gz" >/dev/null 2>&1
expect_output "handout: tracked files only (no submissions/, no solutions, no fixtures)" \
    "^workbook/solutions/README.md workbook/solutions/handout.sh $" \
    sh -c "tar -tzf '$handout_repo/out/handout.tar.gz' | LC_ALL=C sort | tr '\n' ' '; echo"
rm "$handout_repo/solutions/README.md"
expect_status "handout: a tracked file that cannot be archived fails it" 1 \
    "$handout_repo/solutions/handout.sh" "$handout_repo/out/handout.tar.gz"
expect_status "... and leaves no partial archive, the last one as it was" 0 sh -c \
    "tar -tzf '$handout_repo/out/handout.tar.gz' >/dev/null && ! ls '$handout_repo/out' | grep -q partial"

# A tool that is missing is named, never passed in silence: cuobjdump on
# the host; compute-sanitizer and ncu where there is a GPU (NCU=none and
# COMPUTE_SANITIZER=none grade as if they were missing).
cuda_tool_here() { # as the grader looks for one: on the PATH or beside nvcc
    local nvcc; nvcc=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
    command -v "$1" >/dev/null 2>&1 || [ -x "$(dirname "$nvcc")/$1" ]
}
if cuda_tool_here cuobjdump; then
    skip "grader: a missing cuobjdump is named in the table" "cuobjdump is installed here"
elif [ -z "$solution_files" ]; then
    skip "grader: a missing cuobjdump is named in the table" \
        "no fixture here reads machine code (a student's copy)"
else
    expect_output "grader: a missing cuobjdump is named in the table" \
        "unchecked: machine code not read, no cuobjdump here" grep -h 'cuobjdump' "$solutions_table"
fi
if have_gpu; then
    expect_output "grader: a missing compute-sanitizer and ncu are named in the table" \
        "^05-shared-stage-tiles +PASS .*unchecked: memcheck not run, no compute-sanitizer here; \
racecheck not run, no compute-sanitizer here; bank conflicts not measured, no ncu here" \
        env NCU=none COMPUTE_SANITIZER=none GRADE_DIR=solutions \
        solutions/grade.sh 05-shared-stage-tiles
else
    skip "grader: a missing compute-sanitizer and ncu are named in the table" \
        "no GPU here: the GPU checks do not run, so no GPU tool is missed"
fi
expect_status "grader: an unknown exercise is bad usage" 2 solutions/grade.sh 99-no-such-exercise

# make grade takes EX as names of exercises, never as shell text: an EX that
# names no exercise is refused (make exits non-zero, as the grader's exit 2
# says) and nothing in it runs; a marker file shows whether it did.
expect_refused_running_nothing "make grade EX='a;touch FILE' is refused and runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX="a;touch $grade_marker"
expect_refused_running_nothing "make grade EX='02-triangle-grid \`touch FILE\`' runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade \
    EX="02-triangle-grid \`touch $grade_marker\`"
expect_refused_running_nothing "make grade EX='\$(shell touch FILE)' runs nothing" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX="\$(shell touch $grade_marker)"
expect_refused_running_nothing "make grade EX=99-no-such-exercise exits non-zero" \
    "$grade_marker" ${MAKE:-make} -s --no-print-directory grade EX=99-no-such-exercise
expect_output "make grade EX=exercises/NAME.cu grades that one exercise" \
    "^grading exercises/: 1 exercise" \
    ${MAKE:-make} -s --no-print-directory grade EX=exercises/02-triangle-grid.cu

# ---------------------------------------------------------------- the proof
# Every untouched exercise fails cleanly (on its host part, a refused size,
# NaN or wrong values, or memcheck finding the access the exercise is about:
# no compile error, crash or hang), and every solution
# passes everything it is graded on.
if [ -z "$solution_files" ]; then
    skip "every untouched exercise fails, every solution passes" \
        "no solutions here (a student's copy)"
else
    # (graded above, with the compiles)
    for solution in $solution_files; do
        name=$(basename "$solution" .cu)
        line=$(table_line "$stubs_table" "$name")
        # on its host part, and for what the exercise asks: a host check
        # that does not build proves nothing about the exercise
        if echo "$line" | grep -q "host check does not build"; then
            fail "untouched exercise $name fails on its host part" "graded: $line" "$stubs_table"
        elif echo "$line" | grep -Eq "^$name +FAIL +FAIL +- +host: "; then
            pass "untouched exercise $name fails on its host part"
        else
            graded_gpu "untouched exercise $name fails" "$stubs_table" "$name" \
                "(refused size|NaN or unwritten|wrong at|large logits|memcheck at|memcheck: crashed)"
        fi
        graded_pass "solution $name passes" "$solutions_table" "$name"
    done
    # The measured property is printed with its number, which a passing
    # line would hide if the number were lost (it once went to a file).
    if have_gpu; then
        line=$(table_line "$solutions_table" 05-shared-stage-tiles)
        if echo "$line" | grep -Eq "bank conflicts [0-9]+\.[0-9]{2} \(ncu\)"; then
            pass "a solution's bank conflicts are a number (ncu)"
        else
            fail "a solution's bank conflicts are a number (ncu)" "graded: ${line:-no line}" \
                "$solutions_table"
        fi
    fi
fi

wait   # (every grading has ended: each table was read)
rm -rf "$exercise_tmp"
