// 03-registers-epilogue.cu - exercise 3.2: the register tile's epilogue.
//
// exercises/03-registers-epilogue.cu is the student's copy, made from
// solutions/03-registers-epilogue.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=03-registers-epilogue
//   build/exercises/03-registers-epilogue B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 3.2: write the scores back

*Difficulty: easy.* File: `exercises/03-registers-epilogue.cu`.

This is the kernel of this chapter with its last step taken out: the 64 sums
of the thread's $8 \times 8$ patch are computed, and nothing is written.
Write the epilogue: scale each sum by $1/\sqrt{HS}$ and store it at its place
in `preatt`, for the kept scores only (key $j \le$ query $i$).

Hints:

- `sums[r][c]` is the score of query `first_query + r` and key
  `first_key + c`.
- `preatt` is (B, NH, T, T): the scores of sequence `b` and head `h` form one
  $T \times T$ matrix, and `blockIdx.z` already numbers these matrices in
  order.
- Compute the scale once, outside the loops, and keep both loops unrolled
  (`#pragma unroll`) so that `sums` stays in registers.
- A patch on the diagonal of the matrix holds kept and masked scores. The
  referee ignores the masked ones, so skipping them or writing them is your
  choice; skipping is less traffic.

Check it with `make grade EX=03-registers-epilogue`. The untouched exercise
writes nothing, so the output keeps the NaN it was filled with.
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

__global__ void registers_epilogue_scores(float *preatt, const float *inp, int T, int NH, int HS)
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
                sums[r][c] += query[r] * key[c];
    }

    // exercise:begin scale the kept sums and store them in preatt
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
    // exercise:stub (void)sums; /* replace with your stores */
    // exercise:end
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

static const triangle_kernel registers_epilogue_kernel = {registers_epilogue_refuses, registers_epilogue_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"registers", 3, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &registers_epilogue_kernel};
    return triangle_chapter_main(argc, argv, "03-registers-epilogue", 3,
                                 "exercise 3.1, the register tile's inner loop", &contender, 1);
}
