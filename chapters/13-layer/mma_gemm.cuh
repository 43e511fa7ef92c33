// chapters/13-layer/mma_gemm.cuh - the 3xTF32 projection GEMM on mma.sync: the layer's
// GEMM on cards before Hopper (sm_80, sm_86, sm_89), where wgmma and the copy engine are
// missing, and the tried variant fused-tiled-tf32x3+mma on Hopper.
//
// Included by layer.cuh (tf32x3_gemm falls back to it) and tried/tried.cu.

#ifndef CHAPTER11_MMA_GEMM_CUH
#define CHAPTER11_MMA_GEMM_CUH

#include "problems/msa.h"
#include "device/async_copy.h"
#include "device/tensor_core.h"
#include "device/tf32_split.h"

/* Y = X W^T for row-major X (rows x in) and W (out x in), one block per
 * 128 x 128 tile of Y: chapter 8's tile of eight warps of 64 x 32, stages of
 * 32 values of k in a ring of SYNC_STAGES, and the triangle's split multiply,
 * each warp splitting the fragments of both operands itself. */
#define SYNC_TILE 128                /* rows and columns of Y per block */
#define SYNC_DEPTH 32                /* values of k per stage */
#define SYNC_STRIDE (SYNC_DEPTH + 8) /* floats per row of a stage: 8 mod 32, as in tf32x3 */
#define SYNC_THREADS 256             /* 8 warps: 2 x 4 of 64 x 32 outputs */
#define SYNC_STAGE_FLOATS (2 * SYNC_TILE * SYNC_STRIDE) /* the rows of X, then the rows of W: 40 KB */
static_assert(SYNC_STRIDE % 32 == 8, "a stage's rows 8 banks apart, as in tf32x3");
static_assert((SYNC_THREADS / 32) * 64 * 32 == SYNC_TILE * SYNC_TILE,
              "8 warps of 64 x 32 outputs cover the tile once");
static_assert(SYNC_STAGE_FLOATS * 4 == 40 * 1024, "a stage is 40 KB");

/* Starts the copies of the stage at k0: rows of X and of W, the values of
 * k below `in`. Past the last row (or output column) the last one stands in;
 * what is computed from it is never stored. */
static __device__ __forceinline__ void sync_fetch(float *stage, const float *x, int ldx, const float *w,
                                           int ldw, long first_row, long rows, int first_col,
                                           int out, int k0, int in)
{
    constexpr int PARTS = SYNC_DEPTH / 4; /* 16-byte pieces per row */
    for (int chunk = threadIdx.x; chunk < SYNC_TILE * PARTS; chunk += SYNC_THREADS) {
        const int r = chunk / PARTS, k = k0 + 4 * (chunk % PARTS);
        if (k >= in)
            continue;
        const long row = min(first_row + r, rows - 1);
        const int col = min(first_col + r, out - 1);
        float *to = stage + r * SYNC_STRIDE + (k - k0);
        copy_async_16(to, x + row * ldx + k);
        copy_async_16(to + SYNC_TILE * SYNC_STRIDE, w + (size_t)col * ldw + k);
    }
}

/* sum += the stage's X rows times its W rows, over `depth` values of k (a
 * multiple of 8): 4 x 4 tiles of 16 x 8 per warp, three products each. */
static __device__ __forceinline__ void sync_multiply(float (&sum)[4][4][4], const float *stage,
                                              int warp_row, int warp_col, int depth)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const float *a_lane = stage + (warp_row + g) * SYNC_STRIDE + 2 * t;
    const float *b_lane = stage + (SYNC_TILE + warp_col + g) * SYNC_STRIDE + 2 * t;
#pragma unroll
    for (int k = 0; k < SYNC_DEPTH; k += 8) {
        if (k >= depth)
            break;
        tf32_pair b[4][2]; /* this step's B fragments, split once */
#pragma unroll
        for (int n = 0; n < 4; n++) {
            const float2 v = *reinterpret_cast<const float2 *>(b_lane + 8 * n * SYNC_STRIDE + k);
            b[n][0] = split_operand<false>(v.x); /* fragment row t:     k + 2t */
            b[n][1] = split_operand<false>(v.y); /* fragment row t + 4: k + 2t + 1 */
        }
#pragma unroll
        for (int m = 0; m < 4; m++) {
            const float *p = a_lane + 16 * m * SYNC_STRIDE + k;
            const float2 top = *reinterpret_cast<const float2 *>(p);                      /* g */
            const float2 bottom = *reinterpret_cast<const float2 *>(p + 8 * SYNC_STRIDE); /* g+8 */
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

template <int SYNC_STAGES>
__global__ void __launch_bounds__(SYNC_THREADS, 1)
    tf32x3_sync_gemm_kernel(float *y, int ldy, const float *__restrict__ x, int ldx,
                            const float *__restrict__ w, int ldw, int out, int in, long rows)
{
    extern __shared__ float4 sync_space[];
    float *ring = reinterpret_cast<float *>(sync_space);
    /* neighbouring blocks share rows of X */
    const int col_tiles = (out + SYNC_TILE - 1) / SYNC_TILE;
    const long first_row = (long)(blockIdx.x / col_tiles) * SYNC_TILE;
    const int first_col = (int)(blockIdx.x % col_tiles) * SYNC_TILE;
    const int warp = threadIdx.x / 32, warp_row = warp / 4 * 64, warp_col = warp % 4 * 32;
    const int stages = (in + SYNC_DEPTH - 1) / SYNC_DEPTH;

    for (int s = 0; s < SYNC_STAGES - 1; s++) {
        if (s < stages)
            sync_fetch(ring + s * SYNC_STAGE_FLOATS, x, ldx, w, ldw, first_row, rows, first_col,
                       out, s * SYNC_DEPTH, in);
        copy_async_commit();
    }
    float total[4][4][4] = {};
    for (int s = 0; s < stages; s++) {
        copy_async_wait<SYNC_STAGES - 2>(); /* this thread's copies of stage s have landed */
        __syncthreads(); /* everyone's have, and stage s - 1's buffer is free again */
        const int next = s + SYNC_STAGES - 1;
        if (next < stages)
            sync_fetch(ring + next % SYNC_STAGES * SYNC_STAGE_FLOATS, x, ldx, w, ldw, first_row,
                       rows, first_col, out, next * SYNC_DEPTH, in);
        copy_async_commit();
        float sum[4][4][4] = {};
        sync_multiply(sum, ring + s % SYNC_STAGES * SYNC_STAGE_FLOATS, warp_row, warp_col,
                      min(SYNC_DEPTH, in - s * SYNC_DEPTH));
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

/* The layer's sizes (tiled_refuses): in and out multiples of 8, strides
 * multiples of 4 (16-byte copies, 8-byte stores), rows at least 1. A ring of
 * three stages (120 KB) where the card holds it, else two (80 KB). */
static int tf32x3_mma_gemm_stages(size_t limit)
{
    return 3 * SYNC_STAGE_FLOATS * sizeof(float) <= limit   ? 3
           : 2 * SYNC_STAGE_FLOATS * sizeof(float) <= limit ? 2
                                                             : 0;
}

static void tf32x3_mma_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                            const float *w, int ldw, int out, int in, long rows)
{
    const int stages = tf32x3_mma_gemm_stages(gpu_query().shared_per_block_optin);
    const size_t bytes = stages * SYNC_STAGE_FLOATS * sizeof(float);
    const long row_tiles = (rows + SYNC_TILE - 1) / SYNC_TILE;
    const long blocks = row_tiles * ((out + SYNC_TILE - 1) / SYNC_TILE);
    if (stages == 3) {
        gpu_allow_shared_memory((const void *)tf32x3_sync_gemm_kernel<3>, bytes);
        tf32x3_sync_gemm_kernel<3><<<(unsigned)blocks, SYNC_THREADS, bytes, args->stream>>>(
            y, ldy, x, ldx, w, ldw, out, in, rows);
    } else {
        gpu_allow_shared_memory((const void *)tf32x3_sync_gemm_kernel<2>, bytes);
        tf32x3_sync_gemm_kernel<2><<<(unsigned)blocks, SYNC_THREADS, bytes, args->stream>>>(
            y, ldy, x, ldx, w, ldw, out, in, rows);
    }
    LAUNCH_CHECK();
}

/* Whether the card holds two stages of the ring (every card with TF32 does). */
static int tf32x3_mma_gemm_unfit(const gpu_info *gpu, char *why, size_t capacity)
{
    return gpu_lacks_shared_memory(gpu, 2 * SYNC_STAGE_FLOATS * sizeof(float),
                                   "the mma.sync GEMM's two stages", why, capacity);
}

#endif
