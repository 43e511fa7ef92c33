// 03-registers-counts.cu - exercise 3.1: count what the register kernel does, for any size.
//
// exercises/03-registers-counts.cu is the student's copy, made from
// solutions/03-registers-counts.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=03-registers-counts       # needs no GPU: the counts are checked on the CPU
//   build/exercises/03-registers-counts B=1 T=256 C=64 NH=2 --check-only   # the kernel, on a GPU

/*md
### Exercise 3.1: count the threads and the loads

*Difficulty: easy.* File: `exercises/03-registers-counts.cu`.

The table of this chapter counts, at the default size only, 792,576
working threads and $8.1 \times 10^8$ floats loaded by them. Write the
counts for any size, as closed forms (no loop over blocks or threads), for
the kernel in this file, which is the chapter's:

- `working_threads(size)`: the threads that neither return with their
  block (a tile above the diagonal) nor on their own (a patch wholly above
  the diagonal);
- `floats_loaded(size)`: the floats those threads load from the input;
- `distinct_floats(size)`: the floats of the input the kernel needs at
  all, each counted once (what the caches could in the best case bring in
  once): how many times over does the kernel load each of them at the
  default size?

Hints:

- Count per head, then multiply. A head has $n = T/128$ tiles a side: how
  many lie strictly below the diagonal, how many on it?
- In a tile on the diagonal, thread $(x, y)$ owns the patch at query rows
  $8y \ldots 8y + 7$ and keys $8x \ldots 8x + 7$. For which $(x, y)$ does that
  patch hold a kept score ($j \le i$)?
- Each working thread loads 8 query values and 8 key values at each of the
  $HS$ steps of $k$.

Check it with `make grade EX=03-registers-counts`: it needs no GPU, since
the grader counts by enumerating every block and thread of the grid on the
CPU and compares. The untouched exercise counts nothing.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

__host__ double working_threads(triangle_size s)
{
    // TODO: the threads that compute a patch, as a closed form in B, NH and T
    (void)s;
    return 0;
    // TODO end
}

__host__ double floats_loaded(triangle_size s)
{
    // TODO: the floats the working threads load
    (void)s;
    return 0;
    // TODO end
}

__host__ double distinct_floats(triangle_size s)
{
    // TODO: the floats of the input the kernel needs, each once
    (void)s;
    return 0;
    // TODO end
}

__global__ void __launch_bounds__(256)
registers_count_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */
    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * THREAD_TILE;
    if (first_key > first_query + THREAD_TILE - 1)
        return; /* the whole patch lies above the diagonal */

    const size_t row_stride = 3 * (size_t)C;
    const float *queries = inp + (size_t)b * T * row_stride + h * HS + first_query * row_stride;
    const float *keys = inp + (size_t)b * T * row_stride + C + h * HS + first_key * row_stride;
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
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++)
            if (first_key + c <= first_query + r)
                scores[(size_t)(first_query + r) * T + first_key + c] = sum[r][c] * scale;
}

static int registers_count_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    return 0;
}

static void registers_count_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    registers_count_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH,
                                                             s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel registers_count_kernel = {registers_count_refuses,
                                                       registers_count_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"registers", 3, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &registers_count_kernel};
    return triangle_chapter_main(argc, argv, "03-registers-counts", 3,
                                 "exercise 3.1, the register kernel (its counts are the exercise)",
                                 &contender, 1);
}
