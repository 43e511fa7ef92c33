#!/usr/bin/env bash
# notes/tensor-device/variants.sh - chapter 8 variants: checks at three sizes,
# the race of the chapter's kernels twice, instruction counts. (Run 2 of
# notes/tensor.md also measured tf32+rows+64, compiled for HS = 64, which
# was dropped: it was within 0.5% of tf32+rows.)
cd "$(dirname "$0")/../.." || exit 2
make -j16 build/chapter8 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
for size in "B=1 T=128 C=64 NH=1" "B=3 T=384 C=1536 NH=12" "B=2 T=2048 C=768 NH=12"; do
    build/chapter8 --only-new $size --check-only 2>&1 | grep -E "^check|refuses"
done
build/chapter8 --only-new --reps 30 --csv "$OUT/trimul.csv" 2>&1 | grep -E "^(kernel|tf32)"
build/chapter8 --only-new --reps 30 2>&1 | grep -E "^tf32"
for kernel in tf32+rows tf32+rows+cut; do
    timeout 60 ncu --clock-control none -k regex:"tf32_" \
        --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_eligible.avg.per_cycle_active \
        build/chapter8 --kernel $kernel --check-only > "$OUT/ncu.log" 2>&1
    echo "-- ncu $kernel exit $?"; grep -E "^    [a-z]" "$OUT/ncu.log"
done
