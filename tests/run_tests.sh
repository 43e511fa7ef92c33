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

for suite in "${chosen[@]}"; do
    suite_start=$SECONDS
    echo "== ${suite#tests/suites/}"
    . "$suite"
    echo "   (${suite#tests/suites/}: $((SECONDS - suite_start)) s)"
done

echo
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
