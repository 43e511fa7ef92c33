// chapters/08-tensor/tensor.cuh - Chapter 8: the triangle on the tensor cores (TF32).
//
// Build, check and time it from the repository root:
//
//   make chapter8                     # B=8 T=1024 C=768 NH=12: checked, then timed
//   build/chapter8 --kernel tf32+rows T=4096

/*md
# Tensor cores: the same triangle, another engine

## How fast is the triangle on the tensor cores?

Chapter 5 ended with the FP32 units busy on about two cycles in three and
no single limit left to push against. Every card since Ampere has a second
engine for exactly this kind of work: the *tensor cores*, which a warp drives with
one instruction per small matrix product. How much faster do they compute
the triangle, and what do they cost in accuracy?

## The instruction

This chapter uses one of them,
`mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: the 32 lanes of a
warp together multiply a $16 \times 8$ tile of $A$ by an $8 \times 8$ tile
of $B$ and add the result to a $16 \times 8$ tile $C$ in FP32, each lane
holding a fixed part of each tile in its registers. Its inputs are
TF32, floats whose mantissa keeps 10 of its 23 bits, so the products are
less exact than in chapters 2-5, and the check uses the TF32 tolerance of
the design, 2e-3 on the relative error instead of 1e-5. From here on
our kernels race the baseline, chapter 1's `cublas-tf32`, on its own
engine and at its own accuracy: cuBLAS allowed the same shortcut, on the
full square. (Chapter 1's row blocks, the FP32 champion, are slower in
TF32: {{median_ms|cublas-rows-tf32|B=8 T=1024 C=768 NH=12}} ms against
{{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} ms at the default size, in
the appendix.)

This chapter is short, because the hard parts were done before: the tiles
of $128 \times 128$ scores, the copies into shared memory, the walk along a
row of tiles. What changes is the inner product, and with it the floor.

## The two floors again

- **arithmetic**: the same $6.45 \times 10^9$ floating-point operations.
  A Hopper multiprocessor's tensor cores do 2,048 dense TF32 operations per
  clock (an A100's 1,024, the other Ampere and the Ada chips' 512, half that
  on a GeForce card), so the {{card_sms|tf32+rows|B=8 T=1024 C=768 NH=12}} of the {{gpu|tf32+rows|B=8 T=1024 C=768 NH=12}} do
  about {{card_tf32_tflops|tf32+rows|B=8 T=1024 C=768 NH=12}} TFLOP/s at {{card_clock_ghz|tf32+rows|B=8 T=1024 C=768 NH=12}} GHz
  (NVIDIA's datasheet quotes the H200's as 495, at a lower clock), against
  {{card_fp32_tflops|tf32+rows|B=8 T=1024 C=768 NH=12}} in FP32: about **{{floor_tf32_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} ms**.
  This is the peak the tables measure TF32 kernels against.
- **memory**: unchanged, 50 MB of queries and keys to read and 201.5 MB of
  kept scores to write: **{{floor_memory_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} ms** at
  {{card_memory_tbs|tf32+rows|B=8 T=1024 C=768 NH=12}} TB/s.

On the tensor cores the floor of this problem is the memory. A kernel that
multiplied in no time at all would still spend
{{floor_memory_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} ms writing its
scores. The goal of this chapter is to get near that, which means: keep
the writes flowing, and let the products hide under them.

## The layout: no more transposing

The *fragments* of `mma.sync` fix which lane holds which value. Write
lane $= 4g + t$, with $g = 0..7$ the lane's *group* and $t = 0..3$ its
place in it. Then a lane holds, of $A$, rows $g$ and $g + 8$ at columns $t$
and $t + 4$ (four values); of $B$, column $g$ at rows $t$ and $t + 4$ (two);
and of $C$, rows $g$ and $g + 8$ at columns $2t$ and $2t + 1$ (four).
`common/device/tensor_core.h` also gives this layout as small functions for the
device and the host (`mma_a_row`, `mma_a_col` and their kin for $B$ and
$C$), which the kernel's loads and stores call and from which the figure
below is drawn.
`common/device/tensor_core.h` wraps the instruction (`mma_tf32`) and the rounding
of a float to TF32 (`to_tf32`, the instruction `cvt.rna.tf32.f32`). The
wrapper is one line of PTX: the lane's four values of $A$ and two of $B$ in,
its four sums of $C$ read and written (`+f`):

{{listing|common/device/tensor_core.h|mma_tf32}}

For our product
$S = Q K^T$, the $A$ tiles are pieces of the query tile and the $B$ tiles
pieces of $K^T$, whose column $g$ is row $g$ of the key tile. So both
fragments read a tile *row by row*, at 4 consecutive values of $k$: the
tiles can sit in shared memory exactly as they sit in global memory,
`query_tile[row][k]` and `key_tile[row][k]`, and the 16-byte copy that
chapter 5 could not use (its transposing copy had to move single floats)
is back: a tile pair of 64 KB is 4,096 pieces of 16 bytes, so each of the
256 threads issues 16 `cp.async` (8 per tile).

{{figure|mma-fragments}}

Bank conflicts: lane $(g, t)$ reads the word at offset $(r_0 + g) \cdot s
+ k_0 + t$, with $s$ the row stride in floats. With $s = HS + 4$ ($68$ at
$HS = 64$, $4 \bmod 32$) that is bank $4g + t$ plus a constant: 32 lanes,
32 banks, one wavefront. Without the padding ($s = 64$), all 8 values of
$g$ would fall into the same 4 banks: an 8-way conflict.

*/

#pragma once
#include <math.h>
#include <stdint.h>

#include "device/async_copy.h"
#include "device/tensor_core.h"
#include "problems/triangle.h"

#define TF32_TILE 128    /* scores per block side */
#define TF32_THREADS 256 /* 8 warps of 64 x 32 scores */
#define TF32_STEP 8      /* values of k per mma.sync */
#define TF32_PAD 4       /* floats added to each row of a tile: bank 4g + t */
#define TF32_MAX_HS 128  /* three tiles of 128 x (128 + 4) floats: 198 KB */
#define TF32_M_TILES 4   /* 16-row tiles of A per warp: 64 rows */
#define TF32_N_TILES 4   /* 8-column tiles of B per warp: 32 columns */
static_assert(TF32_THREADS / 32 * TF32_M_TILES * 16 * TF32_N_TILES * 8 == TF32_TILE * TF32_TILE,
              "8 warps of 64 x 32 scores cover the tile once");
static_assert(TF32_MAX_HS % TF32_STEP == 0, "HS in whole mma.sync steps");
static_assert(3 * TF32_TILE * (TF32_MAX_HS + TF32_PAD) * 4 == 198 * 1024,
              "three tiles of 128 x (128 + 4) floats: 198 KB");

/* Issues this thread's 16-byte copies of a TILE x HS tile whose first row
 * is `source` (rows `row_stride` floats apart in global memory) into
 * `tile` (rows HS + pad floats apart). The tile's 16-byte pieces are
 * numbered row by row and thread i copies numbers i, i + 256, ...:
 * consecutive threads copy consecutive 16 bytes of a row (coalesced reads,
 * conflict-free writes). The row and the piece are stepped, not divided
 * out: a division by a number known only at run time costs dozens of
 * instructions. */
__device__ __forceinline__ void tf32_copy_tile(float *tile, const float *source, size_t row_stride,
                                               int HS, int pad = TF32_PAD)
{
    const int quads = HS / 4, stride = HS + pad;
    const int row_step = TF32_THREADS / quads, quad_step = TF32_THREADS % quads;
    int row = threadIdx.x / quads, quad = threadIdx.x % quads;
    while (row < TF32_TILE) {
        copy_async_16(tile + row * stride + 4 * quad, source + row * row_stride + 4 * quad);
        row += row_step;
        quad += quad_step;
        if (quad >= quads) {
            quad -= quads;
            row++;
        }
    }
}

/*md
## The work of a warp

The 8 warps of a block split the $128 \times 128$ tile into 2 by 4 pieces
of $64 \times 32$ scores. Per step of 8 values of $k$, a warp loads 4
fragments of $A$ (4 values each) and 4 of $B$ (2 values each), rounds
them to TF32 (`cvt.rna.tf32.f32`, nearest), and issues $4 \times 4 = 16$
`mma.sync`, each accumulating into its own $16 \times 8$ tile of $C$: 64
accumulators per lane, as many as in chapter 5's $8 \times 8$ patch. At
$HS = 64$ that is 8 steps, 128 matrix instructions per warp and tile.
*/

/* The warp's 64 x 32 piece of one tile of scores: sum over HS of
 * query_tile[row][k] * key_tile[col][k], on the tensor cores. */
template <bool ROUND>
__device__ __forceinline__ void tf32_multiply_tile(float (&sum)[TF32_M_TILES][TF32_N_TILES][4],
                                                   const float *query_tile, const float *key_tile,
                                                   int warp_row, int warp_col, int HS)
{
    const int lane = threadIdx.x % 32, stride = HS + TF32_PAD;
    /* A's element (r, c) of m-tile m is query_tile[warp_row + 16 m + r][k + c],
     * B's element (c, j) of n-tile n is key_tile[warp_col + 8 n + j][k + c]
     * (common/device/tensor_core.h says which element a lane holds). This lane's
     * element 0 of each, at k = 0; its element i lies as far from its
     * element 0 as lane 0's does, in every lane. */
    const float *a_lane =
        query_tile + (warp_row + mma_a_row(lane, 0)) * stride + mma_a_col(lane, 0);
    const float *b_lane = key_tile + (warp_col + mma_b_col(lane, 0)) * stride + mma_b_row(lane, 0);
    for (int k = 0; k < HS; k += TF32_STEP) {
        uint32_t a[TF32_M_TILES][4], b[TF32_N_TILES][2];
#pragma unroll
        for (int m = 0; m < TF32_M_TILES; m++) {
            const float *p = a_lane + 16 * m * stride + k;
            a[m][0] = tf32_operand<ROUND>(p[mma_a_row(0, 0) * stride + mma_a_col(0, 0)]);
            a[m][1] = tf32_operand<ROUND>(p[mma_a_row(0, 1) * stride + mma_a_col(0, 1)]);
            a[m][2] = tf32_operand<ROUND>(p[mma_a_row(0, 2) * stride + mma_a_col(0, 2)]);
            a[m][3] = tf32_operand<ROUND>(p[mma_a_row(0, 3) * stride + mma_a_col(0, 3)]);
        }
#pragma unroll
        for (int n = 0; n < TF32_N_TILES; n++) {
            const float *p = b_lane + 8 * n * stride + k;
            b[n][0] = tf32_operand<ROUND>(p[mma_b_col(0, 0) * stride + mma_b_row(0, 0)]);
            b[n][1] = tf32_operand<ROUND>(p[mma_b_col(0, 1) * stride + mma_b_row(0, 1)]);
        }
#pragma unroll
        for (int m = 0; m < TF32_M_TILES; m++)
#pragma unroll
            for (int n = 0; n < TF32_N_TILES; n++)
                mma_tf32(sum[m][n], a[m], b[n][0], b[n][1]);
    }
}

/*md
The $C$ fragment gives lane $(g, t)$ two neighbouring columns, $2t$ and
$2t + 1$, of rows $g$ and $g + 8$: each pair is one 8-byte store, and the
4 lanes of a group write 32 consecutive bytes of a row, one whole sector.
On a diagonal tile a pair is written when its first column is kept.
*/

/* Scales the warp's piece and stores it: two 8-byte stores per 16 x 8
 * tile and lane. On a diagonal tile a pair of columns is written when its
 * first column is kept (its second may be a masked score, which is allowed).
 * ACCUMULATE: the piece is one part of k, added to the parts stored before
 * it (see "Launching them"). */
template <bool ACCUMULATE>
__device__ __forceinline__ void tf32_store_tile(float *scores,
                                                float (&sum)[TF32_M_TILES][TF32_N_TILES][4], int T,
                                                int tile_row, int tile_col, int warp_row,
                                                int warp_col, float scale)
{
    const int lane = threadIdx.x % 32;
    const bool diagonal = tile_row == tile_col;
#pragma unroll
    for (int m = 0; m < TF32_M_TILES; m++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            /* elements 2 half and 2 half + 1 of C: one row, two neighbouring columns */
            const int row = warp_row + 16 * m + mma_c_row(lane, 2 * half); /* in the tile */
            float *out = scores + ((size_t)tile_row * TF32_TILE + row) * T +
                         (size_t)tile_col * TF32_TILE;
#pragma unroll
            for (int n = 0; n < TF32_N_TILES; n++) {
                const int col = warp_col + 8 * n + mma_c_col(lane, 2 * half);
                if (diagonal && col > row)
                    continue; /* both columns masked */
                const float *c = &sum[m][n][2 * half];
                float2 *destination = reinterpret_cast<float2 *>(out + col);
                float2 v = make_float2(c[0] * scale, c[1] * scale);
                if (ACCUMULATE) {
                    const float2 before = __ldcg(destination);
                    v = make_float2(v.x + before.x, v.y + before.y);
                }
                *destination = v;
            }
        }
}

/*md
## Step 1: one block per tile

The first kernel, `tf32`, is chapter 5's step 3 with the tensor cores: one
block per tile of the lower triangle (block $x$ of head $y$ is tile $x$ in
the row-by-row order of the triangle), both tiles copied at once and waited
for, the product, the stores.
*/

template <bool ACCUMULATE>
__global__ void __launch_bounds__(TF32_THREADS, 2)
    tf32_scores(float *preatt, const float *__restrict__ inp, int B, int T, int NH, int HS,
                int k_count)
{
    extern __shared__ float4 tf32_space[];
    float *query_tile = reinterpret_cast<float *>(tf32_space);      /* [128][k_count + 4] */
    float *key_tile = query_tile + TF32_TILE * (k_count + TF32_PAD); /* [128][k_count + 4] */

    int tile_row, tile_col;
    triangle_place_tile(blockIdx.x, &tile_row, &tile_col); /* in triangle.h */
    const int head = blockIdx.y, b = head / NH, h = head % NH, C = NH * HS;
    const size_t row_stride = 3 * (size_t)C;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const size_t tile_step = TF32_TILE * row_stride;
    tf32_copy_tile(query_tile, sequence + tile_row * tile_step, row_stride, k_count);
    tf32_copy_tile(key_tile, sequence + C + tile_col * tile_step, row_stride, k_count);
    copy_async_commit();
    copy_async_wait<0>();
    __syncthreads();

    const int warp = threadIdx.x / 32;
    const int warp_row = 64 * (warp / 4), warp_col = 32 * (warp % 4);
    float sum[TF32_M_TILES][TF32_N_TILES][4] = {};
    tf32_multiply_tile<true>(sum, query_tile, key_tile, warp_row, warp_col, k_count);
    tf32_store_tile<ACCUMULATE>(preatt + (size_t)head * T * T, sum, T, tile_row, tile_col,
                                warp_row, warp_col, 1.0f / sqrtf((float)HS));
}

/*md
## Step 2: a block per row of tiles

Step 1's blocks are short: 128 matrix instructions per warp, then the
stores, and every block begins by waiting for 64 KB to arrive. Chapter 5's
step 4 is the cure, and it carries over unchanged: a block walks one row of
tiles of one head from the left to the diagonal, copies the query tile
once, and copies the keys of tile $x + 1$ into a second buffer while it
multiplies tile $x$ and stores its scores. The buffer it copies into held
tile $x - 1$, which every warp has finished once it has passed the barrier
at the start of tile $x$; so one barrier per tile is enough. Rows are
listed longest first, heads innermost, as in chapter 5. The kernel is
`tf32+rows`.
*/

// book:changes chapters/08-tensor/tensor.cuh tf32_scores
/* The walk along one row of tiles, for any way of multiplying a tile:
 * Multiply::tile(sum, query_tile, key_tile, warp_row, warp_col, k_count),
 * with rows of k_count + PAD floats in shared memory (chapter 9 gives it
 * another): the k_count values of k from inp's first. */
template <typename Multiply, int PAD, bool ACCUMULATE>
__device__ __forceinline__ void tf32_walk_row(float *preatt, const float *__restrict__ inp, int B,
                                              int T, int NH, int HS, int k_count,
                                              float *query_tile)
{
    const int tile_floats = TF32_TILE * (k_count + PAD);
    float *key_tiles = query_tile + tile_floats; /* 2 x [128][k_count + PAD] */

    const int heads = B * NH, tiles = T / TF32_TILE;
    const int head = blockIdx.x % heads, tile_row = tiles - 1 - (int)blockIdx.x / heads;
    const int b = head / NH, h = head % NH, C = NH * HS;
    const size_t row_stride = 3 * (size_t)C, tile_step = TF32_TILE * row_stride;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    tf32_copy_tile(query_tile, sequence + tile_row * tile_step, row_stride, k_count, PAD);
    tf32_copy_tile(key_tiles, sequence + C, row_stride, k_count, PAD);
    copy_async_commit();

    const int warp = threadIdx.x / 32;
    const int warp_row = 64 * (warp / 4), warp_col = 32 * (warp % 4);
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)head * T * T;
    for (int tile_col = 0; tile_col <= tile_row; tile_col++) {
        copy_async_wait<0>(); /* this tile's keys (and, at first, the queries) */
        __syncthreads();      /* ... for every thread; and the other buffer is free */
        if (tile_col < tile_row) {
            tf32_copy_tile(key_tiles + ((tile_col + 1) % 2) * tile_floats,
                           sequence + C + (tile_col + 1) * tile_step, row_stride, k_count, PAD);
            copy_async_commit();
        }
        float sum[TF32_M_TILES][TF32_N_TILES][4] = {};
        Multiply::tile(sum, query_tile, key_tiles + (tile_col % 2) * tile_floats, warp_row,
                       warp_col, k_count);
        tf32_store_tile<ACCUMULATE>(scores, sum, T, tile_row, tile_col, warp_row, warp_col, scale);
    }
}

template <bool ROUND>
struct tf32_multiply {
    static __device__ __forceinline__ void tile(float (&sum)[TF32_M_TILES][TF32_N_TILES][4],
                                                const float *query_tile, const float *key_tile,
                                                int warp_row, int warp_col, int HS)
    {
        tf32_multiply_tile<ROUND>(sum, query_tile, key_tile, warp_row, warp_col, HS);
    }
};

/* Step 2 (ROUND) and 2b (operands cut by the instruction). */
template <bool ROUND, bool ACCUMULATE>
__global__ void __launch_bounds__(TF32_THREADS, 2)
    tf32_rows_scores(float *preatt, const float *__restrict__ inp, int B, int T, int NH, int HS,
                     int k_count)
{
    extern __shared__ float4 tf32_space[];
    tf32_walk_row<tf32_multiply<ROUND>, TF32_PAD, ACCUMULATE>(
        preatt, inp, B, T, NH, HS, k_count, reinterpret_cast<float *>(tf32_space));
}

/*md
## Step 2b: rounding, or cutting

Every operand a warp hands to the tensor cores first goes through
`cvt.rna.tf32.f32`: 24 of the 64 instructions of a step of 8 values of $k$
only round. What does the instruction do with a float that was not
rounded? The PTX manual leaves it unspecified. What we observe on the H200
is what dropping the 13 low bits of the mantissa would give, rounding
toward zero: the kernel that skips the rounding passes the TF32 check, with
a relative error (which the check prints) about two and a half times that
of the rounding kernel. The template parameter `ROUND` chooses;
`tf32+rows+cut` is step 2 without the rounding. Nsight Compute (`make nsight`)
counts {{ncu|instructions_m|tf32+rows+cut|B=8 T=1024 C=768 NH=12}} million warp instructions for it
against step 2's {{ncu|instructions_m|tf32+rows|B=8 T=1024 C=768 NH=12}} million, on the
{{ncu|gpu|tf32+rows+cut|B=8 T=1024 C=768 NH=12}}. Relying on unspecified behaviour is a
choice a library could not make; chapters 9 and 11 return to it.
*/

/*md
## Launching them

Both kernels need more than the default 48 KB of dynamic shared memory
(64 + 4 KB of padding and 96 + 6 KB at $HS = 64$), which the launcher asks
for once. They accept any $T$ that is a multiple of 128 and any $HS$ that
is a multiple of 8 (the $k$ of one instruction) up to 128.
*/

// book:changes chapters/04-vectorized/vectorized.cuh vectorized_refuses
static inline int tf32_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TF32_TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TF32_TILE);
        return 1;
    }
    if (size.HS % TF32_STEP != 0 || size.HS > TF32_MAX_HS) {
        snprintf(why, capacity,
                 "HS = C/NH = %d must be a multiple of %d (one mma.sync step) and at most %d "
                 "(three tiles in shared memory)",
                 size.HS, TF32_STEP, TF32_MAX_HS);
        return 1;
    }
    if ((long)size.B * size.NH > 65535) {
        snprintf(why, capacity, "B*NH must be at most 65535 (one grid row per head)");
        return 1;
    }
    return 0;
}

typedef void (*tf32_kernel_function)(float *, const float *, int, int, int, int, int);

/*md
Where a card holds fewer values of $k$ per tile than $HS$ (the RTX 40
series at $HS = 128$, say), the launcher splits $k$ as chapter 5's does,
each part in a launch of its own that adds to the scores the last one
stored.
*/

/* Values of k one launch holds on this card: `tiles` tiles of TILE rows of
 * k + pad floats (0: not one step of k). */
static inline int tf32_k_per_launch(int HS, int tiles, int pad, size_t limit)
{
    const size_t tile_row_bytes = (size_t)tiles * TF32_TILE * sizeof(float);
    return split_k_count(HS, TF32_STEP, tile_row_bytes, tile_row_bytes * pad, limit);
}

// book:changes chapters/05-shared/shared.cuh shared_launch_parts
/* Launches `first` over the first part of k and `accumulating` (ACCUMULATE) over
 * each other, with `tiles` tiles of rows padded by `pad` in shared memory. */
static inline void tf32_launch_parts(const triangle_args *args, tf32_kernel_function first,
                                     tf32_kernel_function accumulating, dim3 grid, int tiles,
                                     int pad)
{
    const triangle_size s = args->size;
    const int held = tf32_k_per_launch(s.HS, tiles, pad, gpu_query().shared_per_block_optin);
    for (int k = 0; k < s.HS; k += held) {
        const int count = s.HS - k < held ? s.HS - k : held;
        const tf32_kernel_function kernel = k == 0 ? first : accumulating;
        const size_t bytes = (size_t)tiles * TF32_TILE * (count + pad) * sizeof(float);
        gpu_allow_shared_memory((const void *)kernel, bytes);
        kernel<<<grid, TF32_THREADS, bytes, args->stream>>>(args->preatt, args->inp + k, s.B, s.T,
                                                             s.NH, s.HS, count);
        LAUNCH_CHECK();
    }
}

// book:hide
/* Whether one step of k of `tiles` tiles fits (it does on every card the
 * workbook serves, 12 to 19 KB; the check costs nothing). */
static inline int tf32_unfit_tiles(const gpu_info *gpu, int tiles, int pad, char *why,
                                   size_t capacity)
{
    const size_t bytes = (size_t)tiles * TF32_TILE * (TF32_STEP + pad) * sizeof(float);
    return gpu_lacks_shared_memory(gpu, bytes, "one step of k of the tiles", why, capacity);
}

static inline int tf32_tiles_unfit(triangle_size size, const gpu_info *gpu, char *why,
                                   size_t capacity)
{
    (void)size;
    return tf32_unfit_tiles(gpu, 2, TF32_PAD, why, capacity);
}

static inline int tf32_rows_unfit(triangle_size size, const gpu_info *gpu, char *why,
                                  size_t capacity)
{
    (void)size;
    return tf32_unfit_tiles(gpu, 3, TF32_PAD, why, capacity);
}
// book:show

static inline void tf32_tiles_launch(const triangle_args *args)
{
    const int tiles = args->size.T / TF32_TILE;
    tf32_launch_parts(args, tf32_scores<false>, tf32_scores<true>,
                      dim3(tiles * (tiles + 1) / 2, args->size.B * args->size.NH), 2, TF32_PAD);
}

/* Steps 2 and 2b: one block per row of tiles and head. */
static inline dim3 tf32_rows_grid(triangle_size size)
{
    return dim3(size.T / TF32_TILE * size.B * size.NH);
}

static inline void tf32_rows_launch(const triangle_args *args)
{
    tf32_launch_parts(args, tf32_rows_scores<true, false>, tf32_rows_scores<true, true>,
                      tf32_rows_grid(args->size), 3, TF32_PAD);
}

// book:hide
static inline void tf32_rows_cut_launch(const triangle_args *args)
{
    tf32_launch_parts(args, tf32_rows_scores<false, false>, tf32_rows_scores<false, true>,
                      tf32_rows_grid(args->size), 3, TF32_PAD);
}
// book:show

/*md
## Where it stands

At the default size ($B = 8$, $T = 1024$, $C = 768$, $NH = 12$), on
{{gpu|tf32+rows|B=8 T=1024 C=768 NH=12}}:

| kernel | what | median ms |
|---|---|---|
| shared+rows+interleaved | chapter 5's fastest, FP32 | {{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} |
| cublas-tf32 | cuBLAS in TF32: a permute, then the full square | {{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} |
| tf32 | step 1: one block per tile | {{median_ms|tf32|B=8 T=1024 C=768 NH=12}} |
| tf32+rows | step 2: a block per row of tiles | {{median_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} |
| tf32+rows+cut | step 2b: operands cut, not rounded | {{median_ms|tf32+rows+cut|B=8 T=1024 C=768 NH=12}} |

Step 2 is {{speedup|tf32+rows|cublas-tf32|B=8 T=1024 C=768 NH=12}} times as
fast as cuBLAS in TF32 and
{{speedup|tf32+rows|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} times as
fast as chapter 5. At $T = 4096$ it takes
{{median_ms|tf32+rows|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|cublas-tf32|B=8 T=4096 C=768 NH=12}} ms for cuBLAS in TF32.

The figure follows each chapter's best kernel and the fastest champion of
each engine over the sequence length:

{{figure|sweep-chapter8}}

The race so far: the tensor cores pass the FP32 floor, and their own
floor lies far beyond the scale:

{{figure|race-chapter8}}

The walk along a row bought far more here than in chapter 5: a block of
step 1 spends most of its short life waiting for its tiles, and the tensor
cores do not need the time in between. Cutting instead of rounding removed
a quarter of the instructions and bought only a few per cent: this kernel
is not short of instructions either.

What it is short of is memory traffic. Step 2 moves
{{gbps|tf32+rows|B=8 T=1024 C=768 NH=12}} GB/s of compulsory traffic,
{{memory_pct|tf32+rows|B=8 T=1024 C=768 NH=12}} % of what the {{gpu|tf32+rows|B=8 T=1024 C=768 NH=12}} can move: its time is
that share of the way to the {{floor_memory_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} ms floor. Nsight
Compute shows why, on the {{ncu|gpu|tf32+rows|B=8 T=1024 C=768 NH=12}}: the schedulers issue on
{{ncu|issue_pct|tf32+rows|B=8 T=1024 C=768 NH=12}}% of the cycles, with {{ncu|eligible_warps|tf32+rows|B=8 T=1024 C=768 NH=12}}
warps ready to issue per scheduler per cycle, and the tensor pipe is busy
{{ncu|tensor_pct|tf32+rows|B=8 T=1024 C=768 NH=12}}% of the time. Each warp's products wait for their loads from
shared memory, its stores wait for the memory pipeline, and two blocks of 8
warps per multiprocessor are too few to hide all of it. The next steps are
the ones the profile points at: load the fragments of the next step of $k$
while the tensor cores work on this one, write the scores in 16-byte pieces
through shared memory, and, on Hopper, let the copy engine (TMA) and the
asynchronous warp-group instructions (`wgmma`) do the moving and the
multiplying while the warps only store. The race against cuBLAS, though,
is decided: knowing the mask, the layout and the size is worth more than
any instruction.
*/
