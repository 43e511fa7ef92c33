// chapters/07-tiled/tiled.cu - Chapter 7: MSA column attention at AlphaFold scale, with an
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

Chapter 6 won its race by keeping a whole column of the MSA inside one
thread block. That is exactly what stops working when the MSA gets deep.
This chapter rebuilds the layer so that it runs at any depth $S$, with
memory that grows like the inputs and never like $S^2$, and then asks how
close it comes to what the arithmetic allows.

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
let alone the rest, and chapter 6's softmax, with at most two keys per lane,
was built for $S \le 64$ anyway. The unfused baseline has no such wall
because it keeps nothing on chip: every intermediate goes to device memory,
including all $B N H S^2$ scores. At $S = 512$ that is 537 million floats,
2.1 GB, written by one product, read and rewritten by the softmax and read
again by the next product. At $S = 1024$, $N = 384$ it is 12.9 GB. The
memory the layer needs grows with the square of the depth, and so does the
traffic.

We want the best of both: the unfused layer's freedom from size limits, and
chapter 6's refusal to send an $S \times S$ matrix through memory.

## The work, and the floor

The useful work is the one the previous chapter counted: $10\,S N D^2$
floating-point operations for the five projections ($Q$, $K$, $V$, $G$ and
the output, a multiply and an add for each of $D^2$ weights per row) and
$4\,N S^2 D$ for the two attention products, per batch entry. The H200's
132 multiprocessors each retire 128 FP32 fused multiply-adds per clock; at
1.98 GHz that is 66.9 TFLOP/s, and dividing gives the time no FP32 kernel
can beat:

| shape | projections | attention | total | FP32 floor |
|---|---|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | 21.5 GFLOP | 4.3 GFLOP | 25.8 GFLOP | 0.385 ms |
| B=1 S=512 N=256 D=256 H=8 | 85.9 GFLOP | 68.7 GFLOP | 154.6 GFLOP | 2.31 ms |
| B=1 S=1024 N=384 D=64 H=8 | 16.1 GFLOP | 103.1 GFLOP | 119.3 GFLOP | 1.78 ms |

The bytes are no obstacle by comparison: the input and the output of the
second case are 134 MB each, 0.06 ms at the card's 4.8 TB/s. So this is an
arithmetic problem, and the two kinds of arithmetic are not alike. The
projections are one big matrix product: every one of the $R = B S N$ rows
is multiplied by the same $D \times 5D$ weights. Attention is a small
product per column and head, $S \times d$ by $d \times S$, that couples all
the rows of a column. In the first two shapes the projections dominate; in
the extra-MSA shape, with $d = 8$, attention is 86% of the work.

## Where the projections go

Chapter 6 computed the projections inside the attention kernel. At depth
that decision costs more than it saves. A block can no longer hold a whole
column, so it works on a tile of queries, say 64 rows; but those 64 queries
attend to every key of the column, so the block needs $K$ and $V$ for all
$S$ rows. Either each of the $S/64$ query tiles of a column computes the
whole column's $K$ and $V$ itself, which multiplies that part of the work
by $S/64$ (8 at $S = 512$: 327 GFLOP of projections instead of 86, twice
the work of the whole layer), or one block computes them once for all the
queries of a column and head and keeps them, $2 S d$ floats, which is the
size wall again ($S$ about 900 for $d = 32$).

So we split the layer where its two kinds of work meet, and let each part be
done by what does it best:

```
 launch 1  order keys   each column's sequences,     mask -> order, biases (B N x S),
                        kept keys first              counts
 launch 2  count keys   where each column's kept     counts -> starts; the total,
                        keys start                   straight to the host
 launch 3  prepare      LayerNorm every row, kept    msa  -> Xn (R x (D+8))
                        keys' rows first
                        stack Wq Wg Wk Wv; Wo | bo   weights -> W (4D x D), Wob (D x (D+8))
 launch 4  cuBLAS       P = Xn W^T, kept-key rows    one GEMM, kept x D by D x 4D
 launch 5  cuBLAS       P = Xn W^T, the other rows   one GEMM, (R - kept) x D by D x 2D
 launch 6  attention    per (b, n, head, query tile): online softmax over the
                        column's kept keys, then O = sigmoid(G + bg) * (A V)
                                                     P -> O (R x (D+8)), in Xn's place
 launch 7  cuBLAS       out = [O 1] Wob^T            one GEMM, R x (D+8) by (D+8) x D
```

The four projections become GEMMs with many output features, the shape
cuBLAS is tuned for. The price is the traffic of the intermediate: $P$ is
up to $4 R D$ floats, 537 MB at $S = 512$, written once and read once,
about a quarter of a millisecond at the card's 4.8 TB/s; a tenth of the
FP32 floor, a real share of the TF32 one. Why the rows of kept keys come
first, and why the projections take two GEMMs, is the subject of the next
section. The results below measure what the split costs and what it buys.

Two small tricks save launches. The output bias rides inside the
last product: $O$ gets one more feature that is always 1, and $W_o$ one
more input feature that holds $b_o$, so $[O\ 1]\,[W_o\ b_o]^T = O W_o^T + b_o$
with no separate bias pass over the output. (Seven zero features follow the
1, so that a row is a whole number of 32-byte sectors, the unit in which
the memory system moves data: no row shares a sector with the next, and the
GEMM does no more passes over its inner dimension than it would for $D$
alone.) And $O$ is written over $\hat X$, which launches 4 and 5 consumed:
the layer's scratch is $R\,(5D + 11)$ floats and the weights, against the
baseline's $10 R D + B N H S^2$.
*/

#include <math.h>
#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "async_copy.h"
#include "msa.h"
#include "tensor_core.h" /* to_tf32 (cvt.rna.tf32.f32) and mma_tf32 (mma.sync m16n8k8) */
#include "warp_reduce.h"

#define TILED_STAGE_KEYS 64     /* keys per stage of shared memory */
#define TILED_MAX_WARPS 4       /* warps per attention block */
#define TILED_SHORT_COLUMN 256  /* below this depth, d = 32 takes two rows a lane */
#define TILED_PREP_THREADS 256
#define TILED_SCAN_THREADS 256
#define TILED_LIST_THREADS 512
#define TILED_EXTRA 8            /* O's extra features: 1, then seven zeros */
#define TILED_RENORM_LIMIT 256.0f /* 2^8: how far a weight may grow before the reference moves */

/*md
## Launches 1 to 3: the kept keys first

A masked key gets weight zero, so it contributes nothing to the sum of any
query. Instead of computing its score and then throwing it away, we can
leave it out. And if no query ever reads a key's $K$ and $V$, there is no
reason to compute them either: of the four projections, a masked row needs
only two, $Q$ and $G$ (it is still a query, and still has an output).

How much that saves depends on the data. Real MSAs are padded at the end of
shallow alignments; our drawn mask has, per column, a one-in-eight chance
each of keeping every key, none or exactly one, and otherwise keeps each key
with probability 3/4, so on average $1/8 + 5/8 \cdot 3/4 \approx 59\%$ of
the keys survive: the attention does 59% of its nominal work, and the $K$
and $V$ projections 59% of theirs: skipping the rest saves about a sixth
of all the projection work.
The tally of useful work does not change: it is the formula above, for
every shape and every mask. So the time can beat what the floor predicts,
and the table reports a rate computed from the nominal count. To keep that
honest, the chapter also races `fused-tiled+dense`, the same kernels fed
with every key (each projected, masked ones weighted exactly zero).

A GEMM works on a block of consecutive rows, so to project only the kept
rows they must be consecutive. The first three launches arrange that:

1. `tiled_order_keys` writes, for every column $(b, n)$, its *order*: the
   sequences it keeps, in increasing $s$, then the ones it masks; beside
   each position a bias, 0 for a kept key and $-\infty$ for a masked one;
   and the count of kept keys. A block takes 32 neighbouring columns of
   one batch entry, one lane per column, so that the warps read the mask
   in rows of 32 consecutive floats; its 16 warps split the $S$ sequences
   into runs, count the kept keys of each run, and add the counts up in
   shared memory to find where each run's keys go. Writing the order with
   a lane per column would send the 32 lanes of a store to 32 columns'
   lists, 32 different places; so for the second pass each lane gathers 32
   mask values of its column into the bits of one word, and the warp then
   takes the columns one at a time, a lane per sequence, the position of
   each kept key being the number of kept bits below it (`__popc`).
2. `tiled_count_keys`, one block, adds up the counts (a prefix sum, with
   cub's `BlockScan`) to find where each column's kept keys start in one
   list of all the layer's kept rows, followed by all the others.
3. `tiled_prepare` normalises every row (one warp per row, as in chapter 6,
   with the row's $D$ values in registers between the two passes) and
   writes it to its place in that list, and its first blocks copy the
   weights into the stacked layout the GEMMs read: $W_q$ and $W_g$ first,
   then $W_k$ and $W_v$.

Then one GEMM projects the kept rows onto all $4D$ features, and a second
one the other rows onto the first $2D$, $Q$ and $G$. In the dense variant
the order is the identity and every row is "kept".

There is a catch. cuBLAS takes the number of rows as an argument of the
call, on the host, and that number is the count launch 2 computed on the
GPU. So launch 2 also writes the total straight into page-locked host
memory (mapped into the GPU's address space), the host records an event
behind it, issues launch 3, and waits for the event before it issues the
GEMMs: while it waits, the GPU has launch 3 to work on. Two cases skip the
wait and project every row onto all four (correct, only slower): a layer
whose $K$ and $V$ projections are under a GFLOP (some 20 us of cuBLAS in
FP32; below that, what skipping saves is small next to a stop on the
host), and a CUDA graph being captured, which cannot stop for the host at
all; the `+graph` rows of the race show what that costs.
*/

typedef struct {
    const float *msa, *mask, *ln_gamma, *ln_beta;
    const float *wq, *wk, *wv, *wg, *bg, *wo, *bo;
    float *xn;          /* R x (D + 8): LayerNorm'd rows, kept first; later gated O, 1, 7 zeros */
    float *proj;        /* R x 4D: Q | G | K | V (G before its bias and sigmoid), rows as in xn */
    int *order;         /* B N x S: each column's sequences, the kept ones first */
    int *slot;          /* R, as msa's rows: where in its column's order each row went */
    float *key_bias;    /* B N x S: 0 where `order` holds a kept key, -inf where a masked one */
    int *key_count;     /* B N: how many keys each column keeps */
    int *key_start;     /* B N + 1: first row of each column's kept keys; last entry: all kept */
    int *host_kept;     /* the total of kept keys in host memory, or NULL (see launch 2) */
    float *w_stack;     /* 4D x D: Wq, Wg, Wk, Wv */
    float *w_out;       /* D x (D + 8): Wo | bo and 7 zeros */
    int S, N, D, H;
    long rows;          /* R = B S N */
    int columns;        /* B N */
    int compact;        /* 1: masked keys go after the kept ones; 0: the order is s (dense) */
    int weight_blocks;  /* launch 3's blocks that stack weights; the rest normalise rows */
    float q_scale;      /* log2(e) / sqrt(d) */
} tiled_params;

/* The row of msa (and of out, and of O) for sequence s of column (b, n). */
static __device__ __forceinline__ size_t tiled_row(const tiled_params &p, int b, int s, int n)
{
    return ((size_t)b * p.S + s) * p.N + n;
}

/* A column (b, n) as the attention kernels and the LayerNorm see it, once
 * launches 1 and 2 have ordered its sequences, kept keys first. */
typedef struct {
    int b, n, h;
    int length;             /* how many keys the column keeps */
    int start;              /* the row of P (and xn) of its first kept key */
    int rest;               /* the row of its first masked sequence */
    const float *head;      /* P's row `start`, at the head's features */
    const float *key_bias;  /* the column's biases, by position in its order */
    const int *order;       /* the column's sequences, by position */
} tiled_column;

/* Column (b, n) as launch 2 left it. */
static __device__ __forceinline__ tiled_column column_of(const tiled_params &p, int b, int n)
{
    const int column = b * p.N + n;
    tiled_column c;
    c.b = b;
    c.n = n;
    c.h = 0;
    c.length = p.key_count[column];
    c.start = p.key_start[column];
    c.rest = p.key_start[p.columns] + (column * p.S - c.start);
    c.head = p.proj + (size_t)c.start * (4 * p.D);
    c.key_bias = p.key_bias + (size_t)column * p.S;
    c.order = p.order + (size_t)column * p.S;
    return c;
}

/* The row of P (and xn) that holds position i of the column's order. */
static __device__ __forceinline__ int column_row(const tiled_column &c, int i)
{
    return i < c.length ? c.start + i : c.rest + (i - c.length);
}

/* Where sequence s0 + j goes in its column's order: bit j of `bits` says
 * whether it is kept, and the kept (masked) ones of s0..s0+31 go, in order,
 * from kept_at (masked_at) on. */
static __device__ __forceinline__ int order_position(const tiled_params &p, unsigned bits, int j,
                                                     int s0, int kept_at, int masked_at)
{
    const int below = __popc(bits & ((1u << j) - 1)); /* kept ones before it */
    return !p.compact ? s0 + j : bits >> j & 1 ? kept_at + below : masked_at + (j - below);
}

/* Launch 1: a block per 32 neighbouring columns of one batch entry, the 16
 * warps each taking a run of the S sequences. First a lane per column: each
 * counts the kept keys of its column in its warp's run (reading the mask in
 * rows of 32 neighbouring floats), and the counts added up say where each
 * run's keys go. Then the warp writes its run 32 sequences at a time: each
 * lane gathers its column's 32 mask values into the bits of one word, and
 * the warp goes through the 32 columns, a lane per sequence, so that the
 * order and the biases go out to neighbouring addresses. */
__global__ void __launch_bounds__(TILED_LIST_THREADS) tiled_order_keys(const tiled_params p)
{
    constexpr int WARPS = TILED_LIST_THREADS / 32;
    __shared__ int run_count[WARPS][32];
    const int groups = (p.N + 31) / 32;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int b = blockIdx.x / groups, first_column = blockIdx.x % groups * 32;
    const int n = first_column + lane;
    const int run = (p.S + WARPS - 1) / WARPS;
    const int first = min(p.S, warp * run), last = min(p.S, first + run);
    const bool column = n < p.N;
    const float *mask = p.mask + (size_t)b * p.S * p.N + n;

    int kept = 0;
    if (column)
#pragma unroll 8
        for (int s = first; s < last; s++)
            kept += mask[(size_t)s * p.N] != 0.0f;
    run_count[warp][lane] = kept;
    __syncthreads();
    int before = 0, total = 0; /* kept keys in the runs before this one; in the column */
    for (int w = 0; w < WARPS; w++) {
        before += w < warp ? run_count[w][lane] : 0;
        total += run_count[w][lane];
    }
    int kept_at = before, masked_at = total + (first - before); /* where the next ones go */
    for (int s0 = first; s0 < last; s0 += 32) {
        const int here = min(32, last - s0);
        unsigned bits = 0; /* bit j: sequence s0 + j of this lane's column is kept */
        if (column)
            for (int j = 0; j < here; j++)
                bits |= (unsigned)(mask[(size_t)(s0 + j) * p.N] != 0.0f) << j;
        if (column) /* where each sequence went, for the LayerNorm: a lane per column */
            for (int j = 0; j < here; j++)
                p.slot[tiled_row(p, b, s0 + j, n)] =
                    order_position(p, bits, j, s0, kept_at, masked_at);
        for (int c = 0; c < 32 && first_column + c < p.N; c++) { /* a lane per sequence */
            const unsigned column_bits = __shfl_sync(0xffffffffu, bits, c);
            const int column_kept_at = __shfl_sync(0xffffffffu, kept_at, c);
            const int column_masked_at = __shfl_sync(0xffffffffu, masked_at, c);
            if (lane < here) {
                const size_t at = ((size_t)b * p.N + first_column + c) * p.S +
                                  order_position(p, column_bits, lane, s0, column_kept_at,
                                                 column_masked_at);
                p.order[at] = s0 + lane;
                p.key_bias[at] = column_bits >> lane & 1 ? 0.0f : -INFINITY;
            }
        }
        kept_at += __popc(bits);
        masked_at += here - __popc(bits);
    }
    if (column && warp == 0)
        p.key_count[(size_t)b * p.N + n] = p.compact ? total : p.S;
}

/* Launch 2, one block: where each column's kept keys start (a prefix sum of
 * the counts, cub's block scan), and how many there are in all. */
__global__ void __launch_bounds__(TILED_SCAN_THREADS) tiled_count_keys(const tiled_params p)
{
    typedef cub::BlockScan<int, TILED_SCAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_space;
    const int per_thread = (p.columns + TILED_SCAN_THREADS - 1) / TILED_SCAN_THREADS;
    const int first = min(p.columns, (int)threadIdx.x * per_thread);
    const int last = min(p.columns, first + per_thread);
    int mine = 0, before, all_kept;
    for (int c = first; c < last; c++)
        mine += p.key_count[c];
    Scan(scan_space).ExclusiveSum(mine, before, all_kept);
    for (int c = first; c < last; c++) {
        p.key_start[c] = before;
        before += p.key_count[c];
    }
    if (threadIdx.x == 0) {
        p.key_start[p.columns] = all_kept;
        if (p.host_kept)
            *p.host_kept = all_kept; /* straight into the host's memory */
    }
}

/* One warp per row of msa, taken in memory order: it normalises the row
 * and writes it to the row of xn that the row's slot in its column's order
 * says. Lane l holds features 4l..4l+3 and 4l+128..4l+131. */
static __device__ void prepare_layer_norm(const tiled_params &p, long block)
{
    const int D = p.D, lane = threadIdx.x % 32;
    const long row = block * (TILED_PREP_THREADS / 32) + threadIdx.x / 32;
    if (row >= p.rows)
        return;
    const tiled_column c = column_of(p, (int)(row / p.N / p.S), (int)(row % p.N));
    const float *x = p.msa + row * D;
    float *y = p.xn + (size_t)column_row(c, p.slot[row]) * (D + TILED_EXTRA);
    float4 value[2];
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const int f = 4 * lane + 128 * k;
        value[k] = f < D ? *reinterpret_cast<const float4 *>(x + f) : make_float4(0, 0, 0, 0);
        sum += value[k].x + value[k].y + value[k].z + value[k].w;
    }
    const float mean = warp_sum(sum) / D;
    float squares = 0.0f;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        if (4 * lane + 128 * k < D) {
            const float4 v = value[k];
            squares += (v.x - mean) * (v.x - mean) + (v.y - mean) * (v.y - mean) +
                       (v.z - mean) * (v.z - mean) + (v.w - mean) * (v.w - mean);
        }
    }
    const float inverse_std = 1.0f / sqrtf(warp_sum(squares) / D + (float)MSA_LAYERNORM_EPS);
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const int f = 4 * lane + 128 * k;
        if (f < D) {
            const float4 v = value[k];
            const float4 gamma = *reinterpret_cast<const float4 *>(p.ln_gamma + f);
            const float4 beta = *reinterpret_cast<const float4 *>(p.ln_beta + f);
            float4 out;
            out.x = (v.x - mean) * inverse_std * gamma.x + beta.x;
            out.y = (v.y - mean) * inverse_std * gamma.y + beta.y;
            out.z = (v.z - mean) * inverse_std * gamma.z + beta.z;
            out.w = (v.w - mean) * inverse_std * gamma.w + beta.w;
            *reinterpret_cast<float4 *>(y + f) = out;
        }
    }
}

static __device__ void prepare_weights(const tiled_params &p, long block)
{
    const int D = p.D, stride = D + TILED_EXTRA;
    const long stacked = (long)D * D; /* float4s of the four stacked matrices */
    long i = block * TILED_PREP_THREADS + threadIdx.x;
    if (i < stacked) {
        const long element = 4 * i;
        const int row = (int)(element / D), column = (int)(element % D);
        const int matrix = row / D; /* Q and G first: the rows past the kept keys need only those */
        const float *w = matrix == 0 ? p.wq : matrix == 1 ? p.wg : matrix == 2 ? p.wk : p.wv;
        *reinterpret_cast<float4 *>(p.w_stack + element) =
            *reinterpret_cast<const float4 *>(w + (size_t)(row % D) * D + column);
        return;
    }
    i -= stacked;
    if (i < (long)D * stride / 4) {
        const long element = 4 * i;
        const int row = (int)(element / stride), column = (int)(element % stride);
        const float4 value =
            column < D ? *reinterpret_cast<const float4 *>(p.wo + (size_t)row * D + column)
            : column == D ? make_float4(p.bo[row], 0.0f, 0.0f, 0.0f)
                          : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        *reinterpret_cast<float4 *>(p.w_out + element) = value;
    }
}

/* Launch 3: the first weight_blocks blocks stack weights, the rest normalise rows. */
__global__ void __launch_bounds__(TILED_PREP_THREADS) tiled_prepare(const tiled_params p)
{
    const long block = blockIdx.x;
    if (block < p.weight_blocks)
        prepare_weights(p, block);
    else
        prepare_layer_norm(p, block - p.weight_blocks);
}

/*md
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
references was. Nothing in the argument needs $m$ to be the true maximum;
it needs the exponentials to stay in range. The textbook version moves $m$
to the running maximum at every block, which costs, per block and row, an
exponential for the factor, a multiply for each of the $d$ features of $a$,
and a maximum over the block's scores before any weight can be computed.

We move it less often. Any $m$ with $s_j - m \le \tau$ for all keys keeps
every weight at most $e^\tau$, and FP32 has range to spare: with $\tau$
equivalent to a factor of $2^8$, $\ell$ and $a$ stay far from overflow for
any $S$ a GPU can hold. So the kernel computes the block's weights against
the current $m$ and looks at their sum: if it is at most $2^8$, no weight
can exceed $2^8$ and the block is simply added in. Only when the sum is
larger (or infinite) does it take the slow path: find the block's maximum,
move $m$ up to it, rescale $\ell$ and $a$, and recompute the block's
weights. The very first block always takes that path, which sets $m$ to a
real score: the largest weight is then exactly 1, so $\ell \ge 1$ for any
row that has a kept key, and nothing underflows either. Once a row has seen
its typical scores the slow path almost never runs. (`fused-tiled+eager`
moves $m$ at every block, the textbook way, to measure the difference.)

Two details make the arithmetic cheaper still. The kernel works in base 2:
$e^{x} = 2^{x \log_2 e}$, so $q$ is multiplied once by
$\log_2 e / \sqrt d$ and every weight is one `ex2.approx` instruction on the
special-function unit. And where one lane computes a whole score, its
accumulator starts at $-m$ instead of 0, so the fused multiply-adds of the
dot product deliver $s_j - m$ directly.

The masked and all-masked cases now come for free. A column with no kept
key has no keys to walk: $\ell$ stays 0, and the kernel writes $O = 0$ (it
multiplies by $1/\ell$ only when $\ell > 0$), so after the output
projection the column's rows are $b_o$, as the layer's definition says.
Past the last kept key, in the last block of keys, a position's score is
set to $-\infty$ and its weight is exactly 0; a block with no kept key at
all is skipped before it can set $m$ to $-\infty$.
*/

static __device__ __forceinline__ float exp2_fast(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/*md
## Streaming the keys

Both attention kernels, FP32 and TF32, share the way keys reach them. A
block serves one column $(b, n)$, one head $h$ and a tile of query rows:
positions of the column's order, so a tile may hold kept and masked
sequences alike (every row needs its output). Its keys are the first
`length` positions of the order, and their rows of $P$ are consecutive,
which is what launches 1 to 3 were for. The block walks them in *stages*
of 64 keys. For each stage it copies the 64 rows of $K_h$ and of $V_h$
(each $d$ floats long) into shared memory with `cp.async`, 16 bytes per
copy, and each key's bias beside them, 4 bytes per copy: 0 for a key to
keep, $-\infty$ for a masked key of the dense variant; for a position past
the end of the keys, the thread writes $-\infty$ itself.

Two stages of shared memory alternate: while the block computes with one,
the copies of the next are in flight. A single barrier per stage separates
"the copies of stage $t$ have arrived" from "stage $t - 1$'s buffer may be
refilled". The copies of stage 0 are the first thing a block does, before
it loads its queries, so that the two wait together. (An earlier version
read the kept keys through a list of their indices, and had to wait for
the list before it could even start copying the keys.)

The row strides in shared memory differ per kernel (the tensor-core kernel
pads them, for reasons given below); `KEY_STRIDE` and `VALUE_STRIDE` say
how far apart two keys' rows are. `tiled_stages` holds the layout of the two
stages in shared memory and the move of the walk (start the copies of the
next stage), so that each kernel below only waits, computes and moves on.
*/

#define TILED_PAST_END_BIAS (-INFINITY)

/* Starts the copies of stage `stage`'s key and value rows and biases. */
template <int HD, int KEY_STRIDE, int VALUE_STRIDE>
__device__ __forceinline__ void fetch_stage(const tiled_params &p, const tiled_column &c,
                                            int stage, float *keys, float *values, float *bias)
{
    constexpr int PARTS = HD / 4; /* 16-byte pieces per row */
    const int first = stage * TILED_STAGE_KEYS;
    for (int chunk = threadIdx.x; chunk < TILED_STAGE_KEYS * PARTS; chunk += blockDim.x) {
        const int key = chunk / PARTS, part = chunk % PARTS;
        const int position = first + key;
        const bool inside = position < c.length;
        /* Past the end, the first key stands in (its weight will be 0). */
        const float *row = c.head + (size_t)(inside ? position : 0) * (4 * p.D) + 4 * part;
        copy_async_16(keys + key * KEY_STRIDE + 4 * part, row + 2 * p.D);
        copy_async_16(values + key * VALUE_STRIDE + 4 * part, row + 3 * p.D);
        if (part == 0) {
            if (inside)
                copy_async_4(bias + key, c.key_bias + position);
            else
                bias[key] = TILED_PAST_END_BIAS;
        }
    }
}

/* The block's column, head and first query position, from blockIdx.x. */
static __device__ __forceinline__ tiled_column block_column(const tiled_params &p,
                                                           int rows_per_block, int *first_row)
{
    const int tiles = (p.S + rows_per_block - 1) / rows_per_block;
    long index = blockIdx.x;
    const int tile = (int)(index % tiles);
    index /= tiles;
    const int h = (int)(index % p.H);
    index /= p.H;
    tiled_column c = column_of(p, (int)(index / p.N), (int)(index % p.N));
    c.h = h;
    c.head += h * (p.D / p.H);
    *first_row = tile * rows_per_block;
    return c;
}

/* The two stages of shared memory, laid out one after the other in the
 * block's dynamic shared memory, and the walk through them that both
 * attention kernels share. */
template <int HD, int KEY_STRIDE, int VALUE_STRIDE>
struct tiled_stages {
    static constexpr int KEYS = TILED_STAGE_KEYS;
    static constexpr size_t BYTES =
        (2 * (size_t)KEYS * (KEY_STRIDE + VALUE_STRIDE) + 2 * KEYS) * sizeof(float);
    float *keys;   /* [2][KEYS][KEY_STRIDE] */
    float *values; /* [2][KEYS][VALUE_STRIDE] */
    float *bias;   /* [2][KEYS] */

    __device__ explicit tiled_stages(float *shared)
        : keys(shared), values(keys + 2 * KEYS * KEY_STRIDE), bias(values + 2 * KEYS * VALUE_STRIDE)
    {
    }
    __device__ float *keys_of(int stage) const { return keys + (stage & 1) * KEYS * KEY_STRIDE; }
    __device__ float *values_of(int stage) const
    {
        return values + (stage & 1) * KEYS * VALUE_STRIDE;
    }
    __device__ float *bias_of(int stage) const { return bias + (stage & 1) * KEYS; }

    /* Starts the copies of stage + 1 into its buffer: called with stage = -1
     * first thing in the block, then right after the barrier that opens each
     * stage (which is when the other buffer is free again). */
    __device__ void fetch_next(const tiled_params &p, const tiled_column &c, int stage,
                               int stages) const
    {
        if (stage + 1 < stages)
            fetch_stage<HD, KEY_STRIDE, VALUE_STRIDE>(p, c, stage + 1, keys_of(stage + 1),
                                                      values_of(stage + 1), bias_of(stage + 1));
        copy_async_commit();
    }
};

/*md
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
FMAs. So a
lane must use each loaded feature for at least four FMAs, which means four
rows per lane, or the loads and not the FMAs set the pace. (The first
version of this kernel, kept as `fused-tiled+unsplit`, had two rows per
lane for $d = 32$, so by this count its loads took twice as long as its
FMAs; the race below shows what fixing that is worth.)

Four rows with all their $d$ features would be $8d$ registers of queries
and accumulators: 256 for $d = 32$, the whole register file of a lane. So
for the larger heads a row is *split*: `SPLIT` neighbouring lanes share
`ROWS` rows, each holding $d /$ `SPLIT` of their features. Each lane
computes its part of every score; two or four shuffles add the parts up,
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
32 FMAs per load; an earlier version did, and the race (in the notes of
this chapter) preferred four: past 16 FMAs per load, more rows per lane buy
nothing and cost warps per multiprocessor.

Short columns change that count. Four rows a lane at $d = 32$ need 255
registers, so a multiprocessor holds 8 warps, and a warp takes 64 rows, so
at $S = 128$ a block has only two warps. Each block waits twice, before
and after its arithmetic (for its first keys and queries, for the gate
logits), and 8 warps cannot cover those waits for one another.
Below $S = 256$ the kernel therefore gives a lane two rows at $d = 32$ and
asks the compiler, through `__launch_bounds__`, to fit in 128 registers:
four blocks of four warps, 16 warps per multiprocessor, at the price of
half the FMAs per load. (To fit, the compiler spills a few bytes to
the stack, `make ptxas` shows how many; the two ways we found to avoid
that, 4 keys per step or no register limit, were both slower.) The race
keeps the other choice as `fused-tiled+four-rows`: at $S = 128$ it takes
{{median_ms|fused-tiled+four-rows|B=1 S=128 N=256 D=256 H=8}} ms, against
{{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8}} ms for the kernel. At
$S = 512$ the trade goes the other way (the chapter's notes have the runs),
so there both are the same kernel.

A block has as many warps, up to four, as $S$ can fill. Keys are taken
eight at a time: one *step* computes the scores of its keys for the lane's rows, their weights, and adds them in.
The weights of a step are checked together against the $2^8$ limit, with
one vote across the warp, because a branch only pays when all 32 lanes go
the same way. The weights overwrite the scores in place; in the rare step
whose weights are too large, the scores are simply computed again before
the reference moves.
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

template <int HD, int ROWS, int SPLIT, int STEP, bool LAZY>
__device__ __forceinline__ void fp32_step(const float (&q)[ROWS][HD / SPLIT],
                                          float (&acc)[ROWS][HD / SPLIT], float (&m)[ROWS],
                                          float (&l)[ROWS], bool &first, const float *keys,
                                          const float *values, const float *bias, bool all_kept,
                                          int part)
{
    constexpr int F = HD / SPLIT;
    float s[ROWS][STEP], added[ROWS];
    fp32_scores<HD, ROWS, SPLIT, STEP>(s, q, m, keys, bias, all_kept, part);

    bool move = !LAZY || first;
    if (!move) { /* the usual case: weights against the current reference */
        bool too_large = false;
#pragma unroll
        for (int r = 0; r < ROWS; r++) {
            added[r] = 0.0f;
#pragma unroll
            for (int j = 0; j < STEP; j++) {
                s[r][j] = exp2_fast(s[r][j]);
                added[r] += s[r][j];
            }
            too_large |= !(added[r] <= TILED_RENORM_LIMIT); /* also catches inf and NaN */
        }
        move = __any_sync(0xffffffffu, too_large);
        if (move) /* rare: start again from the scores */
            fp32_scores<HD, ROWS, SPLIT, STEP>(s, q, m, keys, bias, all_kept, part);
    }
    if (move) { /* the reference moves up to the step's maximum (warp-uniform branch) */
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
                s[r][j] = exp2_fast(s[r][j] - shift);
                added[r] += s[r][j];
            }
        }
        first = false;
    }
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        l[r] += added[r];

    /* The weighted values: again one broadcast load feeds ROWS x 4 FMAs. */
#pragma unroll
    for (int j = 0; j < STEP; j++) {
#pragma unroll
        for (int c = 0; c < F; c += 4) {
            const float4 v = *reinterpret_cast<const float4 *>(values + j * HD + part * F + c);
#pragma unroll
            for (int r = 0; r < ROWS; r++) {
                acc[r][c] = fmaf(s[r][j], v.x, acc[r][c]);
                acc[r][c + 1] = fmaf(s[r][j], v.y, acc[r][c + 1]);
                acc[r][c + 2] = fmaf(s[r][j], v.z, acc[r][c + 2]);
                acc[r][c + 3] = fmaf(s[r][j], v.w, acc[r][c + 3]);
            }
        }
    }
}

/*md
When all the keys of the column have been seen, each lane finishes its rows
on its own: $O = a / \ell$ (or 0 when $\ell = 0$), times the gate
$\sigma(G + b_g)$, whose logits the projections left in $P$, written into
the lane's features of $O$, in the row of the sequence that the row's
position in the order names (the row of `out` it will become). The gate's
logits are needed only then,
so the block asks for them to be brought into L2 (`prefetch.global.L2`)
when it starts, and reads them at the end without waiting for device
memory. Even L2 is several hundred clocks away, and with two warps per
scheduler nothing hides that wait, so each lane asks for all the logits of
all its rows (and the order's entries for them) before it uses the first:
one wait instead of one per row.
(Nsight Compute's stall samples showed the row-by-row version spending a
fifth of the kernel's time at S = 128 waiting here.) The blocks of head 0 also write the row's constant features, a 1
and seven zeros, that carry $b_o$ through the last GEMM.
*/

static __device__ __forceinline__ float sigmoid(float x)
{
    return __fdividef(1.0f, 1.0f + __expf(-x));
}

static __device__ __forceinline__ void prefetch_l2(const float *address)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
}

/* MIN_BLOCKS: blocks that must fit on a multiprocessor at once (it caps the
 * registers). 0 leaves them free: it compiles like the one-argument
 * __launch_bounds__, where 1 does not (1 cost d = 8 13 registers and 8%). */
template <int HD, int ROWS, int SPLIT, int STEP, bool LAZY, int MIN_BLOCKS = 0>
__global__ void __launch_bounds__(TILED_MAX_WARPS * 32, MIN_BLOCKS)
    tiled_attention_fp32(const tiled_params p)
{
    constexpr int KEYS = TILED_STAGE_KEYS, F = HD / SPLIT, GROUPS = 32 / SPLIT;
    extern __shared__ float4 tiled_shared_fp32[];
    const tiled_stages<HD, HD, HD> ring(reinterpret_cast<float *>(tiled_shared_fp32));

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
## The TF32 kernel: the same walk on the tensor cores

Since Ampere, a warp can ask the tensor cores for a small matrix product in
one instruction. With 32-bit inputs the operands are TF32: a float with its
mantissa cut to 10 bits (the instruction `cvt.rna.tf32.f32` rounds to the
nearest such value), multiplied exactly and added in full FP32. The
instruction we use, `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`,
computes $C \leftarrow A B + C$ for $A$ of $16 \times 8$, $B$ of
$8 \times 8$ and $C$ of $16 \times 8$, each spread across the 32 lanes in a
fixed pattern. Write lane $= 4g + t$ ($g$ = 0..7, the *group*, and $t$ =
0..3). Then lane $(g, t)$ holds

- of $A$: rows $g$ and $g + 8$, columns $t$ and $t + 4$ (four values);
- of $B$: rows $t$ and $t + 4$ of column $g$ (two values);
- of $C$: rows $g$ and $g + 8$, columns $2t$ and $2t + 1$ (four values).

Each warp owns 16 query rows per *m-tile* (32 rows with two m-tiles for
$d \le 32$). The scores of a group of 8 keys are one $C$: $Q$ is $A$ (kept in
registers for the whole walk, $d/8$ fragments), $K^T$ is $B$, read from the
stage in shared memory. Then the softmax runs on the $C$ values in the
lanes' registers, exactly as in the FP32 kernel except that a row is spread
over the four lanes of a group, so the row maximum of the slow path takes
two shuffles. Finally $O \mathrel{+}= P V$ is another series of
`mma.sync` with $P$ as $A$.

Here a layout problem appears. The weights come out in $C$'s pattern
(columns $2t$ and $2t + 1$) but the next product wants them in $A$'s
(columns $t$ and $t + 4$). The usual repair is a round of shuffles. We
avoid it by choosing which key each column of the score tile stands for:
column $2t$ holds key $t$ and column $2t + 1$ holds key $t + 4$. A column
of $C$ is a column of $B$, so all this costs is that lane $(g, t)$ loads
its $B$ values from key row $\pi(g) = \lfloor g/2 \rfloor + 4\,(g \bmod 2)$
instead of row $g$. The weights then sit exactly where $A$ needs them: lane
$(g, t)$ holds, for row $g$, the weights of keys $t$ and $t + 4$.

The loads of $B$ from shared memory are single floats at 32 different
addresses; they are free of bank conflicts when the 32 addresses fall in 32
different banks. Lane $(g, t)$ reads key row $\pi(g)$ at feature $t$ for
$K$, and key row $t$ at feature $g$ for $V$. With a row stride of
$4 \pmod{32}$ floats the first pattern covers banks $4\pi(g) + t$, all 32 of
them; the second needs a stride of $8$ or $24 \pmod{32}$, giving banks
$8t + g$ or $24t + g$. So $K$ rows are padded to $d + 4$ floats and $V$
rows to $d + 8$ ($d = 8$: exactly 8).

Two more details decide the speed. The first is the rounding itself.
`cvt.rna.tf32.f32` is an instruction of its own, and the weights alone
would need 32 of them per lane for every 32 keys, on top of the keys and
values of each stage. But the tensor core does not need rounded operands:
handed a full FP32 value, it uses the sign, the exponent and the top ten
bits of the mantissa and drops the other thirteen, which is rounding toward
zero. So the kernel rounds only $Q$, once, as it loads the queries, and
gives the keys, the values and the weights to the tensor cores as they
are. The variant `fused-tiled-tf32+rounded` rounds every operand to
nearest instead: each stage in place, once, by the threads that copied it
(each right after its own copies land, before the barrier that shows the
stage to the other warps), and every weight before its product. The race
below shows what that care costs.

The second detail: a tensor-core product takes a few dozen clocks to
deliver its result, so two products into the same accumulator must not
follow each other. The scores of the four groups of 8 keys are accumulated
over the features in the order "feature block outer, key group inner",
which puts eight independent products (four groups, two m-tiles) between
any two that depend on each other.

TF32 costs precision: each product carries a relative error of about
$2^{-11}$ when its operands are rounded to nearest and up to twice that
when they are cut, and the check for these kernels (like the TF32 GEMMs of
the projections) uses the looser tolerance of 2e-3 on the relative error
of the output. In our checks, cutting instead of rounding made the error of
the output about a fifth larger, still some seven times inside the tolerance.
*/

template <int HD>
struct tf32_shape {
    static constexpr int TILES = HD <= 32 ? 2 : 1;               /* m-tiles of 16 rows per warp */
    static constexpr int KEY_STRIDE = HD + 4;                    /* = 4 mod 32 */
    static constexpr int VALUE_STRIDE = HD == 8 ? 8 : HD + 8;    /* = 8 or 24 mod 32 */
    typedef tiled_stages<HD, KEY_STRIDE, VALUE_STRIDE> Stages;
};

/* 32 keys (four groups of 8) against the warp's TILES x 16 query rows.
 * ROUNDED: the weights are rounded to TF32 (cvt.rna) before the product;
 * otherwise their FP32 bits go in as they are and the tensor core drops the
 * low ones. */
template <int HD, int TILES, bool LAZY, bool ROUNDED>
__device__ __forceinline__ void tf32_step(const uint32_t (&qa)[TILES][HD / 8][4],
                                          float (&o)[TILES][HD / 8][4], float (&m)[TILES][2],
                                          float (&l)[TILES][2], bool &first, const float *keys,
                                          const float *values, const float *bias, bool all_kept)
{
    constexpr int GROUPS = 4, KS = tf32_shape<HD>::KEY_STRIDE, VS = tf32_shape<HD>::VALUE_STRIDE;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int key_row = g / 2 + 4 * (g % 2); /* column 2t is key t, column 2t+1 key t+4 */

    float s[TILES][GROUPS][4];
#pragma unroll
    for (int mt = 0; mt < TILES; mt++)
#pragma unroll
        for (int kg = 0; kg < GROUPS; kg++) {
            s[mt][kg][0] = s[mt][kg][1] = -m[mt][0];
            s[mt][kg][2] = s[mt][kg][3] = -m[mt][1];
        }
    if (!all_kept) {
#pragma unroll
        for (int kg = 0; kg < GROUPS; kg++) {
            const float low = bias[8 * kg + t], high = bias[8 * kg + t + 4];
#pragma unroll
            for (int mt = 0; mt < TILES; mt++) {
                s[mt][kg][0] += low;
                s[mt][kg][1] += high;
                s[mt][kg][2] += low;
                s[mt][kg][3] += high;
            }
        }
    }
    /* Features outer, key groups inner: 4 x TILES independent products between
     * two that feed the same accumulator. The stage holds TF32 values already. */
#pragma unroll
    for (int kk = 0; kk < HD / 8; kk++) {
#pragma unroll
        for (int kg = 0; kg < GROUPS; kg++) {
            const float *key = keys + (8 * kg + key_row) * KS + 8 * kk + t;
            const uint32_t b0 = __float_as_uint(key[0]), b1 = __float_as_uint(key[4]);
#pragma unroll
            for (int mt = 0; mt < TILES; mt++)
                mma_tf32(s[mt][kg], qa[mt][kk], b0, b1);
        }
    }

    float w[TILES][GROUPS][4], added[TILES][2];
    bool move = !LAZY || first;
    if (!move) {
        bool too_large = false;
#pragma unroll
        for (int mt = 0; mt < TILES; mt++) {
            added[mt][0] = added[mt][1] = 0.0f;
#pragma unroll
            for (int kg = 0; kg < GROUPS; kg++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    w[mt][kg][e] = exp2_fast(s[mt][kg][e]);
                    added[mt][e / 2] += w[mt][kg][e];
                }
            too_large |= !(added[mt][0] <= TILED_RENORM_LIMIT) ||
                         !(added[mt][1] <= TILED_RENORM_LIMIT);
        }
        move = __any_sync(0xffffffffu, too_large);
    }
    if (move) {
#pragma unroll
        for (int mt = 0; mt < TILES; mt++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                float top = s[mt][0][2 * half];
#pragma unroll
                for (int kg = 0; kg < GROUPS; kg++)
                    top = fmaxf(top, fmaxf(s[mt][kg][2 * half], s[mt][kg][2 * half + 1]));
                top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 1));
                top = fmaxf(top, __shfl_xor_sync(0xffffffffu, top, 2));
                const float shift = first ? top : fmaxf(top, 0.0f);
                const float factor = first ? 0.0f : exp2_fast(-shift);
                m[mt][half] += shift;
                l[mt][half] *= factor;
#pragma unroll
                for (int dn = 0; dn < HD / 8; dn++) {
                    o[mt][dn][2 * half] *= factor;
                    o[mt][dn][2 * half + 1] *= factor;
                }
                added[mt][half] = 0.0f;
#pragma unroll
                for (int kg = 0; kg < GROUPS; kg++)
#pragma unroll
                    for (int e = 2 * half; e < 2 * half + 2; e++) {
                        w[mt][kg][e] = exp2_fast(s[mt][kg][e] - shift);
                        added[mt][half] += w[mt][kg][e];
                    }
            }
        first = false;
    }
#pragma unroll
    for (int mt = 0; mt < TILES; mt++) {
        l[mt][0] += added[mt][0]; /* this lane's share; the group's four are added at the end */
        l[mt][1] += added[mt][1];
    }

    /* O += P V: the weights of row g, keys t and t+4, are A's columns t and t+4. */
#pragma unroll
    for (int kg = 0; kg < GROUPS; kg++) {
        uint32_t a[TILES][4];
#pragma unroll
        for (int mt = 0; mt < TILES; mt++) {
            a[mt][0] = tf32_operand<ROUNDED>(w[mt][kg][0]); /* row g,     key t */
            a[mt][1] = tf32_operand<ROUNDED>(w[mt][kg][2]); /* row g + 8, key t */
            a[mt][2] = tf32_operand<ROUNDED>(w[mt][kg][1]); /* row g,     key t + 4 */
            a[mt][3] = tf32_operand<ROUNDED>(w[mt][kg][3]); /* row g + 8, key t + 4 */
        }
        const float *value = values + (8 * kg + t) * VS + g;
#pragma unroll
        for (int dn = 0; dn < HD / 8; dn++) {
            const uint32_t b0 = __float_as_uint(value[8 * dn]);
            const uint32_t b1 = __float_as_uint(value[4 * VS + 8 * dn]);
#pragma unroll
            for (int mt = 0; mt < TILES; mt++)
                mma_tf32(o[mt][dn], a[mt], b0, b1);
        }
    }
}

/* Rounds to TF32, in place, the key and value rows this thread copied into a
 * stage (the same chunks as fetch_stage): once its own copies have landed and
 * before the barrier that shows them to the other warps. Each value is then
 * rounded once per block instead of once per warp that reads it. */
template <int HD, int KEY_STRIDE, int VALUE_STRIDE>
__device__ __forceinline__ void round_stage_to_tf32(float *keys, float *values)
{
    constexpr int PARTS = HD / 4;
    for (int chunk = threadIdx.x; chunk < TILED_STAGE_KEYS * PARTS; chunk += blockDim.x) {
        const int key = chunk / PARTS, part = chunk % PARTS;
        float4 *rows[2] = {reinterpret_cast<float4 *>(keys + key * KEY_STRIDE + 4 * part),
                           reinterpret_cast<float4 *>(values + key * VALUE_STRIDE + 4 * part)};
#pragma unroll
        for (int i = 0; i < 2; i++) {
            float4 x = *rows[i];
            x.x = __uint_as_float(to_tf32(x.x));
            x.y = __uint_as_float(to_tf32(x.y));
            x.z = __uint_as_float(to_tf32(x.z));
            x.w = __uint_as_float(to_tf32(x.w));
            *rows[i] = x;
        }
    }
}

template <int HD, bool ROUNDED>
__global__ void __launch_bounds__(TILED_MAX_WARPS * 32) tiled_attention_tf32(const tiled_params p)
{
    typedef tf32_shape<HD> L;
    constexpr int KEYS = TILED_STAGE_KEYS, TILES = L::TILES;
    constexpr int KS = L::KEY_STRIDE, VS = L::VALUE_STRIDE;
    extern __shared__ float4 tiled_shared_tf32[];
    const typename L::Stages ring(reinterpret_cast<float *>(tiled_shared_tf32));

    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    const int rows_per_block = (blockDim.x / 32) * 16 * TILES;
    int first_row;
    const tiled_column c = block_column(p, rows_per_block, &first_row);
    const size_t width = 4 * (size_t)p.D;
    const int warp_row = first_row + warp * 16 * TILES;
    const int stages = (c.length + KEYS - 1) / KEYS;
    ring.fetch_next(p, c, -1, stages); /* stage 0's keys */

    uint32_t qa[TILES][HD / 8][4];
    float o[TILES][HD / 8][4], m[TILES][2], l[TILES][2];
#pragma unroll
    for (int mt = 0; mt < TILES; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int row = min(warp_row + 16 * mt + g + 8 * half, p.S - 1);
            const float *query = p.proj + (size_t)column_row(c, row) * width + c.h * HD + t;
            if (t == 0)
                prefetch_l2(query + p.D); /* the gate logits, needed at the end */
#pragma unroll
            for (int kk = 0; kk < HD / 8; kk++) {
                qa[mt][kk][half] = to_tf32(query[8 * kk] * p.q_scale);         /* column t */
                qa[mt][kk][2 + half] = to_tf32(query[8 * kk + 4] * p.q_scale); /* column t + 4 */
            }
            m[mt][half] = 0.0f;
            l[mt][half] = 0.0f;
#pragma unroll
            for (int dn = 0; dn < HD / 8; dn++)
                o[mt][dn][2 * half] = o[mt][dn][2 * half + 1] = 0.0f;
        }
    bool first = true;

    for (int stage = 0; stage < stages; stage++) {
        copy_async_wait<0>();
        if (ROUNDED)
            round_stage_to_tf32<HD, KS, VS>(ring.keys_of(stage), ring.values_of(stage));
        __syncthreads();
        ring.fetch_next(p, c, stage, stages);

        const float *stage_keys = ring.keys_of(stage);
        const float *stage_values = ring.values_of(stage);
        const float *stage_bias = ring.bias_of(stage);
        for (int j = 0; j < KEYS; j += 32) {
            if (stage * KEYS + j >= c.length)
                break;
            const unsigned kept = __ballot_sync(0xffffffffu, stage_bias[j + lane] == 0.0f);
            if (kept == 0)
                continue;
            tf32_step<HD, TILES, true, ROUNDED>(qa, o, m, l, first, stage_keys + j * KS,
                                                stage_values + j * VS, stage_bias + j,
                                                kept == 0xffffffffu);
        }
    }

    /* As in the FP32 kernel: all the gate logits and sequences first, one
     * wait for L2. */
    float2 gate[TILES][2][HD / 8], gate_bias[HD / 8];
    int sequence[TILES][2];
#pragma unroll
    for (int dn = 0; dn < HD / 8; dn++)
        gate_bias[dn] = *reinterpret_cast<const float2 *>(p.bg + c.h * HD + 2 * t + 8 * dn);
#pragma unroll
    for (int mt = 0; mt < TILES; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int row = min(warp_row + 16 * mt + g + 8 * half, p.S - 1);
            sequence[mt][half] = c.order[row];
            const float *logits =
                p.proj + (size_t)column_row(c, row) * width + p.D + c.h * HD + 2 * t;
#pragma unroll
            for (int dn = 0; dn < HD / 8; dn++)
                gate[mt][half][dn] = *reinterpret_cast<const float2 *>(logits + 8 * dn);
        }

    const int stride = p.D + TILED_EXTRA;
#pragma unroll
    for (int mt = 0; mt < TILES; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            float total = l[mt][half];
            total += __shfl_xor_sync(0xffffffffu, total, 1);
            total += __shfl_xor_sync(0xffffffffu, total, 2);
            const int row = warp_row + 16 * mt + g + 8 * half;
            if (row >= p.S)
                continue;
            const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
            const size_t at = tiled_row(p, c.b, sequence[mt][half], c.n);
            float *out = p.xn + at * stride + c.h * HD + 2 * t;
#pragma unroll
            for (int dn = 0; dn < HD / 8; dn++) {
                const float2 gl = gate[mt][half][dn], bg = gate_bias[dn];
                float2 y;
                y.x = o[mt][dn][2 * half] * inverse * sigmoid(gl.x + bg.x);
                y.y = o[mt][dn][2 * half + 1] * inverse * sigmoid(gl.y + bg.y);
                *reinterpret_cast<float2 *>(out + 8 * dn) = y;
            }
            if (c.h == 0 && t < 2) /* 1 0 0 0, then 0 0 0 0 */
                *reinterpret_cast<float4 *>(p.xn + at * stride + p.D + 4 * t) =
                    make_float4(t == 0 ? 1.0f : 0.0f, 0.0f, 0.0f, 0.0f);
        }
}

/*md
## Launching it

The launcher lays out its scratch, fills in the parameters and issues the
seven launches on the layer's stream, waiting once for the count of kept
keys as described above. The three GEMMs are `cublasGemmEx` calls
like the baseline's: row-major $Y = X W^T$ is column-major
$Y^T = W X^T$, with $W$ read transposed. The FP32 kernel asks for strict
FP32 (`CUBLAS_COMPUTE_32F`); the TF32 kernel lets cuBLAS use the tensor
cores (`CUBLAS_COMPUTE_32F_FAST_TF32`).

A size is refused when $D$ is over 256 (the LayerNorm keeps at most eight
floats a lane) or when the head size is not one of the instantiated
$d = 8, 16, 32, 64$. Every other $B$, $S$, $N$ and $H$ runs.
*/

typedef struct {
    size_t xn, proj, order, slot, key_bias, key_count, key_start, w_stack, w_out; /* in floats */
    size_t total;
} tiled_scratch;

static size_t round_up_64(size_t floats) { return (floats + 63) / 64 * 64; }

static tiled_scratch scratch_layout(msa_size z)
{
    const size_t rows = (size_t)z.B * z.S * z.N, columns = (size_t)z.B * z.N;
    tiled_scratch at;
    at.xn = 0;
    at.proj = at.xn + round_up_64(rows * (z.D + TILED_EXTRA));
    at.order = at.proj + round_up_64(rows * 4 * z.D);
    at.slot = at.order + round_up_64(rows);
    at.key_bias = at.slot + round_up_64(rows);
    at.key_count = at.key_bias + round_up_64(rows);
    at.key_start = at.key_count + round_up_64(columns);
    at.w_stack = at.key_start + round_up_64(columns + 1);
    at.w_out = at.w_stack + round_up_64((size_t)4 * z.D * z.D);
    at.total = at.w_out + round_up_64((size_t)z.D * (z.D + TILED_EXTRA));
    return at;
}

static size_t tiled_scratch_floats(msa_size z) { return scratch_layout(z).total; }

static int tiled_refuses(msa_size z, char *why, size_t capacity)
{
    if (z.D > 256) {
        snprintf(why, capacity, "D=%d: at most 256 features (the LayerNorm keeps 8 floats a lane)",
                 z.D);
        return 1;
    }
    if (z.D % z.H != 0) {
        snprintf(why, capacity, "D=%d is not a multiple of H=%d", z.D, z.H);
        return 1;
    }
    const int d = z.D / z.H;
    if (d != 8 && d != 16 && d != 32 && d != 64) {
        snprintf(why, capacity, "head size d=%d: the kernels are built for d = 8, 16, 32 or 64", d);
        return 1;
    }
    return 0;
}

/* y (rows x out, row stride ldy) = x (rows x in, stride ldx) w^T (w: out x in, stride ldw). */
static void tiled_gemm(const msa_args *args, cublasComputeType_t compute, float *y, int ldy,
                       const float *x, int ldx, const float *w, int ldw, int out, int in, long rows)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, out, (int)rows, in, &one, w,
                              CUDA_R_32F, ldw, x, CUDA_R_32F, ldx, &zero, y, CUDA_R_32F, ldy,
                              compute, CUBLAS_GEMM_DEFAULT));
}

/* Warps per attention block: as many as the queries can fill, at most four. */
static int warps_for(int S, int rows_per_warp)
{
    int warps = (S + rows_per_warp - 1) / rows_per_warp;
    return warps < 1 ? 1 : warps > TILED_MAX_WARPS ? TILED_MAX_WARPS : warps;
}

template <typename Kernel>
static void launch_attention(Kernel kernel, size_t shared_bytes, const tiled_params &p, int B,
                             int rows_per_warp, cudaStream_t stream)
{
    gpu_allow_shared_memory((const void *)kernel, shared_bytes);
    const int warps = warps_for(p.S, rows_per_warp);
    const int rows_per_block = warps * rows_per_warp;
    const long tiles = (p.S + rows_per_block - 1) / rows_per_block;
    const long blocks = (long)B * p.N * p.H * tiles;
    kernel<<<(unsigned)blocks, warps * 32, shared_bytes, stream>>>(p);
    LAUNCH_CHECK();
}

template <int HD, int ROWS, int SPLIT, int STEP, bool LAZY, int MIN_BLOCKS = 0>
static void launch_fp32(const tiled_params &p, int B, cudaStream_t stream)
{
    launch_attention(tiled_attention_fp32<HD, ROWS, SPLIT, STEP, LAZY, MIN_BLOCKS>,
                     tiled_stages<HD, HD, HD>::BYTES, p, B, 32 / SPLIT * ROWS, stream);
}

template <int HD, bool ROUNDED>
static void launch_tf32(const tiled_params &p, int B, cudaStream_t stream)
{
    launch_attention(tiled_attention_tf32<HD, ROUNDED>, tf32_shape<HD>::Stages::BYTES,
                     p, B, 16 * tf32_shape<HD>::TILES, stream);
}

/* Rows per lane and lanes per row for each head size (the table above).
 * short_columns: below S = 256, two rows a lane at d = 32 (see the prose). */
template <bool LAZY>
static void launch_fp32_for(int d, const tiled_params &p, int B, cudaStream_t stream,
                            bool short_columns)
{
    switch (d) {
    case 8: launch_fp32<8, 4, 1, 8, LAZY>(p, B, stream); break;
    case 16: launch_fp32<16, 4, 1, 8, LAZY>(p, B, stream); break;
    case 32:
        if (short_columns && p.S < TILED_SHORT_COLUMN)
            launch_fp32<32, 2, 2, 8, LAZY, 4>(p, B, stream); /* 128 registers, 4 blocks an SM */
        else
            launch_fp32<32, 4, 2, 8, LAZY>(p, B, stream);
        break;
    default: launch_fp32<64, 4, 4, 8, LAZY>(p, B, stream); break;
    }
}

/* The first version: a lane holds all d features of its rows, so fewer rows. */
static void launch_fp32_unsplit(int d, const tiled_params &p, int B, cudaStream_t stream)
{
    switch (d) {
    case 8: launch_fp32<8, 4, 1, 8, true>(p, B, stream); break;
    case 16: launch_fp32<16, 2, 1, 8, true>(p, B, stream); break;
    case 32: launch_fp32<32, 2, 1, 8, true>(p, B, stream); break;
    default: launch_fp32<64, 1, 1, 8, true>(p, B, stream); break;
    }
}

template <bool ROUNDED>
static void launch_tf32_for(int d, const tiled_params &p, int B, cudaStream_t stream)
{
    switch (d) {
    case 8: launch_tf32<8, ROUNDED>(p, B, stream); break;
    case 16: launch_tf32<16, ROUNDED>(p, B, stream); break;
    case 32: launch_tf32<32, ROUNDED>(p, B, stream); break;
    default: launch_tf32<64, ROUNDED>(p, B, stream); break;
    }
}

typedef enum { FP32, FP32_EAGER, FP32_UNSPLIT, FP32_FOUR_ROWS, TF32, TF32_ROUNDED } tiled_flavour;

static void tiled_attend(tiled_flavour flavour, int d, const tiled_params &p, int B,
                         cudaStream_t stream)
{
    if (flavour == TF32)
        launch_tf32_for<false>(d, p, B, stream);
    else if (flavour == TF32_ROUNDED)
        launch_tf32_for<true>(d, p, B, stream);
    else if (flavour == FP32 || flavour == FP32_FOUR_ROWS)
        launch_fp32_for<true>(d, p, B, stream, flavour == FP32);
    else if (flavour == FP32_EAGER)
        launch_fp32_for<false>(d, p, B, stream, true);
    else
        launch_fp32_unsplit(d, p, B, stream);
}

/* The count of kept keys, where the host can read it: page-locked host
 * memory that launch 2 writes through its device address, and the event
 * that says it is there. One of each for the process, made on first use. */
static volatile int *kept_on_host;
static int *kept_on_host_for_device;
static cudaEvent_t kept_counted;

static void count_on_host_ready(void)
{
    if (kept_on_host)
        return;
    int *memory;
    CUDA_CHECK(cudaHostAlloc(&memory, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&kept_on_host_for_device, memory, 0));
    CUDA_CHECK(cudaEventCreateWithFlags(&kept_counted, cudaEventDisableTiming));
    kept_on_host = memory;
}

/* Whether the host should wait for the count of kept keys before it issues
 * the GEMMs: only when the layer is projected on a plain stream (a CUDA
 * graph being captured cannot stop for the host), and only when the K and V
 * projections are worth at least a GFLOP (20 us of cuBLAS), so that what
 * skipping the masked rows saves is larger than the host's round trip. */
static bool wait_for_count(const msa_args *args, long rows, bool compact)
{
    cudaStreamCaptureStatus capture;
    CUDA_CHECK(cudaStreamIsCapturing(args->stream, &capture));
    const double kv_flops = 4.0 * rows * args->size.D * args->size.D;
    return compact && capture == cudaStreamCaptureStatusNone && kv_flops >= 1e9;
}

static void tiled_launch_with(const msa_args *args, tiled_flavour flavour, bool compact)
{
    const msa_size z = args->size;
    const int d = z.D / z.H;
    const tiled_scratch at = scratch_layout(z);
    tiled_params p;
    p.msa = args->msa;
    p.mask = args->mask;
    p.ln_gamma = args->ln_gamma;
    p.ln_beta = args->ln_beta;
    p.wq = args->wq;
    p.wk = args->wk;
    p.wv = args->wv;
    p.wg = args->wg;
    p.bg = args->bg;
    p.wo = args->wo;
    p.bo = args->bo;
    p.xn = args->scratch + at.xn;
    p.proj = args->scratch + at.proj;
    p.order = reinterpret_cast<int *>(args->scratch + at.order);
    p.slot = reinterpret_cast<int *>(args->scratch + at.slot);
    p.key_bias = args->scratch + at.key_bias;
    p.key_count = reinterpret_cast<int *>(args->scratch + at.key_count);
    p.key_start = reinterpret_cast<int *>(args->scratch + at.key_start);
    p.w_stack = args->scratch + at.w_stack;
    p.w_out = args->scratch + at.w_out;
    p.S = z.S;
    p.N = z.N;
    p.D = z.D;
    p.H = z.H;
    p.rows = (long)z.B * z.S * z.N;
    p.columns = z.B * z.N;
    p.compact = compact ? 1 : 0;
    p.weight_blocks =
        (int)(((long)z.D * z.D + (long)z.D * (z.D + TILED_EXTRA) / 4 + TILED_PREP_THREADS - 1) /
              TILED_PREP_THREADS);
    p.q_scale = (float)(1.4426950408889634 / sqrt((double)d));
    const bool wait = wait_for_count(args, p.rows, compact);
    if (wait)
        count_on_host_ready();
    p.host_kept = wait ? kept_on_host_for_device : NULL;

    const unsigned list_blocks = (unsigned)(z.B * ((z.N + 31) / 32));
    tiled_order_keys<<<list_blocks, TILED_LIST_THREADS, 0, args->stream>>>(p);
    LAUNCH_CHECK();
    tiled_count_keys<<<1, TILED_SCAN_THREADS, 0, args->stream>>>(p);
    LAUNCH_CHECK();
    if (wait)
        CUDA_CHECK(cudaEventRecord(kept_counted, args->stream));
    const long norm_blocks = (p.rows + TILED_PREP_THREADS / 32 - 1) / (TILED_PREP_THREADS / 32);
    tiled_prepare<<<(unsigned)(p.weight_blocks + norm_blocks), TILED_PREP_THREADS, 0,
                    args->stream>>>(p);
    LAUNCH_CHECK();

    /* Rows [0, kept) of xn are the kept keys: all four projections. The rest
     * are queries only: Q and G, the first 2D rows of the stacked weights.
     * Without the count, every row gets all four (correct, only slower). */
    long kept = p.rows;
    if (wait) {
        CUDA_CHECK(cudaEventSynchronize(kept_counted));
        kept = *kept_on_host;
    }
    const bool tf32 = flavour == TF32 || flavour == TF32_ROUNDED;
    const cublasComputeType_t compute = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const int wide = z.D + TILED_EXTRA;
    if (kept > 0)
        tiled_gemm(args, compute, p.proj, 4 * z.D, p.xn, wide, p.w_stack, z.D, 4 * z.D, z.D, kept);
    if (kept < p.rows)
        tiled_gemm(args, compute, p.proj + kept * 4 * z.D, 4 * z.D, p.xn + kept * wide, wide,
                   p.w_stack, z.D, 2 * z.D, z.D, p.rows - kept);
    tiled_attend(flavour, d, p, z.B, args->stream);
    tiled_gemm(args, compute, args->out, z.D, p.xn, wide, p.w_out, wide, z.D, wide, p.rows);
}

static void tiled_launch(const msa_args *args) { tiled_launch_with(args, FP32, true); }
static void tiled_launch_tf32(const msa_args *args) { tiled_launch_with(args, TF32, true); }
static void tiled_launch_tf32_rounded(const msa_args *args)
{
    tiled_launch_with(args, TF32_ROUNDED, true);
}
static void tiled_launch_dense(const msa_args *args) { tiled_launch_with(args, FP32, false); }
static void tiled_launch_eager(const msa_args *args) { tiled_launch_with(args, FP32_EAGER, true); }
static void tiled_launch_unsplit(const msa_args *args) { tiled_launch_with(args, FP32_UNSPLIT, true); }
static void tiled_launch_four_rows(const msa_args *args)
{
    tiled_launch_with(args, FP32_FOUR_ROWS, true);
}

extern const msa_kernel fused_tiled_kernel = {tiled_refuses, tiled_scratch_floats, tiled_launch};
extern const msa_kernel fused_tiled_tf32_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32};

/* The same layer with every key streamed (masked ones weighted zero), with
 * the reference moved at every step, with whole rows per lane, with four
 * rows a lane even for short columns, and with the TF32 operands rounded:
 * the comparisons below. */
extern const msa_kernel fused_tiled_dense_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_dense};
extern const msa_kernel fused_tiled_eager_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_eager};
extern const msa_kernel fused_tiled_unsplit_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_unsplit};
extern const msa_kernel fused_tiled_four_rows_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_four_rows};
extern const msa_kernel fused_tiled_tf32_rounded_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32_rounded};

/*md
## The race

Three shapes, each timed with every input and output of the layer in
device memory and the L2 cache flushed between repetitions; the checks ran
on the same inputs first. The unfused layer is timed on the same card in
the same session.

| shape | FP32 floor | unfused | fused-tiled | fused-tiled-tf32 |
|---|---|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | 0.385 ms | {{median_ms|unfused|B=1 S=128 N=256 D=256 H=8}} ms | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8}} ms | {{median_ms|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8}} ms |
| B=1 S=512 N=256 D=256 H=8 | 2.31 ms | {{median_ms|unfused|B=1 S=512 N=256 D=256 H=8}} ms | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8}} ms | {{median_ms|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8}} ms |
| B=1 S=1024 N=384 D=64 H=8 | 1.78 ms | {{median_ms|unfused|B=1 S=1024 N=384 D=64 H=8}} ms | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8}} ms | {{median_ms|fused-tiled-tf32|B=1 S=1024 N=384 D=64 H=8}} ms |

Against the unfused layer the FP32 kernel is
{{speedup|fused-tiled|unfused|B=1 S=128 N=256 D=256 H=8}},
{{speedup|fused-tiled|unfused|B=1 S=512 N=256 D=256 H=8}} and
{{speedup|fused-tiled|unfused|B=1 S=1024 N=384 D=64 H=8}} times faster at
the three shapes. The gap grows with the depth, because what the baseline
spends beyond the arithmetic is the $S^2$ scores going through memory, and
what it needs in memory grows the same way: the program prints each
kernel's scratch beside the inputs.

In useful work per second, the FP32 layer runs at
{{peak_pct|fused-tiled|B=1 S=128 N=256 D=256 H=8}}%,
{{peak_pct|fused-tiled|B=1 S=512 N=256 D=256 H=8}}% and
{{peak_pct|fused-tiled|B=1 S=1024 N=384 D=64 H=8}}% of the card's FP32
peak. Timing the launches one by one (with Nsight Compute; the notes
of this chapter have the table) shows where the rest goes: at $D = 256$
most of the time is cuBLAS's FP32 GEMMs, which is what we chose to pay
for the projections, and the attention kernel comes second; at $d = 8$ the
attention kernel is most of it, as the count of the work predicted.

Keep the kept keys in mind when reading these rates: the attention did
about 60% of its nominal work, and the $K$ and $V$ projections 60% of
theirs. Fed with every key (every row projected onto all four, every key
streamed), the same kernels take
{{median_ms|fused-tiled+dense|B=1 S=128 N=256 D=256 H=8}},
{{median_ms|fused-tiled+dense|B=1 S=512 N=256 D=256 H=8}} and
{{median_ms|fused-tiled+dense|B=1 S=1024 N=384 D=64 H=8}} ms: the
difference is what skipping the padding is worth on this mask. Replayed as
a CUDA graph, where the host cannot wait for the count and every row gets
all four projections while the attention still skips the masked keys, the
layer takes {{median_ms|fused-tiled+graph|B=1 S=128 N=256 D=256 H=8}},
{{median_ms|fused-tiled+graph|B=1 S=512 N=256 D=256 H=8}} and
{{median_ms|fused-tiled+graph|B=1 S=1024 N=384 D=64 H=8}} ms. Against
the plain runs, that is what projecting only the kept rows is worth; the
rest of the way to `+dense` is the attention's share.

The two other variants measure the two choices inside the kernel. With
whole rows per lane (`fused-tiled+unsplit`, two rows of all 32 features
for $d = 32$; for $d = 8$ it is the kernel itself) the layer takes
{{median_ms|fused-tiled+unsplit|B=1 S=128 N=256 D=256 H=8}},
{{median_ms|fused-tiled+unsplit|B=1 S=512 N=256 D=256 H=8}} and
{{median_ms|fused-tiled+unsplit|B=1 S=1024 N=384 D=64 H=8}} ms. Moving
the reference at every step, the textbook way (`fused-tiled+eager`), it
takes {{median_ms|fused-tiled+eager|B=1 S=128 N=256 D=256 H=8}},
{{median_ms|fused-tiled+eager|B=1 S=512 N=256 D=256 H=8}} and
{{median_ms|fused-tiled+eager|B=1 S=1024 N=384 D=64 H=8}} ms. The
textbook step costs extra per key and row (the maximum) and per step and
row (the factor, and $d$ multiplies), which is little next to the $2d$
FMAs per key and row of the products. With our scores, which rarely
exceed the first few by much, the lazy reference almost never moves after
the first step, so it saves exactly that extra work and no more: in our
runs the two ways stay within a few percent of each other at every shape.

The tensor cores change the balance. With TF32 the same seven launches take
{{median_ms|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8}} ms at the
AlphaFold shape, {{speedup|fused-tiled-tf32|fused-tiled|B=1 S=512 N=256 D=256 H=8}}
times faster than in FP32. Rounding every operand to nearest
(`fused-tiled-tf32+rounded`) takes
{{median_ms|fused-tiled-tf32+rounded|B=1 S=512 N=256 D=256 H=8}} ms there and
{{median_ms|fused-tiled-tf32+rounded|B=1 S=128 N=256 D=256 H=8}} ms at the
shallow shape (against
{{median_ms|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8}} ms), for an error
a fifth smaller. The arithmetic shrank by up to a factor of seven
(the H200's dense TF32 rate is about 494 TFLOP/s); the bytes did not. The
intermediates that the split into launches sends through memory, up to
537 MB of $Q K V G$ written and read back and $\hat X$ and $O$ beside
them, are some 2 GB at this shape, over 0.4 ms at 4.8 TB/s: a floor of its
own for this design. In FP32 it is a small part of the time;
with TF32 it is a large share of it. That is the price of the decision we
made at the start, and it shows where to go next: keep $Q$ and $G$ out of
memory altogether by computing them inside the attention kernel for the
block's own rows, where, unlike $K$ and $V$, they need no recomputation.
*/
