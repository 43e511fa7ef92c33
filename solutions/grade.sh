#!/usr/bin/env bash
# solutions/grade.sh - the grader behind `make grade`.
#
#   solutions/grade.sh                    grade every exercise in exercises/
#   solutions/grade.sh 02-naive-index     grade one (the .cu and a folder may be given too)
#   GRADE_DIR=solutions solutions/grade.sh    grade the solutions instead (or any
#                                         folder of files named like the exercises)
#
# For each exercise it
#   1. builds it through the Makefile (a compile error: FAIL, "does not compile");
#   2. runs it with --check-only at each size of its problem, smallest first,
#      with a fresh random seed per run (SEED=N fixes it). The program checks
#      the kernel against the CPU referee with its output filled with NaN
#      first, so a score the kernel never writes fails as "NaN or unwritten";
#   3. stops at the first size that fails and gives the reason.
# Then it prints one table: exercise, PASS/FAIL/SKIP, reason.
#
# Exit status: 0 every exercise passed; 1 one failed (compile error
# included); 2 bad usage; 77 everything compiled but there is no GPU here,
# so nothing ran (the table says SKIP).
#
# Environment: GRADE_DIR (exercises), BUILD (build), MAKE (make), SEED
# (fresh per run), GRADE_TIMEOUT (seconds per run, 120). Logs of every build
# and run: $BUILD/grade-logs/<folder>/<exercise>.log.
cd "$(dirname "$0")/.." || exit 2

folder=${GRADE_DIR:-exercises}
folder=${folder%/}
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
timeout_s=${GRADE_TIMEOUT:-120}

# The sizes each problem is graded at (KEY=VALUE, as the programs take them):
# the smallest tile, odd B and NH, HS of 32, 48, 64 and 128, several tiles.
TRIANGLE_SIZES=("B=1 T=128 C=32 NH=1" "B=3 T=256 C=384 NH=3" "B=1 T=384 C=240 NH=5"
                "B=2 T=1024 C=768 NH=12")
# Chapter 6: one key, the small case, S past one warp of keys, D not a
# multiple of 32, the largest column the exercises hold in shared memory.
MSA_SIZES=("B=1 S=1 N=1 D=32 H=1" "B=2 S=8 N=32 D=64 H=4" "B=1 S=33 N=7 D=48 H=2"
           "B=3 S=37 N=5 D=96 H=3" "B=1 S=64 N=24 D=128 H=8")
sizes_of() { # sizes_of NAME: prints the sizes of exercise NAME, one a line
    case $1 in
        02-naive-any-length) printf '%s\n' "B=1 T=1 C=32 NH=1" "B=3 T=129 C=96 NH=3" \
                                 "B=2 T=200 C=320 NH=5" "B=1 T=1000 C=768 NH=12" "${TRIANGLE_SIZES[3]}" ;;
        06-*|07-*) printf '%s\n' "${MSA_SIZES[@]}" ;;
        *) printf '%s\n' "${TRIANGLE_SIZES[@]}" ;;
    esac
}

# Which exercises: the arguments, or every NN-slug.cu of the folder.
names=()
if [ $# -eq 0 ]; then
    for source in "$folder"/[0-9][0-9]-*.cu; do
        [ -f "$source" ] && names+=("$(basename "$source" .cu)")
    done
    if [ ${#names[@]} -eq 0 ]; then
        echo "grade: no exercises (NN-slug.cu) in $folder/" >&2
        exit 2
    fi
else
    for name in "$@"; do
        name=$(basename "$name" .cu)
        if [ ! -f "$folder/$name.cu" ]; then
            echo "grade: no $folder/$name.cu; the exercises are:" \
                 $(cd "$folder" 2>/dev/null && ls [0-9][0-9]-*.cu 2>/dev/null | sed 's/\.cu$//') >&2
            exit 2
        fi
        names+=("$name")
    done
fi

logs=$BUILD/grade-logs/$folder
mkdir -p "$logs" || exit 2
new_seed() { if [ -n "${SEED:-}" ]; then echo "$SEED"; else od -An -N4 -tu4 /dev/urandom | tr -d ' '; fi; }

echo "grading $folder/: ${#names[@]} exercise(s), each at its sizes with a fresh seed per run"
results=() reasons=()
no_gpu=""   # why the programs could not run, once one has said so
for name in "${names[@]}"; do
    log=$logs/$name.log
    program=$BUILD/$folder/$name
    if ! "$MAKE" -s --no-print-directory BUILD="$BUILD" GRADE_DIR="$folder" "$program" > "$log" 2>&1; then
        error=$(grep -m1 'error' "$log" | sed -E 's/^[^ ]*\.cu\(([0-9]+)\): /line \1: /')
        results+=(FAIL) reasons+=("does not compile: ${error:-see $log}")
        echo "  $name: does not compile"
        continue
    fi
    result=PASS reason="" count=0 skipped_runs=0
    while IFS= read -r size; do
        seed=$(new_seed)
        run_log=$log.run
        # $size unquoted: it is several KEY=VALUE arguments
        timeout -k 10 "$timeout_s" "$program" $size --check-only --seed "$seed" < /dev/null > "$run_log" 2>&1
        status=$?
        { echo "== $program $size --check-only --seed $seed: exit $status"; cat "$run_log"; } >> "$log"
        at="at $size (seed $seed)"
        case $status in
            0) count=$((count + 1)); echo "  $name $size seed $seed: ok"; continue ;;
            # No GPU: the size was accepted (refusals come first), nothing ran.
            77) skipped_runs=$((skipped_runs + 1))
                no_gpu=$(grep -m1 SKIPPED "$run_log" | sed 's/^SKIPPED: //'); continue ;;
            2) if grep -q ' refuses ' "$run_log"; then
                   reason="refused size $size: $(grep -m1 ' refuses ' "$run_log" | sed 's/^.* refuses [^:]*: //')"
               else
                   reason="could not run $size: $(tail -n 1 "$run_log")"
               fi ;;
            124|137) reason="timed out after ${timeout_s} s $at" ;;
            1) if grep -q 'unwritten' "$run_log"; then
                   reason="NaN or unwritten output $at"
               elif grep -q ' failed: ' "$run_log"; then
                   reason="CUDA error $at: $(grep -m1 ' failed: ' "$run_log" | sed 's/.* failed: //')"
               elif grep -q '^check .* FAIL' "$run_log"; then
                   reason="wrong $at: $(grep -m1 -o 'rel_l2 [^ ]* (tolerance [^)]*)' "$run_log")"
               else
                   reason="failed $at: $(tail -n 1 "$run_log")"
               fi ;;
            *) reason="crashed (exit $status) $at" ;;
        esac
        result=FAIL
        echo "  $name $size seed $seed: FAIL"
        break
    done < <(sizes_of "$name")
    rm -f "$log.run"
    if [ $result = PASS ] && [ $skipped_runs -gt 0 ]; then
        result=SKIP reason="compiled, sizes accepted; not run: no GPU"
    elif [ $result = PASS ]; then
        reason="all $count sizes"
    fi
    results+=("$result") reasons+=("$reason")
done

echo
printf '%-28s %-6s %s\n' exercise result reason
passed=0 failed=0 skipped=0
for k in "${!names[@]}"; do
    printf '%-28s %-6s %s\n' "${names[$k]}" "${results[$k]}" "${reasons[$k]}"
    case ${results[$k]} in PASS) passed=$((passed + 1)) ;; FAIL) failed=$((failed + 1)) ;; *) skipped=$((skipped + 1)) ;; esac
done
echo
echo "$folder/: $passed passed, $failed failed, $skipped skipped (logs in $logs/)"
[ -n "$no_gpu" ] && echo "no GPU here ($no_gpu): every exercise was compiled and its sizes checked, no kernel ran"
[ $failed -gt 0 ] && exit 1
[ $skipped -gt 0 ] && exit 77
exit 0
