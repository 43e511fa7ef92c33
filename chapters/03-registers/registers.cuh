// chapters/03-registers/registers.cuh - Chapter 3: keep what you load, in registers.
//
// Build, check and time it from the repository root:
//
//   make chapter3                     # B=8 T=1024 C=768 NH=12: checked, then timed
//   build/chapter3 T=256 --check-only

/*md
# Registers: use a value more than once

## What does a thread gain by using each value it loads eight times?

The naive kernel of chapter 2 gave each thread an $8 \times 8$ patch of
scores, and then computed the 64 scores of the patch as 64 unrelated dot
products. Look at what one thread loads. Score $(i, j)$ needs query row $i$
and key row $j$, $2 \cdot HS = 128$ floats. The patch has 8 query rows and 8
key rows, so between them its 64 scores need only $16 \times 64 = 1024$
distinct floats, yet the naive thread loads $64 \times 128 = 8192$. Every
value it fetches is fetched eight times. If each thread loaded each value
once and used it eight times, how much faster would the kernel run, and
what would stop it then?

## The outer product

The main change of this chapter is the order of the loops. The loop over
the head dimension $k$ moves outside; inside it, the thread loads the 8
query values $Q_{i,k}$ and the 8 key values $K_{j,k}$ of its patch once,
keeps them in registers, and adds all 64 products $Q_{i,k} K_{j,k}$ into 64
running sums, also in registers:

$$ S_{ij} \mathrel{+}= Q_{ik} \, K_{jk}, \qquad i \in \text{8 rows},\; j \in \text{8 columns}. $$

This is an outer product: 16 loads feed 64 fused multiply-adds. Three small
things come with it, each explained where it appears: a thread whose whole
patch lies above the diagonal returns at once, the input pointer is
declared `__restrict__` (nothing the kernel writes aliases it, so loads may
be reordered and cached), and `__launch_bounds__(256)` tells the compiler
how many threads a block has, so it can budget registers.

{{figure|outer-product}}

## Arithmetic intensity

Chapter 2 counted the naive kernel's arithmetic intensity: $0.25$ FLOP per
byte loaded, where the {{gpu|registers|B=8 T=1024 C=768 NH=12}} needs about
{{card_balance|registers|B=8 T=1024 C=768 NH=12}} to keep its arithmetic busy.
For a thread that owns an $m \times n$ patch and keeps its operands in registers, each step of $k$
does $2mn$ operations on $m + n$ floats:

$$ \frac{2mn}{4(m+n)} \text{ FLOP/byte}, \qquad m = n = 8: \; \frac{128}{64} = 2. $$

Eight times the naive kernel, and the bigger the patch the better, as long
as the $mn$ running sums fit in registers (a thread may hold up to 255
32-bit registers; here 64 sums, 16 operands and some addresses).

At the default size, $B = 8$, $T = 1024$, $C = 768$, $NH = 12$ ($HS = 64$),
the numbers are:

| | naive (chapter 2) | registers (this chapter) |
|---|---|---|
| useful FLOP | $6.45 \times 10^9$ | $6.45 \times 10^9$ |
| floats loaded by the threads | $6.45 \times 10^9$ | $8.1 \times 10^8$ |
| bytes loaded by the threads | 25.8 GB | 3.2 GB |

The second column counts 792,576 working threads (the 256 threads of each
of the 2,688 blocks below the diagonal, and the 136 threads of each of the
768 diagonal blocks whose patch is not wholly masked), each loading 16
floats at each of the 64 steps of $k$.

Neither 25.8 GB nor 3.2 GB ever crosses the memory bus: the queries and keys
of the whole problem are only $2 \times 8 \times 1024 \times 768 \times 4 =$
50 MB, which fits in the H200's 60 MB L2 cache (the H100's holds 50 MB), and most loads are served by
the L1 cache of the multiprocessor. But every load is an instruction that
goes through the load/store units and the L1, and those have a throughput
too. Cutting the loads by eight is what this chapter buys.
*/

#pragma once
#include <math.h>

#include "problems/triangle.h"

/*md
## The kernel

The grid and the mapping of threads to scores are chapter 2's: blocks of
$16 \times 16$ threads over tiles of $128 \times 128$ scores, blocks above
the diagonal return at once. Inside a tile on the diagonal, a thread whose
whole patch lies above the diagonal also returns; the others compute their
full patch and write only the kept scores $j \le i$.

The arrays `query` and `key` and `sum` are indexed only with constants once
the loops over `r` and `c` are unrolled, which is what lets the compiler
keep them in registers. A run-time index would force them into local
memory, which is as slow as global memory. The first row and the first key
of a thread's patch come from two small `__host__ __device__` functions,
`registers_first_query` and `registers_first_key`, and the figures of this
chapter and the next are drawn from them.
*/

#define REGISTERS_TILE 128        /* scores per block side */
#define REGISTERS_THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */
static_assert(REGISTERS_TILE == 16 * REGISTERS_THREAD_TILE,
              "the threads' patches cover the tile once: 16 x 16 threads");

/* The first query row and the first key of the 8 x 8 patch of thread (tx, ty)
 * of the block of tile (tile_row, tile_col). */
__host__ __device__ __forceinline__ int registers_first_query(unsigned ty, unsigned tile_row)
{
    return tile_row * REGISTERS_TILE + ty * REGISTERS_THREAD_TILE;
}

__host__ __device__ __forceinline__ int registers_first_key(unsigned tx, unsigned tile_col)
{
    return tile_col * REGISTERS_TILE + tx * REGISTERS_THREAD_TILE;
}

// book:changes chapters/02-naive/naive.cuh naive_scores
static __global__ void __launch_bounds__(256)
registers_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = registers_first_query(threadIdx.y, blockIdx.y);
    const int first_key = registers_first_key(threadIdx.x, blockIdx.x);
    if (first_key > first_query + REGISTERS_THREAD_TILE - 1)
        return; /* the whole patch lies above the diagonal */

    const size_t row_stride = 3 * (size_t)C; /* floats from one token to the next */
    const float *queries = inp + (size_t)b * T * row_stride + h * HS + first_query * row_stride;
    const float *keys = inp + (size_t)b * T * row_stride + C + h * HS + first_key * row_stride;

    float sum[REGISTERS_THREAD_TILE][REGISTERS_THREAD_TILE] = {};
    for (int k = 0; k < HS; k++) {
        float query[REGISTERS_THREAD_TILE], key[REGISTERS_THREAD_TILE];
#pragma unroll
        for (int r = 0; r < REGISTERS_THREAD_TILE; r++)
            query[r] = queries[r * row_stride + k];
#pragma unroll
        for (int c = 0; c < REGISTERS_THREAD_TILE; c++)
            key[c] = keys[c * row_stride + k];
#pragma unroll
        for (int r = 0; r < REGISTERS_THREAD_TILE; r++)
#pragma unroll
            for (int c = 0; c < REGISTERS_THREAD_TILE; c++)
                sum[r][c] = fmaf(query[r], key[c], sum[r][c]);
    }

    /*md
The patch done, a thread writes its kept scores, scaled by $1/\sqrt{HS}$:
    */
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < REGISTERS_THREAD_TILE; r++) {
        const int i = first_query + r;
#pragma unroll
        for (int c = 0; c < REGISTERS_THREAD_TILE; c++) {
            const int j = first_key + c;
            if (j <= i)
                scores[(size_t)i * T + j] = sum[r][c] * scale;
        }
    }
}

/*md
## Launching it

Same grid as chapter 2, same refusals: $T$ must be a multiple of the tile,
since the kernel has no bounds checks, and the number of heads $B \cdot NH$
must fit in the grid's third dimension (at most 65,535).
*/

// book:changes chapters/02-naive/naive.cuh naive_refuses
static inline int registers_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % REGISTERS_TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", REGISTERS_TILE);
        return 1;
    }
    if ((long)size.B * size.NH > 65535) {
        snprintf(why, capacity, "B*NH must be at most 65535 (one grid layer per head)");
        return 1;
    }
    return 0;
}

// book:changes chapters/02-naive/naive.cuh naive_launch
static inline void registers_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / REGISTERS_TILE, s.T / REGISTERS_TILE, s.B * s.NH);
    dim3 block(REGISTERS_TILE / REGISTERS_THREAD_TILE, REGISTERS_TILE / REGISTERS_THREAD_TILE);
    registers_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

/*md
## The race so far

At the default size the register kernel takes
{{median_ms|registers|B=8 T=1024 C=768 NH=12}} ms, against
{{median_ms|naive|B=8 T=1024 C=768 NH=12}} ms for the naive kernel and
{{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} ms for the baseline,
`cublas-tf32` ({{median_ms|cublas-rows|B=8 T=1024 C=768 NH=12}} ms for
`cublas-rows`, the fastest FP32 champion), measured on the {{gpu|registers|B=8 T=1024 C=768 NH=12}}. That is
{{gflops|registers|B=8 T=1024 C=768 NH=12}} GFLOP/s of the problem's work,
{{peak_pct|registers|B=8 T=1024 C=768 NH=12}} % of the FP32 peak.

{{figure|race-chapter3}}

Eight times fewer loads paid off almost in full, but the kernel is still
far from the floor of {{floor_fp32_ms|registers|B=8 T=1024 C=768 NH=12}} ms that the arithmetic alone sets. The loads it
kept are the problem now, and not only their number: look at which
addresses the 32 threads of a warp ask for at the same moment. At one step
of $k$, the 16 threads along a row of the block each read the $k$-th float
of a different key row, 8 tokens apart: chapter 2's scattered loads, 16
sectors touched to use 4 bytes of each. The stores are no better: neighbouring threads write
floats 32 bytes apart. Chapter 4 fixes both.
*/
