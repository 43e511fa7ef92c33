// 09-tf32-split.cu - exercise 9.1: FP32 accuracy from TF32: the split and the products.
//
// exercises/09-tf32-split.cu is the student's copy, made from
// solutions/09-tf32-split.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=09-tf32-split
//   build/exercises/09-tf32-split B=3 T=256 C=384 NH=3 --check-only --input-scale 1e3

/*md
### Exercise 9.1: three products for one

*Difficulty: medium.* File: `exercises/09-tf32-split.cu`.

The kernel in this file is exercise 8.1's tile kernel, checked against the
FP32 tolerance ($10^{-5}$), which TF32 products miss a hundredfold. Make it
pass by splitting every operand, as chapter 9 does, into a big and a small
TF32 part, and by multiplying the parts:

1. `split_tf32(x)`, `__host__ __device__`: the pair `{big, small}` of TF32
   operands (the bits `mma_tf32` takes) with `big` the float nearest to `x`
   that TF32 holds and `small` the rest, `x - big`, exactly. Write it with
   integer operations on the float's bits, so that the host and the device
   compute the same thing (so do chapter 9's kernels: it beats `cvt.rna`).
2. `mma_tf32x3(c, a, b)`: $c \mathrel{+}= AB$ from the split fragments,
   with the products that matter, in an order that keeps the small ones
   from being lost against the accumulator.

Hints:

- TF32 keeps the sign, the exponent and the top 10 of the 23 stored bits:
  a TF32 value has its 13 low bits zero. Rounding to nearest is adding half
  of the last kept bit, then cutting.
- $ab = a_b b_b + a_b b_s + a_s b_b + a_s b_s$: how large is each term
  against $ab$, and which one is below FP32's own rounding?
- The tensor core drops the 13 low bits of an operand it is handed as it
  is; what does that do to `small`?

Check it with `make grade EX=09-tf32-split`. Without a GPU the grader
splits a million floats drawn like the program's inputs, in $\pm 1$, and
emulates your three products on dot products of 64 of them. On a GPU it
runs racecheck and the values, at the usual sizes and with the inputs drawn
in $\pm 10^{-3}$ and $\pm 10^{3}$: the magnitudes the CPU check does not
try. The untouched exercise hands over the floats as they are, one product
each: TF32 accuracy.
*/

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "device/tensor_core.h"
#include "problems/triangle.h"

#define TILE 128    /* scores per block side */
#define THREADS 256 /* 8 warps of 64 x 32 scores */
#define M_TILES 4   /* 16-row tiles of A per warp */
#define N_TILES 4   /* 8-column tiles of B per warp */
#define PAD 4       /* floats added to each row of a tile: bank 4g + t */
#define MAX_HS 128

typedef struct {
    uint32_t big, small; /* two TF32 operands, as mma_tf32 takes them */
} tf32_pair;

__host__ __device__ inline uint32_t bits_of(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

__host__ __device__ inline float float_of(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

__host__ __device__ tf32_pair split_tf32(float x)
{
    tf32_pair pair;
    // exercise:begin big: x rounded to the nearest TF32 value; small: x - big, exact
    /* Half of the last kept bit (bit 13) is 0x1000; adding it carries into
     * the kept bits exactly when the cut part is half or more: round to
     * nearest, ties away from zero, like cvt.rna. x - big is exact: both
     * share sign, exponent and top bits. The small part goes over as it is:
     * the tensor core drops its 13 low bits, 2^-21 of x at most. */
    pair.big = (bits_of(x) + 0x1000u) & 0xffffe000u;
    pair.small = bits_of(x - float_of(pair.big));
    // exercise:stub pair.big = bits_of(x);
    // exercise:stub pair.small = 0;
    // exercise:end
    return pair;
}

/* c += A B for one 16 x 8 x 8 step, A and B split: the fragments of
 * common/device/tensor_core.h, each value a pair. */
__device__ void mma_tf32x3(float (&c)[4], const tf32_pair (&a)[4], const tf32_pair (&b)[2])
{
    const uint32_t a_big[4] = {a[0].big, a[1].big, a[2].big, a[3].big};
    const uint32_t a_small[4] = {a[0].small, a[1].small, a[2].small, a[3].small};
    // exercise:begin the products that keep FP32 accuracy, small ones first
    /* a_s b_s is below 2^-22 of ab: dropped. The two small products go
     * first, while the accumulator is still of their size. */
    mma_tf32(c, a_small, b[0].big, b[1].big);
    mma_tf32(c, a_big, b[0].small, b[1].small);
    mma_tf32(c, a_big, b[0].big, b[1].big);
    // exercise:stub (void)a_small;
    // exercise:stub mma_tf32(c, a_big, b[0].big, b[1].big);
    // exercise:end
}

__global__ void __launch_bounds__(THREADS, 2)
    tf32_split_scores(float *preatt, const float *inp, int T, int NH, int HS)
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

    /* Lane (g, t) holds A rows g, g + 8 at columns t, t + 4, and B column g at
     * rows t, t + 4 (common/device/tensor_core.h). */
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int warp_row = 64 * (warp / 4), warp_col = 32 * (warp % 4);
    float sum[M_TILES][N_TILES][4] = {};
    for (int k0 = 0; k0 < HS; k0 += 8) {
        tf32_pair a[M_TILES][4], bf[N_TILES][2];
#pragma unroll
        for (int m = 0; m < M_TILES; m++) {
            const float *row = query_tile + (warp_row + 16 * m + g) * stride + k0 + t;
            a[m][0] = split_tf32(row[0]);
            a[m][1] = split_tf32(row[8 * stride]);
            a[m][2] = split_tf32(row[4]);
            a[m][3] = split_tf32(row[8 * stride + 4]);
        }
#pragma unroll
        for (int n = 0; n < N_TILES; n++) {
            const float *column = key_tile + (warp_col + 8 * n + g) * stride + k0 + t;
            bf[n][0] = split_tf32(column[0]);
            bf[n][1] = split_tf32(column[4]);
        }
#pragma unroll
        for (int m = 0; m < M_TILES; m++)
#pragma unroll
            for (int n = 0; n < N_TILES; n++)
                mma_tf32x3(sum[m][n], a[m], bf[n]);
    }

    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
    for (int m = 0; m < M_TILES; m++)
        for (int n = 0; n < N_TILES; n++)
            for (int pair = 0; pair < 2; pair++) {
                const int i = blockIdx.y * TILE + warp_row + 16 * m + g + 8 * pair;
                const int j = blockIdx.x * TILE + warp_col + 8 * n + 2 * t;
                if (j <= i)
                    *reinterpret_cast<float2 *>(scores + (size_t)i * T + j) =
                        make_float2(sum[m][n][2 * pair] * scale, sum[m][n][2 * pair + 1] * scale);
            }
}

static int tf32_split_refuses(triangle_size size, char *why, size_t capacity)
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

static void tf32_split_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    const size_t bytes = 2 * (size_t)TILE * (s.HS + PAD) * sizeof(float);
    gpu_allow_shared_memory((const void *)tf32_split_scores, bytes);
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    tf32_split_scores<<<grid, THREADS, bytes, args->stream>>>(args->preatt, args->inp, s.T, s.NH,
                                                              s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel tf32_split_kernel = {tf32_split_refuses, tf32_split_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"tf32x3", 9, CONTENDER_STEP, GPU_PIPE_TENSOR, TOLERANCE_FP32}, &tf32_split_kernel};
    return triangle_chapter_main(argc, argv, "09-tf32-split", 9,
                                 "exercise 9.1, 3xTF32: the split and the products", &contender, 1);
}
