// chapters/09-precision/projections.cu - Chapter 9: the MSA layer's projection GEMMs in 3xTF32,
// Y = X W^T on the tensor cores (cuBLAS has no 3xTF32 on Hopper); fused-tiled-tf32x3 calls it.
//
//   make build/chapter9-msa
//   build/chapter9-msa --kernel fused-tiled-tf32x3 B=1 S=512 N=256 D=256 H=8 --reps 20

/*md
## The projection GEMM, in code

`tf32x3_gemm` computes $Y = X W^T$ for row-major $X$ (rows $\times$ in)
and $W$ (out $\times$ in), which is how the layer stores its activations
and its weights: both operands run along $k$ in memory, so a row of $X$
is a row of $A$ and a row of $W$ a column of $B$, `mma.sync`'s
`.row.col` as it is. A block computes a tile of $128 \times 128$ outputs
with eight warps of $64 \times 32$, chapter 8's tile, and walks $k$ in
stages of 32 through a ring of three buffers in shared memory, filled by
`cp.async` two stages ahead (chapter 5). The multiply of a stage is the
triangle's `tf32x3` multiply: the fragments loaded as pairs of
neighbouring floats (fragment column $t$ is $k = 2t$), rows padded to
$32 + 8$ floats so that those 8-byte loads are free of bank conflicts, the
$B$ fragments of a step split once, then each m-tile's $A$ fragment split
and multiplied with them.
*/

// book:hide
#include <stdint.h>

#include "msa.h"
#include "msa_tiled_layer.h" /* tiled_gemm_fn's arguments */
#include "tf32_split.h"      /* split_operand, mma_tf32x3 */
// book:show

#define X3_TILE 128                  /* rows and columns of Y per block */
#define X3_DEPTH 32                  /* values of k per stage */
#define X3_STAGES 3                  /* buffers in the ring */
#define X3_STRIDE (X3_DEPTH + 8)     /* floats per row of a stage: 8 mod 32, as in tf32x3 */
#define X3_THREADS 256               /* 8 warps: 2 x 4 of 64 x 32 outputs */
#define X3_STAGE_FLOATS (2 * X3_TILE * X3_STRIDE) /* the rows of X, then the rows of W */

/* Starts the copies of the stage at k0: rows of X and of W, the values of
 * k below `in`. Past the last row (or output column) the last one stands in;
 * what is computed from it is never stored. */
__device__ __forceinline__ void x3_fetch(float *stage, const float *x, int ldx, const float *w,
                                         int ldw, long first_row, long rows, int first_col,
                                         int out, int k0, int in)
{
    constexpr int PARTS = X3_DEPTH / 4; /* 16-byte pieces per row */
    for (int chunk = threadIdx.x; chunk < X3_TILE * PARTS; chunk += X3_THREADS) {
        const int r = chunk / PARTS, k = k0 + 4 * (chunk % PARTS);
        if (k >= in)
            continue;
        const long row = min(first_row + r, rows - 1);
        const int col = min(first_col + r, out - 1);
        float *to = stage + r * X3_STRIDE + (k - k0);
        copy_async_16(to, x + row * ldx + k);
        copy_async_16(to + X3_TILE * X3_STRIDE, w + (size_t)col * ldw + k);
    }
}

/* sum += the stage's X rows times its W rows, over `depth` values of k (a
 * multiple of 8): 4 x 4 tiles of 16 x 8 per warp, three products each. */
__device__ __forceinline__ void x3_multiply(float (&sum)[4][4][4], const float *stage,
                                            int warp_row, int warp_col, int depth)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const float *a_lane = stage + (warp_row + g) * X3_STRIDE + 2 * t;
    const float *b_lane = stage + (X3_TILE + warp_col + g) * X3_STRIDE + 2 * t;
#pragma unroll
    for (int k = 0; k < X3_DEPTH; k += 8) {
        if (k >= depth)
            break;
        tf32_pair b[4][2]; /* this step's B fragments, split once */
#pragma unroll
        for (int n = 0; n < 4; n++) {
            const float2 v = *reinterpret_cast<const float2 *>(b_lane + 8 * n * X3_STRIDE + k);
            b[n][0] = split_operand<false>(v.x); /* fragment row t:     k + 2t */
            b[n][1] = split_operand<false>(v.y); /* fragment row t + 4: k + 2t + 1 */
        }
#pragma unroll
        for (int m = 0; m < 4; m++) {
            const float *p = a_lane + 16 * m * X3_STRIDE + k;
            const float2 top = *reinterpret_cast<const float2 *>(p);                    /* g */
            const float2 bottom = *reinterpret_cast<const float2 *>(p + 8 * X3_STRIDE); /* g+8 */
            const tf32_pair a0 = split_operand<false>(top.x), a1 = split_operand<false>(bottom.x),
                            a2 = split_operand<false>(top.y), a3 = split_operand<false>(bottom.y);
            const uint32_t big[4] = {a0.big, a1.big, a2.big, a3.big};
            const uint32_t small[4] = {a0.small, a1.small, a2.small, a3.small};
#pragma unroll
            for (int n = 0; n < 4; n++)
                mma_tf32x3(sum[m][n], big, small, b[n][0], b[n][1]);
        }
    }
}

/*md
The kernel adds each stage's products in accumulators of their own, fresh
at zero, and those to the output's running sums in the FP32 lanes: with
$k$ up to 264, 99 products would otherwise feed each accumulator, and the
tensor core's one-sided additions would leave twice the error that
the triangle's `tf32x3` showed at $HS = 128$. Twelve products per chain
cost 64 more registers and one addition per output and stage.
*/

__global__ void __launch_bounds__(X3_THREADS, 1)
    tf32x3_gemm_kernel(float *y, int ldy, const float *__restrict__ x, int ldx,
                       const float *__restrict__ w, int ldw, int out, int in, long rows)
{
    extern __shared__ float4 x3_space[];
    float *ring = reinterpret_cast<float *>(x3_space);
    const int col_tiles = (out + X3_TILE - 1) / X3_TILE; /* neighbouring blocks share rows of X */
    const long first_row = (long)(blockIdx.x / col_tiles) * X3_TILE;
    const int first_col = (int)(blockIdx.x % col_tiles) * X3_TILE;
    const int warp = threadIdx.x / 32, warp_row = warp / 4 * 64, warp_col = warp % 4 * 32;
    const int stages = (in + X3_DEPTH - 1) / X3_DEPTH;

    for (int s = 0; s < X3_STAGES - 1; s++) {
        if (s < stages)
            x3_fetch(ring + s * X3_STAGE_FLOATS, x, ldx, w, ldw, first_row, rows, first_col, out,
                     s * X3_DEPTH, in);
        copy_async_commit();
    }
    float total[4][4][4] = {};
    for (int s = 0; s < stages; s++) {
        copy_async_wait<X3_STAGES - 2>(); /* this thread's copies of stage s have landed */
        __syncthreads(); /* everyone's have, and stage s - 1's buffer is free again */
        const int next = s + X3_STAGES - 1;
        if (next < stages)
            x3_fetch(ring + next % X3_STAGES * X3_STAGE_FLOATS, x, ldx, w, ldw, first_row, rows,
                     first_col, out, next * X3_DEPTH, in);
        copy_async_commit();
        float sum[4][4][4] = {};
        x3_multiply(sum, ring + s % X3_STAGES * X3_STAGE_FLOATS, warp_row, warp_col,
                    min(X3_DEPTH, in - s * X3_DEPTH));
#pragma unroll
        for (int m = 0; m < 4; m++)
#pragma unroll
            for (int n = 0; n < 4; n++)
#pragma unroll
                for (int e = 0; e < 4; e++)
                    total[m][n][e] += sum[m][n][e];
    }

    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int m = 0; m < 4; m++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const long row = first_row + warp_row + 16 * m + g + 8 * half;
            if (row >= rows)
                continue;
#pragma unroll
            for (int n = 0; n < 4; n++) {
                const int col = first_col + warp_col + 8 * n + 2 * t;
                if (col < out) /* out is a multiple of 8: col + 1 is inside too */
                    *reinterpret_cast<float2 *>(y + row * ldy + col) =
                        make_float2(total[m][n][2 * half], total[m][n][2 * half + 1]);
            }
        }
}

// book:hide
/* The layer's sizes (tiled_refuses): in and out multiples of 8, strides
 * multiples of 4 (16-byte copies, 8-byte stores), rows at least 1. */
void tf32x3_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                 const float *w, int ldw, int out, int in, long rows)
{
    const size_t bytes = X3_STAGES * X3_STAGE_FLOATS * sizeof(float);
    gpu_allow_shared_memory((const void *)tf32x3_gemm_kernel, bytes);
    const long row_tiles = (rows + X3_TILE - 1) / X3_TILE;
    const long blocks = row_tiles * ((out + X3_TILE - 1) / X3_TILE);
    tf32x3_gemm_kernel<<<(unsigned)blocks, X3_THREADS, bytes, args->stream>>>(y, ldy, x, ldx, w,
                                                                             ldw, out, in, rows);
    LAUNCH_CHECK();
}
// book:show
