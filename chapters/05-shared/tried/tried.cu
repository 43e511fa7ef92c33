// chapters/05-shared/tried/tried.cu - Chapter 5's roads not taken: the shared-memory kernels
// that were built, checked and measured, and not kept.
//
// Build, check and time them from the repository root:
//
//   make build/chapter5-tried && build/chapter5-tried   # raced against step 5 and the champions
//   build/chapter5-tried --kernel shared+persistent T=4096
//
// It includes the chapter's header, whose helpers the variants use; build/chapter5-tried
// links the chapter's own object too, for step 5, which the variants race.

/*md
# Shared memory: the roads not taken

Chapter 5 kept five steps. Three more kernels were built on the way,
checked like the others and measured, and lost; they live here, raced by
`build/chapter5-tried` against the chapter's best and the champions. Each
reuses the chapter's copies, multiply loop and stores. On
{{gpu|shared+persistent|B=8 T=1024 C=768 NH=12}}, at $B = 8$, $C = 768$, $NH = 12$:

| kernel | what it tried | ms, $T = 1024$ | ms, $T = 4096$ |
|---|---|---|---|
| shared | chapter 5, step 3 | {{median_ms|shared|B=8 T=1024 C=768 NH=12}} | {{median_ms|shared|B=8 T=4096 C=768 NH=12}} |
| shared+persistent | persistent blocks, a ring of 6 chunks | {{median_ms|shared+persistent|B=8 T=1024 C=768 NH=12}} | {{median_ms|shared+persistent|B=8 T=4096 C=768 NH=12}} |
| shared+triangle | step 3 on the lower triangle of tiles, streaming stores | {{median_ms|shared+triangle|B=8 T=1024 C=768 NH=12}} | {{median_ms|shared+triangle|B=8 T=4096 C=768 NH=12}} |
| shared+quads | 16-byte copies into tiles of k-quads | {{median_ms|shared+quads|B=8 T=1024 C=768 NH=12}} | {{median_ms|shared+quads|B=8 T=4096 C=768 NH=12}} |
| shared+rows+interleaved | chapter 5, step 5 | {{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} | {{median_ms|shared+rows+interleaved|B=8 T=4096 C=768 NH=12}} |
*/

// book:hide
#include "../shared.cuh"
// book:show

/*md
## A pipeline that never stops: `shared+persistent`

Step 3 leaves time on the table. Every block starts by waiting for its
first chunk to come from memory and ends by waiting for its stores to
leave, and a block lives for a short time: it multiplies only 64 values of
$k$ before it is done. The profiler (`make profile CH=5`) shows the
multiprocessors issuing an instruction on only about two cycles in three.
The prediction: overlap those waits with work, and most of that third comes
back.

The persistent kernel turns the grid around. It launches only as many
blocks as fit on the GPU at once (two per multiprocessor, 264 on an H200;
the launcher asks the runtime), and each block walks through a list of
tiles: block $b$ takes tiles $b$, $b + 264$, $b + 528$, ... of all the
heads' lower triangles. The copies of the next tile run while the current
one is multiplied.

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
$y$, the largest with $y(y+1)/2 \le t$, and column $x = t - y(y+1)/2$
(`triangle_place_tile`, in `common/problems/triangle.h`); the 28 blocks per head
that exit at once in the square grid ($T = 1024$) are never launched. And
the stores stream: the output, 201.5 MB of kept scores at the default size,
is three times the L2 cache and nothing reads it during the kernel, so
`__stcs` ("cache streaming") marks each written line as the first to
evict, to keep the queries and keys in the L2.
*/

/* The tile that number `work` of the list is: head-major, then the lower
 * triangle of tiles row by row. */
__device__ __forceinline__ void shared_place_tile(int work, int triangle, int *head, int *tile_row,
                                                  int *tile_col)
{
    *head = work / triangle;
    triangle_place_tile(work - *head * triangle, tile_row, tile_col);
}

/* A store for the chapter's shared_store_tile that streams: st.global.cs,
 * evict first. */
__device__ __forceinline__ void shared_stream_float4(float4 *destination, float4 v)
{
    __stcs(destination, v);
}

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

__device__ __forceinline__ void shared_persistent_body(float *preatt, const float *inp, int B,
                                                       int T, int NH, int HS)
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
    const size_t source = shared_copy_source(threadIdx.x, row_stride);
    const int destination = shared_copy_destination<stride>(threadIdx.x);

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
        shared_store_tile<4, 64, false, shared_stream_float4>(
            preatt + (size_t)head * T * T, sum, T, tile_row, tile_col, row_a, col_a, scale);
    }
}

__global__ void SHARED_BOUNDS shared_persistent_scores(float *preatt,
                                                       const float *__restrict__ inp, int B, int T,
                                                       int NH, int HS)
{
    shared_persistent_body(preatt, inp, B, T, NH, HS);
}

/*md
Measured, the prediction was wrong: the persistent kernel is slower than
step 3 at every size in the table. The profiler shows it issuing on fewer
cycles than step 3, with more warps waiting at the barrier of each chunk
and on their copies. Our reading: with two independent blocks per
multiprocessor, the hardware was already hiding one block's start and end
behind the other block's multiplications, so there was less idle time to
recover than we counted; the ring, in exchange, ties every chunk of every
tile to a barrier and adds bookkeeping. A version with compact
$32 \times 64$ warp tiles, which lets the two warps of a diagonal tile that
hold no kept score skip their work, was slower still and is not kept.
Chapter 5's step 4 keeps the useful half of the idea, blocks that live longer,
without the ring.

## The triangle alone: `shared+triangle`

The persistent kernel changed several things at once. Two of them can be
tried on step 3 alone: launch only the lower triangle of tiles (36 blocks
per head instead of 64 at the default size, placed as above) and stream
the stores. That is `shared+triangle`, and it is slower than step 3 too.
The two changes were measured together, so we cannot say which of them
costs. One reading, not checked: in the square grid the blocks above the
diagonal exit at once, which puts the two blocks of a multiprocessor out of
step, one multiplying while the other waits for its copies; a grid of full
blocks keeps them in step, waiting together.
*/

/* Step 3's body with its tile taken from the list of the lower triangle
 * (blockIdx.x) of head blockIdx.y, and streaming stores. */
__device__ __forceinline__ void shared_triangle_body(float *preatt, const float *inp, int T, int NH,
                                                     int HS)
{
    constexpr int stride = shared_row_floats(SHARED_ASYNC);
    extern __shared__ float4 shared_space[];
    float *query_tile = reinterpret_cast<float *>(shared_space); /* [HS][stride] */
    float *key_tile = query_tile + HS * stride;                  /* [HS][stride] */

    int head, tile_row, tile_col;
    const int tiles = T / SHARED_TILE;
    shared_place_tile(blockIdx.x, tiles * (tiles + 1) / 2, &head, &tile_row, &tile_col);
    head = blockIdx.y;
    const int C = NH * HS, b = head / NH, h = head % NH;
    const size_t row_stride = 3 * (size_t)C;
    const float *queries = inp + (size_t)b * T * row_stride + h * HS +
                           (size_t)tile_row * SHARED_TILE * row_stride;
    const float *keys = inp + (size_t)b * T * row_stride + C + h * HS +
                        (size_t)tile_col * SHARED_TILE * row_stride;
    const int chunks = HS / SHARED_CHUNK;

    const size_t source = shared_copy_source(threadIdx.x, row_stride);
    const int destination = shared_copy_destination<stride>(threadIdx.x);
    for (int chunk = 0; chunk < chunks; chunk++) {
        const int first = chunk * SHARED_CHUNK;
        shared_copy_chunk<stride>(query_tile + first * stride + destination,
                                  key_tile + first * stride + destination,
                                  queries + source + first, keys + source + first, row_stride);
        copy_async_commit();
    }

    const int row_a = 8 * (threadIdx.x / 16), col_a = 4 * (threadIdx.x % 16);
    float sum[SHARED_THREAD_TILE][SHARED_THREAD_TILE] = {};
    for (int chunk = 0; chunk < chunks; chunk++) {
        copy_async_wait_at_most(chunks - 1 - chunk);
        __syncthreads(); /* every thread's copies of this chunk have landed */
        shared_multiply_chunk<stride, 4, 64>(sum, query_tile + chunk * SHARED_CHUNK * stride,
                                             key_tile + chunk * SHARED_CHUNK * stride, row_a,
                                             col_a);
    }
    shared_store_tile<4, 64, false, shared_stream_float4>(
        preatt + (size_t)head * T * T, sum, T, tile_row, tile_col, row_a, col_a,
        1.0f / sqrtf((float)HS));
}

__global__ void SHARED_BOUNDS shared_triangle_scores(float *preatt, const float *__restrict__ inp,
                                                     int B, int T, int NH, int HS)
{
    shared_triangle_body(preatt, inp, T, NH, HS);
}

/*md
## Sixteen-byte copies into tiles of k-quads: `shared+quads`

This idea attacks the copies. Step 3's `cp.async` moves single floats
because it transposes: 64 copy instructions per thread and tile, each warp
instruction touching 4 rows of global memory. A 16-byte copy
(`copy_async_16`) moves 4 consecutive values of $k$ of one row, and they
arrive side by side. So keep them that way: a tile of *k-quads*,
`tile[HS/4][128][4]`, in which quad $q$ of row $n$ is one `float4`. Per
quad, a thread reads the 8 `float4`s of its query rows (4 values of $k$ for
each, 32 registers), then, one key column at a time, a `float4` and 32
multiply-adds: 16 reads per 256 multiply-adds, as in step 3. Each thread
issues 4 copies per chunk, 16 per tile instead of 64.

Two choices keep the banks free. Row $n$ of a quad goes to slot
$32 (n \bmod 4) + \lfloor n / 4 \rfloor$, so that a thread's four adjacent
columns $4 t_x + c$ lie 32 slots apart and the threads that read column $c$
read the consecutive slots $32 c + t_x$. And a warp is laid out as 4 rows
of 8 threads instead of 2 rows of 16: its query reads hit 4 `float4`s and
its key reads 8, one wavefront each, 4 per value of $k$ where step 3 needs
6. The copies land without conflicts too: the 8 threads of each quarter of
a warp write 8 consecutive slots.

The profiler confirms the banks: almost no conflicts are left. Yet
`shared+quads` is the slowest kernel of the table, well behind step 3, and
a version with the triangle grid on top was slower still. The machine code
of the loop shows the price of the layout. A quad of queries fills 32
registers, all needed by the first multiply-add of the quad; with the 64
sums and a key column beside them, the 128 registers that two blocks per
multiprocessor allow are gone. So the next quad's queries are loaded only a
few dozen instructions before they are used, into registers that the
current quad has just released, and the compiler adds register-to-register
moves to make room. Step 3's transposed tiles need 16 registers of operands
per value of $k$, few enough to fetch the next ones well ahead. Saving copy
instructions did not pay for losing that.
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
__device__ __forceinline__ void shared_multiply_quads(shared_patch &sum, const float *query_quad,
                                                      const float *key_quad)
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

    shared_store_tile<4, 64>(preatt + (size_t)head * T * T, sum, T, tile_row, tile_col,
                             8 * ty, 4 * tx, 1.0f / sqrtf((float)HS));
}

__global__ void SHARED_BOUNDS shared_quads_scores(float *preatt, const float *__restrict__ inp,
                                                  int B, int T, int NH, int HS)
{
    shared_quads_body(preatt, inp, T, NH, HS);
}

/*md
## Three roads not kept as kernels

Three more roads past step 5 were measured and not kept, not even here.

- *Skipping the masked warps.* On a diagonal tile some warps own only
  masked scores; letting them skip the tile removed one instruction in
  twenty-five and none of the time. A block keeps its place on the
  multiprocessor until its slowest warp is done, and those warps were never
  the slowest.
- *Chaining rows.* Letting each block of step 5 walk several rows of tiles,
  so that only its first row starts cold, cost more instructions in
  bookkeeping than the starts had cost in waiting.
- *Fewer threads with more work.* The textbook cure for a kernel that
  waits: half as many threads, each with a $16 \times 8$ patch in 205
  registers. It cut the shared-memory reads per multiply-add by a quarter
  and still lost: with two warps per scheduler, every barrier and every
  burst of copies shows.
*/

// book:hide
/* The ring holds chunks, not tiles: any HS in whole chunks. */
static int shared_persistent_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % SHARED_TILE != 0)
        snprintf(why, capacity, "T must be a multiple of %d", SHARED_TILE);
    else if (size.HS % SHARED_CHUNK != 0)
        snprintf(why, capacity, "HS = C/NH = %d must be a multiple of %d (copies in chunks of %d)",
                 size.HS, SHARED_CHUNK, SHARED_CHUNK);
    else
        return 0;
    return 1;
}

static void shared_launch_triangle(const triangle_args *args)
{
    const triangle_size s = args->size;
    const size_t bytes = 2 * (size_t)s.HS * shared_row_floats(SHARED_ASYNC) * sizeof(float);
    gpu_allow_shared_memory((const void *)shared_triangle_scores, bytes);
    const int tiles = s.T / SHARED_TILE;
    shared_triangle_scores<<<dim3(tiles * (tiles + 1) / 2, s.B * s.NH), SHARED_THREADS, bytes,
                             args->stream>>>(args->preatt, args->inp, s.B, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

/* Tiles of k-quads are not padded: 2 x HS x 128 floats. */
static void shared_launch_quads(const triangle_args *args)
{
    const triangle_size s = args->size;
    const size_t bytes = 2 * (size_t)s.HS * SHARED_TILE * sizeof(float);
    gpu_allow_shared_memory((const void *)shared_quads_scores, bytes);
    const int tiles = s.T / SHARED_TILE;
    shared_quads_scores<<<dim3(tiles, tiles, s.B * s.NH), SHARED_THREADS, bytes, args->stream>>>(
        args->preatt, args->inp, s.B, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

/* As many blocks as fit on the GPU at once, or fewer if there are fewer tiles. */
static void shared_launch_persistent(const triangle_args *args)
{
    static int resident_blocks = 0;
    const triangle_size s = args->size;
    const size_t bytes =
        (size_t)SHARED_SLOTS * 2 * SHARED_CHUNK * (SHARED_TILE + SHARED_PAD) * sizeof(float);
    gpu_allow_shared_memory((const void *)shared_persistent_scores, bytes);
    if (resident_blocks == 0) {
        int device, multiprocessors, per_multiprocessor;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(
            cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_multiprocessor, shared_persistent_scores, SHARED_THREADS, bytes));
        resident_blocks = (per_multiprocessor > 0 ? per_multiprocessor : 1) * multiprocessors;
    }
    const int tiles = s.T / SHARED_TILE;
    const long work = (long)tiles * (tiles + 1) / 2 * s.B * s.NH;
    const int blocks = work < resident_blocks ? (int)work : resident_blocks;
    shared_persistent_scores<<<blocks, SHARED_THREADS, bytes, args->stream>>>(
        args->preatt, args->inp, s.B, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

/* These variants hold both tiles of all of k; they do not split it (the
 * chapter's launcher does): on a card with less shared memory they are skipped. */
static int shared_triangle_unfit(triangle_size size, const gpu_info *gpu, char *why,
                                 size_t capacity)
{
    const size_t bytes = 2 * (size_t)size.HS * shared_row_floats(SHARED_ASYNC) * sizeof(float);
    return gpu_lacks_shared_memory(gpu, bytes, "both padded tiles of all of k", why, capacity);
}

static int shared_quads_unfit(triangle_size size, const gpu_info *gpu, char *why, size_t capacity)
{
    const size_t bytes = 2 * (size_t)size.HS * SHARED_TILE * sizeof(float);
    return gpu_lacks_shared_memory(gpu, bytes, "both tiles of all of k", why, capacity);
}

static int shared_persistent_unfit(triangle_size size, const gpu_info *gpu, char *why,
                                   size_t capacity)
{
    const size_t bytes =
        (size_t)SHARED_SLOTS * 2 * SHARED_CHUNK * (SHARED_TILE + SHARED_PAD) * sizeof(float);
    (void)size;
    return gpu_lacks_shared_memory(gpu, bytes, "the ring of chunks", why, capacity);
}

extern const triangle_kernel shared_persistent_kernel =
    {shared_persistent_refuses, shared_launch_persistent, shared_persistent_unfit};
extern const triangle_kernel shared_triangle_kernel =
    {shared_whole_refuses, shared_launch_triangle, shared_triangle_unfit};
extern const triangle_kernel shared_quads_kernel =
    {shared_whole_refuses, shared_launch_quads, shared_quads_unfit};
// book:show
