// chapters/05-shared/shared.cuh - Chapter 5: shared memory, bank conflicts, asynchronous copies.
//
// Build, check and time it from the repository root:
//
//   make chapter5                     # B=8 T=1024 C=768 NH=12: checked, then timed
//   build/chapter5 --kernel shared T=4096
//   build/chapter5-tried              # the variants tried and not kept (tried/)

// book:hide
#pragma once
#include <math.h>

#include "device/async_copy.h"
#include "problems/triangle.h"
// book:show

/*md
# Shared memory: load once, use sixteen times

## What if a block loads its operands once and its threads share them?

Chapter 4 left every thread fetching its own operands. Yet the 16 threads
that share a row of a block all need the same 8 query rows, and the 16
threads that share a column the same 8 key rows. A block of 256 threads
fetches one megabyte from the memory system to build a $128 \times 128$ tile
of scores whose operands, a $128 \times 64$ slice of $Q$ and one of $K$,
weigh 64 KB. If the block fetched those 64 KB once and its threads shared
them, how close would the kernel come to the FP32 floor, and would it beat
cuBLAS?

## The plan

Every multiprocessor of the GPU has a small memory on the chip that the
threads of a block share: *shared memory*, up to {{card_shared_kb|shared|B=8 T=1024 C=768 NH=12}} KB per
block on the {{gpu|shared|B=8 T=1024 C=768 NH=12}}, about as fast as the L1 cache and, unlike it,
managed by the program.
The 256 threads of a block copy the block's query tile and key
tile into shared memory once, cooperating so that the reads are coalesced;
they wait for each other (`__syncthreads()`); then each thread runs chapter
4's outer product over $k$, its operands read from shared memory.

Global traffic per block drops from 1 MB to 64 KB: at the default size
3,456 blocks read 226 MB from the L2 cache, where chapter 4 read 3.4 GB.

## The layout in shared memory

At step $k$ a thread needs $Q_{i,k}$ for its 8 query rows $i$ and
$K_{j,k}$ for its 8 key columns $j$. In global memory those are 8 floats in 8
different rows. In shared memory we can store the tiles *transposed*,
`query_tile[k][i]` and `key_tile[k][j]`, so that the values a thread needs
at one step lie side by side: 4 consecutive rows are one 16-byte `float4`
read. Each step is then 4 shared-memory reads (two `float4` of queries, two
of keys) feeding 64 fused multiply-adds. The copy does the transposition: a
thread reads a `float4` of one row, $Q_{i,k..k+3}$, and writes its four
values to `query_tile[k][i]` ... `query_tile[k+3][i]`.

## Is shared memory fast enough?

A multiprocessor of a Hopper card (the H100, the H200) does 128 FP32 fused multiply-adds
per clock; those of the A100 and the T4, 64.
Its shared memory delivers 128 bytes per clock, in one *wavefront* of 32
four-byte words. Per step of $k$, one warp issues 64 multiply-add
instructions (2,048 multiply-adds: 16 clocks of the multiprocessor's
arithmetic) and 4 `float4` reads. Within a warp many threads read the same
address, and the hardware broadcasts it: with the thread layout below the
warp's 4 reads need 6 wavefronts. Six clocks of shared memory for sixteen of
arithmetic: the shared memory is not the limit, if nothing wastes its
wavefronts. Something will.

## The sizes

A block still computes a $128 \times 128$ tile with 256 threads, each an
$8 \times 8$ patch in 64 registers. Queries and keys are copied in *chunks*
of 16 values of $k$, 16 KB for both tiles; at $HS = 64$ a tile pair is 4
chunks, 64 KB, and two blocks fit on each multiprocessor.

Five steps, each a kernel of its own for the race and the profiler. Steps
1-3 share one function whose parameter `step` switches each feature on
(`step >= SHARED_...`, resolved by the compiler) and hold both tiles whole;
steps 4 and 5 hold a query tile and two key tiles. All accept any $HS$ that
is a multiple of 16 up to 128. Variants that did not pay are in the
appendix, *the roads not taken*.
*/

#define SHARED_TILE 128        /* scores per block side */
#define SHARED_THREADS 256     /* 8 warps; each thread owns 8 x 8 scores */
#define SHARED_THREAD_TILE 8
#define SHARED_CHUNK 16        /* values of k per group of asynchronous copies */
#define SHARED_MAX_HS 128      /* values of k a tile holds, whole, in shared memory */
#define SHARED_PAD 4           /* floats added to each row of a tile (step 2 on) */
/* The relations the kernels rely on, checked by the compiler. */
static_assert(SHARED_THREADS * SHARED_THREAD_TILE * SHARED_THREAD_TILE == SHARED_TILE * SHARED_TILE,
              "the threads' patches cover the tile once");
static_assert(SHARED_MAX_HS % SHARED_CHUNK == 0, "a tile's k splits into whole chunks");
static_assert(SHARED_PAD % 4 == 0, "a padded row stays 16-byte aligned (float4 copies)");

/* A thread's 8 x 8 sums. */
typedef float shared_patch[SHARED_THREAD_TILE][SHARED_THREAD_TILE];

enum {
    SHARED_STAGED = 1, /* tiles in shared memory, copied through registers */
    SHARED_PADDED = 2, /* padded rows and a copy pattern without bank conflicts */
    SHARED_ASYNC = 3   /* cp.async: the copies run while the first chunks are used */
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

/* Which float4 of the tile copy number e is: its row, and its place `quad`
 * in the row. */
template <int step>
__host__ __device__ __forceinline__ void shared_stage_place(int e, int quads_per_row, int *row,
                                                            int *quad)
{
    if (step == SHARED_STAGED) {
        *row = e / quads_per_row; /* a warp reads two rows of 16 float4s */
        *quad = e % quads_per_row;
    } else {
        const int lane = e % 32, slot = e / 32; /* a warp reads 16 rows, 2 float4s each */
        *row = 16 * (slot % 8) + lane % 16;
        *quad = 2 * (slot / 8) + lane / 16;
    }
}

template <int step>
__device__ __forceinline__ void shared_stage_tile(float *tile, const float *rows,
                                                  size_t row_stride, int HS)
{
    constexpr int stride = shared_row_floats(step);
    const int quads_per_row = HS / 4;
    const int quads = SHARED_TILE * quads_per_row;
    for (int e = threadIdx.x; e < quads; e += SHARED_THREADS) {
        int row, quad;
        shared_stage_place<step>(e, quads_per_row, &row, &quad);
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
global memory, waits for it, and stores it into shared memory. No thread
multiplies before the last copy of the last thread has landed; meanwhile
only the other block of the multiprocessor, if it is at another phase,
keeps the arithmetic units busy.

Since the Ampere generation a thread can instead ask for a copy from global
to shared memory that completes on its own, without passing through its
registers: `cp.async`. Three PTX instructions make the protocol:

```
cp.async.ca.shared.global [dst], [src], 4;  // start a copy of 4 bytes, do not wait
cp.async.commit_group;                      // the copies issued so far form a group
cp.async.wait_group n;                      // wait until at most n groups are in flight
```

`dst` is a shared-memory address (`__cvta_generic_to_shared` makes one),
`n` a constant. A thread waits only for its own copies: a `__syncthreads()`
must follow before other threads read what arrived. The kernels call
wrappers of a line of inline assembly each, from `common/device/async_copy.h`:
`copy_async_4`, `copy_async_16`, `copy_async_commit`, `copy_async_wait<n>`,
and `copy_async_wait_at_most(n)` for a count known only at run time. The
copy of 16 bytes, for instance (the `.cg` form, which leaves L1 alone),
and the wait:

{{listing|common/device/async_copy.h|copy_async_16_to}}

{{listing|common/device/async_copy.h|copy_async_wait}}

Step 3 issues the whole tile at once, one group per chunk, then works
through the groups in order: wait for group $c$, `__syncthreads()`, multiply
over its 16 values of $k$, go on to group $c + 1$, which has been arriving
meanwhile. The multiplications start once a quarter of the tile is there.
The race calls this kernel `shared`; steps 4 and 5 build on it.

One restriction shapes the copy: `cp.async` moves 4, 8 or 16 contiguous
bytes to contiguous bytes. A transposing copy must therefore move single
floats. A warp copies 8 consecutive values of $k$ from each of 4 rows:
4 whole sectors read, and the 32 words written at offsets
$132 (k_0 + \ell \bmod 8) + r_0 + \lfloor \ell / 8 \rfloor$ for lane $\ell$,
banks $4 (\ell \bmod 8) + \lfloor \ell / 8 \rfloor + \text{const}$: 32
different banks. A thread's 16 copies of a chunk come from 4 rows, 32 rows
apart, and two places in each, 8 floats apart; written as one pointer per
tile that steps down by 32 rows, each copy costs one instruction and no
address arithmetic. The figure below is drawn from the very functions the
kernels call to place their copies and reads (`shared_row_floats`,
`shared_stage_place`, `shared_copy_destination`, `shared_first_col`),
which are written for the host as well.

{{figure|bank-map}}
*/

/* Where the copies of a chunk by thread `thread` (threadIdx.x: lane
 * thread % 32 of warp thread / 32) come from, in floats from the tile's
 * first (rows row_stride apart), and where they go: its first row is
 * 4 warp + lane/8, its first value of k is lane % 8. */
__host__ __device__ __forceinline__ size_t shared_copy_source(unsigned thread, size_t row_stride)
{
    const int lane = thread % 32, warp = thread / 32;
    return (size_t)(4 * warp + lane / 8) * row_stride + lane % 8;
}

template <int stride>
__host__ __device__ __forceinline__ int shared_copy_destination(unsigned thread)
{
    const int lane = thread % 32, warp = thread / 32;
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

Every step shares the inner loop: per value of $k$, the thread's 8 query
and 8 key values read as 4 `float4`s, then 64 fused multiply-adds. Its rows
are `row_a` to `row_a + 3` and `row_a + row_gap` to `row_a + row_gap + 3`,
its columns likewise; the gaps are constants, so every read is one
instruction with a constant offset.
*/

/* The first row and the first column of thread `thread`'s patch (threadIdx.x)
 * when a warp is 2 rows of 16 threads (steps 1-4): rows row_a .. row_a + 3
 * and 4 further on, columns col_a .. col_a + 3 and 64 further on. */
__host__ __device__ __forceinline__ int shared_first_row(unsigned thread)
{
    return 8 * (thread / 16);
}

__host__ __device__ __forceinline__ int shared_first_col(unsigned thread)
{
    return 4 * (thread % 16);
}

/* One value of k: 4 float4 reads, 64 FMAs. */
template <int stride, int row_gap, int col_gap>
__device__ __forceinline__ void shared_multiply_k(shared_patch &sum, const float *query_k,
                                                  const float *key_k, int row_a, int col_a, int k)
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
__device__ __forceinline__ void shared_multiply_chunk(shared_patch &sum, const float *query_k,
                                                      const float *key_k, int row_a, int col_a)
{
#pragma unroll
    for (int k = 0; k < SHARED_CHUNK; k++)
        shared_multiply_k<stride, row_gap, col_gap>(sum, query_k, key_k, row_a, col_a, k);
}

/*md
The stores are common to every step as well: a thread writes its patch back
to global memory a `float4` at a time, scaled on the way, and leaves out the
masked runs of a diagonal tile. They are chapter 4's stores, nothing of
shared memory in them, so `shared_store_tile` is left to the source pages.
*/

// book:hide
/* A part of k's sums added to what the parts before it stored (ACCUMULATE,
 * when a card's shared memory holds only part of k: see "Launching them"),
 * or stored as they are. */
template <bool ACCUMULATE>
__device__ __forceinline__ void shared_store_float4(float4 *destination, float4 v)
{
    if (ACCUMULATE) {
        const float4 before = __ldcg(destination);
        v = make_float4(v.x + before.x, v.y + before.y, v.z + before.z, v.w + before.w);
    }
    __stwb(destination, v); /* st.global.wb: the default policy, one 16-byte store */
}

/* One float4 per run of 4 columns and per row, written when its first
 * column is kept (on a diagonal tile its other columns may be masked ones,
 * which is allowed). A warp writes whole 128-byte lines, each float4 through
 * STORE (shared_store_float4 here; the roads not taken stream them). */
template <int row_gap, int col_gap, bool ACCUMULATE = false,
          void (*STORE)(float4 *, float4) = shared_store_float4<ACCUMULATE>>
__device__ __forceinline__ void shared_store_tile(float *scores, const shared_patch &sum, int T,
                                                  int tile_row, int tile_col, int row_a, int col_a,
                                                  float scale)
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
            STORE(destination, v);
        }
    }
}
// book:show

/*md
The body of steps 1-3 puts these together: the block finds its two tiles,
copies them the way its step does, multiplies them chunk by chunk and
stores its patch.
*/

/* Steps 1-3: one block per tile, both tiles whole in shared memory: the
 * k_count values of k from inp's first (all HS of them where the card's
 * shared memory holds them). */
template <int step, bool ACCUMULATE>
__device__ __forceinline__ void shared_whole_body(float *preatt, const float *inp, int T, int NH,
                                                  int HS, int k_count)
{
    constexpr int stride = shared_row_floats(step);
    extern __shared__ float4 shared_space[];
    float *query_tile = reinterpret_cast<float *>(shared_space); /* [k_count][stride] */
    float *key_tile = query_tile + k_count * stride;             /* [k_count][stride] */

    const int tile_row = blockIdx.y, tile_col = blockIdx.x, head = blockIdx.z;
    if (tile_col > tile_row)
        return; /* the whole tile lies above the diagonal */
    const int C = NH * HS, b = head / NH, h = head % NH;
    const size_t row_stride = 3 * (size_t)C;
    const float *queries = inp + (size_t)b * T * row_stride + h * HS +
                           (size_t)tile_row * SHARED_TILE * row_stride;
    const float *keys = inp + (size_t)b * T * row_stride + C + h * HS +
                        (size_t)tile_col * SHARED_TILE * row_stride;
    const int chunks = k_count / SHARED_CHUNK;

    if (step >= SHARED_ASYNC) {
        const size_t source = shared_copy_source(threadIdx.x, row_stride);
        const int destination = shared_copy_destination<stride>(threadIdx.x);
        for (int chunk = 0; chunk < chunks; chunk++) {
            const int first = chunk * SHARED_CHUNK;
            shared_copy_chunk<stride>(query_tile + first * stride + destination,
                                      key_tile + first * stride + destination,
                                      queries + source + first, keys + source + first, row_stride);
            copy_async_commit();
        }
    } else {
        shared_stage_tile<step>(query_tile, queries, row_stride, k_count);
        shared_stage_tile<step>(key_tile, keys, row_stride, k_count);
        __syncthreads();
    }

    /* 16 x 16 threads: rows 8 ty .. 8 ty + 7, columns 4 tx + {0..3} and 64 + 4 tx + {0..3} */
    const int row_a = shared_first_row(threadIdx.x), col_a = shared_first_col(threadIdx.x);
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
    shared_store_tile<4, 64, ACCUMULATE>(preatt + (size_t)head * T * T, sum, T, tile_row,
                                         tile_col, row_a, col_a, 1.0f / sqrtf((float)HS));
}

/*md
## Step 4: a block per row of tiles

Where do step 3's warps wait? Nsight Compute samples, every few cycles,
what each warp is doing and at which instruction (`ncu --set full`, then
its *source* page). For step 3, on the H200 (a reading of the source page,
not yet one `make nsight` records), the answer is spread out. Of the samples
taken while a *warp scheduler* had no instruction to issue (a
multiprocessor has four; each clock, each picks one of its warps whose next
instruction is ready and issues it), about a fifth sit on
the 64 `cp.async` each thread issues at the start of its block, held back
because the memory pipeline takes no more; a quarter on the 16 stores at
the block's end; well under half in the multiply loop. A block of step 3
lives for one tile, so its start and its end come 3,456 times.

Step 4 makes blocks live longer. A block walks one row of tiles of one
head, $(y, 0), (y, 1), \dots, (y, y)$, from left to right. All of them need
the same query rows, so the query tile is copied once; the key tiles
alternate between two buffers. While the block multiplies tile $x$, it
copies the keys of tile $x + 1$ into the other buffer, one chunk of keys
(8 `cp.async` per thread) before each chunk it multiplies; that buffer held
tile $x - 1$, which every thread has finished reading once past the barrier
at the start of tile $x$. After the first tile there is one wait and one
barrier per tile, where step 3 has one per chunk, and a tile's data has
been on its way for a whole tile when the block needs it. The three tiles
take $3 \times 64 \times 132 \times 4$ bytes, 99 KB at $HS = 64$: two
blocks still fit on a multiprocessor. Per tile a block copies 32 KB of keys
instead of 64 KB, 32 `cp.async` per thread instead of 64; the L2 cache
serves 138 MB instead of 226 MB. The grid lists the rows longest first,
heads innermost, so that the one-tile rows, launched last, fill the gaps at
the end.

One detail shows only in `ptxas -v`. The compiler hoists out of the loop
over tiles whatever does not change in it, such as most of the address of
each of a tile's 16 stores, and holds it in registers through every
multiplication: 139 registers where two blocks per multiprocessor allow
128. An empty `asm volatile` that takes the output pointer and hands it
back makes it opaque at each tile, so the addresses are computed where they
are used; a second does the same for the source of each chunk's copies:
125 registers, no spill.

Step 4, `shared+rows`, takes {{median_ms|shared+rows|B=8 T=1024 C=768 NH=12}}
ms. It beats step 3, but by less than the block starts it saves suggest: its
profile shows about as many cycles with no instruction to issue as step
3's. They moved rather than went.

## Step 5: keeping the memory pipeline moving

Read instruction by instruction, step 4's profile points at one place: the
queue in front of the memory pipeline, which takes shared-memory reads,
copies and stores alike, and what waits for it.

- Each of a tile's 16 `float4` stores takes its values from the same four
  registers, filled by four multiplications just before it; the next four
  must wait until the pipeline has taken the store and read them: the stores
  leave one at a time, each also behind its own test for the diagonal.
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
   after every second one, as `copy_async_4_if`: with no `"memory"`
   clobber, so the compiler may read the next operands across them (they
   write the other buffer), and with a predicate that turns them off on the
   last tile of a row, where a branch would split the loop.

With copies inside the loop the compiler asks for 139 registers, and held
to 128 does without spilling. One at a time, the first two changes bought
little; all three together, `shared+rows+interleaved`, take
{{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} ms. At $T =
4096$, where the rows are longer, the gain over step 3 is larger:
{{median_ms|shared+rows+interleaved|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|shared|B=8 T=4096 C=768 NH=12}} ms.

Steps 4 and 5 are tuning rather than the chapter's idea, which steps 1
to 3 have shown whole, so their code is left to the source pages (the
mark below names its lines, a link in the HTML book). One function,
`shared_rows_body`, serves both steps and tells them apart by where the
copies of the next tile's keys go (`ORDER`): before a chunk is multiplied
(step 4), or between its values of $k$ (step 5, with
`shared_multiply_chunk_copying`). Change 1 is a store of its own,
`shared_store_kept_tile`, for the tiles that keep every score.
*/

// book:hide
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
__device__ __forceinline__ void shared_multiply_chunk_copying(shared_patch &sum,
                                                              const float *query_k,
                                                              const float *key_k, int row_a,
                                                              int col_a, float *key_slot,
                                                              const float *keys,
                                                              size_t row_stride, bool copy)
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

/* An off-diagonal tile keeps every score: no tests, one pointer for all 16
 * stores, and the sums scaled in place first, so that no register a store
 * reads is overwritten soon after (it is read when the pipeline takes it). */
template <int row_gap, int col_gap, bool ACCUMULATE = false>
__device__ __forceinline__ void shared_store_kept_tile(float *corner, shared_patch &sum, int T,
                                                       float scale)
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
            shared_store_float4<ACCUMULATE>(reinterpret_cast<float4 *>(row + run * col_gap),
                                            make_float4(s[0], s[1], s[2], s[3]));
        }
    }
}


/* Where the copies of the next tile's keys go: step 4 issues a chunk's
 * copies before multiplying it, step 5 between its values of k. */
enum shared_copy_order { SHARED_COPY_BEFORE, SHARED_COPY_INTERLEAVED };

/* Steps 4 and 5: block `blockIdx.x` walks one row of tiles of one head, left
 * to right, up to the diagonal; rows longest first, heads innermost. The
 * tiles hold the k_count values of k from inp's first, as in steps 1-3. */
template <shared_copy_order ORDER, bool ACCUMULATE>
__device__ __forceinline__ void shared_rows_body(float *preatt, const float *inp, int B, int T,
                                                 int NH, int HS, int k_count)
{
    constexpr bool interleaved = ORDER == SHARED_COPY_INTERLEAVED; /* step 5 */
    constexpr int stride = SHARED_TILE + SHARED_PAD;
    extern __shared__ float4 shared_space[];
    const int tile_floats = k_count * stride;
    float *query_tile = reinterpret_cast<float *>(shared_space); /* [k_count][stride] */
    float *key_tiles = query_tile + tile_floats;                 /* 2 x [k_count][stride] */

    const int heads = B * NH, tiles = T / SHARED_TILE;
    const int head = blockIdx.x % heads, tile_row = tiles - 1 - (int)blockIdx.x / heads;
    const int C = NH * HS, b = head / NH, h = head % NH, chunks = k_count / SHARED_CHUNK;
    const size_t row_stride = 3 * (size_t)C, key_tile_step = SHARED_TILE * row_stride;
    const float *sequence =
        inp + (size_t)b * T * row_stride + h * HS +
        shared_copy_source(threadIdx.x, row_stride);
    const float *queries = sequence + (size_t)tile_row * key_tile_step;
    const float *keys = sequence + C; /* this thread's first source float of key tile 0 */
    const int destination = shared_copy_destination<stride>(threadIdx.x);

    for (int chunk = 0; chunk < chunks; chunk++) {
        const int first = chunk * SHARED_CHUNK;
        shared_copy_chunk<stride>(query_tile + first * stride + destination,
                                  key_tiles + first * stride + destination, queries + first,
                                  keys + first, row_stride);
        copy_async_commit();
    }

    /* Next, where the thread's patch lies: change 2 gives step 5 a layout of its
     * own. */
    int row_a, col_a;
    if (interleaved) { /* a warp: 4 rows of 8 threads */
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        row_a = 8 * (4 * (warp / 2) + lane / 8);
        col_a = 4 * (8 * (warp % 2) + lane % 8);
    } else { /* a warp: 2 rows of 16 threads, as in steps 1-3 */
        row_a = shared_first_row(threadIdx.x);
        col_a = shared_first_col(threadIdx.x);
    }
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)head * T * T;
    /* Then the walk along the row. Steps 4 and 5 part ways twice in it: in where
     * the copies of the next tile go, and in how a tile is stored. */
    for (int tile_col = 0; tile_col <= tile_row; tile_col++) {
        const float *key_tile = key_tiles + (tile_col % 2) * tile_floats;
        /* Where tile_col + 1 goes: the buffer of tile_col - 1, which every
         * thread has finished reading once it passes this tile's first barrier. */
        float *next_slot = key_tiles + ((tile_col + 1) % 2) * tile_floats + destination;
        const bool next_tile = tile_col < tile_row; /* one follows: copy its keys */
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
                shared_multiply_chunk_copying<stride, 4, 64>(
                    sum, query_k, key_k, row_a, col_a, next_slot + chunk * SHARED_CHUNK * stride,
                    chunk_keys, row_stride, next_tile);
            } else {
                if (next_tile)
                    shared_copy_keys<stride>(next_slot + chunk * SHARED_CHUNK * stride, chunk_keys,
                                             row_stride);
                shared_multiply_chunk<stride, 4, 64>(sum, query_k, key_k, row_a, col_a);
            }
            copy_async_commit(); /* possibly empty: keeps the count of groups fixed */
        }
        /* Opaque, or the compiler computes the store addresses of every row
         * before the loop over tiles and holds them: 12 registers more. */
        float *tile_scores = scores;
        asm volatile("" : "+l"(tile_scores));
        if (interleaved && next_tile)
            shared_store_kept_tile<4, 64, ACCUMULATE>(
                tile_scores + ((size_t)tile_row * SHARED_TILE + row_a) * T +
                    tile_col * SHARED_TILE + col_a,
                sum, T, scale);
        else
            shared_store_tile<4, 64, ACCUMULATE>(tile_scores, sum, T, tile_row, tile_col, row_a,
                                                 col_a, scale);
    }
}
// book:show

/*md
## The kernels

Two blocks of 256 threads share a multiprocessor, so the compiler must fit a
thread in $65{,}536 / 512 = 128$ registers: `__launch_bounds__` tells it so.
More than 48 KB of dynamic shared memory per block must be asked for with
`cudaFuncSetAttribute`; the launchers do it through `gpu_allow_shared_memory`
(`common/device/gpu.cu`). Steps 1-3 launch a square grid of tiles, a layer per
head; steps 4 and 5 one block per row of tiles and head. Each kernel only
calls its step's body; step 3's stands for all five.
*/

#define SHARED_BOUNDS __launch_bounds__(SHARED_THREADS, 2)

// book:hide
template <bool ACCUMULATE>
__global__ void SHARED_BOUNDS shared_staged_scores(float *preatt, const float *__restrict__ inp,
                                                   int B, int T, int NH, int HS, int k_count)
{
    shared_whole_body<SHARED_STAGED, ACCUMULATE>(preatt, inp, T, NH, HS, k_count);
}

template <bool ACCUMULATE>
__global__ void SHARED_BOUNDS shared_padded_scores(float *preatt, const float *__restrict__ inp,
                                                   int B, int T, int NH, int HS, int k_count)
{
    shared_whole_body<SHARED_PADDED, ACCUMULATE>(preatt, inp, T, NH, HS, k_count);
}
// book:show

template <bool ACCUMULATE>
__global__ void SHARED_BOUNDS shared_scores(float *preatt, const float *__restrict__ inp, int B,
                                            int T, int NH, int HS, int k_count)
{
    shared_whole_body<SHARED_ASYNC, ACCUMULATE>(preatt, inp, T, NH, HS, k_count);
}

// book:hide
template <bool ACCUMULATE>
__global__ void SHARED_BOUNDS shared_rows_scores(float *preatt, const float *__restrict__ inp,
                                                int B, int T, int NH, int HS, int k_count)
{
    shared_rows_body<SHARED_COPY_BEFORE, ACCUMULATE>(preatt, inp, B, T, NH, HS, k_count);
}

template <bool ACCUMULATE>
__global__ void SHARED_BOUNDS shared_rows_interleaved_scores(float *preatt,
                                                            const float *__restrict__ inp, int B,
                                                            int T, int NH, int HS, int k_count)
{
    shared_rows_body<SHARED_COPY_INTERLEAVED, ACCUMULATE>(preatt, inp, B, T, NH, HS, k_count);
}

/* T in whole tiles, HS in whole chunks, and HS values of k of two tiles (steps 1-3) or three
 * (steps 4 and 5) in shared memory. */
static inline int shared_refuses_tiles(triangle_size size, char *why, size_t capacity,
                                       const char *tiles)
{
    if (size.T % SHARED_TILE != 0)
        snprintf(why, capacity, "T must be a multiple of %d", SHARED_TILE);
    else if (size.HS % SHARED_CHUNK != 0)
        snprintf(why, capacity, "HS = C/NH = %d must be a multiple of %d (copies in chunks of %d)",
                 size.HS, SHARED_CHUNK, SHARED_CHUNK);
    else if (size.HS > SHARED_MAX_HS)
        snprintf(why, capacity, "HS = C/NH = %d must be at most %d (%s in shared memory)", size.HS,
                 SHARED_MAX_HS, tiles);
    else
        return 0;
    return 1;
}

/* Steps 1-3 use one grid layer per head. */
static inline int shared_whole_refuses(triangle_size size, char *why, size_t capacity)
{
    if (shared_refuses_tiles(size, why, capacity, "both tiles whole"))
        return 1;
    if ((long)size.B * size.NH > 65535) {
        snprintf(why, capacity, "B*NH must be at most 65535 (one grid layer per head)");
        return 1;
    }
    return 0;
}

static inline int shared_rows_refuses(triangle_size size, char *why, size_t capacity)
{ return shared_refuses_tiles(size, why, capacity, "a query tile and two key tiles"); }

typedef void (*shared_kernel_function)(float *, const float *, int, int, int, int, int);
// book:show

/*md
## Launching them

A tile pair of steps 1-3 takes $2 \times HS \times 132 \times 4$ bytes,
steps 4 and 5's three tiles half as much again: 99 KB at $HS = 64$, 198 KB
at $HS = 128$. A card has less shared memory per block than the H200's
227 KB: 163 KB on the A100, 99 KB on the RTX 30 and 40 series and the L4,
64 KB on the T4. Where the tiles of all of $k$ do not fit, the launcher
splits $k$: it runs the kernel once per part of $k$ that fits, each launch
adding its sums to the scores the one before stored (`ACCUMULATE`), since
a sum over $k$ is the sum of the sums over its parts. Each part after the
first reads and writes the scores once more, so a card that must split
pays in memory traffic; on the H200 one launch holds every $HS$ up to 128.
*/

/* Values of k one launch holds on this card: `tiles` tiles of rows `stride` floats. */
static inline int shared_k_per_launch(int HS, int tiles, int stride)
{
    return split_k_count(HS, SHARED_CHUNK, (size_t)tiles * stride * sizeof(float), 0,
                                 gpu_query().shared_per_block_optin);
}

/* Launches `first` for the first part of k, `accumulating` (ACCUMULATE) for the others. */
static inline void shared_launch_parts(const triangle_args *args, shared_kernel_function first,
                                       shared_kernel_function accumulating, dim3 grid, int tiles,
                                       int stride)
{
    const triangle_size s = args->size;
    const int held = shared_k_per_launch(s.HS, tiles, stride);
    for (int k = 0; k < s.HS; k += held) {
        const int count = s.HS - k < held ? s.HS - k : held;
        const shared_kernel_function kernel = k == 0 ? first : accumulating;
        const size_t bytes = (size_t)tiles * count * stride * sizeof(float);
        gpu_allow_shared_memory((const void *)kernel, bytes);
        kernel<<<grid, SHARED_THREADS, bytes, args->stream>>>(args->preatt, args->inp + k, s.B,
                                                               s.T, s.NH, s.HS, count);
        LAUNCH_CHECK();
    }
}

// book:hide
static inline void shared_launch_whole(const triangle_args *args, shared_kernel_function first,
                                       shared_kernel_function accumulating, int step)
{
    const int tiles = args->size.T / SHARED_TILE;
    const dim3 grid(tiles, tiles, args->size.B * args->size.NH);
    shared_launch_parts(args, first, accumulating, grid, 2, shared_row_floats(step));
}

static inline void shared_launch_rows(const triangle_args *args, shared_kernel_function first,
                                      shared_kernel_function accumulating)
{
    const triangle_size s = args->size;
    shared_launch_parts(args, first, accumulating, dim3(s.T / SHARED_TILE * s.B * s.NH), 3,
                        SHARED_TILE + SHARED_PAD);
}

/* One launcher per step, as the list of contenders names them. */
static inline void shared_staged_launch(const triangle_args *args)
{ shared_launch_whole(args, shared_staged_scores<false>, shared_staged_scores<true>, SHARED_STAGED); }
static inline void shared_padded_launch(const triangle_args *args)
{ shared_launch_whole(args, shared_padded_scores<false>, shared_padded_scores<true>, SHARED_PADDED); }
static inline void shared_launch(const triangle_args *args)
{ shared_launch_whole(args, shared_scores<false>, shared_scores<true>, SHARED_ASYNC); }
static inline void shared_rows_launch(const triangle_args *args)
{ shared_launch_rows(args, shared_rows_scores<false>, shared_rows_scores<true>); }
static inline void shared_rows_interleaved_launch(const triangle_args *args)
{ shared_launch_rows(args, shared_rows_interleaved_scores<false>, shared_rows_interleaved_scores<true>); }

/* Whether one chunk of k of the tiles fits: on every card the workbook
 * serves it does (17 to 25 KB), but the check costs nothing. */
static inline int shared_unfit_tiles(triangle_size size, const gpu_info *gpu, char *why,
                                     size_t capacity, int tiles, int stride)
{
    const size_t bytes = (size_t)tiles * SHARED_CHUNK * stride * sizeof(float);
    (void)size;
    return gpu_lacks_shared_memory(gpu, bytes, "one chunk of k of the tiles", why, capacity);
}
static inline int shared_whole_unfit(triangle_size size, const gpu_info *gpu, char *why,
                                     size_t capacity)
{ return shared_unfit_tiles(size, gpu, why, capacity, 2, SHARED_TILE + SHARED_PAD); }
static inline int shared_rows_unfit(triangle_size size, const gpu_info *gpu, char *why,
                                    size_t capacity)
{ return shared_unfit_tiles(size, gpu, why, capacity, 3, SHARED_TILE + SHARED_PAD); }

// book:show

/*md
## Two floors, and where we stand

Chapter 1 counted the floors at the default size: on the {{gpu|shared|B=8 T=1024 C=768 NH=12}},
{{floor_fp32_ms|shared|B=8 T=1024 C=768 NH=12}} ms of FP32 multiply-adds (an eighth more for the whole
diagonal tiles our kernels compute) and {{floor_memory_ms|shared|B=8 T=1024 C=768 NH=12}} ms of memory
traffic (252 MB at {{card_memory_tbs|shared|B=8 T=1024 C=768 NH=12}} TB/s). The floor of
{{larger_floor|shared|B=8 T=1024 C=768 NH=12}} is the larger. Each step at the default size, on the {{gpu|shared|B=8 T=1024 C=768 NH=12}}:

| kernel | what changed | median ms |
|---|---|---|
| vectorized | chapter 4 | {{median_ms|vectorized|B=8 T=1024 C=768 NH=12}} |
| shared+staged | tiles in shared memory, 16-way bank conflicts on the copy | {{median_ms|shared+staged|B=8 T=1024 C=768 NH=12}} |
| shared+padded | padded rows, conflict-free copy | {{median_ms|shared+padded|B=8 T=1024 C=768 NH=12}} |
| shared | `cp.async` in chunks of 16 | {{median_ms|shared|B=8 T=1024 C=768 NH=12}} |
| shared+rows | a block per row of tiles, the next key tile copied during this one | {{median_ms|shared+rows|B=8 T=1024 C=768 NH=12}} |
| shared+rows+interleaved | 4 x 8 warps, copies between the values of $k$, stores without tests | {{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} |
| cublas-rows | chapter 1's fastest FP32 champion: only the keys each block of rows sees | {{median_ms|cublas-rows|B=8 T=1024 C=768 NH=12}} |
| cublas-tf32 | the race's baseline: cuBLAS on the tensor cores, in TF32 | {{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} |

Step 5 reaches {{gflops|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} useful GFLOP/s,
{{peak_pct|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}}% of the FP32 peak, and moves
{{gbps|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} GB/s of compulsory traffic; at $T =
4096$ it takes {{median_ms|shared+rows+interleaved|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|cublas-rows|B=8 T=4096 C=768 NH=12}} ms for `cublas-rows`, the fastest FP32
champion. At the default size it runs at
{{speedup|shared+rows+interleaved|cublas-tf32|B=8 T=1024 C=768 NH=12}} times the
speed of the baseline, `cublas-tf32`, which computes on the tensor cores; the table
gives `cublas-rows`'s time beside it.

Where does the rest of the peak go? One instruction in six is not a
multiply-add (shared-memory reads, copies, addresses, the scaling and the
stores, amortised over only 64 values of $k$ per tile): issuing on every
cycle of every scheduler, step 5 would still take six fifths of the
time of its multiply-adds alone (at the FP32 peak, at least
{{floor_fp32_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} ms for the dense work,
a little more with the diagonal tiles' masked half). And on more than a quarter of the cycles no
warp is ready to issue, most often behind the 64 `cp.async` per thread that
start each row, then on shared-memory reads, stores and barriers. No single
limit is left: the multiply-add pipe, the shared-memory pipe and the issue
slots are each busy on about two cycles in three. Closing the gap with
plain FP32 takes control over the order of the machine instructions, which
CUDA C leaves to the compiler; chapter 8 takes the other road, the tensor
cores.

cuBLAS is beaten on a problem it was not told about: even `cublas-rows`,
told as much of the mask as dense products can be, pays for the permute and
for $T / 128$ separate products. A kernel that knows the mask, the layout
and the sizes skips all of that. The race so far, against the FP32 floor:

{{figure|race-chapter5}}
*/
