// 13-layer-value-pairs.cu - exercise 13.1: P V's values loaded in pairs, from a transposed stage.
//
// exercises/13-layer-value-pairs.cu is the student's copy, made from
// solutions/13-layer-value-pairs.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=13-layer-value-pairs     # needs no GPU: the layout is checked on the CPU
//   build/exercises/13-layer-value-pairs   # on a GPU (sm_80 or later): one warp's P V, your way

/*md
### Exercise 13.1: the values in pairs

*Difficulty: medium.* File: `exercises/13-layer-value-pairs.cu`.

Chapter 13's $O \mathrel{+}= P V$ loads its values one float at a time:
the two values of a $B$ fragment, $k = t$ and $t + 4$, stand for two keys,
two rows of the stage. Suppose instead that the stage held the values
transposed, $V^T$: a row per feature, the stage's 64 keys along it,
padded to `VALUES_T_STRIDE` floats (the projection that writes $V$ could
as well write $V^T$). Then the two keys of a fragment can sit side by side
in one row, and one load of 8 bytes can bring both, into consecutive
registers as the instruction wants them.

This file computes one step of that product for one warp: 16 query rows,
32 keys in four groups of 8, each group's weights where the scores left
them, in $C$'s pattern. Write, as `__host__ __device__` functions:

1. `weights_as_a(c, a)`: the $A$ fragment of a group's weights made from
   its $C$ fragment `c`, with no value moving between lanes: which `c[i]`
   becomes `a[e]`. This decides which key each $k$ stands for.
2. `value_pair(kg, dn, g, t)`: where lane $(g, t)$'s pair lies, for key
   group `kg` (keys $8\mathit{kg}$ to $8\mathit{kg} + 7$ of the step) and
   feature block `dn` (features $8\mathit{dn}$ to $8\mathit{dn} + 7$):
   `b0` at that offset, `b1` the float after it, the offset in floats from
   the step's first key in the stage's first feature row (row $f$ of $V^T$
   starts $f \cdot$ `VALUES_T_STRIDE` floats further on).
3. `VALUES_T_STRIDE`: the floats from one feature row of the stage to the
   next: at least 64, a multiple of 4 (the copy lands a row in pieces of
   16 bytes), and padded as little as loads free of bank conflicts allow.

The fragments are chapter 8's. Lane $(g, t)$ holds `a[0]` $= A[g][t]$,
`a[1]` $= A[g+8][t]$, `a[2]` $= A[g][t+4]$, `a[3]` $= A[g+8][t+4]$;
`b0` $= B[t][g]$ and `b1` $= B[t+4][g]$; and of the scores
`c[0]` $= S[g][2t]$, `c[1]` $= S[g][2t+1]$, `c[2]` $= S[g+8][2t]$,
`c[3]` $= S[g+8][2t+1]$, column $n$ of a group's tile standing for its
key $n$.

Hints:

- Lane $(g, t)$ holds the weights of two keys only. Which keys can
  $k = t$ and $k = t + 4$ stand for, then? Chapter 13 took one of two
  orders; does a pair load care which?
- $B$ of $P V$ is $V$: $B[k][n]$ is the value of the key that $k$ stands
  for, at feature $8\mathit{dn} + n$, which in $V^T$ is a row.
- An 8-byte load is served 16 lanes at a time: lanes 0 to 15 ($g$ = 0 to
  3, each with its four $t$), then 16 to 31. In which banks do rows
  $g$ = 0 to 3 put their pairs, for a stride of 64? Of 68, chapter 13's
  stride for $V$ at $d = 64$?

Check it with `make grade EX=13-layer-value-pairs`: it needs no GPU. The
grader hands `weights_as_a` fragments whose values name their row and key,
and checks that every lane's `a` holds $A$'s rows with one key for each
$k$, the same in every lane; that `value_pair` points every lane at its
two values, aligned to 8 bytes, at every key group and feature block up to
$d = 64$; counts the wavefronts of every pair load, 16 lanes at a time,
and tries the smaller strides; and computes $P V$ with your functions,
emulating the instruction, against the product in double. On a GPU the
program runs the step on the tensor cores at $d$ = 8 to 64 and compares
(the grader does not need it). The untouched exercise hands the weights
over in $C$'s order.
*/

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "device/gpu.h"
#include "device/tensor_core.h"

#define STEP_KEYS 32  /* keys of a step: four groups of 8 */
#define STAGE_KEYS 64 /* keys of a stage (chapter 7's TILED_STAGE_KEYS): a row of V^T */
#define MAX_HD 64     /* head sizes 8, 16, 32, 64 */

// TODO: VALUES_T_STRIDE, the floats from one feature row of the stage to the next
#define VALUES_T_STRIDE 64
// TODO end

/* A group's weights as A of P V, from its C fragment c, within the lane. */
__host__ __device__ void weights_as_a(const float (&c)[4], float (&a)[4])
{
    // TODO: a[e] from c[i]: A's rows g and g + 8 at k = t and t + 4, no value leaving the lane
    a[0] = c[0], a[1] = c[1], a[2] = c[2], a[3] = c[3];
    // TODO end
}

/* The offset of lane (g, t)'s pair b0, b1 for key group kg and feature
 * block dn, in floats from the step's first key in feature row 0. */
__host__ __device__ int value_pair(int kg, int dn, int g, int t)
{
    // TODO: where b0 (then b1) of lane (g, t) lies, for key group kg and feature block dn
    (void)kg, (void)dn, (void)g, (void)t;
    return 0;
    // TODO end
}

/* One step of O = P V for one warp: P (16 x 32, row-major) handed to each
 * lane in C's pattern, as the scores would leave it; V (32 x HD,
 * row-major) copied transposed into the stage; O (16 x HD) written out. */
template <int HD>
__global__ void value_pairs_step(float *o_out, const float *p, const float *v)
{
    extern __shared__ float4 value_pairs_stage[]; /* HD rows of VALUES_T_STRIDE floats */
    float *stage = reinterpret_cast<float *>(value_pairs_stage);
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    for (int i = lane; i < HD * STEP_KEYS; i += 32) {
        const int f = i / STEP_KEYS, key = i % STEP_KEYS;
        stage[f * VALUES_T_STRIDE + key] = v[key * HD + f];
    }
    __syncwarp();
    float o[HD / 8][4] = {};
    for (int kg = 0; kg < 4; kg++) {
        float c[4], w[4];
        for (int i = 0; i < 4; i++) /* c[i] = S[g + 8 (i / 2)][2t + i % 2] of group kg */
            c[i] = p[(g + 8 * (i / 2)) * STEP_KEYS + 8 * kg + 2 * t + i % 2];
        weights_as_a(c, w);
        const uint32_t a[4] = {__float_as_uint(w[0]), __float_as_uint(w[1]), __float_as_uint(w[2]),
                               __float_as_uint(w[3])};
#pragma unroll
        for (int dn = 0; dn < HD / 8; dn++) {
            const float2 b = *reinterpret_cast<const float2 *>(stage + value_pair(kg, dn, g, t));
            mma_tf32(o[dn], a, __float_as_uint(b.x), __float_as_uint(b.y));
        }
    }
    for (int dn = 0; dn < HD / 8; dn++)
        for (int i = 0; i < 4; i++)
            o_out[(g + 8 * (i / 2)) * HD + 8 * dn + 2 * t + i % 2] = o[dn][i];
}

/* A float in [-1, 1) that TF32 holds exactly (13 low bits zero), so that
 * the tensor cores multiply it without a cut. */
static float tf32_exact(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((int)(*state >> 21) - 1024) / 1024.0f;
}

/* The step at head size HD on the GPU, against the product in double: the
 * largest error relative to the largest |O|. */
template <int HD>
static double run_step(unsigned *state)
{
    float p[16 * STEP_KEYS], v[STEP_KEYS * HD], o[16 * HD];
    for (float &x : p)
        x = tf32_exact(state);
    for (float &x : v)
        x = tf32_exact(state);
    float *p_d, *v_d, *o_d;
    CUDA_CHECK(cudaMalloc(&p_d, sizeof p));
    CUDA_CHECK(cudaMalloc(&v_d, sizeof v));
    CUDA_CHECK(cudaMalloc(&o_d, sizeof o));
    CUDA_CHECK(cudaMemcpy(p_d, p, sizeof p, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(v_d, v, sizeof v, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(o_d, 0xff, sizeof o)); /* NaN until written */
    const size_t bytes = (size_t)HD * VALUES_T_STRIDE * sizeof(float);
    gpu_allow_shared_memory((const void *)value_pairs_step<HD>, bytes);
    value_pairs_step<HD><<<1, 32, bytes>>>(o_d, p_d, v_d);
    LAUNCH_CHECK();
    CUDA_CHECK(cudaMemcpy(o, o_d, sizeof o, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(p_d));
    CUDA_CHECK(cudaFree(v_d));
    CUDA_CHECK(cudaFree(o_d));
    double worst = 0.0, largest = 0.0;
    for (int r = 0; r < 16; r++)
        for (int f = 0; f < HD; f++) {
            double exact = 0.0;
            for (int key = 0; key < STEP_KEYS; key++)
                exact += (double)p[r * STEP_KEYS + key] * v[key * HD + f];
            const double error = fabs(o[r * HD + f] - exact);
            worst = error > worst || error != error ? error : worst;
            largest = fabs(exact) > largest ? fabs(exact) : largest;
        }
    return worst / largest;
}

/* Runs the step at d = 8 to 64 on the GPU: exit 0 when every O is right
 * (within FP32's rounding of 32 exact products), 1 otherwise, 77 with no GPU. */
int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    gpu_require();
    const gpu_info gpu = gpu_query();
    char why[256];
    if (gpu_lacks_capability(&gpu, 8, 0, 0, why, sizeof why)) {
        printf("%s: TF32's mma.sync needs sm_80 or later\n", why);
        return 1;
    }
    unsigned state = 2024;
    const double errors[4] = {run_step<8>(&state), run_step<16>(&state), run_step<32>(&state),
                              run_step<MAX_HD>(&state)};
    int wrong = 0;
    for (int k = 0; k < 4; k++) {
        const int ok = errors[k] <= 1e-6; /* NaN fails too */
        printf("d = %2d: one warp's P V with your fragments and pairs, error %.2g of the largest "
               "output: %s\n", 8 << k, errors[k], ok ? "right" : "WRONG");
        wrong |= !ok;
    }
    return wrong;
}
