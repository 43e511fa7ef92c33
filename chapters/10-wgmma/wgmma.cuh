// chapters/10-wgmma/wgmma.cuh - Chapter 10: Hopper's own tensor-core instruction, wgmma, on the
// triangle's 3xTF32 (tf32x3+wgmma); chapter 11 adds the copy engine and its barriers
// (chapters/11-copy-engine), chapter 12 the warps with roles (chapters/12-roles).
//
//   make chapter10
//   build/chapter10 --kernel tf32x3+wgmma T=4096

/*md
# `wgmma`: the triangle on Hopper's warp-group product

## What does Hopper's larger tensor-core instruction buy the triangle?

Chapter 9's `tf32x3` feeds the tensor cores with `mma.sync`, the
instruction they have had since Ampere: every value of both operands
passes through the lanes' registers, loaded, split and placed in its
fragment by the lanes themselves, beside the sums. Hopper, compute
capability 9.0, adds a larger tensor-core instruction that does a warp
group's work at once and reads one operand straight from shared memory.
This chapter asks one question: what does that instruction buy the
triangle, when the products are the same three and only the way they are
issued changes? (Hopper's other engine, the copy engine, is chapter 11's;
chapter 12 gives the warps roles around both.) The instruction exists only
in code built for `sm_90a`, Hopper exactly: on another card the programs
list this chapter's kernel as skipped and say why.

## `wgmma`: a warp group's product

`mma.sync` is a warp's instruction, and every operand passes through the
warp's registers: in chapter 9's kernel each lane loads and splits the
fragments of both operands, beside its 64 sums. Hopper's larger
instruction, `wgmma.mma_async`, belongs to a *warp group*, four warps that
together multiply a $64 \times 8$ tile $A$ by an $8 \times N$ tile $B$
($N$ a multiple of 8 up to 256): $A$ from their registers (each warp its
16 rows, in `mma.sync`'s fragment), $B$ straight from shared memory, the
$64 \times N$ sums in the registers, $N / 2$ a lane. The instruction only
starts the product (*async*): the warp group goes on, and later waits for
it. The PTX ISA specifies the instruction, its operands' layouts and the
descriptor below [@ptx-isa]; FlashAttention-3 builds its Hopper attention
on it [@shah2024flashattention3]. At $N = 128$ each of the four warps asks with one instruction for
sixteen times the work of an `mma.sync`, and none of $B$'s values passes
through its registers. The kernels call it through a wrapper of one line
of PTX, here the $N = 64$ form the triangle uses: $A$'s four registers,
the 32 sums of the lane (`+f`: read and written), $B$'s descriptor, and a
predicate that says whether to add to the sums or start them afresh.

{{listing|common/device/wgmma.h|wgmma_tf32_m64n64k8}}

Since the instruction is asynchronous, three more wrappers order it:
`wgmma_fence` before the first `wgmma` that reads registers written since
the last one, `wgmma_commit` to close the ones issued so far into a group,
and `wgmma_wait<n>` to wait until at most $n$ groups are still running.
Each is one instruction of the warp group (`.sync.aligned`: its four warps
reach it together):

{{listing|common/device/wgmma.h|wgmma_fence}}

{{listing|common/device/wgmma.h|wgmma_commit}}

{{listing|common/device/wgmma.h|wgmma_wait}}

Reading $B$ from shared memory means the tensor cores read it in the
order they want, which `common/device/wgmma.h` describes: *core matrices* of 8
rows by 4 values of $k$, 128 contiguous bytes each, and a *descriptor*
that says where the first one is and how far the next one lies along $k$
and along the rows, packed into 64 bits:

{{listing|common/device/wgmma.h|wgmma_descriptor}}

The triangle's $Q K^T$ is such a product, a tile of queries as $A$ and a
tile of keys as $B$.

## The triangle on `wgmma`

A block holds 128 query rows of one head, 64 to each of its two warp
groups, and walks the key tiles from the first to the diagonal. The
queries never change along the walk, so each warp group splits its rows
once, at the start, into the $A$ fragments of all of $HS$ (the big and the
small part: $HS$ registers a lane) and keeps them in registers. The keys
change every tile: the threads load a tile of keys, split each value once,
and write the two parts in the order of `wgmma`'s core matrices
(`key_index`: 8 keys by 4 values of $k$, 128 contiguous bytes), so that
one descriptor names a step of 8 values of $k$ for all of a tile's keys. A
step is three `wgmma`, small by big, big by small, big by big, as before.

Two things keep the tensor cores fed. The keys of the next tile are split
into their buffer while this tile's products run. And each lane has two
sets of sums: the products of tile $c + 1$ start before the scores of
tile $c$ are stored, so that the stores, which chapter 8 found to be half
of the time, run beside the products instead of after them. Three key
buffers let a buffer be refilled while one is multiplied and one still
waits; a block barrier per tile says when a buffer is full.
*/

#pragma once

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "problems/triangle.h"
#include "device/tf32_split.h"  /* split_operand, tf32_pair */
#include "device/wgmma.h"       /* wgmma_tf32_m64n64k8, wgmma_descriptor, fences */

#define WGMMA_QUERIES 128 /* query rows of a block: two warp groups of 64 */
#define WGMMA_THREADS 256
#define WGMMA_BUFFERS 3   /* key tiles in shared memory: multiplied, waiting, being split */
static_assert(WGMMA_QUERIES == 2 * 64 && WGMMA_THREADS == 2 * 128,
              "a block is two warp groups, each 128 threads and 64 query rows (wgmma's M)");

/* The shape of the walk for head size HS: fewer keys a tile for the larger
 * heads, whose split rows take more registers. */
template <int HS>
struct wgmma_key_tile {
    static constexpr int KEYS = HS <= 96 ? 64 : 32;  /* keys a tile: wgmma's N */
    static constexpr int SUMS = KEYS / 2;            /* a lane's sums of one set */
    static constexpr int PART = KEYS * HS;           /* floats of one part of a key tile */
    static constexpr int PIECES = KEYS * HS / 4;     /* 16-byte pieces of a tile of keys */
    static constexpr int LOADS = (PIECES + WGMMA_THREADS - 1) / WGMMA_THREADS; /* a thread's */
    static_assert(KEYS % 8 == 0 && HS % 8 == 0, "whole core matrices of 8 keys by 8 steps of k");
};

/* Where key n, value k of a tile lies in one part: core matrices of 8 keys
 * by 4 values, the next 4 values 32 floats on, the next 8 keys 8 HS on. */
template <int HS>
__host__ __device__ __forceinline__ int key_index(int n, int k)
{
    return (n / 8) * (8 * HS) + (k / 4) * 32 + (n % 8) * 4 + k % 4;
}

/* Thread's piece r of a tile: key n, values 4c to 4c + 3. Eight lanes in a
 * row take one piece of 8 keys: one core matrix, 128 contiguous bytes. */
template <int HS>
__device__ __forceinline__ bool key_piece(int r, int &n, int &c)
{
    const int piece = threadIdx.x + WGMMA_THREADS * r, per_key = HS / 4;
    n = piece / (8 * per_key) * 8 + piece % 8;
    c = piece / 8 % per_key;
    return piece < wgmma_key_tile<HS>::PIECES;
}

/*md
A tile of keys reaches its buffer in two moves, so that the second can
wait for the right moment: `load_keys` brings a thread's pieces into
registers with 16-byte loads, eight lanes to a core matrix, and
`store_keys` later splits each value and writes both parts where
`key_index` says. `key_descriptor` names step `step` of a part for `wgmma`.
The tensor cores read shared memory through another path than the lanes'
stores, the *async proxy*, which does not see those stores until a proxy
fence orders them, once a tile, before the barrier that hands the buffer
over:

{{listing|common/device/wgmma.h|fence_shared_for_wgmma}}
*/

template <int HS>
__device__ __forceinline__ void load_keys(float4 (&raw)[wgmma_key_tile<HS>::LOADS],
                                          const float *keys, size_t row_stride)
{
#pragma unroll
    for (int r = 0; r < wgmma_key_tile<HS>::LOADS; r++) {
        int n, c;
        if (key_piece<HS>(r, n, c))
            raw[r] = __ldg(reinterpret_cast<const float4 *>(keys + n * row_stride + 4 * c));
    }
}

/* The loaded keys, split, into a buffer: its big part, then its small part. */
template <int HS>
__device__ __forceinline__ void store_keys(const float4 (&raw)[wgmma_key_tile<HS>::LOADS],
                                           float *buffer)
{
#pragma unroll
    for (int r = 0; r < wgmma_key_tile<HS>::LOADS; r++) {
        int n, c;
        if (!key_piece<HS>(r, n, c))
            continue;
        const tf32_pair x = split_operand<false>(raw[r].x), y = split_operand<false>(raw[r].y),
                        z = split_operand<false>(raw[r].z), w = split_operand<false>(raw[r].w);
        float *at = buffer + key_index<HS>(n, 4 * c);
        *reinterpret_cast<uint4 *>(at) = make_uint4(x.big, y.big, z.big, w.big);
        *reinterpret_cast<uint4 *>(at + wgmma_key_tile<HS>::PART) =
            make_uint4(x.small, y.small, z.small, w.small);
    }
}

/* Step `step` (values 8 step to 8 step + 7 of k) of one part of a key tile. */
template <int HS>
__device__ __forceinline__ uint64_t key_descriptor(const float *part, int step)
{
    return wgmma_descriptor(part + step * 64, 32 * (int)sizeof(float), 8 * HS * (int)sizeof(float));
}

template <int SUMS>
__device__ __forceinline__ void wgmma_tile(float (&sum)[SUMS], const uint32_t (&a)[4], uint64_t b,
                                           bool accumulate)
{
    if constexpr (SUMS == 32)
        wgmma_tf32_m64n64k8(sum, a, b, accumulate);
    else
        wgmma_tf32_m64n32k8(sum, a, b, accumulate);
}

/*md
The walk, for one warp group: start the products of a tile into one set of
sums, then for every tile split the next keys, wait at the block barrier
until every thread has, start the next tile's products into the other set,
wait for this tile's (`wgmma_wait<1>`: all but the newest group done), and
store it.
*/

/* The buffer of tile c's keys (its big part, then its small part). */
template <int HS>
__device__ __forceinline__ float *key_buffer(float *buffers, int c)
{
    return buffers + c % WGMMA_BUFFERS * 2 * wgmma_key_tile<HS>::PART;
}

/* Tile c + 1's keys (already loaded) split into their buffer, tile c + 2's
 * loaded, and a block barrier: every buffer written before it is full. */
template <int HS>
__device__ __forceinline__ void prepare_keys(int c, int tiles, float *buffers,
                                             float4 (&raw)[wgmma_key_tile<HS>::LOADS],
                                             const float *keys, size_t row_stride)
{
    constexpr int KEYS = wgmma_key_tile<HS>::KEYS;
    store_keys<HS>(raw, key_buffer<HS>(buffers, c + 1));
    fence_shared_for_wgmma();
    if (c + 2 < tiles)
        load_keys<HS>(raw, keys + (size_t)(c + 2) * KEYS * row_stride, row_stride);
    __syncthreads();
}

/*md
`start_products` issues a tile's $3 HS / 8$ products and closes them into
one group; the first of them starts the sums afresh, so no set of sums is
ever cleared. `store_scores` writes a finished set: a lane holds, for rows
$g$ and $g + 8$ of its warp's 16, columns $8j + 2t$ and $8j + 2t + 1$ of
each block of 8, and writes each pair on or below the diagonal with one
8-byte store.
*/

/* Starts the warp group's three products of a whole tile (HS / 8 steps). */
template <int HS>
__device__ __forceinline__ void start_products(float (&sum)[wgmma_key_tile<HS>::SUMS],
                                               const float *buffer,
                                               const uint32_t (&big)[HS / 8][4],
                                               const uint32_t (&small)[HS / 8][4])
{
    const float *big_keys = buffer, *small_keys = buffer + wgmma_key_tile<HS>::PART;
    wgmma_hold(sum);
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < HS / 8; j++) {
        wgmma_tile(sum, small[j], key_descriptor<HS>(big_keys, j), j > 0); /* j = 0: afresh */
        wgmma_tile(sum, big[j], key_descriptor<HS>(small_keys, j), true);
        wgmma_tile(sum, big[j], key_descriptor<HS>(big_keys, j), true);
    }
    wgmma_commit();
}

/* Tile c's scores on or below the diagonal, from a finished set of sums. */
template <int HS>
__device__ __forceinline__ void store_scores(float (&sum)[wgmma_key_tile<HS>::SUMS], int c,
                                             float *scores, int T, int first_query, float scale)
{
    constexpr int KEYS = wgmma_key_tile<HS>::KEYS;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    wgmma_hold(sum);
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const int query = first_query + warp * 16 + g + 8 * half;
        float *row = scores + (size_t)query * T + (size_t)c * KEYS;
#pragma unroll
        for (int j = 0; j < KEYS / 8; j++) {
            const int col = 8 * j + 2 * t;
            if (c * KEYS + col <= query) /* col + 1 may pass it: causal entries are ignored */
                *reinterpret_cast<float2 *>(row + col) =
                    make_float2(sum[4 * j + 2 * half] * scale, sum[4 * j + 2 * half + 1] * scale);
        }
    }
}

/*md
The kernel: a block takes a row of tiles, the longest rows first, so that
the short ones fill the last wave; each warp group splits its queries once,
into registers (`split_queries`: a lane's rows $g$ and $g + 8$ of its
warp's 16, in `mma.sync`'s fragment), and the walk begins.
*/

/* The warp's 16 query rows from `q0` on, split into A fragments of all HS. */
template <int HS>
__device__ __forceinline__ void split_queries(uint32_t (&big)[HS / 8][4],
                                              uint32_t (&small)[HS / 8][4], const float *q0,
                                              size_t row_stride)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const float *r0 = q0 + g * row_stride, *r1 = r0 + 8 * row_stride;
#pragma unroll
    for (int j = 0; j < HS / 8; j++) {
        const float v[4] = {r0[8 * j + t], r1[8 * j + t], r0[8 * j + t + 4], r1[8 * j + t + 4]};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const tf32_pair p = split_operand<false>(v[i]);
            big[j][i] = p.big;
            small[j][i] = p.small;
        }
    }
}

template <int HS>
__global__ void __launch_bounds__(WGMMA_THREADS, 1)
    tf32x3_wgmma_scores(float *preatt, const float *__restrict__ inp, int B, int T, int NH)
{
    constexpr int KEYS = wgmma_key_tile<HS>::KEYS, SUMS = wgmma_key_tile<HS>::SUMS;
    extern __shared__ float4 tf32x3_wgmma_space[];
    float *buffers = reinterpret_cast<float *>(tf32x3_wgmma_space);
    /* the longest rows first, so that the short ones fill the last wave */
    const int heads = B * NH, rows = T / WGMMA_QUERIES;
    const int head = (int)(blockIdx.x % heads), tile_row = rows - 1 - (int)(blockIdx.x / heads);
    const int b = head / NH, h = head % NH, C = NH * HS, first = tile_row * WGMMA_QUERIES;
    const size_t row_stride = 3 * (size_t)C;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS, *keys = sequence + C;
    const int tiles = (first + WGMMA_QUERIES) / KEYS, warp = threadIdx.x / 32;

    float4 raw[wgmma_key_tile<HS>::LOADS];
    load_keys<HS>(raw, keys, row_stride); /* in flight while the queries are split */
    uint32_t big[HS / 8][4], small[HS / 8][4];
    split_queries<HS>(big, small, sequence + (size_t)(first + warp * 16) * row_stride, row_stride);
    store_keys<HS>(raw, buffers);
    fence_shared_for_wgmma();
    if (tiles > 1)
        load_keys<HS>(raw, keys + (size_t)KEYS * row_stride, row_stride);
    __syncthreads();

    /*md
The walk, written out for the two sets of sums so that every register is
named at compile time: while one set's products run on the tensor cores,
the other's scores are stored.
    */
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)head * T * T;
    float sum0[SUMS], sum1[SUMS];
    start_products<HS>(sum0, buffers, big, small);
    for (int c = 0;; c++) {
        if (c + 1 >= tiles) {
            wgmma_wait<0>();
            store_scores<HS>(sum0, c, scores, T, first, scale);
            break;
        }
        prepare_keys<HS>(c, tiles, buffers, raw, keys, row_stride);
        start_products<HS>(sum1, key_buffer<HS>(buffers, c + 1), big, small);
        wgmma_wait<1>();
        store_scores<HS>(sum0, c, scores, T, first, scale);
        c++;
        if (c + 1 >= tiles) {
            wgmma_wait<0>();
            store_scores<HS>(sum1, c, scores, T, first, scale);
            break;
        }
        prepare_keys<HS>(c, tiles, buffers, raw, keys, row_stride);
        start_products<HS>(sum0, key_buffer<HS>(buffers, c + 1), big, small);
        wgmma_wait<1>();
        store_scores<HS>(sum1, c, scores, T, first, scale);
    }
}

/*md
## What `wgmma` buys the triangle

On the {{gpu|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} at the default size
`tf32x3+wgmma` takes {{median_ms|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} ms
where `tf32x3` takes {{median_ms|tf32x3|B=8 T=1024 C=768 NH=12}} ms:
{{speedup|tf32x3+wgmma|tf32x3|B=8 T=1024 C=768 NH=12}} times as fast, at
the same error ({{rel_l2|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}}); at
$T = 4096$ {{median_ms|tf32x3+wgmma|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|tf32x3|B=8 T=4096 C=768 NH=12}} ms.

Less than the instruction promises. Count one block's $128 \times 128$
tile: $3 \cdot 128 \cdot 128 \cdot 64$ multiply-adds, 3072 cycles at the
1024 TF32 multiply-adds a cycle that a multiprocessor's tensor cores give;
and 64 KB of scores, which at one multiprocessor's share of the card's
memory bandwidth take about as long. Run side by side, a tile would cost
the larger of the two; the walk pays closer to their sum. On the
{{ncu|gpu|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}}, Nsight Compute (`make nsight`) finds
neither full: memory moves at {{ncu|dram_tbs|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} TB/s,
{{ncu|dram_pct|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}}% of the card's peak, and the L1 and
shared-memory unit is {{ncu|l1_pct|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}}% busy. That unit is
the one to watch. Every `wgmma` reads its $B$ from shared memory, $8
\cdot N$ values for $64 \cdot N \cdot 8$ multiply-adds: a sixteenth of a
byte per multiply-add whatever the tile's width, three times per step for
the three products, and the split keys are written there too. And only
one block of eight warps fits on a multiprocessor (its registers hold the
split queries and two sets of sums), two warps per scheduler to hide the
waits.

So the instruction is only half the answer: a tile still pays closer to
the sum of its products and its stores than to the larger, and what sets
that is the walk around the products. The
operands still come in through the lanes (each thread loads its share of
a key tile, splits it and writes it where `wgmma` reads it), the scores
still leave from the registers, and eight warps still meet at a block
barrier once a tile. Two ways to meet less were tried on this walk, with
the lanes still loading and splitting the keys: a third warp group that
only loads, into a ring of buffers with barriers in shared memory, and
one block per multiprocessor that walks several rows of tiles as one
stream. On the H200, at the default size, neither was faster than the
walk above while the lanes still did the loading, so neither is kept
here. Chapter 11 hands the loads and the stores to Hopper's copy engine,
and chapter 12 builds both designs again on top of it: warps with roles
that meet through barriers in shared memory, and blocks that stay and
walk several rows.

The race of the triangle, with `wgmma`:

{{figure|race-chapter10}}
*/

// book:hide
template <int HS>
static void tf32x3_wgmma_launch_hs(const triangle_args *args)
{
    const triangle_size s = args->size;
    const size_t bytes = WGMMA_BUFFERS * 2 * (size_t)wgmma_key_tile<HS>::PART * sizeof(float);
    gpu_allow_shared_memory((const void *)tf32x3_wgmma_scores<HS>, bytes);
    const unsigned blocks = (unsigned)((long)s.B * s.NH * (s.T / WGMMA_QUERIES));
    tf32x3_wgmma_scores<HS><<<blocks, WGMMA_THREADS, bytes, args->stream>>>(args->preatt, args->inp,
                                                                         s.B, s.T, s.NH);
    LAUNCH_CHECK();
}

/* The program asks before the first launch: wgmma needs this very
 * architecture, and code built for it (the shared memory fits on Hopper). */
static int tf32x3_wgmma_unfit(triangle_size size, const gpu_info *gpu, char *why,
                              size_t capacity)
{
    (void)size, (void)gpu;
    return wgmma_refuses((const void *)tf32x3_wgmma_scores<64>, why, capacity);
}

static void tf32x3_wgmma_launch(const triangle_args *args)
{
    switch (args->size.HS) { /* tf32x3_wgmma_refuses lets only these through */
    case 8: tf32x3_wgmma_launch_hs<8>(args); break;
    case 16: tf32x3_wgmma_launch_hs<16>(args); break;
    case 24: tf32x3_wgmma_launch_hs<24>(args); break;
    case 32: tf32x3_wgmma_launch_hs<32>(args); break;
    case 40: tf32x3_wgmma_launch_hs<40>(args); break;
    case 48: tf32x3_wgmma_launch_hs<48>(args); break;
    case 56: tf32x3_wgmma_launch_hs<56>(args); break;
    case 64: tf32x3_wgmma_launch_hs<64>(args); break;
    case 72: tf32x3_wgmma_launch_hs<72>(args); break;
    case 80: tf32x3_wgmma_launch_hs<80>(args); break;
    case 88: tf32x3_wgmma_launch_hs<88>(args); break;
    case 96: tf32x3_wgmma_launch_hs<96>(args); break;
    case 104: tf32x3_wgmma_launch_hs<104>(args); break;
    case 112: tf32x3_wgmma_launch_hs<112>(args); break;
    case 120: tf32x3_wgmma_launch_hs<120>(args); break;
    default: tf32x3_wgmma_launch_hs<128>(args); break;
    }
}

/* The sizes the walk takes: store.cuh's kernels refuse these too. */
static int tf32x3_wgmma_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % WGMMA_QUERIES != 0) {
        snprintf(why, capacity, "T must be a multiple of %d (a block's query rows)", WGMMA_QUERIES);
        return 1;
    }
    if (size.HS % 8 != 0 || size.HS > 128) {
        snprintf(why, capacity,
                 "HS = C/NH = %d must be a multiple of 8 (one wgmma step) and at most 128 (the "
                 "split query rows live in registers)",
                 size.HS);
        return 1;
    }
    if ((long)size.B * size.NH * (size.T / WGMMA_QUERIES) > INT_MAX) {
        snprintf(why, capacity, "B*NH*T/%d must be at most %d (one block each)", WGMMA_QUERIES,
                 INT_MAX);
        return 1;
    }
    return 0;
}

// book:show
