// chapters/11-copy-engine/store.cuh - Chapter 11, last step: the copy engine both ways for the
// triangle (tf32+tma-store, tf32x3+tma-store): keys in as boxes wgmma reads as they land, scores
// out from swizzled stages by box stores.
//
//   make chapter11
//   build/chapter11 --kernel tf32x3+tma-store T=4096

/*md
## Copies out: the scores through the copy engine

The GEMM reads each operand many times; the triangle reads each input
once and writes, at the default size, 201 MB of scores for 50 MB of
queries and keys. Count it: 252 MB that must cross the memory bus,
{{floor_memory_ms|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} ms at the {{card_memory_tbs|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} TB/s of
the {{gpu|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}}, against {{floor_tf32_ms|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} ms for its
products at the dense TF32 rate and three times that for three of them.
Both are under the memory floor:
the triangle is a problem of moving bytes, and `tf32x3+wgmma` moves them
at {{gbps|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} GB/s.

Its scores leave from the registers: each lane writes pairs of floats, 8
bytes at a time, 16 rows of 32 bytes for each store of a warp. The copy
engine writes too. A warp can put its finished $16 \times 64$ tile of
scores in shared memory and ask the engine, with one instruction, to write
it to global memory as two boxes of $16 \times 32$ floats, 4 KB, while the
warp goes on to its next tile. And the keys can come in the same way, a
whole tile in one instruction, laid where `wgmma` reads them. This last
step uses the copy engine both ways.
*/

#pragma once

#include "../10-wgmma/wgmma.cuh"
#include "device/bulk_copy.h"  /* tensor_store_box, bulk_commit, bulk_wait_read */
#include "device/tensor_map.h" /* tensor_map_rows, tensor_map_box_index */

#define STAGE_ROWS 16 /* a warp's rows of a tile: the height of its boxes */
#define STAGES 2      /* a warp's stages: one filled while the engine reads the other */
static_assert(STAGE_ROWS * (WGMMA_THREADS / 32) == WGMMA_QUERIES,
              "the block's warps stage its query rows, 16 each");

/* A warp's stage for head size HS: its 16 rows of a tile of scores, as
 * boxes 32 columns wide (tensor_map.h). */
template <int HS>
struct score_stage {
    static constexpr int KEYS = wgmma_key_tile<HS>::KEYS;
    static constexpr int BOXES = KEYS / TENSOR_MAP_BOX_COLS;
    static constexpr int FLOATS = STAGE_ROWS * KEYS;
    static_assert(BOXES * TENSOR_MAP_BOX_COLS == KEYS, "a stage is whole boxes, 32 columns each");
};

/* Where score (r, col) of a warp's tile lies in its stage: box col / 32,
 * swizzled as the copy engine reads it. */
__host__ __device__ __forceinline__ int stage_index(int r, int col)
{
    return col / TENSOR_MAP_BOX_COLS * (STAGE_ROWS * TENSOR_MAP_BOX_COLS) +
           tensor_map_box_index(r, col % TENSOR_MAP_BOX_COLS);
}

/*md
Each warp has two *stages* of 4 KB in shared memory: while the engine
reads one, the warp fills the other. They are laid out as the engine
reads a box with the 128-byte swizzle (`tensor_map.h`): row $r$'s 16-byte
piece $c$ at position $c \oplus (r \bmod 8)$. A lane writes, for rows
$g$ and $g + 8$, the pair of columns $8j + 2t$: the eight rows $g$ of one
store land in eight different pieces, two lanes to a group of banks, which
is as few passes (two) as 256 bytes need. Eight warps, two stages of a
$16 \times 64$ tile each: 64 KB of the multiprocessor's shared memory.

A tile wholly below the diagonal goes through a stage: the lanes write it,
and each lane makes its writes visible to the engine, whose reads go
through the *async proxy* as the tensor cores' do: chapter 10's proxy
fence, `fence.proxy.async`, under the name `fence_shared_for_copy_engine`.

The warp meets at `__syncwarp`, and lane 0 issues the two box stores, the
box copy of the GEMM the other way:

{{listing|common/device/bulk_copy.h|tensor_store_box}}

Lane 0 then closes the tile's stores into one *bulk group*. Before a
stage is written again, lane 0 waits until at most one group, the other
stage's, still reads its shared memory: groups are counted as
`cp.async`'s were in chapter 5, and the `.read` form waits only until the
engine has read the shared memory, not until the scores are in global
memory.

{{listing|common/device/bulk_copy.h|bulk_commit}}

{{listing|common/device/bulk_copy.h|bulk_wait_read}}

The tile on the diagonal is written by the lanes, one float at a time
and only where the key is not after the query: no masked score is written, and none of the kept ones is lost.
Tiles above the diagonal are not written at all.
*/

/* How a warp whose first query row is `top` sends tile c of `keys` keys:
 * staged when its last key is not after `top`, by the lanes when its first
 * key is not after the warp's last row, not at all past that. */
enum score_path { SCORES_STAGED, SCORES_BY_LANES, SCORES_NONE };
__host__ __device__ __forceinline__ score_path path_of_tile(int c, int keys, int top)
{
    if (c * keys + keys - 1 <= top)
        return SCORES_STAGED;
    return c * keys <= top + STAGE_ROWS - 1 ? SCORES_BY_LANES : SCORES_NONE;
}

/* The stage of a warp's sent-th staged tile. */
__host__ __device__ __forceinline__ int stage_of(int sent)
{
    return sent % STAGES;
}

/* Tile c's scores from a finished set of sums: through a stage and the copy
 * engine where every score of the warp's rows is kept, by the lanes on the
 * diagonal, not at all above it. `sent` counts the warp's box stores. */
template <int HS>
__device__ __forceinline__ void send_scores(float (&sum)[wgmma_key_tile<HS>::SUMS], int c,
                                            float *stages, int &sent, const CUtensorMap *map,
                                            float *scores, int row0, int T, int top, float scale)
{
    constexpr int KEYS = wgmma_key_tile<HS>::KEYS;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, first_key = c * KEYS;
    const score_path path = path_of_tile(c, KEYS, top);
    wgmma_hold(sum);
    if (path == SCORES_STAGED) { /* below the diagonal: every score is kept */
        float *stage = stages + stage_of(sent) * score_stage<HS>::FLOATS;
        if (lane == 0)
            bulk_wait_read<STAGES - 1>(); /* the engine has read this stage's last tile */
        __syncwarp();
#pragma unroll
        for (int half = 0; half < 2; half++)
#pragma unroll
            for (int j = 0; j < KEYS / 8; j++)
                *reinterpret_cast<float2 *>(stage + stage_index(g + 8 * half, 8 * j + 2 * t)) =
                    make_float2(sum[4 * j + 2 * half] * scale, sum[4 * j + 2 * half + 1] * scale);
        fence_shared_for_copy_engine();
        __syncwarp();
        if (lane == 0) {
#pragma unroll
            for (int box = 0; box < score_stage<HS>::BOXES; box++)
                tensor_store_box(map, row0 + top, first_key + box * TENSOR_MAP_BOX_COLS,
                                 stage + box * STAGE_ROWS * TENSOR_MAP_BOX_COLS);
            bulk_commit();
        }
        sent++;
    } else if (path == SCORES_BY_LANES) { /* on the diagonal: the kept ones alone */
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int query = top + g + 8 * half;
            float *row = scores + (size_t)query * T + first_key;
#pragma unroll
            for (int j = 0; j < KEYS / 8; j++) {
                const int col = 8 * j + 2 * t;
                if (first_key + col <= query)
                    row[col] = sum[4 * j + 2 * half] * scale;
                if (first_key + col + 1 <= query)
                    row[col + 1] = sum[4 * j + 2 * half + 1] * scale;
            }
        }
    }
}

/*md
The keys come in through the copy engine as in the GEMM, into a ring of
slots, three or four ahead of the walk, with an `mbarrier` per slot that
completes when its bytes have landed. A slot holds a tile of keys as
boxes of 32 values, 128-byte swizzled. That is a layout `wgmma` can read
as it is: a descriptor with the swizzle mode set
(`wgmma_descriptor_swizzled` in `wgmma.h`) names 8 rows of 128 bytes per
core-matrix group, 1024 bytes apart, and each step of 8 values of $k$
starts 32 bytes further along the row. No lane touches the keys.
*/

// book:hide
/* The ring of key tiles the copy engine fills ahead of the walk: a slot
 * holds a tile's keys as boxes of 32 values, 128-byte swizzled, which wgmma
 * reads as they are (the last box may reach past the head's HS: wgmma never
 * reads those values). With three products, each slot's small parts go to
 * one of three more buffers, laid out alike. */
template <int HS, int PRODUCTS>
struct key_ring {
    static constexpr int KEYS = wgmma_key_tile<HS>::KEYS;
    static constexpr int BOXES = (HS + TENSOR_MAP_BOX_COLS - 1) / TENSOR_MAP_BOX_COLS;
    static constexpr int SLOT = BOXES * KEYS * TENSOR_MAP_BOX_COLS; /* floats */
    static constexpr int SMALLS = PRODUCTS == 3 ? 3 : 0;             /* buffers of small parts */
    static constexpr int STAGE_BYTES = (WGMMA_THREADS / 32) * STAGES * score_stage<HS>::FLOATS * 4;
    static constexpr int FIXED = 1024 + STAGE_BYTES + SMALLS * SLOT * 4 + 64; /* besides the ring */
    static constexpr int FIT = (227 * 1024 - FIXED) / (SLOT * 4);
    static constexpr int SLOTS = FIT < 4 ? FIT : 4;
    static constexpr int BYTES = FIXED + SLOTS * SLOT * 4;
    static_assert(SLOTS >= 3, "three slots of keys must fit beside the stages");
};

/* The tile whose keys thread 0 asks for at step c of the walk, into the
 * slot that tile c - 1 has freed (the first SLOTS tiles before the walk). */
template <int HS, int PRODUCTS>
__host__ __device__ __forceinline__ int refill_tile(int c)
{
    return c - 1 + key_ring<HS, PRODUCTS>::SLOTS;
}

/* Thread 0: tile `tile`'s keys into its slot, through the copy engine. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void fetch_keys(int tile, float *ring, uint64_t *full,
                                           const CUtensorMap *key_map, int key_row, int key_col)
{
    using R = key_ring<HS, PRODUCTS>;
    float *slot = ring + tile % R::SLOTS * R::SLOT;
    mbarrier_expect_bytes(&full[tile % R::SLOTS], R::SLOT * sizeof(float));
#pragma unroll
    for (int box = 0; box < R::BOXES; box++)
        tensor_copy_box(slot + box * R::KEYS * TENSOR_MAP_BOX_COLS, key_map,
                        key_row + tile * R::KEYS, key_col + box * TENSOR_MAP_BOX_COLS,
                        &full[tile % R::SLOTS]);
}
// book:show

/*md
`wgmma` reads FP32 bits as TF32 by dropping their last 13 bits, so the
keys as they landed are the big part of a split by truncation. The small
part, $x$ minus $x$ with those bits cleared, still needs the lanes: for
three products each slot gets a buffer of small parts in the same layout,
float4 by float4, in the same places. TF32, one product, needs none of
it; the price is truncation instead of rounding for the keys, an error
of {{rel_l2|tf32+tma-store|B=8 T=1024 C=768 NH=12}} against
{{rel_l2|tf32+rows|B=8 T=1024 C=768 NH=12}} for chapter 8's rounded TF32,
well within the TF32 tolerance.
*/

// book:hide
/* Step `step` (values 8 step to 8 step + 7 of k) of a swizzled slot: its box,
 * and 32 bytes on in each 128-byte row for each step within the box. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ uint64_t slot_descriptor(const float *slot, int step)
{
    constexpr int KEYS = key_ring<HS, PRODUCTS>::KEYS;
    return wgmma_descriptor_swizzled(slot + step / 4 * KEYS * TENSOR_MAP_BOX_COLS + step % 4 * 8);
}

/* The small parts of a slot's keys, x minus x with its last 13 bits cleared
 * (what wgmma reads of x), rounded to TF32, in the same places. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void split_slot(float *small, const float *slot)
{
    constexpr int PIECES = key_ring<HS, PRODUCTS>::SLOT / 4;
#pragma unroll
    for (int p = threadIdx.x; p < PIECES; p += WGMMA_THREADS) {
        const float4 x = reinterpret_cast<const float4 *>(slot)[p];
        const float4 dropped = make_float4(
            x.x - __uint_as_float(__float_as_uint(x.x) & 0xffffe000u),
            x.y - __uint_as_float(__float_as_uint(x.y) & 0xffffe000u),
            x.z - __uint_as_float(__float_as_uint(x.z) & 0xffffe000u),
            x.w - __uint_as_float(__float_as_uint(x.w) & 0xffffe000u));
        reinterpret_cast<uint4 *>(small)[p] =
            make_uint4(round_to_tf32(dropped.x), round_to_tf32(dropped.y),
                       round_to_tf32(dropped.z), round_to_tf32(dropped.w));
    }
}

/* Starts a warp group's products of a tile: big by the keys as wgmma reads
 * them, and with three products small by those and big by the small parts. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void start_slot_products(float (&sum)[wgmma_key_tile<HS>::SUMS],
                                                    const float *slot, const float *small_keys,
                                                    const uint32_t (&big)[HS / 8][4],
                                                    const uint32_t (&small)[HS / 8][4])
{
    wgmma_hold(sum);
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < HS / 8; j++) {
        const uint64_t keys = slot_descriptor<HS, PRODUCTS>(slot, j);
        if (PRODUCTS == 3) {
            wgmma_tile(sum, small[j], keys, j > 0); /* j = 0: afresh */
            wgmma_tile(sum, big[j], slot_descriptor<HS, PRODUCTS>(small_keys, j), true);
        }
        wgmma_tile(sum, big[j], keys, PRODUCTS == 3 || j > 0);
    }
    wgmma_commit();
}
// book:show

/*md
A step of the walk, for tile $c$, written as a function so that the
kernel can call it with the two sets of sums in both orders (their names
fixed at compile time, as in the walk of `wgmma.cuh`; a loop that picked
the set with a branch made the compiler serialize every `wgmma`, and said
so): wait for tile $c + 1$'s keys, split their small parts, meet at the
block barrier (after which tile $c - 1$'s slot is free and thread 0 asks
the engine to refill it), start tile $c + 1$'s products, wait for tile
$c$'s and send its scores.
*/

// book:hide
/* What a step of the walk needs besides the sums. */
template <int HS, int PRODUCTS>
struct walk_state {
    float *ring, *smalls;
    uint64_t *full;
    const CUtensorMap *key_map;
    int key_row, key_col, tiles;
    float *stages;
    const CUtensorMap *map;
    float *scores;
    int row0, T, top;
    float scale;
};

/* Step c: tile c + 1's products started into `next` (its small parts split
 * first), tile c's scores sent from `now`. True after the last tile. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ bool walk_step(const walk_state<HS, PRODUCTS> &w, int c,
                                          float (&now)[wgmma_key_tile<HS>::SUMS],
                                          float (&next)[wgmma_key_tile<HS>::SUMS],
                                          const uint32_t (&big)[HS / 8][4],
                                          const uint32_t (&small)[HS / 8][4], int &sent)
{
    using R = key_ring<HS, PRODUCTS>;
    if (c + 1 >= w.tiles) {
        wgmma_wait<0>();
        send_scores<HS>(now, c, w.stages, sent, w.map, w.scores, w.row0, w.T, w.top, w.scale);
        return true;
    }
    const float *slot = w.ring + (c + 1) % R::SLOTS * R::SLOT;
    float *small_keys = w.smalls + (c + 1) % 3 * R::SLOT;
    mbarrier_wait(&w.full[(c + 1) % R::SLOTS], (c + 1) / R::SLOTS % 2);
    if (PRODUCTS == 3) {
        split_slot<HS, PRODUCTS>(small_keys, slot);
        fence_shared_for_wgmma();
    }
    __syncthreads(); /* every warp group is done with tile c - 1: its slot is free */
    if (threadIdx.x == 0 && c >= 1 && refill_tile<HS, PRODUCTS>(c) < w.tiles)
        fetch_keys<HS, PRODUCTS>(refill_tile<HS, PRODUCTS>(c), w.ring, w.full, w.key_map, w.key_row,
                                 w.key_col);
    start_slot_products<HS, PRODUCTS>(next, slot, small_keys, big, small);
    wgmma_wait<1>();
    send_scores<HS>(now, c, w.stages, sent, w.map, w.scores, w.row0, w.T, w.top, w.scale);
    return false;
}
// book:show

/*md
The kernel: the same blocks as `tf32x3_wgmma_scores`, the longest rows
of tiles first; thread 0 starts the ring, the warps split their queries
meanwhile, and the walk runs until the diagonal. A block may end only
when the engine has read every stage it was given. One block's walk, drawn
from the kernel's own functions:

{{figure|store-pipeline}}
*/

// book:hide
template <int HS, int PRODUCTS>
__global__ void __launch_bounds__(WGMMA_THREADS, 1)
    tma_store_scores(float *preatt, const __grid_constant__ CUtensorMap map,
                     const __grid_constant__ CUtensorMap key_map, const float *__restrict__ inp,
                     int B, int T, int NH)
{
    using R = key_ring<HS, PRODUCTS>;
    constexpr int KEYS = wgmma_key_tile<HS>::KEYS, SUMS = wgmma_key_tile<HS>::SUMS;
    extern __shared__ float4 tma_store_space[];
    /* the stages first, on the swizzle's 1024-byte period, then the ring,
     * the small parts and the ring's barriers */
    float *base = reinterpret_cast<float *>(
        (reinterpret_cast<uintptr_t>(tma_store_space) + 1023) & ~(uintptr_t)1023);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float *stages = base + warp * STAGES * score_stage<HS>::FLOATS;
    float *ring = base + (WGMMA_THREADS / 32) * STAGES * score_stage<HS>::FLOATS;
    float *smalls = ring + R::SLOTS * R::SLOT;
    uint64_t *full = reinterpret_cast<uint64_t *>(smalls + R::SMALLS * R::SLOT);
    const int heads = B * NH, rows = T / WGMMA_QUERIES;
    const int head = (int)(blockIdx.x % heads), tile_row = rows - 1 - (int)(blockIdx.x / heads);
    const int b = head / NH, h = head % NH, C = NH * HS, first = tile_row * WGMMA_QUERIES;
    const size_t row_stride = 3 * (size_t)C;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const int tiles = (first + WGMMA_QUERIES) / KEYS, top = first + warp * STAGE_ROWS;
    const int key_row = b * T, key_col = C + h * HS; /* the keys' first box in key_map */

    if (threadIdx.x == 0) {
        for (int s = 0; s < R::SLOTS; s++)
            mbarrier_init(&full[s], 1);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int tile = 0; tile < R::SLOTS && tile < tiles; tile++)
            fetch_keys<HS, PRODUCTS>(tile, ring, full, &key_map, key_row, key_col);
    uint32_t big[HS / 8][4], small[HS / 8][4];
    split_queries<HS>(big, small, sequence + (size_t)top * row_stride, row_stride);

    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)head * T * T;
    const int row0 = head * T; /* the head's first row in the map's matrix */
    int sent = 0;
    float sum0[SUMS], sum1[SUMS];
    mbarrier_wait(&full[0], 0);
    if (PRODUCTS == 3) {
        split_slot<HS, PRODUCTS>(smalls, ring);
        fence_shared_for_wgmma();
    }
    __syncthreads();
    start_slot_products<HS, PRODUCTS>(sum0, ring, smalls, big, small);
    walk_state<HS, PRODUCTS> walk = {ring, smalls, full, &key_map, key_row, key_col, tiles,
                                      stages, &map, scores, row0, T, top, scale};
    for (int c = 0;; c += 2) { /* the sets' names fixed at compile time, as in wgmma.cuh */
        if (walk_step<HS, PRODUCTS>(walk, c, sum0, sum1, big, small, sent))
            break;
        if (walk_step<HS, PRODUCTS>(walk, c + 1, sum1, sum0, big, small, sent))
            break;
    }
    if (lane == 0)
        bulk_wait_read<0>(); /* the engine has read every stage: the block may go */
}
// book:show

/*md
## What the copy engine buys the triangle

At the default size, on the {{gpu|tf32x3+tma-store|B=8 T=1024 C=768 NH=12}},
`tf32x3+tma-store` takes {{median_ms|tf32x3+tma-store|B=8 T=1024 C=768 NH=12}} ms
where `tf32x3+wgmma` takes {{median_ms|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} ms
({{speedup|tf32x3+tma-store|tf32x3+wgmma|B=8 T=1024 C=768 NH=12}} times as
fast) at the same FP32 accuracy
({{rel_l2|tf32x3+tma-store|B=8 T=1024 C=768 NH=12}}), and at $T = 2048$
{{median_ms|tf32x3+tma-store|B=8 T=2048 C=768 NH=12}} ms against
{{median_ms|tf32x3+wgmma|B=8 T=2048 C=768 NH=12}} ms. The TF32 kernel,
one product, takes {{median_ms|tf32+tma-store|B=8 T=1024 C=768 NH=12}} ms,
{{speedup|tf32+tma-store|tf32+rows|B=8 T=1024 C=768 NH=12}} times as fast as chapter 8's
`tf32+rows` ({{median_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} ms; the two Hopper cards
differ here, as the end of this section shows), and
{{median_ms|tf32+tma-store|B=8 T=2048 C=768 NH=12}} ms at $T = 2048$.

{{figure|race-chapter11}}

That is far from the floor: {{gbps|tf32+tma-store|B=8 T=1024 C=768 NH=12}}
GB/s for TF32 and {{gbps|tf32x3+tma-store|B=8 T=1024 C=768 NH=12}} GB/s for
3xTF32, where the {{gpu|tf32+tma-store|B=8 T=1024 C=768 NH=12}} moves
{{card_memory_tbs|tf32+tma-store|B=8 T=1024 C=768 NH=12}} TB/s. The stores are no longer the whole
story. On the H200, timed with the products and the stores of whole tiles taken out,
the walk alone (a block per row of tiles, the queries split, a block
barrier per tile, the ring) already costs about 70% of the memory floor,
and with the stores put back, without products, it costs nearly all of
`tf32+tma-store`'s time: the warps spend their time waiting on each
other and on memory, most of all at the block barrier. On the {{ncu|gpu|tf32+tma-store|B=8 T=1024 C=768 NH=12}}, Nsight
Compute finds the schedulers issuing on only
{{ncu|issue_pct|tf32+tma-store|B=8 T=1024 C=768 NH=12}}% of the cycles, with
{{ncu|eligible_warps|tf32+tma-store|B=8 T=1024 C=768 NH=12}} warps ready per scheduler per cycle,
while the DRAM is {{ncu|dram_pct|tf32+tma-store|B=8 T=1024 C=768 NH=12}}% busy. Only eight warps fit on a multiprocessor, since each
holds its split queries and two sets of sums in registers, and when all
eight wait, nothing hides the wait.

So the copy engine is what lets the tensor cores run in a GEMM whose
operands are read many times over; on the triangle it leaves the walk's
meetings as what binds. A faster design needs fewer meetings and more work
in flight: warp groups paired with `mbarrier`s instead of a block barrier
per tile, as in the GEMM; one warp that only drives the copy engine, in
and out; blocks that stay and walk several rows of tiles, so that a row's
start overlaps the last stores of the row before; and the queries read by
`wgmma` from shared memory, which frees registers. Chapter 12 builds it.

The two Hopper cards do not agree on the store. They share the chip's
multiprocessors and clock; the H200's memory is faster. At the default size:

| | H200 | H100 |
|---|---|---|
| memory bandwidth | {{card_memory_tbs|tf32+rows|B=8 T=1024 C=768 NH=12|card=H200}} TB/s | {{card_memory_tbs|tf32+rows|B=8 T=1024 C=768 NH=12|card=H100}} TB/s |
| memory floor | {{floor_memory_ms|tf32+rows|B=8 T=1024 C=768 NH=12|card=H200}} ms | {{floor_memory_ms|tf32+rows|B=8 T=1024 C=768 NH=12|card=H100}} ms |
| `tf32+rows` (chapter 8) | {{median_ms|tf32+rows|B=8 T=1024 C=768 NH=12|card=H200}} ms | {{median_ms|tf32+rows|B=8 T=1024 C=768 NH=12|card=H100}} ms |
| `tf32+tma-store` | {{median_ms|tf32+tma-store|B=8 T=1024 C=768 NH=12|card=H200}} ms | {{median_ms|tf32+tma-store|B=8 T=1024 C=768 NH=12|card=H100}} ms |
| `tf32x3` (chapter 9) | {{median_ms|tf32x3|B=8 T=1024 C=768 NH=12|card=H200}} ms | {{median_ms|tf32x3|B=8 T=1024 C=768 NH=12|card=H100}} ms |
| `tf32x3+tma-store` | {{median_ms|tf32x3+tma-store|B=8 T=1024 C=768 NH=12|card=H200}} ms | {{median_ms|tf32x3+tma-store|B=8 T=1024 C=768 NH=12|card=H100}} ms |

With three products a tile the copy engine's store pays on both cards:
{{speedup|tf32x3+tma-store|tf32x3|B=8 T=1024 C=768 NH=12|card=H200}} times on the H200,
{{speedup|tf32x3+tma-store|tf32x3|B=8 T=1024 C=768 NH=12|card=H100}} on the H100. With one it pays on
neither: `tf32+tma-store` is {{speedup|tf32+rows|tf32+tma-store|B=8 T=1024 C=768 NH=12|card=H200}} times
as slow as chapter 8's stores from the registers on the H200 and
{{speedup|tf32+rows|tf32+tma-store|B=8 T=1024 C=768 NH=12|card=H100}} on the H100. The stores from the
registers already keep the H100's slower memory
{{memory_pct|tf32+rows|B=8 T=1024 C=768 NH=12|card=H100}} % busy, against
{{memory_pct|tf32+rows|B=8 T=1024 C=768 NH=12|card=H200}} % of the H200's. Our reading of the
two tables (not a profile): with one product a tile the multiprocessor has
little to do while it waits for memory, so a store that costs it fewer
instructions buys nothing; with three it has enough that taking the stores
off its hands is worth a copy through shared memory.

*/

// book:hide
template <int HS, int PRODUCTS>
static void tma_store_launch_hs(const triangle_args *args)
{
    const triangle_size s = args->size;
    const int C = s.NH * s.HS;
    CUtensorMap map, key_map;
    char why[200];
    if (tensor_map_rows(&map, args->preatt, (long)s.B * s.NH * s.T, s.T, s.T, STAGE_ROWS, why,
                        sizeof why) ||
        tensor_map_rows(&key_map, args->inp, (long)s.B * s.T, 3 * C, 3 * C,
                        wgmma_key_tile<HS>::KEYS, why, sizeof why)) {
        fprintf(stderr, "tma-store: %s\n", why);
        exit(EXIT_FAILURE);
    }
    const size_t bytes = key_ring<HS, PRODUCTS>::BYTES;
    gpu_allow_shared_memory((const void *)tma_store_scores<HS, PRODUCTS>, bytes);
    const unsigned blocks = (unsigned)((long)s.B * s.NH * (s.T / WGMMA_QUERIES));
    tma_store_scores<HS, PRODUCTS><<<blocks, WGMMA_THREADS, bytes, args->stream>>>(
        args->preatt, map, key_map, args->inp, s.B, s.T, s.NH);
    LAUNCH_CHECK();
}

template <int PRODUCTS>
static void tma_store_launch(const triangle_args *args)
{
    switch (args->size.HS) { /* tf32x3_wgmma_refuses lets only these through */
    case 8: tma_store_launch_hs<8, PRODUCTS>(args); break;
    case 16: tma_store_launch_hs<16, PRODUCTS>(args); break;
    case 24: tma_store_launch_hs<24, PRODUCTS>(args); break;
    case 32: tma_store_launch_hs<32, PRODUCTS>(args); break;
    case 40: tma_store_launch_hs<40, PRODUCTS>(args); break;
    case 48: tma_store_launch_hs<48, PRODUCTS>(args); break;
    case 56: tma_store_launch_hs<56, PRODUCTS>(args); break;
    case 64: tma_store_launch_hs<64, PRODUCTS>(args); break;
    case 72: tma_store_launch_hs<72, PRODUCTS>(args); break;
    case 80: tma_store_launch_hs<80, PRODUCTS>(args); break;
    case 88: tma_store_launch_hs<88, PRODUCTS>(args); break;
    case 96: tma_store_launch_hs<96, PRODUCTS>(args); break;
    case 104: tma_store_launch_hs<104, PRODUCTS>(args); break;
    case 112: tma_store_launch_hs<112, PRODUCTS>(args); break;
    case 120: tma_store_launch_hs<120, PRODUCTS>(args); break;
    default: tma_store_launch_hs<128, PRODUCTS>(args); break;
    }
}

static int tma_store_unfit(triangle_size size, const gpu_info *gpu, char *why, size_t capacity)
{
    (void)size, (void)gpu;
    return wgmma_refuses((const void *)tma_store_scores<64, 3>, why, capacity);
}

// book:show
