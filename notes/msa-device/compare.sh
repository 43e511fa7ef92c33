#!/bin/bash
# notes/msa-device/compare.sh - one short device call: a candidate chapter 6 kernel against the
# version before it (BEFORE, a copy of the old fused.cu), side by side in one run: the chapter's
# check and timing, the cold/warm decomposition (cold.cu), empty-kernel floors, and the clock64
# phase timeline (timeline.py; BEFORE_TIMELINE, the timeline script that fits the old file).
# From the repository root: BEFORE=dev/fused_before.cu BEFORE_TIMELINE=dev/timeline_before.py \
#   bash notes/msa-device/compare.sh    (writes $OUT/compare.log)
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" build
exec > >(tee "$OUT/compare.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
NV="nvcc -O3 -arch=sm_90 -std=c++17 -Icommon -I. -Xcompiler -fopenmp"
make -j16 build/libworkbook.a > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
LIB="build/libworkbook.a -lcublas -lgomp"
python3 notes/msa-device/timeline.py build/timeline_new.cu
python3 "$BEFORE_TIMELINE" build/timeline_before.cu "$BEFORE"
pids=()
$NV -DWORKBOOK_CHAPTER=6 chapters/06-fused/fused.cu $LIB -o build/chapter6 & pids+=($!)
$NV -DWORKBOOK_CHAPTER=6 "$BEFORE" $LIB -o build/chapter6-before & pids+=($!)
$NV -DFUSED_SOURCE="\"chapters/06-fused/fused.cu\"" notes/msa-device/cold.cu $LIB -o build/cold-new & pids+=($!)
$NV -DFUSED_SOURCE="\"$BEFORE\"" notes/msa-device/cold.cu $LIB -o build/cold-before & pids+=($!)
$NV -DWORKBOOK_CHAPTER=6 build/timeline_new.cu $LIB -o build/timeline-new & pids+=($!)
$NV -DWORKBOOK_CHAPTER=6 build/timeline_before.cu $LIB -o build/timeline-before & pids+=($!)
for p in "${pids[@]}"; do wait $p || echo "a build failed"; done
echo "== chapter 6, candidate (then the version before), small case"
build/chapter6 --reps 50 | grep -vE "^(inputs|CPU)"
build/chapter6-before --reps 50 | grep -E "^check|fused|against"
echo "== again, for the spread"
build/chapter6 --reps 50 | grep -E "^check|fused|unfused|against"
build/chapter6-before --kernel fused --reps 50 | grep -E "fused"
echo "== cold/warm decomposition"
build/cold-new 8 64 new; build/cold-before 8 64 before
build/cold-new 8 32 new; build/cold-before 8 32 before
echo "== timeline"
for t in new before; do
  for k in fused fused+nocluster; do
    build/timeline-$t --kernel $k --reps 40 | grep -E "^timeline" | head -4 | sed "s/^/$t /"
  done
done
echo "== done"; date
