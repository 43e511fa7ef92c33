// 04-vectorized-loads.cu - exercise 4.1: load query and key rows sixteen bytes at a time.
//
// exercises/04-vectorized-loads.cu is the student's copy, made from
// solutions/04-vectorized-loads.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=04-vectorized-loads
//   build/exercises/04-vectorized-loads B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 4.1: float4 loads of the query and key rows

*Difficulty: medium.* File: `exercises/04-vectorized-loads.cu`.

This is the kernel of this chapter with its loads taken out. It walks the
head dimension four positions at a time, and its multiply-adds expect, at
each step, the thread's 8 query rows as 8 `float4` values in `query`, then
one key row at a time as one `float4` in `key`. Write the loads, one 16-byte
load per row and step: the 8 query loads, and the key load inside the loop
over the thread's 8 keys.

Hints:

- A `float4` load is a plain load through a `const float4 *`. It is one
  instruction only when the address is a multiple of 16 bytes; a misaligned
  one faults.
- Prove the alignment before you rely on it: `cudaMalloc` returns
  256-byte aligned memory, so every offset you use must be a multiple of 4
  floats. The launcher refuses an HS that is not a multiple of 4: why is that
  enough for every row of every head?
- `row_stride` and `key_row * row_stride` count floats: add them to the
  `float` pointer first, then convert the pointer.
- `key_row` is given: it picks the thread's two runs of 4 keys, 64 keys
  apart, as the chapter explains.

Check it with `make grade EX=04-vectorized-loads`. The untouched exercise
loads zeros, and the referee says how far that is from the truth. Your loads
are `ld.global.v4.f32` in the PTX (`nvcc -ptx`) and `LDG.E.128` in the
machine code (`cuobjdump -sass`).
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */
#define RUN 4           /* columns per float4 */
#define RUN_GAP 64      /* a thread's second run of 4 columns starts this far right */

__global__ void vectorized_loads_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * RUN;
    if (first_key > first_query + THREAD_TILE - 1)
        return; /* both runs of columns lie above the diagonal */

    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const float *queries = sequence + first_query * row_stride;
    const float *keys = sequence + C + first_key * row_stride;

    /* sums[r][c]: query first_query + r; key first_key + c for c < 4, and
     * first_key + 64 + (c - 4) for c >= 4 */
    float sums[THREAD_TILE][THREAD_TILE] = {};
    for (int k = 0; k < HS; k += 4) {
        float4 query[THREAD_TILE];
        // exercise:begin load the 8 query rows at k into query[r], one float4 each
#pragma unroll
        for (int r = 0; r < THREAD_TILE; r++)
            query[r] = *(const float4 *)(queries + r * row_stride + k);
        // exercise:stub (void)queries[k]; /* replace with your loads */
        // exercise:stub for (int r = 0; r < THREAD_TILE; r++)
        // exercise:stub     query[r] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        // exercise:end
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++) {
            const int key_row = (c % RUN) + (c / RUN) * RUN_GAP;
            // exercise:begin load key row key_row at k into key, one float4
            const float4 key = *(const float4 *)(keys + key_row * row_stride + k);
            // exercise:stub (void)keys[k], (void)key_row; /* replace with your load */
            // exercise:stub const float4 key = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            // exercise:end
#pragma unroll
            for (int r = 0; r < THREAD_TILE; r++)
                sums[r][c] += query[r].x * key.x + query[r].y * key.y + query[r].z * key.z +
                              query[r].w * key.w;
        }
    }

    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < THREAD_TILE; r++) {
        const int i = first_query + r;
#pragma unroll
        for (int run = 0; run < 2; run++) {
            const int j = first_key + run * RUN_GAP;
            const float *sum = &sums[r][run * RUN];
            if (j <= i) /* the run's other columns may be masked ones: allowed */
                *(float4 *)(scores + (size_t)i * T + j) =
                    make_float4(sum[0] * scale, sum[1] * scale, sum[2] * scale, sum[3] * scale);
        }
    }
}

static int vectorized_loads_refuses(triangle_size size, char *why, size_t capacity)
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

static void vectorized_loads_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(TILE / (2 * RUN), TILE / THREAD_TILE);
    vectorized_loads_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                              s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel vectorized_loads_kernel = {vectorized_loads_refuses, vectorized_loads_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"vectorized", 4, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &vectorized_loads_kernel};
    return triangle_chapter_main(argc, argv, "04-vectorized-loads", 4,
                                 "exercise 4.1, float4 loads", &contender, 1);
}
