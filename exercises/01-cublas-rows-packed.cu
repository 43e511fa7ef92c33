// 01-cublas-rows-packed.cu - exercise 1.1: cuBLAS on the packed input, only the keys each row sees.
//
// exercises/01-cublas-rows-packed.cu is the student's copy, made from
// solutions/01-cublas-rows-packed.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=01-cublas-rows-packed
//   build/exercises/01-cublas-rows-packed B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 1.1: `cublas-rows` without the permute

*Difficulty: medium.* File: `exercises/01-cublas-rows-packed.cu`.

`cublas-direct` reads the packed input in place but computes the whole
square; `cublas-rows` computes only the keys each block of 128 query rows
sees, but permutes first. Combine them: one `cublasGemmStridedBatchedEx`
per sequence $b$ and per block of 128 query rows, over the heads of that
sequence, reading $Q$ and $K$ where they lie in `inp` and writing only the
columns $j$ < `first_row + rows`. The last block may have fewer than 128
rows ($T = 200$ is graded).

You do not write the call: you fill in a `gemm_call`, every argument of
it, in `rows_call`. The launcher passes it to cuBLAS as it is, and the
grader also hands it to a CPU emulation of cuBLAS's column-major strided
batched product, so you get an answer without a GPU.

Hints:

- cuBLAS is column-major: the matrix $X$ with leading dimension `ld` has
  $X(r, c)$ at `X[r + c * ld]`. Row-major `preatt[i][j]` of one head, read
  that way, is $P(j, i)$: a $T \times T$ matrix with leading dimension $T$.
- Which matrix is $K^T$, read column-major from the packed input? Element
  $d$ of key $j$ of head $h$ sits at `(b*T + j) * 3C + C + h*HS + d`. What
  is its leading dimension, what is the stride from one head to the next,
  and so which operation (`CUBLAS_OP_N` or `CUBLAS_OP_T`) turns it into the
  $m \times k$ matrix the product wants?
- `m`, `n` and `k` are the sizes *after* the operations: here the keys the
  block sees, the block's rows and $HS$. cuBLAS refuses a leading dimension
  smaller than the rows of the matrix as stored; so does the emulation.
- The offsets are in floats from the start of `inp` (for `a` and `b`) and
  of `preatt` (for `c`).

Check it with `make grade EX=01-cublas-rows-packed`. The host part emulates
your calls at small sizes: it says which element is wrong, which address
falls outside the buffers and how much of the square your calls compute
(at most what the blocks of rows see). The untouched exercise's calls
multiply nothing.
*/

#include <cublas_v2.h> /* the calls (device/gpu.h may declare only the handle) */
#include <math.h>

#include "problems/triangle.h"

#define ROWS_BLOCK 128 /* query rows per call */

/* One cublasGemmStridedBatchedEx in FP32 (CUBLAS_COMPUTE_32F), beta = 0:
 * C_p = alpha op(A_p) op(B_p) for p = 0 .. batch - 1, where matrix p of A
 * starts at inp + a_offset + p * stride_a (B likewise, C in preatt), and
 * op(A) is m x k, op(B) k x n, C m x n, all column-major. */
typedef struct {
    cublasOperation_t transa, transb;
    int m, n, k;
    float alpha;
    long long a_offset, stride_a;
    int lda;
    long long b_offset, stride_b;
    int ldb;
    long long c_offset, stride_c;
    int ldc;
    int batch;
} gemm_call;

/* The call for sequence b and the query rows first_row .. first_row + rows - 1,
 * rows = min(ROWS_BLOCK, T - first_row): every kept score of those rows, for
 * every head of the sequence. */
__host__ void rows_call(triangle_size s, int b, int first_row, gemm_call *call)
{
    const long long C = (long long)s.NH * s.HS;
    const int rows = s.T - first_row < ROWS_BLOCK ? s.T - first_row : ROWS_BLOCK;
    (void)rows;
    // TODO: every field of *call: P(j, i) = K_j . Q_i / sqrt(HS) for this block
    (void)b, (void)first_row, (void)C;
    call->transa = call->transb = CUBLAS_OP_N;
    call->m = call->n = call->k = 1;
    call->alpha = 0.0f;
    call->a_offset = call->b_offset = call->c_offset = 0;
    call->stride_a = call->stride_b = call->stride_c = 0;
    call->lda = call->ldb = call->ldc = 1;
    call->batch = 1;
    // TODO end
}

static void rows_packed_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    const float beta = 0.0f;
    for (int b = 0; b < s.B; b++)
        for (int first_row = 0; first_row < s.T; first_row += ROWS_BLOCK) {
            gemm_call call;
            rows_call(s, b, first_row, &call);
            CUBLAS_CHECK(cublasGemmStridedBatchedEx(
                args->cublas, call.transa, call.transb, call.m, call.n, call.k, &call.alpha,
                args->inp + call.a_offset, CUDA_R_32F, call.lda, call.stride_a,
                args->inp + call.b_offset, CUDA_R_32F, call.ldb, call.stride_b, &beta,
                args->preatt + call.c_offset, CUDA_R_32F, call.ldc, call.stride_c, call.batch,
                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        }
}

static const triangle_kernel rows_packed_kernel = {NULL, rows_packed_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"cublas-rows-packed", 1, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32},
        &rows_packed_kernel};
    return triangle_chapter_main(argc, argv, "01-cublas-rows-packed", 1,
                                 "exercise 1.1, cuBLAS on the packed input by blocks of rows",
                                 &contender, 1);
}
