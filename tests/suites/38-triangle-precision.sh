# tests/suites/38-triangle-precision.sh - chapter 9's triangle (3xTF32 on the
# tensor cores, checked against the FP32 tolerance): what it races and
# refuses (no GPU needed), the GPU checks at every size of the suite, and
# the mutants that drop one of the three products (tf32x3 on mma.sync,
# tf32x3+wgmma).

ch9=build/chapter9-trimul
expect_status "chapter9-trimul --list exits 0" 0 $ch9 --list
expect_output "chapter9-trimul lists tf32x3" "tf32x3 \(chapter 9\)" $ch9 --list
expect_output "chapter9-trimul lists tf32x3+wgmma" "tf32x3\+wgmma \(chapter 9\)" $ch9 --list
expect_output "chapter9-trimul races chapter 8's best" "tf32\+rows \(chapter 8\)" $ch9 --list
expect_output "chapter9-trimul races chapter 5's best" "shared\+rows\+interleaved \(chapter 5\)" $ch9 --list
expect_output "chapter9-trimul races cublas-rows" "cublas-rows \(chapter 1\)" $ch9 --list
expect_output "chapter9-trimul-tried lists the splits not kept" "tf32x3\+rounded" build/chapter9-trimul-tried --list

expect_status "tf32x3 refuses T not a multiple of 128" 2 $ch9 --kernel tf32x3 T=1000
expect_status "tf32x3 refuses HS not a multiple of 8" 2 $ch9 --kernel tf32x3 C=120 NH=12
expect_status "tf32x3 refuses HS over 128" 2 $ch9 --kernel tf32x3 C=768 NH=3
expect_status "the chapter 9 mutant refuses like the real thing" 2 build/chapter9-trimul-mutant --kernel tf32x3 T=200
expect_status "tf32x3+wgmma refuses T not a multiple of 128" 2 $ch9 --kernel tf32x3+wgmma T=1000
expect_status "tf32x3+wgmma refuses HS not a multiple of 8" 2 $ch9 --kernel tf32x3+wgmma C=120 NH=12
expect_status "tf32x3+wgmma refuses HS over 128" 2 $ch9 --kernel tf32x3+wgmma C=768 NH=3
expect_output "tf32x3+wgmma says why it refuses" "HS = C/NH = 256 must be a multiple of 8 .* at most 128" \
    $ch9 --kernel tf32x3+wgmma C=768 NH=3
expect_status "mutant-wgmma refuses like the real thing" 2 build/chapter9-trimul-mutant-wgmma --kernel tf32x3+wgmma T=200

# On the GPU, against the FP32 tolerance (1e-5), at every size of the verify
# suite and at head sizes 8 to 128 (--only-new: both of chapter 9's kernels;
# for tf32x3+wgmma, 64 keys a tile up to HS = 96, 32 past it, and a tile of
# keys fewer 16-byte pieces than threads at HS = 8).
gpu_expect "chapter9-trimul passes at the default size, every contender" 0 $ch9 --check-only
gpu_expect "chapter 9's kernels pass at B=1 T=128 C=64 NH=1" 0 $ch9 --only-new B=1 T=128 C=64 NH=1 --check-only
gpu_expect "chapter 9's kernels pass at HS=8" 0 $ch9 --only-new B=2 T=256 C=32 NH=4 --check-only
gpu_expect "chapter 9's kernels pass at HS=24" 0 $ch9 --only-new B=2 T=256 C=288 NH=12 --check-only
gpu_expect "chapter 9's kernels pass at HS=32" 0 $ch9 --only-new B=2 T=256 C=512 NH=16 --check-only
gpu_expect "chapter 9's kernels pass at HS=40" 0 $ch9 --only-new B=2 T=384 C=480 NH=12 --check-only
gpu_expect "chapter 9's kernels pass at HS=96" 0 $ch9 --only-new B=2 T=256 C=768 NH=8 --check-only
gpu_expect "chapter 9's kernels pass at HS=120" 0 $ch9 --only-new B=2 T=256 C=960 NH=8 --check-only
gpu_expect "chapter 9's kernels pass at HS=128, T=384" 0 $ch9 --only-new B=3 T=384 C=1536 NH=12 --check-only
gpu_expect "chapter 9's kernels pass at T=2048" 0 $ch9 --only-new B=2 T=2048 --check-only
gpu_expect "chapter 9's kernels pass at T=4096" 0 $ch9 --only-new B=1 T=4096 C=256 NH=4 --check-only
gpu_expect "chapter9-trimul-tried passes at the default size" 0 build/chapter9-trimul-tried --check-only

# The mutant drops a_small b_big: about 2^-11 of every product, far over 1e-5.
gpu_expect "chapter9 mutant is rejected by the FP32 check of tf32x3" 1 \
    build/chapter9-trimul-mutant --kernel tf32x3 B=2 T=256 --check-only
# mutant-wgmma drops small by big in tf32x3+wgmma's three products.
gpu_expect "chapter9 mutant-wgmma is rejected by the FP32 check of tf32x3+wgmma" 1 \
    build/chapter9-trimul-mutant-wgmma --kernel tf32x3+wgmma B=2 T=256 --check-only
