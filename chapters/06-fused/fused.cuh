// chapters/06-fused/fused.cuh - Chapter 6: a whole MSA column attention layer in one kernel.
//
// Build, check and time it from the repository root:
//
//   make chapter6                          # B=2 S=8 N=32 D=64 H=4: checked, then timed
//   build/chapter6 S=64 D=128 H=8 --check-only
//   build/chapter6 --kernel fused --save /tmp/msa     # inputs and out.npy for NumPy
//   build/chapter6 --load /tmp/msa H=4                 # and back

/*md
# Fused MSA attention: one layer, one launch

## What does one launch save over a framework's many?

The first five chapters raced cuBLAS on one matrix product. Now the
contender is a whole layer of a real network, and the opponent the string of
launches a framework makes to run it. When each launch does little work,
how much of the layer's time is the launches and the trips through memory
between them, and how much does one kernel that does it all save?

## The layer

AlphaFold 2 reads a protein through a *multiple sequence alignment* (MSA):
$S$ related sequences aligned so that column $n$ holds the residue at
position $n$ in each. Its Evoformer keeps $D$ features for every cell of
that table; *column* attention, our layer, lets the $S$ sequences look at
each other at one position, to find residues that evolve together.

For each batch entry $b$ and column $n$, with $X$ the $S \times D$ slice
`msa[b, :, n, :]`, the layer computes

$$
\begin{aligned}
\hat X &= \mathrm{LayerNorm}(X)\\
Q &= \hat X W_q^T, \quad K = \hat X W_k^T, \quad V = \hat X W_v^T\\
G &= \sigma(\hat X W_g^T + b_g)\\
A_h &= \mathrm{softmax}_{j \,\text{kept}}\!\left(Q_h K_h^T / \sqrt{d}\right), \quad O_h = A_h V_h\\
\mathit{out} &= \left(G \odot [O_1 \dots O_H]\right) W_o^T + b_o
\end{aligned}
$$

with the LayerNorm taken over the $D$ features ($\epsilon = 10^{-5}$), the
heads $h = 1 \dots H$ of $d = D / H$ features each, $D \times D$ weights stored `W[out][in]`; `mask[b][j][n] = 0` marks
sequence $j$ as padding at column $n$, a key of weight zero (queries are
never masked). Every column is independent, and small: in the
small case we race ($B = 2$, $S = 8$, $N = 32$, $D = 64$, $H = 4$, so
$d = 16$) a column's input is 2 KB and a head's scores $8 \times 8$, while
the weights, shared by all columns, are $5 D^2$ floats, 80 KB.

## How a framework runs it, and why that is slow here

In PyTorch the layer is a dozen lines, each at least one launch (a
LayerNorm, four linears, a sigmoid, permutes, two batched products around a
softmax, the gating, the output linear). Our first champion, `unfused.cu` beside
this file, does exactly this with cuBLAS in strict FP32: sixteen launches,
each intermediate written to device memory by one and read by the next.

The small case needs $B (10\, S N D^2 + 4\, N S^2 D) \approx 22$ MFLOP
({{floor_fp32_ms|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms at the {{card_fp32_tflops|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} TFLOP/s of the
{{gpu|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}}) and moves about 0.35 MB ({{floor_memory_ms|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms at
{{card_memory_tbs|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} TB/s): far below the few microseconds a kernel takes to start and
finish, which the unfused layer pays sixteen times. CUDA graphs remove the
CPU's share of that cost, not the GPU's. To race launch latency, launch once.

## The plan: a column per block, nothing in between

One block of 256 threads (8 warps) carries one column $(b, n)$ from input
to output, every intermediate in its shared memory or registers; the
figure shows what it copies in, what it keeps in shared memory, and what
each phase reads and writes.

The phases, each separated from the next by `__syncthreads()`:

1. **Copy**: every thread starts its share of the asynchronous copies.
2. **LayerNorm**, one warp per row of $X$.
3. **Projections**: $Q$, $K$, $V$, $G$ from the stacked $[W_q; W_k; W_v; W_g]$.
4. **Attention**: masked softmax and $A V$ per (head, query row), gated.
5. **Output**: $W_o$ and $b_o$, stored straight to `out`.

{{figure|layer-flow}}

Rows are padded by four floats ($D + 4$): lanes reading 16 bytes each from
different rows then hit different banks. A whole block serves so small a
column because its cost is waiting, which more threads shorten.
*/

// book:hide
#pragma once
#include <math.h>
#include <string.h>

#include "device/async_copy.h"
#include "device/cluster.h"
#include "problems/msa.h"
#include "device/warp_reduce.h"
// book:show

#define FUSED_THREADS 256
#define FUSED_WARPS (FUSED_THREADS / 32)
#define FUSED_MAX_S 64        /* every key of a column: at most two per lane of a warp */
static_assert(FUSED_MAX_S <= 2 * 32, "at most two keys per lane of a warp");
#define FUSED_TILE_ROWS 32    /* weight rows per tile when the weights are streamed; 16 where
                                 two tiles of 32 do not fit the card */

/*md
## What the kernel receives

The kernel is a template over the feature size $D$ (so that the loops over
features unroll and a weight row fits in registers), the number of blocks
per column, `CLUSTER` (1 for now), and whether all the weight rows fit in
shared memory at once (`RESIDENT`); `fused_layout` places each array in
shared memory. The copies are chapter 5's `cp.async` (`common/device/async_copy.h`),
grouped by `copy_async_commit` and awaited by `copy_async_wait<N>` (until at
most $N$ groups are in flight); each thread waits for its own copies only,
so a barrier must follow before others read them.
*/

typedef struct {
    const float *msa, *mask, *ln_gamma, *ln_beta;
    const float *wq, *wk, *wv, *wg, *bg, *wo, *bo;
    float *out;
    int S, N, H;
    float scale; /* 1 / sqrt(d), computed on the host */
} fused_params;

template <int D, int CLUSTER, bool RESIDENT, int TILE_ROWS = FUSED_TILE_ROWS>
struct fused_layout {
    static constexpr int OWN = D / CLUSTER;                    /* features per matrix per block */
    static constexpr int X_STRIDE = D + 4;                     /* xn, and O when gathered */
    static constexpr int W_STRIDE = D + 4;                     /* one weight row */
    static constexpr int P_STRIDE = (RESIDENT ? 4 : 3) * OWN + 4;  /* Q|K|V(|G) per row */
    static constexpr int W_ROWS = RESIDENT ? 5 * OWN : 2 * TILE_ROWS; /* TILE_ROWS: here only */

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
## Phase 2: LayerNorm, and sums across a warp

One warp per row; lane $l$ holds features $l, l + 32, \dots$ in registers;
the mean and the biased variance are sums across the warp. With
`__shfl_xor_sync`, lane $i$ receives the value of lane $i \oplus m$; adding
what comes back for $m = 16, 8, 4, 2, 1$ is a butterfly that leaves the sum
of all 32 in every lane, with no shared memory and no barrier: `warp_sum`
of `common/device/warp_reduce.h`. Masks below 8 only give the sums of four
separate groups of 8 lanes, since $i \oplus m$ never leaves $i$'s group;
the softmax will use that. The variance is taken around the mean in a
second pass over the registers, losing no digits when the mean is large.
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
`features` weight rows at `w` and every row $s$ of `in`, and hands each $y$
to `finish`, which tells from the row's number what the feature is for:
the block's rows run through $W_q$, $W_k$, $W_v$, $W_g$ and $W_o$, `OWN`
each, and `first_row` is the number of the row at `w`.

What limits this loop is shared memory: it delivers 128 bytes per clock,
while the four schedulers issue four warp-wide FMAs per clock, so each
`float4` read must feed many FMAs. One output feature per lane, all 32
lanes walking down the same rows of $\hat X$, reads $\hat X$ as a
broadcast: 16 new bytes per read, four FMAs per lane. Too few.

So a warp is laid out as `feature_lanes` $\times$ `row_lanes`. Each lane
holds the weight rows of `FEATURES` (1 or 2) features in registers and
computes them for the rows $r, r + \text{row\_lanes}, \dots$ of its row
lane: one read of $\hat X$ brings `row_lanes` rows (up to 128 bytes), and
each 16-byte piece feeds `FEATURES` $\times$ 4 FMAs. For 256 features (a
block's stacked $QKVG$) the lanes are $16 \times 2$ with two features each;
for 32 (its half of $W_o$), $4 \times 8$ with one. Each warp gets one such
tile, and neighbouring lanes read neighbouring padded rows, four banks
apart. A weight row stays in registers while it is used (for $D = 128$, in
halves), and two rows are computed at once, with two partial sums each, so
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

/*md
`project_lanes` is that loop for one layout of the lanes. Each lane first
finds its features: their rows among the block's, their biases and, where a
weight row fits in registers whole, its weights.
*/

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
        /*md
Then the walk down the lane's rows of `in`, two rows per round; where a
weight row does not fit whole, each round loads it again, a half at a time.
        */
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

/*md
`project` picks the layout of the lanes from the number of features, when
the code is compiled.
*/

/* One warp tile per warp. The feature count is a template argument, so each
 * call compiles only the layout it uses and the machine code stays small. */
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

Each (head, query row) pair is a *task*: a softmax over the $S$ keys and
a weighted sum of value rows, on `span` lanes (the power of two at or above
$S$, at most 32), so a warp runs $32 / \text{span}$ tasks side by side. A
lane owns key $j$ = `slot` (and $j + 32$ when $S > 32$) and computes its
score $s_j = q \cdot k_j$ ($q$ carries the $1/\sqrt d$) unless the key is
masked. Then come the maximum $m$ of the kept scores,
$e_j = \exp(s_j - m)$ (0 for a masked key), their sum $Z$ and
$a_j = e_j / Z$: subtracting $m$ cancels in the ratio but keeps every
exponent at most zero, so no $e_j$ overflows. The check includes a layer
whose logits reach 90 (`--logits 90`), past where `expf` overflows. The workbook tests its
checks with *mutants*: a mutant is a copy of a kernel with one deliberate
bug that the check must catch (each a patch beside its chapter, here
`mutant-max.patch`). The one that skips the subtraction passes the other
checks and fails that one. The maximum and the sum are butterflies with masks below `span`.

What if a column has no kept key? The usual masked softmax sets masked
scores to $-\infty$; then $m = -\infty$, every $s_j - m$ is NaN, and the
NaN spreads to the whole column. Our rule is what the
formula gives for an empty sum: $O_h = 0$, so the column's rows are exactly
$b_o$. It costs one comparison: masked keys give $e_j = 0$, so an
all-masked task has $Z = 0$ and takes $1/Z$ as 0, with no branch around
the shuffles, which need every lane even when an all-masked task shares its
warp with ordinary ones. The check draws columns with every key kept, with
none and with one.

The $a_j$ go to the task's corner of a per-warp row of shared memory.
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

        /*md
$A V$ then runs with the task's lanes across the head's $d$ features (when
$d$ is below `span`, groups of lanes take every few keys and more shuffles
add their sums). The gated result overwrites the query row.
        */
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

With one block per column, the small case occupies 64 of the
{{card_sms|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} multiprocessors of the {{gpu|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}}. On Hopper the blocks of a *cluster*, guaranteed to run at
the same time on neighbouring multiprocessors, can read and write each
other's shared memory. So when columns are few and $H$ is even, the
launcher gives each column a cluster of two blocks, and block $r$ takes
half of the heads: its half of the rows of $W_q, W_k, W_v, W_g$, its heads'
projections, attention and gating. Half the weights, half the arithmetic.

Only the output projection needs both halves, since every output feature
mixes all of $O$. So each block keeps a full $S \times D$ copy of $O$
(`gathered`), and attention writes each value twice: into its own copy and,
through the pointer `map_shared_rank` returns, into the partner's. Before
that, a block must know its partner is running: each signals with
`barrier_arrive` once its copies are issued and waits with `barrier_wait`
while the column's rows are on their way, since the wait takes a few
hundred cycles even when the partner arrived long before. Then one
`cluster.sync()`, which also orders the memory accesses before it, makes
both copies complete, and each block computes half of the output features
with its half of $W_o$. Past that barrier neither block touches the other's
shared memory, so each may exit without waiting for its partner (a block's
shared memory disappears when it exits); and a pushed store never waits.

When the weights do not fit ($D = 128$ in one block: 330 KB with padding,
more than the 227 KB a block may have), they stream through two slots of 32
rows: tile $i$, rows $32i \dots 32i + 31$ of the stacked
$[W_q; W_k; W_v; W_g; W_o]$, goes to slot $i \bmod 2$, and `project_tiles`
refills a slot with the tile two further on as soon as it is free. Every
refill commits a group, even an empty one past the last tile, so that "at
most one group in flight" always means "the current tile has arrived".
On a card with less shared memory (an A100's 163 KB at $S = 64$, an L4's
99 KB at $S = 37$) the tiles shrink to 16 rows, twice the barriers for
16 KB less; the launcher takes the larger tiles wherever they fit. The
streaming is bookkeeping around phase 3, not the chapter's idea: its code
(`issue_tile`, `project_tiles`) is in the source pages.
*/

// book:hide
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

template <int D, int TILE_ROWS>
__device__ void issue_tile(float *weights, const fused_params &p, int tile)
{
    typedef fused_layout<D, 1, false, TILE_ROWS> L;
    if (tile < 5 * D / TILE_ROWS) {
        const int row = tile * TILE_ROWS;
        copy_rows_async<D>(weights + (tile % 2) * TILE_ROWS * L::W_STRIDE, L::W_STRIDE,
                           weight_matrix(p, row / D) + (size_t)(row % D) * D, TILE_ROWS);
    }
    copy_async_commit();
}

template <int D, int TILE_ROWS>
__device__ void project_tiles(const fused_params &p, float *proj, const float *vectors, int b,
                              int n, float *weights, int first, int count, const float *in,
                              int in_stride)
{
    typedef fused_layout<D, 1, false, TILE_ROWS> L;
    for (int tile = first; tile < first + count; tile++) {
        copy_async_wait<1>();
        __syncthreads();
        project<D, 1, false, TILE_ROWS>(p, proj, vectors, b, n, 0, in, in_stride,
                                        weights + (tile % 2) * TILE_ROWS * L::W_STRIDE,
                                        tile * TILE_ROWS);
        __syncthreads();
        issue_tile<D, TILE_ROWS>(weights, p, tile + 2);
    }
}
// book:show

/*md
## The kernel

The kernel starts every copy before anything waits: the column's rows and
the four vectors (group 0), the weights, the mask.
*/

template <int D, int CLUSTER, bool RESIDENT, int TILE_ROWS>
__global__ void __launch_bounds__(FUSED_THREADS, 1) fused_msa_attention(const fused_params p)
{
    typedef fused_layout<D, CLUSTER, RESIDENT, TILE_ROWS> L;
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
    const int rank = CLUSTER > 1 ? cluster_block_rank() : 0;
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

    /*md
When the weight rows fit (`RESIDENT`: every $D \le 64$, and $D = 128$ split
over two blocks for moderate $S$), they come in two more groups,
$W_{q,k,v,g}$ and $W_o$. The first is split by warp: warp $w$ copies the
rows its tile in `project` uses and waits for those only (`copy_async_wait`
and `__syncwarp`), computing while the other warps' rows still arrive.
    */
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
        issue_tile<D, TILE_ROWS>(weights, p, 0);
        issue_tile<D, TILE_ROWS>(weights, p, 1);
    }

#pragma unroll 1
    for (int j = threadIdx.x; j < S; j += FUSED_THREADS)
        kept[j] = p.mask[((size_t)b * S + j) * N + n] != 0.0f ? 1.0f : 0.0f;
    if constexpr (CLUSTER > 1) {
        cluster_arrive(); /* "this block is running" */
        cluster_wait();   /* "so is the partner", while X is on its way */
    }

    /*md
Then phases 2 to 5. When the weights stream, there is no room to keep $G$:
the gate's tiles come after attention, gating $O$ in place.
    */
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
            partner = cluster_map_shared(gathered, rank ^ 1);
        attend<D, CLUSTER, RESIDENT>(proj, kept, probs, gathered, partner, rank, S, p.H);
        copy_async_wait<0>(); /* W_o */
        if constexpr (CLUSTER > 1) {
            cluster_sync(); /* both halves of O are in both blocks */
            project<D, CLUSTER, RESIDENT, L::OWN>(p, proj, vectors, b, n, rank, gathered,
                                                  L::X_STRIDE, weights + 4 * L::OWN * L::W_STRIDE,
                                                  4 * L::OWN);
        } else {
            __syncthreads();
            project<D, CLUSTER, RESIDENT, L::OWN>(p, proj, vectors, b, n, rank, proj, L::P_STRIDE,
                                                  weights + 4 * L::OWN * L::W_STRIDE, 4 * L::OWN);
        }
    } else {
        const int per_matrix = D / TILE_ROWS;
        project_tiles<D, TILE_ROWS>(p, proj, vectors, b, n, weights, 0, 3 * per_matrix, xn,
                                    L::X_STRIDE);                         /* Q, K, V */
        attend<D, CLUSTER, RESIDENT>(proj, kept, probs, gathered, gathered, rank, S, p.H);
        project_tiles<D, TILE_ROWS>(p, proj, vectors, b, n, weights, 3 * per_matrix, per_matrix,
                                    xn, L::X_STRIDE);                     /* G gates O */
        project_tiles<D, TILE_ROWS>(p, proj, vectors, b, n, weights, 4 * per_matrix, per_matrix,
                                    proj, L::P_STRIDE);                   /* out */
    }
}

/*md
## Launching it

Two blocks per column pay off when $2 B N$ blocks still fit in one wave
(one per multiprocessor, as `gpu_query()` counts them), $H$ is even,
$D \ge 64$ (for $D = 32$ a half block has too little to do) and the split
layout fits in the shared memory a block may opt in to
(`gpu_allow_shared_memory`). The cluster size is an attribute of
`cudaLaunchKernelEx`; block $x$ serves column $\lfloor x/2 \rfloor$.
The launch of each variant (`launch_variant`) and the choice among the
one-block plans (`plan_weights`: the weights resident, streamed in tiles
of 32 rows, or of 16) are in the source pages; the choice between one
block and two is this:
*/

// book:hide
static inline int fused_refuses(msa_size size, char *why, size_t capacity)
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

template <int D, int CLUSTER, bool RESIDENT, int TILE_ROWS = FUSED_TILE_ROWS>
static void launch_variant(const msa_args *args)
{
    typedef fused_layout<D, CLUSTER, RESIDENT, TILE_ROWS> L;
    const msa_size z = args->size;
    gpu_allow_shared_memory((const void *)fused_msa_attention<D, CLUSTER, RESIDENT, TILE_ROWS>,
                            L::bytes(z.S));
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
    CUDA_CHECK(
        cudaLaunchKernelEx(&config, fused_msa_attention<D, CLUSTER, RESIDENT, TILE_ROWS>, p));
    LAUNCH_CHECK();
}

/* One block per column: the weights resident when they fit, else streamed
 * in two tiles of 32 rows, else (a smaller card) in two tiles of 16. */
enum weight_plan { WEIGHTS_RESIDENT, WEIGHTS_STREAMED, WEIGHTS_STREAMED_SMALL, WEIGHTS_UNFIT };

template <int D>
static weight_plan plan_weights(int S, size_t limit)
{
    if (fused_layout<D, 1, true>::bytes(S) <= limit)
        return WEIGHTS_RESIDENT;
    if (fused_layout<D, 1, false>::bytes(S) <= limit)
        return WEIGHTS_STREAMED;
    if (fused_layout<D, 1, false, FUSED_TILE_ROWS / 2>::bytes(S) <= limit)
        return WEIGHTS_STREAMED_SMALL;
    return WEIGHTS_UNFIT;
}

static inline weight_plan plan_for(msa_size size, size_t limit)
{
    return size.D == 32   ? plan_weights<32>(size.S, limit)
           : size.D == 64 ? plan_weights<64>(size.S, limit)
                          : plan_weights<128>(size.S, limit);
}

static inline int one_block_unfit(msa_size size, const gpu_info *gpu, char *why, size_t capacity)
{
    if (plan_for(size, gpu->shared_per_block_optin) != WEIGHTS_UNFIT)
        return 0;
    const int S = size.S, rows = FUSED_TILE_ROWS / 2;
    const size_t least = size.D == 32   ? fused_layout<32, 1, false, rows>::bytes(S)
                         : size.D == 64 ? fused_layout<64, 1, false, rows>::bytes(S)
                                        : fused_layout<128, 1, false, rows>::bytes(S);
    char what[96];
    snprintf(what, sizeof what, "a column of S=%d, D=%d with its weights streamed", S, size.D);
    gpu_lacks_shared_memory(gpu, least, what, why, capacity);
    snprintf(why + strlen(why), capacity - strlen(why), " (chapter 7's layer holds any column)");
    return 1;
}

template <int D>
static void launch_one_block(const msa_args *args, weight_plan plan)
{
    if constexpr (D < 128) { /* at D = 128 the weights never fit whole */
        if (plan == WEIGHTS_RESIDENT)
            return launch_variant<D, 1, true>(args);
    }
    if (plan == WEIGHTS_STREAMED)
        launch_variant<D, 1, false>(args);
    else
        launch_variant<D, 1, false, FUSED_TILE_ROWS / 2>(args);
}

static inline void launch_one_block_per_column(const msa_args *args)
{
    const weight_plan plan = plan_for(args->size, gpu_query().shared_per_block_optin);
    switch (args->size.D) {
    case 32: launch_one_block<32>(args, plan); break;
    case 64: launch_one_block<64>(args, plan); break;
    default: launch_one_block<128>(args, plan); break;
    }
}
// book:show

/* Clusters exist from compute capability 9.0: before that, every column is
 * one block's, as the two-block variant needs a partner's shared memory.
 * The card must have them and so must the code the program was built with:
 * built for an older card (PTX for 7.5 run on a Hopper), the kernel holds
 * no cluster code, whatever the card could do. */
static inline void fused_launch(const msa_args *args)
{
    const msa_size z = args->size;
    const gpu_info gpu = gpu_query();
    const size_t limit = gpu.shared_per_block_optin;
    const bool clusters = gpu.compute_major >= 9 && gpu.code_major >= 9;
    const bool split = clusters && (long)z.B * z.N * 2 <= gpu.sm_count && z.H % 2 == 0;
    if (split && z.D == 64 && fused_layout<64, 2, true>::bytes(z.S) <= limit)
        launch_variant<64, 2, true>(args);
    else if (split && z.D == 128 && fused_layout<128, 2, true>::bytes(z.S) <= limit)
        launch_variant<128, 2, true>(args);
    else
        launch_one_block_per_column(args);
}

/*md
## The race

With every key kept (`mask=kept`, as in most real MSAs; the checks use the
drawn mask) at the small case, on the {{gpu|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}},
one forward of the fused kernel takes {{median_ms|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms, against
{{median_ms|unfused|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms for the sixteen launches of
the framework-style layer. As CUDA graphs, the unfused layer drops to
{{median_ms|unfused+graph|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms (much of its time was
the CPU issuing launches) and the fused kernel stays where it was
({{median_ms|fused+graph|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms).
What the graph leaves to the unfused layer is the GPU's own cost of sixteen
dependent kernels, each starting, spreading over the machine and draining
before the next begins. (The appendix measures what the split buys.)

The same layer written in PyTorch, on the very inputs the chapter program
saves (`bench/torch_race.py`: the module, checked against the fused
kernel's output, then timed the same way), runs in
{{median_ms|torch-eager|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms eager and
{{median_ms|torch-compile|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms under
`torch.compile` (FP32, TF32 off); allowed TF32, compiled,
{{median_ms|torch-compile-tf32|B=2 S=8 N=32 D=64 H=4 mask=kept}} ms. At this size PyTorch's
compiled layer is still a chain of kernels, each with its launch and its
drain, on {{count|10*B*S*N*D*D+4*B*N*S*S*D|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} floating-point operations (the floors above). (The module adds one line
to the usual masked softmax, so that a column with no kept key gets
$b_o$.)

Which of these champions is the one to beat? The MSA layer's race has one
baseline, as the triangle's has `cublas-tf32` (chapter 1): the fastest
champion at the size raced, on the card that ran it, the unfused layer or
PyTorch in any of its four forms (eager or compiled, with TF32 allowed or
not). Every speedup of the layer in this book, in the prose, the tables
and the charts, is over that baseline, for the reason chapter 1 gave: it
is the fastest way a reader could run the layer without our kernels. At
the small case on the {{gpu|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} it is
`{{champion|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}}`, and the fused kernel is
{{speedup|fused|champion|B=2 S=8 N=32 D=64 H=4 mask=kept}} times as fast: it wins by being one
launch, not by faster arithmetic. At the AlphaFold shapes, where the work
decides and not the launches, the baseline is
`{{champion|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}}`; when that is PyTorch with TF32
allowed, the FP32 kernels of chapters 6 and 7 race it with the handicap
the triangle's FP32 kernels have, on a slower engine and far more
accurate, and chapter 13 meets it on its own engine. The tables keep the
other champions' times.

{{figure|race-chapter6}}

## Where the time goes

The fused kernel is far from the floors computed at the start. At $S = 8$
it takes {{median_ms|fused|B=2 S=8 N=32 D=32 H=4 mask=kept}},
{{median_ms|fused|B=2 S=8 N=32 D=64 H=4 mask=kept}} and
{{median_ms|fused|B=2 S=8 N=32 D=128 H=4 mask=kept}} ms with $D = 32$, 64 and 128:
the work grows sixteen times, the time far less: most of it is a fixed
cost. What bounds the kernel is the chain of waits inside a block, which
`clock64()` marks lay out phase by phase. The longest, over a third of the
block's time, comes before LayerNorm: each thread first issues its share
of the 40 KB of weight rows that all 128 blocks request at once, 5 MB of
requests for the same 80 KB. Then every phase takes far longer than its
arithmetic, one dependent step after another, with eight warps per
multiprocessor to hide the latencies.

With 256 columns of 64 sequences the fused kernel at best keeps pace:
{{median_ms|fused|B=1 S=64 N=256 D=64 H=8 mask=kept}} ms against
{{median_ms|unfused|B=1 S=64 N=256 D=64 H=8 mask=kept}} ms at $D = 64$,
{{median_ms|fused|B=1 S=64 N=256 D=128 H=8 mask=kept}} ms against
{{median_ms|unfused|B=1 S=64 N=256 D=128 H=8 mask=kept}} ms at $D = 128$. A
multiprocessor runs one block of eight warps holding a whole column, too
few warps to hide each step's latency, while cuBLAS computes the
projections of all columns as one large, well-tiled product. And the
kernel stops at $S = 64$ by construction. Chapter 7 takes it from there.
*/
