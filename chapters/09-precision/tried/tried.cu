// chapters/09-precision/tried/tried.cu - Chapter 9's roads not taken for the MSA layer: every
// operand rounded to TF32 (fused-tiled-tf32+rounded), and the 3xTF32 projections on mma.sync.
//
//   make build/chapter9-tried && build/chapter9-tried B=1 S=512 N=256 D=256 H=8 --reps 20

/*md
# Precision on tensor cores: the roads not taken

## Every operand rounded: `fused-tiled-tf32+rounded`

The chapter's TF32 attention rounds only the queries to TF32 and hands the
keys, the values and the weights to the tensor cores as plain floats, which
the instruction cuts. This variant rounds every operand to nearest
(`TF32_ROUNDED` in `tiled_attention_tf32`): each stage of keys and values
in place, once per block, by the threads that copied it
(`round_stage_to_tf32`), and every weight with `cvt.rna.tf32.f32` before
its product. The projections are the same cuBLAS TF32 GEMMs.

| shape | fused-tiled-tf32 | fused-tiled-tf32+rounded |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled-tf32+rounded|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled-tf32+rounded|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled-tf32|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled-tf32+rounded|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms |

Rounding buys a somewhat smaller error (the check prints both), and both
are well inside the TF32 tolerance; it costs an instruction per weight and
per stage value, and a pass over every stage before its barrier. The cost
is largest at $d = 8$, the extra-MSA shape, where the attention is most of
the layer and each rounded weight feeds a single `mma.sync` ($d / 8 = 1$).
*/

// book:hide
#include "../layer.cu"
#include "../projections.cu"
// book:show

static void tiled_launch_tf32_rounded(const msa_args *args)
{
    tiled_layer(args, true, tf32_gemm, launch_tf32_for<TF32_ROUNDED>);
}

// book:hide
extern const msa_kernel fused_tiled_tf32_rounded_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32_rounded};
// book:show

/*md
## The projections on `mma.sync`: `fused-tiled-tf32x3+mma`

The chapter's first 3xTF32 GEMM was built of the triangle's pieces:
chapter 8's tile of $128 \times 128$ outputs with eight warps of
$64 \times 32$, stages of 32 values of $k$ in a ring of three, and the
triangle's split multiply on `mma.sync`, each warp splitting the fragments
of both operands itself (a value of $W$ by the two warps of a column, a
value of $X$ by the four of a row). It took 201 registers a lane, one
block of 8 warps per multiprocessor, and its products waited on its loads
and splits. The layer with it, against the chapter's (`wgmma` fed by the
copy engine, the weights split once):

| shape | fused-tiled-tf32x3 | fused-tiled-tf32x3+mma |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32x3|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3+mma|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3+mma|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled-tf32x3|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3+mma|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms |

Between the two came a `wgmma` GEMM fed the way this one is, by
`cp.async` from every thread and a block barrier per stage: faster than
`mma.sync`, slower than the copy engine's version for the same products.
It is not kept as a contender; notes/precision.md has its times, measured
in a throwaway build, and the variants that showed where they went.
*/

// book:hide
#define SYNC_TILE 128                /* rows and columns of Y per block */
#define SYNC_DEPTH 32                /* values of k per stage */
#define SYNC_STAGES 3                /* buffers in the ring */
#define SYNC_STRIDE (SYNC_DEPTH + 8) /* floats per row of a stage: 8 mod 32, as in tf32x3 */
#define SYNC_THREADS 256             /* 8 warps: 2 x 4 of 64 x 32 outputs */
#define SYNC_STAGE_FLOATS (2 * SYNC_TILE * SYNC_STRIDE) /* the rows of X, then the rows of W */

/* Starts the copies of the stage at k0: rows of X and of W, the values of
 * k below `in`. Past the last row (or output column) the last one stands in;
 * what is computed from it is never stored. */
__device__ __forceinline__ void sync_fetch(float *stage, const float *x, int ldx, const float *w,
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
__device__ __forceinline__ void sync_multiply(float (&sum)[4][4][4], const float *stage,
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
 * multiples of 4 (16-byte copies, 8-byte stores), rows at least 1. */
static void tf32x3_sync_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                             const float *w, int ldw, int out, int in, long rows)
{
    const size_t bytes = SYNC_STAGES * SYNC_STAGE_FLOATS * sizeof(float);
    gpu_allow_shared_memory((const void *)tf32x3_sync_gemm_kernel, bytes);
    const long row_tiles = (rows + SYNC_TILE - 1) / SYNC_TILE;
    const long blocks = row_tiles * ((out + SYNC_TILE - 1) / SYNC_TILE);
    tf32x3_sync_gemm_kernel<<<(unsigned)blocks, SYNC_THREADS, bytes, args->stream>>>(
        y, ldy, x, ldx, w, ldw, out, in, rows);
    LAUNCH_CHECK();
}

static void tiled_launch_tf32x3_sync(const msa_args *args)
{
    tiled_layer(args, true, tf32x3_sync_gemm, launch_tf32_for<TF32_SPLIT3>);
}

extern const msa_kernel fused_tiled_tf32x3_mma_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32x3_sync};
// book:show
