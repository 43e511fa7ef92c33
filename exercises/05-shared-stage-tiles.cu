// 05-shared-stage-tiles.cu - exercise 5.1: stage the tiles, coalesced on both sides.
//
// exercises/05-shared-stage-tiles.cu is the student's copy, made from
// solutions/05-shared-stage-tiles.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=05-shared-stage-tiles
//   build/exercises/05-shared-stage-tiles B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 5.1: a copy that is coalesced on both sides

*Difficulty: hard.* File: `exercises/05-shared-stage-tiles.cu`.

A block of $16 \times 16$ threads computes a $128 \times 128$ tile of
scores from shared memory. The head dimension is walked in steps of
`STEP` = 16 positions; at each step the block copies 16 floats of each of
128 query rows and 128 key rows into `query_tile[k][row]` and
`key_tile[k][row]`, transposed, rows padded by `PAD` floats. Each row's 16
floats are 4 `float4`s ("quads"); the tile's 512 quads make 2 per thread.
Three decisions are yours, and the grader checks each:

1. `copy_slot(thread, pass, &row, &quad)`, a `__host__ __device__`
   function: which quad (row 0..127, quad 0..3) thread `thread` (0..255)
   copies in pass `pass` (0 or 1). Every quad once.
2. `PAD`, so that the stores are free of bank conflicts.
3. The copy itself, in `stage_tile`: one 16-byte load of the quad, then its
   four floats into the transposed tile.

The reads must use whole 32-byte sectors (a warp's 32 quads in 16 sectors)
and the four stores of each quad must each take one wavefront. The chapter
met the same problem with 16 quads a row (step 2); here a row has 4, so its
answer does not carry over as it is. More than one answer works.

Hints:

- A warp is threads $32w \ldots 32w + 31$. Write its 32 quads down as
  (row, quad) pairs; a store of component $i$ of quad $q$ of `row` goes to
  word $(4q + i)(128 + \mathit{PAD}) + \mathit{row}$, bank that modulo 32.
- A sector is 8 floats: two quads of one row. Which quads must a warp take
  together so that no sector is half used?
- With `PAD` = 0 every row starts in bank 0; what does a pad of $p$ do to
  the banks of the four rows $k = 4q + i$?

Check it with `make grade EX=05-shared-stage-tiles`. The grader counts
sectors and wavefronts from your `copy_slot` and `PAD` on the CPU, reads
the PTX for the 16-byte load, and on a GPU runs racecheck and memcheck,
checks the values, and measures the bank conflicts of the stores with
Nsight Compute
(`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum`). The untouched
exercise stages zeros.
*/

#include <math.h>
#include <string.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREADS 16      /* threads per block side: each owns 8 x 8 scores */
#define THREAD_TILE 8
#define STEP 16         /* head-dimension positions staged at a time: 4 quads a row */
#define QUADS (STEP / 4)

// TODO: PAD, the floats added to each row of a tile
#define PAD 0
// TODO end

/* The quad (row, quad) that thread `thread` copies in pass `pass` (0 or 1). */
__host__ __device__ void copy_slot(int thread, int pass, int *row, int *quad)
{
    // TODO: the quad of thread (0..255) in pass (0..1): whole sectors, each quad once
    (void)pass;
    *row = thread % TILE;
    *quad = 0;
    // TODO end
}

/* Copies positions step .. step + 15 of the tile's 128 rows (row r at rows + r * row_stride)
 * into tile[k][row], transposed. */
__device__ void stage_tile(float (*tile)[TILE + PAD], const float *rows, size_t row_stride,
                           int step)
{
    const int thread = threadIdx.y * THREADS + threadIdx.x;
    // TODO: for both passes: load this thread's quad as one float4, store its 4 floats
    (void)rows, (void)row_stride, (void)step;
    if (thread == 0)
        memset(tile, 0, sizeof(float) * STEP * (TILE + PAD));
    // TODO end
}

__global__ void __launch_bounds__(256)
shared_stage_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    __shared__ __align__(16) float query_tile[STEP][TILE + PAD];
    __shared__ __align__(16) float key_tile[STEP][TILE + PAD];
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const float *queries = sequence + (size_t)blockIdx.y * TILE * row_stride;
    const float *keys = sequence + C + (size_t)blockIdx.x * TILE * row_stride;

    /* Thread (x, y) owns queries y + 16 r and keys x + 16 c of the tile. */
    float sum[THREAD_TILE][THREAD_TILE] = {};
    for (int step = 0; step < HS; step += STEP) {
        stage_tile(query_tile, queries, row_stride, step);
        stage_tile(key_tile, keys, row_stride, step);
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
                    sum[r][c] = fmaf(query[r], key[c], sum[r][c]);
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
                scores[(size_t)i * T + j] = sum[r][c] * scale;
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
