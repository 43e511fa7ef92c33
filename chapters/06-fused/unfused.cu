/* chapters/06-fused/unfused.cu - the baseline of chapter 6: MSA column-wise gated attention
 * the way a deep-learning framework runs it, one library call or small
 * kernel per line of the model's forward(), every intermediate in device
 * memory. All matrix products are cuBLAS in strict FP32 (CUBLAS_COMPUTE_32F).
 *
 *   1  LayerNorm                                (our kernel)
 *   2  Q, K, V, G = X W^T                       (4 cuBLAS GEMMs)
 *   3  G = sigmoid(G + bg)                      (our kernel)
 *   4  Q, K, V -> (B, N, H, S, d)               (3 permutes)
 *   5  scores = Q K^T / sqrt(d)                 (batched GEMM, B*N*H batches)
 *   6  masked softmax over the keys             (our kernel)
 *   7  O = A V                                  (batched GEMM)
 *   8  O -> (B, S, N, D)                        (permute)
 *   9  O = G * O                                (gating)
 *  10  out = O Wo^T, then + bo                  (GEMM, bias kernel)
 *
 * Sixteen launches. The rows of every (B, S, N, D) tensor are the R = B*S*N
 * rows of D features, so a projection is one GEMM of R x D by D x D.
 */
#include <math.h>

#include "problems/msa.h"
#include "harness/sizes.h"
#include "device/warp_reduce.h"

#define UNFUSED_THREADS 256

static unsigned blocks_for(size_t count)
{
    size_t blocks = (count + UNFUSED_THREADS - 1) / UNFUSED_THREADS;
    return (unsigned)(blocks < 65535u * 16u ? blocks : 65535u * 16u); /* grid-stride beyond */
}

/* One warp per row of D features: mean, biased variance, normalise. */
__global__ void unfused_layer_norm(float *y, const float *x, const float *gamma,
                                   const float *beta, long rows, int D)
{
    const int lane = threadIdx.x % 32;
    const long warps = (long)gridDim.x * (blockDim.x / 32);
    for (long row = (long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; row < rows;
         row += warps) {
        const float *in = x + row * D;
        float sum = 0.0f;
        for (int i = lane; i < D; i += 32)
            sum += in[i];
        sum = warp_sum(sum);
        const float mean = sum / D;
        float squares = 0.0f;
        for (int i = lane; i < D; i += 32)
            squares += (in[i] - mean) * (in[i] - mean);
        squares = warp_sum(squares);
        const float inverse_std = 1.0f / sqrtf(squares / D + (float)MSA_LAYERNORM_EPS);
        for (int i = lane; i < D; i += 32)
            y[row * D + i] = (in[i] - mean) * inverse_std * gamma[i] + beta[i];
    }
}

__global__ void unfused_bias_sigmoid(float *g, const float *bias, size_t count, int D)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        g[i] = 1.0f / (1.0f + expf(-(g[i] + bias[i % D])));
}

__global__ void unfused_add_bias(float *y, const float *bias, size_t count, int D)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] += bias[i % D];
}

/* (B, S, N, H, d) <-> (B, N, H, S, d): to_heads=1 gathers the rows of each
 * head of each column into one contiguous S x d matrix, 0 scatters back. */
__global__ void unfused_permute(float *dst, const float *src, int B, int S, int N, int H, int d,
                                int to_heads)
{
    const size_t count = (size_t)B * S * N * H * d;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        /* i indexes the (B, N, H, S, d) layout */
        size_t c = i % d, s = (i / d) % S, h = (i / ((size_t)d * S)) % H;
        size_t n = (i / ((size_t)d * S * H)) % N, b = i / ((size_t)d * S * H * N);
        size_t row_major = (((b * S + s) * N + n) * H + h) * d + c;
        if (to_heads)
            dst[i] = src[row_major];
        else
            dst[row_major] = src[i];
    }
}

/* One warp per score row (b, n, h, query s): softmax over the keys j whose
 * mask[b][j][n] is nonzero. Masked keys get weight 0; a row with no kept key
 * is all zeros (the usual -inf masked_fill would give NaN here). */
__global__ void unfused_masked_softmax(float *scores, const float *mask, int B, int S, int N,
                                       int H)
{
    const int lane = threadIdx.x % 32;
    const long rows = (long)B * N * H * S;
    const long warps = (long)gridDim.x * (blockDim.x / 32);
    for (long row = (long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; row < rows;
         row += warps) {
        const long bn = row / ((long)H * S);
        const long b = bn / N, n = bn % N;
        float *p = scores + row * S;
        float largest = -INFINITY;
        for (int j = lane; j < S; j += 32)
            if (mask[(b * S + j) * N + n] != 0.0f)
                largest = fmaxf(largest, p[j]);
        for (int offset = 16; offset > 0; offset /= 2)
            largest = fmaxf(largest, __shfl_xor_sync(0xffffffffu, largest, offset));
        float total = 0.0f;
        for (int j = lane; j < S; j += 32) {
            float e = mask[(b * S + j) * N + n] != 0.0f ? expf(p[j] - largest) : 0.0f;
            p[j] = e;
            total += e;
        }
        for (int offset = 16; offset > 0; offset /= 2)
            total += __shfl_xor_sync(0xffffffffu, total, offset);
        const float inverse = total > 0.0f ? 1.0f / total : 0.0f;
        for (int j = lane; j < S; j += 32)
            p[j] *= inverse;
    }
}

__global__ void unfused_multiply(float *y, const float *gate, size_t count)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] *= gate[i];
}

/* y (R x D, row-major) = x (R x D) W^T, W stored W[out][in]. In cuBLAS's
 * column-major terms y^T = W x^T, with W read transposed. */
static void linear(const msa_args *args, float *y, const float *x, const float *w, long rows)
{
    const int D = args->size.D;
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, D, (int)rows, D, &one, w,
                              CUDA_R_32F, D, x, CUDA_R_32F, D, &zero, y, CUDA_R_32F, D,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* Saturating (sizes.h): the B*N*H*S*S scores can pass 2^64 at sizes every
 * other kernel runs, and must then be refused for memory, not wrap. */
static size_t unfused_scratch_floats(msa_size z)
{
    size_t activations = msa_output_count(z);
    size_t scores = size_times(size_times(size_times(size_times(z.B, z.N), z.H), z.S), z.S);
    return size_plus(size_times(10, activations), scores);
}

static void unfused_launch(const msa_args *args)
{
    const msa_size z = args->size;
    const int d = z.D / z.H;
    const long rows = (long)z.B * z.S * z.N;
    const size_t E = msa_output_count(z);
    const long long heads = (long long)z.B * z.N * z.H;
    cudaStream_t stream = args->stream;

    float *xn = args->scratch, *q = xn + E, *k = q + E, *v = k + E, *g = v + E;
    float *qh = g + E, *kh = qh + E, *vh = kh + E, *oh = vh + E, *o = oh + E;
    float *scores = o + E;

    unfused_layer_norm<<<(unsigned)((rows + 7) / 8 < 65535 * 16 ? (rows + 7) / 8 : 65535 * 16),
                         UNFUSED_THREADS, 0, stream>>>(xn, args->msa, args->ln_gamma,
                                                       args->ln_beta, rows, z.D);
    LAUNCH_CHECK();

    linear(args, q, xn, args->wq, rows);
    linear(args, k, xn, args->wk, rows);
    linear(args, v, xn, args->wv, rows);
    linear(args, g, xn, args->wg, rows);
    unfused_bias_sigmoid<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(g, args->bg, E, z.D);
    LAUNCH_CHECK();

    unfused_permute<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(qh, q, z.B, z.S, z.N, z.H, d, 1);
    LAUNCH_CHECK();
    unfused_permute<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(kh, k, z.B, z.S, z.N, z.H, d, 1);
    LAUNCH_CHECK();
    unfused_permute<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(vh, v, z.B, z.S, z.N, z.H, d, 1);
    LAUNCH_CHECK();

    /* Per head, row-major scores[i][j] = Q[i] . K[j]: column-major that is
     * K^T-transposed times Q, as in chapter 1's cuBLAS champion. */
    const float scale = 1.0f / sqrtf((float)d), one = 1.0f, zero = 0.0f;
    const long long per_head = (long long)z.S * d, per_scores = (long long)z.S * z.S;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, z.S, z.S, d, &scale, kh, CUDA_R_32F, d, per_head,
        qh, CUDA_R_32F, d, per_head, &zero, scores, CUDA_R_32F, z.S, per_scores, (int)heads,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));

    const long score_rows = (long)heads * z.S;
    unfused_masked_softmax<<<(unsigned)((score_rows + 7) / 8 < 65535 * 16 ? (score_rows + 7) / 8
                                                                           : 65535 * 16),
                             UNFUSED_THREADS, 0, stream>>>(scores, args->mask, z.B, z.S, z.N,
                                                           z.H);
    LAUNCH_CHECK();

    /* O (S x d, row-major) = A (S x S) V (S x d): column-major O^T = V^T A^T. */
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        args->cublas, CUBLAS_OP_N, CUBLAS_OP_N, d, z.S, z.S, &one, vh, CUDA_R_32F, d, per_head,
        scores, CUDA_R_32F, z.S, per_scores, &zero, oh, CUDA_R_32F, d, per_head, (int)heads,
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));

    unfused_permute<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(o, oh, z.B, z.S, z.N, z.H, d, 0);
    LAUNCH_CHECK();
    unfused_multiply<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(o, g, E);
    LAUNCH_CHECK();

    linear(args, args->out, o, args->wo, rows);
    unfused_add_bias<<<blocks_for(E), UNFUSED_THREADS, 0, stream>>>(args->out, args->bo, E, z.D);
    LAUNCH_CHECK();
}

extern const msa_kernel unfused_kernel = {NULL, unfused_scratch_floats, unfused_launch};
