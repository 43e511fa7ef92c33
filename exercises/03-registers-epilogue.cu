// 03-registers-epilogue.cu - exercise 3.2: the early exit and the epilogue, in registers.
//
// exercises/03-registers-epilogue.cu is the student's copy, made from
// solutions/03-registers-epilogue.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=03-registers-epilogue
//   build/exercises/03-registers-epilogue B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 3.2: keep the sums in registers to the end

*Difficulty: medium.* File: `exercises/03-registers-epilogue.cu`.

This is the kernel of this chapter with two decisions taken out: which
threads have work, and how the 64 sums leave the registers.

1. `patch_has_kept_score(first_query, first_key)`, a `__host__ __device__`
   function: whether the thread's $8 \times 8$ patch (query rows
   `first_query` to `first_query + 7`, keys `first_key` to
   `first_key + 7`) holds at least one kept score $j \le i$. The kernel
   returns early when it does not.
2. The epilogue: every kept score of the patch, scaled by $1/\sqrt{HS}$,
   into `preatt`; the masked ones are yours to write or to skip.

The grader checks the values, and also the property the chapter depends
on: `sum` must stay in registers. An array that is indexed with a value the
compiler cannot resolve at compile time lives in *local memory* (a stack
frame in device memory, as slow as any global access), and `ptxas` says
so: `make PTXAS_VERBOSE=1 build/exercises/03-registers-epilogue` prints
`N bytes stack frame` for each kernel. The grader wants 0.

Hints:

- The diagonal makes the number of kept scores in a row of the patch
  depend on the row. A loop whose bounds depend on it is natural, and it
  puts the array in local memory. What can you loop over instead, with
  fixed bounds, so that `#pragma unroll` turns every index into a constant?
- For the early exit, compare the patch's smallest key with its largest
  query.

Check it with `make grade EX=03-registers-epilogue`. Without a GPU the
grader checks `patch_has_kept_score` against every patch of a large grid
and reads `ptxas`'s report of your kernel. The untouched exercise keeps
every thread and writes nothing.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

/* Whether the patch at (first_query, first_key) holds a score with key <= query. */
__host__ __device__ bool patch_has_kept_score(int first_query, int first_key)
{
    // TODO: whether some key first_key + c <= query first_query + r, for r, c < 8
    (void)first_query, (void)first_key;
    return true;
    // TODO end
}

__global__ void __launch_bounds__(256)
registers_epilogue_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */
    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * THREAD_TILE;
    if (!patch_has_kept_score(first_query, first_key))
        return;

    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const float *queries = sequence + first_query * row_stride;
    const float *keys = sequence + C + first_key * row_stride;
    float sum[THREAD_TILE][THREAD_TILE] = {};
    for (int k = 0; k < HS; k++) {
        float query[THREAD_TILE], key[THREAD_TILE];
#pragma unroll
        for (int r = 0; r < THREAD_TILE; r++)
            query[r] = queries[r * row_stride + k];
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++)
            key[c] = keys[c * row_stride + k];
#pragma unroll
        for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
            for (int c = 0; c < THREAD_TILE; c++)
                sum[r][c] = fmaf(query[r], key[c], sum[r][c]);
    }

    // TODO: store the kept scores of sum, scaled, with sum indexed by constants only
    (void)preatt, (void)sum; /* write the scores here */
    // TODO end
}

static int registers_epilogue_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    return 0;
}

static void registers_epilogue_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    registers_epilogue_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                                s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel registers_epilogue_kernel = {registers_epilogue_refuses,
                                                          registers_epilogue_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"registers", 3, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32},
        &registers_epilogue_kernel};
    return triangle_chapter_main(argc, argv, "03-registers-epilogue", 3,
                                 "exercise 3.2, the register tile's early exit and epilogue",
                                 &contender, 1);
}
