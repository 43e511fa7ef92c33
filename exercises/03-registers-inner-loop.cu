// 03-registers-inner-loop.cu - exercise 3.1: the register tile's inner loop.
//
// exercises/03-registers-inner-loop.cu is the student's copy, made from
// solutions/03-registers-inner-loop.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=03-registers-inner-loop
//   build/exercises/03-registers-inner-loop B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 3.1: the register tile's inner loop

*Difficulty: medium.* File: `exercises/03-registers-inner-loop.cu`.

Here is the kernel of this chapter without its heart. Each thread owns an
$8 \times 8$ patch of scores and keeps 64 running sums in `sums`; the loop
over $k$, the position along the head dimension, is there, but its body is
empty. Write it: for one $k$, load the 8 query values and the 8 key values
the patch needs into registers, then add their 64 products to `sums`.

Hints:

- `queries` points at the first query row of the patch and `keys` at its
  first key row; from one row to the next is `row_stride` floats.
- Declare the 8 + 8 values as small local arrays and index them only with
  loop counters of loops the compiler unrolls (`#pragma unroll`, fixed trip
  count): then they live in registers. Index them with anything the compiler
  cannot resolve at compile time and they spill to local memory, which is
  slow but still correct.
- Count the loads: 16 per $k$ for 64 multiply-adds, against 128 loads in
  the naive kernel. That ratio is the point of the chapter.

Check it with `make grade EX=03-registers-inner-loop`. The untouched
exercise leaves every sum at zero, and the referee says how far that is
from the truth. To see where your arrays live, build with
`make PTXAS_VERBOSE=1 build/exercises/03-registers-inner-loop` and look for
`spill` and `stack frame` in the output: both should be 0.
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

__global__ void registers_inner_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * THREAD_TILE;
    if (first_key > first_query + THREAD_TILE - 1)
        return; /* the whole patch lies above the diagonal */

    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const float *queries = sequence + first_query * row_stride;
    const float *keys = sequence + C + first_key * row_stride;

    float sums[THREAD_TILE][THREAD_TILE] = {};
    for (int k = 0; k < HS; k++) {
        // TODO: load 8 query values and 8 key values at k, add their 64 products to sums
        (void)queries[k], (void)keys[k]; /* replace with your loads and products */
    }

    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++) {
            const int i = first_query + r, j = first_key + c;
            if (j <= i)
                scores[(size_t)i * T + j] = sums[r][c] * scale;
        }
}

static int registers_inner_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    return 0;
}

static void registers_inner_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    registers_inner_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH,
                                                             s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel registers_inner_kernel = {registers_inner_refuses, registers_inner_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"registers", 3, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &registers_inner_kernel};
    return triangle_chapter_main(argc, argv, "03-registers-inner-loop", 3,
                                 "exercise 3.1, the register tile's inner loop", &contender, 1);
}
