#!/bin/bash
# notes/msa-device/run.sh - one device call for chapter 6 (MSA): build, checks,
# bench CSV, suite, sanitizers, the launch probe, the phase timeline and Nsight
# Compute. Run from the repository root on the GPU machine:
#   COMMIT=$(git rev-parse --short HEAD) bash notes/msa-device/run.sh   # logs to $OUT
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
export COMMIT=${COMMIT:-unknown} WORKBOOK_COMMIT=${COMMIT:-unknown}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== build"
if ! make -j16 BUILD=build-msa build-msa/chapter6 build-msa/chapter6-mutant PTXAS_VERBOSE=1 COMMIT=$COMMIT > $OUT/build.log 2>&1; then
    echo "make failed; building directly"; tail -20 $OUT/build.log
    F="common/cli.c common/compare.c common/csv.c common/msa_reference.c common/npy.c common/rng.c common/stats.c common/gpu.cu common/msa_runner.cu common/msa_unfused.cu common/report.cu common/timing.cu"
    NV="nvcc -O3 -arch=sm_90 -std=c++17 -Icommon -lineinfo -Xcompiler -fopenmp"
    $NV -Xptxas -v -DWORKBOOK_CHAPTER=6 chapters/06-fused/fused.cu $F -lcublas -lgomp -o build-msa/chapter6 >> $OUT/build.log 2>&1 &
    first=$!
    $NV -DWORKBOOK_CHAPTER=6 -DWORKBOOK_MUTANT chapters/06-fused/fused.cu $F -lcublas -lgomp -o build-msa/chapter6-mutant >> $OUT/build.log 2>&1 &
    wait $first $!
fi
grep -A2 "fused_msa_attention" $OUT/build.log | grep -E "registers|spill" | sort | uniq -c
mkdir -p build && cp build-msa/chapter6 build-msa/chapter6-mutant build/ || exit 1
python3 notes/msa-device/timeline.py build-msa/fused_timeline.cu &&
  (ls build-msa/libworkbook.a >/dev/null 2>&1 && LIB=build-msa/libworkbook.a || LIB="common/*.c common/gpu.cu common/msa_runner.cu common/msa_unfused.cu common/report.cu common/timing.cu";
   nvcc -O3 -arch=sm_90 -std=c++17 -Icommon -Xcompiler -fopenmp -DWORKBOOK_CHAPTER=6 build-msa/fused_timeline.cu $LIB -lcublas -lgomp -o build-msa/chapter6-timeline) &
timeline_build=$!  # wait for this one only: a bare `wait` also waits for the tee above
nvcc -O3 -arch=sm_90 -std=c++17 notes/msa-device/probe.cu -o build-msa/probe && build-msa/probe
echo "== default run (check + timing)"
build/chapter6
echo "== same again, 200 repetitions (spread)"
build/chapter6 --reps 200 | tail -9
echo "== bench (final CSV)"
DATA_DIR=$(mktemp -d)
DATA=$DATA_DIR tests/gpu_runs.sh bench 6
cp $DATA_DIR/msa.csv $OUT/msa.csv
echo "== verify"
tests/gpu_runs.sh verify 6
echo "== suite 60-msa"
bash -c '. tests/lib.sh; LOGS=/tmp/msa-test-logs; . tests/suites/60-msa.sh; echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"'
echo "== sanitize (MSA_SMALL) and the other paths"
timeout 200 tests/gpu_runs.sh sanitize 6
for size in "B=1 S=5 N=2 D=128 H=1" "B=1 S=5 N=3 D=128 H=2" "B=1 S=9 N=3 D=32 H=8"; do
  for tool in memcheck racecheck synccheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 build/chapter6 $size --kernel fused --check-only > /tmp/san.log 2>&1
    echo "sanitize $tool $size exit $? | $(grep -E 'SUMMARY' /tmp/san.log)"
  done
done
echo "== timeline (clock64 marks, diagnostic build)"
wait $timeline_build
for size in "B=2 S=8 N=32 D=64 H=4" "B=2 S=8 N=32 D=32 H=4"; do
  build-msa/chapter6-timeline $size --kernel fused --reps 40 | grep -E "timeline|median|^fused" | head -8
  build-msa/chapter6-timeline $size --kernel fused+nocluster --reps 40 | grep -E "timeline" | head -4
done
echo "== profile (Nsight Compute, lead's script)"
KERNEL=fused timeout 120 tests/gpu_runs.sh profile 6 2>&1 | tail -6
KERNEL=fused PROFILE_SIZE="B=1 S=64 N=256 D=64 H=8" timeout 120 tests/gpu_runs.sh profile 6 2>&1 | tail -6
KERNEL=unfused timeout 120 tests/gpu_runs.sh profile 6 2>&1 | tail -22
echo "== done"; date
