// 07-online-softmax.cu - exercise 7.1: the online softmax's rescale when the reference moves.
//
// exercises/07-online-softmax.cu is the student's copy, made from
// solutions/07-online-softmax.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=07-online-softmax
//   build/exercises/07-online-softmax B=2 S=33 N=9 D=64 H=2 --logits 90 --check-only

/*md
### Exercise 7.1: the online softmax, one block of keys at a time

*Difficulty: medium.* File: `exercises/07-online-softmax.cu`.

This file is chapter 6's exercise layer with its attention phase replaced:
a thread takes one (head, query) task and walks the keys in blocks of
`KEY_BLOCK`, never holding more than one block of scores. It keeps, for its
row, a reference $m$, the sum $\ell = \sum_j e^{s_j - m}$ and the vector
$a = \sum_j e^{s_j - m} v_j$ (in `acc`, $d$ floats), and at the end
$o = a / \ell$. Write the two functions that do it, both
`__host__ __device__`:

1. `online_add_block(row, acc, d, scores, values, value_stride, count)`:
   adds `count` keys (their scores, already scaled, $-\infty$ for a masked
   key; value $j$ at `values + j * value_stride`) to the row. Choose when
   and where the reference moves, and rescale $\ell$ and $a$ when it does.
2. `online_finish(row, acc, d)`: turns $a$ into $o$. A row that never saw
   a kept key has $o = 0$.

A row starts from `online_start()`: no key seen, $m = -\infty$, $\ell = 0$,
$a = 0$.

Hints:

- Moving the reference from $m$ to $m'$ multiplies every old term by
  $e^{m - m'}$: $\ell$ and every component of $a$. What is that factor the
  first time, when $m = -\infty$?
- $e^{-\infty - (-\infty)}$ is NaN. Which blocks can make you compute it,
  and what should such a block add?
- Any reference with $s_j - m$ at most a few tens keeps the weights in
  range; the block's largest score is the obvious choice, but the chapter
  moves it less often. Either passes.

Check it with `make grade EX=07-online-softmax`. Without a GPU the grader
feeds your functions streams of scores on the CPU, in blocks of several
sizes (rising scores that move the reference at every block, scores in the
hundreds, below $-1000$, masked blocks first, last and between, a single
kept key, none at all), and compares with the softmax in double; on a GPU
it runs racecheck, the values and `--logits 90`. The untouched exercise adds
nothing.
*/

#include <math.h>

#define KEY_BLOCK 8 /* keys a thread holds the scores of at once */

/* A row's running softmax: the reference m and the sum of e^(s_j - m). */
typedef struct {
    float reference, sum;
} online_row;

__host__ __device__ online_row online_start(void)
{
    online_row row = {-INFINITY, 0.0f};
    return row;
}

__host__ __device__ void online_add_block(online_row *row, float *acc, int d, const float *scores,
                                          const float *values, int value_stride, int count)
{
    // exercise:begin add count keys to the row: move the reference if needed, rescale sum and acc
    /* The reference moves up to the block's largest score when that is
     * larger: the old terms shrink by e^(m - m'), 0 the first time (m is
     * -inf). A block with no kept key adds nothing and must not move it:
     * its largest score is -inf, and -inf - -inf is NaN. */
    float top = -INFINITY;
    for (int j = 0; j < count; j++)
        top = fmaxf(top, scores[j]);
    if (top == -INFINITY)
        return;
    if (top > row->reference) {
        const float factor = expf(row->reference - top);
        row->sum *= factor;
        for (int c = 0; c < d; c++)
            acc[c] *= factor;
        row->reference = top;
    }
    for (int j = 0; j < count; j++) {
        const float weight = expf(scores[j] - row->reference); /* a masked key: e^-inf = 0 */
        row->sum += weight;
        for (int c = 0; c < d; c++)
            acc[c] += weight * values[j * value_stride + c];
    }
    // exercise:stub (void)row, (void)acc, (void)d, (void)scores, (void)values;
    // exercise:stub (void)value_stride, (void)count;
    // exercise:end
}

__host__ __device__ void online_finish(const online_row *row, float *acc, int d)
{
    // exercise:begin acc = acc / sum, or 0 for a row that saw no kept key
    const float inverse = row->sum > 0.0f ? 1.0f / row->sum : 0.0f;
    for (int c = 0; c < d; c++)
        acc[c] *= inverse;
    // exercise:stub (void)row, (void)acc, (void)d;
    // exercise:end
}

#define MSA_LAYER_OWN_ATTENTION
#include "06-msa-layer.cuh" // exercise:inline

/* Phase 3: one thread per (head, query) task, walking the column's keys in
 * blocks; the output accumulates where it ends up, in the task's d
 * features of x. */
__device__ void msa_attend(const float *q, const float *k, const float *v, const float *g,
                           float *x, float *weights, const float *mask, int b, int n, int S,
                           int N, int D, int H, int stride)
{
    (void)weights;
    const int d = D / H;
    const float scale = 1.0f / sqrtf((float)d);
    for (int task = threadIdx.x; task < H * S; task += blockDim.x) {
        const int h = task / S, s = task % S;
        const float *query = q + s * stride + h * d;
        float *acc = x + s * D + h * d;
        for (int c = 0; c < d; c++)
            acc[c] = 0.0f;
        online_row row = online_start();
        for (int first = 0; first < S; first += KEY_BLOCK) {
            const int count = S - first < KEY_BLOCK ? S - first : KEY_BLOCK;
            float scores[KEY_BLOCK];
            for (int j = 0; j < count; j++) {
                const int key = first + j;
                scores[j] = -INFINITY;
                if (mask[((size_t)b * S + key) * N + n] != 0.0f) {
                    float dot = 0.0f;
                    for (int c = 0; c < d; c++)
                        dot += query[c] * k[key * stride + h * d + c];
                    scores[j] = dot * scale;
                }
            }
            online_add_block(&row, acc, d, scores, v + first * stride + h * d, stride, count);
        }
        online_finish(&row, acc, d);
        for (int c = 0; c < d; c++)
            acc[c] *= g[s * stride + h * d + c];
    }
}

int main(int argc, char **argv)
{
    static const msa_contender contender = {
        {"fused", 7, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &msa_layer_kernel};
    return msa_chapter_main(argc, argv, "07-online-softmax", 7,
                            "exercise 7.1, the online softmax", &contender, 1);
}
