# tests/suites/30-triangle-chapters.sh - chapters 3, 4 and 5: the sizes each
# kernel refuses (no GPU needed), the GPU checks at a few sizes, and the
# mutant each check must reject.
# test-runner: about 20 s

for n in 3 4 5; do
    expect_status "chapter$n --help exits 0" 0 build/chapter$n --help
    expect_status "chapter$n --list exits 0" 0 build/chapter$n --list
done
expect_output "chapter5 lists step 1" "shared\+staged \(chapter 5\)" build/chapter5 --list
expect_output "chapter5 lists step 5" "shared\+rows\+interleaved" build/chapter5 --list
expect_status "chapter5 lists no tried variant" 1 sh -c "build/chapter5 --list | grep -q persistent"
expect_output "chapter5-tried lists the tried variants" "shared\+persistent" build/chapter5-tried --list
expect_output "chapter5-tried races them against step 5" "shared\+rows\+interleaved" build/chapter5-tried --list
expect_output "every triangle chapter races cublas-rows" "cublas-rows \(chapter 1\)" build/chapter3 --list

# Refusals: exit status 2 and a reason, before any GPU is touched.
expect_status "registers refuses T not a multiple of 128" 2 build/chapter3 --kernel registers T=200
expect_output "registers' refusal names the reason" "multiple of 128" build/chapter3 --kernel registers T=200
expect_status "vectorized refuses T not a multiple of 128" 2 build/chapter4 --kernel vectorized T=320
expect_status "vectorized refuses HS not a multiple of 4" 2 build/chapter4 --kernel vectorized C=24 NH=4
expect_output "vectorized's refusal names the reason" "multiple of 4" build/chapter4 --kernel vectorized C=24 NH=4
expect_status "shared refuses T not a multiple of 128" 2 build/chapter5 --kernel shared T=1000
expect_status "shared refuses HS not a multiple of 16" 2 build/chapter5 --kernel shared C=480 NH=12
expect_output "shared's refusal names the reason" "multiple of 16" build/chapter5 --kernel shared C=480 NH=12
expect_status "shared refuses HS over 128" 2 build/chapter5 --kernel shared C=768 NH=3
expect_status "shared+staged refuses HS not a multiple of 16" 2 build/chapter5 --kernel shared+staged C=96 NH=12
expect_status "shared+rows refuses HS over 128" 2 build/chapter5 --kernel shared+rows C=768 NH=3
expect_output "shared+rows' refusal names the reason" "a query tile and two key tiles" build/chapter5 --kernel shared+rows C=768 NH=3
expect_status "shared+rows+interleaved refuses T not a multiple of 128" 2 build/chapter5 --kernel shared+rows+interleaved T=1000
expect_status "chapter5 as a whole refuses what one contender refuses" 2 build/chapter5 T=200
expect_status "the mutants refuse like the real thing" 2 build/chapter5-mutant --kernel shared T=200

# Checks on the GPU (skipped, exit 77, without one). Each program checks the
# chapter's kernels and every earlier contender it races.
gpu_expect "chapter3 passes at the default size" 0 build/chapter3 --check-only
gpu_expect "chapter3 registers passes at B=1 T=128 C=64 NH=1" 0 build/chapter3 --only-new B=1 T=128 C=64 NH=1 --check-only
gpu_expect "chapter3 registers passes at HS=6" 0 build/chapter3 --only-new B=2 T=256 C=24 NH=4 --check-only
gpu_expect "chapter4 passes at the default size" 0 build/chapter4 --check-only
gpu_expect "chapter4 vectorized passes at HS=32, B*NH=32" 0 build/chapter4 --only-new B=2 T=256 C=512 NH=16 --check-only
gpu_expect "chapter4 vectorized passes at HS=128, T=384" 0 build/chapter4 --only-new B=3 T=384 C=1536 NH=12 --check-only
gpu_expect "chapter5 passes at the default size" 0 build/chapter5 --check-only
gpu_expect "chapter5 shared kernels pass at B=1 T=128 C=64 NH=1" 0 build/chapter5 --only-new B=1 T=128 C=64 NH=1 --check-only
gpu_expect "chapter5 shared kernels pass at HS=16" 0 build/chapter5 --only-new B=2 T=256 C=64 NH=4 --check-only
gpu_expect "chapter5 shared kernels pass at HS=128, T=384" 0 build/chapter5 --only-new B=3 T=384 C=1536 NH=12 --check-only
gpu_expect "chapter5 shared kernels pass at HS=48" 0 build/chapter5 --only-new B=2 T=256 C=576 NH=12 --check-only
gpu_expect "chapter5's tried variants pass at the default size" 0 build/chapter5-tried --check-only
gpu_expect "chapter5's tried variants pass at HS=48" 0 build/chapter5-tried --only-new B=2 T=256 C=576 NH=12 --check-only
gpu_expect "chapter5 shared+persistent passes at HS=256" 0 build/chapter5-tried --kernel shared+persistent B=1 T=256 C=768 NH=3 --check-only
gpu_expect "chapter5 shared passes at T=2048" 0 build/chapter5 --kernel shared B=2 T=2048 --check-only
gpu_expect "chapter5 shared+rows+interleaved passes at T=2048" 0 build/chapter5 --kernel shared+rows+interleaved B=2 T=2048 --check-only
gpu_expect "chapter5 shared+persistent passes with fewer tiles than blocks" 0 build/chapter5-tried --kernel shared+persistent B=1 T=128 C=64 NH=1 --check-only

# Each mutant carries a one-line bug in its chapter's kernel; the check must fail (exit 1).
gpu_expect "chapter3 mutant is rejected by the check" 1 build/chapter3-mutant --kernel registers B=2 T=256 --check-only
gpu_expect "chapter4 mutant is rejected by the check" 1 build/chapter4-mutant --kernel vectorized B=2 T=256 --check-only
gpu_expect "chapter5 mutant is rejected by the check" 1 build/chapter5-mutant --kernel shared B=2 T=256 --check-only
gpu_expect "chapter5 mutant is rejected by the check of step 5" 1 build/chapter5-mutant --kernel shared+rows+interleaved B=2 T=256 --check-only
