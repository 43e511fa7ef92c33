#!/usr/bin/env bash
# notes/msa-tiled-device/mapping.sh COMMIT - one device call: the FP32
# attention's mapping at d = 32 (TILED_MAP32: 0 = 4 rows x 2 lanes, 1 = 2 x 2,
# 2 = 2 x 2 held to 128 registers for 4 blocks per SM, 3 = 1 x 2, 4 = 2 x 2
# with 16 keys per step), checked at the verify sizes, timed at the two
# d = 32 bench shapes, S=128 twice.
export WORKBOOK_COMMIT=${1:-unknown}
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
make -j16 build/chapter7 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
say built
for map in 1 2 3 4; do
    TILED_MAP32=$map timeout 40 tests/gpu_runs.sh verify 7 > "$OUT/verify-map$map.log" 2>&1
    say "verify map32=$map exit $?"; grep -v "^ok" "$OUT/verify-map$map.log" | tail -5
done
for shape in "S=128" "S=512" "S=128"; do
    for map in 0 1 2 3 4; do
        log="$OUT/map$map-$shape.log"
        TILED_MAP32=$map timeout 30 build/chapter7 B=1 $shape N=256 D=256 H=8 --kernel fused-tiled \
            --reps 30 > "$log" 2>&1
        echo "map32=$map $shape exit $?:" $(grep -E "^fused-tiled(\+graph)? " "$log" | awk '{print $1, $3, $4}')
    done
done
say done
