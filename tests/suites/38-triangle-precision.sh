# tests/suites/38-triangle-precision.sh - the triangle in 3xTF32 on the
# tensor cores, checked against the FP32 tolerance: chapter 9's tf32x3 on
# mma.sync, chapter 10's tf32x3+wgmma, chapter 11's kernels that use the copy
# engine both ways (tf32+tma-store, tf32x3+tma-store) and chapter 12's warps
# with roles (tf32+roles, tf32x3+roles). What they race and
# refuse (no GPU needed), the GPU checks at every size of the suite, and the
# mutants that drop one of the three products or the tile on the diagonal.
# test-runner: about 30 s

ch9=build/chapter9
ch10=build/chapter10
ch11=build/chapter11
ch12=build/chapter12
expect_status "chapter9 --list exits 0" 0 $ch9 --list
expect_output "chapter9 lists tf32x3" "tf32x3 \(chapter 9\)" $ch9 --list
expect_output "chapter10 lists tf32x3+wgmma" "tf32x3\+wgmma \(chapter 10\)" $ch10 --list
expect_output "chapter10 races chapter 9's best" "tf32x3 \(chapter 9\)" $ch10 --list
expect_no_output "chapter9 does not race chapter 10's kernel" "wgmma" $ch9 --list
expect_output "chapter9 races chapter 8's best" "tf32\+rows \(chapter 8\)" $ch9 --list
expect_output "chapter9 races chapter 5's best" "shared\+rows\+interleaved \(chapter 5\)" $ch9 --list
expect_output "chapter9 races cublas-rows" "cublas-rows \(chapter 1\)" $ch9 --list
expect_output "chapter9-tried lists the splits not kept" "tf32x3\+rounded" build/chapter9-tried --list

expect_status "tf32x3 refuses T not a multiple of 128" 2 $ch9 --kernel tf32x3 T=1000
expect_status "tf32x3 refuses HS not a multiple of 8" 2 $ch9 --kernel tf32x3 C=120 NH=12
expect_status "tf32x3 refuses HS over 128" 2 $ch9 --kernel tf32x3 C=768 NH=3
expect_status "the chapter 9 mutant refuses like the real thing" 2 build/chapter9-mutant --kernel tf32x3 T=200
expect_status "tf32x3+wgmma refuses T not a multiple of 128" 2 $ch10 --kernel tf32x3+wgmma T=1000
expect_status "tf32x3+wgmma refuses HS not a multiple of 8" 2 $ch10 --kernel tf32x3+wgmma C=120 NH=12
expect_status "tf32x3+wgmma refuses HS over 128" 2 $ch10 --kernel tf32x3+wgmma C=768 NH=3
expect_output "tf32x3+wgmma says why it refuses" "HS = C/NH = 256 must be a multiple of 8 .* at most 128" \
    $ch10 --kernel tf32x3+wgmma C=768 NH=3
expect_status "the chapter 10 mutant refuses like the real thing" 2 build/chapter10-mutant --kernel tf32x3+wgmma T=200
expect_output "chapter11 lists the copy engine's kernels" "tf32\+tma-store \(chapter 11\)" $ch11 --list
expect_output "chapter11's best is tf32x3+tma-store" "tf32x3\+tma-store \(chapter 11\)" $ch11 --list
expect_output "chapter11 races chapter 10's best" "tf32x3\+wgmma \(chapter 10\)" $ch11 --list
expect_no_output "chapter10 does not race chapter 11's kernels" "tma-store" $ch10 --list
expect_output "chapter12 lists the warps with roles" "tf32x3\+roles \(chapter 12\)" $ch12 --list
expect_output "chapter12 races chapter 11's best" "tf32x3\+tma-store \(chapter 11\)" $ch12 --list
for kernel in tf32+tma-store tf32x3+tma-store; do
    expect_status "$kernel refuses T not a multiple of 128" 2 $ch11 --kernel $kernel T=1000
    expect_status "$kernel refuses HS over 128" 2 $ch11 --kernel $kernel C=768 NH=3
    expect_output "$kernel says why it refuses" "HS = C/NH = 256 must be a multiple of 8" \
        $ch11 --kernel $kernel C=768 NH=3
done
expect_status "the diagonal mutant refuses like the real thing" 2 \
    build/chapter11-mutant-diagonal --kernel tf32x3+tma-store T=200
expect_status "the chapter 12 mutant refuses like the real thing" 2 build/chapter12-mutant --kernel tf32+roles T=200

# On the GPU, against the FP32 tolerance (1e-5), at every size of the verify
# suite and at head sizes 8 to 128 (--only-new: each chapter's own kernel;
# for tf32x3+wgmma, 64 keys a tile up to HS = 96, 32 past it, and a tile of
# keys fewer 16-byte pieces than threads at HS = 8).
gpu_expect "chapter9 passes at the default size, every contender" 0 $ch9 --check-only
gpu_expect "chapter10 passes at the default size, every contender" 0 $ch10 --check-only
gpu_expect "chapter11 passes at the default size, every contender" 0 $ch11 --check-only
gpu_expect "chapter12 passes at the default size, every contender" 0 $ch12 --check-only
for program in $ch9 $ch10 $ch11 $ch12; do
    name=${program#build/}
    gpu_expect "$name's kernel passes at B=1 T=128 C=64 NH=1" 0 $program --only-new B=1 T=128 C=64 NH=1 --check-only
    gpu_expect "$name's kernel passes at HS=8" 0 $program --only-new B=2 T=256 C=32 NH=4 --check-only
    gpu_expect "$name's kernel passes at HS=24" 0 $program --only-new B=2 T=256 C=288 NH=12 --check-only
    gpu_expect "$name's kernel passes at HS=32" 0 $program --only-new B=2 T=256 C=512 NH=16 --check-only
    gpu_expect "$name's kernel passes at HS=40" 0 $program --only-new B=2 T=384 C=480 NH=12 --check-only
    gpu_expect "$name's kernel passes at HS=96" 0 $program --only-new B=2 T=256 C=768 NH=8 --check-only
    gpu_expect "$name's kernel passes at HS=120" 0 $program --only-new B=2 T=256 C=960 NH=8 --check-only
    gpu_expect "$name's kernel passes at HS=128, T=384" 0 $program --only-new B=3 T=384 C=1536 NH=12 --check-only
    gpu_expect "$name's kernel passes at T=2048" 0 $program --only-new B=2 T=2048 --check-only
    gpu_expect "$name's kernel passes at T=4096" 0 $program --only-new B=1 T=4096 C=256 NH=4 --check-only
done
gpu_expect "chapter9-tried passes at the default size" 0 build/chapter9-tried --check-only

# The mutant drops a_small b_big: about 2^-11 of every product, far over 1e-5.
gpu_expect "chapter9 mutant is rejected by the FP32 check of tf32x3" 1 \
    build/chapter9-mutant --kernel tf32x3 B=2 T=256 --check-only
# Chapter 10's mutant drops small by big in tf32x3+wgmma's three products.
gpu_expect "chapter10 mutant is rejected by the FP32 check of tf32x3+wgmma" 1 \
    build/chapter10-mutant --kernel tf32x3+wgmma B=2 T=256 --check-only
# The diagonal mutant never writes the tile on the diagonal: its kept scores
# stay NaN (the output is filled with NaN before every check).
for kernel in tf32+tma-store tf32x3+tma-store; do
    gpu_expect "chapter11 diagonal mutant is rejected by the check of $kernel" 1 \
        build/chapter11-mutant-diagonal --kernel $kernel B=2 T=256 --check-only
done
# Chapter 12's mutant: the scheduler forgets the short row of every pair, so
# those rows' scores stay NaN (every role walks the same list: no deadlock).
for kernel in tf32+roles tf32x3+roles; do
    gpu_expect "chapter12 mutant is rejected by the check of $kernel" 1 \
        build/chapter12-mutant --kernel $kernel B=2 T=512 --check-only
done
