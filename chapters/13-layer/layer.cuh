// chapters/13-layer/layer.cuh - Chapter 13: chapter 7's MSA layer at any depth on the tensor
// cores: in TF32 (the attention here, the projections by cuBLAS), and to FP32 accuracy in
// 3xTF32 (the attention's third mode, the projections by chapter 11's GEMM).
//
//   make chapter13
//   build/chapter13 --only-new B=1 S=512 N=256 D=256 H=8 --reps 20

/*md
# The MSA layer on the tensor cores

## Can the MSA layer follow the triangle onto the tensor cores?

Chapters 8 to 10 moved the triangle onto the tensor cores, first in TF32
and then, three products for one, to FP32 accuracy. Can chapter 7's MSA
layer follow, at any depth, and what does it gain? This chapter puts its
attention on `mma.sync` in TF32, then takes the whole layer to FP32
accuracy with the split of chapter 9 and the GEMM of chapter 11, and races
both against the FP32 layer and PyTorch.

## The attention on `mma.sync`

Chapter 7's layer spends most of its time on FP32 multiply-adds: the
projection GEMMs at $D = 256$, the two products of the attention at
$d = 8$. Both can move to the tensor cores of chapter 8. The projections
only need cuBLAS to be allowed TF32 (`CUBLAS_COMPUTE_32F_FAST_TF32`); the
attention needs a kernel of its own, `tiled_attention_tf32`. Everything
else is chapter 7's: the same seven launches (`tiled_layer`, in
`chapters/07-tiled/layer.cu`), the same walk over stages of 64 kept keys
(`chapters/07-tiled/tiles.cuh`), the same online softmax with its lazy rescale.
What changes is who computes $S = Q K^T$ and $O \mathrel{+}= P V$:
`mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`, in the fragments of
chapter 8. With lane $= 4g + t$ ($g$ = 0..7, the *group*, and
$t$ = 0..3), lane $(g, t)$ holds

- of $A$ ($16 \times 8$): rows $g$ and $g + 8$, columns $t$ and $t + 4$;
- of $B$ ($8 \times 8$): rows $t$ and $t + 4$ of column $g$;
- of $C$ ($16 \times 8$): rows $g$ and $g + 8$, columns $2t$ and $2t + 1$.

Each warp owns 16 query rows per *m-tile* (32 rows with two m-tiles for
$d \le 32$). The scores of a group of 8 keys are one $C$: $Q$ is $A$ (kept
in registers for the whole walk, $d/8$ fragments), $K^T$ is $B$, read from
the stage in shared memory. The softmax then runs on the $C$ values in the
lanes' registers, as in chapter 7's kernel except that a row is spread
over the four lanes of a group: the row maximum of the slow path takes two
shuffles, and each lane's $\ell$ is its share of the row's sum, the four
added up at the end. Finally $O \mathrel{+}= P V$ is another series of
`mma.sync` with the weights $P$ as $A$. A step takes 32 keys, four groups
of 8.

## From scores to weights without shuffles

The weights come out in $C$'s pattern (lane $(g, t)$: columns $2t$ and
$2t + 1$) but the next product wants them in $A$'s (columns $t$ and
$t + 4$). The usual repair is a round of shuffles. We avoid it with a
freedom every product has: it sums over its $k$, and which key each $k$
stands for is ours to choose, as long as $A$ and $B$ agree. In
$O \mathrel{+}= P V$, let $k = t + 4j$ stand for key $2t + j$
(`weight_key`). Then lane $(g, t)$'s weights of keys $2t$ and $2t + 1$,
columns $2t$ and $2t + 1$ of the score tile, are exactly its $A$ values at
$k = t$ and $t + 4$: they stay where they are. All $B$ has to do is agree:
lane $(g, t)$ reads value rows $2t$ and $2t + 1$ of the group, at feature
$g$ of each block of 8.

## Loads of 16 bytes for the keys

The same freedom serves $S = Q K^T$, whose $k$ is the feature. As $B$,
lane $(g, t)$ holds rows $k = t$ and $t + 4$ of key column $g$ in each of
the $d / 8$ blocks of features: $d / 4$ values of one key row. In their
natural order they are features $t, t + 4, t + 8, \ldots$, four apart, and
take $d / 4$ loads of one float. So we number the features differently
(`score_feature`): in block $kk$, $k = t + 4j$ stands for feature
$8t + 2kk + j$ at $d = 32$ (in panels of 32 beyond that, all $d$ features
in one panel below it). Lane $t$'s values are then features $8t$ to
$8t + 7$ of the row, two loads of 16 bytes instead of eight of 4 (the
figure). $Q$, loaded once and kept in registers for the whole walk, is
loaded in the same order. A step of 32 keys at $d = 32$ loads $K$ 8 times.

{{figure|key-order}}

The values stay single floats: a $B$ fragment's two values must sit in
consecutive registers, and $k = t$ and $t + 4$ are two keys, two rows, so
a load of several features of one row would cost a move per value.

Both patterns are free of bank conflicts for the strides the kernel pads
its rows to. A 16-byte load is served eight lanes at a time: two values
of $g$, rows $g$ and $g + 1$, each with four lanes $t$ reading 16 bytes at
$8t$, banks $0..3, 8..11, 16..19$ and $24..27$ of their row. The two rows
fit together when the second starts 4 banks on, a key stride of 4 modulo
8 floats: 36 and 68 for $d = 32$ and 64. At $d = 16$ a lane's one load
covers features $4t$ to $4t + 3$, 16 banks per row, and the stride is 16;
at $d = 8$ it is an 8-byte load, served 16 lanes (four rows) at a time,
and the stride is 8. The values' single floats fall in banks
$2t \cdot v + g$ for a value stride $v$; with $v$ = 4 modulo 16 (20, 36,
68), $2tv$ is $8t$ modulo 32, and with $v$ = 12 ($d = 8$) it is $24t$:
either way the 32 lanes take 32 different banks. So $K$ rows are padded
to 8, 16, 36 and 68 floats and $V$ rows to $d + 4$. Nsight Compute counts
no excess shared-memory wavefronts for either at $d = 32$.

One more move goes. A step's scores must start at $-m$, the row's
reference, so that $2^s$ is the weight; written as `s = -m` and then
accumulated into, that is a copy of $-m$ into each of the 32 scores of a
lane. Instead the first block of features takes its accumulator from a
fragment that holds $-m$ and writes its result to the scores
(`mma_tf32_from`, $D = A B + C$ with $C$ left as it was), and the copies
are gone.

## Rounding, or cutting

`cvt.rna.tf32.f32` rounds a float to the nearest TF32 value, and it is an
instruction of its own: the weights alone would need 32 of them per lane
for every 32 keys, on top of the keys and values of each stage. Chapter 8
handed the tensor cores plain floats in `tf32+rows+cut`, and so does this
kernel: given a full FP32 value, the instruction is observed to use the
sign, the exponent and the top ten bits of the mantissa and to drop the
other thirteen, which is rounding toward zero. That is what we see, not a
promise of the PTX manual; the checks of this kernel and of its rounded
variant show it (both pass, and the cut kernel's error is somewhat larger,
as truncation predicts). So the kernel rounds only $Q$, once, as it loads
the queries, and gives the keys, the values and the weights to the tensor
cores as they are. The kernel takes the choice as a template argument, a
`tf32_mode`: this is `TF32_CUT`; `TF32_ROUNDED` rounds every operand to
nearest instead, each stage in place, once, by the threads that copied it
(`round_stage_to_tf32`, each thread right after its own copies land, before
the barrier that shows the stage to the other warps), and every weight
before its product.

A tensor-core product takes a few dozen clocks to deliver its result, so
two products into the same accumulator must not follow each other. The
scores of the four groups of 8 keys are accumulated over the features in
the order "feature block outer, key group inner", which puts eight
independent products (four groups, two m-tiles) between any two that
depend on each other.

TF32 costs precision. Rounded to nearest, an operand is off by at most
$2^{-11}$ of its value, so a product of two rounded operands is off by up
to about $2^{-10}$; cut, an operand is off by up to $2^{-10}$, and a
product of two cut ones by up to about $2^{-9}$. The product of two TF32
values is itself exact in FP32, and the products are summed into FP32
accumulators, but not as a chain of IEEE round-to-nearest additions like
`fmaf`: the instruction adds with its own order and rounding. The check
for this kernel (like the TF32 GEMMs of the projections) therefore uses the
looser tolerance of 2e-3 on the relative error of the output.
*/

// book:hide
#pragma once
#include <stdint.h>

#include "problems/msa.h"
#include "../07-tiled/layer.cuh" /* tiled_layer; via tiles.cuh, tiled_params and tiled_stages */
#include "device/tensor_core.h"     /* to_tf32, tf32_operand, mma_tf32 */
#include "device/tf32_split.h"      /* split_operand, mma_tf32x3 */
#include "../11-copy-engine/gemm.cuh" /* tf32x3_wgmma_gemm: chapter 11's GEMM on Hopper */
#include "mma_gemm.cuh"             /* tf32x3_mma_gemm: the same GEMM on mma.sync, before Hopper */
// book:show

/* How the attention hands its operands to the tensor cores. */
enum tf32_mode {
    TF32_CUT,     /* Q rounded; keys, values and weights as FP32 bits, which the tensor core cuts */
    TF32_ROUNDED, /* every operand rounded to the nearest TF32 value */
    TF32_SPLIT3   /* every operand split in two, three products for one (3xTF32) */
};

/* The TF32 operands a lane holds per value of A: one, or the big and the small part. */
static __host__ __device__ constexpr int parts_of(tf32_mode mode)
{
    return mode == TF32_SPLIT3 ? 2 : 1;
}

/*md
The renumberings of the sections above, as functions that the kernel, the
figure and a compile-time check share:
*/

/* Which feature each value a lane holds stands for. A product sums over its k,
 * so any order serves if A and B agree on it: S = Q K^T sums over the features,
 * O += P V over the keys. Features come in panels of 32 (all of them for d < 32);
 * lane t's values of K (k = t and t + 4 of every feature block of 8) are d / 4
 * consecutive features of each panel: loads of 16 bytes (one of 8 at d = 8). */
static __host__ __device__ constexpr int tf32_panel(int hd)
{
    return hd < 32 ? hd : 32;
}

/* S = Q K^T: the feature that k = t + 4 j (j = 0, 1) of feature block kk stands for. */
static __host__ __device__ constexpr int score_feature(int hd, int kk, int t, int j)
{
    const int panel = tf32_panel(hd), blocks = panel / 8;
    return kk / blocks * panel + t * (panel / 4) + 2 * (kk % blocks) + j;
}

/* Where feature block kk's k = t sits among a lane's loaded values of a key
 * row (load_panels, from feature t * panel / 4 of each panel); k = t + 4 follows. */
static __host__ __device__ constexpr int score_slot(int hd, int kk)
{
    const int panel = tf32_panel(hd), blocks = panel / 8;
    return kk / blocks * (panel / 4) + 2 * (kk % blocks);
}

/* Checked as the chapter compiles, for every head size: the renumbering takes
 * each feature once, and lane t finds at score_slot the feature it names. */
static constexpr bool score_order_holds(int hd)
{
    const int panel = tf32_panel(hd), width = panel / 4;
    unsigned long long seen = 0;
    for (int kk = 0; kk < hd / 8; kk++)
        for (int t = 0; t < 4; t++)
            for (int j = 0; j < 2; j++) {
                const int f = score_feature(hd, kk, t, j), i = score_slot(hd, kk) + j;
                if (f < 0 || f >= hd || (seen >> f & 1) ||
                    f != i / width * panel + i % width + t * width)
                    return false;
                seen |= 1ull << f;
            }
    return seen == (hd == 64 ? ~0ull : (1ull << hd) - 1);
}
static_assert(score_order_holds(8) && score_order_holds(16) && score_order_holds(32) &&
              score_order_holds(64), "score_feature must name each feature once, as loaded");

/* O += P V: the key of the group of 8 that k = t + 4 j stands for. S's
 * column 2t + j is key 2t + j, and its weight sits where A wants k = t + 4 j
 * (lane (g, t), columns t and t + 4): so k = t + 4 j is key 2t + j. */
static __host__ __device__ constexpr int weight_key(int t, int j)
{
    return 2 * t + j;
}

/*md
The shape of the attention for head size $d$: how many m-tiles a warp
takes, the panel of features, the padded strides of the stage's rows; and
the loads in panels that give a lane its key features in 16-byte pieces.
*/

template <int HD>
struct tf32_shape {
    static constexpr int TILES = HD <= 32 ? 2 : 1;     /* m-tiles of 16 rows per warp */
    static constexpr int PANEL = tf32_panel(HD);
    static constexpr int KEY_STRIDE = HD <= 16 ? HD : HD + 4; /* 8, 16, 36, 68 */
    static constexpr int VALUE_STRIDE = HD + 4;               /* 12, 20, 36, 68 */
    typedef tiled_stages<HD, KEY_STRIDE, VALUE_STRIDE> Stages;
};

/* x[i] = row[i / W * P + i % W]: W consecutive floats from each panel of P,
 * in loads of 16 bytes (8 for W = 2, 4 for W = 1). */
template <int N, int W, int P>
__device__ __forceinline__ void load_panels(float (&x)[N], const float *row)
{
    constexpr int STEP = W % 4 == 0 ? 4 : W;
#pragma unroll
    for (int i = 0; i < N; i += STEP) {
        const float *at = row + i / W * P + i % W;
        if constexpr (STEP == 4) {
            const float4 v = *reinterpret_cast<const float4 *>(at);
            x[i] = v.x, x[i + 1] = v.y, x[i + 2] = v.z, x[i + 3] = v.w;
        } else if constexpr (STEP == 2) {
            const float2 v = *reinterpret_cast<const float2 *>(at);
            x[i] = v.x, x[i + 1] = v.y;
        } else {
            x[i] = *at;
        }
    }
}

// book:hide
template <int HD, int TILES>
__device__ __forceinline__ void tf32_split_pv(float (&o)[TILES][HD / 8][4],
                                              const float (&w)[TILES][4][4], const float *values);
// book:show

/*md
A step of the walk takes 32 keys. First a lane loads its features of the
four key rows it needs, in the order `score_feature` gave them.
*/

/* 32 keys (four groups of 8) against the warp's TILES x 16 query rows.
 * TF32_ROUNDED: the weights are rounded to TF32 (cvt.rna) before the product;
 * TF32_CUT: their FP32 bits go in as they are, and the tensor core (as we
 * observe it) drops the low ones; TF32_SPLIT3: keys, values and weights are
 * split as they are used, and Q comes split (qa[0] big, qa[1] small). */
template <int HD, int TILES, bool LAZY, tf32_mode MODE>
__device__ __forceinline__ void tf32_step(const uint32_t (&qa)[parts_of(MODE)][TILES][HD / 8][4],
                                          float (&o)[TILES][HD / 8][4], float (&m)[TILES][2],
                                          float (&l)[TILES][2], bool &first, const float *keys,
                                          const float *values, const float *bias, bool all_kept)
{
    typedef tf32_shape<HD> L;
    constexpr int GROUPS = 4, P = L::PANEL;
    constexpr int KEY_STRIDE = L::KEY_STRIDE, VALUE_STRIDE = L::VALUE_STRIDE;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;

    /* Lane (g, t) takes key row g of each group: its d / 4 features
     * (score_feature), in loads of 16 bytes (one of 8 at d = 8). */
    float key[GROUPS][HD / 4];
#pragma unroll
    for (int kg = 0; kg < GROUPS; kg++)
        load_panels<HD / 4, P / 4, P>(key[kg], keys + (8 * kg + g) * KEY_STRIDE + t * (P / 4));

    /*md
Then $S = Q K^T$: for each block of 8 features, a product per group of 8
keys and m-tile, the first of each chain started from $-m$.
    */
    /* The scores start from -m (the first product reads it; no copies), so
     * that 2^s is the weight. Features outer, key groups inner: 4 x TILES
     * independent products between two that feed the same accumulator. The
     * keys go in as the stage holds them (rounded to TF32 there when
     * TF32_ROUNDED, FP32 bits to be cut otherwise), or split here, once per
     * warp, for three products. */
    float start[TILES][4], s[TILES][GROUPS][4];
#pragma unroll
    for (int mt = 0; mt < TILES; mt++) {
        start[mt][0] = start[mt][1] = -m[mt][0];
        start[mt][2] = start[mt][3] = -m[mt][1];
    }
#pragma unroll
    for (int kk = 0; kk < HD / 8; kk++) {
        const int at = score_slot(HD, kk);
#pragma unroll
        for (int kg = 0; kg < GROUPS; kg++) {
            if (MODE == TF32_SPLIT3) {
                const tf32_pair b0 = split_operand<false>(key[kg][at]);
                const tf32_pair b1 = split_operand<false>(key[kg][at + 1]);
#pragma unroll
                for (int mt = 0; mt < TILES; mt++) {
                    const uint32_t(&big)[4] = qa[0][mt][kk];
                    const uint32_t(&small)[4] = qa[parts_of(MODE) - 1][mt][kk];
                    if (kk == 0)
                        mma_tf32x3_from(s[mt][kg], start[mt], big, small, b0, b1);
                    else
                        mma_tf32x3(s[mt][kg], big, small, b0, b1);
                }
            } else {
                const uint32_t b0 = __float_as_uint(key[kg][at]);
                const uint32_t b1 = __float_as_uint(key[kg][at + 1]);
#pragma unroll
                for (int mt = 0; mt < TILES; mt++) {
                    if (kk == 0)
                        mma_tf32_from(s[mt][kg], start[mt], qa[0][mt][kk], b0, b1);
                    else
                        mma_tf32(s[mt][kg], qa[0][mt][kk], b0, b1);
                }
            }
        }
    }
    /*md
Then chapter 7's online softmax on the $C$ fragments: the masked keys'
biases, and the weights against the lazy reference, with a vote of the
warp on whether any row's sum would grow too large.
    */
    if (!all_kept) { /* the biases of this lane's keys, 2t and 2t + 1 */
#pragma unroll
        for (int kg = 0; kg < GROUPS; kg++) {
            const float2 b = *reinterpret_cast<const float2 *>(bias + 8 * kg + 2 * t);
#pragma unroll
            for (int mt = 0; mt < TILES; mt++) {
                s[mt][kg][0] += b.x;
                s[mt][kg][1] += b.y;
                s[mt][kg][2] += b.x;
                s[mt][kg][3] += b.y;
            }
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
    /*md
If it would, the reference moves: the new maximum of each row, found in
two shuffles across the four lanes of its group, with $O$ and $\ell$
rescaled and the weights taken afresh.
    */
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

    /*md
And the second product, $O \mathrel{+}= P V$, with the weights where the
scores left them.
    */

    /* O += P V. The weights of row g sit at A's k = t and t + 4, which stand
     * for keys 2t and 2t + 1 (weight_key): lane (g, t) takes feature g of
     * each block of 8 from value rows 2t and 2t + 1. One float at a time: a
     * B fragment's two values must sit in consecutive registers, and these
     * come from two rows (a load of several features of one row would cost
     * a move per value instead). */
    constexpr bool ROUND = MODE == TF32_ROUNDED;
    if (MODE == TF32_SPLIT3) {
        tf32_split_pv<HD, TILES>(o, w, values);
    } else {
#pragma unroll
        for (int kg = 0; kg < GROUPS; kg++) {
            uint32_t a[TILES][4];
#pragma unroll
            for (int mt = 0; mt < TILES; mt++) {
                a[mt][0] = tf32_operand<ROUND>(w[mt][kg][0]); /* row g,     key 2t */
                a[mt][1] = tf32_operand<ROUND>(w[mt][kg][2]); /* row g + 8, key 2t */
                a[mt][2] = tf32_operand<ROUND>(w[mt][kg][1]); /* row g,     key 2t + 1 */
                a[mt][3] = tf32_operand<ROUND>(w[mt][kg][3]); /* row g + 8, key 2t + 1 */
            }
            const float *v0 = values + (8 * kg + weight_key(t, 0)) * VALUE_STRIDE + g; /* k = t */
            const float *v1 = values + (8 * kg + weight_key(t, 1)) * VALUE_STRIDE + g; /* k = t+4 */
#pragma unroll
            for (int dn = 0; dn < HD / 8; dn++) {
                const uint32_t b0 = __float_as_uint(v0[8 * dn]), b1 = __float_as_uint(v1[8 * dn]);
#pragma unroll
                for (int mt = 0; mt < TILES; mt++)
                    mma_tf32(o[mt][dn], a[mt], b0, b1);
            }
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

/*md
The kernel is chapter 7's launch 6 with the step above: it loads and
converts a warp's queries once (split, for 3xTF32), walks the stages of
kept keys, and ends as chapter 7's kernel does, with the gate.
*/

/* Launch 6 on the tensor cores: a block per column, head and query tile, each
 * warp 16 x TILES query rows, its operands handed over as MODE says. */
template <int HD, tf32_mode MODE>
__global__ void __launch_bounds__(TILED_MAX_WARPS * 32) tiled_attention_tf32(const tiled_params p)
{
    typedef tf32_shape<HD> L;
    constexpr int KEYS = TILED_STAGE_KEYS, TILES = L::TILES;
    constexpr int KEY_STRIDE = L::KEY_STRIDE, VALUE_STRIDE = L::VALUE_STRIDE;
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

    constexpr int SMALL = parts_of(MODE) - 1; /* where Q's small parts go, if split */
    uint32_t qa[parts_of(MODE)][TILES][HD / 8][4];
    float o[TILES][HD / 8][4], m[TILES][2], l[TILES][2];
#pragma unroll
    for (int mt = 0; mt < TILES; mt++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int row = min(warp_row + 16 * mt + g + 8 * half, p.S - 1);
            const float *query = p.proj + (size_t)column_row(c, row) * width + c.h * HD;
            if (t == 0)
                prefetch_l2(query + p.D); /* the gate logits, needed at the end */
#pragma unroll
            for (int kk = 0; kk < HD / 8; kk++) {
                const float *f = query + score_feature(HD, kk, t, 0); /* and f[1]: k = t + 4 */
                if (MODE == TF32_SPLIT3) { /* split once, for the whole walk */
                    const tf32_pair a0 = split_operand<false>(f[0] * p.q_scale);
                    const tf32_pair a2 = split_operand<false>(f[1] * p.q_scale);
                    qa[0][mt][kk][half] = a0.big;
                    qa[SMALL][mt][kk][half] = a0.small;
                    qa[0][mt][kk][2 + half] = a2.big;
                    qa[SMALL][mt][kk][2 + half] = a2.small;
                } else {
                    qa[0][mt][kk][half] = to_tf32(f[0] * p.q_scale);     /* k = t */
                    qa[0][mt][kk][2 + half] = to_tf32(f[1] * p.q_scale); /* k = t + 4 */
                }
            }
            m[mt][half] = 0.0f;
            l[mt][half] = 0.0f;
#pragma unroll
            for (int dn = 0; dn < HD / 8; dn++)
                o[mt][dn][2 * half] = o[mt][dn][2 * half + 1] = 0.0f;
        }
    bool first = true;

    /*md
The walk over the stages, as in chapter 7, the rounded mode rounding each
stage in place before the barrier:
    */
    for (int stage = 0; stage < stages; stage++) {
        copy_async_wait<0>();
        if (MODE == TF32_ROUNDED)
            round_stage_to_tf32<HD, KEY_STRIDE, VALUE_STRIDE>(ring.keys_of(stage),
                                                              ring.values_of(stage));
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
            tf32_step<HD, TILES, true, MODE>(qa, o, m, l, first, stage_keys + j * KEY_STRIDE,
                                                stage_values + j * VALUE_STRIDE, stage_bias + j,
                                                kept == 0xffffffffu);
        }
    }

    /*md
The end, as in chapter 7's kernel: $O / \ell$, gated, written to the
row of the sequence it came from.
    */
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
## Launching the TF32 layer

The launcher hands chapter 7's `tiled_layer` cuBLAS in TF32 for the
projections and `tiled_attention_tf32` for the attention, with 16 rows per
m-tile and warp. The sizes refused are chapter 7's.
*/

// book:hide
template <int HD, tf32_mode MODE>
static void launch_tf32(const tiled_params &p, int B, cudaStream_t stream)
{
    launch_attention(tiled_attention_tf32<HD, MODE>, tf32_shape<HD>::Stages::BYTES,
                     p, B, 16 * tf32_shape<HD>::TILES, stream);
}

/* Launch 6 (a tiled_attend_fn) for head size d. */
template <tf32_mode MODE>
static void launch_tf32_for(int d, const tiled_params &p, int B, cudaStream_t stream)
{
    switch (d) {
    case 8: launch_tf32<8, MODE>(p, B, stream); break;
    case 16: launch_tf32<16, MODE>(p, B, stream); break;
    case 32: launch_tf32<32, MODE>(p, B, stream); break;
    default: launch_tf32<64, MODE>(p, B, stream); break;
    }
}

/* The projections (a tiled_gemm_fn): cuBLAS on the tensor cores. */
static inline void tf32_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                             const float *w, int ldw, int out, int in, long rows)
{
    tiled_cublas_gemm(args, CUBLAS_COMPUTE_32F_FAST_TF32, y, ldy, x, ldx, w, ldw, out, in, rows);
}

static inline void tiled_launch_tf32(const msa_args *args)
{
    tiled_layer(args, true, tf32_gemm, launch_tf32_for<TF32_CUT>);
}

// book:show

/*md
## The whole layer to FP32 accuracy

TF32 misses the FP32 tolerance by more than an order of magnitude. Chapter 9's
split closes the gap for the attention at the price of
three products for one, and the attention kernel takes it as a third mode,
`TF32_SPLIT3`: $Q$ is split once, as the queries are loaded (`qa[0]` the
big parts, `qa[1]` the small ones, twice the registers of the cut kernel);
each key fragment is split as it comes out of shared memory, and feeds
`mma_tf32x3`, the three products of `common/device/tf32_split.h`, once per m-tile;
the weights and the values are split just before $O \mathrel{+}= P V$.

The keys and the values are split where they are used, by every warp that
reads them. The other way was measured too: each stage split once, by the
threads that copied it (as `round_stage_to_tf32` rounds it), into a big
copy in place and a small one beside it. It saves the warps the
conversions and costs twice the shared memory per stage and two loads per
fragment instead of one; at the AlphaFold depth it was no faster, so the
kernel keeps the simpler split at use.

One more thing changes in $P V$. The triangle's error doubled with every
doubling of the head size: the tensor core's additions lose a little in
the same direction, so the error of a sum grows with the number of
`mma.sync` that feed one accumulator. A row of $O$ gathers all the keys of
its column, 512 of them at the AlphaFold depth: 64 products of 8 keys, 192
with the split, into the same accumulator. So each step of 32 keys sums
its twelve products into accumulators of its own, fresh at zero, and adds
them to $O$ in the FP32 lanes, where additions round to nearest: no chain
of tensor-core additions is longer than twelve.
*/

template <int HD, int TILES>
__device__ __forceinline__ void tf32_split_pv(float (&o)[TILES][HD / 8][4],
                                              const float (&w)[TILES][4][4], const float *values)
{
    constexpr int VALUE_STRIDE = tf32_shape<HD>::VALUE_STRIDE;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int column_of[4] = {0, 2, 1, 3}; /* A's element e is the weight w[e] of C's pattern */
    float sum[TILES][HD / 8][4] = {};
#pragma unroll
    for (int kg = 0; kg < 4; kg++) {
        uint32_t big[TILES][4], small[TILES][4];
#pragma unroll
        for (int mt = 0; mt < TILES; mt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const tf32_pair a = split_operand<false>(w[mt][kg][column_of[e]]);
                big[mt][e] = a.big;
                small[mt][e] = a.small;
            }
        const float *v0 = values + (8 * kg + weight_key(t, 0)) * VALUE_STRIDE + g; /* k = t */
        const float *v1 = values + (8 * kg + weight_key(t, 1)) * VALUE_STRIDE + g; /* k = t + 4 */
#pragma unroll
        for (int dn = 0; dn < HD / 8; dn++) {
            const tf32_pair b0 = split_operand<false>(v0[8 * dn]);
            const tf32_pair b1 = split_operand<false>(v1[8 * dn]);
#pragma unroll
            for (int mt = 0; mt < TILES; mt++)
                mma_tf32x3(sum[mt][dn], big[mt], small[mt], b0, b1);
        }
    }
#pragma unroll
    for (int mt = 0; mt < TILES; mt++)
#pragma unroll
        for (int dn = 0; dn < HD / 8; dn++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                o[mt][dn][e] += sum[mt][dn][e];
}

/*md
## The projections on chapter 11's GEMM

The FP32 lanes are no way out for the projections. At the AlphaFold shape
($R = B S N = 131072$ rows, $D = 256$) they are
$2 R D \cdot 4D + 2 R D \cdot D$ = {{count_giga|8*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} +
{{count_giga|2*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} = {{count_giga|10*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP (chapter 7's
count; the output's GEMM computes 8 padding columns beside them, which
the useful work leaves out), more than half of the layer's
{{work_gflop|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP,
and the whole layer on the FP32 lanes has a floor of {{floor_fp32_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms at the
{{card_fp32_tflops|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} TFLOP/s of the {{gpu|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}}:
the target a layer on the
tensor cores must beat to be worth its complexity. So the 3xTF32 layer
hands `tiled_layer` chapter 11's `tf32x3_wgmma_gemm` where the TF32 layer
hands it cuBLAS (`tf32x3_gemm` picks the same GEMM on `mma.sync` on a card
before Hopper).

What the split costs there: three products for one,
{{count_giga|30*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP of tensor-core work where TF32 had
{{count_giga|10*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}},
{{part_ms|tf32|30*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms instead of
{{part_ms|tf32|10*B*S*N*D*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} at the dense TF32 peak of the
{{gpu|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}}, {{card_tf32_tflops|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} TFLOP/s. The lanes split too, but less than in the
triangle: the weights are split once per call, before the GEMM, and a
warp splits only its own 16 rows of $X$, 4 values a lane per step of 8
values of $k$, for the step's three `wgmma`s of $64 \times 128 \times 8$.
$X$ is read and $Y$ written once; the weights, split, are twice their
size, and every block reads them from the L2 cache.
In the attention the split triples the
products too, {{count_giga|12*B*N*S*S*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP of tensor-core work for its
{{count_giga|4*B*N*S*S*D|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} GFLOP at this shape, and adds the splits of keys, values and weights: a warp splits a
fragment of keys or of values (two floats a lane) for its two m-tiles, six
products, and a fragment of weights (four floats) for the $d / 8$ blocks
of features of $O$, $3d / 8$ products.
*/

// book:hide
/* The layer's scratch, then room for the largest of its weights split: the
 * stacked projections (4D x D) or the output's (D x (D + TILED_EXTRA)). */
static inline size_t tf32x3_scratch_floats(msa_size z)
{ /* (the mma.sync GEMM needs none of its own) */
    const size_t stack = gemm_split_floats(4 * z.D, z.D);
    const size_t output = gemm_split_floats(z.D, z.D + TILED_EXTRA);
    return tiled_scratch_floats(z) + (stack > output ? stack : output);
}

/* The projections (a tiled_gemm_fn): chapter 11's GEMM on Hopper, the same
 * GEMM on mma.sync elsewhere. */
static inline void tf32x3_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                               const float *w, int ldw, int out, int in, long rows)
{
    if (tf32x3_gemm_on_hopper())
        tf32x3_wgmma_gemm(args, y, ldy, x, ldx, w, ldw, out, in, rows);
    else
        tf32x3_mma_gemm(args, y, ldy, x, ldx, w, ldw, out, in, rows);
}

/* The layer fits where one of its GEMMs does: Hopper's, or two stages of
 * the mma.sync one (the attention's stages are smaller). */
static inline int tf32x3_layer_unfit(msa_size z, const gpu_info *gpu, char *why, size_t capacity)
{
    (void)z;
    return tf32x3_gemm_on_hopper() ? 0 : tf32x3_mma_gemm_unfit(gpu, why, capacity);
}

static inline void tiled_launch_tf32x3(const msa_args *args)
{
    tiled_layer(args, true, tf32x3_gemm, launch_tf32_for<TF32_SPLIT3>);
}

// book:show

/*md
## The race: the MSA layer on the tensor cores

The same three shapes as chapter 7, the same timing, every key kept.

| shape | fused-tiled | fused-tiled-tf32 | fused-tiled-tf32x3 |
|---|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms |

And their errors against the referee, relative L2, on the same inputs:

| shape | fused-tiled | fused-tiled-tf32 | fused-tiled-tf32x3 |
|---|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{rel_l2|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} | {{rel_l2|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8 mask=kept}} | {{rel_l2|fused-tiled-tf32x3|B=1 S=128 N=256 D=256 H=8 mask=kept}} |
| B=1 S=512 N=256 D=256 H=8 | {{rel_l2|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} | {{rel_l2|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}} | {{rel_l2|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} |
| B=1 S=1024 N=384 D=64 H=8 | {{rel_l2|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} | {{rel_l2|fused-tiled-tf32|B=1 S=1024 N=384 D=64 H=8 mask=kept}} | {{rel_l2|fused-tiled-tf32x3|B=1 S=1024 N=384 D=64 H=8 mask=kept}} |

Against the race's baseline (chapter 6), the fastest champion at each
shape, here `{{champion|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8 mask=kept}}`,
`{{champion|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}}` and
`{{champion|fused-tiled-tf32|B=1 S=1024 N=384 D=64 H=8 mask=kept}}`, the TF32 layer
is {{speedup|fused-tiled-tf32|champion|B=1 S=128 N=256 D=256 H=8 mask=kept}},
{{speedup|fused-tiled-tf32|champion|B=1 S=512 N=256 D=256 H=8 mask=kept}} and
{{speedup|fused-tiled-tf32|champion|B=1 S=1024 N=384 D=64 H=8 mask=kept}} times
as fast. The figure shows every contender at the AlphaFold shape.

{{figure|race-chapter13}}

At the AlphaFold shape the TF32 layer is
{{speedup|fused-tiled-tf32|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} times
faster than in FP32, at the shallow one
{{speedup|fused-tiled-tf32|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} and at
the extra-MSA one
{{speedup|fused-tiled-tf32|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}}. The
arithmetic's floor shrank eightfold (the dense TF32 peak, chapter 8); the
bytes did not. The intermediates
that the split into launches sends through memory, up to $4 R D$ floats of
$Q K V G$ written and read back and $\hat X$ ($R D$) and $O$ ($R\,(D + 8)$)
beside them, are {{count_giga|2*4*B*S*N*(6*D + 8)|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}} GB at $S = 512$,
{{part_ms|memory|2*4*B*S*N*(6*D + 8)|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms at the
{{card_memory_tbs|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}} TB/s of the {{gpu|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=kept}}:
a floor of its own for this design. In FP32 it is a small part of the time; with TF32 it is a large
share of it. That is the price of chapter 7's decision to take the
projections out of the attention kernel, and it shows where to go next:
keep $Q$ and $G$ out of memory altogether by computing them inside the
attention kernel for the block's own rows, where, unlike $K$ and $V$, they
need no recomputation.

The 3xTF32 layer is as accurate as chapter 7's FP32 one: its error stays
at the FP32 kernels' level at every shape, some two orders of magnitude
under the tolerance and three under TF32's. It is also faster than
the FP32 lanes:
{{speedup|fused-tiled-tf32x3|fused-tiled|B=1 S=512 N=256 D=256 H=8 mask=kept}} times at the
AlphaFold shape, {{speedup|fused-tiled-tf32x3|fused-tiled|B=1 S=128 N=256 D=256 H=8 mask=kept}} at
the shallow one and
{{speedup|fused-tiled-tf32x3|fused-tiled|B=1 S=1024 N=384 D=64 H=8 mask=kept}} at the
extra-MSA one, and
{{speedup|fused-tiled-tf32x3|champion|B=1 S=512 N=256 D=256 H=8 mask=kept}} times as fast as the
race's baseline at the AlphaFold shape, where PyTorch compiled in FP32, of the
same accuracy, takes {{median_ms|torch-compile|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms. At that shape its
{{median_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms are under the
{{floor_fp32_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms that the layer's dense work needs at the full
FP32 peak: FP32 accuracy, faster than FP32 arithmetic can go on this card.

It is not yet where the tensor cores could take it. Its time is
{{speedup|fused-tiled-tf32|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} times the
TF32 layer's, for three times its products, while the dense work takes
{{floor_tf32_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms at the dense TF32 peak, three times
that for three products. Chapter 11's GEMM took the
projections' share down (section
"[What the copy engine buys the GEMM](#what-the-copy-engine-buys-the-gemm)");
the attention is now more
than half of the layer's time (Nsight Compute, launch by launch), and it
is still built of
`mma.sync`: 220 registers a lane, two blocks of four warps per
multiprocessor, the loads, splits and products of a warp waiting
on each other. That is where the 3xTF32 layer has the most left to gain.
*/
