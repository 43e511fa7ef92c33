#!/usr/bin/env bash
# notes/msa-tiled-device/profile.sh - one device call: the cuBLAS GEMM probe
# and a per-launch Nsight Compute breakdown of chapter 7's layer at the shapes
# that miss their bars. Output in $OUT (gemm.log, ncu.log, build.log).
cd "$(dirname "$0")/../.." || exit 2
make -j16 build/chapter7 > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
nvcc -O2 -arch=sm_90 -std=c++17 notes/msa-tiled-device/gemm_probe.cu -lcublasLt -lcublas -o build/gemm_probe &&
    timeout 60 build/gemm_probe > "$OUT/gemm.log" 2>&1
echo "gemm probe exit $?"
metrics=gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_long_scoreboard
metrics+=,smsp__average_warp_latency_issue_stalled_short_scoreboard,smsp__average_warp_latency_issue_stalled_mio_throttle
for run in "fused-tiled B=1 S=128 N=256 D=256 H=8" "fused-tiled-tf32 B=1 S=512 N=256 D=256 H=8" \
           "fused-tiled-tf32 B=1 S=128 N=256 D=256 H=8"; do
    set -- $run; kernel=$1; shift
    echo "-- $run" >> "$OUT/ncu.log"
    timeout 70 ncu --clock-control none --metrics "$metrics" build/chapter7 "$@" --kernel "$kernel" \
        --check-only >> "$OUT/ncu.log" 2>&1
    echo "ncu $run exit $?"
done
