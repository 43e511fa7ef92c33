# tests/msa_sizes.sh - the sizes of problem B (chapters 6 and 7) for
# tests/gpu_runs.sh: make verify, make bench, make sanitize. Sourced, not run.
#
# A size a chapter's kernel does not support is refused (exit 2) and listed
# as "refused", not as a failure: chapter 6's kernel stops at S=64, and
# chapter 7's at its own limits.

# Checks (--check-only): every path of the fused kernel. Two blocks per
# column (few columns, even H, D >= 64), one block with resident weights,
# streamed weights (D=128 with one block), S from 1 to 64, head sizes 4 to
# 128, several waves of blocks. Every size draws all-kept, all-masked and
# single-kept columns (columns 0, 1, 2) besides random ones.
MSA_VERIFY=(
    "B=2 S=8 N=32 D=64 H=4"
    "B=1 S=1 N=5 D=32 H=1"
    "B=3 S=5 N=7 D=32 H=8"
    "B=1 S=64 N=24 D=32 H=2"
    "B=2 S=33 N=9 D=64 H=2"
    "B=1 S=64 N=80 D=64 H=8"
    "B=1 S=64 N=6 D=64 H=1"
    "B=4 S=12 N=100 D=64 H=4"
    "B=1 S=16 N=40 D=128 H=8"
    "B=2 S=37 N=11 D=128 H=2"
    "B=1 S=64 N=5 D=128 H=1"
    "B=1 S=64 N=7 D=128 H=4"
)

# Benchmarks (--only-new, rows appended to plots/data/msa.csv): the small
# case the book races, sweeps of S and D around it, two sizes with enough
# columns to fill the GPU, then chapter 7's targets (chapter 6 refuses them).
MSA_BENCH=(
    "B=2 S=8 N=32 D=64 H=4"
    "B=2 S=16 N=32 D=64 H=4"
    "B=2 S=32 N=32 D=64 H=4"
    "B=2 S=64 N=32 D=64 H=4"
    "B=2 S=8 N=32 D=32 H=4"
    "B=2 S=8 N=32 D=128 H=4"
    "B=1 S=64 N=256 D=64 H=8"
    "B=1 S=64 N=256 D=128 H=8"
    "B=1 S=128 N=256 D=256 H=8"
    "B=1 S=512 N=256 D=256 H=8"
    "B=1 S=1024 N=384 D=64 H=8"
)

# compute-sanitizer memcheck and racecheck: small, yet with two blocks per
# column (D=64, even H, few columns) and all three kinds of mask column.
MSA_SMALL="B=1 S=5 N=3 D=64 H=2"
