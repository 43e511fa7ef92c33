#!/usr/bin/env bash
# tests/check.sh - what `make check` runs: the quick look before a commit.
# The host unit tests and the repository's layout (suites 10 and 15), then
# the suites that run a chapter whose files changed since the last commit
# (git diff against HEAD, and new files git does not ignore): a suite runs
# chapter N when it names build/chapterN. What else changed is named with
# the suite that covers it, to run by hand (`make test SUITES=...`), and
# CI runs everything (`make test`).
#
# CHECK_FILES (from the environment) replaces git's list of changed files,
# one name a line, for the tests; `tests/check.sh --list` prints the suites
# it would run and runs none.
cd "$(dirname "$0")/.." || exit 2

if [ -n "${CHECK_FILES+set}" ]; then
    changed=$CHECK_FILES
elif git rev-parse --verify --quiet HEAD >/dev/null 2>&1; then
    changed=$( { git diff --name-only HEAD; git ls-files --others --exclude-standard; } | sort -u)
else
    echo "make check: not a git checkout, so nothing is known to have changed: make test" >&2
    exit 2
fi

suites="10 15"
chapters=$(printf '%s\n' "$changed" | sed -n 's|^chapters/\([0-9][0-9]\)-[^/]*/.*|\1|p' | sort -u)
for chapter in $chapters; do
    n=${chapter#0}
    for suite in $(grep -lE "build/chapter$n([^0-9]|$)" tests/suites/*.sh); do
        name=$(basename "$suite" .sh)
        case " $suites " in *" ${name%%-*} "*) ;; *) suites="$suites ${name%%-*}" ;; esac
    done
done

# What the chosen suites do not cover, and the suite that does.
others=$(printf '%s\n' "$changed" | awk '
    /^chapters\/[0-9][0-9]-/ || /^tests\/suites\/1[05]-/ || NF == 0 { next }
    /^(book|plots)\//             { print "70 72 (the book, the plots and figures)"; next }
    /^(solutions|exercises)\//    { print "80 (the exercises and the grader)"; next }
    /^(tools\/fetch_cuda12|\.ci\/)/ { print "13 (the build with CUDA 12.4, NVCC_12)"; next }
    /^(common|tools|Makefile)/    { print "18 20 30 35 38 60 65 (every chapter program, a kernel added to the list)"; next }
    /^tests\/suites\//            { sub(/^tests\/suites\//, ""); sub(/-.*/, ""); print $0 " (the suite itself)"; next }' |
    sort -u)

suites=$(printf '%s\n' $suites | sort -n | tr '\n' ' ' | sed 's/ $//')
if [ "${1:-}" = --list ]; then
    echo "$suites"
    [ -n "$others" ] && printf '%s\n' "$others" | sed 's/^/  not run: /'
    exit 0
fi
echo "make check: suites $suites (the host tests$( [ -n "$chapters" ] &&
    echo ", and those that run chapter(s) $(echo $chapters | sed 's/\b0//g')"))"
if [ -n "$others" ]; then
    echo "make check: also changed, not run here (make test SUITES=\"...\"):"
    printf '%s\n' "$others" | sed 's/^/  /'
fi
SUITES=$suites exec tests/run_tests.sh
