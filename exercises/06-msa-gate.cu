// 06-msa-gate.cu - exercise 6.3: fuse the gate, and lay the projections out for phase 3.
//
// exercises/06-msa-gate.cu is the student's copy, made from
// solutions/06-msa-gate.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=06-msa-gate
//   build/exercises/06-msa-gate B=2 S=8 N=32 D=64 H=4 --check-only   # one size by hand

/*md
### Exercise 6.3: fuse the gate, and give its rows a stride

*Difficulty: medium.* File: `exercises/06-msa-gate.cu`.

The gate is $G = \mathrm{sigmoid}(X W_g^T + b_g)$, and it scales the
attention output feature by feature before the output projection. The
unfused layer spends two launches on it, bias and sigmoid, then the
product, each a round trip through device memory; here it costs almost
nothing. Write the three places marked `TODO`:

1. `projection_stride(D)`, `__host__ __device__`: the floats from one row
   of `q`, `k`, `v` and `g` to the next in shared memory. At least $D$;
   the rest is yours to choose, and the grader wants phase 3 free of bank
   conflicts.
2. In phase 2, `g[at]`, the gate of row `s` and feature `o`, from the sum
   `sum_g` the loop has already accumulated.
3. In phase 3, the gated attention output into `x`.

Hints:

- In phase 3 lane $l$ computes the score of key $l$: at each step $c$ the
  32 lanes read word $c$ of 32 different rows of `k`, `stride` floats
  apart. In which banks, for a stride of 64? Of 65?
- $\mathrm{sigmoid}(z) = 1 / (1 + e^{-z})$. Use `expf`: the faster
  `__expf` is less accurate, and the tolerance is $10^{-5}$.
- `x` held the normalised rows in phases 1 and 2. Why may phase 3 overwrite
  it, and why is `g` safe to read there?

Check it with `make grade EX=06-msa-gate`. Without a GPU the grader counts
the wavefronts of phase 3's reads from your `projection_stride` at every
$D$ it grades, and checks that the column still fits in shared memory; on a
GPU it runs memcheck, the values, the large logits, and measures the
layer's bank conflicts with Nsight Compute. The untouched exercise neither
gates nor pads.
*/

/* 06-msa-layer.cuh - the one MSA attention layer that the exercises of
 * chapter 6 (6.1 softmax, 6.2 LayerNorm, 6.3 gate) and exercise 7.1 share.
 *
 * A plainer cousin of chapter 6's kernel: no asynchronous copies, the
 * weights read straight from global memory, one block of 256 threads per
 * column (b, n), four phases separated by __syncthreads():
 *
 *   1. LayerNorm of the column's S rows, one warp per row, into x;
 *   2. Q, K, V and the gate G of every row, one thread per output feature,
 *      into q, k, v and g (rows projection_stride(D) floats apart);
 *   3. attention, one warp per (head, query) task: the scores against the
 *      S <= 64 keys (two per lane), the masked softmax, the weighted sum of
 *      the values, gated, back into x;
 *   4. the output projection and its bias, into out.
 *
 * Each exercise inlines this file (`#include "06-msa-layer.cuh" //
 * exercise:inline`, solutions/generate.sh): its own regions, named in their
 * markers, become its TODOs, and the other exercises' regions stay solved.
 * An exercise that brings its own attention phase (7.1) defines
 * MSA_LAYER_OWN_ATTENTION before the #include and msa_attend after it.
 */

#include <math.h>

#include "problems/msa.h"

#define THREADS 256             /* per block: one block per column (b, n) */
#define WARPS (THREADS / 32)
#define MAX_S 64                /* keys per column: two per lane of a warp */
#define MAX_D 128               /* features: the column's arrays fit in shared memory */

/* The sum and the maximum of a value over the 32 lanes of a warp; every
 * lane gets the result. All 32 lanes must call them together. */
__device__ float warp_sum(float value)
{
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    return value;
}

__device__ float warp_max(float value)
{
    for (int offset = 16; offset > 0; offset /= 2)
        value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
    return value;
}

/* The count, mean and sum of squared deviations from the mean of some
 * values: what LayerNorm needs, in a form two halves can be merged in. */
typedef struct {
    float count, mean, m2;
} moments;

__host__ __device__ moments moments_of(float value)
{
    moments one = {1.0f, value, 0.0f};
    return one;
}

/* The moments of the values of a and of b together. */
__host__ __device__ moments merge_moments(moments a, moments b)
{
    /* Chan, Golub and LeVeque: the means differ by delta; each half's
     * squares around the merged mean exceed its own m2 by n (its distance
     * to that mean)^2, which adds up to delta^2 n_a n_b / n. No large sum of
     * squares is ever formed, so a large mean costs no digits. */
    const float count = a.count + b.count;
    if (count == 0.0f)
        return a;
    const float delta = b.mean - a.mean, share = b.count / count;
    moments merged = {count, a.mean + delta * share, a.m2 + b.m2 + delta * delta * a.count * share};
    return merged;
}

/* The moments of every lane's values, in every lane. All 32 lanes call it. */
__device__ moments warp_moments(moments mine)
{
    for (int offset = 16; offset > 0; offset /= 2) {
        moments other;
        other.count = __shfl_xor_sync(0xffffffffu, mine.count, offset);
        other.mean = __shfl_xor_sync(0xffffffffu, mine.mean, offset);
        other.m2 = __shfl_xor_sync(0xffffffffu, mine.m2, offset);
        mine = merge_moments(mine, other);
    }
    return mine;
}

/* Floats from one row of q, k, v or g to the next, in shared memory. */
__host__ __device__ int projection_stride(int D)
{
    // TODO: the row stride of q, k, v, g: >= D, no bank conflicts
    return D;
    // TODO end
}

#ifdef MSA_LAYER_OWN_ATTENTION
/* Phase 3, brought by the exercise that inlines this file. */
__device__ void msa_attend(const float *q, const float *k, const float *v, const float *g,
                           float *x, float *weights, const float *mask, int b, int n, int S,
                           int N, int D, int H, int stride);
#else
/* Phase 3: one warp per (head, query); lane l holds keys l and l + 32. */
__device__ void msa_attend(const float *q, const float *k, const float *v, const float *g,
                           float *x, float *weights, const float *mask, int b, int n, int S,
                           int N, int D, int H, int stride)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int d = D / H;
    const float scale = 1.0f / sqrtf((float)d);
    float *my_weights = weights + warp * MAX_S;
    for (int pair = warp; pair < H * S; pair += WARPS) {
        const int h = pair / S, s = pair % S;
        const float *query = q + s * stride + h * d;
        float score[2];
        bool kept[2];
        for (int t = 0; t < 2; t++) {
            const int j = lane + 32 * t;
            kept[t] = j < S && mask[((size_t)b * S + j) * N + n] != 0.0f;
            score[t] = 0.0f;
            if (kept[t]) {
                const float *key = k + j * stride + h * d;
                for (int c = 0; c < d; c++)
                    score[t] += query[c] * key[c];
                score[t] *= scale;
            }
        }

        float weight[2];
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
        my_weights[lane] = weight[0];
        my_weights[lane + 32] = weight[1];
        __syncwarp();

        for (int c = lane; c < d; c += 32) {
            float attended = 0.0f;
            for (int j = 0; j < S; j++)
                attended += my_weights[j] * v[j * stride + h * d + c];
            // TODO: x[s * D + h * d + c] = the attention output, gated
            x[s * D + h * d + c] = attended; /* replace: not gated */
            // TODO end
        }
        __syncwarp(); /* the weights are read before the next pair rewrites them */
    }
}
#endif

__global__ void __launch_bounds__(THREADS) msa_layer(
    float *out, const float *msa, const float *mask, const float *ln_gamma, const float *ln_beta,
    const float *wq, const float *wk, const float *wv, const float *wg, const float *bg,
    const float *wo, const float *bo, int S, int N, int D, int H)
{
    extern __shared__ float shared[];
    const int stride = projection_stride(D);
    float *x = shared;          /* S x D: the normalised rows; in phase 3, the gated output */
    float *q = x + S * D, *k = q + S * stride, *v = k + S * stride, *g = v + S * stride;
    float *weights = g + S * stride; /* WARPS x MAX_S: each warp's attention weights */

    const int b = blockIdx.x / N, n = blockIdx.x % N;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t row_stride = (size_t)N * D; /* from one sequence s to the next */
    const float *column = msa + ((size_t)b * S * N + n) * D;

    /* 1. LayerNorm over the D features of each row (biased variance). */
    for (int s = warp; s < S; s += WARPS) {
        const float *row = column + s * row_stride;
        moments mine = {0.0f, 0.0f, 0.0f};
        for (int i = lane; i < D; i += 32)
            mine = merge_moments(mine, moments_of(row[i]));
        const moments all = warp_moments(mine);
        const float inverse_std = 1.0f / sqrtf(all.m2 / D + (float)MSA_LAYERNORM_EPS);
        for (int i = lane; i < D; i += 32)
            x[s * D + i] = (row[i] - all.mean) * inverse_std * ln_gamma[i] + ln_beta[i];
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
        const int at = s * stride + o;
        q[at] = sum_q;
        k[at] = sum_k;
        v[at] = sum_v;
        // TODO: g[at]: the gate, sigmoid(sum_g + bg[o])
        g[at] = sum_g; /* replace: no bias, no sigmoid */
        // TODO end
    }
    __syncthreads();

    /* 3. Attention, gated, into x. */
    msa_attend(q, k, v, g, x, weights, mask, b, n, S, N, D, H, stride);
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

static size_t msa_layer_shared_bytes(msa_size size)
{
    const size_t stride = (size_t)projection_stride(size.D);
    return ((size_t)size.S * size.D + 4 * (size_t)size.S * stride + WARPS * MAX_S) * sizeof(float);
}

static int msa_layer_refuses(msa_size size, char *why, size_t capacity)
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

static void msa_layer_launch(const msa_args *args)
{
    const msa_size s = args->size;
    const size_t bytes = msa_layer_shared_bytes(s);
    gpu_allow_shared_memory((const void *)msa_layer, bytes);
    msa_layer<<<s.B * s.N, THREADS, bytes, args->stream>>>(
        args->out, args->msa, args->mask, args->ln_gamma, args->ln_beta, args->wq, args->wk,
        args->wv, args->wg, args->bg, args->wo, args->bo, s.S, s.N, s.D, s.H);
    LAUNCH_CHECK();
}

static const msa_kernel msa_layer_kernel = {msa_layer_refuses, NULL, msa_layer_launch};

int main(int argc, char **argv)
{
    static const msa_contender contender = {
        {"fused", 6, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &msa_layer_kernel};
    return msa_chapter_main(argc, argv, "06-msa-gate", 6,
                            "exercise 6.3, the fused gate and its layout", &contender, 1);
}
