make -j16 build/chapter7 > $OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
for x in 0 1 2 3; do for S in 128 512; do
  X_FP32=$x timeout 40 build/chapter7 B=1 S=$S N=256 D=256 H=8 --kernel fused-tiled --reps 20 2>&1 | grep -E "^(fused|check)" | sed "s/^/fp32 x=$x S=$S /"; done; done
for x in 0 1 2 3 4; do for S in 128 512; do
  X_TF32=$x timeout 40 build/chapter7 B=1 S=$S N=256 D=256 H=8 --kernel fused-tiled-tf32 --reps 20 2>&1 | grep -E "^(fused|check)" | sed "s/^/tf32 x=$x S=$S /"; done; done
