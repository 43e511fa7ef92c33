#!/usr/bin/env bash
# tests/book/chapter_bound.sh - no chapter shows a kernel the reader meets
# only in a later chapter.
#
#   tests/book/chapter_bound.sh CHAPTERS KERNELS PLOTWORK
#
# For each plot a chapter places ({{figure|NAME}} in CHAPTERS/NN-slug/*),
# PLOTWORK/NAME.kernels (written by plots/race.gp, sweep.gp and msa.gp: the
# kernels the plot shows, one a line) is read, and each kernel's chapter is
# looked up in KERNELS (chapters/kernels.list) by the list's one reader
# (build/tools/generate chapter, which make builds). Prints a line per kernel
# of a later chapter,
#   NN-slug: NAME shows KERNEL (chapter M)
# then `checked P plots in C chapters, F kernels of later chapters`; exits
# 1 when F > 0 or when no plot was checked.
set -euo pipefail
chapters=$1 kernels=$2 work=$3
generate=${GENERATE:-build/tools/generate}
make --no-print-directory -s "$generate" >/dev/null
plots=0 bad=0 seen=0
shopt -s nullglob
for folder in "$chapters"/[0-9][0-9]-*/; do
    folder=${folder%/}
    chapter=$((10#$(basename "$folder" | cut -c1-2)))
    seen=$((seen + 1))
    for name in $(cat "$folder"/*.cu "$folder"/*.cuh 2>/dev/null |
                  sed -n 's/^{{figure|\([A-Za-z0-9_-]*\)}}$/\1/p'); do
        [ -e "$work/$name.kernels" ] || continue
        plots=$((plots + 1))
        while read -r kernel; do
            met=$("$generate" chapter "$kernels" "$kernel" 2>/dev/null || true)
            if [ -z "$met" ] || [ "$met" -gt "$chapter" ]; then
                echo "$(basename "$folder"): $name shows $kernel (chapter ${met:-not in the list})"
                bad=$((bad + 1))
            fi
        done < "$work/$name.kernels"
    done
done
echo "checked $plots plots in $seen chapters, $bad kernels of later chapters"
[ "$bad" -eq 0 ] && [ "$plots" -gt 0 ]
