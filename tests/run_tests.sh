#!/usr/bin/env bash
# tests/run_tests.sh - what `make test` runs: every suite in tests/suites/,
# then one closing line "N passed, N failed, N skipped". Exit status 0 only
# when nothing failed.
#
# SUITES (from the environment; `make test SUITES="60 65"`) picks suites by
# the start of their names; a word that names no suite is an error (exit 2),
# so a typo never passes as "nothing failed".
#
# Suites run side by side, TEST_JOBS at a time (every CPU by default; one
# where there is a GPU, so that no check shares the card with another
# suite's): each in a shell of its own, its output kept and printed whole,
# in the suites' name order, as soon as it and the suites before it are
# done. The longest start first (see expected_seconds). Suites share
# nothing but the built tree: each writes its logs under
# build/test-logs/SUITE/ and its scratch files in folders of its own.
# SUITES_DIR (tests/suites) and LOGS (build/test-logs) name other folders,
# for the tests of this runner.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
suites_dir=${SUITES_DIR:-tests/suites}

chosen=()
if [ -z "${SUITES:-}" ]; then
    chosen=("$suites_dir"/*.sh)
else
    for word in $SUITES; do
        case $word in
            *[!A-Za-z0-9_-]*) echo "SUITES: '$word' is not the start of a suite's name" >&2
                              exit 2 ;;
        esac
        found=0
        for suite in "$suites_dir"/"$word"*.sh; do
            [ -e "$suite" ] || continue
            chosen+=("$suite"); found=1
        done
        [ $found -eq 1 ] || { echo "SUITES: no suite in $suites_dir/ starts with '$word'" >&2
                              exit 2; }
    done
fi

if [ -n "${TEST_JOBS:-}" ]; then
    case $TEST_JOBS in ''|*[!0-9]*|0) echo "TEST_JOBS='$TEST_JOBS' is not a whole number above 0" >&2
                                      exit 2 ;; esac
    jobs=$TEST_JOBS
elif have_gpu; then
    jobs=1
else
    jobs=$(nproc 2>/dev/null || echo 1)
fi

runs=$LOGS/suites
rm -rf "$runs" && mkdir -p "$runs"
rm -f "$TIMES"

suite_name() { local name=${1##*/}; echo "${name%.sh}"; }

# run_suite SUITE: the suite in a shell of its own, its counts and seconds
# left in $runs/NAME.counts ("passed failed skipped seconds").
# (The suite runs in this shell's child and may set any variable: what the
# runner needs afterwards is read-only.)
run_suite() {
    local name; name=$(suite_name "$1")
    (
        readonly RUNNER_COUNTS=$runs/$name.counts RUNNER_SUITE=$1 RUNNER_STARTED=$SECONDS
        PASSED=0 FAILED=0 SKIPPED=0 SUITE_NAME=$name LOGS=$LOGS/$name
        mkdir -p "$LOGS"
        last_result_at=${EPOCHREALTIME/[.,]/}
        # A suite that does not parse stops here, with no counts: sourced,
        # bash would run it up to its error, go on, and count it as passed.
        bash -n "$RUNNER_SUITE" || exit 1
        . "$RUNNER_SUITE"
        echo "$PASSED $FAILED $SKIPPED $((SECONDS - RUNNER_STARTED))" > "$RUNNER_COUNTS"
    ) > "$runs/$name.out" 2>&1 < /dev/null
}

# The order they start in: the longest first (a suite's first lines may say
# "# test-runner: about N s", what it takes on a 2-core machine), so that
# the last to finish is not a long one started late; then by name.
expected_seconds() {
    head -n 30 "$1" | sed -n 's/^# test-runner: about \([0-9]*\) s.*/\1/p' | head -n 1
}
ordered=()
while read -r _ suite; do ordered+=("$suite"); done < <(
    for suite in "${chosen[@]}"; do
        seconds=$(expected_seconds "$suite")
        echo "${seconds:-0} $suite"
    done | sort -s -k1,1 -rn)

# Print, in name order, every suite whose output is complete and whose
# predecessors are printed.
printed=0
print_ready() {
    while [ $printed -lt ${#chosen[@]} ]; do
        local name; name=$(suite_name "${chosen[$printed]}")
        [ -f "$runs/$name.done" ] || return 0
        echo "== $name"
        cat "$runs/$name.out"
        local counts; counts=$(cat "$runs/$name.counts" 2>/dev/null)
        if [ -z "$counts" ]; then
            FAILED=$((FAILED + 1))
            echo "FAIL  suite $name ran to its end (it stopped early; see $runs/$name.out)"
            counts="0 0 0 ?"
        fi
        read -r p f s seconds <<< "$counts"
        PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + s))
        suite_seconds+=("$name $seconds")
        echo "   ($name: $seconds s)"
        printed=$((printed + 1))
    done
}

suite_seconds=()
declare -A running=()
next=0
while [ $next -lt ${#ordered[@]} ] || [ ${#running[@]} -gt 0 ]; do
    while [ $next -lt ${#ordered[@]} ] && [ ${#running[@]} -lt "$jobs" ]; do
        suite=${ordered[$next]}
        { run_suite "$suite"; touch "$runs/$(suite_name "$suite").done"; } &
        running[$!]=$suite
        next=$((next + 1))
    done
    wait -n -p finished "${!running[@]}"
    unset "running[$finished]"
    print_ready
done
print_ready

# Where the time went: the build (make test's, timed by the Makefile and
# handed over as BUILD_SECONDS), each suite, and the ten slowest tests.
echo
echo "wall time, seconds (suites side by side, $jobs at a time):"
[ -n "${BUILD_SECONDS:-}" ] && printf '  %-24s %5s\n' build "$BUILD_SECONDS"
for entry in "${suite_seconds[@]}"; do printf '  %-24s %5s\n' ${entry% *} ${entry##* }; done
printf '  %-24s %5s\n' "suites in all" $SECONDS
if [ -s "$TIMES" ]; then
    echo "the ten slowest tests, seconds (each from the result before it in its suite):"
    sort -t "$(printf '\t')" -k1,1 -rn "$TIMES" | head -n 10 |
        awk -F '\t' '{ printf "  %6s  %s: %s\n", $1, $2, $3 }'
fi

echo
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
