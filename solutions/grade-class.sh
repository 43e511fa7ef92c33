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
safe() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_' | sed 's/^\.*//'; }
out=$BUILD/grade-class/$(safe "$dir")
rm -rf "$out" && mkdir -p "$out/.rows" || exit 2

# The students: every folder of DIR (a link to one is refused: it could be
# another student's). Their tables get file names made safe and unique.
students=() tables=()
declare -A taken=()
for folder in "$dir"/*/ "$dir"/.[!.]*/; do
    folder=${folder%/}
    [ -d "$folder" ] || continue
    if [ -L "$folder" ]; then
        echo "grade-class: $(safe "$folder") is a link, not a student's folder: not graded" >&2
        continue
    fi
    name=$(safe "$(basename "$folder")") table=$name k=1
    while [ -n "${taken[$table]:-}" ]; do k=$((k + 1)) table=$name-$k; done
    taken[$table]=1
    students+=("$folder") tables+=("$table")
done
if [ ${#students[@]} -eq 0 ]; then
    echo "grade-class: no student folders in $(safe "$dir")/" >&2
    exit 2
fi

# The sandbox and the handout's library, once, before the students start.
solutions/sandbox.sh --check > /dev/null || exit 2

echo "grading ${#students[@]} students of $(safe "$dir")/, $jobs at a time; every exercise" \
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

# One CSV, the students in the order of their folders' names.
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
echo
echo "class: $passed passed, $failed failed, $skipped skipped; tables in $out/STUDENT.txt," \
     "rows for the gradebook in $out/class.csv"
[ $failed -gt 0 ] && exit 1
[ $skipped -gt 0 ] && exit 77
exit 0
