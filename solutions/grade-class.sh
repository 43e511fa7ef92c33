#!/usr/bin/env bash
# solutions/grade-class.sh DIR [EXERCISE...] - `make grade-class DIR=submissions/`:
# grades a class in one command. Each folder in DIR is one student's (its
# name is the student's, spaces and all); each is graded by solutions/
# grade.sh on every exercise of the handout (or the EXERCISEs named), an
# exercise missing from the folder failing as "missing".
#
# Writes, under BUILD/grade-class/DIR/ (DIR with every character but
# letters, digits, '.', '_' and '-' written '_'):
#   STUDENT.txt   the student's table, as `make grade` prints it
#   class.csv     one row per student and exercise: student, exercise,
#                 result (PASS, FAIL or SKIP), the property that failed
#                 (quoted as RFC 4180 says), for the gradebook
# and prints one line per student, then where the files are.
#
# Students are graded side by side, GRADE_JOBS at a time (half the CPUs by
# default), and each student's exercises side by side on the CPUs left to
# it (grade.sh's GRADE_JOBS: the CPUs over the students at a time):
# compiling and the host checks need only the CPU. On the GPU,
# runs share the card but a timing or Nsight Compute run has it alone
# (grade.sh takes BUILD/grade/gpu.lock, shared or exclusive), so that no
# measurement is taken while another student's kernel runs.
#
# Exit status: 0 every student passed everything; 1 something failed; 2 bad
# usage (or no sandbox here); 77 nothing failed but the GPU part could not run.
set -u
cd "$(dirname "$0")/.." || exit 2
exec < /dev/null

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "usage: make grade-class DIR=FOLDER [EX=NAME...]: FOLDER holds one folder per student" >&2
    exit 2
fi
dir=${1%/}
shift
BUILD=${BUILD:-build}
cpus=$(nproc 2>/dev/null || echo 2)
jobs=${GRADE_JOBS:-$(( cpus / 2 > 0 ? cpus / 2 : 1 ))}
case $jobs in ''|0|*[!0-9]*) echo "grade-class: GRADE_JOBS='$jobs' is not a number of jobs" >&2; exit 2 ;; esac
exercise_jobs=$(( cpus / jobs > 0 ? cpus / jobs : 1 ))
# clean, csv_field, safe_file_name, handout_exercises: solutions/gradebook.sh.
. solutions/gradebook.sh
out=$BUILD/grade-class/$(safe_file_name "$dir")
rm -rf "$out" && mkdir -p "$out/.rows" || exit 2

# The exercises each student is graded on: those named, or every one of the
# handout (what grade.sh grades with GRADE_EVERY).
if [ $# -gt 0 ]; then
    class_exercises=("$@")
else
    mapfile -t class_exercises < <(handout_exercises .)
fi
# not_graded ROWS STUDENT REASON: a FAIL row for each of the class's
# exercises, so that the gradebook has the student, and why.
not_graded() {
    local exercise
    for exercise in "${class_exercises[@]}"; do
        printf '%s,%s,"FAIL",%s\n' "$(csv_field "$2")" "$(csv_field "$exercise")" \
            "$(csv_field "not graded: $3")"
    done > "$1"
}

# The students: every folder of DIR. A link to one is not graded (it could
# be another student's), but gets its rows, FAIL with the reason. Their
# tables get file names made safe and unique (safe_file_name; -2, -3, ...
# where two students' names still meet).
students=() tables=() refused=0 links=()
declare -A taken=()
for folder in "$dir"/*/ "$dir"/.[!.]*/; do
    folder=${folder%/}
    [ -d "$folder" ] || continue
    student=$(basename "$folder")
    if [ -L "$folder" ]; then
        echo "grade-class: $(clean "$student") is a link, not a student's folder: not graded" >&2
        not_graded "$out/.rows/link-$(printf '%05d' "$refused").csv" "$student" \
            "the student's folder is a link, not a folder: hand in the folder itself"
        refused=$((refused + 1)) links+=("$student")
        continue
    fi
    name=$(safe_file_name "$student") table=$name k=1
    while [ -n "${taken[$table]:-}" ]; do k=$((k + 1)) table=$name-$k; done
    taken[$table]=1
    students+=("$folder") tables+=("$table")
done
if [ ${#students[@]} -eq 0 ] && [ "$refused" -eq 0 ]; then
    echo "grade-class: no student folders in $(clean "$dir")/" >&2
    exit 2
fi

# The sandbox and the handout's library, once, before the students start.
solutions/sandbox.sh --check > /dev/null || exit 2

echo "grading ${#students[@]} students of $(clean "$dir")/, $jobs at a time; every exercise" \
     "of the handout${*:+ among $*}, a missing one failing"
running=0
for k in "${!students[@]}"; do
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
    GRADE_DIR=${students[$k]} GRADE_JOBS=$exercise_jobs GRADE_EVERY=yes GRADE_STUDENT=$(basename "${students[$k]}") \
        GRADE_CSV=$out/.rows/$(printf '%05d' "$k").csv \
        solutions/grade.sh "$@" > "$out/${tables[$k]}.txt" 2>&1 &
    running=$((running + 1))
done
wait
# A student whose grading ended with no row (grade.sh refused the folder:
# its message says why) gets the rows of one not graded.
for k in "${!students[@]}"; do
    rows=$out/.rows/$(printf '%05d' "$k").csv
    [ -s "$rows" ] && continue
    why=$(grep -m1 -E '^(grade|sandbox): ' "$out/${tables[$k]}.txt" 2>/dev/null)
    not_graded "$rows" "$(basename "${students[$k]}")" "${why:-the grader gave no result (see ${tables[$k]}.txt)}"
done

# One CSV, the students in the order of their folders' names (the links
# refused at the end).
{
    echo "student,exercise,result,property"
    cat "$out"/.rows/*.csv 2>/dev/null
} > "$out/class.csv.partial" && mv "$out/class.csv.partial" "$out/class.csv" || exit 1
rm -rf "$out/.rows"

# One line per student: the closing line of its table, or why there is none.
passed=0 failed=0 skipped=0
for k in "${!students[@]}"; do
    summary=$(tail -n 1 "$out/${tables[$k]}.txt")
    counts=$(printf '%s' "$summary" |
             sed -nE 's/.*: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped \(logs in .*/\1 \2 \3/p')
    if [ -n "$counts" ]; then
        read -r p f s <<< "$counts"
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
        summary="$p passed, $f failed, $s skipped"
    else
        failed=$((failed + 1))
        summary="not graded: $(grep -m1 -E 'grade:|sandbox:' "$out/${tables[$k]}.txt" |
                               LC_ALL=C tr -c '\040-\176' '?')"
    fi
    printf '%-24s %s\n' "${tables[$k]}" "$summary"
done
for student in "${links[@]}"; do
    failed=$((failed + 1))
    printf '%-24s %s\n' "$(safe_file_name "$student")" "not graded: the folder is a link"
done
echo
echo "class: $passed passed, $failed failed, $skipped skipped; tables in $out/STUDENT.txt," \
     "rows for the gradebook in $out/class.csv"
[ $failed -gt 0 ] && exit 1
[ $skipped -gt 0 ] && exit 77
exit 0
