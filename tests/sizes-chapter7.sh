# tests/sizes-chapter7.sh - the sizes make verify, bench and sanitize run
# chapter 7 at (sourced by tests/gpu_runs.sh).
#
# VERIFY_SIZES: every tile path of fused-tiled and fused-tiled-tf32, with N
# small enough for the CPU referee. Sizes with S > 64 need the runner to
# skip chapter 6's fused kernel (which refuses them) rather than refuse the
# whole run.
VERIFY_SIZES=("B=2 S=8 N=32 D=64 H=4"
              "B=1 S=64 N=16 D=128 H=8"
              "B=1 S=100 N=16 D=256 H=8"
              "B=2 S=200 N=8 D=64 H=8"
              "B=1 S=130 N=12 D=128 H=8"
              "B=1 S=70 N=12 D=256 H=4"
              "B=1 S=600 N=4 D=256 H=8")
# BENCH_SIZES: the AlphaFold MSA stack at two depths and the extra-MSA stack.
BENCH_SIZES=("B=1 S=128 N=256 D=256 H=8"
             "B=1 S=512 N=256 D=256 H=8"
             "B=1 S=1024 N=384 D=64 H=8")
# SANITIZE_SIZE: small enough for memcheck and racecheck over every contender
# (chapter 6's fused kernel included, so S <= 64); d = 8, one partial stage.
SANITIZE_SIZE="B=1 S=50 N=3 D=64 H=8"
# SANITIZE_MORE: and the path the small size does not take: at S=300 N=16
# D=256 the K and V projections pass a GFLOP, so the host waits for the count
# of kept keys and projects K and V for the kept rows only.
SANITIZE_MORE=("--only-new B=1 S=300 N=16 D=256 H=8")
# Chapter 7 is benchmarked with every contender it races (chapter 6's fused
# kernel is left out where it cannot hold the size), so that the unfused
# baseline is timed in the same run at chapter 7's sizes.
BENCH_FLAGS=
