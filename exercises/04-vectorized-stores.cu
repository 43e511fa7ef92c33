// 04-vectorized-stores.cu - exercise 4.2: coalesced 16-byte stores for another thread layout.
//
// exercises/04-vectorized-stores.cu is the student's copy, made from
// solutions/04-vectorized-stores.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=04-vectorized-stores
//   build/exercises/04-vectorized-stores B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 4.2: which columns a thread owns, for whole-sector stores

*Difficulty: medium.* File: `exercises/04-vectorized-stores.cu`.

The chapter's block is 16 threads wide and gives each thread two runs of 4
columns, 64 apart. This kernel's block is shaped differently: 8 threads
across (`threadIdx.x`) and 32 down, each thread owning 4 query rows
($4\,y$ to $4\,y + 3$) and 16 key columns, in 4 runs of 4. Decide which
columns:

1. `run_column(x, run)`, a `__host__ __device__` function: the first
   column, within the $128$-wide tile, of run `run` (0 to 3) of the threads
   with `threadIdx.x` $= x$. The inner loop and the epilogue both use it.
2. The epilogue: each run of each row, scaled by $1/\sqrt{HS}$, as one
   16-byte `float4` store, and only the runs that hold a kept score.

The grader checks on the CPU that the runs cover the 128 columns once and
that every warp-wide store writes only whole 32-byte sectors (16 sectors
for 32 `float4`s); it reads the PTX for 16-byte stores and no 4-byte ones
(and with `cuobjdump` the machine code, `STG.E.128`); and on a GPU it
checks the values.

Hints:

- A warp here is 4 rows of the block, 8 threads each. At one store
  instruction (one row $r$ and one run), the 8 threads of a row should
  write 8 neighbouring `float4`s: 128 contiguous bytes, a whole line.
- On a tile of the diagonal a run may mix kept and masked scores; the
  referee ignores masked scores, so writing them is allowed. When is a run
  worth writing at all?

Check it with `make grade EX=04-vectorized-stores`. The untouched exercise
gives every thread the same columns and writes nothing.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128           /* scores per block side */
#define THREADS_ACROSS 8   /* threadIdx.x: 8 threads share a row of the tile */
#define THREADS_DOWN 32    /* threadIdx.y */
#define ROWS 4             /* query rows per thread */
#define RUNS 4             /* runs of 4 columns per thread: 16 columns */

/* The first tile column of run `run` of the threads at threadIdx.x = x. */
__host__ __device__ int run_column(int x, int run)
{
    // TODO: the first column of run run (0..3) of thread column x (0..7)
    (void)x;
    return 4 * run;
    // TODO end
}

__global__ void __launch_bounds__(256)
vectorized_stores_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */
    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * ROWS;
    const int tile_key = blockIdx.x * TILE;
    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *queries = inp + ((size_t)b * T + first_query) * row_stride + h * HS;
    const float *keys = inp + ((size_t)b * T + tile_key) * row_stride + C + h * HS;

    /* sum[r][4 * run + c]: query first_query + r, key tile_key + run_column(x, run) + c */
    float sum[ROWS][4 * RUNS] = {};
#pragma unroll 1
    for (int k = 0; k < HS; k += 4) {
        float4 query[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; r++)
            query[r] = *reinterpret_cast<const float4 *>(queries + r * row_stride + k);
#pragma unroll
        for (int run = 0; run < RUNS; run++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                const int column = run_column(threadIdx.x, run) + c;
                const float4 key =
                    *reinterpret_cast<const float4 *>(keys + column * row_stride + k);
#pragma unroll
                for (int r = 0; r < ROWS; r++) {
                    float *s = &sum[r][4 * run + c];
                    *s = fmaf(query[r].x, key.x, *s);
                    *s = fmaf(query[r].y, key.y, *s);
                    *s = fmaf(query[r].z, key.z, *s);
                    *s = fmaf(query[r].w, key.w, *s);
                }
            }
    }

    // TODO: store each run of each row that holds a kept score, scaled, as one float4
    (void)preatt, (void)sum; /* write the scores here */
    // TODO end
}

static int vectorized_stores_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    if (size.HS % 4 != 0) {
        snprintf(why, capacity, "HS must be a multiple of 4 (16-byte loads)");
        return 1;
    }
    return 0;
}

static void vectorized_stores_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(THREADS_ACROSS, THREADS_DOWN);
    vectorized_stores_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                               s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel vectorized_stores_kernel = {vectorized_stores_refuses,
                                                         vectorized_stores_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"vectorized", 4, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32},
        &vectorized_stores_kernel};
    return triangle_chapter_main(argc, argv, "04-vectorized-stores", 4,
                                 "exercise 4.2, whole-sector float4 stores", &contender, 1);
}
