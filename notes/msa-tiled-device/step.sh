#!/usr/bin/env bash
# notes/msa-tiled-device/step.sh COMMIT - one device call: the short-column
# mapping at d = 32 (two rows, two lanes a row) with 4 or 8 keys per step
# and 4 blocks per multiprocessor or free registers (TILED_SHORT), checked at
# the verify sizes and timed at S=128, three times each, interleaved.
export WORKBOOK_COMMIT=${1:-unknown}
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
make -j16 build/chapter7 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
say built
for v in 0 1 2; do
    TILED_SHORT=$v timeout 40 tests/gpu_runs.sh verify 7 > "$OUT/verify$v.log" 2>&1
    say "verify short=$v exit $?"; grep -v "^ok" "$OUT/verify$v.log" | tail -5
done
for round in 1 2 3; do
    for v in 0 1 2; do
        TILED_SHORT=$v timeout 30 build/chapter7 B=1 S=128 N=256 D=256 H=8 --kernel fused-tiled \
            --reps 30 > "$OUT/short$v-$round.log" 2>&1
        echo "short=$v round $round exit $?:" $(grep -E "^fused-tiled(\+graph)? " "$OUT/short$v-$round.log" | awk '{print $1, $4}')
    done
done
say done
