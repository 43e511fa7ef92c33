#!/usr/bin/env bash
# notes/msa-tiled-device/kept-first.sh - one device call for the kept-keys-first
# version of chapter 7: build, suite 65 (every GPU check of the chapter),
# memcheck and racecheck, the chapter's bench (rows to $OUT/msa.csv), and the
# time of each launch of one forward at S=128 in FP32 (Nsight Compute).
cd "$(dirname "$0")/../.." || exit 2
start=$SECONDS
say() { echo "== $((SECONDS - start)) s: $*"; }
make -j16 build/chapter7 build/chapter7-mutant > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
grep -A1 "attention_fp32ILi32ELi2" "$OUT/build.log" | grep -E "spill|registers" | head -4
say built
LOGS=$OUT/logs timeout 200 bash -c '. tests/lib.sh; . tests/suites/65-msa-tiled.sh
    echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"' > "$OUT/suite65.log" 2>&1
say "suite 65 exit $?"
grep -E "^FAIL|^SKIP|passed, .* failed" "$OUT/suite65.log"
timeout 100 tests/gpu_runs.sh sanitize 7 > "$OUT/sanitize.log" 2>&1
say "sanitize exit $?"
grep -vE "^ok" "$OUT/sanitize.log" | tail -8
DATA=$OUT timeout 160 tests/gpu_runs.sh bench 7 > "$OUT/bench7.log" 2>&1
say "bench exit $?"
grep -vE "^(ok|check)" "$OUT/bench7.log" | tail -45
for run in "fused-tiled B=1 S=128 N=256 D=256 H=8" "fused-tiled-tf32 B=1 S=128 N=256 D=256 H=8" \
           "fused-tiled B=1 S=1024 N=384 D=64 H=8"; do
    set -- $run; kernel=$1; shift
    echo "-- $run" >> "$OUT/ncu.log"
    timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum build/chapter7 "$@" \
        --kernel "$kernel" --check-only >> "$OUT/ncu.log" 2>&1
    say "ncu $run exit $?"
done
grep -E "^-- |^  [a-zA-Z_].*\(|gpu__time_duration" "$OUT/ncu.log" | awk '/^--/ {print; next}
    /gpu__time/ {print name, $NF; next} {name = $1}'
