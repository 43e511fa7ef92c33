// chapters/02-naive/naive.cuh - Chapter 2: the naive kernel.
//
// Build, check and time it from the repository root:
//
//   make chapter2                     # B=8 T=1024 C=768 NH=12: checked, then timed
//   build/chapter2 T=256 --check-only

/*md
# Naive: a block per tile, a thread per patch

## How fast is the plainest kernel that knows the mask?

Chapter 1 set the race: cuBLAS computes every one of the $T \times T$ scores
of each head, and so does twice the work the causal mask asks for. Our first
contender knows about the mask and nothing else. It is as plain as a kernel
can be, and it is the baseline every later chapter improves on. Knowing
the mask halves the arithmetic: is that enough to beat cuBLAS, and if not,
what does the plainest kernel lose its time to?

## The plan

The kernel covers the triangle as chapter 1 drew it: square tiles of
$128 \times 128$ scores, one block each, and a block above the diagonal
returns before it reads a byte.

Inside a block, $16 \times 16 = 256$ threads share the tile: each thread owns
an $8 \times 8$ patch of it, 64 scores. Why not one thread per score? Because
the later chapters will need each thread to own several scores to reuse the
values it loads, and it is easier to follow the story if the mapping of
threads to scores stays the same from here to chapter 5.

The hardware does not run the 256 threads one by one: it runs them in
*warps*, groups of 32 threads of consecutive index (`threadIdx.x` varying
fastest, so here two rows of 16 threads of the block), each warp issuing
one instruction for all its threads at once. Blocks, warps and the
memories they read are the foundations this book builds on; Hwu, Kirk and
El Hajj teach them from the ground up [@hwu2022pmpp], and the CUDA
programming guide specifies them [@cuda-guide].

{{figure|thread-patches}}

Each thread then computes its 64 scores one after another, each as a dot
product of a query row and a key row read straight from global memory.
Nothing is shared and nothing is kept: for every score the thread reads
$2 \times HS$ floats. That is the weakness chapter 3 attacks.
*/

#pragma once
#include <math.h>

#include "problems/triangle.h"

/*md
## The kernel

The grid is $(T/128) \times (T/128) \times (B \cdot NH)$: `blockIdx.x` picks
the tile's column (keys), `blockIdx.y` its row (queries), `blockIdx.z` the
sequence and head. The packed input keeps, for token $t$ of sequence $b$,
the query of head $h$ at `inp[((b*T + t)*3 + 0)*C + h*HS]` and its key one
$C$ further on. Which tiles have work and which scores a thread owns are
small `__host__ __device__` functions that the kernel calls, and the
figures of this chapter and of chapter 1 are drawn from those very
functions.
*/

#define NAIVE_TILE 128        /* scores per block side */
#define NAIVE_THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */
static_assert(NAIVE_TILE == 16 * NAIVE_THREAD_TILE,
              "the threads' patches cover the tile once: 16 x 16 threads");

/* The tile in tile column `tile_col` (keys), tile row `tile_row` (queries)
 * lies wholly above the diagonal: every score in it is masked. */
__host__ __device__ __forceinline__ bool naive_tile_masked(unsigned tile_col, unsigned tile_row)
{
    return tile_col > tile_row;
}

/* Score (i, j) is masked: key j comes after query i. */
__host__ __device__ __forceinline__ bool naive_score_masked(int i, int j)
{
    return j > i;
}

/* The first query row and the first key of the 8 x 8 patch of thread (tx, ty)
 * of the block of tile (tile_row, tile_col). */
__host__ __device__ __forceinline__ int naive_first_query(unsigned ty, unsigned tile_row)
{
    return tile_row * NAIVE_TILE + ty * NAIVE_THREAD_TILE;
}

__host__ __device__ __forceinline__ int naive_first_key(unsigned tx, unsigned tile_col)
{
    return tile_col * NAIVE_TILE + tx * NAIVE_THREAD_TILE;
}

static __global__ void naive_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    if (naive_tile_masked(blockIdx.x, blockIdx.y))
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = naive_first_query(threadIdx.y, blockIdx.y);
    const int first_key = naive_first_key(threadIdx.x, blockIdx.x);
    const float scale = 1.0f / sqrtf((float)HS);

    const float *queries = inp + (size_t)b * T * 3 * C + h * HS;
    const float *keys = queries + C;
    float *scores = preatt + (size_t)blockIdx.z * T * T;

    for (int i = first_query; i < first_query + NAIVE_THREAD_TILE; i++) {
        for (int j = first_key; j < first_key + NAIVE_THREAD_TILE; j++) {
            if (naive_score_masked(i, j))
                continue; /* masked: never read, never written */
            const float *query = queries + (size_t)i * 3 * C;
            const float *key = keys + (size_t)j * 3 * C;
            float dot = 0.0f;
            for (int k = 0; k < HS; k++) {
                dot += query[k] * key[k];
            }
            scores[(size_t)i * T + j] = dot * scale;
        }
    }
}

/*md
## Launching it

The launcher only does arithmetic on the grid. The one size it cannot
handle is a $T$ that is not a multiple of the tile: the kernel has no bounds
checks, so `naive_refuses` turns such a size away before anything runs.
*/

static inline int naive_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % NAIVE_TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", NAIVE_TILE);
        return 1;
    }
    return 0;
}

static inline void naive_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / NAIVE_TILE, s.T / NAIVE_TILE, s.B * s.NH);
    dim3 block(NAIVE_TILE / NAIVE_THREAD_TILE, NAIVE_TILE / NAIVE_THREAD_TILE);
    naive_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

/*md
## The race so far

At the default size, on the {{gpu|naive|B=8 T=1024 C=768 NH=12}}, the naive
kernel takes {{median_ms|naive|B=8 T=1024 C=768 NH=12}} ms, against
{{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} ms for `cublas-tf32`, the
race's baseline, and {{median_ms|cublas-rows|B=8 T=1024 C=768 NH=12}} ms for
`cublas-rows`, cuBLAS in FP32 knowing the mask too. Knowing the mask saved
half the arithmetic, and we lost the race by more than an order of
magnitude anyway: the naive kernel runs at
{{speedup|naive|cublas-tf32|B=8 T=1024 C=768 NH=12}} times the baseline's
speed.

{{figure|race-chapter2}}

Why?

Count what one score costs. Its dot product does $2 \cdot 64 = 128$
floating-point operations and loads $2 \cdot 64$ floats, 512 bytes: a
quarter of an operation per byte. That ratio, operations per byte moved,
is a kernel's *arithmetic intensity*, and it decides which of the GPU's
two limits the kernel meets first: the {{gpu|naive|B=8 T=1024 C=768 NH=12}} does
{{card_fp32_tflops|naive|B=8 T=1024 C=768 NH=12}} TFLOP/s of FP32
arithmetic and moves about {{card_memory_tbs|naive|B=8 T=1024 C=768 NH=12}} TB/s, so it
needs about {{card_balance|naive|B=8 T=1024 C=768 NH=12}} operations per
byte of device memory traffic to keep its FP32 units busy; below that, the
kernel waits for bytes. The caches rescue us from the worst of it, since
neighbouring threads read the same rows, but not from all of it: every
multiply-add still waits for two loads, and the loads themselves are
scattered. Thread `tx` starts at key row $8\,tx$ of its tile, so the 16
threads of a warp's row read 16 key rows 8 tokens apart, $8 \times 3C$
floats (73,728 bytes at $C = 768$) from one to the next. Memory serves a
load in *sectors*, aligned pieces of 32 bytes, so this one load
instruction touches 16 sectors to use 4 bytes of each (chapter 4 counts
what that costs).

Chapter 3 attacks the first problem: a thread that owns an $8 \times 8$
patch of scores needs only 8 query rows and 8 key rows, not 64 of each.
*/
