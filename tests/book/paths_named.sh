#!/bin/sh
# tests/book/paths_named.sh [FILE...] - every file of the repository that the
# reader's text names (a path under common/, chapters/, solutions/,
# exercises/, book/, plots/, tools/, bench/ or tests/ with an extension)
# is there: a reader sent to common/gpu_peaks.h finds nothing. Patterns
# (NN-slug, NAME, EXERCISE) are not files. With no FILE: the chapters, the
# exercises and solutions, the book's Markdown and the README. Prints each
# missing path with where it is named; exit 1 if any.
cd "$(dirname "$0")/../.." || exit 2
[ $# -gt 0 ] || set -- chapters exercises solutions book/*.md README.md
grep -HrnoE '(^|[^A-Za-z0-9_./-])(common|chapters|solutions|exercises|book|plots|tools|bench|tests)/[A-Za-z0-9_./-]+\.(h|c|cu|cuh|cpp|sh|py|md|mk|awk|lua|mjs|list|patch)\b' "$@" |
    awk '{
        file = $0; sub(/:.*/, "", file)
        rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
        path = substr(rest, length(line) + 2); sub(/^[^A-Za-z]/, "", path)
        if (path ~ /(NN|NAME|EXERCISE)[-.\/]|[-\/]slug\.|\/NAME|\/EXERCISE/) next
        if (system("test -e \"" path "\"") != 0) { print file ":" line ": " path " is not there"; bad = 1 }
    } END { exit bad }'
