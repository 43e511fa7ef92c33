#!/usr/bin/env bash
# notes/tensor-device/first-run.sh - the first device call for chapter 8:
# build; the suites of the triangle chapters (20, 30, 35) with the GPU checks
# for real; memcheck and racecheck of chapter 8; the chapter's race at the
# default size; its bench (rows to $OUT/trimul.csv); Nsight Compute counters.
cd "$(dirname "$0")/../.." || exit 2
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
for deb in .debs/*.deb; do dpkg -x "$deb" /; done
ldconfig
make -j16 all > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
grep -A3 "entry function.*tf32_\(rows_\)\?scores" "$OUT/build.log" | grep -E "spill|Used" | head -4
say built
LOGS=$OUT/logs timeout 240 bash -c '. tests/lib.sh
    for suite in tests/suites/20-foundation.sh tests/suites/30-triangle-chapters.sh tests/suites/35-triangle-tensor.sh; do . $suite; done
    echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"' > "$OUT/suites.log" 2>&1
say "suites exit $?"
grep -E "^FAIL|^SKIP|passed, .* failed" -A3 "$OUT/suites.log" | head -40
timeout 100 tests/gpu_runs.sh sanitize 8 > "$OUT/sanitize.log" 2>&1
say "sanitize exit $?"
grep -vE "^ok" "$OUT/sanitize.log" | tail -8
build/chapter8 --reps 30 > "$OUT/race.log" 2>&1; echo "race exit $?"
grep -E "^(kernel|cublas|naive|regis|vector|shared|tf32)" "$OUT/race.log"
DATA=$OUT timeout 120 tests/gpu_runs.sh bench 8 > "$OUT/bench8.log" 2>&1
say "bench exit $?"
grep -vE "^(ok|check)" "$OUT/bench8.log" | tail -30
for kernel in tf32 tf32+rows; do
    timeout 60 ncu --clock-control none -k regex:"tf32_" \
        --metrics gpu__time_duration.sum,dram__bytes_write.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__warps_eligible.avg.per_cycle_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
        build/chapter8 --kernel $kernel --check-only > "$OUT/ncu.log" 2>&1
    echo "-- ncu $kernel exit $?"; grep -E "^    [a-z]" "$OUT/ncu.log"
done
say done
