// chapters/01-race/race.cuh - Chapter 1: the race, and the champions we race.
//
// Build, check and time it from the repository root:
//
//   make chapter1                     # the cuBLAS champions, checked and timed
//   build/chapter1 T=4096 --kernel cublas-rows

/*md
# The race

## What time must our kernels beat?

This workbook is about one question: how does a fast GPU kernel come to be?
We answer it by racing. The champion is cuBLAS, NVIDIA's matrix library,
tuned for years by people who know the hardware better than anyone. The
contenders are kernels we write ourselves, one chapter at a time, each a
small step from the one before. We do not expect to beat cuBLAS at its own
game. We expect to beat it at ours, because we know something about the
problem that cuBLAS cannot be told. This chapter sets the race up: the
problem, the floors no kernel can pass, the referee that checks every
result and the champions. Its own question is the race's first: how fast
is cuBLAS at our problem, and so what time must our kernels beat?

## The problem

Causal self-attention starts by comparing every token with every token
before it. A layer receives, for each of $B$ sequences of $T$ tokens, a
query, a key and a value vector per head, packed side by side in one
tensor `inp` of shape $(B, T, 3, NH, HS)$: $NH$ heads of $HS$ numbers each,
so one token carries $3C$ floats with $C = NH \cdot HS$. The scores are

$$
\mathrm{preatt}[b][h][i][j] = \frac{Q_{b,i,h} \cdot K_{b,j,h}}{\sqrt{HS}},
\qquad j \le i,
$$

one $T \times T$ matrix per sequence and head, of which only the lower
triangle matters: token $i$ may look at token $j$ only if $j$ came first.
The causal mask throws the upper triangle away. (The name `preatt`,
"pre-attention", is llm.c's [@llmc]: the scores before the softmax turns
them into attention weights.)

Our default size is GPT-2 small's: $B = 8$, $T = 1024$, $C = 768$,
$NH = 12$, so $HS = 64$. Each kept score is a dot product of 64 pairs, and
there are $B \cdot NH \cdot T(T+1)/2 \approx 50.4$ million of them: {{count_giga|B*C*T*(T+1)|cublas-permute|B=8 T=1024 C=768 NH=12}}
GFLOP of useful work. That is the number every GFLOP/s in this book is
computed from, whoever computes the rest.

## Two floors

Before writing a line of CUDA, count. A kernel must at least read $Q$ and
$K$ once (2 of the 3 parts of `inp`: 50 MB) and write the kept half of
`preatt` once (201.5 MB). The memory of the {{gpu|cublas-permute|B=8 T=1024 C=768 NH=12}}
moves about {{card_memory_tbs|cublas-permute|B=8 T=1024 C=768 NH=12}} TB/s, so moving those 252 MB takes at least
{{floor_memory_ms|cublas-permute|B=8 T=1024 C=768 NH=12}} ms. Its
{{card_sms|cublas-permute|B=8 T=1024 C=768 NH=12}} multiprocessors do
{{card_fp32_lanes|cublas-permute|B=8 T=1024 C=768 NH=12}} fused multiply-adds each per
clock at up to {{card_clock_ghz|cublas-permute|B=8 T=1024 C=768 NH=12}} GHz,
{{card_fp32_tflops|cublas-permute|B=8 T=1024 C=768 NH=12}} TFLOP/s in FP32, so {{count_giga|B*C*T*(T+1)|cublas-permute|B=8 T=1024 C=768 NH=12}} GFLOP
takes at least {{floor_fp32_ms|cublas-permute|B=8 T=1024 C=768 NH=12}} ms (these figures
are derived from {{card_source|cublas-permute|B=8 T=1024 C=768 NH=12}}). On this card
the floor of {{larger_floor|cublas-permute|B=8 T=1024 C=768 NH=12}} is the larger. On
the H100 and the H200 this book was measured on, it is the arithmetic: a compute-bound
problem, if we can feed it. Every chapter compares its time with these floors.

## The referee

A fast wrong kernel is worthless, so every result is checked before it is
timed. The referee (`common/problems/triangle_reference.c`) computes every kept score
on the CPU in double precision, the slow and obvious way. A GPU result
passes when its relative error
$\lVert \text{got} - \text{want} \rVert_2 / \lVert \text{want} \rVert_2$
is below $10^{-5}$ and no kept element is NaN. One float32 rounding errs
by at most $2^{-24} \approx 6 \times 10^{-8}$ of the value, so the
tolerance allows about 170 of them; the FP32 kernels of these chapters
measure {{rel_l2|naive|B=8 T=1024 C=768 NH=12}} at the default size. Before each checked run the output is filled with NaN, so a score
the kernel forgot to write cannot pass by luck. Inputs are random numbers
from a seeded generator; the seed is printed, so any failure can be
replayed.

## The champion

cuBLAS multiplies matrices. To it our problem is $B \cdot NH$ independent
products $Q_h K_h^\top$, each $T \times HS$ by $HS \times T$. It cannot skip
the upper triangle, so it does twice the useful work: {{count_giga|2*B*C*T*T|cublas-permute|B=8 T=1024 C=768 NH=12}} GFLOP to our {{count_giga|B*C*T*(T+1)|cublas-permute|B=8 T=1024 C=768 NH=12}}.

The textbook way to call it first rearranges `inp`, whose heads are
interleaved token by token, into one contiguous $(T, HS)$ block per head,
then runs one *strided batched* product over all $B \cdot NH$ heads.
*/

#pragma once
#include <math.h>

#include "problems/triangle.h"

/*md
The rearranging is a kernel of its own, one thread per float: it reads
`inp` and writes $Q$ and $K$ in head-major order into a scratch buffer.
*/

static __global__ void permute_queries_and_keys(float *q, float *k, const float *inp, int B, int T,
                                                int NH, int HS)
{
    long index = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long total = (long)B * NH * T * HS;
    if (index >= total)
        return;
    int d = (int)(index % HS);
    int t = (int)((index / HS) % T);
    int h = (int)((index / ((long)HS * T)) % NH);
    int b = (int)(index / ((long)HS * T * NH));
    long C = (long)NH * HS;
    const float *token = inp + ((long)b * T + t) * 3 * C + (long)h * HS + d;
    q[index] = token[0];
    k[index] = token[C];
}

static inline void launch_permute(const triangle_args *args)
{
    triangle_size s = args->size;
    long total = (long)s.B * s.NH * s.T * s.HS;
    float *q = args->scratch, *k = args->scratch + total;
    int threads = 256;
    permute_queries_and_keys<<<(unsigned)((total + threads - 1) / threads), threads, 0,
                               args->stream>>>(q, k, args->inp, s.B, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

/*md
cuBLAS speaks column-major, like Fortran. Our row-major
`preatt[i][j]` is, read column-major, the matrix $P$ with $P(j, i)$, and
$P = K^\top Q$ where $Q$ and $K$ are read as $HS \times T$ column-major
matrices. So the call asks for $K^\top$ (`CUBLAS_OP_T`) times $Q$
(`CUBLAS_OP_N`), with $1/\sqrt{HS}$ folded into $\alpha$.

One detail decides whether the race is fair: the compute type. On Hopper,
cuBLAS can run FP32 products on the tensor cores in TF32, which keeps only
10 bits of each mantissa. That is faster and less precise, and it must never
happen by accident. `CUBLAS_COMPUTE_32F` asks for true FP32 arithmetic; the
TF32 run asks for `CUBLAS_COMPUTE_32F_FAST_TF32` and carries its own name,
`cublas-tf32`, and its own tolerance ($2 \times 10^{-3}$).
*/

static inline void scores_from_permuted(const triangle_args *args, cublasComputeType_t compute)
{
    triangle_size s = args->size;
    long per_head = (long)s.T * s.HS;
    const float *q = args->scratch, *k = args->scratch + (long)s.B * s.NH * per_head;
    float alpha = 1.0f / sqrtf((float)s.HS), beta = 0.0f;
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, s.T, s.T, s.HS, &alpha, k, CUDA_R_32F, s.HS,
        per_head, q, CUDA_R_32F, s.HS, per_head, &beta, args->preatt, CUDA_R_32F, s.T,
        (long long)s.T * s.T, s.B * s.NH, compute, CUBLAS_GEMM_DEFAULT));
}

static inline void launch_cublas_permute(const triangle_args *args)
{
    launch_permute(args);
    scores_from_permuted(args, CUBLAS_COMPUTE_32F);
}

static inline void launch_cublas_tf32(const triangle_args *args)
{
    launch_permute(args);
    scores_from_permuted(args, CUBLAS_COMPUTE_32F_FAST_TF32);
}

/*md
The permute costs a trip through memory. cuBLAS can skip it: a matrix's
leading dimension may be larger than its height, so it can read head $h$'s
queries in place, $3C$ floats apart from one token to the next. Within one
sequence the heads sit $HS$ floats apart, which is a batch stride; across
sequences they do not, so this champion makes one strided batched call per
sequence.
*/

static inline void launch_cublas_direct(const triangle_args *args)
{
    triangle_size s = args->size;
    long C = (long)s.NH * s.HS;
    float alpha = 1.0f / sqrtf((float)s.HS), beta = 0.0f;
    for (int b = 0; b < s.B; b++) {
        const float *q = args->inp + (long)b * s.T * 3 * C;
        const float *k = q + C;
        float *out = args->preatt + (long)b * s.NH * s.T * s.T;
        CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, s.T, s.T, s.HS, &alpha, k, CUDA_R_32F,
            (int)(3 * C), s.HS, q, CUDA_R_32F, (int)(3 * C), s.HS, &beta, out, CUDA_R_32F, s.T,
            (long long)s.T * s.T, s.NH, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    }
}

/*md
Both champions compute the whole square, the masked half included. The
strongest honest way to call cuBLAS knows the mask too: after the permute,
cut the queries into blocks of 128 rows, and multiply each block only by the
keys it can see, keys $0$ to $128(r + 1) - 1$ for block $r$. That is one
strided batched product per block of rows, $T/128$ calls in all, over
$\sum_r 128(r+1) \cdot 128 = 36/64$ of the square at $T = 1024$. The race
calls it `cublas-rows`. It is still cuBLAS doing dense products, only fewer
of them; the upper triangle of each diagonal block is computed and ignored.
*/

#define ROWS_BLOCK 128 /* query rows per cuBLAS call of cublas-rows */

// book:changes chapters/01-race/race.cuh scores_from_permuted
static inline void rows_from_permuted(const triangle_args *args, cublasComputeType_t compute)
{
    triangle_size s = args->size;
    long per_head = (long)s.T * s.HS;
    const float *q = args->scratch, *k = args->scratch + (long)s.B * s.NH * per_head;
    float alpha = 1.0f / sqrtf((float)s.HS), beta = 0.0f;
    for (int first = 0; first < s.T; first += ROWS_BLOCK) {
        const int rows = s.T - first < ROWS_BLOCK ? s.T - first : ROWS_BLOCK;
        const int keys = first + rows; /* every key j <= i of these rows */
        CUBLAS_CHECK(cublasGemmStridedBatchedEx(
            args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, keys, rows, s.HS, &alpha, k, CUDA_R_32F,
            s.HS, per_head, q + (long)first * s.HS, CUDA_R_32F, s.HS, per_head, &beta,
            args->preatt + (long)first * s.T, CUDA_R_32F, s.T, (long long)s.T * s.T, s.B * s.NH,
            compute, CUBLAS_GEMM_DEFAULT));
    }
}

static inline void launch_cublas_rows(const triangle_args *args)
{
    launch_permute(args);
    rows_from_permuted(args, CUBLAS_COMPUTE_32F);
}

/*md
## How our kernels will cover the triangle

cuBLAS tiles the whole square. Our kernels will tile only the triangle. The
output of one head is cut into square tiles, one thread block each, laid out
as a grid: `blockIdx.x` the column of tiles (keys), `blockIdx.y` the row
(queries), `blockIdx.z` the sequence and head. A block whose column is right
of its row holds only masked scores and returns before doing anything; a
block on the diagonal computes its tile and may skip the masked half; every
other block computes a full tile. With $T/128 = 8$ tiles a side, 36 of the
64 blocks of each head have work, and the 28 others cost a launch and an
exit. That is how our kernels skip half of cuBLAS's arithmetic.

{{figure|tile-grid}}

## The race, measured

How every time in this book is taken (`common/harness/timing.cu`): after
the check, the kernel runs three times to warm up, then a number of
repetitions (50 by default, `--reps N`; `make bench`, which measured the
book's rows, uses 30). Before each repetition a `cudaMemsetAsync` writes a
buffer twice the size of the L2 cache, so no input is still cached from
the repetition before; two CUDA events on the stream bracket the launch.
The tables give the median of the repetitions, the CSV also their minimum
and maximum.

On the {{gpu|cublas-rows|B=8 T=1024 C=768 NH=12}}, at the default size
(measured {{date|cublas-rows|B=8 T=1024 C=768 NH=12}}):

| champion | what it computes | median ms | share of its peak |
|---|---|---:|---:|
| `cublas-permute` | a permute, then every score of the square | {{median_ms|cublas-permute|B=8 T=1024 C=768 NH=12}} | {{peak_pct|cublas-permute|B=8 T=1024 C=768 NH=12}} % (FP32) |
| `cublas-direct` | the square, read in place, one call per sequence | {{median_ms|cublas-direct|B=8 T=1024 C=768 NH=12}} | {{peak_pct|cublas-direct|B=8 T=1024 C=768 NH=12}} % (FP32) |
| `cublas-rows` | a permute, then only the keys each block of rows sees | {{median_ms|cublas-rows|B=8 T=1024 C=768 NH=12}} | {{peak_pct|cublas-rows|B=8 T=1024 C=768 NH=12}} % (FP32) |
| `cublas-tf32` | `cublas-permute` on the tensor cores, in TF32 | {{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} | {{peak_pct|cublas-tf32|B=8 T=1024 C=768 NH=12}} % (TF32) |

Every share of peak in this book is taken of the dense work the problem
defines (the {{count_giga|B*C*T*(T+1)|cublas-permute|B=8 T=1024 C=768 NH=12}} GFLOP of the kept scores here, whatever a kernel
computes beside them) against the peak of the engine the kernel runs on:
the FP32 lanes for FP32 kernels, the tensor cores' dense TF32 rate for
TF32 ones. Knowing the mask is worth
{{speedup|cublas-rows|cublas-permute|B=8 T=1024 C=768 NH=12}} times even to
cuBLAS: `cublas-rows` is the fastest champion in FP32. At $T = 4096$,
where the blocks of rows that `cublas-rows` computes cover 33/64 of the square instead of 36/64, it
takes {{median_ms|cublas-rows|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|cublas-permute|B=8 T=4096 C=768 NH=12}} ms for the full square.

The fastest champion of all is `cublas-tf32`,
{{speedup|cublas-tf32|cublas-rows|B=8 T=1024 C=768 NH=12}} times as fast as
`cublas-rows`, because the tensor cores do its arithmetic (chapter 8 shows
how, chapter 9 what TF32 costs in accuracy). It is the race's one baseline:
every speedup over cuBLAS in this book, in the prose, the tables and the
charts, is a speedup over `cublas-tf32`. We choose it because it is the fastest way a
reader could compute the scores without our kernels. The FP32 kernels of
chapters 2 to 7 race it with a handicap, a thousand times more accurate
and on a slower engine; one that comes close has beaten every FP32
champion on the way, and the table above keeps those champions' times.

The race chart of each chapter shows its kernels and every one met
before it, as a speedup over `cublas-tf32` (longer is faster),
with the floors of the engines used so far. Here it holds only the
champions, and the floor of the FP32 lanes that chapters 2 to 7 race on:

{{figure|race-chapter1}}
*/
