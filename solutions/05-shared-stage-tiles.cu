// 05-shared-stage-tiles.cu - exercise 5.1: stage the query and key tiles in shared memory.
//
// exercises/05-shared-stage-tiles.cu is the student's copy, made from
// solutions/05-shared-stage-tiles.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=05-shared-stage-tiles
//   build/exercises/05-shared-stage-tiles B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 5.1: stage the tiles without bank conflicts

*Difficulty: hard.* File: `exercises/05-shared-stage-tiles.cu`.

In this kernel a block of $16 \times 16$ threads computes a $128 \times 128$
tile of scores, and its threads share their operands through shared
memory. The head dimension is walked in steps of `STEP` = 16 positions; at
each step the block copies 128 query rows and 128 key rows, 16 floats of
each, into `query_tile` and `key_tile`, and every thread then reads its
operands from there. The tiles are stored *transposed*, `tile[k][row]`, so
that in the inner loop a warp reads neighbouring rows at the same $k$.

Two things are missing:

1. the copy itself, from global memory into the two tiles, shared by the
   256 threads of the block;
2. the padding `PAD`, the extra columns of each tile: choose it so that the
   stores of your copy are free of bank conflicts.

Hints:

- Let consecutive threads read consecutive floats of a row from global
  memory: 16 threads cover the 16 floats of one row at one step, so a warp
  reads two rows, 64 bytes from each.
- Shared memory has 32 banks of 4 bytes; the word at index $a$ lives in bank
  $a \bmod 32$, and a warp's store takes as many passes as the largest number
  of distinct words it sends to one bank. With your mapping, in which banks
  do the 32 threads of a warp store `tile[k][row]` with `PAD` = 0? With 1?
- The chapter pads its rows by 4 floats because it reads them as `float4`,
  which must stay 16-byte aligned. This kernel reads and writes one float at
  a time, so any padding keeps the alignment: find the smallest that works.
- Every thread must see a complete tile before it reads it, and no thread
  may overwrite a tile another is still reading. The `__syncthreads()`
  calls are there already: read why each one is where it is.

Check it with `make grade EX=05-shared-stage-tiles`. The untouched exercise
stages zeros, and the referee says how far that is from the truth. The
grader checks results, not speed; see the bank conflicts of your stores with
Nsight Compute:

    ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
        build/exercises/05-shared-stage-tiles B=1 T=256 C=64 NH=1 --check-only

With `PAD` = 0 each warp-wide store waits for 15 extra wavefronts; with the
right padding, for none.
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREADS 16      /* threads per block side: each owns 8 x 8 scores */
#define THREAD_TILE 8
#define STEP 16         /* head-dimension positions staged at a time */
// exercise:begin choose PAD, the extra columns that spread the stores over all banks
#define PAD 2
// exercise:stub #define PAD 0
// exercise:end

__global__ void shared_stage_scores(float *preatt, const float *inp, int T, int NH, int HS)
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
    /* the tile's first query row and first key row */
    const float *queries = sequence + (size_t)blockIdx.y * TILE * row_stride;
    const float *keys = sequence + C + (size_t)blockIdx.x * TILE * row_stride;

    /* Thread (x, y) owns the scores of queries y, y + 16, ..., y + 112 and
     * keys x, x + 16, ..., x + 112 of the tile: in the inner loop the 16
     * threads of a half-warp read 16 neighbouring words, one per bank. */
    float sums[THREAD_TILE][THREAD_TILE] = {};
    for (int step = 0; step < HS; step += STEP) {
        // exercise:begin copy positions step..step+15 of the 128 query and 128 key rows, transposed
        for (int element = thread; element < TILE * STEP; element += THREADS * THREADS) {
            const int row = element / STEP, k = element % STEP;
            query_tile[k][row] = queries[row * row_stride + step + k];
            key_tile[k][row] = keys[row * row_stride + step + k];
        }
        // exercise:stub (void)queries[step], (void)keys[step], (void)thread; /* replace */
        // exercise:stub if (threadIdx.x == 0 && threadIdx.y == 0) {
        // exercise:stub     memset(query_tile, 0, sizeof query_tile);
        // exercise:stub     memset(key_tile, 0, sizeof key_tile);
        // exercise:stub }
        // exercise:end
        __syncthreads(); /* the tiles are complete */

        for (int k = 0; k < STEP; k++) {
            float query[THREAD_TILE], key[THREAD_TILE];
#pragma unroll
            for (int r = 0; r < THREAD_TILE; r++)
                query[r] = query_tile[k][threadIdx.y + r * THREADS];
#pragma unroll
            for (int c = 0; c < THREAD_TILE; c++)
                key[c] = key_tile[k][threadIdx.x + c * THREADS];
#pragma unroll
            for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
                for (int c = 0; c < THREAD_TILE; c++)
                    sums[r][c] += query[r] * key[c];
        }
        __syncthreads(); /* everyone is done reading before the next copy */
    }

    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++) {
            const int i = blockIdx.y * TILE + threadIdx.y + r * THREADS;
            const int j = blockIdx.x * TILE + threadIdx.x + c * THREADS;
            if (j <= i)
                scores[(size_t)i * T + j] = sums[r][c] * scale;
        }
}

static int shared_stage_refuses(triangle_size size, char *why, size_t capacity)
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

static void shared_stage_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(THREADS, THREADS);
    shared_stage_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel shared_stage_kernel = {shared_stage_refuses, shared_stage_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"shared", 5, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &shared_stage_kernel};
    return triangle_chapter_main(argc, argv, "05-shared-stage-tiles", 5,
                                 "exercise 5.1, staging tiles in shared memory", &contender, 1);
}
