/* chapters/07-tiled/layer.cuh - the host side of the MSA layer at any depth, shared by
 * the chapters that race it (7: FP32, 11: tensor cores). Chapter 7 explains
 * the design; chapters/07-tiled/layer.cu holds the code.
 *
 * The layer is seven launches on args->stream:
 *   1-3  order each column's keys kept-first, count them, LayerNorm every row
 *        and stack the weights (kernels of layer.cu);
 *   4-5  the projections, two GEMMs: all four for the kept rows, Q and G for
 *        the others (or all four for every row, see tiled_layer);
 *   6    the attention, chosen by the chapter;
 *   7    the output projection, [O 1] [Wo bo]^T, one GEMM.
 * A chapter chooses two things and passes them in: how to run a projection
 * GEMM and how to launch the attention for head size d.
 */
#ifndef WORKBOOK_MSA_TILED_LAYER_H
#define WORKBOOK_MSA_TILED_LAYER_H

#include "device/gpu.h"
#include "problems/msa.h"
#include "tiles.cuh"

/* y (rows x out, row stride ldy) = x (rows x in, stride ldx) w^T (w: out x in,
 * stride ldw), row-major, on args->stream. */
typedef void (*tiled_gemm_fn)(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                              const float *w, int ldw, int out, int in, long rows);

/* Launch 6 for head size d (8, 16, 32 or 64) on `stream`: one block per
 * column, head and tile of query rows, B batch entries. */
typedef void (*tiled_attend_fn)(int d, const tiled_params &p, int B, cudaStream_t stream);

/* The sizes the layer refuses (0: none; otherwise the reason in why): D over
 * 256 (the LayerNorm keeps 8 floats a lane), D not a multiple of H, and head
 * sizes other than 8, 16, 32 and 64. Needs no GPU. */
int tiled_refuses(msa_size z, char *why, size_t capacity);

/* The layer's device scratch, in floats. */
size_t tiled_scratch_floats(msa_size z);

/* A projection GEMM by cuBLAS (cublasGemmEx on args->cublas) with the given
 * compute type: CUBLAS_COMPUTE_32F (strict FP32) or
 * CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores). Arguments as tiled_gemm_fn. */
void tiled_cublas_gemm(const msa_args *args, cublasComputeType_t compute, float *y, int ldy,
                       const float *x, int ldx, const float *w, int ldw, int out, int in,
                       long rows);

/* The whole layer. compact: masked keys go after the kept ones, the
 * attention walks only the kept ones, and (when the host waits for their
 * count) K and V are projected for the kept rows only; false: every key in
 * order s, masked ones weighted zero, every row projected onto all four.
 * The host waits for the count of kept keys only on a plain stream (not
 * while a CUDA graph is captured) and when the K and V projections are worth
 * at least a GFLOP; otherwise every row gets all four projections. */
void tiled_layer(const msa_args *args, bool compact, tiled_gemm_fn gemm, tiled_attend_fn attend);

/* Warps per attention block: as many as the queries can fill, at most four. */
static inline int warps_for(int S, int rows_per_warp)
{
    int warps = (S + rows_per_warp - 1) / rows_per_warp;
    return warps < 1 ? 1 : warps > TILED_MAX_WARPS ? TILED_MAX_WARPS : warps;
}

/* Launches an attention kernel with `shared_bytes` of dynamic shared memory,
 * rows_per_warp query rows a warp, one block per (b, n, head, query tile). */
template <typename Kernel>
static void launch_attention(Kernel kernel, size_t shared_bytes, const tiled_params &p, int B,
                             int rows_per_warp, cudaStream_t stream)
{
    gpu_allow_shared_memory((const void *)kernel, shared_bytes);
    const int warps = warps_for(p.S, rows_per_warp);
    const int rows_per_block = warps * rows_per_warp;
    const long tiles = (p.S + rows_per_block - 1) / rows_per_block;
    const long blocks = (long)B * p.N * p.H * tiles;
    kernel<<<(unsigned)blocks, warps * 32, shared_bytes, stream>>>(p);
    LAUNCH_CHECK();
}

#endif
