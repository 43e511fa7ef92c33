#!/usr/bin/env bash
# notes/msa-tiled-device/overlap.sh COMMIT - one device call: chapter 7's
# layer with its columns in groups (TILED_CHUNKS), the attention of one
# group on a second stream beside the GEMMs of the next (TILED_PRIORITY: 1
# the side stream has the highest priority, 0 the lowest), and the 2 x 2
# mapping at d = 32 (TILED_MAP32=1). Checks at the verify sizes with the
# groups on, then times every combination at the three bench shapes.
export WORKBOOK_COMMIT=${1:-unknown}
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
make -j16 build/chapter7 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
say built
for chunks in 2 4; do
    TILED_CHUNKS=$chunks timeout 60 tests/gpu_runs.sh verify 7 > "$OUT/verify-chunks$chunks.log" 2>&1
    say "verify chunks=$chunks exit $?"; grep -v "^ok" "$OUT/verify-chunks$chunks.log" | tail -5
done
shapes=("B=1 S=128 N=256 D=256 H=8" "B=1 S=512 N=256 D=256 H=8" "B=1 S=1024 N=384 D=64 H=8")
for combo in "1 1 0" "2 1 0" "4 1 0" "2 0 0" "1 1 1" "2 1 1"; do
    set -- $combo
    for shape in "${shapes[@]}"; do
        case "$3$shape" in 1*D=64*) continue ;; esac # no d = 32 there
        log="$OUT/c$1-p$2-m$3-${shape// /_}.log"
        TILED_CHUNKS=$1 TILED_PRIORITY=$2 TILED_MAP32=$3 timeout 60 \
            build/chapter7 $shape --only-new --reps 20 > "$log" 2>&1
        echo "chunks=$1 priority=$2 map32=$3 $shape exit $?:" \
            $(grep -E "^(fused-tiled|fused-tiled-tf32|fused-tiled\+graph|fused-tiled-tf32\+graph) " "$log" | awk '{print $1, $3, $4}')
    done
done
say done
