# bench/sizes.sh - every size the GPU runs use, in one place: make verify,
# bench and sanitize (bench/gpu_runs.sh) and the grader (solutions/grade.sh)
# source it. Sizes are written as the programs take them (KEY=VALUE), the
# spelling of the CSV's shape column. A program's own default size (what
# `build/chapterN` runs with no size given) lives in its runner, common/harness/*_runner.cu.
#
# sizes_of MODE PROBLEM CHAPTER prints the sizes of one run, one per line;
# MODE is verify, bench, sanitize or grade.

# ------------------------------------------------ the triangle (chapters 1-5, 8, 9)
TRIANGLE_VERIFY=("B=8 T=1024 C=768 NH=12" "B=1 T=128 C=64 NH=1" "B=2 T=256 C=512 NH=16"
                 "B=3 T=384 C=1536 NH=12" "B=2 T=2048 C=768 NH=12" "B=3 T=384 C=480 NH=5")
# bench: the default size and a sweep of T around it
TRIANGLE_BENCH=("B=8 T=256 C=768 NH=12" "B=8 T=512 C=768 NH=12" "B=8 T=1024 C=768 NH=12"
                "B=8 T=2048 C=768 NH=12" "B=8 T=4096 C=768 NH=12")
TRIANGLE_SANITIZE=("B=1 T=256 C=128 NH=2")
# grade: the smallest tile, odd B and NH, HS of 32, 48, 64 and 128, several tiles
TRIANGLE_GRADE=("B=1 T=128 C=32 NH=1" "B=3 T=256 C=384 NH=3" "B=1 T=384 C=240 NH=5"
                "B=2 T=1024 C=768 NH=12")

# ------------------------------------------------ the MSA layer, chapter 6 (S <= 64)
# Every path of the fused kernel: two blocks per column (few columns, even H,
# D >= 64), one block with resident weights, streamed weights (D=128 with one
# block), S from 1 to 64, head sizes 4 to 128, several waves of blocks. Every
# size draws all-kept, all-masked and single-kept columns besides random ones.
# The last: logits near 90, past where expf overflows in FP32 (88.7), so that
# a softmax which does not subtract its maximum fails (TF32-accurate kernels
# are left out of it).
MSA_VERIFY=("B=2 S=8 N=32 D=64 H=4" "B=1 S=1 N=5 D=32 H=1" "B=3 S=5 N=7 D=32 H=8"
            "B=1 S=64 N=24 D=32 H=2" "B=2 S=33 N=9 D=64 H=2" "B=1 S=64 N=80 D=64 H=8"
            "B=1 S=64 N=6 D=64 H=1" "B=4 S=12 N=100 D=64 H=4" "B=1 S=16 N=40 D=128 H=8"
            "B=2 S=37 N=11 D=128 H=2" "B=1 S=64 N=5 D=128 H=1" "B=1 S=64 N=7 D=128 H=4"
            "B=2 S=33 N=9 D=64 H=2 --logits 90")
# the small case the book races, sweeps of S and D around it, two sizes with
# enough columns to fill the GPU
MSA_BENCH=("B=2 S=8 N=32 D=64 H=4" "B=2 S=16 N=32 D=64 H=4" "B=2 S=32 N=32 D=64 H=4"
           "B=2 S=64 N=32 D=64 H=4" "B=2 S=8 N=32 D=32 H=4" "B=2 S=8 N=32 D=128 H=4"
           "B=1 S=64 N=256 D=64 H=8" "B=1 S=64 N=256 D=128 H=8")
# small, yet with two blocks per column (D=64, even H, few columns)
MSA_SANITIZE=("B=1 S=5 N=3 D=64 H=2")
# grade: one key, the small case, S past one warp of keys, D not a multiple
# of 32, the largest column the exercises hold in shared memory
MSA_GRADE=("B=1 S=1 N=1 D=32 H=1" "B=2 S=8 N=32 D=64 H=4" "B=1 S=33 N=7 D=48 H=2"
           "B=3 S=37 N=5 D=96 H=3" "B=1 S=64 N=24 D=128 H=8")

# ------------------------------------------------ the MSA layer at any depth (chapters 7, 11)
# Every tile path of the tiled kernels, with N small enough for the CPU referee.
MSA_TILED_VERIFY=("B=2 S=8 N=32 D=64 H=4" "B=1 S=64 N=16 D=128 H=8" "B=1 S=100 N=16 D=256 H=8"
                  "B=2 S=200 N=8 D=64 H=8" "B=1 S=130 N=12 D=128 H=8" "B=1 S=70 N=12 D=256 H=4"
                  "B=1 S=600 N=4 D=256 H=8" "B=1 S=100 N=16 D=256 H=8 --logits 90")
# the AlphaFold MSA stack at two depths, and the extra-MSA stack's size
MSA_TILED_BENCH=("B=1 S=128 N=256 D=256 H=8" "B=1 S=512 N=256 D=256 H=8"
                 "B=1 S=1024 N=384 D=64 H=8")
# small enough for memcheck and racecheck over every contender (chapter 6's
# fused kernel included, so S <= 64; d = 8, one partial stage); and at S=300
# N=16 D=256 the K and V projections pass a GFLOP, so the host waits for the
# count of kept keys: the path the small size does not take.
MSA_TILED_SANITIZE=("B=1 S=50 N=3 D=64 H=8" "--only-new B=1 S=300 N=16 D=256 H=8")

# PyTorch races the layer at these (bench/torch_race.py; make bench): the
# small case, where launches decide, and the AlphaFold shapes.
MSA_TORCH=("B=2 S=8 N=32 D=64 H=4" "${MSA_TILED_BENCH[@]}")

# Checks use the drawn mask (its all-masked, single-kept and partly kept
# columns); benchmarks time every MSA shape with every key kept and with the
# sequences padded (docs/design.md, "Mask kinds").
MSA_BENCH_MASKS="kept pad"

sizes_of() {
    local mode=$1 problem=$2 chapter=$3 set
    case $problem in
        trimul) set=TRIANGLE ;;
        msa) if [ "$chapter" -ge 7 ] && [ "$mode" != grade ]; then set=MSA_TILED; else set=MSA; fi ;;
        *) echo "sizes_of: unknown problem '$problem'" >&2; return 2 ;;
    esac
    local name="${set}_$(printf '%s' "$mode" | tr a-z A-Z)[@]" size mask
    if [ "$problem" = msa ] && [ "$mode" = bench ]; then
        for size in "${!name}"; do
            for mask in $MSA_BENCH_MASKS; do printf '%s mask=%s\n' "$size" "$mask"; done
        done
    else
        printf '%s\n' "${!name}"
    fi
}

# Benchmarks time each triangle kernel once per size, in the program of the
# chapter that introduces it (--only-new); the MSA chapters race every
# contender instead, so that the unfused baseline is timed at their sizes
# and masks in the same run.
bench_flags_of() {
    local problem=$1 chapter=$2
    if [ "$problem" = msa ]; then echo ""; else echo "--only-new"; fi
}
