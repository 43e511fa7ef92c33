// 04-vectorized-stores.cu - exercise 4.2: store the scores sixteen bytes at a time.
//
// exercises/04-vectorized-stores.cu is the student's copy, made from
// solutions/04-vectorized-stores.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=04-vectorized-stores
//   build/exercises/04-vectorized-stores B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 4.2: coalesced float4 stores of the scores

*Difficulty: medium.* File: `exercises/04-vectorized-stores.cu`.

This is the kernel of this chapter with its epilogue taken out: the sums
are computed, and nothing is written. Write the epilogue: scale the sums by
$1/\sqrt{HS}$ and store them with 16-byte stores, one `float4` per run of 4
columns and per row, so that the 16 threads of a row of the block write 16
neighbouring `float4`s, 256 contiguous bytes.

Which scores does a thread own? `sums[r][c]` is the score of query
`first_query + r` and, for `c` < 4, key `first_key + c`; for `c` >= 4, key
`first_key + 64 + (c - 4)`: two runs of 4 columns, 64 apart.

Hints:

- `blockIdx.z` numbers the $T \times T$ score matrices of `preatt` in order.
- A run on the diagonal may hold kept scores ($j \le i$) and masked ones.
  The referee ignores masked scores, so a `float4` may carry a few of them;
  what matters is that no kept score is missed. When is a run worth
  writing at all?
- Is `scores + i * T + j` a multiple of 16 bytes for the first column $j$
  of a run? The launcher refuses a $T$ that is not a multiple of 128; say
  why that is enough.

Check it with `make grade EX=04-vectorized-stores`. The untouched exercise
writes nothing, so the output keeps the NaN it was filled with. Your stores
are `st.global.v4.f32` in the PTX (`nvcc -ptx`) and `STG.E.128` in the
machine code (`cuobjdump -sass`).
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */
#define RUN 4           /* columns per float4 */
#define RUN_GAP 64      /* a thread's second run of 4 columns starts this far right */

__global__ void vectorized_stores_scores(float *preatt, const float *inp, int T, int NH, int HS)
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
#pragma unroll
        for (int r = 0; r < THREAD_TILE; r++)
            query[r] = *(const float4 *)(queries + r * row_stride + k);
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++) {
            const int key_row = (c % RUN) + (c / RUN) * RUN_GAP;
            const float4 key = *(const float4 *)(keys + key_row * row_stride + k);
#pragma unroll
            for (int r = 0; r < THREAD_TILE; r++)
                sums[r][c] += query[r].x * key.x + query[r].y * key.y + query[r].z * key.z +
                              query[r].w * key.w;
        }
    }

    // TODO: scale the sums, store each run of 4 columns holding a kept score as one float4
    (void)sums; /* replace with your stores */
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
    dim3 block(TILE / (2 * RUN), TILE / THREAD_TILE);
    vectorized_stores_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                               s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel vectorized_stores_kernel = {vectorized_stores_refuses, vectorized_stores_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"vectorized", 4, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &vectorized_stores_kernel};
    return triangle_chapter_main(argc, argv, "04-vectorized-stores", 4,
                                 "exercise 4.2, float4 stores", &contender, 1);
}
