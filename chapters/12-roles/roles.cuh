// chapters/12-roles/roles.cuh - Warps with roles for the triangle (tf32+roles, tf32x3+roles):
// one warp copies in, one copies out, two warp groups only multiply and stage; they meet through
// full/empty barrier pairs, and persistent blocks walk pairs of rows of tiles.
//
//   make build/chapter12
//   build/chapter12 --kernel tf32+roles --reps 30

/*md
# Warps with roles

## What is left when no warp waits for another?

What does a block barrier a tile cost, and what is left when it is gone?
In chapter 11's `tf32+tma-store` the eight warps of a block meet at one
for every tile of keys, and the warps that multiply also issue the copies
and wait for the copy engine's bulk groups: when one warp waits, for its
keys or for a stage to be read, the seven others wait with it, and nothing
else on the multiprocessor hides the wait. Chapter 11 found the walk's
meetings, not the products, taking most of the kernel's time, far from
the memory floor. This chapter asks how close to that floor the triangle
gets when no warp waits for another's job: the design that
FlashAttention-3 [@shah2024flashattention3] and CUTLASS's warp-specialized
persistent kernels [@cutlass] use, built for the triangle.

## The roles

Each warp gets one job:

- the *loader*, one warp (one thread of it, in fact), asks the copy engine
  for every tile the block reads: a row's queries, then its tiles of keys,
  into a ring of slots;
- two *consumer* warp groups only run `wgmma` and put finished scores
  into their stages in shared memory;
- the *storer*, one more warp, hands each filled stage to the copy engine
  as box stores and says when the engine has read it.

They meet through pairs of `mbarrier`s, one pair per buffer: *full*
completes when the buffer holds what its readers need (the engine's bytes
have landed; the four warps of a group have written their stage), *empty*
when its readers are done with it. Nobody waits for anybody but the data,
and no block barrier is left in the walk.

The blocks are persistent: one per multiprocessor, each walking several
rows of tiles, so that the loader brings a row's queries and first keys
while the consumers finish the row before, and the storer's last boxes
of a row fly while the next row's products run. The rows of the triangle
have unequal work (row $r$ of 128 queries has $r + 1$ times 128 keys), so
a block takes them in pairs, row $r$ with row $n - 1 - r$: every pair has
the same work, $n + 1$ row-tiles, and the pairs are dealt round-robin.

The queries are `wgmma`'s $A$ operand straight from shared memory, where
the copy engine landed them: no lane loads them, splits them or holds
them, and the registers are left to the two sets of sums. With three
products the queries' small parts are still needed as an operand; the
lanes compute them once a row into registers (a $64 \times 8$ step's $A$
fragment, $HS / 2$ registers a lane at most), and the other two products
read the queries from shared memory.

{{figure|roles-timeline}}

The figure above runs one block's schedule through a model of the barriers.
Its program calls the functions the roles call below (the scheduler
`roles_next_row`, `roles_path_of`, the parities of the waits and the
storer's lag), writes each role out as its list of waits, arrivals and
work, and runs the lists together in steps of time: a schedule, not a
measurement. Read it by columns: while a group multiplies tile $c + 1$
(green) it writes tile $c$ into a stage (blue), the box stores of tile
$c - 1$ are in flight from the other stage, and the loader's copies of
the tiles up to three ahead land in the ring. A stage comes back to its
group two tiles after it was written, once the engine has read it; on the
diagonal the lanes write the kept scores and the storer has nothing to
send; the short row's queries land in the second buffer while the long
row is multiplied, so a group starts the short row as soon as it has
sent the long row's last tile. The same program runs every block of the default size
through the model and refuses to draw a schedule in which a slot or a
stage is filled again before its *empty* barrier has completed, products
or a store read a buffer that is not yet *full*, a role waits forever,
or a kept score is on no path.
*/

#pragma once

#include "../10-wgmma/wgmma.cuh"
#include "device/bulk_copy.h"  /* mbarrier_*, tensor_copy_box, tensor_store_box, bulk groups */
#include "device/tensor_map.h" /* tensor_map_rows, tensor_map_box_index */

#define ROLES_GROUPS 2                          /* consumer warp groups */
#define ROLES_GROUP_ROWS 64                     /* a group's query rows of a tile: wgmma's M */
#define ROLES_LOADER_WARP (ROLES_GROUPS * 4)    /* warp 8 copies in */
#define ROLES_STORER_WARP (ROLES_GROUPS * 4 + 1) /* warp 9 copies out */
#define ROLES_THREADS (ROLES_GROUPS * 128 + 64)
#ifndef ROLES_STAGES
#define ROLES_STAGES 2 /* a group's stages, each a whole tile (2 where 3 do not fit) */
#endif
/* Knobs for the experiments of the last section, never for a result:
 * 1 leaves out every wgmma (the sums stay as they were), or every store of
 * a staged tile (the diagonal's are still written by the lanes). */
#ifndef ROLES_NO_PRODUCTS
#define ROLES_NO_PRODUCTS 0
#endif
#ifndef ROLES_NO_STORES
#define ROLES_NO_STORES 0
#endif
#define ROLES_SHARED_LIMIT (227 * 1024)         /* a Hopper block's shared memory */
static_assert(ROLES_GROUPS * ROLES_GROUP_ROWS == WGMMA_QUERIES,
              "the consumer groups' rows are a row of tiles' queries");
static_assert(ROLES_STAGES >= 2, "a group fills one stage while the engine reads another");

/* The shape of the walk for head size HS and PRODUCTS products. Keys a tile:
 * 64 (wgmma's N) where the buffers fit, 32 past that. A slot of keys, the
 * queries of a row and a stage are boxes of 32 values, 128-byte swizzled,
 * which wgmma reads as they are. The queries are double-buffered (the next
 * row's land during this one) where three slots of keys still fit beside
 * them; the ring takes up to four slots of what is left. */
template <int HS, int PRODUCTS>
struct roles_shape {
    static constexpr int KEYS = HS <= 64 ? 64 : 32;
    static constexpr int SUMS = KEYS / 2;
    static constexpr int BOXES = (HS + TENSOR_MAP_BOX_COLS - 1) / TENSOR_MAP_BOX_COLS;
    static constexpr int SLOT = BOXES * KEYS * TENSOR_MAP_BOX_COLS;               /* floats */
    static constexpr int QUERIES = BOXES * WGMMA_QUERIES * TENSOR_MAP_BOX_COLS; /* floats */
    static constexpr int STAGE = ROLES_GROUP_ROWS * KEYS;                       /* floats */
    static constexpr int STAGE_BOXES = KEYS / TENSOR_MAP_BOX_COLS;
    static constexpr int BARRIERS = 512; /* bytes, with room to spare */
    /* ROLES_STAGES a group where the rest still fits, else 2 */
    static constexpr int STAGES =
        ROLES_SHARED_LIMIT - 1024 - BARRIERS - ROLES_GROUPS * ROLES_STAGES * STAGE * 4 -
                    (PRODUCTS == 3 && HS > 96 ? 2 : 1) * BOXES * WGMMA_QUERIES * 32 * 4 >=
                2 * BOXES * KEYS * 32 * 4 * (PRODUCTS == 3 ? 2 : 1)
            ? ROLES_STAGES
            : 2;
    static constexpr int STAGE_BYTES = ROLES_GROUPS * STAGES * STAGE * 4;
    static constexpr int SLOT_BYTES = SLOT * 4 * (PRODUCTS == 3 ? 2 : 1); /* + small parts */
    /* Three products past HS = 96: the queries' small parts in shared memory
     * too (in registers, 52 and more a lane, ptxas spilled). */
    static constexpr bool SMALL_QUERIES_SHARED = PRODUCTS == 3 && HS > 96;
    static constexpr int SMALL_QUERIES = SMALL_QUERIES_SHARED ? QUERIES : 0; /* floats */
    static constexpr int ROOM =
        ROLES_SHARED_LIMIT - 1024 - BARRIERS - STAGE_BYTES - SMALL_QUERIES * 4;
    static constexpr int QUERY_BUFFERS = (ROOM - 2 * QUERIES * 4) / SLOT_BYTES >= 3 ? 2 : 1;
    static constexpr int FIT = (ROOM - QUERY_BUFFERS * QUERIES * 4) / SLOT_BYTES;
    static constexpr int SLOTS = FIT < 4 ? FIT : 4;
    static constexpr int BYTES = 1024 + STAGE_BYTES + QUERY_BUFFERS * QUERIES * 4 +
                                 SMALL_QUERIES * 4 + SLOTS * SLOT_BYTES + BARRIERS;
    static_assert(SLOTS >= 2, "two slots of keys must fit beside the queries and the stages");
    static_assert(BYTES <= ROLES_SHARED_LIMIT, "the buffers must fit a Hopper block");
    static_assert(STAGE_BOXES * TENSOR_MAP_BOX_COLS == KEYS,
                  "a stage is whole boxes, 32 columns each");
};

/*md
## The tile scheduler

Every role walks the same list of rows, computed by the same function, so
that no role has to tell another which row comes next: with $P = \lceil n / 2
\rceil$ pairs a head, unit $u$ of the launch is the pair of rows $n - 1 - p$
and $p$ ($p = u \bmod P$) of head $\lfloor u / P \rfloor$, the long row
first; block $k$ takes units $k$, $k + \text{blocks}$, $k +
2\,\text{blocks}$, ... The middle row of an odd $n$ is a unit of its own,
the last of its head. A head's pairs are neighbours in the list, so the
blocks that run at once share the keys of a few heads, which stay in the
L2 cache while they are read again; the scores, written once, are stored
with the policy that the L2 evicts first.
*/

/* Where a block is in its list of rows. */
struct roles_schedule {
    int unit, second; /* second: the short row of the unit's pair comes next */
};

__host__ __device__ __forceinline__ int roles_units(int heads, int rows)
{
    return heads * ((rows + 1) / 2);
}

/* The block's next row (its head and its row of tiles), or false past the last. */
__host__ __device__ __forceinline__ bool roles_next_row(roles_schedule &s, int blocks, int heads,
                                                        int rows, int &head, int &tile_row)
{
    if (s.unit >= roles_units(heads, rows))
        return false;
    const int pairs = (rows + 1) / 2;
    const int pair = s.unit % pairs;
    head = s.unit / pairs;
    tile_row = s.second ? pair : rows - 1 - pair;
    if (!s.second && pair != rows - 1 - pair) {
        s.second = 1;
    } else {
        s.second = 0;
        s.unit += blocks;
    }
    return true;
}

/* How group `group`'s 64 rows from `top` on send tile c of `keys` keys:
 * staged where every score is kept, by the lanes where the diagonal
 * crosses the tile, not at all above it. */
enum roles_path { ROLES_STAGED, ROLES_BY_LANES, ROLES_NONE };
// book:changes chapters/11-copy-engine/store.cuh path_of_tile
__host__ __device__ __forceinline__ roles_path roles_path_of(int c, int keys, int top)
{
    if (c * keys + keys - 1 <= top)
        return ROLES_STAGED;
    return c * keys <= top + ROLES_GROUP_ROWS - 1 ? ROLES_BY_LANES : ROLES_NONE;
}

/* The buffers in shared memory and their barriers. */
template <int HS, int PRODUCTS>
struct roles_buffers {
    float *stages;  /* [group][stage]: a group's tile of scores, KEYS / 32 boxes of 64 x 32 */
    float *queries; /* [buffer]: a row's 128 queries, BOXES boxes of 128 x 32 */
    float *ring;    /* [slot]: a tile of keys, BOXES boxes of KEYS x 32 */
    float *smalls;  /* [slot]: the small parts of the slot's keys (three products) */
    float *small_queries; /* the row's queries' small parts (three products, HS > 96) */
    uint64_t *key_full, *key_empty, *small_full, *query_full, *query_empty;
    uint64_t *stage_full, *stage_empty; /* [group * S::STAGES + stage] */
};

template <int HS, int PRODUCTS>
__device__ __forceinline__ roles_buffers<HS, PRODUCTS> roles_carve(void *space)
{
    using S = roles_shape<HS, PRODUCTS>;
    roles_buffers<HS, PRODUCTS> m;
    float *base = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(space) + 1023) &
                                            ~(uintptr_t)1023); /* the swizzle's period */
    m.stages = base;
    m.queries = m.stages + ROLES_GROUPS * S::STAGES * S::STAGE;
    m.ring = m.queries + S::QUERY_BUFFERS * S::QUERIES;
    m.smalls = m.ring + S::SLOTS * S::SLOT;
    m.small_queries = m.smalls + (PRODUCTS == 3 ? S::SLOTS : 0) * S::SLOT;
    uint64_t *barrier = reinterpret_cast<uint64_t *>(m.small_queries + S::SMALL_QUERIES);
    m.key_full = barrier;
    m.key_empty = m.key_full + S::SLOTS;
    m.small_full = m.key_empty + S::SLOTS;
    m.query_full = m.small_full + S::SLOTS;
    m.query_empty = m.query_full + S::QUERY_BUFFERS;
    m.stage_full = m.query_empty + S::QUERY_BUFFERS;
    m.stage_empty = m.stage_full + ROLES_GROUPS * S::STAGES;
    return m;
}

/* The parity a wait on a buffer's full barrier names for the buffer's
 * use-th filling: its use-th completion (parity 0, 1, 0, ...). */
__host__ __device__ __forceinline__ unsigned roles_full_parity(int use)
{
    return (unsigned)use & 1;
}

/* The parity a wait on a buffer's empty barrier names before the buffer's
 * use-th filling: the end of use - 1, and for use 0 the phase before the
 * barrier's first, which passes at once. */
__host__ __device__ __forceinline__ unsigned roles_empty_parity(int use)
{
    return ((unsigned)use & 1) ^ 1;
}

/* How many steps the storer frees a group's stage after it sent it: the
 * bulk groups it leaves unread when it waits (a group has `stages` stages,
 * and the one it fills must be free). */
__host__ __device__ constexpr int roles_storer_lag(int stages)
{
    return stages - 1;
}

/* Waits for the use-th completion of a full barrier. */
__device__ __forceinline__ void wait_full(uint64_t *barrier, int use)
{
    mbarrier_wait(barrier, roles_full_parity(use));
}

/* Waits until the buffer's use before the use-th is over: at once for use 0. */
__device__ __forceinline__ void wait_empty(uint64_t *barrier, int use)
{
    mbarrier_wait(barrier, roles_empty_parity(use));
}

/* What a row of the walk needs to know, the same for every role. */
struct roles_row {
    int head, first, tiles; /* the head, its first query row, tiles of keys to the diagonal */
    int key_row, key_col;   /* the keys' first element in the input's map */
    int query_col;          /* the queries' first column */
};

template <int HS, int PRODUCTS>
__host__ __device__ __forceinline__ roles_row roles_row_at(int head, int tile_row, int T, int NH)
{
    constexpr int KEYS = roles_shape<HS, PRODUCTS>::KEYS;
    const int b = head / NH, h = head % NH, C = NH * HS;
    roles_row r;
    r.head = head;
    r.first = tile_row * WGMMA_QUERIES;
    r.tiles = (r.first + WGMMA_QUERIES) / KEYS;
    r.key_row = b * T;
    r.key_col = C + h * HS;
    r.query_col = h * HS;
    return r;
}

/*md
## The loader

One thread of warp 8. For each row of its block: wait until the queries'
buffer is free, ask for the row's queries (one box per 32 values of the
head), then for each tile of keys wait until its slot is free and ask for
it. The engine counts the bytes into the buffer's *full* barrier: the
loader's own arrival on it carries the number of bytes the phase must
wait for (`mbarrier_expect_bytes`, chapter 11's `expect_tx`), and the
phase completes when they have landed.
*/

template <int HS, int PRODUCTS>
__device__ __forceinline__ void roles_load(const roles_buffers<HS, PRODUCTS> &m,
                                           const CUtensorMap *key_map,
                                           const CUtensorMap *query_map, int B, int T, int NH)
{
    using S = roles_shape<HS, PRODUCTS>;
    const int heads = B * NH, rows = T / WGMMA_QUERIES;
    roles_schedule schedule = {(int)blockIdx.x, 0};
    int head, tile_row, row_count = 0, tile_count = 0;
    while (roles_next_row(schedule, (int)gridDim.x, heads, rows, head, tile_row)) {
        const roles_row r = roles_row_at<HS, PRODUCTS>(head, tile_row, T, NH);
        const int q = row_count % S::QUERY_BUFFERS;
        wait_empty(&m.query_empty[q], row_count / S::QUERY_BUFFERS);
        mbarrier_expect_bytes(&m.query_full[q], S::QUERIES * sizeof(float));
        for (int box = 0; box < S::BOXES; box++)
            tensor_copy_box(m.queries + q * S::QUERIES + box * WGMMA_QUERIES * TENSOR_MAP_BOX_COLS,
                            query_map, r.key_row + r.first,
                            r.query_col + box * TENSOR_MAP_BOX_COLS, &m.query_full[q]);
        for (int c = 0; c < r.tiles; c++, tile_count++) {
            const int s = tile_count % S::SLOTS;
            wait_empty(&m.key_empty[s], tile_count / S::SLOTS);
            mbarrier_expect_bytes(&m.key_full[s], S::SLOT * sizeof(float));
            for (int box = 0; box < S::BOXES; box++)
                tensor_copy_box(m.ring + s * S::SLOT + box * S::KEYS * TENSOR_MAP_BOX_COLS, key_map,
                                r.key_row + c * S::KEYS, r.key_col + box * TENSOR_MAP_BOX_COLS,
                                &m.key_full[s]);
        }
        row_count++;
    }
}

/*md
## The storer

One thread of warp 9, walking the same tiles. At each tile, for each group
whose scores of it go through a stage, it waits for the stage's *full*
barrier (the group's four warps have written it) and issues its box
stores; the tile's stores close into one bulk group. Then it waits until
the engine has read the group of $S - 1$ tiles before
(`bulk_wait_read<LAG>`, `LAG` from `roles_storer_lag`: $S - 1$, $S$ a
group's stages, `ROLES_STAGES`: 2 by default) and frees that group's
stages. A group fills one stage while the
engine reads the others, and the storer always frees a stage before it
waits for the next use of it: the stage of a group's tile $n$ comes back
at its tile $n + S$, at least $S$ steps later, and is freed $S - 1$ steps
after it was sent. Bulk groups belong to the thread that commits them,
which is why one thread, not the four warps of a group, sends them all:
no warp that multiplies ever waits for the copy engine.
*/

template <int HS, int PRODUCTS>
__device__ __forceinline__ void roles_store(const roles_buffers<HS, PRODUCTS> &m,
                                            const CUtensorMap *score_map, int B, int T, int NH)
{
    using S = roles_shape<HS, PRODUCTS>;
    const int heads = B * NH, rows = T / WGMMA_QUERIES;
    roles_schedule schedule = {(int)blockIdx.x, 0};
    int head, tile_row, staged[ROLES_GROUPS] = {0, 0};
    constexpr int LAG = roles_storer_lag(S::STAGES);
    int history[LAG][ROLES_GROUPS]; /* the stages of the last steps, oldest first */
    const uint64_t scores_policy = l2_policy_evict_first(); /* written once, never read here */
#pragma unroll
    for (int i = 0; i < LAG; i++)
#pragma unroll
        for (int g = 0; g < ROLES_GROUPS; g++)
            history[i][g] = -1;
    while (roles_next_row(schedule, (int)gridDim.x, heads, rows, head, tile_row)) {
        const roles_row r = roles_row_at<HS, PRODUCTS>(head, tile_row, T, NH);
        for (int c = 0; c < r.tiles; c++) {
            int now[ROLES_GROUPS] = {-1, -1};
#pragma unroll
            for (int g = 0; g < ROLES_GROUPS; g++) {
                const int top = r.first + g * ROLES_GROUP_ROWS;
                if (ROLES_NO_STORES || roles_path_of(c, S::KEYS, top) != ROLES_STAGED)
                    continue;
                const int stage = g * S::STAGES + staged[g] % S::STAGES;
                wait_full(&m.stage_full[stage], staged[g] / S::STAGES);
#pragma unroll
                for (int box = 0; box < S::STAGE_BOXES; box++)
                    tensor_store_box_hinted(score_map, r.head * T + top,
                                            c * S::KEYS + box * TENSOR_MAP_BOX_COLS,
                                            m.stages + stage * S::STAGE +
                                                box * ROLES_GROUP_ROWS * TENSOR_MAP_BOX_COLS,
                                            scores_policy);
                now[g] = stage;
                staged[g]++;
            }
            bulk_commit();
            /* the stages of the step LAG back are read: free them */
            bulk_wait_read<LAG>();
#pragma unroll
            for (int g = 0; g < ROLES_GROUPS; g++) {
                if (history[0][g] >= 0)
                    mbarrier_arrive(&m.stage_empty[history[0][g]]);
#pragma unroll
                for (int i = 0; i + 1 < LAG; i++)
                    history[i][g] = history[i + 1][g];
                history[LAG - 1][g] = now[g];
            }
        }
    }
    bulk_wait_read<0>(); /* the block may end only when the engine has read every stage */
}

/*md
## The consumers

A warp group walks each of its block's rows as chapter 10's walk did,
with two sets of sums so that a tile's products run while the tile before
is staged. Step $c$: wait for tile $c + 1$'s keys (with three products,
split this warp's share of their small parts and wait for the other
warps' shares), start its products, wait for tile $c$'s (`wgmma_wait<1>`),
free tile $c$'s slot (each warp arrives on its *empty* barrier) and send
tile $c$'s scores. After a row's last tile each warp frees the queries'
buffer too. Freeing is one arrival by lane 0 of each warp, after a
`__syncwarp`: a slot's *empty* barrier expects the eight consumer warps,
a stage's *full* barrier the four warps of its group (`mbarrier_arrive`,
chapter 11's).

The queries come from shared memory, so the products take both operands
there: the same `wgmma`, with a descriptor for $A$ where chapter 10's took
four registers (`_ss`: both from shared memory).

{{listing|common/device/wgmma.h|wgmma_tf32_m64n64k8_ss|changes|common/device/wgmma.h|wgmma_tf32_m64n64k8}}

Where a group must share a buffer among its own four warps (the small
parts of the queries past $HS = 96$, written by the group's lanes before
its products read them), it meets at a hardware barrier of its own, one
per group, while the block's other warps go on:

{{listing|common/device/wgmma.h|warp_group_barrier}}

Hopper can also move registers between the roles (`setmaxnreg`: the
producer gives some up, the consumers take them). It is not used here: it
acts on whole warp groups, the producer is two warps, and the consumers
fit their sums in the registers they have.
*/

/* What a consumer's step needs besides the sums. */
template <int HS, int PRODUCTS>
struct roles_walk {
    roles_buffers<HS, PRODUCTS> m;
    const float *queries; /* this group's rows of the row's query buffer */
    const float *small_queries; /* and of their small parts, where in shared memory */
    int query_buffer, tiles, first_tile; /* first_tile: the row's first in the block's count */
    float *scores;                       /* the head's scores, for the lanes' writes */
    int T, top, group;
    float scale;
};

/* The descriptor of a swizzled buffer's first step, made once a tile; the
 * empty statement keeps the compiler from computing every step's
 * descriptor once for the whole walk and holding them all in registers
 * (at HS = 128 with three products that spilled). */
__device__ __forceinline__ uint64_t roles_descriptor_base(const float *buffer)
{
    uint64_t descriptor = wgmma_descriptor_swizzled(buffer);
    asm volatile("" : "+l"(descriptor));
    return descriptor;
}

/* Step `step` (values 8 step to 8 step + 7 of k) of a swizzled buffer of
 * ROWS rows, from its base descriptor: its box, and 32 bytes on in each
 * 128-byte row within the box (the address field counts 16 bytes; shared
 * addresses stay under 2^18, so the sum never carries out of it). */
template <int ROWS>
__device__ __forceinline__ uint64_t roles_descriptor(uint64_t base, int step)
{
    return base + (uint64_t)((step / 4 * ROWS * TENSOR_MAP_BOX_COLS + step % 4 * 8) * 4 / 16);
}

/* The small part of x, x minus x with its last 13 bits cleared (what wgmma
 * reads of x), rounded to TF32. */
__device__ __forceinline__ uint32_t small_part(float x)
{
    return round_to_tf32(x - __uint_as_float(__float_as_uint(x) & 0xffffe000u));
}

__device__ __forceinline__ uint4 small_parts(float4 x)
{
    return make_uint4(small_part(x.x), small_part(x.y), small_part(x.z), small_part(x.w));
}

/* Three products: this warp's share of the small parts of slot s's keys,
 * x minus x with its last 13 bits cleared (what wgmma reads of x), rounded
 * to TF32, in the same places; then the warp's arrival on small_full. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void split_share(const roles_buffers<HS, PRODUCTS> &m, int s)
{
    using S = roles_shape<HS, PRODUCTS>;
    constexpr int PIECES = S::SLOT / 4;
    const float4 *slot = reinterpret_cast<const float4 *>(m.ring + s * S::SLOT);
    uint4 *small = reinterpret_cast<uint4 *>(m.smalls + s * S::SLOT);
#pragma unroll
    for (int p = threadIdx.x; p < PIECES; p += ROLES_GROUPS * 128)
        small[p] = small_parts(slot[p]);
    fence_shared_for_wgmma(); /* the lanes' writes, visible to the tensor cores */
    __syncwarp();
    if (threadIdx.x % 32 == 0)
        mbarrier_arrive(&m.small_full[s]);
}

/* Tile `tile` (the block's count) ready to multiply: its keys landed and,
 * with three products, their small parts split by all eight warps. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void wait_keys(const roles_buffers<HS, PRODUCTS> &m, int tile)
{
    using S = roles_shape<HS, PRODUCTS>;
    const int s = tile % S::SLOTS, use = tile / S::SLOTS;
    wait_full(&m.key_full[s], use);
    if (PRODUCTS == 3) {
        split_share<HS, PRODUCTS>(m, s);
        wait_full(&m.small_full[s], use);
    }
}

/* This warp is done with tile `tile`'s slot (its products are over). */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void free_keys(const roles_buffers<HS, PRODUCTS> &m, int tile)
{
    __syncwarp();
    if (threadIdx.x % 32 == 0)
        mbarrier_arrive(&m.key_empty[tile % roles_shape<HS, PRODUCTS>::SLOTS]);
}

// book:changes chapters/10-wgmma/wgmma.cuh wgmma_tile
template <int SUMS>
__device__ __forceinline__ void wgmma_tile_ss(float (&sum)[SUMS], uint64_t a, uint64_t b,
                                              bool accumulate)
{
    if constexpr (SUMS == 32)
        wgmma_tf32_m64n64k8_ss(sum, a, b, accumulate);
    else
        wgmma_tf32_m64n32k8_ss(sum, a, b, accumulate);
}

/* Starts a group's products of tile `tile`: the queries from shared memory
 * by the keys as they landed, and with three products the small parts of
 * the queries (registers) by the keys and the queries by the keys' small
 * parts. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void start_products(const roles_walk<HS, PRODUCTS> &w,
                                               float (&sum)[roles_shape<HS, PRODUCTS>::SUMS],
                                               int tile, const uint32_t (&small)[HS / 8][4])
{
    using S = roles_shape<HS, PRODUCTS>;
    const uint64_t query_base = roles_descriptor_base(w.queries);
    const uint64_t key_base = roles_descriptor_base(w.m.ring + tile % S::SLOTS * S::SLOT);
    const uint64_t small_base =
        PRODUCTS == 3 ? roles_descriptor_base(w.m.smalls + tile % S::SLOTS * S::SLOT) : 0;
    const uint64_t small_query_base =
        S::SMALL_QUERIES_SHARED ? roles_descriptor_base(w.small_queries) : 0;
    wgmma_hold(sum);
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < (ROLES_NO_PRODUCTS ? 0 : HS / 8); j++) {
        const uint64_t queries = roles_descriptor<WGMMA_QUERIES>(query_base, j);
        const uint64_t keys = roles_descriptor<S::KEYS>(key_base, j);
        if (PRODUCTS == 3) {
            if constexpr (S::SMALL_QUERIES_SHARED) /* j = 0: afresh */
                wgmma_tile_ss(sum, roles_descriptor<WGMMA_QUERIES>(small_query_base, j), keys,
                              j > 0);
            else
                wgmma_tile(sum, small[j], keys, j > 0);
            wgmma_tile_ss(sum, queries, roles_descriptor<S::KEYS>(small_base, j), true);
        }
        wgmma_tile_ss(sum, queries, keys, PRODUCTS == 3 || j > 0);
    }
    wgmma_commit();
}

/* Where score (r, col) of a group's tile lies in its stage: box col / 32,
 * swizzled as the copy engine reads it. */
__host__ __device__ __forceinline__ int roles_stage_index(int r, int col)
{
    return col / TENSOR_MAP_BOX_COLS * (ROLES_GROUP_ROWS * TENSOR_MAP_BOX_COLS) +
           tensor_map_box_index(r, col % TENSOR_MAP_BOX_COLS);
}

// book:changes chapters/11-copy-engine/store.cuh send_scores
/* Tile c's scores from a finished set of sums: into the group's next stage
 * (the storer sends it), by the lanes on the diagonal, or not at all. */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void send_tile(const roles_walk<HS, PRODUCTS> &w,
                                          float (&sum)[roles_shape<HS, PRODUCTS>::SUMS], int c,
                                          int &staged)
{
    constexpr int KEYS = roles_shape<HS, PRODUCTS>::KEYS;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row = threadIdx.x / 32 % 4 * 16; /* the warp's first row in the group's 64 */
    const roles_path path = roles_path_of(c, KEYS, w.top);
    wgmma_hold(sum);
    if (path == ROLES_STAGED && !ROLES_NO_STORES) {
        constexpr int STAGES = roles_shape<HS, PRODUCTS>::STAGES;
        const int stage = w.group * STAGES + staged % STAGES;
        float *to = w.m.stages + stage * roles_shape<HS, PRODUCTS>::STAGE;
        wait_empty(&w.m.stage_empty[stage], staged / STAGES);
#pragma unroll
        for (int half = 0; half < 2; half++)
#pragma unroll
            for (int j = 0; j < KEYS / 8; j++)
                *reinterpret_cast<float2 *>(to + roles_stage_index(row + g + 8 * half,
                                                                   8 * j + 2 * t)) =
                    make_float2(sum[4 * j + 2 * half] * w.scale,
                                sum[4 * j + 2 * half + 1] * w.scale);
        fence_shared_for_copy_engine();
        __syncwarp();
        if (lane == 0)
            mbarrier_arrive(&w.m.stage_full[stage]);
        staged++;
    } else if (path == ROLES_BY_LANES) { /* on the diagonal: the kept ones alone */
        const int first_key = c * KEYS;
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int query = w.top + row + g + 8 * half;
            float *out = w.scores + (size_t)query * w.T + first_key;
#pragma unroll
            for (int j = 0; j < KEYS / 8; j++) {
                const int col = 8 * j + 2 * t;
                if (first_key + col <= query)
                    out[col] = sum[4 * j + 2 * half] * w.scale;
                if (first_key + col + 1 <= query)
                    out[col + 1] = sum[4 * j + 2 * half + 1] * w.scale;
            }
        }
    }
}

/* Step c of a row: tile c + 1's products started into `next`, tile c's
 * slot freed and its scores sent from `now`. True after the row's last
 * tile (its queries' buffer freed too). Called with the two sets in both
 * orders, so that their names are fixed at compile time: a branch that
 * picked the set made the compiler serialize every wgmma (store.cuh). */
template <int HS, int PRODUCTS>
__device__ __forceinline__ bool roles_step(const roles_walk<HS, PRODUCTS> &w, int c,
                                           float (&now)[roles_shape<HS, PRODUCTS>::SUMS],
                                           float (&next)[roles_shape<HS, PRODUCTS>::SUMS],
                                           const uint32_t (&small)[HS / 8][4], int &staged)
{
    const int tile = w.first_tile + c;
    if (c + 1 >= w.tiles) {
        wgmma_wait<0>();
        free_keys<HS, PRODUCTS>(w.m, tile);
        if (threadIdx.x % 32 == 0) /* the row's products are over: its queries too */
            mbarrier_arrive(&w.m.query_empty[w.query_buffer]);
        send_tile<HS, PRODUCTS>(w, now, c, staged);
        return true;
    }
    wait_keys<HS, PRODUCTS>(w.m, tile + 1);
    start_products<HS, PRODUCTS>(w, next, tile + 1, small);
    wgmma_wait<1>();
    free_keys<HS, PRODUCTS>(w.m, tile);
    send_tile<HS, PRODUCTS>(w, now, c, staged);
    return false;
}

// book:changes chapters/10-wgmma/wgmma.cuh split_queries
/* Three products: the small parts of this warp's 16 query rows, x minus x
 * with its last 13 bits cleared, rounded to TF32, in A fragments of all HS,
 * from the row's query buffer. */
template <int HS>
__device__ __forceinline__ void small_queries(uint32_t (&small)[HS / 8][4], const float *queries)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int r0 = threadIdx.x / 32 % 4 * 16 + g, r1 = r0 + 8;
#pragma unroll
    for (int j = 0; j < HS / 8; j++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = i % 2 ? r1 : r0, k = 8 * j + t + (i / 2) * 4;
            const float x = queries[k / TENSOR_MAP_BOX_COLS * WGMMA_QUERIES * TENSOR_MAP_BOX_COLS +
                                    tensor_map_box_index(r, k % TENSOR_MAP_BOX_COLS)];
            small[j][i] = small_part(x);
        }
    }
}

/* The same into shared memory, for the group's 64 rows, in the places of
 * the queries (the swizzle moves nothing between the two). The group's
 * warps meet before (their products of the row before, which read the
 * buffer, are over) and after (every part is written). */
template <int HS, int PRODUCTS>
__device__ __forceinline__ void small_queries_shared(float *small, const float *queries, int group)
{
    constexpr int PIECES = ROLES_GROUP_ROWS * TENSOR_MAP_BOX_COLS / 4; /* of a box, the group's */
    warp_group_barrier(group);
#pragma unroll
    for (int box = 0; box < roles_shape<HS, PRODUCTS>::BOXES; box++) {
        const int at = box * WGMMA_QUERIES * TENSOR_MAP_BOX_COLS / 4 + group * PIECES;
#pragma unroll
        for (int p = threadIdx.x % 128; p < PIECES; p += 128) {
            reinterpret_cast<uint4 *>(small)[at + p] =
                small_parts(reinterpret_cast<const float4 *>(queries)[at + p]);
        }
    }
    fence_shared_for_wgmma();
    warp_group_barrier(group);
}

template <int HS, int PRODUCTS>
__device__ __forceinline__ void roles_consume(const roles_buffers<HS, PRODUCTS> &m, float *preatt,
                                              int B, int T, int NH, int group)
{
    using S = roles_shape<HS, PRODUCTS>;
    const int heads = B * NH, rows = T / WGMMA_QUERIES;
    roles_schedule schedule = {(int)blockIdx.x, 0};
    int head, tile_row, row_count = 0, tile_count = 0, staged = 0;
    uint32_t small[HS / 8][4];
    float sum0[S::SUMS], sum1[S::SUMS];
    while (roles_next_row(schedule, (int)gridDim.x, heads, rows, head, tile_row)) {
        const roles_row r = roles_row_at<HS, PRODUCTS>(head, tile_row, T, NH);
        roles_walk<HS, PRODUCTS> w;
        w.m = m;
        w.query_buffer = row_count % S::QUERY_BUFFERS;
        w.queries = m.queries + w.query_buffer * S::QUERIES +
                    group * ROLES_GROUP_ROWS * TENSOR_MAP_BOX_COLS;
        w.small_queries = m.small_queries + group * ROLES_GROUP_ROWS * TENSOR_MAP_BOX_COLS;
        w.tiles = r.tiles;
        w.first_tile = tile_count;
        w.scores = preatt + (size_t)head * T * T;
        w.T = T;
        w.top = r.first + group * ROLES_GROUP_ROWS;
        w.group = group;
        w.scale = 1.0f / sqrtf((float)HS);
        wait_full(&m.query_full[w.query_buffer], row_count / S::QUERY_BUFFERS);
        if constexpr (S::SMALL_QUERIES_SHARED)
            small_queries_shared<HS, PRODUCTS>(m.small_queries,
                                               m.queries + w.query_buffer * S::QUERIES, group);
        else if constexpr (PRODUCTS == 3)
            small_queries<HS>(small, w.queries);
        wait_keys<HS, PRODUCTS>(m, tile_count);
        start_products<HS, PRODUCTS>(w, sum0, tile_count, small);
        for (int c = 0;; c += 2) {
            if (roles_step<HS, PRODUCTS>(w, c, sum0, sum1, small, staged))
                break;
            if (roles_step<HS, PRODUCTS>(w, c + 1, sum1, sum0, small, staged))
                break;
        }
        tile_count += r.tiles;
        row_count++;
    }
}

/*md
## The kernel

Thread 0 sets up the barriers (the one block barrier of the
kernel, before any copy), and each warp takes its role.
*/

template <int HS, int PRODUCTS>
__global__ void __launch_bounds__(ROLES_THREADS, 1)
    roles_scores(float *preatt, const __grid_constant__ CUtensorMap score_map,
                 const __grid_constant__ CUtensorMap key_map,
                 const __grid_constant__ CUtensorMap query_map, int B, int T, int NH)
{
    using S = roles_shape<HS, PRODUCTS>;
    extern __shared__ float4 roles_space[];
    const roles_buffers<HS, PRODUCTS> m = roles_carve<HS, PRODUCTS>(roles_space);
    /* the warp's number, known to the compiler to be the same in every lane */
    const int warp = __shfl_sync(0xffffffffu, (int)threadIdx.x / 32, 0);
    if (threadIdx.x == 0) {
        for (int s = 0; s < S::SLOTS; s++) {
            mbarrier_init(&m.key_full[s], 1);
            mbarrier_init(&m.key_empty[s], ROLES_GROUPS * 4); /* every consumer warp */
            mbarrier_init(&m.small_full[s], ROLES_GROUPS * 4);
        }
        for (int q = 0; q < S::QUERY_BUFFERS; q++) {
            mbarrier_init(&m.query_full[q], 1);
            mbarrier_init(&m.query_empty[q], ROLES_GROUPS * 4);
        }
        for (int s = 0; s < ROLES_GROUPS * S::STAGES; s++) {
            mbarrier_init(&m.stage_full[s], 4); /* the group's four warps */
            mbarrier_init(&m.stage_empty[s], 1);
        }
    }
    __syncthreads();
    if (warp < ROLES_LOADER_WARP) {
        roles_consume<HS, PRODUCTS>(m, preatt, B, T, NH, warp / 4);
    } else if (threadIdx.x % 32 == 0) {
        if (warp == ROLES_LOADER_WARP)
            roles_load<HS, PRODUCTS>(m, &key_map, &query_map, B, T, NH);
        else
            roles_store<HS, PRODUCTS>(m, &score_map, B, T, NH);
    }
}

// book:hide
template <int HS, int PRODUCTS>
static void roles_launch_hs(const triangle_args *args)
{
    const triangle_size s = args->size;
    const int C = s.NH * s.HS;
    CUtensorMap score_map, key_map, query_map;
    char why[200];
    if (tensor_map_rows(&score_map, args->preatt, (long)s.B * s.NH * s.T, s.T, s.T,
                        ROLES_GROUP_ROWS, why, sizeof why) ||
        tensor_map_rows(&key_map, args->inp, (long)s.B * s.T, 3 * C, 3 * C,
                        roles_shape<HS, PRODUCTS>::KEYS, why, sizeof why) ||
        tensor_map_rows(&query_map, args->inp, (long)s.B * s.T, 3 * C, 3 * C, WGMMA_QUERIES, why,
                        sizeof why)) {
        fprintf(stderr, "roles: %s\n", why);
        exit(EXIT_FAILURE);
    }
    const size_t bytes = roles_shape<HS, PRODUCTS>::BYTES;
    gpu_allow_shared_memory((const void *)roles_scores<HS, PRODUCTS>, bytes);
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int units = roles_units(s.B * s.NH, s.T / WGMMA_QUERIES);
    const unsigned blocks = (unsigned)(units < sms ? units : sms); /* one a multiprocessor */
    roles_scores<HS, PRODUCTS><<<blocks, ROLES_THREADS, bytes, args->stream>>>(
        args->preatt, score_map, key_map, query_map, s.B, s.T, s.NH);
    LAUNCH_CHECK();
}

template <int PRODUCTS>
static void roles_launch(const triangle_args *args)
{
    switch (args->size.HS) { /* roles_refuses lets only these through */
    case 8: roles_launch_hs<8, PRODUCTS>(args); break;
    case 16: roles_launch_hs<16, PRODUCTS>(args); break;
    case 24: roles_launch_hs<24, PRODUCTS>(args); break;
    case 32: roles_launch_hs<32, PRODUCTS>(args); break;
    case 40: roles_launch_hs<40, PRODUCTS>(args); break;
    case 48: roles_launch_hs<48, PRODUCTS>(args); break;
    case 56: roles_launch_hs<56, PRODUCTS>(args); break;
    case 64: roles_launch_hs<64, PRODUCTS>(args); break;
    case 72: roles_launch_hs<72, PRODUCTS>(args); break;
    case 80: roles_launch_hs<80, PRODUCTS>(args); break;
    case 88: roles_launch_hs<88, PRODUCTS>(args); break;
    case 96: roles_launch_hs<96, PRODUCTS>(args); break;
    case 104: roles_launch_hs<104, PRODUCTS>(args); break;
    case 112: roles_launch_hs<112, PRODUCTS>(args); break;
    case 120: roles_launch_hs<120, PRODUCTS>(args); break;
    default: roles_launch_hs<128, PRODUCTS>(args); break;
    }
}

/* The sizes of the walk (as wgmma.cuh's: T a multiple of 128, HS a
 * multiple of 8 up to 128), and the units of the schedule countable in an int. */
static int roles_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % WGMMA_QUERIES != 0) {
        snprintf(why, capacity, "T must be a multiple of %d (a row of tiles' query rows)",
                 WGMMA_QUERIES);
        return 1;
    }
    if (size.HS % 8 != 0 || size.HS > 128) {
        snprintf(why, capacity,
                 "HS = C/NH = %d must be a multiple of 8 (one wgmma step) and at most 128 (a row's "
                 "queries and the ring of keys share the block's shared memory)",
                 size.HS);
        return 1;
    }
    if ((long)size.B * size.NH * (size.T / WGMMA_QUERIES + 1) > INT_MAX) {
        snprintf(why, capacity, "B*NH*(T/%d + 1) must be at most %d (the schedule's pairs of rows)",
                 WGMMA_QUERIES, INT_MAX);
        return 1;
    }
    return 0;
}

static int roles_unfit(triangle_size size, const gpu_info *gpu, char *why, size_t capacity)
{
    (void)size;
    if (wgmma_refuses((const void *)roles_scores<64, 3>, why, capacity))
        return 1;
    if (gpu->shared_per_block_optin < (size_t)ROLES_SHARED_LIMIT) {
        snprintf(why, capacity, "needs up to %d bytes of shared memory a block; the card gives %zu",
                 ROLES_SHARED_LIMIT, gpu->shared_per_block_optin);
        return 1;
    }
    return 0;
}

// book:show

/*md
## What roles buy the triangle

The question was how close to the memory floor the triangle gets when no
warp waits for another's job. On the {{gpu|tf32+roles|B=8 T=1024 C=768 NH=12}}, at the
default size, `tf32+roles` takes {{median_ms|tf32+roles|B=8 T=1024 C=768 NH=12}} ms and
`tf32x3+roles` {{median_ms|tf32x3+roles|B=8 T=1024 C=768 NH=12}} ms against a memory floor
of {{floor_memory_ms|tf32+roles|B=8 T=1024 C=768 NH=12}} ms: the FP32-accurate kernel is
{{speedup|tf32x3+roles|tf32x3+tma-store|B=8 T=1024 C=768 NH=12}} times as fast as chapter 11's
`tf32x3+tma-store`, the one-product kernel
{{speedup|tf32+roles|tf32+rows|B=8 T=1024 C=768 NH=12}} times as fast as chapter 8's `tf32+rows`,
and both are {{speedup|tf32x3+roles|cublas-tf32|B=8 T=1024 C=768 NH=12}} times or more as fast
as `cublas-tf32`, in the same run. Three products now cost little more
than one: the products hide behind the memory traffic. But the floor is
still far, as [the race below](#fig-race-chapter12) shows.

What binds is not who waits for whom. Experiments on both Hopper cards,
builds of this kernel with one part switched off, say where the time goes.
On the H200, with the first schedule, a build that leaves out every
`wgmma` took as long as the real kernel: the products hide entirely. A
build that sends no staged tile took a little over a third of the time:
the walk itself, loads, barriers and staging included, is well under the
floor, and the stores are the rest. And the first schedule read twice
the bytes of its queries and keys from memory (on either card):
it dealt a head's pairs of rows a wave of blocks apart, and between the
two the scores streaming through the L2 cache pushed the head's keys out.
On the H100, the schedule above, a head's pairs neighbours in the list,
brought the reads down to within a tenth of the compulsory bytes and the
time down by about a tenth; storing the scores with the L2 policy that
evicts them first (`createpolicy` and the `.L2::cache_hint` form of the
box store), worth several percent under the first schedule on the H200,
adds about one percent once the schedule keeps the keys together.

{{figure|race-chapter12}}

What is left is the rate at which the scores reach memory. Nsight Compute
reads the kernel's traffic at {{ncu|dram_tbs|tf32+roles|B=8 T=1024 C=768 NH=12}} TB/s on the
{{ncu|gpu|tf32+roles|B=8 T=1024 C=768 NH=12}}, {{ncu|dram_pct|tf32+roles|B=8 T=1024 C=768 NH=12}}% of its peak,
with the schedulers issuing in only {{ncu|issue_pct|tf32+roles|B=8 T=1024 C=768 NH=12}}% of
their cycles. A plain fill of the scores' bytes with PyTorch on the same
card does not reach the data sheet's bandwidth either (it falls short by
more than a tenth on both cards): the floor that can be reached lies
above the one drawn. The kernel's
traffic runs at about three quarters of that fill's rate, on the H100 and
on the H200 (there with the first schedule). Our reading, not
proven, is that the rest is in how the scores leave: rows of 256 bytes
a row of scores apart, from as many places at once as there are blocks,
where a fill writes long runs of neighbouring bytes. On the H100, rows
3.5 and 4.5 KB apart (T = 896 and 1152) went no faster than rows 4 KB
apart, so the rows do not crowd one part of the memory. The next step is a tile of
scores that leaves as longer runs: more keys a stage, which needs the
shared memory the ring of keys holds now.
*/
