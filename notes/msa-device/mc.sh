#!/bin/bash
# notes/msa-device/mc.sh - one device call for fused+multicast: build, the small case (twice),
# the SHARE experiment (mc.cu), the mutant, the sweep of the chapter's sizes (CSV to $OUT only),
# the clock64 timeline, then the untimed checks side by side: verify and the sanitizers on the
# new variant. Each step under its own timeout, the timed ones first and one at a time.
# From the repository root: bash notes/msa-device/mc.sh
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" build
exec > >(tee "$OUT/mc.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
NV="nvcc -O3 -arch=sm_90 -std=c++17 -Icommon -I. -Xcompiler -fopenmp"
make -j16 build/libworkbook.a > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
make -j16 build/chapter6 build/chapter6-mutant >> "$OUT/build.log" 2>&1 &
make_pid=$!
$NV notes/msa-device/mc.cu build/libworkbook.a -lcublas -lgomp -o build/mc > "$OUT/mc-build.log" 2>&1 &
mc_pid=$!
(python3 notes/msa-device/timeline_mc.py build/timeline_mc.cu &&
  $NV -DWORKBOOK_CHAPTER=6 build/timeline_mc.cu build/libworkbook.a -lcublas -lgomp \
    -o build/timeline-mc) > "$OUT/timeline-build.log" 2>&1 &
tl_pid=$!
wait $make_pid || { echo "make failed"; grep -v Advisory "$OUT/build.log" | tail -20; exit 1; }
table() { grep -vE "^(inputs|CPU|useful|NVIDIA|$)"; }
echo "== quick check of the new variant"
timeout 20 build/chapter6 --kernel fused+multicast --check-only | grep -E "^check"; echo "exit $?"
echo "== small case, 50 reps, two runs"
timeout 25 build/chapter6 --reps 50 | table
timeout 25 build/chapter6 --reps 50 | table
echo "== mutant"
timeout 20 build/chapter6-mutant --check-only > /tmp/mutant.log 2>&1; echo "mutant exit $?"
grep -E "^check" /tmp/mutant.log
echo "== SHARE experiment"
wait $mc_pid || { echo "mc build failed"; tail -5 "$OUT/mc-build.log"; }
timeout 25 build/mc --reps 50 | table
timeout 25 build/mc D=32 --reps 50 | table
echo "== sizes (CSV in \$OUT only)"
for size in "B=2 S=16 N=32 D=64 H=4" "B=2 S=32 N=32 D=64 H=4" "B=2 S=64 N=32 D=64 H=4" \
            "B=2 S=8 N=32 D=32 H=4" "B=2 S=8 N=32 D=128 H=4" \
            "B=1 S=64 N=256 D=64 H=8" "B=1 S=64 N=256 D=128 H=8"; do
  echo "-- $size"
  timeout 20 build/chapter6 $size --reps 30 --csv "$OUT/msa.csv" | grep -E "^(check.*FAIL|fused|unfused)"
done
echo "== timeline"
wait $tl_pid && for size in "B=2 S=8 N=32 D=64 H=4" "B=2 S=8 N=32 D=32 H=4"; do
  timeout 20 build/timeline-mc $size --kernel fused+multicast --reps 40 | grep -E "^timeline" | head -4
done
echo "== verify and sanitizers (untimed, side by side)"
(timeout 60 tests/gpu_runs.sh verify 6 > "$OUT/verify.log" 2>&1; echo "verify exit $?" >> "$OUT/verify.log") &
v=$!
pids=()
for size in "B=1 S=5 N=4 D=64 H=2" "B=1 S=9 N=136 D=32 H=8"; do
  for tool in memcheck racecheck synccheck; do
    f="/tmp/san-$tool-${size// /_}.log"
    (timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 build/chapter6 $size \
       --kernel fused+multicast --check-only > "$f" 2>&1; echo "exit $?" >> "$f") &
    pids+=($!)
  done
done
wait $v "${pids[@]}"
grep -vE "^ok" "$OUT/verify.log"; echo "verify: $(grep -c '^ok' "$OUT/verify.log") sizes ok"
for f in /tmp/san-*.log; do echo "$f: $(grep -E 'SUMMARY' "$f") $(tail -1 "$f")"; done
cat /tmp/san-*.log > "$OUT/sanitizers.log"
echo "== done"; date
