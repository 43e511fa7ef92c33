// chapters/09-precision/tried/split.cu - Chapter 9's 3xTF32 triangle, the variants not kept.
//
// Built into build/chapter9-tried, which races them against tf32x3 and the cuBLAS champions:
//
//   make build/chapter9-tried && build/chapter9-tried

/*md
# Precision on tensor cores: the splits not kept

Three variants of `tf32x3` were measured beside it. This file includes the
chapter's header (`precision.cuh`), so that all three use its copies and
its stores.
*/

#include "../precision.cuh"

/*md
## Rounding the small part too

`tf32x3+rounded` rounds the residual to TF32 too, with a second
`round_to_tf32`, instead of letting the tensor core drop its low bits.
That halves the error of the small part ($2^{-22}$ of $|x|$ instead of
$2^{-21}$), and costs two instructions per operand.
*/

// book:hide
struct split_rounded {
    static __device__ __forceinline__ tf32_pair of(float x) { return split_operand<true>(x); }
};

static void tf32x3_rounded_launch(const triangle_args *args)
{
    tf32x3_launch_with<split_rounded>(args);
}
extern const triangle_kernel tf32x3_rounded_kernel =
    {tf32_refuses, tf32x3_rounded_launch, tf32x3_unfit};
// book:show

/*md
## Rounding with the conversion instruction

`tf32x3+cvt` rounds the big part with `cvt.rna.tf32.f32`, the instruction
PTX offers for it, instead of `round_to_tf32`'s two integer instructions.
For a finite float both give the same TF32 value (tests/test_device.cu
compares them on the GPU, ties, subnormals and signed zeros among the
inputs), so the scores are the same to the last bit; only the time
differs: {{median_ms|tf32x3+cvt|B=8 T=1024 C=768 NH=12}} ms against
{{median_ms|tf32x3|B=8 T=1024 C=768 NH=12}} ms at the default size.
*/

struct split_cvt {
    static __device__ __forceinline__ tf32_pair of(float x)
    {
        tf32_pair pair;
        pair.big = to_tf32(x); /* cvt.rna.tf32.f32 */
        pair.small = __float_as_uint(x - __uint_as_float(pair.big));
        return pair;
    }
};

// book:hide
static void tf32x3_cvt_launch(const triangle_args *args)
{
    tf32x3_launch_with<split_cvt>(args);
}
extern const triangle_kernel tf32x3_cvt_kernel = {tf32_refuses, tf32x3_cvt_launch, tf32x3_unfit};
// book:show

/*md
## Four-byte loads

`tf32x3+scalar` was the first version: chapter 8's tiles exactly (rows of
$HS + 4$ floats), chapter 8's fragments (column $t$ is $k + t$, column
$t + 4$ is $k + t + 4$), so every operand is its own 4-byte load, and both
parts rounded. The same products, twice the shared-memory loads of
`tf32x3`.
*/

__device__ __forceinline__ void scalar_multiply_tile(float (&sum)[TF32_M_TILES][TF32_N_TILES][4],
                                                     const float *query_tile,
                                                     const float *key_tile, int warp_row,
                                                     int warp_col, int HS)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, stride = HS + TF32_PAD;
    const float *a_lane = query_tile + (warp_row + g) * stride + t;
    const float *b_lane = key_tile + (warp_col + g) * stride + t;
    for (int k = 0; k < HS; k += TF32_STEP) {
        tf32_pair b[TF32_N_TILES][2];
#pragma unroll
        for (int n = 0; n < TF32_N_TILES; n++) {
            const float *p = b_lane + 8 * n * stride + k;
            b[n][0] = split_operand<true>(p[0]);
            b[n][1] = split_operand<true>(p[4]);
        }
#pragma unroll
        for (int m = 0; m < TF32_M_TILES; m++) {
            const float *p = a_lane + 16 * m * stride + k;
            const tf32_pair a0 = split_operand<true>(p[0]), a1 = split_operand<true>(p[8 * stride]),
                            a2 = split_operand<true>(p[4]),
                            a3 = split_operand<true>(p[8 * stride + 4]);
            const uint32_t a_big[4] = {a0.big, a1.big, a2.big, a3.big};
            const uint32_t a_small[4] = {a0.small, a1.small, a2.small, a3.small};
#pragma unroll
            for (int n = 0; n < TF32_N_TILES; n++) {
                mma_tf32(sum[m][n], a_small, b[n][0].big, b[n][1].big);
                mma_tf32(sum[m][n], a_big, b[n][0].small, b[n][1].small);
                mma_tf32(sum[m][n], a_big, b[n][0].big, b[n][1].big);
            }
        }
    }
}

// book:hide
struct scalar_multiply {
    static __device__ __forceinline__ void tile(float (&sum)[TF32_M_TILES][TF32_N_TILES][4],
                                                const float *query_tile, const float *key_tile,
                                                int warp_row, int warp_col, int HS)
    {
        scalar_multiply_tile(sum, query_tile, key_tile, warp_row, warp_col, HS);
    }
};

template <bool ACCUMULATE>
__global__ void __launch_bounds__(TF32_THREADS, 2)
    scalar_rows_scores(float *preatt, const float *__restrict__ inp, int B, int T, int NH, int HS,
                       int k_count)
{
    extern __shared__ float4 scalar_space[];
    tf32_walk_row<scalar_multiply, TF32_PAD, ACCUMULATE>(
        preatt, inp, B, T, NH, HS, k_count, reinterpret_cast<float *>(scalar_space));
}

static void tf32x3_scalar_launch(const triangle_args *args)
{
    tf32_launch_parts(args, scalar_rows_scores<false>, scalar_rows_scores<true>,
                      tf32_rows_grid(args->size), 3, TF32_PAD);
}
extern const triangle_kernel tf32x3_scalar_kernel =
    {tf32_refuses, tf32x3_scalar_launch, tf32_rows_unfit};
// book:show
