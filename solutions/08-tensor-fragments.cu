// 08-tensor-fragments.cu - exercise 8.1: hand the tiles to the tensor cores.
//
// exercises/08-tensor-fragments.cu is the student's copy, made from
// solutions/08-tensor-fragments.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-fragments
//   build/exercises/08-tensor-fragments B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 8.1: load the fragments

*Difficulty: medium.* File: `exercises/08-tensor-fragments.cu`.

A block of 8 warps computes a $128 \times 128$ tile of scores, each warp a
$64 \times 32$ piece of it, with `mma_tf32` (from `common/tensor_core.h`).
The query and key tiles are already in shared memory, untransposed:
`query_tile[row * stride + k]` and `key_tile[row * stride + k]`, with
`stride` $= HS + 4$. The products and the stores are written. What is not
written is the step between them: for one step of 8 values of $k$
(`k0` to `k0 + 7`), fill the lane's fragments `a[m][0..3]` for its 4 m-tiles
of 16 query rows and `b[n][0..1]` for its 4 n-tiles of 8 keys, rounded to
TF32 with `to_tf32`.

The layout of the fragments is in the comment at the top of
`common/tensor_core.h` (and in chapter 8): with $g$ = lane / 4 and $t$ =
lane % 4, `a` holds rows $g$ and $g + 8$ of $A$ at columns $t$ and
$t + 4$, and `b` holds column $g$ of $B$ at rows $t$ and $t + 4$.

Hints:

- $A$ is a $16 \times 8$ block of the query tile: its row is a query row,
  its column a value of $k$. M-tile `m` of the warp starts at query row
  `warp_row + 16 * m`.
- $B$ is an $8 \times 8$ block of $K^T$. Column $n$ of $K^T$ is row $n$ of
  the key tile, so `b` reads the key tile row by row too. N-tile `n`
  starts at key row `warp_col + 8 * n`.
- Why the `+ 4` in the stride? Work out the bank of each of the 32 words a
  warp reads for `a[m][0]`, with a stride of 68 and with one of 64.

Check it with `make grade EX=08-tensor-fragments`. The untouched exercise
hands zeros to the tensor cores, and the referee says how far that is from
the truth (the check allows the TF32 tolerance, 2e-3).
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
        // exercise:begin the lane's fragments of A (4 m-tiles) and B (4 n-tiles) for k0 .. k0 + 7
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
        // exercise:stub for (int m = 0; m < M_TILES; m++) a[m][0] = a[m][1] = a[m][2] = a[m][3] = 0;
        // exercise:stub for (int n = 0; n < N_TILES; n++) bf[n][0] = bf[n][1] = 0;
        // exercise:end
#pragma unroll
        for (int m = 0; m < M_TILES; m++)
#pragma unroll
            for (int n = 0; n < N_TILES; n++)
                mma_tf32(sum[m][n], a[m], bf[n][0], bf[n][1]);
    }

    /* Lane (g, t) holds, of each 16 x 8 tile, rows g and g + 8 at columns 2t and 2t + 1. */
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
    for (int m = 0; m < M_TILES; m++)
        for (int n = 0; n < N_TILES; n++)
            for (int e = 0; e < 4; e++) {
                const int i = blockIdx.y * TILE + warp_row + 16 * m + g + 8 * (e / 2);
                const int j = blockIdx.x * TILE + warp_col + 8 * n + 2 * t + e % 2;
                if (j <= i)
                    scores[(size_t)i * T + j] = sum[m][n][e] * scale;
            }
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
    return triangle_chapter_main(argc, argv, "08-tensor-fragments", 8,
                                 "exercise 8.1, the fragments of mma.sync", &contender, 1);
}
