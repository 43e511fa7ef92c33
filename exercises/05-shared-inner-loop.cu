// 05-shared-inner-loop.cu - exercise 5.2: which scores a thread owns, for conflict-free reads.
//
// exercises/05-shared-inner-loop.cu is the student's copy, made from
// solutions/05-shared-inner-loop.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=05-shared-inner-loop
//   build/exercises/05-shared-inner-loop B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 5.2: who owns which scores

*Difficulty: medium.* File: `exercises/05-shared-inner-loop.cu`.

In this kernel a block of $16 \times 16$ threads computes a $128 \times 128$
tile of scores from the transposed tiles `query_tile[k][row]` and
`key_tile[k][row]` in shared memory (rows padded by `PAD` = 4). The copy
and the stores are written; who owns which of the 64 scores of a thread is
not, and neither is the loop that reads the tiles. Decide and write:

1. `owned_query(y, r)` and `owned_key(x, c)`, `__host__ __device__`: the
   tile row of the $r$-th query and the tile column of the $c$-th key of
   thread $(x, y)$, $r, c = 0 \ldots 7$. Together the 256 threads must own
   each of the $128 \times 128$ scores once; the epilogue stores
   `sum[r][c]` at `(owned_query(y, r), owned_key(x, c))`.
2. The loop over the 16 positions of a step: for each $k$, the thread's
   8 query values and 8 key values from the tiles into registers, then their
   64 products into `sum`.

The reads must be free of bank conflicts. Chapters 3 and 4 gave a thread 8
neighbouring rows and 8 neighbouring columns: here that costs a 4-way
conflict on every key read.

Hints:

- A warp is two values of $y$ and sixteen of $x$. At one $k$ and one $c$,
  in which banks are the 16 words `key_tile[k][owned_key(x, c)]`? Two
  threads reading the same word share it; different words of one bank take
  a wavefront each.
- Keep the loops over $r$ and $c$ unrolled (fixed bounds, `#pragma unroll`)
  so that the 8 + 8 values and the 64 sums stay in registers.

Check it with `make grade EX=05-shared-inner-loop`. The grader counts the
wavefronts of your reads on the CPU, from `owned_query` and `owned_key`,
checks that the ownership covers the tile once, and on a GPU runs
racecheck, the values and Nsight Compute's count of bank conflicts on the
loads (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`). The
untouched exercise gives every thread the same scores and sums nothing.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREADS 16      /* threads per block side: each owns 8 x 8 scores */
#define THREAD_TILE 8
#define STEP 16         /* head-dimension positions staged at a time */
#define PAD 4           /* floats added to each row of a tile */

/* The tile row of query r (0..7) of threads y, and the tile column of key c of threads x. */
__host__ __device__ int owned_query(int y, int r)
{
    // TODO: the tile row of the r-th query of the threads with threadIdx.y = y
    (void)y;
    return r;
    // TODO end
}

__host__ __device__ int owned_key(int x, int c)
{
    // TODO: the tile column of the c-th key of the threads with threadIdx.x = x
    (void)x;
    return c;
    // TODO end
}

__global__ void __launch_bounds__(256)
shared_inner_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    __shared__ float query_tile[STEP][TILE + PAD];
    __shared__ float key_tile[STEP][TILE + PAD];
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int thread = threadIdx.y * THREADS + threadIdx.x;
    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const float *queries = sequence + (size_t)blockIdx.y * TILE * row_stride;
    const float *keys = sequence + C + (size_t)blockIdx.x * TILE * row_stride;

    float sum[THREAD_TILE][THREAD_TILE] = {};
    for (int step = 0; step < HS; step += STEP) {
        /* A warp copies 2 rows of 16 floats: coalesced reads (conflicts on
         * the stores are exercise 5.1's business) */
        for (int element = thread; element < TILE * STEP; element += THREADS * THREADS) {
            const int row = element / STEP, k = element % STEP;
            query_tile[k][row] = queries[row * row_stride + step + k];
            key_tile[k][row] = keys[row * row_stride + step + k];
        }
        __syncthreads(); /* the tiles are complete */
        // TODO: for each k < STEP: 8 + 8 values from the tiles, 64 products into sum
        (void)query_tile[0][0], (void)key_tile[0][0]; /* replace with your loop */
        // TODO end
        __syncthreads(); /* everyone is done reading before the next copy */
    }

    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++) {
            const int i = blockIdx.y * TILE + owned_query(threadIdx.y, r);
            const int j = blockIdx.x * TILE + owned_key(threadIdx.x, c);
            if (j <= i)
                scores[(size_t)i * T + j] = sum[r][c] * scale;
        }
}

static int shared_inner_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    if (size.HS % STEP != 0) {
        snprintf(why, capacity, "HS must be a multiple of %d", STEP);
        return 1;
    }
    return 0;
}

static void shared_inner_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(THREADS, THREADS);
    shared_inner_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel shared_inner_kernel = {shared_inner_refuses, shared_inner_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"shared", 5, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &shared_inner_kernel};
    return triangle_chapter_main(argc, argv, "05-shared-inner-loop", 5,
                                 "exercise 5.2, who owns which scores", &contender, 1);
}
