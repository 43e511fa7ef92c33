// chapters/10-hopper/store.cu - Chapter 10, last step: the triangle's scores leave through the copy
// engine (tf32+tma-store, tf32x3+tma-store): staged in shared memory, written by box stores.
//
//   make chapter10
//   build/chapter10 --kernel tf32x3+tma-store T=4096

/*md
## The scores out through the copy engine

STORY_PLACEHOLDER
*/

#include "../hopper.cuh"
#include "device/bulk_copy.h"  /* tensor_store_box, bulk_commit, bulk_wait_read */
#include "device/tensor_map.h" /* tensor_map_rows, tensor_map_box_index */

#define STAGE_ROWS 16 /* a warp's rows of a tile: the height of its boxes */
#define STAGES 2      /* a warp's stages: one filled while the engine reads the other */

/* A warp's stage for head size HS: its 16 rows of a tile of scores, as
 * boxes 32 columns wide (tensor_map.h). */
template <int HS>
struct score_stage {
    static constexpr int KEYS = wgmma_key_tile<HS>::KEYS;
    static constexpr int BOXES = KEYS / TENSOR_MAP_BOX_COLS;
    static constexpr int FLOATS = STAGE_ROWS * KEYS;
};

/* Where score (r, col) of a warp's tile lies in its stage: box col / 32,
 * swizzled as the copy engine reads it. */
__device__ __forceinline__ int stage_index(int r, int col)
{
    return col / TENSOR_MAP_BOX_COLS * (STAGE_ROWS * TENSOR_MAP_BOX_COLS) +
           tensor_map_box_index(r, col % TENSOR_MAP_BOX_COLS);
}

/*md
STAGE_PLACEHOLDER
*/

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
    wgmma_hold(sum);
    if (first_key + KEYS - 1 <= top) { /* below the diagonal: every score is kept */
        float *stage = stages + sent % STAGES * score_stage<HS>::FLOATS;
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
    } else if (first_key <= top + STAGE_ROWS - 1) { /* on the diagonal: the kept ones alone */
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
KERNEL_PLACEHOLDER
*/

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
    static constexpr int FIXED = 1024 + (WGMMA_THREADS / 32) * STAGES * score_stage<HS>::FLOATS * 4 +
                                 SMALLS * SLOT * 4 + 64; /* bytes besides the ring */
    static constexpr int FIT = (227 * 1024 - FIXED) / (SLOT * 4);
    static constexpr int SLOTS = FIT < 4 ? FIT : 4;
    static constexpr int BYTES = FIXED + SLOTS * SLOT * 4;
    static_assert(SLOTS >= 3, "three slots of keys must fit beside the stages");
};

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
        tensor_copy_box(slot + box * R::KEYS * TENSOR_MAP_BOX_COLS, key_map, key_row + tile * R::KEYS,
                        key_col + box * TENSOR_MAP_BOX_COLS, &full[tile % R::SLOTS]);
}

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
    if (threadIdx.x == 0 && c >= 1 && c - 1 + R::SLOTS < w.tiles)
        fetch_keys<HS, PRODUCTS>(c - 1 + R::SLOTS, w.ring, w.full, w.key_map, w.key_row, w.key_col);
    start_slot_products<HS, PRODUCTS>(next, slot, small_keys, big, small);
    wgmma_wait<1>();
    send_scores<HS>(now, c, w.stages, sent, w.map, w.scores, w.row0, w.T, w.top, w.scale);
    return false;
}

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
    for (int c = 0;; c += 2) { /* the sets' names fixed at compile time, as in hopper.cuh */
        if (walk_step<HS, PRODUCTS>(walk, c, sum0, sum1, big, small, sent))
            break;
        if (walk_step<HS, PRODUCTS>(walk, c + 1, sum1, sum0, big, small, sent))
            break;
    }
    if (lane == 0)
        bulk_wait_read<0>(); /* the engine has read every stage: the block may go */
}

/*md
RESULT_PLACEHOLDER
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
    switch (args->size.HS) { /* tma_store_refuses lets only these through */
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

/* The walk's sizes, and rows the map can count (the copy engine's
 * coordinates are 32-bit). */
static int tma_store_refuses(triangle_size size, char *why, size_t capacity)
{
    if (tf32x3_wgmma_refuses(size, why, capacity))
        return 1;
    if ((long)size.B * size.NH * size.T > INT32_MAX) {
        snprintf(why, capacity, "B*NH*T = %ld rows of scores; the copy engine counts at most %d",
                 (long)size.B * size.NH * size.T, INT32_MAX);
        return 1;
    }
    return 0;
}

static int tma_store_unfit(triangle_size size, const gpu_info *gpu, char *why, size_t capacity)
{
    (void)size, (void)gpu;
    return wgmma_refuses((const void *)tma_store_scores<64, 3>, why, capacity);
}

extern const triangle_kernel tf32_tma_store_kernel =
    {tma_store_refuses, tma_store_launch<1>, tma_store_unfit};
extern const triangle_kernel tf32x3_tma_store_kernel =
    {tma_store_refuses, tma_store_launch<3>, tma_store_unfit};
// book:show
