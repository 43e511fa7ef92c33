// chapters/04-vectorized/vectorized.cuh - Chapter 4: 16-byte loads and coalesced stores.
//
// Build, check and time it from the repository root:
//
//   make chapter4                     # B=8 T=1024 C=768 NH=12: checked, then timed
//   build/chapter4 T=256 --check-only

/*md
# Vectorized: ask for memory the way it is served

## Does the shape of a warp's loads matter as much as their number?

Chapter 3 cut the number of loads by eight and found that the loads it kept
are expensive for another reason: the addresses that the 32 threads of a
warp present together. This chapter is about that shape, and about the
width of each access.

## How a warp's access is served

A warp issues one load instruction for its 32 threads. The memory system
does not fetch 32 separate floats: it works in sectors (chapter 2), 32
aligned bytes each (four of them make a 128-byte cache line), and it serves the
instruction by gathering every sector that any of the 32 addresses falls
in. When the 32 threads read 32 consecutive floats, that is 4 sectors and
every byte fetched is used: the access is *coalesced*. When they read 32
floats that lie far apart, it is 32 sectors, and 28 bytes of each are
fetched for nothing (they may stay in the L1 cache for a later instruction,
but the cost of handling 32 sectors is paid now).

In chapter 3 a warp is two rows of the thread block, $16 \times 2$ threads.
At a step $k$ it loads, for one of its 8 key rows, the float $K_{j,k}$ for
16 different keys $j$, 8 tokens apart (thread `tx` owns keys $8\,tx$ to
$8\,tx + 7$), the 73,728 bytes apart that chapter 2 found: the load
touches 16 sectors to use 4 bytes of each, 64 useful bytes out of 512. Its stores are worse: for
one of its 64 scores, each thread writes one float, 32 bytes away from its
neighbour's, in two rows: 32 sectors written 4 bytes at a time.

## Two changes

**16-byte loads.** Along the head dimension a query or key is contiguous:
64 floats, 256 bytes. So a thread can load four consecutive values
$K_{j,k..k+3}$ with one `float4` load of 16 bytes instead of four loads of
4. The instruction count drops by four, and so does the number of sectors
handled, since each sector now serves 16 useful bytes instead of 4. The
loads stay scattered across rows: no arrangement of independent threads can
make neighbours read neighbouring keys, because each thread needs its own
rows. That takes cooperation between threads, which is chapter 5.

**Coalesced 16-byte stores.** The output is where neighbouring threads *can*
write neighbouring addresses: the scores of one query row are contiguous.
In chapter 3 a thread owns 8 consecutive columns, so thread `tx` writes at
columns $8\,tx, \ldots, 8\,tx + 7$ and two neighbours are 32 bytes apart. Here
a thread owns two runs of 4 columns: $4\,tx, \ldots, 4\,tx + 3$ and
$64 + 4\,tx, \ldots, 64 + 4\,tx + 3$. Each run is one `float4` store, and the
16 threads of a row write 16 consecutive `float4`s, 256 contiguous bytes. One
warp store now writes 16 whole sectors; in chapter 3 it wrote 4 bytes into
each of 32.

{{figure|warp-sectors}}

Per thread and per 4 steps of $k$, at $HS = 64$:

| | chapter 3 | chapter 4 |
|---|---|---|
| load instructions | 64 (4-byte) | 16 (16-byte) |
| sectors touched per warp | 576 | 144 |
| useful bytes per key-load sector | 4 of 32 | 16 of 32 |
| store instructions, whole kernel | 64 (4-byte) | 16 (16-byte) |
| useful bytes per sector stored | 4 of 32 | 32 of 32 |

The rows of the table count what each warp asks of the memory system.
Sectors touched per warp: 8 query loads touching 2 sectors each and 8 key
loads touching 16, per step of $k$ in chapter 3 and per four steps here.

A `float4` access must be 16-byte aligned. The queries and keys of a head
start at float offsets that are multiples of 4 when $HS$ (and therefore
$C$ and $3C$) is a multiple of 4, and every output row starts at a multiple
of $T$ floats; so this kernel refuses an $HS$ that is not a multiple of 4
(and, like the earlier ones, a $T$ that is not a multiple of 128).
*/

#pragma once
#include <math.h>

#include "problems/triangle.h"

/*md
## The kernel

The loop over $k$ now steps by 4. At each step a thread loads its 8 query
rows as 8 `float4`s and keeps them (32 registers), then takes its key
columns one run at a time: 4 `float4`s (16 registers), each adding four
products into the 8 sums of its column. The running sums stay where chapter
3 put them: 64 registers.

Registers are now the scarce resource. Two blocks of 256 threads per
multiprocessor leave each thread 128 of the 65,536 registers, and
`__launch_bounds__(256, 2)` holds the compiler to that. Within it go the 64
sums, 32 query values, 16 key values, the addresses, and the loads the
compiler starts early to hide their latency. Written with all 8 keys
loaded at once, the kernel needs a few registers more: the compiler then
*spills* some values to local memory (`make ptxas` reports the bytes),
which we do not allow. Loading the keys one run at a time, stepping $k$
one step per loop iteration, and computing the scale $1/\sqrt{HS}$ once on
the host (its division has a slow path that wants registers too) bring it
to exactly 128 registers and no spill. Without the bound the compiler takes
close to 200 registers, and then only one block fits on a multiprocessor.
Where a thread's rows and columns start is computed by two small
`__host__ __device__` functions that the kernel calls, `vectorized_first_query`
and `vectorized_first_key`, and the figure of the sectors is drawn from them
and from chapter 3's.
*/

#define VECTORIZED_TILE 128        /* scores per block side */
#define VECTORIZED_THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */
#define VECTORIZED_RUN 4           /* columns per float4 */
#define VECTORIZED_RUN_GAP 64      /* a thread's second run of 4 columns starts this far right */
static_assert(VECTORIZED_TILE / VECTORIZED_THREAD_TILE == 16, "16 x 16 threads");
static_assert(VECTORIZED_THREAD_TILE == 2 * VECTORIZED_RUN, "8 columns a thread: two runs of 4");
static_assert(VECTORIZED_RUN_GAP == VECTORIZED_TILE / 2,
              "the 16 threads of a row cover the first half of the tile with their first runs");

/* The first query row of thread (tx, ty)'s 8 rows, and the first key of its
 * first run of 4 columns (the second starts VECTORIZED_RUN_GAP further). */
__host__ __device__ __forceinline__ int vectorized_first_query(unsigned ty, unsigned tile_row)
{
    return tile_row * VECTORIZED_TILE + ty * VECTORIZED_THREAD_TILE;
}

__host__ __device__ __forceinline__ int vectorized_first_key(unsigned tx, unsigned tile_col)
{
    return tile_col * VECTORIZED_TILE + tx * VECTORIZED_RUN;
}

__device__ __forceinline__ float4 load_float4(const float *address)
{
    return *reinterpret_cast<const float4 *>(address);
}

/*md
The kernel keeps chapter 3's shape: a tile skipped above the diagonal, a
thread's 8 rows and two runs of 4 columns, the 64 sums.
*/

// book:changes chapters/03-registers/registers.cuh registers_scores
static __global__ void __launch_bounds__(256, 2)
vectorized_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS, float scale)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = vectorized_first_query(threadIdx.y, blockIdx.y);
    const int first_key = vectorized_first_key(threadIdx.x, blockIdx.x);
    if (first_key > first_query + VECTORIZED_THREAD_TILE - 1)
        return; /* both runs of columns lie above the diagonal */

    const int row_stride = 3 * C; /* the program refuses inputs of 2^31 floats or more */
    const float *queries = inp + ((size_t)b * T + first_query) * row_stride + h * HS;
    const float *keys = inp + ((size_t)b * T + first_key) * row_stride + C + h * HS;

    float sum[VECTORIZED_THREAD_TILE][VECTORIZED_THREAD_TILE] = {};
#pragma unroll 1 /* one step at a time: the registers are all spoken for */
    for (int k = 0; k < HS; k += 4) {
        float4 query[VECTORIZED_THREAD_TILE];
#pragma unroll
        for (int r = 0; r < VECTORIZED_THREAD_TILE; r++)
            query[r] = load_float4(queries + r * row_stride + k);
#pragma unroll
        for (int run = 0; run < 2; run++) {
            float4 key[VECTORIZED_RUN];
#pragma unroll
            for (int c = 0; c < VECTORIZED_RUN; c++)
                key[c] = load_float4(keys + (c + run * VECTORIZED_RUN_GAP) * row_stride + k);
#pragma unroll
            for (int c = 0; c < VECTORIZED_RUN; c++)
#pragma unroll
                for (int r = 0; r < VECTORIZED_THREAD_TILE; r++) {
                    float *s = &sum[r][run * VECTORIZED_RUN + c];
                    *s = fmaf(query[r].x, key[c].x, *s);
                    *s = fmaf(query[r].y, key[c].y, *s);
                    *s = fmaf(query[r].z, key[c].z, *s);
                    *s = fmaf(query[r].w, key[c].w, *s);
                }
        }
    }

    /*md
And the stores, a `float4` where chapter 3 wrote four floats:
    */
    /* One float4 per run and per row. On a diagonal tile a run is written
     * when its first column is kept (j <= i); its other columns may then be
     * masked ones, which is allowed and cheaper than splitting the store. */
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < VECTORIZED_THREAD_TILE; r++) {
        const int i = first_query + r;
#pragma unroll
        for (int run = 0; run < 2; run++) {
            const int j = first_key + run * VECTORIZED_RUN_GAP;
            const float *s = &sum[r][run * VECTORIZED_RUN];
            if (j <= i)
                *reinterpret_cast<float4 *>(&scores[(size_t)i * T + j]) =
                    make_float4(s[0] * scale, s[1] * scale, s[2] * scale, s[3] * scale);
        }
    }
}

/*md
## Launching it

The grid is chapter 2's. The refusals add the alignment condition of the
16-byte accesses.
*/

// book:changes chapters/03-registers/registers.cuh registers_refuses
static inline int vectorized_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % VECTORIZED_TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", VECTORIZED_TILE);
        return 1;
    }
    if (size.HS % 4 != 0) {
        snprintf(why, capacity, "HS = C/NH = %d must be a multiple of 4 (16-byte loads)", size.HS);
        return 1;
    }
    if ((long)size.B * size.NH > 65535) {
        snprintf(why, capacity, "B*NH must be at most 65535 (one grid layer per head)");
        return 1;
    }
    return 0;
}

// book:changes chapters/03-registers/registers.cuh registers_launch
static inline void vectorized_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / VECTORIZED_TILE, s.T / VECTORIZED_TILE, s.B * s.NH);
    dim3 block(VECTORIZED_TILE / (2 * VECTORIZED_RUN), VECTORIZED_TILE / VECTORIZED_THREAD_TILE);
    vectorized_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS,
                                                            (float)(1.0 / sqrt((double)s.HS)));
    LAUNCH_CHECK();
}

/*md
## The race so far

At the default size, on the {{gpu|vectorized|B=8 T=1024 C=768 NH=12}}:

| kernel | median ms |
|---|---|
| naive | {{median_ms|naive|B=8 T=1024 C=768 NH=12}} |
| registers | {{median_ms|registers|B=8 T=1024 C=768 NH=12}} |
| vectorized | {{median_ms|vectorized|B=8 T=1024 C=768 NH=12}} |
| `cublas-rows`, the fastest FP32 champion | {{median_ms|cublas-rows|B=8 T=1024 C=768 NH=12}} |
| `cublas-tf32`, the baseline | {{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} |

The vectorized kernel runs at
{{speedup|vectorized|cublas-tf32|B=8 T=1024 C=768 NH=12}} times the
baseline's speed:

{{figure|race-chapter4}}

The vectorized kernel reaches {{gflops|vectorized|B=8 T=1024 C=768 NH=12}}
useful GFLOP/s. What is left between it and the floor of
{{floor_fp32_ms|vectorized|B=8 T=1024 C=768 NH=12}} ms is, again,
the loads: each thread still fetches every one of its operands from the
memory system by itself, although the 16 threads of a block row all need
the same 8 query rows and the 16 threads of a block column the same 8 key
rows. A block of 256 threads loads $256 \times 16 \times 64 = 262{,}144$
floats, one megabyte, to compute one $128 \times 128$ tile whose operands
are $2 \times 128 \times 64$ floats, 64 KB. Chapter 5 loads those 64 KB
once per block, into shared memory, with all the threads cooperating on
loads that are coalesced on the read side too.
*/
