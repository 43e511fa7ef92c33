// 08-tensor-epilogue.cu - exercise 8.2: store what the tensor cores computed.
//
// exercises/08-tensor-epilogue.cu is the student's copy, made from
// solutions/08-tensor-epilogue.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-epilogue
//   build/exercises/08-tensor-epilogue B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 8.2: store the accumulators

*Difficulty: easy to medium.* File: `exercises/08-tensor-epilogue.cu`.

The same kernel as in exercise 8.1, with the fragments written this time:
each warp has accumulated its $64 \times 32$ piece of the tile in
`sum[m][n][0..3]`, one $16 \times 8$ tile of $C$ per m-tile `m` and
n-tile `n`. Write the epilogue: every kept score (key $j \le$ query $i$)
of the lane's accumulators, scaled by $1/\sqrt{HS}$, into `preatt`, row
$i$ and column $j$ of its head's $T \times T$ block.

Which score is `sum[m][n][e]`? The comment at the top of
`common/tensor_core.h` (and chapter 8) says which part of $C$ each lane
holds: with $g$ = lane / 4 and $t$ = lane % 4, rows $g$ and $g + 8$ at
columns $2t$ and $2t + 1$, in the order $(g, 2t)$, $(g, 2t + 1)$,
$(g + 8, 2t)$, $(g + 8, 2t + 1)$. M-tile `m` starts at query row
`warp_row + 16 * m` of the tile, n-tile `n` at key `warp_col + 8 * n`.

Hints:

- Leave the masked scores ($j > i$) alone: the referee ignores them, and
  writing them costs memory traffic.
- Chapter 8 writes each pair of columns with one 8-byte store. Once your
  version passes, try that too.

Check it with `make grade EX=08-tensor-epilogue`. The untouched exercise
writes nothing, so every score stays NaN.
*/

#include <math.h>
#include <stdint.h>

#include "tensor_core.h"
#include "triangle.h"

#define TILE 128    /* scores per block side */
#define THREADS 256 /* 8 warps of 64 x 32 scores */
#define M_TILES 4   /* 16-row tiles of A per warp */
#define N_TILES 4   /* 8-column tiles of B per warp */
#define PAD 4       /* floats added to each row of a tile */
#define MAX_HS 128

__global__ void __launch_bounds__(THREADS, 2)
    tensor_fragment_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    extern __shared__ float tiles[];
    const int stride = HS + PAD;
    float *query_tile = tiles;                /* [TILE][stride] */
    float *key_tile = tiles + TILE * stride;  /* [TILE][stride] */

    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */
    const int C = NH * HS, b = blockIdx.z / NH, h = blockIdx.z % NH;
    const size_t row_stride = 3 * (size_t)C;
    const float *sequence = inp + (size_t)b * T * row_stride + h * HS;
    const float *queries = sequence + (size_t)blockIdx.y * TILE * row_stride;
    const float *keys = sequence + C + (size_t)blockIdx.x * TILE * row_stride;
    for (int e = threadIdx.x; e < TILE * HS; e += THREADS) {
        const int row = e / HS, k = e % HS;
        query_tile[row * stride + k] = queries[row * row_stride + k];
        key_tile[row * stride + k] = keys[row * row_stride + k];
    }
    __syncthreads();

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int warp_row = 64 * (warp / 4), warp_col = 32 * (warp % 4);
    float sum[M_TILES][N_TILES][4] = {};
    for (int k0 = 0; k0 < HS; k0 += 8) {
        uint32_t a[M_TILES][4], bf[N_TILES][2];
#pragma unroll
        for (int m = 0; m < M_TILES; m++) {
            const float *row = query_tile + (warp_row + 16 * m + g) * stride + k0 + t;
            a[m][0] = to_tf32(row[0]);
            a[m][1] = to_tf32(row[8 * stride]);
            a[m][2] = to_tf32(row[4]);
            a[m][3] = to_tf32(row[8 * stride + 4]);
        }
#pragma unroll
        for (int n = 0; n < N_TILES; n++) {
            const float *column = key_tile + (warp_col + 8 * n + g) * stride + k0 + t;
            bf[n][0] = to_tf32(column[0]);
            bf[n][1] = to_tf32(column[4]);
        }
#pragma unroll
        for (int m = 0; m < M_TILES; m++)
#pragma unroll
            for (int n = 0; n < N_TILES; n++)
                mma_tf32(sum[m][n], a[m], bf[n][0], bf[n][1]);
    }

    const float scale = 1.0f / sqrtf((float)HS);
    // TODO: every kept score of sum[m][n][e], scaled, into row i and column j of the head
    (void)preatt, (void)scale, (void)sum; /* write the scores here */
}

static int tensor_fragment_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    if (size.HS % 8 != 0 || size.HS > MAX_HS) {
        snprintf(why, capacity, "HS must be a multiple of 8 and at most %d", MAX_HS);
        return 1;
    }
    return 0;
}

static void tensor_fragment_launch(const triangle_args *args)
{
    static size_t allowed = 48 * 1024;
    const triangle_size s = args->size;
    const size_t bytes = 2 * (size_t)TILE * (s.HS + PAD) * sizeof(float);
    if (bytes > allowed) {
        CUDA_CHECK(cudaFuncSetAttribute((const void *)tensor_fragment_scores,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
        allowed = bytes;
    }
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    tensor_fragment_scores<<<grid, THREADS, bytes, args->stream>>>(args->preatt, args->inp, s.T,
                                                                   s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel tensor_fragment_kernel = {tensor_fragment_refuses, tensor_fragment_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"tf32", 8, CONTENDER_STEP, GPU_PIPE_TENSOR, TOLERANCE_TF32}, &tensor_fragment_kernel};
    return triangle_chapter_main(argc, argv, "08-tensor-epilogue", 8,
                                 "exercise 8.2, the stores of the accumulators", &contender, 1);
}
