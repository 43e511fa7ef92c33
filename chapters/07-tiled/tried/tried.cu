// chapters/07-tiled/tried/tried.cu - Chapter 7's roads not taken: the layer fed with every
// key, the textbook rescale, whole rows per lane, four rows a lane at every depth.
//
//   make build/chapter7-tried && build/chapter7-tried B=1 S=512 N=256 D=256 H=8 --reps 20

/*md
# MSA attention at scale: the roads not taken

Each variant below is the chapter's layer with one choice made the other
way: the same seven launches, the same kernel template, other arguments.
They are raced beside `fused-tiled` at the chapter's three shapes.
*/

// book:hide
#include "../tiled.cuh"
// book:show

/*md
## Every key: `fused-tiled+dense`

The chapter's layer leaves the masked keys out twice: the attention walks
only the kept keys, and (when the host waits for their count) only the
kept rows are projected onto $K$ and $V$. Since the tally of useful work
counts every key, that makes the rates of the race look better than the
arithmetic they did. This variant keeps the count honest: launch 1 leaves
every column in the order $s$ (`compact` false), every row is projected
onto all four, and the attention streams every key, a masked one with the
bias $-\infty$ and so the weight 0.

| shape | fused-tiled | fused-tiled+dense | fused-tiled+graph |
|---|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+dense|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+graph|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+dense|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+graph|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+dense|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+graph|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms |

The difference between the first two columns is what skipping the masked
keys is worth on the drawn mask. Per column, it has a one-in-eight chance
each of keeping every key, none or exactly one, and otherwise keeps each
key with probability 3/4: on average $1/8 + 5/8 \cdot 3/4 \approx 59\%$ of
the keys. So the attention does 59% of its nominal work, and the $K$ and
$V$ projections 59% of theirs, about a sixth of all the projection work
saved. The graph
replays of the chapter's layer (third column) project every row onto all
four but still skip the masked keys in the attention, so they split that
difference: from the plain runs to the graph is the projections' share,
from the graph to `+dense` the attention's.
*/

static void tiled_launch_dense(const msa_args *args)
{
    tiled_layer(args, false, fp32_gemm, launch_fp32_for<true>);
}

/*md
## The textbook rescale: `fused-tiled+eager`

The online softmax of the chapter moves its reference $m$ only when a
step's weights add up to more than $2^8$. The textbook moves it to the
running maximum at every step: `LAZY` false in `fp32_step`, so every step
takes the maximum of its scores and rescales $\ell$ and the $d$ features of
$a$.

| shape | fused-tiled | fused-tiled+eager |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+eager|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+eager|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+eager|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms |

The textbook step costs extra per key and row (the maximum) and per step
and row (the factor, and $d$ multiplies), which is little next to the $2d$
FMAs per key and row of the two products. With the drawn scores, which
rarely exceed the first few by much, the lazy reference almost never moves
after the first step, so it saves exactly that extra work and no more, and
the two stay close at every shape, in either direction. The race does not
decide between them; the chapter keeps the lazy rescale, which does less
arithmetic per step whenever the reference stays put.
*/

static void tiled_launch_eager(const msa_args *args)
{
    tiled_layer(args, true, fp32_gemm, launch_fp32_for<false>);
}

/*md
## Whole rows per lane: `fused-tiled+unsplit`

Here a lane holds all $d$ features of its rows (`SPLIT` = 1), so it can
hold fewer of them in the same registers: two rows for $d = 16$ and
$d = 32$, one for $d = 64$. Each feature loaded from shared memory then
feeds two multiply-adds a row instead of four, and by the count of the
chapter the loads, not the FMAs, set the pace. For $d = 8$ it is the
chapter's kernel itself (four whole rows of 8 features fit).

| shape | fused-tiled | fused-tiled+unsplit |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+unsplit|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+unsplit|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+unsplit|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms |

At $d = 32$ the split rows win at both depths; at $d = 8$ the two are the
same kernel.
*/

static void launch_fp32_unsplit(int d, const tiled_params &p, int B, cudaStream_t stream)
{
    switch (d) {
    case 8: launch_fp32<8, 4, 1, 8, true>(p, B, stream); break;
    case 16: launch_fp32<16, 2, 1, 8, true>(p, B, stream); break;
    case 32: launch_fp32<32, 2, 1, 8, true>(p, B, stream); break;
    default: launch_fp32<64, 1, 1, 8, true>(p, B, stream); break;
    }
}

static void tiled_launch_unsplit(const msa_args *args)
{
    tiled_layer(args, true, fp32_gemm, launch_fp32_unsplit);
}

/*md
## Four rows a lane at every depth: `fused-tiled+four-rows`

Below $S = 256$ the chapter's kernel gives a lane two rows at $d = 32$ and
caps it at 128 registers, so that 16 warps share a multiprocessor and hide
each other's waits. This variant keeps four rows a lane (255 registers,
8 warps) at every depth.

| shape | fused-tiled | fused-tiled+four-rows |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+four-rows|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+four-rows|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled+four-rows|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms |

Only the shallow shape differs: at $S = 512$ both run four rows a lane, and
$d = 8$ has no short-column case. At $S = 128$ the occupancy is worth more
than the FMAs per load.
*/

static void launch_fp32_four_rows(int d, const tiled_params &p, int B, cudaStream_t stream)
{
    if (d == 32)
        launch_fp32<32, 4, 2, 8, true>(p, B, stream);
    else
        launch_fp32_for<true>(d, p, B, stream);
}

static void tiled_launch_four_rows(const msa_args *args)
{
    tiled_layer(args, true, fp32_gemm, launch_fp32_four_rows);
}

// book:hide
extern const msa_kernel fused_tiled_dense_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_dense};
extern const msa_kernel fused_tiled_eager_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_eager};
extern const msa_kernel fused_tiled_unsplit_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_unsplit};
extern const msa_kernel fused_tiled_four_rows_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_four_rows};
// book:show
