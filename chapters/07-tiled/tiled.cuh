// chapters/07-tiled/tiled.cuh - Chapter 7: MSA column attention at AlphaFold scale, with an
// online softmax over tiles of keys, in FP32.
//
// Build, check and time it from the repository root:
//
//   make chapter7                                    # B=2 S=8 N=32 D=64 H=4, every contender
//   build/chapter7 --only-new S=300 N=8 D=256 H=8 --check-only
//   build/chapter7 --only-new B=1 S=512 N=256 D=256 H=8 --reps 20
//   build/chapter7 --kernel fused-tiled --save /tmp/msa7   # inputs and out.npy for NumPy

/*md
# MSA attention at scale: an online softmax over tiles

## Can the layer run at any depth?

Chapter 6 won its race by keeping a whole column of the MSA inside one
thread block. That is exactly what stops working when the MSA gets deep:
a row's scores outgrow the registers, and a column outgrows shared memory.
Can the layer run at any depth $S$, with memory that grows like the inputs
and never like $S^2$, and how close does it then come to what the FP32
arithmetic allows? What makes it possible is the online softmax: a softmax
taken over the keys a tile at a time, so that no row of scores is ever held
whole. It comes first; the sizes that make it necessary, and the kernel
built on it, come after.

## The online softmax

Take one query row and the scores $s_j$ of its kept keys (in the kernel,
$q \cdot k_j$ already scaled). The row's output is

$$ o = \frac{\sum_j e^{s_j - M} v_j}{\sum_j e^{s_j - M}} $$

for any constant $M$: it cancels between numerator and denominator. The
usual choice, $M = \max_j s_j$, makes every exponent at most zero so that
nothing overflows, and it is why the textbook softmax needs all the scores
of a row before it can produce a single weight: first the maximum, then the
exponentials, then the sum. Chapter 6 did exactly that, with every score of
a row in registers. At depth a row has too many scores to hold, and we
would rather not store them anywhere.

The way out is to notice that $M$ only has to be *known* at the end, and
that changing it midway is cheap. Walk the keys in blocks, and keep three
things for the keys seen so far: a reference value $m$, the sum
$\ell = \sum_j e^{s_j - m}$ and the vector $a = \sum_j e^{s_j - m} v_j$.
When a new block of keys arrives and we want a new reference $m'$, the old
terms only need a common factor:

$$
\ell' = e^{m - m'}\,\ell + \sum_{j \in \text{block}} e^{s_j - m'}, \qquad
a' = e^{m - m'}\,a + \sum_{j \in \text{block}} e^{s_j - m'}\, v_j .
$$

Both still equal the sums over all keys seen, taken against $m'$. After the
last block, $o = a / \ell$, the exact softmax, whatever the sequence of
references was. Algorithm 1 writes the walk out for one row, the way the
FlashAttention papers present theirs, with the textbook choice of $m'$,
the largest score seen so far:

> | **Algorithm 1.** The online softmax of one query row, through the product with $V$ [@milakov2018softmax; @dao2022flashattention]
> | **Require:** the row's scores $s_j$ and values $v_j$, its keys in blocks $B_1, \dots, B_t$
> | 1: $m \gets -\infty$, $\ell \gets 0$, $a \gets 0$ (a vector of $d$ zeros)
> | 2: **for** $i = 1, \dots, t$ **do**
> |     3: $m' \gets \max(m, \max_{j \in B_i} s_j)$
> |     4: $c \gets e^{m - m'}$ (0 for the first block, where $m = -\infty$)
> |     5: $\ell \gets c\,\ell + \sum_{j \in B_i} e^{s_j - m'}$
> |     6: $a \gets c\,a + \sum_{j \in B_i} e^{s_j - m'}\, v_j$
> |     7: $m \gets m'$
> | 8: **end for**
> | 9: **return** $o = a / \ell$

No row of scores is stored: each block's scores are used on lines 3 to 6
and forgotten. This is the online softmax of Milakov and Gimelshein,
which FlashAttention carries, as here, through the product with $V$
[@milakov2018softmax; @dao2022flashattention]. Nothing in the argument needs $m$ to be the true maximum;
it needs the exponentials to stay in range. The textbook version moves $m$
to the running maximum at every block, which costs, per block and row, an
exponential for the factor, a multiply for each of the $d$ features of $a$,
and a maximum over the block's scores before any weight can be computed.
The figure below follows one row of scores both ways.

{{figure|online-softmax}}

We move it less often: the *lazy rescale*. Any $m$ with $s_j - m \le \tau$
for all keys keeps every weight at most $e^\tau$, and FP32 has range to
spare: with $\tau$ equivalent to a factor of $2^8$, $\ell$ and $a$ stay far
from overflow for any $S$ a GPU can hold. So the kernel computes the
block's weights against the current $m$ and looks at their sum: if it is at
most $2^8$ (`TILED_RENORM_LIMIT`), no weight can exceed $2^8$ and the block
is simply added in. Only when the sum is larger (or infinite) does it take
the slow path: find the block's maximum, move $m$ up to it, rescale $\ell$
and $a$, and recompute the block's weights. The very first block always
takes that path, which sets $m$ to a real score: the largest weight is then
exactly 1, so $\ell \ge 1$ for any row that has a kept key, and nothing
underflows either. Once a row has seen its typical scores the slow path
almost never runs, as in the figure. (The roads not taken measure the
textbook way, `fused-tiled+eager`.)

Two details make the arithmetic cheaper still. The kernel works in base 2:
$e^{x} = 2^{x \log_2 e}$, so $q$ is multiplied once by
$\log_2 e / \sqrt d$ and every weight is one `ex2.approx` instruction on the
special-function unit (`exp2_fast`). And where one lane computes a whole
score, its accumulator starts at $-m$ instead of 0, so the fused
multiply-adds of the dot product deliver $s_j - m$ directly.

The masked and all-masked cases now come for free. A column with no kept
key has no keys to walk: $\ell$ stays 0, and the kernel writes $O = 0$ (it
multiplies by $1/\ell$ only when $\ell > 0$), so after the output
projection the column's rows are $b_o$, as the layer's definition says.
Past the last kept key, in the last block of keys, a position's score is
set to $-\infty$ and its weight is exactly 0; a block with no kept key at
all is skipped before it can set $m$ to $-\infty$.

*/

// book:hide
#pragma once
#include <math.h>
#include <stdint.h>

#include "problems/msa.h"
#include "layer.cuh" /* tiled_layer; via tiles.cuh, tiled_params and tiled_stages */
// book:show

/*md
## Where chapter 6 runs out

The AlphaFold 2 MSA stack runs column attention with $S = 512$ sequences,
$N = 256$ residues, $D = 256$ features and $H = 8$ heads of $d = 32$; the
extra-MSA stack runs $S = 1024$ (and more) with $D = 64$. Count what one
column asks a block to hold at the first of these sizes:

| what | floats | bytes |
|---|---|---|
| the column's input $X$, $S \times D$ | 131,072 | 512 KB |
| $Q$, $K$, $V$, $G$ of the column | 524,288 | 2 MB |
| the five weight matrices | 327,680 | 1.25 MB |
| one head's scores, $S \times S$ | 262,144 | 1 MB |

A block gets at most 227 KB of shared memory. The input alone does not fit,
and chapter 6's softmax, with at most two keys per lane, was built for
$S \le 64$ anyway. The unfused layer has no such wall because it keeps
nothing on chip: every intermediate goes to device memory, including all
$B N H S^2$ scores. At $S = 512$ that is 537 million floats, 2.1 GB,
written by one product, read and rewritten by the softmax and read again
by the next product; at $S = 1024$, $N = 384$ it is 12.9 GB. Memory and
traffic grow with the square of the depth.

We want the unfused layer's freedom from size limits and chapter 6's
refusal to send an $S \times S$ matrix through memory.

## The work, and the floor

The useful work is the one the previous chapter counted: $10\,S N D^2$
floating-point operations for the five projections ($Q$, $K$, $V$, $G$ and
the output, a multiply and an add for each of $D^2$ weights per row) and
$4\,N S^2 D$ for the two attention products, per batch entry. The
{{card_sms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} multiprocessors of the {{gpu|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}
each retire {{card_fp32_lanes|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} FP32 fused multiply-adds per
clock; at {{card_clock_ghz|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} GHz that is
{{card_fp32_tflops|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} TFLOP/s, and dividing gives the time no FP32
kernel can beat:

| shape | projections | attention | total | FP32 floor |
|---|---|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{count_giga|10*B*S*N*D*D|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} GFLOP | {{count_giga|4*B*N*S*S*D|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} GFLOP | {{work_gflop|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} GFLOP | {{floor_fp32_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{count_giga|10*B*S*N*D*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP | {{count_giga|4*B*N*S*S*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP | {{work_gflop|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP | {{floor_fp32_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{count_giga|10*B*S*N*D*D|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} GFLOP | {{count_giga|4*B*N*S*S*D|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} GFLOP | {{work_gflop|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} GFLOP | {{floor_fp32_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms |

The bytes are no obstacle by comparison: the input and the output of the
second case are 134 MB each, {{floor_memory_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms at the
{{card_memory_tbs|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} TB/s of the {{gpu|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}. So this is an
arithmetic problem, and the two kinds of arithmetic are not alike. The
projections are one big matrix product: every one of the $R = B S N$ rows
is multiplied by the same $D \times 5D$ weights. Attention is a small
product per column and head, $S \times d$ by $d \times S$, that couples all
the rows of a column. In the first two shapes the projections dominate; in
the extra-MSA shape, with $d = 8$, attention is 86% of the work.

So the layer splits along that line. cuBLAS computes the four projections
of every row first, into a matrix $P$ in device memory that holds each
row's $Q$, $G$, $K$ and $V$, and a last matrix product applies $W_o$.
Between them runs this chapter's kernel, the attention of each column and
head, which walks the column's keys in tiles. A masked key has weight zero,
so the kernel walks only the kept ones. How the launches around the kernel
prepare its input comes after it, in
[Seven launches around the kernel](#seven-launches-around-the-kernel).
## Streaming the keys

A block serves one column $(b, n)$, one head $h$ and a tile of query rows.
The launches before it have put each column's sequences in an *order*, the
kept keys first, and the rows of $P$ in the same order, so the column's
kept keys are the first `length` positions of its order, in consecutive
rows of $P$. A tile's query rows are positions of that order too, kept and
masked sequences alike (every row needs its output). The block walks the
keys in *stages* of 64. For each stage it copies the 64 rows of $K_h$ and
of $V_h$ (each $d$ floats long) into shared memory with `cp.async`, 16
bytes per copy, and each key's bias beside them, 4 bytes per copy (0 for a
kept key, $-\infty$ for a masked one, which only the variant fed every key
walks); for a position past the end of the keys, the thread writes
$-\infty$ itself.

Two stages of shared memory alternate: while the block computes with one,
the copies of the next are in flight. A single barrier per stage separates
"the copies of stage $t$ have arrived" from "stage $t - 1$'s buffer may be
refilled". The copies of stage 0 are the first thing a block does, before
it loads its queries, so that the two wait together. This walk is the same
for chapter 13's kernel on the tensor cores, so it lives in
`chapters/07-tiled/tiles.cuh`: `fetch_stage` starts a stage's copies, `tiled_stages`
holds the two buffers and the move to the next stage, and `block_column`
says which column, head and query tile a block serves. Each kernel only
waits, computes and moves on.

## The FP32 kernel: lanes that own query rows

How should the threads share a tile of scores? The classical answer, from
the matrix products of the first chapters, gives each thread a small square
of the tile. For attention it has a cost: the softmax works along rows, so
the threads that share a row must combine their maxima and their sums at
every block of keys, and the probabilities must be rearranged through
shared memory before the product with $V$.

We go the other way. A lane owns `ROWS` whole query rows: their queries,
their accumulators $a$, their $m$ and $\ell$, all in registers. All 32
lanes of a warp walk the same keys at the same time, so when they read a
key's row from shared memory they read the *same* address, and the softmax
of a row never leaves its lane. The warps of a block take different rows
and the same keys, so a stage of keys copied once serves every query of
the block.

What limits such a kernel is not the arithmetic but the path from shared
memory to the registers. Every fused multiply-add of the score needs one
feature of a key, and every one of the weighted sum one feature of a value.
A 16-byte load delivers four features to each of the 32 lanes: 512 bytes
into the register file, even when all lanes read the same address, and a
multiprocessor delivers 128 bytes a clock from shared memory to its
registers. In those four clocks its four schedulers can issue 16 warp-wide
FMAs. So a lane must use each loaded feature for at least four FMAs, which
means four rows per lane, or the loads and not the FMAs set the pace. (With
whole rows per lane, two of them for $d = 32$, the loads would take twice
as long as the FMAs; the roads not taken measure it as
`fused-tiled+unsplit`.)

Four rows with all their $d$ features would be $8d$ registers of queries
and accumulators: 256 for $d = 32$, the whole register file of a lane. So
for the larger heads a row is *split*: `SPLIT` neighbouring lanes share
`ROWS` rows, each holding $d /$ `SPLIT` of their features. Each lane
computes its part of every score; one or two shuffles add the parts up,
after which every lane of the group has the whole score and does the
softmax for its rows redundantly (cheaper than sending weights around); for
the weighted sum each lane again needs only its own features of $V$.

| $d$ | `SPLIT` | `ROWS` | registers for $q$ and $a$ | FMAs per 16-byte load | rows per warp |
|---|---|---|---|---|---|
| 8 | 1 | 4 | 64 | 16 | 128 |
| 16 | 1 | 4 | 128 | 16 | 128 |
| 32 | 2 | 4 | 128 | 16 | 64 |
| 64 | 4 | 4 | 128 | 16 | 32 |

For $d = 8$ a lane could hold eight whole rows in the same registers, with
32 FMAs per load; but past 16 FMAs per load, more rows per lane buy nothing
and cost warps per multiprocessor.

Short columns change that count. Four rows a lane at $d = 32$ need 255
registers, so a multiprocessor holds 8 warps, and a warp takes 64 rows, so
at $S = 128$ a block has only two warps. Each block waits twice, before
and after its arithmetic (for its first keys and queries, for the gate
logits), and 8 warps cannot cover those waits for one another. Below
$S = 256$ (`TILED_SHORT_COLUMN`) the kernel therefore gives a lane two rows
at $d = 32$ and asks the compiler, through the `MIN_BLOCKS` argument of
`__launch_bounds__`, to fit in 128 registers: four blocks of four warps,
16 warps per multiprocessor, at the price of half the FMAs per load. (To
fit, the compiler spills a few bytes to the stack, `make ptxas` shows how
many; the two ways to avoid that, 4 keys per step or no register limit,
were both slower.) From $S = 256$ on there are enough rows to fill the
multiprocessor, and four rows a lane win again; the roads not taken race
four rows at every depth, `fused-tiled+four-rows`.

A block has as many warps, up to four, as $S$ can fill. Keys are taken
`STEP` = 8 at a time: one *step* computes the scores of its keys for the
lane's rows, their weights, and adds them in. The weights of a step are
checked together against the $2^8$ limit, with one vote across the warp,
because a branch only pays when all 32 lanes go the same way. The weights
get registers of their own, so the rare step whose weights are too large
still has its scores to move the reference from. (Writing the weights over
the scores, to save registers, saves none: the compiler keeps a copy of
the scores for the rare step anyway, and pays a move for each one, every
step.)
`LAZY` chooses the lazy rescale (false: the reference moves at every step).
*/

template <int HD, int ROWS, int SPLIT, int STEP>
__device__ __forceinline__ void fp32_scores(float (&s)[ROWS][STEP],
                                            const float (&q)[ROWS][HD / SPLIT],
                                            const float (&m)[ROWS], const float *keys,
                                            const float *bias, bool all_kept, int part)
{
    constexpr int F = HD / SPLIT; /* this lane's features of each row */
#pragma unroll
    for (int r = 0; r < ROWS; r++)
#pragma unroll
        for (int j = 0; j < STEP; j++)
            s[r][j] = SPLIT == 1 ? -m[r] : 0.0f; /* alone, the lane starts at -m */
    /* Every lane of the warp reads the same key feature: one broadcast load. */
#pragma unroll
    for (int c = 0; c < F; c += 4) {
#pragma unroll
        for (int j = 0; j < STEP; j++) {
            const float4 k = *reinterpret_cast<const float4 *>(keys + j * HD + part * F + c);
#pragma unroll
            for (int r = 0; r < ROWS; r++) {
                s[r][j] = fmaf(q[r][c], k.x, s[r][j]);
                s[r][j] = fmaf(q[r][c + 1], k.y, s[r][j]);
                s[r][j] = fmaf(q[r][c + 2], k.z, s[r][j]);
                s[r][j] = fmaf(q[r][c + 3], k.w, s[r][j]);
            }
        }
    }
    if (SPLIT > 1) { /* add up the parts of the group's lanes, then subtract m */
#pragma unroll
        for (int r = 0; r < ROWS; r++)
#pragma unroll
            for (int j = 0; j < STEP; j++) {
                s[r][j] += __shfl_xor_sync(0xffffffffu, s[r][j], 1);
                if (SPLIT > 2)
                    s[r][j] += __shfl_xor_sync(0xffffffffu, s[r][j], 2);
                s[r][j] -= m[r];
            }
    }
    if (!all_kept) {
#pragma unroll
        for (int j = 0; j < STEP; j++) {
            const float b = bias[j];
#pragma unroll
            for (int r = 0; r < ROWS; r++)
                s[r][j] += b;
        }
    }
}

/*md
`fp32_scores` above gives a lane the scores of its rows for a step's keys,
already less $m$; `fp32_step` turns them into weights, against the
reference as it stands unless the vote says it must move.
*/

template <int HD, int ROWS, int SPLIT, int STEP, bool LAZY>
__device__ __forceinline__ void fp32_step(const float (&q)[ROWS][HD / SPLIT],
                                          float (&acc)[ROWS][HD / SPLIT], float (&m)[ROWS],
                                          float (&l)[ROWS], bool &first, const float *keys,
                                          const float *values, const float *bias, bool all_kept,
                                          int part)
{
    constexpr int F = HD / SPLIT;
    float s[ROWS][STEP], w[ROWS][STEP], added[ROWS];
    fp32_scores<HD, ROWS, SPLIT, STEP>(s, q, m, keys, bias, all_kept, part);

    bool move = !LAZY || first;
    if (!move) { /* the usual case: weights against the current reference */
        bool too_large = false;
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
            added[r] = 0.0f;
#pragma unroll
            for (int j = 0; j < STEP; j++) {
                w[r][j] = exp2_fast(s[r][j]);
                added[r] += w[r][j];
            }
            too_large |= !(added[r] <= TILED_RENORM_LIMIT); /* also catches inf and NaN */
        }
        move = __any_sync(0xffffffffu, too_large);
    }
    if (move) { /* rare: the reference moves up to the step's maximum (warp-uniform branch) */
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
            float top = s[r][0];
#pragma unroll
            for (int j = 1; j < STEP; j++)
                top = fmaxf(top, s[r][j]);
            const float shift = first ? top : fmaxf(top, 0.0f);
            const float factor = first ? 0.0f : exp2_fast(-shift);
            m[r] += shift;
            l[r] *= factor;
#pragma unroll
            for (int c = 0; c < F; c++)
                acc[r][c] *= factor;
            added[r] = 0.0f;
#pragma unroll
            for (int j = 0; j < STEP; j++) {
                w[r][j] = exp2_fast(s[r][j] - shift);
                added[r] += w[r][j];
            }
        }
        first = false;
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        l[r] += added[r];

    /*md
Then the weighted sum, which adds the step's values into $a$:
    */
    /* The weighted values: again one broadcast load feeds ROWS x 4 FMAs. */
#pragma unroll
    for (int j = 0; j < STEP; j++) {
#pragma unroll
        for (int c = 0; c < F; c += 4) {
            const float4 v = *reinterpret_cast<const float4 *>(values + j * HD + part * F + c);
#pragma unroll
            for (int r = 0; r < ROWS; r++) {
                acc[r][c] = fmaf(w[r][j], v.x, acc[r][c]);
                acc[r][c + 1] = fmaf(w[r][j], v.y, acc[r][c + 1]);
                acc[r][c + 2] = fmaf(w[r][j], v.z, acc[r][c + 2]);
                acc[r][c + 3] = fmaf(w[r][j], v.w, acc[r][c + 3]);
            }
        }
    }
}

/*md
The kernel: a block finds its column and its rows, starts the copy of its
first stage, and loads and scales its lanes' queries while it lands.
*/

/* MIN_BLOCKS: blocks that must fit on a multiprocessor at once (it caps the
 * registers). 0 leaves them free: it compiles like the one-argument
 * __launch_bounds__, where 1 does not (with 1, d = 8 took 13 more registers
 * and ran slower). */
template <int HD, int ROWS, int SPLIT, int STEP, bool LAZY, int MIN_BLOCKS = 0,
          int KEYS = TILED_STAGE_KEYS>
__global__ void __launch_bounds__(TILED_MAX_WARPS * 32, MIN_BLOCKS)
    tiled_attention_fp32(const tiled_params p)
{
    constexpr int F = HD / SPLIT, GROUPS = 32 / SPLIT;
    extern __shared__ float4 tiled_shared_fp32[];
    const tiled_stages<HD, HD, HD, KEYS> ring(reinterpret_cast<float *>(tiled_shared_fp32));

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int part = lane % SPLIT, group = lane / SPLIT;
    const int rows_per_block = (blockDim.x / 32) * GROUPS * ROWS;
    int first_row;
    const tiled_column c = block_column(p, rows_per_block, &first_row);
    const size_t width = 4 * (size_t)p.D;
    const int stages = (c.length + KEYS - 1) / KEYS;
    ring.fetch_next(p, c, -1, stages); /* stage 0's keys, the first thing the block waits for */

    float q[ROWS][F], acc[ROWS][F], m[ROWS], l[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        const int row = min(first_row + warp * GROUPS * ROWS + r * GROUPS + group, p.S - 1);
        const float *query = p.proj + (size_t)column_row(c, row) * width + c.h * HD + part * F;
        prefetch_l2(query + p.D); /* the gate logits, needed at the end */
#pragma unroll
        for (int i = 0; i < F; i += 4) {
            const float4 v = *reinterpret_cast<const float4 *>(query + i);
            q[r][i] = v.x * p.q_scale;
            q[r][i + 1] = v.y * p.q_scale;
            q[r][i + 2] = v.z * p.q_scale;
            q[r][i + 3] = v.w * p.q_scale;
        }
#pragma unroll
        for (int i = 0; i < F; i++)
            acc[r][i] = 0.0f;
        m[r] = 0.0f;
        l[r] = 0.0f;
    }
    bool first = true;

    /*md
The walk: wait for a stage, start the copy of the next one into the other
buffer, and take the stage's keys `STEP` at a time, skipping a step whose
keys are all masked (one vote of the warp).
    */
    for (int stage = 0; stage < stages; stage++) {
        copy_async_wait<0>();
        __syncthreads(); /* stage's rows are in; the other buffer is free */
        ring.fetch_next(p, c, stage, stages);

        const float *stage_keys = ring.keys_of(stage);
        const float *stage_values = ring.values_of(stage);
        const float *stage_bias = ring.bias_of(stage);
        for (int j = 0; j < KEYS; j += STEP) {
            if (stage * KEYS + j >= c.length)
                break;
            const unsigned kept =
                __ballot_sync(0xffffffffu, stage_bias[j + lane % STEP] == 0.0f);
            if (kept == 0)
                continue; /* nothing to add, and nothing to set m from */
            fp32_step<HD, ROWS, SPLIT, STEP, LAZY>(q, acc, m, l, first, stage_keys + j * HD,
                                                   stage_values + j * HD, stage_bias + j,
                                                   kept == 0xffffffffu, part);
        }
    }

    /*md
When all the keys of the column have been seen, each lane finishes its rows
on its own: $O = a / \ell$ (or 0 when $\ell = 0$), times the gate
$\sigma(G + b_g)$, whose logits the projections left in $P$, written into
the lane's features of $O$, in the row of the sequence that the row's
position in the order names (the row of `out` it will become). The gate's
logits are needed only then, so the block asks for them to be brought into
L2 (`prefetch_l2`, the instruction `prefetch.global.L2`) when it starts,
and reads them at the end without waiting for device memory. Even L2 is
several hundred clocks away, and with two warps per scheduler nothing hides
that wait, so each lane asks for all the logits of all its rows (and the
order's entries for them) before it uses the first: one wait instead of
one per row. The blocks of head 0 also write the row's constant features,
a 1 and seven zeros, that carry $b_o$ through the last GEMM (the next
section says how).
    */
    /* Every gate logit the lane needs is requested before the first is used,
     * so the lane waits for L2 once, not once per row; the same for the
     * sequence each row stands for, which says where its O goes. */
    const int feature = c.h * HD + part * F;
    float4 gate[ROWS][F / 4], gate_bias[F / 4];
    int sequence[ROWS];
#pragma unroll
    for (int i = 0; i < F; i += 4)
        gate_bias[i / 4] = *reinterpret_cast<const float4 *>(p.bg + feature + i);
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        const int row = min(first_row + warp * GROUPS * ROWS + r * GROUPS + group, p.S - 1);
        sequence[r] = c.order[row];
        const float *logits = p.proj + (size_t)column_row(c, row) * width + p.D + feature;
#pragma unroll
        for (int i = 0; i < F; i += 4)
            gate[r][i / 4] = *reinterpret_cast<const float4 *>(logits + i);
    }

    const int stride = p.D + TILED_EXTRA;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        const int row = first_row + warp * GROUPS * ROWS + r * GROUPS + group;
        if (row >= p.S)
            continue;
        const size_t out_row = tiled_row(p, c.b, sequence[r], c.n);
        const float inverse = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
        float *o = p.xn + out_row * stride + feature;
#pragma unroll
        for (int i = 0; i < F; i += 4) {
            const float4 g = gate[r][i / 4], bg = gate_bias[i / 4];
            float4 y;
            y.x = acc[r][i] * inverse * sigmoid(g.x + bg.x);
            y.y = acc[r][i + 1] * inverse * sigmoid(g.y + bg.y);
            y.z = acc[r][i + 2] * inverse * sigmoid(g.z + bg.z);
            y.w = acc[r][i + 3] * inverse * sigmoid(g.w + bg.w);
            *reinterpret_cast<float4 *>(o + i) = y;
        }
        if (c.h == 0 && part == 0) {
            *reinterpret_cast<float4 *>(p.xn + out_row * stride + p.D) =
                make_float4(1.0f, 0.0f, 0.0f, 0.0f);
            *reinterpret_cast<float4 *>(p.xn + out_row * stride + p.D + 4) =
                make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    }
}

/*md
## Seven launches around the kernel

Why are the projections not in the kernel, as in chapter 6? A block has a
tile of queries, but they attend to every key of the column, so it needs
$K$ and $V$ for all $S$ rows. Either every query tile computes them again,
which multiplies that work by $S/64$ (at $S = 512$, {{count_giga|(4*S/64+6)*B*S*N*D*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP of
projections instead of {{count_giga|10*B*S*N*D*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}), or one block keeps them, $2 S d$ floats: the
size wall again. As GEMMs of their own they have the shape cuBLAS is tuned
for. The price is the traffic of $P$, up to $4 R D$ floats
({{count_giga|16*B*S*N*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} GB at $S = 512$) written and
read once: {{part_ms|memory|32*B*S*N*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms at the
{{card_memory_tbs|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} TB/s of the {{gpu|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}},
against the {{floor_fp32_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms of the layer's FP32 floor. The figure shows the whole layer.

{{figure|tiled-launches}}

Launches 1 to 3 serve one saving. No query reads a masked key's $K$ and
$V$, so a masked row needs only $Q$ and $G$; and since a GEMM works on
consecutive rows, the kept rows must come first:

1. `tiled_order_keys` writes each column's order, its kept sequences
   first, a bias beside each position (0 for a kept key, $-\infty$ for a
   masked one) and the column's count of kept keys;
2. `tiled_count_keys` adds up the counts (a prefix sum, with cub's
   `BlockScan`): where each column's kept keys start in one list of all
   the kept rows, the other rows after them;
3. `tiled_prepare` normalises every row into its place in that list (a
   warp per row, as in chapter 6) and stacks the weights, $W_q$ and $W_g$
   first.

Then one GEMM projects the kept rows onto all $4D$ features and a second
one the other rows onto $Q$ and $G$. But cuBLAS takes the number of rows
on the host, and launch 2 counts them on the GPU. So launch 2 also writes
the total into page-locked host memory, mapped into the GPU's address
space, and the host waits for it (an event recorded behind launch 2) while
the GPU runs launch 3. Where the wait would not pay (the $K$ and $V$
projections under a GFLOP) or cannot happen (while a CUDA graph is
captured), every row gets all four projections: correct, only slower.

The output bias rides inside the last product: $O$ gets one more feature,
always 1 (then seven zeros, so that a row fills whole 32-byte sectors), and
$W_o$ one more input feature, $b_o$, so that
$[O\ 1]\,[W_o\ b_o]^T = O W_o^T + b_o$. And $O$ is written over $\hat X$,
which launches 4 and 5 have consumed: the scratch is $R\,(5D + 11)$ floats
and the weights, against the unfused layer's $10 R D + B N H S^2$. The
rates still count every key, so with masked keys the time can beat the
floor; `fused-tiled+dense`, in the roads not taken, is fed every key to
keep that honest. Launches 1 to 3 and the host's part are in
`chapters/07-tiled/layer.cu`.

## Launching it

The launcher hands `tiled_layer` (in `chapters/07-tiled/layer.cuh`) its two
choices: the projections are `cublasGemmEx` calls like the unfused layer's, in
strict FP32 (`CUBLAS_COMPUTE_32F`), and the attention is
`tiled_attention_fp32` with the rows per lane and lanes per row of the
table above for the head size. A size is refused when $D$ is over 256 (the
LayerNorm keeps at most eight floats a lane) or when the head size is not
one of the instantiated $d = 8, 16, 32, 64$. Every other $B$, $S$, $N$ and
$H$ runs.
*/

// book:hide
#define TILED_SHORT_COLUMN 256 /* below this depth, d = 32 takes two rows a lane */

/* Two stages of 64 keys where the card holds them; at d = 64 they take
 * 66 KB, more than a T4's 64 KB a block, and stages of 32 keys go there. */
template <int HD, int ROWS, int SPLIT, int STEP, bool LAZY, int MIN_BLOCKS = 0>
static void launch_fp32(const tiled_params &p, int B, cudaStream_t stream)
{
    typedef tiled_stages<HD, HD, HD> Stages;
    typedef tiled_stages<HD, HD, HD, TILED_STAGE_KEYS / 2> HalfStages;
    if constexpr (Stages::BYTES > GPU_SMALLEST_SHARED_PER_BLOCK) {
        if (Stages::BYTES > gpu_query().shared_per_block_optin) {
            launch_attention(tiled_attention_fp32<HD, ROWS, SPLIT, STEP, LAZY, MIN_BLOCKS,
                                                  HalfStages::KEYS>,
                             HalfStages::BYTES, p, B, 32 / SPLIT * ROWS, stream);
            return;
        }
    }
    launch_attention(tiled_attention_fp32<HD, ROWS, SPLIT, STEP, LAZY, MIN_BLOCKS>, Stages::BYTES,
                     p, B, 32 / SPLIT * ROWS, stream);
}

/* Launch 6 (a tiled_attend_fn): rows per lane and lanes per row for each head
 * size, as in the table; below S = 256, two rows a lane at d = 32. */
template <bool LAZY>
static void launch_fp32_for(int d, const tiled_params &p, int B, cudaStream_t stream)
{
    switch (d) {
    case 8: launch_fp32<8, 4, 1, 8, LAZY>(p, B, stream); break;
    case 16: launch_fp32<16, 4, 1, 8, LAZY>(p, B, stream); break;
    case 32:
        if (p.S < TILED_SHORT_COLUMN)
            launch_fp32<32, 2, 2, 8, LAZY, 4>(p, B, stream); /* 128 registers, 4 blocks an SM */
        else
            launch_fp32<32, 4, 2, 8, LAZY>(p, B, stream);
        break;
    default: launch_fp32<64, 4, 4, 8, LAZY>(p, B, stream); break;
    }
}

/* The projections (a tiled_gemm_fn): cuBLAS in strict FP32. */
static inline void fp32_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                             const float *w, int ldw, int out, int in, long rows)
{
    tiled_cublas_gemm(args, CUBLAS_COMPUTE_32F, y, ldy, x, ldx, w, ldw, out, in, rows);
}

static inline void tiled_launch(const msa_args *args)
{
    tiled_layer(args, true, fp32_gemm, launch_fp32_for<true>);
}

// book:show

/*md
## The race

Three shapes, each timed as every kernel is (chapter 1: the L2 flushed,
the median of the repetitions), with every input and output of the layer
in device memory, after the checks on the same inputs; every key kept (`mask=kept`), as in most real
MSAs. The unfused layer ran in the same program, and PyTorch
(`bench/torch_race.py`) on the same inputs, compiled with
`torch.compile`, in FP32 with TF32 off and with TF32 allowed:

| shape | FP32 floor | unfused | `torch.compile` | `torch.compile`, TF32 | fused-tiled |
|---|---|---|---|---|---|
| S=128 N=256 D=256 | {{floor_fp32_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|unfused|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|torch-compile|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|torch-compile-tf32|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms |
| S=512 N=256 D=256 | {{floor_fp32_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|unfused|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|torch-compile|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|torch-compile-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms |
| S=1024 N=384 D=64 | {{floor_fp32_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|unfused|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|torch-compile|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|torch-compile-tf32|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms |

Against the race's baseline, the fastest of those champions at each
shape (chapter 6: `{{champion|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}}`,
`{{champion|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}` and
`{{champion|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}}` here), the layer is
{{speedup|fused-tiled|champion|B=1 S=128 N=256 D=256 H=8 mask=kept}},
{{speedup|fused-tiled|champion|B=1 S=512 N=256 D=256 H=8 mask=kept}} and
{{speedup|fused-tiled|champion|B=1 S=1024 N=384 D=64 H=8 mask=kept}}
times as fast, in FP32 where PyTorch may use the tensor cores. Against the
FP32 champions alone the table shows the gap growing with the depth,
because what they spend beyond the arithmetic is the $S^2$ scores going
through memory.

Every contender met so far at each size the layer was measured at, and
the race at the AlphaFold shape against the FP32 floor:

{{figure|msa-chapter7}}

{{figure|race-chapter7}}

Which floor binds? Split the count by the engine that does it. At the
FP32 peak of the {{gpu|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}, the projections alone
($10\,S N D^2$) take
{{part_ms|fp32|10*B*S*N*D*D|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}},
{{part_ms|fp32|10*B*S*N*D*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} and
{{part_ms|fp32|10*B*S*N*D*D|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms at the three
shapes, the two attention products ($4\,N S^2 D$)
{{part_ms|fp32|4*B*N*S*S*D|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}},
{{part_ms|fp32|4*B*N*S*S*D|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} and
{{part_ms|fp32|4*B*N*S*S*D|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms. The
exponentials run on another unit, the special-function unit, which
returns 16 results per clock per multiprocessor [@cuda-guide], on this card
{{card_sfu_tops|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} trillion a second: the
$B N H S^2$ of them,
{{count|B*N*H*S*S|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}},
{{count|B*N*H*S*S|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} and
{{count|B*N*H*S*S|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}}, need at least
{{part_ms|sfu|B*N*H*S*S|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}},
{{part_ms|sfu|B*N*H*S*S|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} and
{{part_ms|sfu|B*N*H*S*S|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms. So the first two
shapes are bound by the projections and the attention's multiply-adds
together, the extra-MSA shape by the attention's multiply-adds, with its
exponentials on their own unit, working beside them. The layer reaches
{{peak_pct|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}}%,
{{peak_pct|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}% and
{{peak_pct|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}}% of the FP32
peak on the dense work. Timing the launches one by one (with Nsight
Compute) shows where the rest goes: at $D = 256$ most of the time is
cuBLAS's FP32 GEMMs, and the attention kernel comes second; at $d = 8$ the
attention kernel is most of it, as the count predicted.

With the last tenth of every column padded (`mask=pad`), the kernel skips
the padded keys and the host projects $K$ and $V$ for the kept rows only:
{{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=pad}},
{{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=pad}} and
{{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=pad}} ms. Replayed as a CUDA
graph, where the host cannot wait for the count and every row gets all
four projections, the padded layer takes
{{median_ms|fused-tiled+graph|B=1 S=128 N=256 D=256 H=8 mask=pad}},
{{median_ms|fused-tiled+graph|B=1 S=512 N=256 D=256 H=8 mask=pad}} and
{{median_ms|fused-tiled+graph|B=1 S=1024 N=384 D=64 H=8 mask=pad}} ms.

Most of the time now goes to multiply-adds that the FP32 lanes cannot do
any faster. Chapter 8 brings in the tensor cores, and chapter 13 runs this
same layer on them: the same launches, the same walk over stages of keys,
with the two products of the attention as `mma.sync`.
*/
