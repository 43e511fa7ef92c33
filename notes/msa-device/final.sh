#!/bin/bash
# notes/msa-device/final.sh - one short device call that confirms a chapter 6 version: build,
# the small case, the mutant, bench rows for the chapter's sizes up to S=64 ($OUT/msa.csv),
# verify, the three sanitizers, then the clock64 timeline. Most important first, each step
# under its own timeout, so that a slow step cuts only what comes after it.
# From the repository root: WORKBOOK_COMMIT=<hash> bash notes/msa-device/final.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" build
exec > >(tee "$OUT/final.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
make -j16 build/chapter6 build/chapter6-mutant > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
python3 notes/msa-device/timeline.py build/timeline.cu &&
  nvcc -O3 -arch=sm_90 -std=c++17 -Icommon -Xcompiler -fopenmp -DWORKBOOK_CHAPTER=6 build/timeline.cu \
    build/libworkbook.a -lcublas -lgomp -o build/chapter6-timeline > "$OUT/timeline-build.log" 2>&1 &
timeline_build=$!  # wait for this one only: a bare `wait` also waits for the tee above
echo "== small case"
timeout 20 build/chapter6 B=2 S=8 N=32 D=64 H=4 --reps 50 | grep -vE "^(inputs|CPU)"
echo "== mutant"
timeout 20 build/chapter6-mutant --check-only > /tmp/mutant.log 2>&1; echo "mutant exit $?"
grep -E "^check" /tmp/mutant.log
echo "== refusal"; build/chapter6 S=65 --check-only > /dev/null 2>&1; echo "S=65 exit $?"
echo "== bench rows"
for size in "B=2 S=8 N=32 D=64 H=4" "B=2 S=16 N=32 D=64 H=4" "B=2 S=32 N=32 D=64 H=4" \
            "B=2 S=64 N=32 D=64 H=4" "B=2 S=8 N=32 D=32 H=4" "B=2 S=8 N=32 D=128 H=4" \
            "B=1 S=64 N=256 D=64 H=8" "B=1 S=64 N=256 D=128 H=8"; do
  timeout 15 build/chapter6 $size --reps 30 --csv "$OUT/msa.csv" | grep -E "^check.*FAIL|against"
  echo "bench $size exit ${PIPESTATUS[0]}"
done
echo "== verify"
timeout 40 tests/gpu_runs.sh verify 6 > /tmp/verify.log 2>&1; echo "verify exit $?"
grep -vE "^ok" /tmp/verify.log; echo "verify: $(grep -c '^ok' /tmp/verify.log) sizes ok"
echo "== sanitizers"
for tool in memcheck racecheck synccheck; do
  timeout 25 compute-sanitizer --tool $tool --error-exitcode 1 build/chapter6 B=1 S=5 N=3 D=64 H=2 --check-only > /tmp/san.log 2>&1
  echo "sanitize $tool exit $? | $(grep -E 'SUMMARY' /tmp/san.log)"
done
echo "== timeline"
wait $timeline_build
build/chapter6-timeline --kernel fused --reps 40 | grep -E "^timeline" | head -4
echo "== done"; date
