// chapters/05-shared/shared.cu - Chapter 5: shared memory, bank conflicts, asynchronous copies.
//
// Build, check and time it from the repository root:
//
//   make chapter5                     # B=8 T=1024 C=768 NH=12: checked, then timed
//   build/chapter5 --kernel shared T=4096
//   build/chapter5-tried              # the variants tried and not kept (tried/)

/*md
# Shared memory: load once, use sixteen times

Chapter 4 left every thread fetching its own operands. Yet the 16 threads
that share a row of a block all need the same 8 query rows, and the 16
threads that share a column the same 8 key rows. A block of 256 threads
fetches one megabyte from the memory system to build a $128 \times 128$ tile
of scores whose operands, a $128 \times 64$ slice of $Q$ and one of $K$,
weigh 64 KB.

Every multiprocessor of the GPU has a small memory on the chip that the
threads of a block share: *shared memory*, up to 227 KB per block on an
H200, about as fast as the L1 cache and, unlike it, managed by the program.
The plan of this chapter:

1. the 256 threads of a block copy the block's query tile and key tile from
   global memory into shared memory, once, cooperating so that the reads
   are coalesced;
2. they wait for each other (`__syncthreads()`);
3. each thread runs chapter 4's outer product over $k$, reading its operands
   from shared memory instead of global memory.

Global traffic per block drops from 1 MB to 64 KB. At the default size,
with 36 tiles of $128 \times 128$ per head and 96 heads, that is 3,456 blocks
reading 226 MB from the L2 cache (the 50 MB of distinct queries and keys come
from device memory once), where chapter 4 read 3.4 GB.

## The layout in shared memory

At step $k$ a thread needs $Q_{i,k}$ for its 8 query rows $i$ and
$K_{j,k}$ for its 8 key columns $j$. In global memory those are 8 floats in 8
different rows. In shared memory we can store the tiles *transposed*,
`query_tile[k][i]` and `key_tile[k][j]`, so that the values a thread needs
at one step lie side by side: 4 consecutive rows are one 16-byte `float4`
read. Each step is then 4 shared-memory reads (two `float4` of queries, two
of keys) feeding 64 fused multiply-adds.

The copy does the transposition: a thread reads a `float4` of one row along
$k$ from global memory, $Q_{i,k..k+3}$, and writes its four values into four
rows of the shared tile, `query_tile[k][i]` to `query_tile[k+3][i]`.

## Is shared memory fast enough?

A multiprocessor of the H200 does 128 FP32 fused multiply-adds per clock.
Its shared memory delivers 128 bytes per clock, in one *wavefront* of 32
four-byte words. Per step of $k$, one warp issues 64 multiply-add
instructions (2,048 multiply-adds: 16 clocks of the multiprocessor's
arithmetic) and 4 `float4` reads. Within a warp many threads read the same
address, and the hardware broadcasts it: with the thread layout below the
warp's 4 reads need 6 wavefronts. Six clocks of shared memory for sixteen of
arithmetic: the shared memory is not the limit, if nothing wastes its
wavefronts. Something will.
*/

#include <math.h>

#include "async_copy.h"
#include "triangle.h"

/*md
## The sizes

A block still computes a $128 \times 128$ tile with 256 threads, each an
$8 \times 8$ patch held in 64 registers. Queries and keys are copied in
*chunks* of 16 values of $k$: a chunk of both tiles is $2 \times 16 \times
128$ floats, 16 KB. For $HS = 64$ a tile pair is 4 chunks, 64 KB, and two
blocks fit on each multiprocessor.

The chapter takes five steps, and keeps every step as a kernel of its own
so that the race can measure what each bought. The first three share one
function whose template parameter `step` switches each feature on with a
test `step >= SHARED_...` that the compiler resolves, so each kernel carries
only its own code. They hold both tiles whole in shared memory, so they
accept any $HS$ that is a multiple of 16 up to 128 (132 KB, one block per
multiprocessor). Steps 4 and 5 hold a query tile and two key tiles and
accept the same sizes (198 KB at $HS = 128$). Three more steps were tried
on the way and did not pay; the persistent one accepts any multiple of 16,
the other two the same sizes as steps 1-3.
*/

#define SHARED_TILE 128        /* scores per block side */
#define SHARED_THREADS 256     /* 8 warps; each thread owns 8 x 8 scores */
#define SHARED_THREAD_TILE 8
#define SHARED_CHUNK 16        /* values of k per group of asynchronous copies */
#define SHARED_MAX_HS 128      /* steps 1-3: both tiles, whole, in shared memory */
#define SHARED_PAD 4           /* floats added to each row of a tile (step 2 on) */

enum {
    SHARED_STAGED = 1,   /* tiles in shared memory, copied through registers */
    SHARED_PADDED = 2,   /* padded rows and a copy pattern without bank conflicts */
    SHARED_ASYNC = 3,    /* cp.async: the copies run while the first chunks are used */
    SHARED_QUADS = 4     /* tried: 16-byte cp.async into tiles of k-quads, [k/4][row][4] */
};

/* Floats from one row k of a shared tile to the next. */
__host__ __device__ constexpr int shared_row_floats(int step)
{
    return step >= SHARED_PADDED ? SHARED_TILE + SHARED_PAD : SHARED_TILE;
}

__device__ __forceinline__ float4 shared_load_float4(const float *address)
{
    return *reinterpret_cast<const float4 *>(address);
}

/*md
## Step 1: staging the tiles

The obvious way to share the copy among 256 threads: number the `float4`s of
the tile in row order, $e = 16 \cdot \text{row} + \text{quad}$ for $HS = 64$,
and let thread $t$ copy numbers $t$, $t + 256$, $t + 512$, ... A warp then
reads two whole rows of 256 contiguous bytes each: perfectly coalesced.

Then it writes them into the transposed tile, and there it stalls. Shared
memory is built of 32 *banks*; the word at float offset $a$ lives in bank
$a \bmod 32$, and each bank serves one word per clock. When the 32 threads
of a warp write 32 words in 32 different banks, the write takes one
wavefront; when $n$ of them hit different words of the same bank, it takes
$n$. The element $(k, \text{row})$ of the transposed tile sits at offset
$128k + \text{row}$, in bank $\text{row} \bmod 32$. The warp's 32 threads
cover only two rows: every one of its four writes puts 16 words in each of
2 banks. A *16-way bank conflict*: 16 wavefronts where one would do.
*/

template <int step>
__device__ __forceinline__ void shared_stage_tile(float *tile, const float *rows,
                                                  size_t row_stride, int HS)
{
    constexpr int stride = shared_row_floats(step);
    const int quads_per_row = HS / 4;
    const int quads = SHARED_TILE * quads_per_row;
    for (int e = threadIdx.x; e < quads; e += SHARED_THREADS) {
        int row, quad;
        if (step == SHARED_STAGED) {
            row = e / quads_per_row; /* a warp reads two rows of 16 float4s */
            quad = e % quads_per_row;
        } else {
            const int lane = e % 32, slot = e / 32; /* a warp reads 16 rows, 2 float4s each */
            row = 16 * (slot % 8) + lane % 16;
            quad = 2 * (slot / 8) + lane / 16;
        }
        const float4 v = shared_load_float4(rows + row * row_stride + 4 * quad);
        float *column = tile + 4 * quad * stride + row;
        column[0] = v.x;
        column[stride] = v.y;
        column[2 * stride] = v.z;
        column[3 * stride] = v.w;
    }
}

/*md
## Step 2: padding

The cure is to make consecutive rows of the tile start in different banks.
Add 4 floats to each row: element $(k, \text{row})$ moves to offset
$132k + \text{row}$, bank $(4k + \text{row}) \bmod 32$. Why 4 and not 1? A
pad of 1 would spread the banks just as well, but rows of 129 floats would
break the 16-byte alignment that the `float4` reads of the multiply loop
need. Padding costs $2 \times 64 \times 4 \times 4 = 2$ KB per block.

Padding alone is not enough for step 1's copy pattern: with two rows per
warp, $4k$ runs over only two distinct values modulo 32 among a warp's
quads, and 8 threads still share a bank. So step 2 also changes which
`float4`s a warp copies together: 16 rows, 2 `float4`s (32 bytes, one whole
sector) of each. The reads stay fully used sectors, 16 of them, and the
writes land in $16 \cdot (\text{quad} \bmod 2) + \text{row} \bmod 16 +
\text{const}$, 32 different banks: no conflict.

(The other classic cure is a *swizzle*: keep rows of 128 floats and store
`float4` number $g$ of row $k$ at position $g \oplus f(k)$, an exclusive-or
that moves whole `float4`s, so alignment survives and no memory is spent.
Padding is enough here.)

## Step 3: copying asynchronously

Steps 1 and 2 copy through registers: a thread loads a `float4` from
global memory, waits for it, and stores it into shared memory. No thread can
start multiplying before the last copy of the last thread has landed; for
that time the block's 256 threads have nothing to do but wait, and only the
other block on the same multiprocessor, if it is at another phase, keeps the
arithmetic units busy.

Since the Ampere generation a thread can instead ask for a copy from global
to shared memory that completes on its own: `cp.async`. The thread issues
it and moves on; the data goes to shared memory without passing through its
registers. Copies are grouped (`cp.async.commit_group`), and a thread can wait
until at most $n$ of its groups are still in flight
(`cp.async.wait_group n`).

Step 3 issues the whole tile at the start, as $HS / 16$ groups of one chunk
each, then works through them in order: wait for group $c$,
`__syncthreads()` so that every thread's part of it has landed, multiply
over those 16 values of $k$, go on to group $c + 1$, which has been arriving
meanwhile. The first multiplications start once a quarter of the tile is
there. The race calls this kernel `shared`; steps 4 and 5 build on it.

One restriction shapes the copy: `cp.async` moves 4, 8 or 16 contiguous
bytes to contiguous bytes. A transposing copy must therefore move single
floats. A warp copies 8 consecutive values of $k$ from each of 4 rows:
4 whole sectors read, and the 32 words written at offsets
$132 (k_0 + \ell \bmod 8) + r_0 + \lfloor \ell / 8 \rfloor$ for lane $\ell$,
banks $4 (\ell \bmod 8) + \lfloor \ell / 8 \rfloor + \text{const}$: 32
different banks. A thread's 16 copies of a chunk come from 4 rows, 32 rows
apart, and two places in each, 8 floats apart; written as one pointer per
tile that steps down by 32 rows, each copy costs one instruction and no
address arithmetic.
*/

/* Where a thread's copies of a chunk come from and go to: its first row is
 * 4 warp + lane/8, its first value of k is lane % 8. */
__device__ __forceinline__ size_t shared_copy_source(size_t row_stride)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    return (size_t)(4 * warp + lane / 8) * row_stride + lane % 8;
}

template <int stride>
__device__ __forceinline__ int shared_copy_destination(void)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    return (lane % 8) * stride + 4 * warp + lane / 8;
}

/* Issues this thread's 16 copies of one chunk (2,048 floats of each tile per
 * block): rows r0 + 32q (q = 0..3), values k0 and k0 + 8. The four pointers
 * already include the thread's r0, k0 and the chunk. */
template <int stride>
__device__ __forceinline__ void shared_copy_chunk(float *query_slot, float *key_slot,
                                                  const float *queries, const float *keys,
                                                  size_t row_stride)
{
#pragma unroll
    for (int q = 0; q < 4; q++) {
        copy_async_4(query_slot + 32 * q, queries);
        copy_async_4(query_slot + 8 * stride + 32 * q, queries + 8);
        copy_async_4(key_slot + 32 * q, keys);
        copy_async_4(key_slot + 8 * stride + 32 * q, keys + 8);
        queries += 32 * row_stride;
        keys += 32 * row_stride;
    }
}

/*md
## The multiply and the stores

Every step shares the inner loop: 16 values of $k$ of a chunk, for each the
thread's 8 query values and 8 key values read as 4 `float4`s, then 64 fused
multiply-adds. Its rows are `row_a` to `row_a + 3` and `row_a + row_gap` to
`row_a + row_gap + 3`, its columns likewise with `col_a` and `col_gap`;
the gaps are compile-time constants, so every read is one instruction with
a constant offset.
*/

/* One value of k: 4 float4 reads, 64 FMAs. */
template <int stride, int row_gap, int col_gap>
__device__ __forceinline__ void shared_multiply_k(float (&sum)[SHARED_THREAD_TILE][SHARED_THREAD_TILE],
                                                  const float *query_k, const float *key_k,
                                                  int row_a, int col_a, int k)
{
    const float4 qa = shared_load_float4(query_k + k * stride + row_a);
    const float4 qb = shared_load_float4(query_k + k * stride + row_a + row_gap);
    const float4 ka = shared_load_float4(key_k + k * stride + col_a);
    const float4 kb = shared_load_float4(key_k + k * stride + col_a + col_gap);
    const float query[8] = {qa.x, qa.y, qa.z, qa.w, qb.x, qb.y, qb.z, qb.w};
    const float key[8] = {ka.x, ka.y, ka.z, ka.w, kb.x, kb.y, kb.z, kb.w};
#pragma unroll
    for (int r = 0; r < SHARED_THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < SHARED_THREAD_TILE; c++)
            sum[r][c] = fmaf(query[r], key[c], sum[r][c]);
}

template <int stride, int row_gap, int col_gap>
__device__ __forceinline__ void shared_multiply_chunk(float (&sum)[SHARED_THREAD_TILE][SHARED_THREAD_TILE],
                                                      const float *query_k, const float *key_k,
                                                      int row_a, int col_a)
{
#pragma unroll
    for (int k = 0; k < SHARED_CHUNK; k++)
        shared_multiply_k<stride, row_gap, col_gap>(sum, query_k, key_k, row_a, col_a, k);
}

/* One float4 per run of 4 columns and per row, written when its first
 * column is kept (on a diagonal tile its other columns may be masked ones,
 * which is allowed). A warp writes whole 128-byte lines. */
template <int row_gap, int col_gap, bool streaming>
__device__ __forceinline__ void shared_store_tile(float *scores, const float (&sum)[SHARED_THREAD_TILE][SHARED_THREAD_TILE],
                                                  int T, int tile_row, int tile_col, int row_a,
                                                  int col_a, float scale)
{
    const bool diagonal = tile_row == tile_col;
#pragma unroll
    for (int r = 0; r < SHARED_THREAD_TILE; r++) {
        const int row = row_a + (r < 4 ? r : row_gap + r - 4);
        const size_t i = (size_t)tile_row * SHARED_TILE + row;
#pragma unroll
        for (int run = 0; run < 2; run++) {
            const int col = col_a + run * col_gap;
            if (diagonal && col > row)
                continue; /* all four columns masked */
            const float *s = &sum[r][4 * run];
            const float4 v = make_float4(s[0] * scale, s[1] * scale, s[2] * scale, s[3] * scale);
            float4 *destination =
                reinterpret_cast<float4 *>(scores + i * T + (size_t)tile_col * SHARED_TILE + col);
            if (streaming)
                __stcs(destination, v); /* st.global.cs: evict first */
            else
                __stwb(destination, v); /* st.global.wb: the default policy, one 16-byte store */
        }
    }
}


/* The tile that number `work` of the list is: head-major, then the lower
 * triangle of tiles row by row (triangle_place_tile, in triangle.h). */
__device__ __forceinline__ void shared_place_tile(int work, int triangle, int *head, int *tile_row,
                                                  int *tile_col)
{
    *head = work / triangle;
    triangle_place_tile(work - *head * triangle, tile_row, tile_col);
}

/* Steps 1-3: one block per tile, both tiles whole in shared memory. With
 * `triangle`, the grid lists only the lower triangle of tiles and the
 * stores stream. */
template <int step, bool triangle>
__device__ __forceinline__ void shared_whole_body(float *preatt, const float *inp, int T, int NH,
                                                  int HS)
{
    constexpr int stride = shared_row_floats(step);
    extern __shared__ float4 shared_space[];
    float *query_tile = reinterpret_cast<float *>(shared_space); /* [HS][stride] */
    float *key_tile = query_tile + HS * stride;                  /* [HS][stride] */

    int tile_row = blockIdx.y, tile_col = blockIdx.x, head = blockIdx.z;
    if (triangle) {
        const int tiles = T / SHARED_TILE;
        shared_place_tile(blockIdx.x, tiles * (tiles + 1) / 2, &head, &tile_row, &tile_col);
        head = blockIdx.y;
    } else if (tile_col > tile_row) {
        return; /* the whole tile lies above the diagonal */
    }
    const int C = NH * HS, b = head / NH, h = head % NH;
    const size_t row_stride = 3 * (size_t)C;
    const float *queries = inp + (size_t)b * T * row_stride + h * HS +
                           (size_t)tile_row * SHARED_TILE * row_stride;
    const float *keys = inp + (size_t)b * T * row_stride + C + h * HS +
                        (size_t)tile_col * SHARED_TILE * row_stride;
    const int chunks = HS / SHARED_CHUNK;

    if (step >= SHARED_ASYNC) {
        const size_t source = shared_copy_source(row_stride);
        const int destination = shared_copy_destination<stride>();
        for (int chunk = 0; chunk < chunks; chunk++) {
            const int first = chunk * SHARED_CHUNK;
            shared_copy_chunk<stride>(query_tile + first * stride + destination,
                                      key_tile + first * stride + destination,
                                      queries + source + first, keys + source + first, row_stride);
            copy_async_commit();
        }
    } else {
        shared_stage_tile<step>(query_tile, queries, row_stride, HS);
        shared_stage_tile<step>(key_tile, keys, row_stride, HS);
        __syncthreads();
    }

    /* 16 x 16 threads: rows 8 ty .. 8 ty + 7, columns 4 tx + {0..3} and 64 + 4 tx + {0..3} */
    const int row_a = 8 * (threadIdx.x / 16), col_a = 4 * (threadIdx.x % 16);
    float sum[SHARED_THREAD_TILE][SHARED_THREAD_TILE] = {};
    for (int chunk = 0; chunk < chunks; chunk++) {
        if (step >= SHARED_ASYNC) {
            copy_async_wait_at_most(chunks - 1 - chunk);
            __syncthreads(); /* every thread's copies of this chunk have landed */
        }
        shared_multiply_chunk<stride, 4, 64>(sum, query_tile + chunk * SHARED_CHUNK * stride,
                                             key_tile + chunk * SHARED_CHUNK * stride, row_a,
                                             col_a);
    }
    shared_store_tile<4, 64, triangle>(preatt + (size_t)head * T * T, sum, T, tile_row, tile_col,
                                       row_a, col_a, 1.0f / sqrtf((float)HS));
}

/*md
## Tried: a pipeline that never stops

Step 3 still leaves time on the table. Every block starts by waiting for its
first chunk to come from memory and ends by waiting for its stores to
leave, and a block lives for a short time: it multiplies only 64 values of
$k$ before it is done. The profiler (`make profile CH=5`) shows the
multiprocessors issuing an instruction on only about two cycles in three.
The prediction: overlap those waits with work, and most of that third comes
back.

The persistent kernel turns the grid around. It launches only as many
blocks as fit on the GPU at once (two per multiprocessor, 264 on an H200),
and each block walks through a list of tiles: block $b$ takes tiles $b$,
$b + 264$, $b + 528$, ... of all the heads' lower triangles (a *persistent*
kernel).
The copies of the next tile run while the current one is multiplied.

The copies go into a *ring* of 6 chunk slots in shared memory. At each
chunk the block waits until the chunk it needs has landed, passes a
`__syncthreads()`, issues the copies for the chunk 5 places ahead into the
slot that was used just before (every thread has finished reading it: they
all passed the barrier after they multiplied it), and multiplies. Copies
thus run up to 5 chunks ahead, across tile boundaries; the wait is always
"all but the 4 most recent groups", one constant. The ring is the general
form of the double buffering that GEMM kernels use, and it no longer
depends on $HS$: this kernel accepts any multiple of 16. Its 6 slots of
$2 \times 16 \times 132$ floats take 99 KB, so two blocks still fit on a
multiprocessor.

Only tiles of the lower triangle are listed: tile $t$ of a head has row
$y$, the largest with $y(y+1)/2 \le t$, and column $x = t - y(y+1)/2$; the
28 blocks per head that exit at once in the square grid ($T = 1024$) are
never launched. And the stores stream: the output, 201 MB of kept scores
at the default size, is three times the L2 cache and nothing reads it
during the kernel, so `__stcs` ("cache streaming") marks each written line
as the first to evict, to keep the queries and keys in the L2.

Measured, the prediction was wrong: the persistent kernel is *slower* than
step 3 (the table at the end of the chapter has both). The profiler shows
it issuing on fewer cycles than step 3, with more warps waiting at the
barrier of each chunk and on their copies. Our reading: with two
independent blocks per multiprocessor, the hardware was already hiding one
block's start and end behind the other block's multiplications, so there
was less idle time to recover than we counted; the ring, in exchange, ties
every chunk of every tile to a barrier and adds bookkeeping. A version with
compact $32 \times 64$ warp tiles, which lets the two warps of a diagonal
tile that hold no kept score skip their work, was slower still and is not
kept. The persistent kernel stays in the race as `shared+persistent`:
a measured step backwards is part of the method.
*/

#define SHARED_SLOTS 6 /* chunk slots in the ring */

/* The copy side of the pipeline: the next chunk to copy, and where. */
typedef struct {
    int tile;              /* position in this block's list of tiles */
    int chunk;             /* chunk of that tile */
    int slot;              /* ring slot it goes to */
    const float *queries;  /* this thread's first source float of the tile's chunk 0 */
    const float *keys;
} shared_copy_cursor;

__device__ __forceinline__ void shared_cursor_aim(shared_copy_cursor *cursor, const float *inp,
                                                  int triangle, int T, int NH, int HS,
                                                  size_t row_stride, size_t source)
{
    int head, tile_row, tile_col;
    shared_place_tile(blockIdx.x + cursor->tile * gridDim.x, triangle, &head, &tile_row, &tile_col);
    const int C = NH * HS, b = head / NH, h = head % NH;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS + source;
    cursor->queries = sequence + (size_t)tile_row * SHARED_TILE * row_stride;
    cursor->keys = sequence + C + (size_t)tile_col * SHARED_TILE * row_stride;
}

__device__ __forceinline__ void shared_persistent_body(float *preatt, const float *inp, int B, int T,
                                                       int NH, int HS)
{
    constexpr int stride = SHARED_TILE + SHARED_PAD;
    constexpr int slot_floats = 2 * SHARED_CHUNK * stride; /* a chunk of queries, then of keys */
    extern __shared__ float4 shared_space[];
    float *ring = reinterpret_cast<float *>(shared_space);

    const int tiles = T / SHARED_TILE, triangle = tiles * (tiles + 1) / 2;
    const int work_total = triangle * B * NH;
    if ((int)blockIdx.x >= work_total)
        return;
    const int my_tiles = (work_total - 1 - (int)blockIdx.x) / (int)gridDim.x + 1;
    const int chunks = HS / SHARED_CHUNK;
    const size_t row_stride = 3 * (size_t)NH * HS;
    const size_t source = shared_copy_source(row_stride);
    const int destination = shared_copy_destination<stride>();

    /* Fill all slots but one. A group is committed even when the list has
     * run out, so that "all but the SHARED_SLOTS - 2 most recent groups"
     * is always the chunk about to be used. */
    shared_copy_cursor cursor = {0, 0, 0, NULL, NULL};
    shared_cursor_aim(&cursor, inp, triangle, T, NH, HS, row_stride, source);
    for (int ahead = 0; ahead < SHARED_SLOTS - 1; ahead++) {
        if (cursor.tile < my_tiles) {
            float *slot = ring + cursor.slot * slot_floats + destination;
            const int first = cursor.chunk * SHARED_CHUNK;
            shared_copy_chunk<stride>(slot, slot + SHARED_CHUNK * stride, cursor.queries + first,
                                      cursor.keys + first, row_stride);
            cursor.slot = cursor.slot + 1 == SHARED_SLOTS ? 0 : cursor.slot + 1;
            if (++cursor.chunk == chunks) {
                cursor.chunk = 0;
                if (++cursor.tile < my_tiles)
                    shared_cursor_aim(&cursor, inp, triangle, T, NH, HS, row_stride, source);
            }
        }
        copy_async_commit();
    }

    /* 16 x 16 threads, as in steps 1-3 */
    const int row_a = 8 * (threadIdx.x / 16), col_a = 4 * (threadIdx.x % 16);
    const float scale = 1.0f / sqrtf((float)HS);

    int use_slot = 0;
    float sum[SHARED_THREAD_TILE][SHARED_THREAD_TILE];
    for (int n = 0; n < my_tiles; n++) {
        int head, tile_row, tile_col;
        shared_place_tile(blockIdx.x + n * gridDim.x, triangle, &head, &tile_row, &tile_col);
#pragma unroll
        for (int r = 0; r < SHARED_THREAD_TILE; r++)
#pragma unroll
            for (int c = 0; c < SHARED_THREAD_TILE; c++)
                sum[r][c] = 0.0f;

        for (int chunk = 0; chunk < chunks; chunk++) {
            copy_async_wait<SHARED_SLOTS - 2>();
            __syncthreads(); /* this chunk has landed; the previous slot is free */
            if (cursor.tile < my_tiles) {
                float *slot = ring + cursor.slot * slot_floats + destination;
                const int first = cursor.chunk * SHARED_CHUNK;
                shared_copy_chunk<stride>(slot, slot + SHARED_CHUNK * stride,
                                          cursor.queries + first, cursor.keys + first, row_stride);
                cursor.slot = cursor.slot + 1 == SHARED_SLOTS ? 0 : cursor.slot + 1;
                if (++cursor.chunk == chunks) {
                    cursor.chunk = 0;
                    if (++cursor.tile < my_tiles)
                        shared_cursor_aim(&cursor, inp, triangle, T, NH, HS, row_stride, source);
                }
            }
            copy_async_commit();
            const float *query_k = ring + use_slot * slot_floats;
            shared_multiply_chunk<stride, 4, 64>(sum, query_k, query_k + SHARED_CHUNK * stride,
                                                 row_a, col_a);
            use_slot = use_slot + 1 == SHARED_SLOTS ? 0 : use_slot + 1;
        }
        shared_store_tile<4, 64, true>(preatt + (size_t)head * T * T, sum, T, tile_row, tile_col,
                                       row_a, col_a, scale);
    }
}


/*md
## Two more steps, tried: the triangle alone, and sixteen-byte copies

The persistent kernel changed several things at once. One of them can be
tried on step 3 alone: launch only the lower triangle of tiles (36 blocks
per head instead of 64 at the default size, placed by the same square root)
and stream the stores with `__stcs`. That is `shared+triangle`, step 3 with
one more template flag. It takes {{median_ms|shared+triangle|B=8 T=1024 C=768 NH=12}}
ms against step 3's {{median_ms|shared|B=8 T=1024 C=768 NH=12}}: slower
again. The two changes were measured together, so we cannot say which of
them costs. One reading, not checked: in the square grid the blocks above
the diagonal exit at once, which puts the two blocks of a multiprocessor
out of step, one multiplying while the other waits for its copies; a grid
of full blocks keeps them in step, waiting together.

The second idea attacks the copies. Step 3's `cp.async` moves single
floats because it transposes: 64 copy instructions per thread and tile,
each warp instruction touching 4 rows of global memory. A 16-byte copy
moves 4 consecutive values of $k$ of one row, and they arrive side by side.
So keep them that way: a tile of *k-quads*, `tile[HS/4][128][4]`, in which
quad $q$ of row $n$ is one `float4`. Per quad, a thread reads the 8
`float4`s of its query rows (4 values of $k$ for each, 32 registers), then,
one key column at a time, a `float4` and 32 multiply-adds: 16 reads per 256
multiply-adds, as in step 3. Each thread issues 4 copies per chunk, 16 per
tile instead of 64.

Two choices keep the banks free. Row $n$ of a quad goes to slot
$32 (n \bmod 4) + \lfloor n / 4 \rfloor$, so that a thread's four adjacent
columns $4 t_x + c$ lie 32 slots apart and the threads that read column $c$
read the consecutive slots $32 c + t_x$. And a warp is laid out as 4 rows
of 8 threads instead of 2 rows of 16: its query reads hit 4 `float4`s and
its key reads 8, one wavefront each, 4 per value of $k$ where step 3 needs
6. The copies land without conflicts too: the 8 threads of each quarter of
a warp write 8 consecutive slots.

The profiler confirms the banks: almost no conflicts are left. Yet
`shared+quads` takes {{median_ms|shared+quads|B=8 T=1024 C=768 NH=12}} ms,
far slower than step 3, and a version with the triangle grid on top was
slower still. The machine code of the loop (we read it in the version with
the triangle grid; the loop is the same) shows the price of the layout. A
quad of queries fills 32 registers, all needed by the first multiply-add of
the quad; with the 64 sums and a key column beside them, the 128 registers
that two blocks per multiprocessor allow are gone. So the next quad's
queries are loaded only a few dozen instructions before they are used, into
registers that the current quad has just released, and the compiler adds
register-to-register moves to make room. Step 3's transposed tiles need 16
registers of operands per value of $k$, few enough to fetch the next ones
well ahead. Saving copy instructions did not pay for losing that; the
profile that would tell how the warps spend their stalled cycles is still
to be taken.
*/

/* The k-quad layout: quad q = k/4 of tile row n is the float4 at
 * tile + 4 (128 q + shared_quad_slot(n)). */
__host__ __device__ constexpr int shared_quad_slot(int n)
{
    return 32 * (n % 4) + n / 4;
}

/* A thread's two copies of each chunk and tile: rows n and n + 1, with
 * n = 32 (warp / 2) + 2 (warp % 2) + 4 (lane % 8), quad lane / 8 of the chunk. */
__device__ __forceinline__ size_t shared_quads_source(size_t row_stride)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int n = 32 * (warp / 2) + 2 * (warp % 2) + 4 * (lane % 8);
    return (size_t)n * row_stride + 4 * (lane / 8);
}

__device__ __forceinline__ int shared_quads_destination(void)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int n = 32 * (warp / 2) + 2 * (warp % 2) + 4 * (lane % 8);
    return 4 * (SHARED_TILE * (lane / 8) + shared_quad_slot(n));
}

/* Issues this thread's 4 copies of one chunk: 4 quads x 128 rows of each
 * tile per block. Row n + 1 lands one slot group (32 slots) after row n. */
__device__ __forceinline__ void shared_copy_quads(float *query_quad, float *key_quad,
                                                  const float *queries, const float *keys,
                                                  size_t row_stride)
{
    copy_async_16(query_quad, queries);
    copy_async_16(query_quad + 4 * 32, queries + row_stride);
    copy_async_16(key_quad, keys);
    copy_async_16(key_quad + 4 * 32, keys + row_stride);
}

/* 16 values of k as 4 quads. Per quad: the thread's 8 query rows as 8
 * float4s (32 registers), then one key column at a time, a float4 and 32
 * fused multiply-adds. Rows 8 ty + r sit in slots 2 ty + 32 (r % 4) + r / 4,
 * columns 4 tx + c and 64 + 4 tx + c in slots tx + 32 c and tx + 16 + 32 c:
 * every offset but the thread's own is a constant. */
__device__ __forceinline__ void shared_multiply_quads(float (&sum)[SHARED_THREAD_TILE][SHARED_THREAD_TILE],
                                                      const float *query_quad, const float *key_quad)
{
#pragma unroll
    for (int quad = 0; quad < SHARED_CHUNK / 4; quad++) {
        const float *q = query_quad + 4 * SHARED_TILE * quad;
        const float *k = key_quad + 4 * SHARED_TILE * quad;
        float4 query[SHARED_THREAD_TILE];
#pragma unroll
        for (int r = 0; r < SHARED_THREAD_TILE; r++)
            query[r] = shared_load_float4(q + 4 * (32 * (r % 4) + r / 4));
#pragma unroll
        for (int c = 0; c < SHARED_THREAD_TILE; c++) {
            const float4 key = shared_load_float4(k + 4 * (32 * (c % 4) + 16 * (c / 4)));
#pragma unroll
            for (int r = 0; r < SHARED_THREAD_TILE; r++)
                sum[r][c] = fmaf(query[r].x, key.x, sum[r][c]);
#pragma unroll
            for (int r = 0; r < SHARED_THREAD_TILE; r++)
                sum[r][c] = fmaf(query[r].y, key.y, sum[r][c]);
#pragma unroll
            for (int r = 0; r < SHARED_THREAD_TILE; r++)
                sum[r][c] = fmaf(query[r].z, key.z, sum[r][c]);
#pragma unroll
            for (int r = 0; r < SHARED_THREAD_TILE; r++)
                sum[r][c] = fmaf(query[r].w, key.w, sum[r][c]);
        }
    }
}


/* Which 8 x 8 patch thread `thread` owns in the quads kernel: rows
 * 8 ty + {0..7}, columns 4 tx + {0..3} and 64 + 4 tx + {0..3}, with a warp
 * laid out as 4 rows of 8 threads. */
__device__ __forceinline__ void shared_quads_thread(unsigned thread, int *ty, int *tx)
{
    const int lane = thread % 32, warp = thread / 32;
    *ty = 4 * (warp / 2) + lane / 8;
    *tx = 8 * (warp % 2) + lane % 8;
}

/* Tried: tiles of k-quads filled by 16-byte copies (shared+quads). */
__device__ __forceinline__ void shared_quads_body(float *preatt, const float *inp, int T, int NH,
                                                  int HS)
{
    extern __shared__ float4 shared_space[];
    float *query_tile = reinterpret_cast<float *>(shared_space); /* [HS/4][128][4] */
    float *key_tile = query_tile + HS * SHARED_TILE;              /* [HS/4][128][4] */

    const int tile_row = blockIdx.y, tile_col = blockIdx.x, head = blockIdx.z;
    if (tile_col > tile_row)
        return; /* the whole tile lies above the diagonal */
    {
        const int C = NH * HS, b = head / NH, h = head % NH;
        const size_t row_stride = 3 * (size_t)C;
        const size_t source = shared_quads_source(row_stride);
        const float *queries = inp + (size_t)b * T * row_stride + h * HS +
                               (size_t)tile_row * SHARED_TILE * row_stride + source;
        const float *keys = inp + (size_t)b * T * row_stride + C + h * HS +
                            (size_t)tile_col * SHARED_TILE * row_stride + source;
        const int destination = shared_quads_destination();
        for (int first = 0; first < HS; first += SHARED_CHUNK) {
            shared_copy_quads(query_tile + first * SHARED_TILE + destination,
                              key_tile + first * SHARED_TILE + destination, queries + first,
                              keys + first, row_stride);
            copy_async_commit();
        }
    }

    int ty, tx;
    shared_quads_thread(threadIdx.x, &ty, &tx);
    const float *query_quad = query_tile + 4 * 2 * ty, *key_quad = key_tile + 4 * tx;
    float sum[SHARED_THREAD_TILE][SHARED_THREAD_TILE] = {};
    for (int pending = HS / SHARED_CHUNK - 1; pending >= 0; pending--) {
        copy_async_wait_at_most(pending);
        __syncthreads(); /* every thread's copies of this chunk have landed */
        shared_multiply_quads(sum, query_quad, key_quad);
        query_quad += SHARED_CHUNK * SHARED_TILE;
        key_quad += SHARED_CHUNK * SHARED_TILE;
    }

    shared_store_tile<4, 64, false>(preatt + (size_t)head * T * T, sum, T, tile_row, tile_col,
                                    8 * ty, 4 * tx, 1.0f / sqrtf((float)HS));
}

/*md
## Step 4: a block per row of tiles

The three tried steps each went after a cost we had guessed at. Before a
fourth guess we asked the profiler where the warps wait. Nsight Compute
samples, every few cycles, what a warp is doing and at which instruction
(`ncu --set full`, then its *source* page, which lists the samples of every
machine instruction). For step 3 the answer is spread out. Of the samples
taken while a scheduler had no instruction to issue, about a fifth sit on
the 64 `cp.async` that each thread issues at the start of its block, held
back because the memory pipeline takes no more; a quarter on the 16 stores
at the block's end; well under half in the loop that multiplies. A block of
step 3 lives for one tile, so its start and its end come 3,456 times.

Step 4 makes blocks live longer, without the ring of the persistent kernel.
A block takes one row of tiles of one head, the tiles $(y, 0), (y, 1),
\dots, (y, y)$, and walks it from left to right. All of them need the same
query rows, so the query tile is copied once; the key tiles alternate
between two buffers. While the block multiplies tile $x$, it copies the
keys of tile $x + 1$ into the other buffer, one chunk of keys (8 `cp.async`
per thread) before each chunk it multiplies. That buffer held tile $x - 1$,
and every thread has finished reading it once it has passed the barrier at
the start of tile $x$. After the first tile there is one wait and one
barrier per tile, where step 3 has one per chunk, and the data of a tile
has been on its way for a whole tile when the block needs it. The query
tile and two key tiles take $3 \times 64 \times 132 \times 4$ bytes, 99 KB
at $HS = 64$, so two blocks still fit on a multiprocessor.

The grid lists the rows longest first, heads innermost: the rows of one
head start far apart in time, and the one-tile rows, launched last, fill
the gaps at the end. Per tile a block copies 32 KB of keys instead of
64 KB, with 32 `cp.async` per thread instead of 64; the L2 cache serves
138 MB instead of 226 MB.

One detail cost a round of `ptxas -v`. The compiler moves out of the loop
over tiles whatever does not change in it, and most of the address of each
of a tile's 16 stores does not: it computed those parts before the loop and
held them in registers through every multiplication, 139 registers where
two blocks per multiprocessor allow 128. An empty `asm volatile` that takes
the output pointer and hands it back makes the pointer opaque at each tile,
so the addresses are computed where they are used; a second one does the
same for the source pointer of each chunk's copies: 125 registers, no spill.

Step 4, `shared+rows`, takes {{median_ms|shared+rows|B=8 T=1024 C=768 NH=12}}
ms. It beats step 3, but by much less than we had predicted: its profile
shows about as many cycles with no instruction to issue as step 3's. They
moved rather than went.

## Step 5: keeping the memory pipeline moving

Read instruction by instruction, step 4's profile points at one place: the
queue in front of the memory pipeline, which takes shared-memory reads,
copies and stores alike, and what waits for it.

- Each of a tile's 16 `float4` stores takes its values from the same four
  registers, filled by four multiplications just before it. The
  multiplications for the next store must wait until the pipeline has taken
  the previous one and read those registers, so the stores leave one at a
  time; each also sits behind its own test for the diagonal.
- The 8 key copies of a chunk go out back to back, and the instruction
  after them overwrites a register that the last copy has yet to read: it
  waits for the queue too.
- Each value of $k$ costs a warp 6 shared-memory wavefronts, because a warp
  of 2 rows of 16 threads reads 16 different `float4`s of keys.

Step 5 changes all three.

1. Every tile of a row but the last lies below the diagonal and keeps every
   score. Those tiles are stored without tests: the sums are scaled in
   place, then written from one pointer at the thread's first row and
   column.
2. A warp is laid out as 4 rows of 8 threads. Per value of $k$ it reads 4
   different `float4`s of queries (8 floats apart, different banks) and 8 of
   keys (128 consecutive bytes): one wavefront each, 4 in all instead of 6.
3. The 8 key copies of a chunk are slipped between the values of $k$, one
   after every second one. They carry no `"memory"` clobber, so the
   compiler may still read the operands of the next values of $k$ across
   them (they write the other buffer), and on the last tile of a row a
   predicate turns them off, where a branch would split the loop.

The third change has a price in registers: with copies inside the loop the
compiler asks for 139 registers, and held to 128 it does without spilling.
Measured one at a time, the first two changes bought little; all three
together, `shared+rows+interleaved`, take
{{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} ms. At
$T = 4096$, where the rows are longer, the gain over step 3 is larger:
{{median_ms|shared+rows+interleaved|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|shared|B=8 T=4096 C=768 NH=12}} ms.
*/

/* The key half of shared_copy_chunk: this thread's 8 copies of one chunk of keys. */
template <int stride>
__device__ __forceinline__ void shared_copy_keys(float *key_slot, const float *keys,
                                                 size_t row_stride)
{
#pragma unroll
    for (int q = 0; q < 4; q++) {
        copy_async_4(key_slot + 32 * q, keys);
        copy_async_4(key_slot + 8 * stride + 32 * q, keys + 8);
        keys += 32 * row_stride;
    }
}

/* shared_multiply_chunk with this thread's 8 copies of a chunk of the next
 * key tile slipped in, one after every second value of k. */
template <int stride, int row_gap, int col_gap>
__device__ __forceinline__ void shared_multiply_chunk_copying(float (&sum)[SHARED_THREAD_TILE][SHARED_THREAD_TILE],
                                                              const float *query_k, const float *key_k,
                                                              int row_a, int col_a, float *key_slot,
                                                              const float *keys, size_t row_stride,
                                                              bool copy)
{
#pragma unroll
    for (int k = 0; k < SHARED_CHUNK; k++) {
        shared_multiply_k<stride, row_gap, col_gap>(sum, query_k, key_k, row_a, col_a, k);
        if (k % 2 == 1) { /* copy k / 2 of shared_copy_keys' 8 */
            const int q = k / 4, second = (k / 2) % 2;
            /* opaque, so that the PTX computes each address next to its copy
             * (ptxas still asks for 139 registers uncapped, with or without) */
            const float *source = keys;
            asm volatile("" : "+l"(source));
            copy_async_4_if(key_slot + 32 * q + second * 8 * stride,
                                source + q * 32 * row_stride + second * 8, copy);
        }
    }
}

/* An off-diagonal tile keeps every score: no tests, and one pointer, at the
 * thread's first row and column, for all 16 stores. The sums are scaled in
 * place first, so that each store can take its values from registers that
 * nothing overwrites soon after (a store reads its registers only when the
 * memory pipeline takes it). */
template <int row_gap, int col_gap>
__device__ __forceinline__ void shared_store_kept_tile(float *corner,
                                                       float (&sum)[SHARED_THREAD_TILE][SHARED_THREAD_TILE],
                                                       int T, float scale)
{
#pragma unroll
    for (int r = 0; r < SHARED_THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < SHARED_THREAD_TILE; c++)
            sum[r][c] *= scale;
#pragma unroll
    for (int r = 0; r < SHARED_THREAD_TILE; r++) {
        float *row = corner + (size_t)(r < 4 ? r : row_gap + r - 4) * T;
#pragma unroll
        for (int run = 0; run < 2; run++) {
            const float *s = &sum[r][4 * run];
            __stwb(reinterpret_cast<float4 *>(row + run * col_gap),
                   make_float4(s[0], s[1], s[2], s[3]));
        }
    }
}

/* Steps 4 and 5: block `blockIdx.x` walks one row of tiles of one head, left
 * to right, up to the diagonal. The query tile is copied once; the key tiles
 * alternate between two buffers, and the copies of tile x + 1 are issued
 * while tile x is multiplied, a chunk of keys per chunk multiplied. The rows
 * are listed longest first, heads innermost, so that the short rows fill the
 * tail. `interleaved` (step 5): warps of 4 x 8 threads, the copies between
 * the values of k, off-diagonal tiles stored without tests. */
template <bool interleaved>
__device__ __forceinline__ void shared_rows_body(float *preatt, const float *inp, int B, int T,
                                                 int NH, int HS)
{
    constexpr int stride = SHARED_TILE + SHARED_PAD;
    extern __shared__ float4 shared_space[];
    const int tile_floats = HS * stride;
    float *query_tile = reinterpret_cast<float *>(shared_space); /* [HS][stride] */
    float *key_tiles = query_tile + tile_floats;                 /* 2 x [HS][stride] */

    const int heads = B * NH, tiles = T / SHARED_TILE;
    const int head = blockIdx.x % heads, tile_row = tiles - 1 - (int)blockIdx.x / heads;
    const int C = NH * HS, b = head / NH, h = head % NH, chunks = HS / SHARED_CHUNK;
    const size_t row_stride = 3 * (size_t)C, key_tile_step = SHARED_TILE * row_stride;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS + shared_copy_source(row_stride);
    const float *queries = sequence + (size_t)tile_row * key_tile_step;
    const float *keys = sequence + C; /* this thread's first source float of key tile 0 */
    const int destination = shared_copy_destination<stride>();

    for (int chunk = 0; chunk < chunks; chunk++) {
        const int first = chunk * SHARED_CHUNK;
        shared_copy_chunk<stride>(query_tile + first * stride + destination,
                                  key_tiles + first * stride + destination, queries + first,
                                  keys + first, row_stride);
        copy_async_commit();
    }

    int row_a, col_a;
    if (interleaved) { /* a warp: 4 rows of 8 threads */
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        row_a = 8 * (4 * (warp / 2) + lane / 8);
        col_a = 4 * (8 * (warp % 2) + lane % 8);
    } else { /* a warp: 2 rows of 16 threads, as in steps 1-3 */
        row_a = 8 * (threadIdx.x / 16);
        col_a = 4 * (threadIdx.x % 16);
    }
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)head * T * T;
    for (int tile_col = 0; tile_col <= tile_row; tile_col++) {
        const float *key_tile = key_tiles + (tile_col % 2) * tile_floats;
        /* Where tile_col + 1 goes: the buffer of tile_col - 1, which every
         * thread has finished reading once it passes this tile's first barrier. */
        float *next_slot = key_tiles + ((tile_col + 1) % 2) * tile_floats + destination;
        const bool more = tile_col < tile_row;
        keys += key_tile_step;
        if (tile_col > 0) {
            copy_async_wait_at_most(0); /* this tile's copies were issued during the last one */
            __syncthreads();
        }
        float sum[SHARED_THREAD_TILE][SHARED_THREAD_TILE] = {};
        for (int chunk = 0; chunk < chunks; chunk++) {
            if (tile_col == 0) {
                /* After chunk `chunk` of the first tile come its later chunks
                 * and the groups of the next tile issued so far. */
                copy_async_wait_at_most(chunks - 1);
                __syncthreads();
            }
            const float *query_k = query_tile + chunk * SHARED_CHUNK * stride;
            const float *key_k = key_tile + chunk * SHARED_CHUNK * stride;
            /* opaque for the same reason as the stores' base below */
            const float *chunk_keys = keys + chunk * SHARED_CHUNK;
            asm volatile("" : "+l"(chunk_keys));
            if (interleaved) {
                shared_multiply_chunk_copying<stride, 4, 64>(sum, query_k, key_k, row_a, col_a,
                                                             next_slot + chunk * SHARED_CHUNK * stride,
                                                             chunk_keys, row_stride, more);
            } else {
                if (more)
                    shared_copy_keys<stride>(next_slot + chunk * SHARED_CHUNK * stride, chunk_keys,
                                             row_stride);
                shared_multiply_chunk<stride, 4, 64>(sum, query_k, key_k, row_a, col_a);
            }
            copy_async_commit(); /* possibly empty: keeps the count of groups fixed */
        }
        /* Left to itself the compiler computes the store addresses of every
         * row once, before the loop over tiles, and holds them through the
         * multiplications: 12 registers more. An empty asm makes the base
         * opaque, so they are computed here, per tile. */
        float *tile_scores = scores;
        asm volatile("" : "+l"(tile_scores));
        if (interleaved && more)
            shared_store_kept_tile<4, 64>(tile_scores +
                                              ((size_t)tile_row * SHARED_TILE + row_a) * T +
                                              tile_col * SHARED_TILE + col_a,
                                          sum, T, scale);
        else
            shared_store_tile<4, 64, false>(tile_scores, sum, T, tile_row, tile_col, row_a, col_a,
                                            scale);
    }
}

/*md
## The kernels

Each step is a kernel of its own, so that the profiler and the race can
tell them apart. Two blocks of 256 threads share a multiprocessor, so the
compiler must fit a thread in $65{,}536 / 512 = 128$ registers:
`__launch_bounds__` tells it so.
*/

#define SHARED_BOUNDS __launch_bounds__(SHARED_THREADS, 2)

__global__ void SHARED_BOUNDS shared_staged_scores(float *preatt, const float *__restrict__ inp,
                                                   int B, int T, int NH, int HS)
{
    shared_whole_body<SHARED_STAGED, false>(preatt, inp, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_padded_scores(float *preatt, const float *__restrict__ inp,
                                                   int B, int T, int NH, int HS)
{
    shared_whole_body<SHARED_PADDED, false>(preatt, inp, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_scores(float *preatt, const float *__restrict__ inp, int B,
                                            int T, int NH, int HS)
{
    shared_whole_body<SHARED_ASYNC, false>(preatt, inp, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_triangle_scores(float *preatt, const float *__restrict__ inp,
                                                     int B, int T, int NH, int HS)
{
    shared_whole_body<SHARED_ASYNC, true>(preatt, inp, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_quads_scores(float *preatt, const float *__restrict__ inp,
                                                  int B, int T, int NH, int HS)
{
    shared_quads_body(preatt, inp, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_rows_scores(float *preatt, const float *__restrict__ inp,
                                                int B, int T, int NH, int HS)
{
    shared_rows_body<false>(preatt, inp, B, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_rows_interleaved_scores(float *preatt,
                                                            const float *__restrict__ inp, int B,
                                                            int T, int NH, int HS)
{
    shared_rows_body<true>(preatt, inp, B, T, NH, HS);
}

__global__ void SHARED_BOUNDS shared_persistent_scores(float *preatt,
                                                       const float *__restrict__ inp, int B, int T,
                                                       int NH, int HS)
{
    shared_persistent_body(preatt, inp, B, T, NH, HS);
}

/*md
## Launching them

More than 48 KB of dynamic shared memory per block must be asked for, once
per kernel, with `cudaFuncSetAttribute`. The launcher does that, through
`gpu_allow_shared_memory` in `common/gpu.cu`, the first time it needs more
than it asked for before, before any timed launch. The
persistent kernels ask the runtime how many blocks fit on a multiprocessor
and launch that many per multiprocessor, or fewer if there are fewer tiles.
Steps 4 and 5 launch one block per row of tiles and head, $T / 128$ times
$B \cdot NH$ blocks in one dimension.
*/

static int shared_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % SHARED_TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", SHARED_TILE);
        return 1;
    }
    if (size.HS % SHARED_CHUNK != 0) {
        snprintf(why, capacity, "HS = C/NH = %d must be a multiple of %d (copies in chunks of %d)",
                 size.HS, SHARED_CHUNK, SHARED_CHUNK);
        return 1;
    }
    return 0;
}

/* Steps 1-3 hold both tiles whole and use one grid layer per head. */
static int shared_whole_refuses(triangle_size size, char *why, size_t capacity)
{
    if (shared_refuses(size, why, capacity))
        return 1;
    if (size.HS > SHARED_MAX_HS) {
        snprintf(why, capacity, "HS = C/NH = %d must be at most %d (both tiles whole in shared memory)",
                 size.HS, SHARED_MAX_HS);
        return 1;
    }
    if ((long)size.B * size.NH > 65535) {
        snprintf(why, capacity, "B*NH must be at most 65535 (one grid layer per head)");
        return 1;
    }
    return 0;
}

/* Steps 4 and 5 hold a query tile and two key tiles; their grid has one
 * dimension, so B*NH has no limit of its own. */
static int shared_rows_refuses(triangle_size size, char *why, size_t capacity)
{
    if (shared_refuses(size, why, capacity))
        return 1;
    if (size.HS > SHARED_MAX_HS) {
        snprintf(why, capacity,
                 "HS = C/NH = %d must be at most %d (a query tile and two key tiles in shared memory)",
                 size.HS, SHARED_MAX_HS);
        return 1;
    }
    return 0;
}

typedef void (*shared_kernel_function)(float *, const float *, int, int, int, int);

static void shared_launch_whole(const triangle_args *args, shared_kernel_function kernel, int step,
                                bool triangle)
{
    const triangle_size s = args->size;
    const int row_floats = step >= SHARED_QUADS ? SHARED_TILE : shared_row_floats(step);
    const size_t bytes = 2 * (size_t)s.HS * row_floats * sizeof(float);
    gpu_allow_shared_memory((const void *)kernel, bytes);
    const int tiles = s.T / SHARED_TILE;
    const dim3 grid = triangle ? dim3(tiles * (tiles + 1) / 2, s.B * s.NH) : dim3(tiles, tiles, s.B * s.NH);
    kernel<<<grid, SHARED_THREADS, bytes, args->stream>>>(args->preatt, args->inp, s.B, s.T, s.NH,
                                                            s.HS);
    LAUNCH_CHECK();
}

static void shared_launch_persistent(const triangle_args *args, shared_kernel_function kernel, int *resident_blocks)
{
    const triangle_size s = args->size;
    const size_t bytes =
        (size_t)SHARED_SLOTS * 2 * SHARED_CHUNK * (SHARED_TILE + SHARED_PAD) * sizeof(float);
    gpu_allow_shared_memory((const void *)kernel, bytes);
    if (*resident_blocks == 0) {
        int device, multiprocessors, per_multiprocessor;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel,
                                                                 SHARED_THREADS, bytes));
        *resident_blocks = (per_multiprocessor > 0 ? per_multiprocessor : 1) * multiprocessors;
    }
    const int tiles = s.T / SHARED_TILE;
    const long work = (long)tiles * (tiles + 1) / 2 * s.B * s.NH;
    const int blocks = work < *resident_blocks ? (int)work : *resident_blocks;
    kernel<<<blocks, SHARED_THREADS, bytes, args->stream>>>(args->preatt, args->inp, s.B, s.T, s.NH,
                                                             s.HS);
    LAUNCH_CHECK();
}

/* Step 4: one block per row of tiles and head, the query tile and two key tiles. */
static void shared_launch_rows(const triangle_args *args, shared_kernel_function kernel)
{
    const triangle_size s = args->size;
    const size_t bytes = 3 * (size_t)s.HS * (SHARED_TILE + SHARED_PAD) * sizeof(float);
    gpu_allow_shared_memory((const void *)kernel, bytes);
    const int blocks = s.T / SHARED_TILE * s.B * s.NH;
    kernel<<<blocks, SHARED_THREADS, bytes, args->stream>>>(args->preatt, args->inp, s.B, s.T, s.NH,
                                                             s.HS);
    LAUNCH_CHECK();
}

static void shared_staged_launch(const triangle_args *args)
{
    shared_launch_whole(args, shared_staged_scores, SHARED_STAGED, false);
}

static void shared_padded_launch(const triangle_args *args)
{
    shared_launch_whole(args, shared_padded_scores, SHARED_PADDED, false);
}

static void shared_launch(const triangle_args *args)
{
    shared_launch_whole(args, shared_scores, SHARED_ASYNC, false);
}

static void shared_triangle_launch(const triangle_args *args)
{
    shared_launch_whole(args, shared_triangle_scores, SHARED_ASYNC, true);
}

static void shared_quads_launch(const triangle_args *args)
{
    shared_launch_whole(args, shared_quads_scores, SHARED_QUADS, false);
}

static void shared_persistent_launch(const triangle_args *args)
{
    static int resident_blocks = 0;
    shared_launch_persistent(args, shared_persistent_scores, &resident_blocks);
}

static void shared_rows_launch(const triangle_args *args)
{
    shared_launch_rows(args, shared_rows_scores);
}

static void shared_rows_interleaved_launch(const triangle_args *args)
{
    shared_launch_rows(args, shared_rows_interleaved_scores);
}

extern const triangle_kernel shared_staged_kernel = {shared_whole_refuses, shared_staged_launch};
extern const triangle_kernel shared_padded_kernel = {shared_whole_refuses, shared_padded_launch};
extern const triangle_kernel shared_kernel = {shared_whole_refuses, shared_launch};
extern const triangle_kernel shared_triangle_kernel =
    {shared_whole_refuses, shared_triangle_launch};
extern const triangle_kernel shared_quads_kernel = {shared_whole_refuses, shared_quads_launch};
extern const triangle_kernel shared_rows_kernel = {shared_rows_refuses, shared_rows_launch};
extern const triangle_kernel shared_rows_interleaved_kernel =
    {shared_rows_refuses, shared_rows_interleaved_launch};
extern const triangle_kernel shared_persistent_kernel = {shared_refuses, shared_persistent_launch};

/*md
## Two floors, and where we stand

At the default size ($B = 8$, $T = 1024$, $C = 768$, $NH = 12$):

- **arithmetic**: the kept scores need $2 \cdot HS \cdot B \cdot NH \cdot
  T(T+1)/2 = 6.45 \times 10^9$ floating-point operations; at the H200's
  FP32 rate of 66.9 TFLOP/s (132 multiprocessors, 128 lanes each, 2
  operations per fused multiply-add, 1.98 GHz) that is **0.096 ms**. Our
  kernels do a little more, since they compute whole $128 \times 128$ tiles
  on the diagonal: $7.25 \times 10^9$ operations, 0.108 ms at peak.
- **memory**: the queries and keys must be read once (50 MB) and the kept
  scores written once (201 MB): 252 MB, **0.052 ms** at the datasheet's 4.8
  TB/s (0.059 ms at the 4.3 TB/s a device-to-device copy reaches).

The arithmetic floor is the higher one: this problem is bound by
multiply-adds. Each step, at the default size, on
{{gpu|shared|B=8 T=1024 C=768 NH=12}}:

| kernel | what changed | median ms |
|---|---|---|
| vectorized | chapter 4 | {{median_ms|vectorized|B=8 T=1024 C=768 NH=12}} |
| shared+staged | tiles in shared memory, 16-way bank conflicts on the copy | {{median_ms|shared+staged|B=8 T=1024 C=768 NH=12}} |
| shared+padded | padded rows, conflict-free copy | {{median_ms|shared+padded|B=8 T=1024 C=768 NH=12}} |
| shared | `cp.async` in chunks of 16 | {{median_ms|shared|B=8 T=1024 C=768 NH=12}} |
| shared+rows | a block per row of tiles, the next key tile copied during this one | {{median_ms|shared+rows|B=8 T=1024 C=768 NH=12}} |
| shared+rows+interleaved | 4 x 8 warps, copies between the values of $k$, stores without tests | {{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} |
| shared+persistent | tried: persistent blocks, a ring of 6 chunks | {{median_ms|shared+persistent|B=8 T=1024 C=768 NH=12}} |
| shared+triangle | tried: step 3 on the lower triangle of tiles, streaming stores | {{median_ms|shared+triangle|B=8 T=1024 C=768 NH=12}} |
| shared+quads | tried: 16-byte copies into tiles of k-quads | {{median_ms|shared+quads|B=8 T=1024 C=768 NH=12}} |
| cublas-permute | the champion, strict FP32 | {{median_ms|cublas-permute|B=8 T=1024 C=768 NH=12}} |

The chapter's fastest kernel, step 5, reaches
{{gflops|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} useful GFLOP/s and
moves {{gbps|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} GB/s of
compulsory traffic. At $T = 4096$ it takes
{{median_ms|shared+rows+interleaved|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|cublas-permute|B=8 T=4096 C=768 NH=12}} ms for cuBLAS.

It is still about twice the arithmetic floor. The profiler says where the
rest goes. About one instruction in six is not a multiply-add (shared-memory
reads, copies, addresses, the scaling and the stores of a tile that has only
64 values of $k$ to amortise them over): even issuing an instruction on
every cycle of every scheduler, step 5 would take about 0.13 ms. And on more
than a quarter of the cycles no warp is ready to issue. Of those, the
largest share now sits on the copies of each row's first tile, the burst of
64 `cp.async` per thread that steps 4 and 5 still issue when a block
starts; then the waits for shared-memory reads in the loop, the stores, and
the barriers. The persistent ring and the triangle grid added bookkeeping
and lost; the tiles of k-quads saved copies but spent the registers the
loop reads ahead with, and lost; steps 4 and 5 took work away (block
starts, copies, tests, wavefronts) and won, a little each.

Three more roads to a sixth step were measured and left out of this file
(the notes of the repository, `notes/triangle.md`, run 6, keep their code
and numbers). Letting the warps that own only masked scores of a diagonal
tile skip it removed one instruction in twenty-five and none of the time: a
block keeps its place on the multiprocessor until its slowest warp is done,
and those warps were never the slowest. Letting each block walk several
rows, so that only its first row starts cold, cost more instructions in
bookkeeping than the starts had cost in waiting. And the textbook cure for
a kernel that waits, half as many threads with twice the work each (a
$16 \times 8$ patch in 205 registers), cut the shared-memory reads per
multiply-add by a quarter and still lost: with two warps per scheduler, every
barrier and every burst of copies shows. Step 5's profile has no single
limit left to relieve: the multiply-add pipe, the shared-memory pipe and the
issue slots are each busy on about two cycles in three. Closing the rest of
the gap with plain FP32 instructions takes control over the order of the
machine instructions, which CUDA C leaves to the compiler; chapter 8 takes
the other road, the tensor cores.

cuBLAS is not beaten by cleverness it lacks in general: it is beaten on a
problem it was not told about. It computes the full square of scores, twice
the work, and it needs its inputs permuted first. A kernel that knows the
mask, the layout and the sizes skips all of that.
*/
