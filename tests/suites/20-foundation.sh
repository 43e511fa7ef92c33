# tests/suites/20-foundation.sh - chapters 1 and 2: the command line's
# refusals (no GPU needed), the GPU checks, and the mutant the check rejects.

expect_status "chapter2 --help exits 0" 0 build/chapter2 --help
expect_status "chapter2 --list exits 0" 0 build/chapter2 --list
expect_status "chapter2 rejects an unknown option" 2 build/chapter2 --fast
expect_status "chapter2 rejects an unknown size key" 2 build/chapter2 X=3
expect_status "chapter2 rejects a malformed size" 2 build/chapter2 T=12x
expect_status "chapter2 rejects a zero size" 2 build/chapter2 B=0
expect_status "chapter2 rejects C not a multiple of NH" 2 build/chapter2 C=100 NH=12
expect_status "chapter2 rejects an unknown kernel name" 2 build/chapter2 --kernel fastest
expect_status "chapter2 rejects an unknown kernel number" 2 build/chapter2 --kernel 9
expect_status "chapter2 rejects --reps under 20" 2 build/chapter2 --reps 5
expect_status "naive refuses T not a multiple of 128" 2 build/chapter2 --kernel naive T=200
expect_output "the refusal names the reason" "multiple of 128" build/chapter2 --kernel naive T=200

gpu_expect "chapter1 cuBLAS champions pass at B=2 T=256" 0 build/chapter1 B=2 T=256 --check-only
gpu_expect "chapter1 cuBLAS champions pass at odd T=200 NH=3" 0 build/chapter1 B=1 T=200 C=192 NH=3 --check-only
gpu_expect "chapter2 naive passes at the default size" 0 build/chapter2 --check-only
gpu_expect "chapter2 naive passes at B=1 T=128 C=64 NH=1" 0 build/chapter2 B=1 T=128 C=64 NH=1 --check-only
gpu_expect "chapter2 mutant is rejected by the check" 1 build/chapter2-mutant --kernel naive B=2 T=256 --check-only
