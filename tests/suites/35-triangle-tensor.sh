# tests/suites/35-triangle-tensor.sh - chapter 8 (the triangle in TF32): the
# sizes its kernels refuse (no GPU needed), the GPU checks at a few sizes,
# and the mutant the check must reject.
# test-runner: about 10 s

expect_status "chapter8 --list exits 0" 0 build/chapter8 --list
expect_output "chapter8 lists its two kernels" "tf32\+rows" build/chapter8 --list
expect_output "chapter8 races cuBLAS in TF32" "cublas-tf32" build/chapter8 --list

# Refusals: exit status 2 and a reason, before any GPU is touched.
expect_status "tf32 refuses T not a multiple of 128" 2 build/chapter8 --kernel tf32 T=1000
expect_status "tf32 refuses HS not a multiple of 8" 2 build/chapter8 --kernel tf32 C=120 NH=12
expect_output "tf32's refusal names the reason" "multiple of 8" build/chapter8 --kernel tf32 C=120 NH=12
expect_status "tf32+rows refuses HS over 128" 2 build/chapter8 --kernel tf32+rows C=768 NH=3
expect_output "tf32+rows' refusal names the reason" "three tiles in shared memory" build/chapter8 --kernel tf32+rows C=768 NH=3
expect_status "the chapter 8 mutant refuses like the real thing" 2 build/chapter8-mutant --kernel tf32 T=200

# Checks on the GPU (skipped, exit 77, without one), against the TF32 tolerance.
gpu_expect "chapter8 passes at the default size" 0 build/chapter8 --check-only
gpu_expect "chapter8 tf32 kernels pass at B=1 T=128 C=64 NH=1" 0 build/chapter8 --only-new B=1 T=128 C=64 NH=1 --check-only
gpu_expect "chapter8 tf32 kernels pass at HS=8" 0 build/chapter8 --only-new B=2 T=256 C=32 NH=4 --check-only
gpu_expect "chapter8 tf32 kernels pass at HS=40" 0 build/chapter8 --only-new B=2 T=384 C=480 NH=12 --check-only
gpu_expect "chapter8 tf32 kernels pass at HS=128, T=384" 0 build/chapter8 --only-new B=3 T=384 C=1536 NH=12 --check-only
gpu_expect "chapter8 tf32 kernels pass at T=2048" 0 build/chapter8 --only-new B=2 T=2048 --check-only

# The mutant drops the diagonal of every diagonal tile; each check must fail (exit 1).
gpu_expect "chapter8 mutant is rejected by the check of tf32" 1 build/chapter8-mutant --kernel tf32 B=2 T=256 --check-only
gpu_expect "chapter8 mutant is rejected by the check of tf32+rows" 1 build/chapter8-mutant --kernel tf32+rows B=2 T=256 --check-only
gpu_expect "chapter8 mutant is rejected by the check of tf32+rows+cut" 1 build/chapter8-mutant --kernel tf32+rows+cut B=2 T=256 --check-only
