// 06-msa-softmax.cu - exercise 6.1: the masked softmax, with warp shuffles.
//
// exercises/06-msa-softmax.cu is the student's copy, made from
// solutions/06-msa-softmax.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=06-msa-softmax
//   build/exercises/06-msa-softmax B=2 S=8 N=32 D=64 H=4 --check-only   # one size by hand

/*md
### Exercise 6.1: the masked softmax, with warp shuffles

*Difficulty: medium.* File: `exercises/06-msa-softmax.cu`.

This file holds a whole MSA attention layer in one kernel, with the softmax
taken out.
It is a plainer cousin of this chapter's kernel: no asynchronous
copies, the weights read straight from global memory, one (head, query)
task per warp. Four phases, one block of 256 threads per column $(b, n)$:

1. LayerNorm of the column's $S$ rows, one warp per row, into `x` in shared
   memory;
2. the projections $Q$, $K$, $V$ and the gate $G$ of every row, one thread per
   output feature, into `q`, `k`, `v` and `g`;
3. attention, one warp per pair (head, query): the scores of the query
   against the $S \le 64$ keys (two per lane), the masked softmax, the
   weighted sum of the values, gated, back into `x`;
4. the output projection and its bias, into `out`.

In phase 3 a warp has the scores of one query against all the keys of the
column: lane $l$ holds `score[0]` for key $l$ and `score[1]` for key
$l + 32$, and `kept[t]` says whether that key exists ($j < S$) and is kept
by the mask. Write the three parts marked `TODO`:

1. `warp_sum`, the sum of a value over the 32 lanes of a warp, every lane
   getting the result, with `__shfl_xor_sync` (LayerNorm in phase 1 uses
   it too);
2. `warp_max`, the same for the maximum;
3. the softmax over the kept keys into `weight[0]` and `weight[1]`: a
   masked or missing key gets weight 0, the kept weights sum to 1.

Hints:

- An exchange with `__shfl_xor_sync(0xffffffff, value, offset)` pairs lane
  $l$ with lane $l \oplus \mathit{offset}$. Five rounds, offsets 16, 8, 4, 2, 1,
  leave the full result in every lane, with no shared memory and no
  `__syncthreads()`.
- Subtract the largest kept score before you exponentiate: softmax does not
  change, and `expf` cannot overflow.
- A column whose keys are all masked exists in the inputs (the referee
  draws some). Its output must be exactly `bo`: every weight 0, and no
  `0/0` or `-inf - (-inf)` anywhere.

Check it with `make grade EX=06-msa-softmax`: it is graded at
$S = 1, 8, 33, 37, 64$, $D$ from 32 to 128 (48 too) and $H$ from 1 to 8.
The untouched exercise gives every key weight 0, and the referee says how
far that is from the truth.
*/

#include <math.h>

#include "msa.h"

#define THREADS 256             /* per block: one block per column (b, n) */
#define WARPS (THREADS / 32)
#define MAX_S 64                /* keys per column: two per lane of a warp */
#define MAX_D 128               /* features: 5 S x D arrays fit in shared memory */

/* The sum and the maximum of a value over the 32 lanes of a warp; every
 * lane gets the result. All 32 lanes must call them together. */
__device__ float warp_sum(float value)
{
    // exercise:begin the sum of value over the 32 lanes, with __shfl_xor_sync
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    return value;
    // exercise:stub return value; /* one lane's share only */
    // exercise:end
}

__device__ float warp_max(float value)
{
    // exercise:begin the maximum of value over the 32 lanes, with __shfl_xor_sync
    for (int offset = 16; offset > 0; offset /= 2)
        value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
    // exercise:stub return value; /* one lane's share only */
    // exercise:end
}

__global__ void __launch_bounds__(THREADS) msa_softmax_layer(
    float *out, const float *msa, const float *mask, const float *ln_gamma, const float *ln_beta,
    const float *wq, const float *wk, const float *wv, const float *wg, const float *bg,
    const float *wo, const float *bo, int S, int N, int D, int H)
{
    extern __shared__ float shared[];
    float *x = shared;          /* S x D: the normalised rows; in phase 3, the gated output */
    float *q = x + S * D, *k = q + S * D, *v = k + S * D, *g = v + S * D;
    float *weights = g + S * D; /* WARPS x MAX_S: each warp's attention weights */

    const int b = blockIdx.x / N, n = blockIdx.x % N;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t row_stride = (size_t)N * D; /* from one sequence s to the next */
    const float *column = msa + ((size_t)b * S * N + n) * D;

    /* 1. LayerNorm over the D features of each row (biased variance). */
    for (int s = warp; s < S; s += WARPS) {
        const float *row = column + s * row_stride;
        float sum = 0.0f;
        for (int i = lane; i < D; i += 32)
            sum += row[i];
        const float mean = warp_sum(sum) / D;
        float squares = 0.0f;
        for (int i = lane; i < D; i += 32)
            squares += (row[i] - mean) * (row[i] - mean);
        const float variance = warp_sum(squares) / D;
        const float inverse_std = 1.0f / sqrtf(variance + (float)MSA_LAYERNORM_EPS);
        for (int i = lane; i < D; i += 32)
            x[s * D + i] = (row[i] - mean) * inverse_std * ln_gamma[i] + ln_beta[i];
    }
    __syncthreads();

    /* 2. Q, K, V and the gate G, one thread per (row, output feature).
     * Weights are W[out][in]. */
    for (int e = threadIdx.x; e < S * D; e += THREADS) {
        const int s = e / D, o = e % D;
        float sum_q = 0.0f, sum_k = 0.0f, sum_v = 0.0f, sum_g = 0.0f;
        for (int i = 0; i < D; i++) {
            const float feature = x[s * D + i];
            sum_q += feature * wq[o * D + i];
            sum_k += feature * wk[o * D + i];
            sum_v += feature * wv[o * D + i];
            sum_g += feature * wg[o * D + i];
        }
        q[e] = sum_q;
        k[e] = sum_k;
        v[e] = sum_v;
        g[e] = 1.0f / (1.0f + expf(-(sum_g + bg[o])));
    }
    __syncthreads();

    /* 3. Attention: one warp per (head, query); lane l holds keys l, l + 32. */
    const int d = D / H;
    const float scale = 1.0f / sqrtf((float)d);
    float *my_weights = weights + warp * MAX_S;
    for (int pair = warp; pair < H * S; pair += WARPS) {
        const int h = pair / S, s = pair % S;
        const float *query = q + s * D + h * d;
        float score[2];
        bool kept[2];
        for (int t = 0; t < 2; t++) {
            const int j = lane + 32 * t;
            kept[t] = j < S && mask[((size_t)b * S + j) * N + n] != 0.0f;
            score[t] = 0.0f;
            if (kept[t]) {
                const float *key = k + j * D + h * d;
                for (int c = 0; c < d; c++)
                    score[t] += query[c] * key[c];
                score[t] *= scale;
            }
        }

        float weight[2];
        // exercise:begin weight[t]: softmax of score[t] over the kept keys; 0 where !kept[t]
        /* The largest kept score goes first, so no exponential overflows. A
         * column whose keys are all masked has top = -inf and total = 0: its
         * weights stay 0 rather than becoming 0/0. */
        float top = -INFINITY;
        for (int t = 0; t < 2; t++)
            if (kept[t])
                top = fmaxf(top, score[t]);
        top = warp_max(top);
        float total = 0.0f;
        for (int t = 0; t < 2; t++) {
            weight[t] = kept[t] ? expf(score[t] - top) : 0.0f;
            total += weight[t];
        }
        total = warp_sum(total);
        for (int t = 0; t < 2; t++)
            weight[t] = total > 0.0f ? weight[t] / total : 0.0f;
        // exercise:stub weight[0] = weight[1] = 0.0f; /* replace with the softmax */
        // exercise:end
        my_weights[lane] = weight[0];
        my_weights[lane + 32] = weight[1];
        __syncwarp();

        for (int c = lane; c < d; c += 32) {
            float attended = 0.0f;
            for (int j = 0; j < S; j++)
                attended += my_weights[j] * v[j * D + h * d + c];
            const int feature = s * D + h * d + c;
            x[feature] = g[feature] * attended;
        }
        __syncwarp(); /* the weights are read before the next pair rewrites them */
    }
    __syncthreads();

    /* 4. out = (G * O) Wo^T + bo, one thread per (row, output feature). */
    for (int e = threadIdx.x; e < S * D; e += THREADS) {
        const int s = e / D, o = e % D;
        float sum = bo[o];
        for (int i = 0; i < D; i++)
            sum += x[s * D + i] * wo[o * D + i];
        out[((size_t)b * S + s) * N * D + (size_t)n * D + o] = sum;
    }
}

static size_t msa_softmax_shared_bytes(msa_size size)
{
    return (5 * (size_t)size.S * size.D + WARPS * MAX_S) * sizeof(float);
}

static int msa_softmax_refuses(msa_size size, char *why, size_t capacity)
{
    if (size.S > MAX_S) {
        snprintf(why, capacity, "S must be at most %d (two keys per lane of a warp)", MAX_S);
        return 1;
    }
    if (size.D > MAX_D) {
        snprintf(why, capacity, "D must be at most %d (the column lives in shared memory)", MAX_D);
        return 1;
    }
    return 0;
}

static void msa_softmax_launch(const msa_args *args)
{
    const msa_size s = args->size;
    const int bytes = (int)msa_softmax_shared_bytes(s);
    CUDA_CHECK(cudaFuncSetAttribute(msa_softmax_layer,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    msa_softmax_layer<<<s.B * s.N, THREADS, bytes, args->stream>>>(
        args->out, args->msa, args->mask, args->ln_gamma, args->ln_beta, args->wq, args->wk,
        args->wv, args->wg, args->bg, args->wo, args->bo, s.S, s.N, s.D, s.H);
    LAUNCH_CHECK();
}

static const msa_kernel msa_softmax_kernel = {msa_softmax_refuses, NULL, msa_softmax_launch};

int main(int argc, char **argv)
{
    static const msa_contender contender = {
        {"fused", 6, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &msa_softmax_kernel};
    return msa_chapter_main(argc, argv, "06-msa-softmax", 6,
                            "exercise 6.1, the masked softmax", &contender, 1);
}
