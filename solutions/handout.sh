#!/usr/bin/env bash
# solutions/handout.sh OUT.tar.gz - `make handout`: the students' copy of
# the workbook, the files git tracks less the solution programs
# (solutions/NN-*.cu, solutions/NN-*.cuh) and the grader's fixtures made of
# them (tests/fixtures/grade/EXERCISE--what.patch), under workbook/.
#
# Only tracked files: a student's folder in the tree (submissions/alice/,
# as solutions/README.md suggests) or anything else not committed stays
# out. The archive is written whole or not at all: to a temporary name
# beside OUT, renamed at the end; a file that cannot be archived (tracked,
# but gone from the work tree) stops it, and the partial file is removed.
#
# Exit status: 0 written; 1 it could not be; 2 bad usage or not a git checkout.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2

if [ $# -ne 1 ]; then
    echo "usage: $0 OUT.tar.gz" >&2
    exit 2
fi
out=$1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "handout: $PWD is not a git checkout: the handout is the files git tracks" >&2
    exit 2
fi
mkdir -p "$(dirname "$out")" || exit 1
partial=$(mktemp "$out.partial.XXXXXX") || exit 1
trap 'rm -f "$partial"' EXIT

# Names travel NUL-separated, so that no name is split or read as an option.
if ! git ls-files -z |
        grep -z -v -E '^solutions/[0-9][0-9]-[^/]*\.cuh?$' |
        grep -z -v -E '^tests/fixtures/grade/[0-9][0-9]-[^/]*--[^/]*\.patch$' |
        tar --null --no-recursion -czf "$partial" --transform 's,^,workbook/,' -T -; then
    echo "handout: the archive could not be written (above: the file tar stopped at);" \
         "$out is left as it was" >&2
    exit 1
fi
mv "$partial" "$out" || exit 1
echo "$out: the workbook's tracked files without the solutions and the fixtures made of them"
