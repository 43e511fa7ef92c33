// 08-tensor-epilogue.cu - exercise 8.2: which scores the accumulators hold, stored in pairs.
//
// exercises/08-tensor-epilogue.cu is the student's copy, made from
// solutions/08-tensor-epilogue.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-epilogue
//   build/exercises/08-tensor-epilogue B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 8.2: the accumulators, stored 8 bytes at a time

*Difficulty: medium.* File: `exercises/08-tensor-epilogue.cu`.

The same tile kernel as exercise 8.1, its fragments written this time:
each warp has accumulated its $64 \times 32$ piece in `sum[m][n][0..3]`,
one $16 \times 8$ tile of $C$ per m-tile `m` and n-tile `n`. Write:

1. `c_row(lane, i)` and `c_col(lane, i)`: the row (query) and column (key)
   within the $16 \times 8$ tile of accumulator $i = 0 \ldots 3$ of lane
   `lane`, as the instruction lays them out;
2. the epilogue: every kept score ($j \le i$), scaled by $1/\sqrt{HS}$,
   into `preatt`, with **8-byte stores**: each lane's accumulators come in
   pairs that are neighbours in one row, and each pair is one `float2`.

The grader checks your two functions on the CPU against the instruction's
layout, and that the pairs you store are neighbours at an even column; it
reads the PTX for 8-byte stores and no 4-byte ones (with `cuobjdump`, the
machine code for `STG.E.64`); on a GPU, memcheck and the values.

Hints:

- Why even? An 8-byte store must be 8-byte aligned, and `preatt` rows are
  $T$ floats apart, $T$ a multiple of 128.
- On the diagonal a pair may hold one kept and one masked score. The
  referee ignores masked ones: when is a pair worth writing?

Check it with `make grade EX=08-tensor-epilogue`. The untouched exercise
writes nothing, so every score stays NaN.
*/

/* 08-tensor-tile.cuh - the tensor-core tile kernel that exercises 8.1
 * (fragments) and 8.2 (epilogue) share.
 *
 * A block of 8 warps computes a 128 x 128 tile of scores, each warp a
 * 64 x 32 piece of it: 4 m-tiles of 16 query rows by 4 n-tiles of 8 keys,
 * one mma_tf32 (common/device/tensor_core.h) per pair and step of 8 values of k.
 * The block copies its query and key tiles into shared memory as they sit
 * in global memory, row by row (`tile[row * stride + k]`, stride = HS +
 * PAD); each lane then loads its fragments of A and B from there, and at
 * the end stores the scores its accumulators hold.
 *
 * Which value of A, B and C a lane holds is fixed by the instruction. With
 * lane = 4 g + t (g = lane / 4, t = lane % 4), the functions below say it:
 * a_row and a_col for the 4 values of A (16 x 8, rows are queries, columns
 * values of k), b_row and b_col for the 2 of B (8 x 8, rows values of k,
 * columns keys), c_row and c_col for the 4 accumulators of C (16 x 8).
 *
 * Each exercise inlines this file (`#include "08-tensor-tile.cuh" //
 * exercise:inline`); its regions become that exercise's TODOs.
 */

#include <math.h>
#include <stdint.h>

#include "device/tensor_core.h"
#include "problems/triangle.h"

#define TILE 128    /* scores per block side */
#define THREADS 256 /* 8 warps of 64 x 32 scores */
#define M_TILES 4   /* 16-row tiles of A per warp */
#define N_TILES 4   /* 8-column tiles of B per warp */
#define MAX_HS 128

/* Lane (g, t) reads word (row0 + g) stride + t: bank 4g + t when stride = 4 (mod 32). */
#define PAD 4

/* The fragments of A: value i (0..3) of lane `lane` is A[a_row][a_col]. */
__host__ __device__ int a_row(int lane, int i)
{
    return lane / 4 + 8 * (i % 2);
}

__host__ __device__ int a_col(int lane, int i)
{
    return lane % 4 + 4 * (i / 2);
}

/* The fragments of B: value i (0..1) of lane `lane` is B[b_row][b_col]. */
__host__ __device__ int b_row(int lane, int i)
{
    return lane % 4 + 4 * i;
}

__host__ __device__ int b_col(int lane, int i)
{
    (void)i;
    return lane / 4;
}

/* The accumulators: value i (0..3) of lane `lane` is C[c_row][c_col]. */
__host__ __device__ int c_row(int lane, int i)
{
    // TODO: the row of C (the query) that accumulator i holds
    (void)lane, (void)i;
    return 0;
    // TODO end
}

__host__ __device__ int c_col(int lane, int i)
{
    // TODO: the column of C (the key) that accumulator i holds
    (void)lane, (void)i;
    return 0;
    // TODO end
}

__global__ void __launch_bounds__(THREADS, 2)
    tensor_tile_scores(float *preatt, const float *inp, int T, int NH, int HS)
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

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_row = 64 * (warp / 4), warp_col = 32 * (warp % 4);
    float sum[M_TILES][N_TILES][4] = {};
    for (int k0 = 0; k0 < HS; k0 += 8) {
        uint32_t a[M_TILES][4], bf[N_TILES][2];
#pragma unroll
        for (int m = 0; m < M_TILES; m++)
#pragma unroll
            for (int i = 0; i < 4; i++)
                a[m][i] = to_tf32(query_tile[(warp_row + 16 * m + a_row(lane, i)) * stride + k0 +
                                             a_col(lane, i)]);
#pragma unroll
        for (int n = 0; n < N_TILES; n++)
#pragma unroll
            for (int i = 0; i < 2; i++) /* column n of K^T is row n of the key tile */
                bf[n][i] = to_tf32(key_tile[(warp_col + 8 * n + b_col(lane, i)) * stride + k0 +
                                            b_row(lane, i)]);
#pragma unroll
        for (int m = 0; m < M_TILES; m++)
#pragma unroll
            for (int n = 0; n < N_TILES; n++)
                mma_tf32(sum[m][n], a[m], bf[n][0], bf[n][1]);
    }

    /* The tile's first query row and first key of this warp's piece, in the head. */
    const int first_row = blockIdx.y * TILE + warp_row, first_col = blockIdx.x * TILE + warp_col;
    // TODO: each pair holding a kept score, scaled: one float2
    (void)first_row, (void)first_col, (void)preatt, (void)sum;
    // TODO end
}

static int tensor_tile_refuses(triangle_size size, char *why, size_t capacity)
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

static void tensor_tile_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    const size_t bytes = 2 * (size_t)TILE * (s.HS + PAD) * sizeof(float);
    gpu_allow_shared_memory((const void *)tensor_tile_scores, bytes);
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    tensor_tile_scores<<<grid, THREADS, bytes, args->stream>>>(args->preatt, args->inp, s.T, s.NH,
                                                               s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel tensor_tile_kernel = {tensor_tile_refuses, tensor_tile_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"tf32", 8, CONTENDER_STEP, GPU_PIPE_TENSOR, TOLERANCE_TF32}, &tensor_tile_kernel};
    return triangle_chapter_main(argc, argv, "08-tensor-epilogue", 8,
                                 "exercise 8.2, the accumulators in pairs", &contender, 1);
}
