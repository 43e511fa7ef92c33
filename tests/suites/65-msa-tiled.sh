# tests/suites/65-msa-tiled.sh - chapters 7 and 9 (the MSA layer at any
# depth, in FP32 and on the tensor cores): what fused-tiled and
# fused-tiled-tf32 refuse (no GPU needed), the GPU checks of every tile path
# (S below, at and past a stage of 64 keys, not a multiple of it; every
# head size; more rows than one block; the drawn mask always has an
# all-masked column and a single-kept one), the mutant, and .npy in and out.
#
# --only-new races only chapter 7's kernels: chapter 6's fused kernel
# refuses S above 64, and the unfused baseline is checked by chapter 6.
# test-runner: about 25 s

expect_status "chapter7 --help exits 0" 0 build/chapter7 --help
expect_status "chapter7 --list exits 0" 0 build/chapter7 --list
expect_output "chapter7 lists fused-tiled" "fused-tiled \(chapter 7\)" build/chapter7 --list
expect_status "chapter7 has no tensor-core kernel" 1 sh -c "build/chapter7 --list | grep -q tf32"
expect_output "chapter13 lists fused-tiled-tf32" "fused-tiled-tf32 \(chapter 13\)" build/chapter13 --list
expect_output "chapter13 races fused-tiled" "fused-tiled \(chapter 7\)" build/chapter13 --list

# Refusals: exit status 2 and a reason, before any GPU is touched.
expect_status "fused-tiled refuses D over 256" 2 build/chapter7 --kernel fused-tiled D=512 H=8
expect_output "fused-tiled's refusal names the limit" "at most 256" build/chapter7 --kernel fused-tiled D=512 H=8
expect_status "fused-tiled refuses head size 12" 2 build/chapter7 --kernel fused-tiled D=96 H=8
expect_output "the head-size refusal names the sizes" "d = 8, 16, 32 or 64" build/chapter7 --kernel fused-tiled D=96 H=8
expect_status "fused-tiled-tf32 refuses head size 128" 2 build/chapter13 --kernel fused-tiled-tf32 D=256 H=2
expect_status "fused-tiled-tf32 refuses head size 4" 2 build/chapter13 --kernel fused-tiled-tf32 D=32 H=8
expect_status "chapter13 --only-new refuses what a new kernel refuses" 2 build/chapter13 --only-new D=512 H=8
expect_status "the chapter 13 mutant refuses like the real thing" 2 build/chapter13-mutant --kernel fused-tiled-tf32 D=96 H=8
expect_status "--only-new refuses what a new kernel refuses" 2 build/chapter7 --only-new D=512 H=8
expect_status "the mutant refuses like the real thing" 2 build/chapter7-mutant --kernel fused-tiled D=96 H=8

# Checks on the GPU (skipped, exit 77, without one).
gpu_expect "chapter7 passes at the default size, every contender" 0 build/chapter7 --check-only
gpu_expect "chapter7 passes at S=64 D=128 H=8, every contender" 0 build/chapter7 B=1 S=64 N=16 D=128 H=8 --check-only
gpu_expect "chapter13 passes at the default size, every contender" 0 build/chapter13 --check-only
gpu_expect "chapter13-tried passes at S=100 D=256 H=8" 0 build/chapter13-tried B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "chapter7-tried passes at S=100 D=256 H=8" 0 build/chapter7-tried B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "fused-tiled kernels pass at d=32, S=100 (one partial stage)" 0 build/chapter7 --only-new B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=32, S=100 (one partial stage)" 0 build/chapter13 --only-new B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "fused-tiled kernels pass at d=32, S=200 (short columns: two query tiles of 128, stages of 64)" 0 build/chapter7 --only-new B=1 S=200 N=8 D=256 H=8 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=32, S=200 (short columns: two query tiles of 128, stages of 64)" 0 build/chapter13 --only-new B=1 S=200 N=8 D=256 H=8 --check-only
gpu_expect "fused-tiled kernels pass at d=8, S=200, B=2 (stages of 64, then 8)" 0 build/chapter7 --only-new B=2 S=200 N=8 D=64 H=8 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=8, S=200, B=2 (stages of 64, then 8)" 0 build/chapter13 --only-new B=2 S=200 N=8 D=64 H=8 --check-only
gpu_expect "fused-tiled kernels pass at d=16, S=130" 0 build/chapter7 --only-new B=1 S=130 N=12 D=128 H=8 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=16, S=130" 0 build/chapter13 --only-new B=1 S=130 N=12 D=128 H=8 --check-only
gpu_expect "fused-tiled kernels pass at d=64, S=70" 0 build/chapter7 --only-new B=1 S=70 N=12 D=256 H=4 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=64, S=70" 0 build/chapter13 --only-new B=1 S=70 N=12 D=256 H=4 --check-only
gpu_expect "fused-tiled kernels pass at S=1 (one key per column)" 0 build/chapter7 --only-new B=3 S=1 N=5 D=32 H=4 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at S=1 (one key per column)" 0 build/chapter13 --only-new B=3 S=1 N=5 D=32 H=4 --check-only
gpu_expect "fused-tiled kernels pass at D=24 H=3 (D not a power of 2)" 0 build/chapter7 --only-new B=1 S=33 N=7 D=24 H=3 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at D=24 H=3 (D not a power of 2)" 0 build/chapter13 --only-new B=1 S=33 N=7 D=24 H=3 --check-only
gpu_expect "fused-tiled kernels pass at d=32, S=600 (three query tiles of 256)" 0 build/chapter7 --only-new B=1 S=600 N=4 D=256 H=8 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=32, S=600 (three query tiles of 256)" 0 build/chapter13 --only-new B=1 S=600 N=4 D=256 H=8 --check-only
gpu_expect "fused-tiled kernels pass at d=8, S=1100 (three query tiles of 512)" 0 build/chapter7 --only-new B=1 S=1100 N=3 D=64 H=8 --check-only
gpu_expect "chapter 13 tensor-core kernels pass at d=8, S=1100 (three query tiles of 512)" 0 build/chapter13 --only-new B=1 S=1100 N=3 D=64 H=8 --check-only
gpu_expect "fused-tiled kernels pass with another seed" 0 build/chapter7 --only-new B=1 S=257 N=24 D=128 H=4 --seed 7 --check-only

# Chapter 7's mutant never walks a column's last, partial stage of keys;
# chapter 9's forgets how its score columns are permuted. Each check must fail (exit 1).
gpu_expect "chapter7 mutant is rejected by the check (FP32)" 1 build/chapter7-mutant --kernel fused-tiled B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "chapter13 mutant is rejected by the check (TF32)" 1 build/chapter13-mutant --kernel fused-tiled-tf32 B=1 S=100 N=16 D=256 H=8 --check-only
# Chapter 13's mutant-gemm leaves a product out of the 3xTF32 projections.
gpu_expect "chapter13 mutant-gemm is rejected by the check (3xTF32)" 1 build/chapter13-mutant-gemm --kernel fused-tiled-tf32x3 B=1 S=100 N=16 D=256 H=8 --check-only
# mutant-swizzle reads the copy engine's box of X as if it were not swizzled.
gpu_expect "chapter13 mutant-swizzle is rejected by the check (3xTF32)" 1 build/chapter13-mutant-swizzle --kernel fused-tiled-tf32x3 B=1 S=100 N=16 D=256 H=8 --check-only

# .npy out and back in: the inputs of one run, checked again by the other kernel.
npy_dir=$LOGS/chapter7-npy
rm -rf "$npy_dir"
gpu_expect "chapter7 --save writes the inputs and out.npy" 0 build/chapter7 --kernel fused-tiled B=1 S=70 N=8 D=64 H=8 --check-only --save "$npy_dir"
if [ -f "$npy_dir/out.npy" ]; then
    gpu_expect "chapter13 --load checks fused-tiled-tf32 on the saved inputs" 0 build/chapter13 --kernel fused-tiled-tf32 --load "$npy_dir" H=8 --check-only
    expect_status "chapter7 --load refuses a size that disagrees with msa.npy" 2 build/chapter7 --kernel fused-tiled --load "$npy_dir" S=71 H=8 --check-only
fi

# Kept keys first: at S=300 N=16 D=256 the K and V projections are over a
# GFLOP, so the host waits for the count of kept keys and projects K and V
# for those rows only. The same inputs again with every key masked (no kept
# rows: every output row is bo) and with every key kept (no other rows).
kept_dir=$LOGS/chapter7-kept
rm -rf "$kept_dir"
mkdir -p "$kept_dir"
gpu_expect "fused-tiled kernels pass where the host waits for the count of kept keys (S=300 N=16 D=256)" 0 \
    build/chapter7 --only-new B=1 S=300 N=16 D=256 H=8 --check-only --save "$kept_dir/drawn"
if [ -f "$kept_dir/drawn/msa.npy" ]; then
    for every in masked kept; do
        mkdir -p "$kept_dir/$every"
        cp "$kept_dir"/drawn/*.npy "$kept_dir/$every/"
    done
    msa_write_npy "$kept_dir/masked/mask.npy" "(1, 300, 16)" 4800
    msa_write_npy "$kept_dir/kept/mask.npy" "(1, 300, 16)" 4800 "<f4" False one
    for program in chapter7 chapter13; do
        gpu_expect "$program: the tiled kernels pass with every key of the layer masked (out = bo)" 0 \
            build/$program --only-new --load "$kept_dir/masked" H=8 --check-only
        gpu_expect "$program: the tiled kernels pass with every key of the layer kept" 0 \
            build/$program --only-new --load "$kept_dir/kept" H=8 --check-only
    done
fi

# The large-logit check (logits near 90): the FP32 kernels pass it, the
# TF32 ones are left out of it, and a softmax that never moves its
# reference passes the ordinary check and fails this one.
expect_status "chapter13 --kernel fused-tiled-tf32 --logits refuses: no FP32 kernel left" 2 \
    build/chapter13 --kernel fused-tiled-tf32 --logits 90 B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "chapter13 --only-new: fused-tiled-tf32x3 passes the large-logit check" 0 \
    build/chapter13 --only-new --logits 90 B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "chapter7 passes the large-logit check" 0 build/chapter7 --only-new B=1 S=100 N=16 D=256 H=8 --logits 90 --check-only
gpu_expect "chapter13: its FP32 contenders pass the large-logit check" 0 build/chapter13 B=1 S=100 N=16 D=256 H=8 --logits 90 --check-only
gpu_expect "chapter7 mutant-max passes the ordinary check" 0 \
    build/chapter7-mutant-max --kernel fused-tiled B=1 S=100 N=16 D=256 H=8 --check-only
gpu_expect "chapter7 mutant-max (the reference never moves) is rejected by the large-logit check" 1 \
    build/chapter7-mutant-max --kernel fused-tiled B=1 S=100 N=16 D=256 H=8 --logits 90 --check-only
gpu_expect "chapter7 passes with every key kept at S=300" 0 build/chapter7 --only-new B=1 S=300 N=16 D=256 H=8 mask=kept --check-only
gpu_expect "chapter7 passes with the sequences padded at S=300" 0 build/chapter7 --only-new B=1 S=300 N=16 D=256 H=8 mask=pad --check-only
