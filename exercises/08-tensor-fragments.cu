// 08-tensor-fragments.cu - exercise 8.1: which values of A and B a lane hands to mma.sync.
//
// exercises/08-tensor-fragments.cu is the student's copy, made from
// solutions/08-tensor-fragments.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-fragments
//   build/exercises/08-tensor-fragments B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 8.1: the fragments, and a padding that serves them

*Difficulty: medium.* File: `exercises/08-tensor-fragments.cu`.

A block of 8 warps computes a $128 \times 128$ tile of scores with
`mma_tf32`, each warp a $64 \times 32$ piece (the comment at the top of the
inlined tile kernel says how). The query and key tiles sit in shared memory
untransposed, `tile[row * stride + k]` with `stride` $= HS +$ `PAD`. The
kernel loads each lane's fragments through four functions, and you write
them, with the padding:

1. `a_row(lane, i)` and `a_col(lane, i)`: the row (query) and the column
   (value of $k$) of $A$ that value $i = 0 \ldots 3$ of lane `lane` holds;
2. `b_row(lane, i)` and `b_col(lane, i)`: the row (value of $k$) and the
   column (key) of $B$ for $i = 0, 1$;
3. `PAD`: the floats added to each row, so that every fragment load of a
   warp takes one wavefront, at every head size the grader uses
   ($HS$ = 32, 48, 64, 128).

The layout is the instruction's, and the PTX ISA gives it ("Matrix
Fragments for mma.m16n8k8", for `.tf32`); chapter 8 states it in words.

Hints:

- $B$ is an $8 \times 8$ block of $K^T$: its column is a key, a row of
  the key tile. That is why both tiles can stay untransposed.
- Lane $(g, t)$ reads word $(r_0 + g) \cdot \mathit{stride} + k_0 + t$ for
  `a[m][0]`. In which bank, for a stride of 64? Of 68? Does your answer
  still hold at $HS = 48$?

Check it with `make grade EX=08-tensor-fragments`. Without a GPU the grader
compares your four functions with the instruction's layout for every lane
and counts the wavefronts of every fragment load; on a GPU it runs
racecheck, the values (TF32 tolerance, 2e-3) and Nsight Compute's count of
the loads' bank conflicts. The untouched exercise hands every lane the
same value.
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

// TODO: PAD, the floats added to each row of a tile
#define PAD 0
// TODO end

/* The fragments of A: value i (0..3) of lane `lane` is A[a_row][a_col]. */
__host__ __device__ int a_row(int lane, int i)
{
    // TODO: the row of A that value i of the lane holds
    (void)lane, (void)i;
    return 0;
    // TODO end
}

__host__ __device__ int a_col(int lane, int i)
{
    // TODO: the column of A (the value of k) that value i holds
    (void)lane, (void)i;
    return 0;
    // TODO end
}

/* The fragments of B: value i (0..1) of lane `lane` is B[b_row][b_col]. */
__host__ __device__ int b_row(int lane, int i)
{
    // TODO: the row of B (the value of k) that value i holds
    (void)lane, (void)i;
    return 0;
    // TODO end
}

__host__ __device__ int b_col(int lane, int i)
{
    // TODO: the column of B (the key) that value i holds
    (void)lane, (void)i;
    return 0;
    // TODO end
}

/* The accumulators: value i (0..3) of lane `lane` is C[c_row][c_col]. */
__host__ __device__ int c_row(int lane, int i)
{
    return lane / 4 + 8 * (i / 2);
}

__host__ __device__ int c_col(int lane, int i)
{
    return 2 * (lane % 4) + i % 2;
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
    float *scores = preatt + (size_t)blockIdx.z * T * T;
    const float scale = 1.0f / sqrtf((float)HS);
    /* Accumulators 0, 1 (and 2, 3) of a lane are neighbours in one row, the
     * first at an even column: one aligned 8-byte store, written when its
     * first column is kept (the second may be a masked score). */
#pragma unroll
    for (int m = 0; m < M_TILES; m++)
#pragma unroll
        for (int n = 0; n < N_TILES; n++)
#pragma unroll
            for (int pair = 0; pair < 2; pair++) {
                const int i = first_row + 16 * m + c_row(lane, 2 * pair);
                const int j = first_col + 8 * n + c_col(lane, 2 * pair);
                if (j <= i)
                    *reinterpret_cast<float2 *>(scores + (size_t)i * T + j) =
                        make_float2(sum[m][n][2 * pair] * scale, sum[m][n][2 * pair + 1] * scale);
            }
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
    return triangle_chapter_main(argc, argv, "08-tensor-fragments", 8,
                                 "exercise 8.1, the fragments of mma.sync", &contender, 1);
}
