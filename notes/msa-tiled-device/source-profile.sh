#!/usr/bin/env bash
# notes/msa-tiled-device/source-profile.sh - where chapter 7's FP32 attention
# kernel waits at S=128: Nsight Compute's per-instruction stall samples
# (source page, SASS) and its details page, for one forward.
cd "$(dirname "$0")/../.." || exit 2
make -j16 build/chapter7 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
for kernel in fused-tiled fused-tiled-tf32; do
    timeout 120 ncu --clock-control none --kernel-name regex:tiled_attention --launch-count 1 \
        --set full --import-source no -o "$OUT/$kernel" -f \
        build/chapter7 B=1 S=128 N=256 D=256 H=8 --kernel $kernel --check-only > "$OUT/$kernel.log" 2>&1
    echo "ncu $kernel exit $?"
    ncu --import "$OUT/$kernel.ncu-rep" --page source --csv --print-source sass > "$OUT/$kernel-sass.csv" 2>&1
    ncu --import "$OUT/$kernel.ncu-rep" --page details > "$OUT/$kernel-details.txt" 2>&1
    rm -f "$OUT/$kernel.ncu-rep"
done
ls -la "$OUT"
