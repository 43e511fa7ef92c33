#!/usr/bin/env bash
# notes/triangle-device/step6.sh - one device call for chapter 5 step-6
# candidates (NEW, default "shared+wide"): build, checks at the suite's sizes,
# the mutant, memcheck and racecheck, the race at the default size twice, the
# T sweep against step 5, and Nsight Compute counters of step 5 and each candidate.
cd "$(dirname "$0")/../.." || exit 2
NEW=${NEW:-shared+wide}
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
nvidia-smi -L
make -j16 build/chapter5 build/chapter5-mutant > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
grep -A3 "entry function.*_wide" "$OUT/build.log" | grep -E "spill|Used" | head -4
say built
for size in "B=1 T=128 C=64 NH=1" "B=2 T=256 C=64 NH=4" "B=3 T=384 C=1536 NH=12" \
            "B=2 T=256 C=576 NH=12" "B=2 T=2048 C=768 NH=12" "B=8 T=1024 C=768 NH=12"; do
    for kernel in $NEW; do
        build/chapter5 --kernel $kernel $size --check-only > "$OUT/check.log" 2>&1
        echo "check $kernel $size: exit $? $(grep -E '^check' "$OUT/check.log" | cut -c1-70)"
    done
done
for kernel in $NEW; do
    build/chapter5-mutant --kernel $kernel B=2 T=256 --check-only > "$OUT/mutant.log" 2>&1
    echo "mutant $kernel: exit $? (must be 1)"
    for tool in memcheck racecheck; do
        timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/chapter5 --kernel $kernel B=1 T=256 C=128 NH=2 --check-only > "$OUT/san.log" 2>&1
        echo "$tool $kernel: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san.log")"
    done
done
say checked
build/chapter5 --only-new --reps 30 --csv "$OUT/trimul.csv" > "$OUT/race.log" 2>&1; echo "race exit $?"
grep -E "^(kernel|shared)" "$OUT/race.log"
build/chapter5 --only-new --reps 30 > "$OUT/race2.log" 2>&1; echo "second sample exit $?"
grep -E "^shared\+(rows|wide)" "$OUT/race2.log"
say raced
for kernel in shared+rows+interleaved $NEW; do
    build/chapter5 --kernel $kernel T=4096 --reps 20 --csv "$OUT/trimul.csv" 2>&1 | grep -F "$kernel "
    for T in 256 512 2048; do
        build/chapter5 --kernel $kernel T=$T --reps 30 --csv "$OUT/trimul.csv" 2>&1 | grep -F "$kernel "
    done
done
say sweep
for kernel in shared+rows+interleaved $NEW; do
    timeout 60 ncu --clock-control none -k regex:"shared_(rows_interleaved|wide)" \
        --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__warps_eligible.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active \
        build/chapter5 --kernel $kernel --check-only > "$OUT/ncu.log" 2>&1
    echo "-- ncu $kernel exit $?"; grep -E "gpu__time|inst_exec|issue_active|fma_cycles|eligible|warps_active" "$OUT/ncu.log"
done
say done
