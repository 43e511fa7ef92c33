#!/usr/bin/env bash
# tests/run_tests.sh - what `make test` runs: every suite in tests/suites/,
# in name order, then one closing line "N passed, N failed, N skipped".
# Exit status 0 only when nothing failed.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh

for suite in tests/suites/*.sh; do
    echo "== ${suite#tests/suites/}"
    . "$suite"
done

echo
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
