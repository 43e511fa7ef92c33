#!/usr/bin/env bash
# tests/run_tests.sh - what `make test` runs: every suite in tests/suites/,
# in name order, then one closing line "N passed, N failed, N skipped".
# Exit status 0 only when nothing failed.
#
# SUITES (from the environment; `make test SUITES="60 65"`) picks suites by
# the start of their names; a word that names no suite is an error (exit 2),
# so a typo never passes as "nothing failed".
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh

chosen=()
if [ -z "${SUITES:-}" ]; then
    chosen=(tests/suites/*.sh)
else
    for word in $SUITES; do
        case $word in
            *[!A-Za-z0-9_-]*) echo "SUITES: '$word' is not the start of a suite's name" >&2
                              exit 2 ;;
        esac
        found=0
        for suite in tests/suites/"$word"*.sh; do
            [ -e "$suite" ] || continue
            chosen+=("$suite"); found=1
        done
        [ $found -eq 1 ] || { echo "SUITES: no suite in tests/suites/ starts with '$word'" >&2
                              exit 2; }
    done
fi

rm -f "$TIMES"
suite_times=()
for suite in "${chosen[@]}"; do
    suite_start=$SECONDS
    SUITE_NAME=${suite#tests/suites/}
    SUITE_NAME=${SUITE_NAME%.sh}
    echo "== $SUITE_NAME"
    last_result_at=${EPOCHREALTIME/[.,]/}
    . "$suite"
    suite_times+=("$SUITE_NAME $((SECONDS - suite_start))")
    echo "   ($SUITE_NAME: $((SECONDS - suite_start)) s)"
done

# Where the time went: the build (make test's, timed by the Makefile and
# handed over as BUILD_SECONDS), each suite, and the ten slowest tests.
echo
echo "wall time, seconds:"
[ -n "${BUILD_SECONDS:-}" ] && printf '  %-28s %5s\n' build "$BUILD_SECONDS"
for entry in "${suite_times[@]}"; do printf '  %-28s %5s\n' ${entry% *} ${entry##* }; done
printf '  %-28s %5s\n' "suites in all" $SECONDS
if [ -s "$TIMES" ]; then
    echo "the ten slowest tests, seconds (each from the result before it):"
    sort -t "$(printf '\t')" -k1,1 -rn "$TIMES" | head -n 10 |
        awk -F '\t' '{ printf "  %6s  %s: %s\n", $1, $2, $3 }'
fi

echo
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
