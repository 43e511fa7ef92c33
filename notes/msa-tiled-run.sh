#!/usr/bin/env bash
# notes/msa-tiled-run.sh - chapter 7 on the lent H200 in one command (see
# notes/msa-tiled.md): build with the ptxas report, time the three target
# shapes (CSV rows to $OUT/msa.csv), run the chapter's test suite and the
# sanitizers, then a per-launch breakdown with Nsight Compute. Everything it
# prints lands in $OUT (run.log, build.log, msa.csv, tests.log, sanitize.log,
# ncu.log, logs.tar.gz).
set -u
OUT=${OUT:-/tmp/msa-tiled-out}
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 2
log=$OUT/run.log
say() { echo "== $*" | tee -a "$log"; }

say "$(date -u) $(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader)"
start=$SECONDS
make BUILD=build PTXAS_VERBOSE=1 -j16 build/chapter7 build/chapter7-mutant >"$OUT/build.log" 2>&1
status=$?
say "build exit $status in $((SECONDS - start)) s"
grep -A3 -E "Compiling entry.*(tiled|prepare)" "$OUT/build.log" | grep -E "entry|registers|spill" |
    sed 's/ptxas info    : //' | paste - - - | sort -u >>"$log"
[ $status -eq 0 ] || exit 1

say "timed runs"
for size in "B=1 S=128 N=256 D=256 H=8" "B=1 S=512 N=256 D=256 H=8" "B=1 S=1024 N=384 D=64 H=8"; do
    timeout 150 build/chapter7 $size --only-new --reps 20 --csv "$OUT/msa.csv" >>"$log" 2>&1
    say "chapter7 $size --only-new exit $?"
    timeout 150 build/chapter7 $size --kernel unfused --reps 20 --csv "$OUT/msa.csv" >>"$log" 2>&1
    say "chapter7 $size --kernel unfused exit $?"
done

say "test suite"
export LOGS=$OUT/logs
(. tests/lib.sh; . tests/suites/65-msa-tiled.sh; echo "$PASSED passed, $FAILED failed, $SKIPPED skipped") \
    >"$OUT/tests.log" 2>&1
tail -n 1 "$OUT/tests.log" | tee -a "$log"
grep -E "^(FAIL|SKIP)" "$OUT/tests.log" >>"$log"

say sanitizers
for run in "memcheck B=1 S=150 N=3 D=64 H=8" "racecheck B=1 S=150 N=3 D=256 H=8" \
           "memcheck B=1 S=70 N=2 D=256 H=4"; do
    set -- $run
    tool=$1; shift
    timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 1 build/chapter7 "$@" --only-new \
        --check-only >>"$OUT/sanitize.log" 2>&1
    say "compute-sanitizer $run exit $?"
done

say "per-launch times and counters (ncu, one forward each)"
metrics=gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
for run in "fused-tiled B=1 S=128 N=256 D=256 H=8" "fused-tiled B=1 S=512 N=256 D=256 H=8" \
           "fused-tiled-tf32 B=1 S=512 N=256 D=256 H=8" "fused-tiled B=1 S=1024 N=384 D=64 H=8" \
           "fused-tiled+unsplit B=1 S=512 N=256 D=256 H=8"; do
    set -- $run
    kernel=$1; shift
    echo "-- $run" >>"$OUT/ncu.log"
    timeout 90 ncu --clock-control none --metrics "$metrics" build/chapter7 "$@" --kernel "$kernel" \
        --check-only >>"$OUT/ncu.log" 2>&1
    status=$?
    if [ $status -ne 0 ]; then
        timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum build/chapter7 "$@" \
            --kernel "$kernel" --check-only >>"$OUT/ncu.log" 2>&1
        status=$?
    fi
    say "ncu $run exit $status"
done
grep -E "^--|^  [a-zA-Z_].*\(|__" "$OUT/ncu.log" | grep -v "==PROF==" >>"$log"
tar czf "$OUT/logs.tar.gz" -C "$OUT" logs 2>/dev/null && rm -rf "$OUT/logs"
say "done in $SECONDS s"
