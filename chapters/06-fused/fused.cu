// chapters/06-fused/fused.cu - Chapter 6: a whole MSA column attention layer in one kernel.
//
// Build, check and time it from the repository root:
//
//   make chapter6                          # B=2 S=8 N=32 D=64 H=4: checked, then timed
//   build/chapter6 S=64 D=128 H=8 --check-only
//   build/chapter6 --kernel fused --save /tmp/msa     # inputs and out.npy for NumPy
//   build/chapter6 --load /tmp/msa H=4                 # and back
//
// It races the unfused baseline of unfused.cu (cuBLAS in FP32) beside it.

/*md
# Fused MSA attention: one layer, one launch

The first five chapters raced cuBLAS on a single matrix product that it
computes twice over. This chapter changes the game. The contender is no
longer one product but a whole layer of a real network, and the opponent is
not one library call but the string of launches a framework makes to run
that layer, sixteen in our version of it. The layer comes from AlphaFold 2.

## The layer

AlphaFold 2 reads a protein through a *multiple sequence alignment* (MSA):
the sequence we want to fold, stacked with $S$ related sequences found in
databases, aligned so that column $n$ holds the residue that sits at
position $n$ in each of them. Its trunk, the Evoformer, keeps a feature
vector of size $D$ for every cell of that table, a tensor of shape
$(S, N, D)$ per protein, and refines it through a stack of blocks.

Two attention layers in each block work on this table. *Row* attention lets
the residues of one sequence look at each other. *Column* attention, our
layer, lets the $S$ sequences look at each other at one position: it asks,
for residue $n$, what the other members of the family put there, which
sequences agree and which differ. Row attention mixes positions within a
sequence, column attention mixes sequences within a position, and taking
turns the two let the model relate a change at one position to changes
elsewhere across the whole family: the signal of residues that evolve
together because they touch in the folded protein.

For each batch entry $b$ and each column $n$, with $X$ the $S \times D$
slice `msa[b, :, n, :]`, the layer computes

$$
\begin{aligned}
\hat X &= \mathrm{LayerNorm}(X) && \text{over the } D \text{ features, } \epsilon = 10^{-5}\\
Q &= \hat X W_q^T, \quad K = \hat X W_k^T, \quad V = \hat X W_v^T, \quad
G = \sigma(\hat X W_g^T + b_g)\\
A_h &= \mathrm{softmax}_{j \,\text{kept}}\!\left(Q_h K_h^T / \sqrt{d}\right), \quad O_h = A_h V_h
&& h = 1 \dots H,\ d = D / H\\
\mathit{out} &= \left(G \odot [O_1 \dots O_H]\right) W_o^T + b_o
\end{aligned}
$$

The mask says which cells are real: `mask[b][j][n] = 0` marks sequence $j$
as padding at column $n$ (a gap, or a batch entry with fewer sequences), and
such a key gets weight zero. Queries are never masked: a padded row still
gets an output, and it is up to later layers not to rely on it.

The shapes, for the small case we will race ($B = 2$, $S = 8$, $N = 32$,
$D = 64$, $H = 4$, so $d = 16$):

| tensor | shape | small case |
|---|---|---|
| `msa`, `out` | $(B, S, N, D)$ | $2 \times 8 \times 32 \times 64$ |
| `mask` | $(B, S, N)$ | $2 \times 8 \times 32$ |
| $W_q, W_k, W_v, W_g, W_o$ | $(D, D)$, stored `W[out][in]` | $64 \times 64$ each |
| `ln_gamma`, `ln_beta`, $b_g$, $b_o$ | $(D)$ | 64 each |
| per column: $Q$, $K$, $V$, $G$, $O$ | $S \times D$ | $8 \times 64$ |
| per column and head: scores $A_h$ | $S \times S$ | $8 \times 8$ |

Note where the work lives. Everything is computed independently for each of
the $B \cdot N$ columns, and inside a column everything is small: the
column's input is $S \cdot D$ floats, 2 KB here, and its weights are
$5 D^2$ floats, 80 KB, shared by every column.

## How a framework runs it

Written in PyTorch, the layer is a dozen lines, and each line becomes at
least one kernel launch: a LayerNorm, four linear layers, a sigmoid, three
permutes that bring each head's rows together, a batched product for the
scores, a softmax, a batched product with $V$, a permute back, the gating
product and the output linear with its bias. Our baseline in
`common/msa_unfused.cu` does exactly this with cuBLAS in strict FP32, sixteen
launches, each intermediate written to device memory by one launch and read
back by the next.

## Why the small case is a race against launch latency

Count what the small case needs. The five projections do
$2 \cdot 5 \cdot S N D^2$ operations per batch entry and the two attention
products $2 \cdot 2 \cdot N S^2 D$, in all

$$ B \left(10\, S N D^2 + 4\, N S^2 D\right) = 2\,(10\,485\,760 + 524\,288)
\approx 22 \text{ MFLOP}, $$

about a third of a microsecond at the H200's 67 TFLOP/s of FP32. The bytes
that must move are the input and the output, $2 \times 128$ KB, the weights,
80 KB, and the mask: about 0.35 MB, some 70 nanoseconds at 4.8 TB/s. Both
floors are far below the few microseconds it takes merely to start a kernel
and see it finish. A sixteen-launch layer pays that start-up sixteen times,
and every launch is a round trip through device memory for data that would
have fit in one multiprocessor's shared memory. CUDA graphs remove the CPU's
share of the launch cost but not the GPU's: the launches still run one after
another, each waiting for the last to drain. The only way to go much faster
is to launch once.

## The plan: a column per block, nothing in between

One thread block takes one column $(b, n)$ and carries it from input to
output. Every intermediate lives in the block's shared memory or in
registers; the only traffic to device memory is the column's input, the
weights, the mask and the column's output.

```
 device memory                    shared memory of one block
 -------------                    --------------------------
 msa[b, :, n, :]  --cp.async-->   xn      S x (D+4)   LayerNorm'd in place
 gamma beta bg bo --cp.async-->   vectors 4 x D
 Wq Wk Wv Wg Wo   --cp.async-->   w       5D x (D+4)  weight rows, resident
 mask[b, :, n]    --ld------->    kept    S           1 where the key is kept
                                  proj    S x (4D+4)  Q (then O) | K | V | G
                                  probs   8 x 64      softmax weights, per warp
 out[b, :, n, :]  <--st-------    registers: the output projection
```

The phases, with 256 threads (8 warps) per block:

1. **Copy.** Every thread starts its share of the asynchronous copies
   (`cp.async`, 16 bytes each, straight from device memory to shared memory
   without passing through registers): first the $S$ rows of $X$ and the
   four vectors, then the weight rows. They arrive while the block does the
   next steps.
2. **LayerNorm.** One warp per row of $X$; each lane holds $D/32$ values,
   and the mean and variance are sums across the warp (shuffles, below).
3. **Projections.** Each warp owns a tile of output features of the
   stacked $[W_q; W_k; W_v; W_g]$ and holds their weight rows in
   registers while its lanes walk down the rows of $\hat X$; how the tile
   is laid out is what decides the speed (below). The scale $1/\sqrt d$ is
   folded into $Q$, the bias and sigmoid into $G$.
4. **Attention.** A group of lanes per (head, query row): masked softmax
   in registers, then $A V$ with lanes across the head's features. The
   gate multiplies the result, which overwrites the query it came from.
5. **Output.** The same projection code with $W_o$, reading $O$, adding
   $b_o$ and storing straight to `out`: the only write to device memory.

Each phase reads what the previous one wrote, so they are separated by
`__syncthreads()`. Row strides are padded by four floats ($D + 4$), which
shifts each row by four banks: when the lanes of a warp read 16 bytes each
from different rows, as the projection does with its weight rows and the
attention with its keys, they then fall in different banks.

Why not one warp per column, or several columns per block? Because 64
columns are only half of the H200's 132 multiprocessors, and the block's
real cost is waiting: for the first bytes from device memory, for the 80
KB of weights to stream in, for each phase's barrier. More threads per
column shorten each phase; they do not add waiting. Later in the chapter
we go one step further and split a column between two blocks.
*/

#include <cooperative_groups.h>
#include <math.h>

#include "async_copy.h"
#include "msa.h"
#include "warp_reduce.h"

namespace cg = cooperative_groups;

#define FUSED_THREADS 256
#define FUSED_WARPS (FUSED_THREADS / 32)
#define FUSED_MAX_S 64        /* every key of a column: at most two per lane of a warp */
#define FUSED_TILE_ROWS 32    /* weight rows per tile when the weights are streamed */

/*md
## Copying without registers

`cp.async` asks the memory system to move 16 bytes into shared memory and
lets the thread go on at once. Copies are grouped with `commit_group`, and
`wait_group N` waits until at most the last $N$ groups are still in flight.
Each thread waits only for its own copies, so a barrier must follow before
other threads read what arrived.
*/

/* rows x D floats, contiguous in device memory, to shared rows `stride` apart. */
template <int D>
__device__ __forceinline__ void copy_rows_async(float *destination, int stride,
                                                const float *source, int rows)
{
#pragma unroll 1
    for (int chunk = threadIdx.x; chunk < rows * (D / 4); chunk += FUSED_THREADS) {
        int row = chunk / (D / 4), column = 4 * (chunk % (D / 4));
        copy_async_16(destination + row * stride + column, source + (size_t)row * D + column);
    }
}

/*md
## What the kernel receives

The kernel is a template over the feature size $D$ (so that the loops over
features unroll and a weight row fits in registers), over the number of
blocks per column, `CLUSTER` (1 for now), and over whether all the weight
rows fit in shared memory at once (`RESIDENT`). Everything else is a
run-time argument. `fused_layout` computes where each array sits in the
block's shared memory; the launcher asks the same struct for the size.
*/

typedef struct {
    const float *msa, *mask, *ln_gamma, *ln_beta;
    const float *wq, *wk, *wv, *wg, *bg, *wo, *bo;
    float *out;
    int S, N, H;
    float scale; /* 1 / sqrt(d), computed on the host */
} fused_params;

template <int D, int CLUSTER, bool RESIDENT>
struct fused_layout {
    static constexpr int OWN = D / CLUSTER;                    /* features per matrix per block */
    static constexpr int X_STRIDE = D + 4;                     /* xn, and O when gathered */
    static constexpr int W_STRIDE = D + 4;                     /* one weight row */
    static constexpr int P_STRIDE = (RESIDENT ? 4 : 3) * OWN + 4;  /* Q|K|V(|G) per row */
    static constexpr int W_ROWS = RESIDENT ? 5 * OWN : 2 * FUSED_TILE_ROWS;

    /* Offsets in floats; every one a multiple of 4, so float4 accesses align. */
    __host__ __device__ static size_t weights() { return 0; }
    __host__ __device__ static size_t xn() { return (size_t)W_ROWS * W_STRIDE; }
    __host__ __device__ static size_t proj(int S) { return xn() + (size_t)S * X_STRIDE; }
    /* O of all heads, gathered from both blocks of a cluster (CLUSTER > 1 only) */
    __host__ __device__ static size_t gathered(int S) { return proj(S) + (size_t)S * P_STRIDE; }
    /* gamma, beta, bg and bo, D floats each */
    __host__ __device__ static size_t vectors(int S)
    {
        return gathered(S) + (CLUSTER > 1 ? (size_t)S * X_STRIDE : 0);
    }
    __host__ __device__ static size_t kept(int S) { return vectors(S) + 4 * D; }
    __host__ __device__ static size_t probs(int S) { return kept(S) + FUSED_MAX_S; }
    __host__ __device__ static size_t bytes(int S)
    {
        return (probs(S) + (size_t)FUSED_WARPS * FUSED_MAX_S) * sizeof(float);
    }
};

/*md
## Sums across a warp

The 32 lanes of a warp can read each other's registers with
`__shfl_xor_sync`: lane $i$ receives the value of lane $i \oplus m$. Adding
what comes back for $m = 16, 8, 4, 2, 1$ is a butterfly: after five steps
every lane holds the sum of all 32, with no shared memory and no barrier.
Stopping the masks below 8 gives the sums of four separate groups of 8
lanes instead, since $i \oplus m$ never leaves $i$'s group; the softmax
will use that, with `fmaxf` for the maximum. LayerNorm uses the full sum.
*/

/*md
## Phase 2: LayerNorm

One warp per row. Lane $l$ holds features $l, l + 32, \dots$; the mean and
the biased variance are warp sums, and the variance is taken around the
mean in a second pass, which is as cheap as the one-pass formula here (the
values are in registers) and does not lose digits when the mean is large.
$\gamma$ and $\beta$ came into shared memory with $X$, in the same copy
group.
*/

template <int D>
__device__ void layer_norm_rows(float *xn, int stride, int S, const float *gamma,
                                const float *beta)
{
    const int lane = threadIdx.x % 32;
#pragma unroll 1
    for (int s = threadIdx.x / 32; s < S; s += FUSED_WARPS) {
        float value[D / 32];
        float sum = 0.0f;
#pragma unroll
        for (int i = 0; i < D / 32; i++) {
            value[i] = xn[s * stride + lane + 32 * i];
            sum += value[i];
        }
        const float mean = warp_sum(sum) / D;
        float squares = 0.0f;
#pragma unroll
        for (int i = 0; i < D / 32; i++)
            squares += (value[i] - mean) * (value[i] - mean);
        const float inverse_std = 1.0f / sqrtf(warp_sum(squares) / D + (float)MSA_LAYERNORM_EPS);
#pragma unroll
        for (int i = 0; i < D / 32; i++)
            xn[s * stride + lane + 32 * i] =
                (value[i] - mean) * inverse_std * gamma[lane + 32 * i] + beta[lane + 32 * i];
    }
}

/*md
## Phase 3: the projections

`project` computes $y_{s,f} = \sum_k \mathit{in}_{s,k}\, w_{f,k}$ for the
`features` weight rows at `w` and every row $s$ of `in`, and hands each
$y$ to `finish`, which knows what the feature is for. The rows of the
block's own weight stream are numbered: first $W_q$'s, then $W_k$'s,
$W_v$'s, $W_g$'s and $W_o$'s, `OWN` rows each; `first_row` is the number
of the first row at `w`, so that `finish` can tell a query feature from a
gate feature.

What limits this loop is not arithmetic but shared memory. Shared memory
delivers 128 bytes per clock to the whole multiprocessor, while its four
schedulers can issue four warp-wide fused multiply-adds per clock. So each
`float4` that a warp reads from shared memory must feed many FMAs. The
obvious mapping, one output feature per lane with its weight row held in
registers and all 32 lanes walking down the same rows of $\hat X$, reads
$\hat X$ as a broadcast: 16 bytes of new data for a whole read, four FMAs
per lane in return. Too few.

So a warp is laid out in two dimensions. Its 32 lanes form `feature_lanes`
$\times$ `row_lanes`; each lane holds the weight rows of `FEATURES` (1 or
2) features in registers and computes them for the rows $r, r +
\text{row\_lanes}, \dots$ of its row lane. One read of $\hat X$ now brings
`row_lanes` different rows (one 16-byte piece per row lane, up to 128
bytes), and each piece feeds `FEATURES` $\times$ 4 FMAs. With 256 features
(the stacked $Q K V G$ of one block) the lanes are $16 \times 2$ with two
features each; with 32 features (a block's half of $W_o$) they are
$4 \times 8$ with one. In every case the eight warps get one "warp tile"
each, and the padding of the rows keeps every read free of bank conflicts:
neighbouring lanes read neighbouring rows, four banks apart.

A weight row lives in registers as long as it is used: up to
$2 \times 64$ floats. For $D = 128$ it is loaded in halves, once per pair
of rows. Two rows are computed at once, with two partial sums each, so
that several independent chains of FMAs keep the pipeline full.
*/

enum { MATRIX_Q, MATRIX_K, MATRIX_V, MATRIX_G, MATRIX_O };

template <int D, int CLUSTER, bool RESIDENT>
__device__ __forceinline__ void finish(const fused_params &p, float *proj, int b, int n, int rank,
                                       int row, int s, float y, float bias)
{
    typedef fused_layout<D, CLUSTER, RESIDENT> L;
    const int matrix = row / L::OWN, feature = row % L::OWN;
    float *proj_row = proj + s * L::P_STRIDE;
    switch (matrix) {
    case MATRIX_Q: proj_row[feature] = y * p.scale; break;
    case MATRIX_K: proj_row[L::OWN + feature] = y; break;
    case MATRIX_V: proj_row[2 * L::OWN + feature] = y; break;
    case MATRIX_G: {
        const float gate = 1.0f / (1.0f + expf(-(y + bias)));
        if (RESIDENT)
            proj_row[3 * L::OWN + feature] = gate;    /* kept for the attention phase */
        else
            proj_row[feature] *= gate;                /* O is already there: gate it now */
        break;
    }
    default:
        p.out[(((size_t)b * p.S + s) * p.N + n) * D + rank * L::OWN + feature] = y + bias;
    }
}

template <int D, int CLUSTER, bool RESIDENT, int FEATURES, int ROW_LANES>
__device__ void project_lanes(const fused_params &p, float *proj, const float *vectors, int b,
                              int n, int rank, const float *in, int in_stride, const float *w,
                              int first_row)
{
    typedef fused_layout<D, CLUSTER, RESIDENT> L;
    constexpr int CHUNK = D < 64 ? D : 64;            /* weight floats per feature in registers */
    constexpr int CHUNKS = D / CHUNK;
    constexpr int row_lanes = ROW_LANES, feature_lanes = 32 / ROW_LANES;
    constexpr int per_warp = feature_lanes * FEATURES;
    const int S = p.S, lane = threadIdx.x % 32;
    const int feature_lane = lane % feature_lanes, row_lane = lane / feature_lanes;

    {
        const int tile = threadIdx.x / 32; /* the tiles of the eight warps cover every feature */
        int row[FEATURES];
        float bias[FEATURES];
        const float4 *w_row[FEATURES];
        float4 weight[FEATURES][CHUNK / 4];
#pragma unroll
        for (int k = 0; k < FEATURES; k++) {
            const int f = tile * per_warp + k * feature_lanes + feature_lane;
            row[k] = first_row + f;
            const int matrix = row[k] / L::OWN;
            const int global_feature = rank * L::OWN + row[k] % L::OWN;
            bias[k] = matrix == MATRIX_G   ? vectors[2 * D + global_feature]  /* bg */
                      : matrix == MATRIX_O ? vectors[3 * D + global_feature]  /* bo */
                                           : 0.0f;
            w_row[k] = reinterpret_cast<const float4 *>(w + f * L::W_STRIDE);
            if (CHUNKS == 1) {
#pragma unroll
                for (int i = 0; i < CHUNK / 4; i++)
                    weight[k][i] = w_row[k][i];
            }
        }
#pragma unroll 1
        for (int s = row_lane; s < S; s += 2 * row_lanes) {
            const bool second = s + row_lanes < S;
            const float4 *x0 = reinterpret_cast<const float4 *>(in + s * in_stride);
            const float4 *x1 =
                reinterpret_cast<const float4 *>(in + (second ? s + row_lanes : s) * in_stride);
            float sum[FEATURES][2][2];
#pragma unroll
            for (int k = 0; k < FEATURES; k++)
                sum[k][0][0] = sum[k][0][1] = sum[k][1][0] = sum[k][1][1] = 0.0f;
#pragma unroll
            for (int chunk = 0; chunk < CHUNKS; chunk++) {
                if (CHUNKS > 1) {
#pragma unroll
                    for (int k = 0; k < FEATURES; k++)
#pragma unroll
                        for (int i = 0; i < CHUNK / 4; i++)
                            weight[k][i] = w_row[k][chunk * (CHUNK / 4) + i];
                }
#pragma unroll
                for (int i = 0; i < CHUNK / 4; i++) {
                    const float4 u = x0[chunk * (CHUNK / 4) + i];
                    const float4 v = x1[chunk * (CHUNK / 4) + i];
#pragma unroll
                    for (int k = 0; k < FEATURES; k++) {
                        const float4 c = weight[k][i];
                        sum[k][0][0] = fmaf(u.x, c.x, sum[k][0][0]);
                        sum[k][0][1] = fmaf(u.y, c.y, sum[k][0][1]);
                        sum[k][1][0] = fmaf(v.x, c.x, sum[k][1][0]);
                        sum[k][1][1] = fmaf(v.y, c.y, sum[k][1][1]);
                        sum[k][0][0] = fmaf(u.z, c.z, sum[k][0][0]);
                        sum[k][0][1] = fmaf(u.w, c.w, sum[k][0][1]);
                        sum[k][1][0] = fmaf(v.z, c.z, sum[k][1][0]);
                        sum[k][1][1] = fmaf(v.w, c.w, sum[k][1][1]);
                    }
                }
            }
#pragma unroll
            for (int k = 0; k < FEATURES; k++) {
                finish<D, CLUSTER, RESIDENT>(p, proj, b, n, rank, row[k], s,
                                             sum[k][0][0] + sum[k][0][1], bias[k]);
                if (second)
                    finish<D, CLUSTER, RESIDENT>(p, proj, b, n, rank, row[k], s + row_lanes,
                                                 sum[k][1][0] + sum[k][1][1], bias[k]);
            }
        }
    }
}

/* One warp tile per warp: 16 x 2 lanes with 2 features each for 256
 * features, 8 x 4 with 2 for 128, 8 x 4 with 1 for 64, 4 x 8 with 1 for 32.
 * The feature count is a template argument, so each call compiles only the
 * layout it uses: the machine code of every instantiation stays small. */
template <int D, int CLUSTER, bool RESIDENT, int FEATURE_COUNT>
__device__ __forceinline__ void project(const fused_params &p, float *proj, const float *vectors,
                                        int b, int n, int rank, const float *in, int in_stride,
                                        const float *w, int first_row)
{
    constexpr int FEATURES = FEATURE_COUNT >= 128 ? 2 : 1;
    constexpr int ROW_LANES = FEATURES * 32 * FUSED_WARPS / FEATURE_COUNT;
    static_assert(ROW_LANES >= 1 && ROW_LANES <= 32 &&
                      FUSED_WARPS * (32 / ROW_LANES) * FEATURES == FEATURE_COUNT,
                  "one warp tile per warp must cover every feature");
    project_lanes<D, CLUSTER, RESIDENT, FEATURES, ROW_LANES>(
        p, proj, vectors, b, n, rank, in, in_stride, w, first_row);
}

/*md
## Phase 4: masked softmax with warp shuffles

Each (head, query row) pair is a *task*: a softmax over the $S$ keys of
the column, then a weighted sum of $S$ value rows. A task gets `span`
lanes, the power of two at or above $S$ (at most 32), so a warp runs
$32 / \text{span}$ tasks side by side: four at once in the small case,
where $S = 8$. A lane owns key $j = $ `slot` (and $j + 32$ when $S > 32$).
For its keys the lane computes the score $q \cdot k_j$ ($q$ already
carries the $1/\sqrt d$), nothing for a masked key, and then:

1. $m = $ the maximum of the kept scores over the task's lanes;
2. $e_j = \exp(s_j - m)$ for kept keys, $0$ for masked ones;
3. $Z = $ the sum of the $e_j$ over the task's lanes, and $a_j = e_j / Z$.

Subtracting the maximum changes nothing mathematically (it cancels between
numerator and denominator) but keeps every exponent at most zero, so no
$e_j$ overflows. The maximum and the sum are butterflies of
`__shfl_xor_sync` with masks below `span`, which never leave a task's
lanes: $\log_2 \text{span}$ steps, three in the small case.

Now the question the mask raises. What if a column has no kept key at
all, a column of pure padding? The usual way to write a masked softmax is
to set masked scores to $-\infty$ and call an ordinary softmax. With every
score $-\infty$, the maximum is $-\infty$, each $s_j - m$ is
$-\infty - (-\infty)$, which is NaN, and the NaN spreads through $A V$,
the gating and the output projection to every feature of every row of the
column. (Implementations that add a large negative number instead of
$-\infty$ avoid the NaN, but then the all-padding column gets a uniform
average of its padding rows, which is not zero either.) Our rule is the one
the attention formula gives when the sum over kept keys is empty: $O_h = 0$,
so after gating and the output projection the column's rows are exactly
$b_o$. In the kernel this costs one comparison: a masked key never
computes an exponential, it contributes $e_j = 0$, so an all-masked task
has $Z = 0$ and takes $1/Z$ as 0 instead of dividing. Every $a_j$ is then
0 and so is $O_h$. There is no branch around it, which matters: the
shuffles need every lane of the warp, and the four tasks sharing a warp
may well be one all-masked column beside three ordinary ones. The check
draws columns with every key kept, with none and with exactly one, in
every run.

The $a_j$ go to the task's corner of a per-warp row of shared memory, and
$A V$ is computed with the task's lanes across the head's $d$ features;
when $d$ is smaller than `span`, the lanes split into groups that take
every few keys, and a few more shuffles add the groups' partial sums.
The gate multiplies the result, and the task writes it over the query row
it no longer needs.
*/

template <int D, int CLUSTER, bool RESIDENT>
__device__ void attend(float *proj, const float *kept, float *probs_of_warp, float *gathered,
                       float *partner_gathered, int rank, int S, int H)
{
    typedef fused_layout<D, CLUSTER, RESIDENT> L;
    const int lane = threadIdx.x % 32;
    const int d = D / H, tasks = (H / CLUSTER) * S;
    int span = 1;
    while (span < S && span < 32)
        span *= 2;
    const int tasks_per_warp = 32 / span, slot = lane % span;
    const int lanes_per_row = d < span ? d : span, groups = span / lanes_per_row;
    const int feature_lane = slot % lanes_per_row, group = slot / lanes_per_row;
    float *probs = probs_of_warp + (lane / span) * span; /* S <= span here, or one task */

    for (int first = (threadIdx.x / 32) * tasks_per_warp; first < tasks;
         first += FUSED_WARPS * tasks_per_warp) {
        const int task = first + lane / span;
        const bool active = task < tasks; /* the last round may not fill the warp */
        const int head = active ? task / S : 0, s = active ? task % S : 0;
        float *query = proj + s * L::P_STRIDE + head * d;

        float score[2];
        bool keep[2];
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int j = slot + span * half;
            keep[half] = active && j < S && kept[j] != 0.0f;
            score[half] = -INFINITY;
            if (keep[half]) {
                const float *key = proj + j * L::P_STRIDE + L::OWN + head * d;
                float dot = 0.0f;
#pragma unroll 4
                for (int c = 0; c < d; c += 4) {
                    const float4 q4 = *reinterpret_cast<const float4 *>(query + c);
                    const float4 k4 = *reinterpret_cast<const float4 *>(key + c);
                    dot += q4.x * k4.x + q4.y * k4.y + q4.z * k4.z + q4.w * k4.w;
                }
                score[half] = dot;
            }
        }
        float largest = fmaxf(score[0], score[1]);
        for (int mask = span / 2; mask > 0; mask /= 2)
            largest = fmaxf(largest, __shfl_xor_sync(0xffffffffu, largest, mask));
        const float e0 = keep[0] ? expf(score[0] - largest) : 0.0f;
        const float e1 = keep[1] ? expf(score[1] - largest) : 0.0f;
        float total = e0 + e1;
        for (int mask = span / 2; mask > 0; mask /= 2)
            total += __shfl_xor_sync(0xffffffffu, total, mask);
        /* No kept key: total is 0, every weight 0, O = 0, and the output bo. */
        const float inverse_total = total > 0.0f ? 1.0f / total : 0.0f;
        if (active && slot < S)
            probs[slot] = e0 * inverse_total;
        if (active && slot + span < S)
            probs[slot + span] = e1 * inverse_total;
        __syncwarp();

        const float *values = proj + 2 * L::OWN + head * d;
        for (int c = feature_lane; c < d; c += span) {
            float sum = 0.0f;
            if (active) {
#pragma unroll 4
                for (int j = group; j < S; j += groups)
                    sum += probs[j] * values[j * L::P_STRIDE + c];
            }
            for (int mask = lanes_per_row; mask < span; mask *= 2)
                sum += __shfl_xor_sync(0xffffffffu, sum, mask);
            if (RESIDENT)
                sum *= proj[s * L::P_STRIDE + 3 * L::OWN + head * d + c]; /* the gate */
            if (active && group == 0) {
                if (CLUSTER > 1) {
                    /* into both blocks' copy of O: the output projection needs all of it */
                    const int at = s * L::X_STRIDE + rank * L::OWN + head * d + c;
                    gathered[at] = sum;
                    partner_gathered[at] = sum;
                } else {
                    query[c] = sum;
                }
            }
        }
        __syncwarp(); /* the next round reuses probs */
    }
}

/*md
## Splitting a column between two blocks

With one block per column, the small case occupies 64 of the H200's 132
multiprocessors, and each of those spends its time on the projections and
on pulling in 80 KB of weights. Hopper lets the blocks of a *cluster*,
which are guaranteed to run at the same time on neighbouring
multiprocessors, read and write each other's shared memory (distributed
shared memory). So when there are few columns and an even number of
heads, the launcher gives each column a cluster of two blocks, and block
$r$ takes half of the heads: it loads only its half of the rows of $W_q,
W_k, W_v, W_g$, computes only its heads' features, runs attention for its
heads only, and gates them. Half the weights, half the arithmetic.

The one step that needs both halves is the output projection: every
output feature mixes all of $O$'s features. So each block keeps a full
$S \times D$ copy of $O$ (`gathered`), and attention writes every value it
produces twice, into its own copy and, through the pointer that
`map_shared_rank` returns, into the partner's. (Before the first such
write a block must know that its partner has started: each block signals
"running" with `barrier_arrive` as soon as its copies are issued, and
waits for the partner's signal with `barrier_wait` right away. The wait
itself takes a few hundred cycles even when the partner arrived long ago,
so it goes where the block has nothing better to do: while the column's
rows are still on their way from device memory.) One cluster barrier (`cluster.sync()`,
which also orders the memory accesses before it) then guarantees that
both copies are complete, and each block computes half
of the output features with its half of the rows of $W_o$. Pushing the
values instead of pulling them has two advantages: a store does not wait
for an answer, and once the barrier is passed neither block touches the
other's shared memory again, so each may finish without waiting for its
partner (a block's shared memory disappears when it exits, and nothing
may read it then).
*/

/*md
The streamed weights need two small helpers. Tile $i$ is rows
$32i \dots 32i + 31$ of the stacked $[W_q; W_k; W_v; W_g; W_o]$ and goes to
slot $i \bmod 2$; `project_tiles` computes with the tiles in order, and as
soon as a slot is free it starts the copy of the tile two further on. Every
refill commits a group, even an empty one past the last tile, so that
"wait until at most one group is in flight" always means "the current tile
has arrived".
*/

__device__ __forceinline__ const float *weight_matrix(const fused_params &p, int matrix)
{
    switch (matrix) {
    case MATRIX_Q: return p.wq;
    case MATRIX_K: return p.wk;
    case MATRIX_V: return p.wv;
    case MATRIX_G: return p.wg;
    default: return p.wo;
    }
}

template <int D>
__device__ void issue_tile(float *weights, const fused_params &p, int tile)
{
    typedef fused_layout<D, 1, false> L;
    if (tile < 5 * D / FUSED_TILE_ROWS) {
        const int row = tile * FUSED_TILE_ROWS;
        copy_rows_async<D>(weights + (tile % 2) * FUSED_TILE_ROWS * L::W_STRIDE, L::W_STRIDE,
                           weight_matrix(p, row / D) + (size_t)(row % D) * D, FUSED_TILE_ROWS);
    }
    copy_async_commit();
}

template <int D>
__device__ void project_tiles(const fused_params &p, float *proj, const float *vectors, int b,
                              int n, float *weights, int first, int count, const float *in,
                              int in_stride)
{
    typedef fused_layout<D, 1, false> L;
    for (int tile = first; tile < first + count; tile++) {
        copy_async_wait<1>();
        __syncthreads();
        project<D, 1, false, FUSED_TILE_ROWS>(p, proj, vectors, b, n, 0, in, in_stride,
                                              weights + (tile % 2) * FUSED_TILE_ROWS * L::W_STRIDE,
                                              tile * FUSED_TILE_ROWS);
        __syncthreads();
        issue_tile<D>(weights, p, tile + 2);
    }
}

/*md
## The kernel

Here are the phases put together. The first block of code starts every
copy before anything waits: the column's rows of `msa` and the four
vectors $\gamma$, $\beta$, $b_g$, $b_o$ (group 0), the weights, and the
mask. After that one trip to device memory, every later phase reads only
shared memory and registers, so no phase waits for device memory on its
own.

When all the block's weight rows fit in shared memory (`RESIDENT`: every
size with $D \le 64$, and $D = 128$ split over two blocks for moderate
$S$), they come in two more groups, $W_{q,k,v,g}$ and $W_o$. The first is
split by warp: warp $w$ copies exactly the 32 or 16 weight rows that its
warp tile in `project` will use, so it waits for its own rows only
(`cp.async.wait_group` and `__syncwarp`, no block barrier) and starts
computing while the other warps' rows are still arriving.

When the weights do not fit ($D = 128$ in one block: five $128 \times 128$
matrices are 330 KB with padding, more than the 227 KB a block may have),
they stream through two slots of 32 rows each: while the block computes
with one tile, the next is on its way into the other. Then the gate
cannot be computed with $Q$, $K$ and $V$ (there is no room to keep $G$),
so its tiles come after attention and gate $O$ in place.
*/

template <int D, int CLUSTER, bool RESIDENT>
__global__ void __launch_bounds__(FUSED_THREADS, 1) fused_msa_attention(const fused_params p)
{
    typedef fused_layout<D, CLUSTER, RESIDENT> L;
    extern __shared__ float4 fused_shared[];
    float *shared = reinterpret_cast<float *>(fused_shared);
    float *weights = shared + L::weights();
    float *xn = shared + L::xn();
    float *proj = shared + L::proj(p.S);
    float *gathered = shared + L::gathered(p.S);
    float *vectors = shared + L::vectors(p.S);   /* gamma | beta | bg | bo */
    float *kept = shared + L::kept(p.S);
    float *probs = shared + L::probs(p.S) + (threadIdx.x / 32) * FUSED_MAX_S;

    const int S = p.S, N = p.N, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int rank = CLUSTER > 1 ? (int)cg::this_cluster().block_rank() : 0;
    const long column = blockIdx.x / CLUSTER;
    const int b = (int)(column / N), n = (int)(column % N);

    /* Phase 1: start every copy. Group 0: the column's X and the vectors. */
    const float *x = p.msa + ((size_t)b * S * N + n) * D;
#pragma unroll 1
    for (int chunk = threadIdx.x; chunk < S * (D / 4); chunk += FUSED_THREADS) {
        const int s = chunk / (D / 4), c = 4 * (chunk % (D / 4));
        copy_async_16(xn + s * L::X_STRIDE + c, x + (size_t)s * N * D + c);
    }
#pragma unroll 1
    for (int chunk = threadIdx.x; chunk < D; chunk += FUSED_THREADS) {
        const int which = chunk / (D / 4), c = 4 * (chunk % (D / 4));
        const float *source = which == 0 ? p.ln_gamma : which == 1 ? p.ln_beta
                              : which == 2 ? p.bg : p.bo;
        copy_async_16(vectors + which * D + c, source + c);
    }
    copy_async_commit();

    if constexpr (RESIDENT) {
        /* Group 1: warp w copies the rows of W_q|W_k|W_v|W_g that its warp
         * tile of project() computes, 4 * OWN / 8 rows of one matrix. */
        const int rows = 4 * L::OWN / FUSED_WARPS, first = warp * rows;
        const float *source = weight_matrix(p, first / L::OWN) +
                              ((size_t)rank * L::OWN + first % L::OWN) * D;
#pragma unroll 1
        for (int chunk = lane; chunk < rows * (D / 4); chunk += 32) {
            const int row = chunk / (D / 4), c = 4 * (chunk % (D / 4));
            copy_async_16(weights + (first + row) * L::W_STRIDE + c, source + (size_t)row * D + c);
        }
        copy_async_commit();
        /* Group 2: this block's rows of W_o, needed last. */
        copy_rows_async<D>(weights + MATRIX_O * L::OWN * L::W_STRIDE, L::W_STRIDE,
                           p.wo + (size_t)rank * L::OWN * D, L::OWN);
        copy_async_commit();
    } else {
        issue_tile<D>(weights, p, 0);
        issue_tile<D>(weights, p, 1);
    }

#pragma unroll 1
    for (int j = threadIdx.x; j < S; j += FUSED_THREADS)
        kept[j] = p.mask[((size_t)b * S + j) * N + n] != 0.0f ? 1.0f : 0.0f;
    if constexpr (CLUSTER > 1) {
        cg::this_cluster().barrier_arrive(); /* "this block is running" */
        cg::this_cluster().barrier_wait();   /* "so is the partner", while X is on its way */
    }

    /* Phase 2: LayerNorm, once X is in (two groups may still be in flight). */
    copy_async_wait<2>();
    __syncthreads();
    layer_norm_rows<D>(xn, L::X_STRIDE, S, vectors, vectors + D);
    __syncthreads();

    if constexpr (RESIDENT) {
        copy_async_wait<1>(); /* this warp's weight rows */
        __syncwarp();
        project<D, CLUSTER, RESIDENT, 4 * L::OWN>(p, proj, vectors, b, n, rank, xn, L::X_STRIDE,
                                                  weights, 0);
        __syncthreads();
        float *partner = gathered;
        if constexpr (CLUSTER > 1) /* running, as barrier_wait above made sure */
            partner = cg::this_cluster().map_shared_rank(gathered, rank ^ 1);
        attend<D, CLUSTER, RESIDENT>(proj, kept, probs, gathered, partner, rank, S, p.H);
        copy_async_wait<0>(); /* W_o */
        if constexpr (CLUSTER > 1) {
            cg::this_cluster().sync(); /* both halves of O are in both blocks */
            project<D, CLUSTER, RESIDENT, L::OWN>(p, proj, vectors, b, n, rank, gathered,
                                                  L::X_STRIDE, weights + 4 * L::OWN * L::W_STRIDE,
                                                  4 * L::OWN);
        } else {
            __syncthreads();
            project<D, CLUSTER, RESIDENT, L::OWN>(p, proj, vectors, b, n, rank, proj, L::P_STRIDE,
                                                  weights + 4 * L::OWN * L::W_STRIDE, 4 * L::OWN);
        }
    } else {
        const int per_matrix = D / FUSED_TILE_ROWS;
        project_tiles<D>(p, proj, vectors, b, n, weights, 0, 3 * per_matrix, xn,
                         L::X_STRIDE);                                    /* Q, K, V */
        attend<D, CLUSTER, RESIDENT>(proj, kept, probs, gathered, gathered, rank, S, p.H);
        project_tiles<D>(p, proj, vectors, b, n, weights, 3 * per_matrix, per_matrix, xn,
                         L::X_STRIDE);                                    /* G gates O */
        project_tiles<D>(p, proj, vectors, b, n, weights, 4 * per_matrix, per_matrix, proj,
                         L::P_STRIDE);                                    /* out */
    }
}

/*md
## Launching it

The launcher picks the instantiation. Two blocks per column pay off when
they fill more of the GPU: when $2 B N$ blocks still fit in one wave
(one block per multiprocessor), $H$ is even, $D \ge 64$ (with $D = 32$ a
half block would have too little to do) and everything fits in shared
memory. Otherwise one block per column, with the weights resident if they
fit, streamed if not. The cluster size goes to the launch as an attribute
of `cudaLaunchKernelEx`; the blocks of a cluster are consecutive in
`blockIdx.x`, so block $x$ serves column $\lfloor x / 2 \rfloor$.

What the kernel does not support, it refuses before anything runs: $S$
beyond 64 (a warp holds at most two keys per lane, and the whole column
must fit in shared memory; chapter 7 lifts this), and $D$ and $H$ outside
the instantiated set.
*/

static int fused_refuses(msa_size size, char *why, size_t capacity)
{
    if (size.S > FUSED_MAX_S)
        snprintf(why, capacity,
                 "S=%d: a whole column must fit on chip, S at most %d (chapter 7 lifts this)",
                 size.S, FUSED_MAX_S);
    else if (size.D != 32 && size.D != 64 && size.D != 128)
        snprintf(why, capacity, "D=%d: the kernel is built for D = 32, 64 or 128", size.D);
    else if (size.H != 1 && size.H != 2 && size.H != 4 && size.H != 8)
        snprintf(why, capacity, "H=%d: the kernel is built for H = 1, 2, 4 or 8", size.H);
    else
        return 0;
    return 1;
}

template <int D, int CLUSTER, bool RESIDENT>
static void launch_variant(const msa_args *args)
{
    typedef fused_layout<D, CLUSTER, RESIDENT> L;
    const msa_size z = args->size;
    gpu_allow_shared_memory((const void *)fused_msa_attention<D, CLUSTER, RESIDENT>, L::bytes(z.S));
    fused_params p = {args->msa, args->mask, args->ln_gamma, args->ln_beta, args->wq,
                      args->wk,  args->wv,   args->wg,       args->bg,      args->wo,
                      args->bo,  args->out,  z.S,            z.N,           z.H,
                      1.0f / sqrtf((float)(z.D / z.H))};

    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)((size_t)z.B * z.N * CLUSTER));
    config.blockDim = dim3(FUSED_THREADS);
    config.dynamicSmemBytes = L::bytes(z.S);
    config.stream = args->stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim = {CLUSTER, 1, 1};
    config.attrs = attribute;
    config.numAttrs = CLUSTER > 1 ? 1 : 0;
    CUDA_CHECK(cudaLaunchKernelEx(&config, fused_msa_attention<D, CLUSTER, RESIDENT>, p));
    LAUNCH_CHECK();
}

/* One block per column: the weights resident when they fit, streamed when not. */
static void launch_one_block_per_column(const msa_args *args)
{
    switch (args->size.D) {
    case 32: launch_variant<32, 1, true>(args); break;
    case 64: launch_variant<64, 1, true>(args); break;
    default: launch_variant<128, 1, false>(args); break; /* 128 */
    }
}

static void fused_launch(const msa_args *args)
{
    const msa_size z = args->size;
    const gpu_info gpu = gpu_query();
    const size_t limit = gpu.shared_per_block_optin;
    const bool split = (long)z.B * z.N * 2 <= gpu.sm_count && z.H % 2 == 0;
    if (split && z.D == 64 && fused_layout<64, 2, true>::bytes(z.S) <= limit)
        launch_variant<64, 2, true>(args);
    else if (split && z.D == 128 && fused_layout<128, 2, true>::bytes(z.S) <= limit)
        launch_variant<128, 2, true>(args);
    else
        launch_one_block_per_column(args);
}

extern const msa_kernel fused_kernel = {fused_refuses, NULL, fused_launch};

/*md
## The race

At the small case, on the GPU named in the results, one forward of the
fused kernel takes {{median_ms|fused|B=2 S=8 N=32 D=64 H=4}} ms, against
{{median_ms|unfused|B=2 S=8 N=32 D=64 H=4}} ms for the sixteen launches of
the framework-style layer: {{speedup|fused|unfused|B=2 S=8 N=32 D=64 H=4}}
times faster. Replayed as a CUDA graph the baseline drops to
{{median_ms|unfused+graph|B=2 S=8 N=32 D=64 H=4}} ms, because much of its
time was the CPU issuing launches, while the fused kernel, a graph of one
node, stays where it was ({{median_ms|fused+graph|B=2 S=8 N=32 D=64 H=4}}
ms): {{speedup|fused+graph|unfused+graph|B=2 S=8 N=32 D=64 H=4}} times
faster. What the graph leaves to the baseline is the GPU's own cost of
sixteen dependent kernels, each of which must start, spread over the
machine and drain before the next may begin, with every intermediate going
out to memory and back.

Splitting a column over a cluster of two blocks pays a little at the small
case, where one block per column takes
{{median_ms|fused+nocluster|B=2 S=8 N=32 D=64 H=4}} ms, and much more once
a block has real arithmetic to do: at $S = 64$ the split kernel takes
{{median_ms|fused|B=2 S=64 N=32 D=64 H=4}} ms against
{{median_ms|fused+nocluster|B=2 S=64 N=32 D=64 H=4}} ms, and at $D = 128$
{{median_ms|fused|B=2 S=8 N=32 D=128 H=4}} ms against
{{median_ms|fused+nocluster|B=2 S=8 N=32 D=128 H=4}} ms (there the split
also lets each block keep all its weight rows in shared memory instead of
streaming them).

## Where the time goes, and what is left

Well ahead of the layer it replaces, the fused kernel is still far from
the floors we computed at the start: a third of a
microsecond of arithmetic, well under a tenth of one of memory traffic.
Compare the three feature sizes at $S = 8$. With $D = 32$ the kernel takes
{{median_ms|fused|B=2 S=8 N=32 D=32 H=4}} ms, with $D = 64$
{{median_ms|fused|B=2 S=8 N=32 D=64 H=4}} ms and with $D = 128$
{{median_ms|fused|B=2 S=8 N=32 D=128 H=4}} ms, while the work grows sixteen
times from the first to the last. Most of the time is a fixed cost that
has little to do with the arithmetic.

Some of it is the price of any launch: even an empty kernel, timed the
same way, is not free, and launching it with this kernel's grid, clusters
of two and shared memory costs no more than launching it bare. The rest is
waiting, and we took it apart with three experiments
(`notes/msa-device/`), each a suspect that did not hold up:

- *The machine code.* The flush evicts the kernel's instructions too, and
  they are not small. So we made them smaller: the warp tile of each call
  to `project` is now fixed at compile time, and the loops that run a
  handful of times (the copies, LayerNorm's rows) are no longer unrolled,
  which takes the small case's instantiation from about 47 to 38 KB.
  The time did not move. Nor did it when the timed launch followed a launch
  of the same kernel on other inputs, which brings its code back into the
  cache: the code's fetch is not what the kernel waits for.
- *Cold data.* Reading the inputs into the L2 cache just before the timed
  launch saves only a small fraction of the time.
- *The launch.* As said, an empty kernel launched like ours costs what a
  bare one does.

What is left is the chain inside a block, which a timeline of `clock64()`
marks lays out phase by phase. The longest wait, over a third of the
block's time, comes before LayerNorm: the block waits for the column's
rows, and before it gets there each thread must also issue its share of
the 40 KB of weight rows that all 128 blocks ask for at the same moment,
5 MB of requests for the same 80 KB. Then the projections, attention and
the output projection each take far longer than their arithmetic, one
dependent step after another with eight warps per multiprocessor to hide
the latencies. Moving the cluster barrier's wait into the first copy's
shadow takes one of those steps off the chain, too little to tell from
the spread of the timings. So two goals of this chapter are still open:
4 microseconds per forward at the small case, and a lead of five times
over the baseline when both run as CUDA graphs. Loading each weight row once per cluster
and sending it to every block that needs it (Hopper's bulk copies can
multicast within a cluster) would attack the first wait; that is for a
later version.

The sweep in the results shows the other end. With 256 columns of 64
sequences there are enough blocks to fill the GPU, and the fused kernel
only keeps pace with the unfused layer:
{{median_ms|fused|B=1 S=64 N=256 D=64 H=8}} ms against
{{median_ms|unfused|B=1 S=64 N=256 D=64 H=8}} ms at $D = 64$, and
{{median_ms|fused|B=1 S=64 N=256 D=128 H=8}} ms against
{{median_ms|unfused|B=1 S=64 N=256 D=128 H=8}} ms at $D = 128$. Now each
multiprocessor runs a single block of eight warps that holds a whole
column, with too few warps in flight to hide the latency of each step,
while cuBLAS computes the projections of all columns at once as one large,
well-tiled matrix product. And the kernel stops at $S = 64$ by
construction. Chapter 7 takes it from there.
*/
