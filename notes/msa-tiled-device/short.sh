#!/usr/bin/env bash
# notes/msa-tiled-device/short.sh COMMIT - one device call: chapter 7 with
# the short-column mapping and the bounded stand-ins, checked at the verify
# sizes and timed at the three bench shapes (S=128 twice); then the search
# over every FP32 cublasLt configuration (gemm_search.cu).
export WORKBOOK_COMMIT=${1:-unknown}
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
make -j16 build/chapter7 build/chapter7-mutant > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
make -j16 build-full/chapter7 NVCCFLAGS="-O3 -arch=sm_90 -std=c++17 -Icommon -lineinfo -Xcompiler -fopenmp,-Wall -DTILED_FULL_STAGES" BUILD=build-full > "$OUT/build-full.log" 2>&1 || { tail -20 "$OUT/build-full.log"; exit 1; }
nvcc -O2 -arch=sm_90 notes/msa-tiled-device/gemm_search.cu -lcublasLt -lcublas -o build/gemm_search
say built
timeout 40 tests/gpu_runs.sh verify 7 > "$OUT/verify.log" 2>&1
say "verify exit $?"; grep -v "^ok" "$OUT/verify.log" | tail -5
build/chapter7-mutant B=1 S=100 N=16 D=256 H=8 --check-only > "$OUT/mutant.log" 2>&1
say "mutant exit $? (1 expected)"; grep -E "^check" "$OUT/mutant.log" | head -12
for shape in "S=128 N=256 D=256" "S=512 N=256 D=256" "S=1024 N=384 D=64" "S=128 N=256 D=256"; do
    for build in build build-full; do
        log="$OUT/bench-${shape%% *}-$build.log"
        timeout 40 $build/chapter7 B=1 $shape H=8 --only-new --reps 30 > "$log" 2>&1
        echo "$build $shape exit $?:" $(grep -E "^fused-tiled(-tf32)?(\+graph)? " "$log" | awk '{print $1, $4}')
    done
done
timeout 60 build/gemm_search > "$OUT/gemm_search.log" 2>&1
say "gemm_search exit $?"; grep -v "^$" "$OUT/gemm_search.log" | tail -30
