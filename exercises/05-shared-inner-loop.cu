// 05-shared-inner-loop.cu - exercise 5.2: compute from the shared tiles.
//
// exercises/05-shared-inner-loop.cu is the student's copy, made from
// solutions/05-shared-inner-loop.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=05-shared-inner-loop
//   build/exercises/05-shared-inner-loop B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 5.2: compute from the shared tiles

*Difficulty: medium.* File: `exercises/05-shared-inner-loop.cu`.

In this kernel a block of $16 \times 16$ threads computes a $128 \times 128$
tile of scores. At each step along the head dimension the block copies 16
positions of its 128 query rows and 128 key rows into shared memory,
transposed: `query_tile[k][row]` and `key_tile[k][row]`. The copy is
written; what each thread does with the tiles is not. Write the loop over
the 16 positions of a step: load the thread's 8 query values and 8 key
values from the tiles into registers, and add their 64 products to `sums`.

Which scores does a thread own? Read the epilogue at the end of the kernel:
`sums[r][c]` goes to query `threadIdx.y + 16 r` and key `threadIdx.x + 16 c`
of the tile, not to an $8 \times 8$ block of neighbours as in chapters 3 and
4.

Hints:

- Why the stride of 16? In your loads, the 16 threads of a half-warp share
  `threadIdx.y` and have consecutive `threadIdx.x`. Work out which of the 32
  banks each of them reads for `key_tile`, once with the strided ownership
  and once with `threadIdx.x * 8 + c`.
- Keep the loops over `r` and `c` unrolled so that the 8 + 8 values and the
  64 sums stay in registers.
- Every shared value you load is used 8 times: count the loads per
  multiply-add and compare with chapter 3, where every value came from
  global memory (or its caches).

Check it with `make grade EX=05-shared-inner-loop`. The untouched exercise
leaves every sum at zero, and the referee says how far that is from the
truth.
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREADS 16      /* threads per block side: each owns 8 x 8 scores */
#define THREAD_TILE 8
#define STEP 16         /* head-dimension positions staged at a time */
#define PAD 2           /* extra columns: the copy's stores hit 32 different banks */

__global__ void shared_inner_scores(float *preatt, const float *inp, int T, int NH, int HS)
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
        for (int element = thread; element < TILE * STEP; element += THREADS * THREADS) {
            const int row = element / STEP, k = element % STEP;
            query_tile[k][row] = queries[row * row_stride + step + k];
            key_tile[k][row] = keys[row * row_stride + step + k];
        }
        __syncthreads(); /* the tiles are complete */

        // TODO: for each k < STEP: 8 + 8 values from the tiles, 64 products into sums
        (void)query_tile[0][0], (void)key_tile[0][0]; /* replace with your loop */
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
                                 "exercise 5.2, computing from shared tiles", &contender, 1);
}
