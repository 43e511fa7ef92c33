/* solutions/host/01-cublas-rows-packed.cu - the host check of exercise 1.1:
 * rows_call's arguments run through an emulation of cuBLAS's column-major
 * strided batched product on the CPU, with cuBLAS's own argument rules, and
 * compared with the referee, at fixed sizes and three drawn from the
 * grading's seed; the calls may write no column j >= first_row + rows, the
 * masked scores the exercise says they leave alone. */
#include EXERCISE_FILE
#undef main

#include <math.h>

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define rows_call PROBED(rows_call)

/* C_p = alpha op(A_p) op(B_p), exactly as cublasGemmStridedBatchedEx defines
 * it (beta = 0), in double. Returns 0, or 1 with why (a refused argument,
 * an address outside a buffer). Adds the multiply-adds it did to *work. */
static int emulate(const gemm_call *c, const float *inp, size_t inp_count, float *preatt,
                   size_t out_count, double *work, char *why, size_t capacity)
{
    const int a_rows = c->transa == CUBLAS_OP_N ? c->m : c->k; /* A as stored */
    const int b_rows = c->transb == CUBLAS_OP_N ? c->k : c->n;
    if ((c->transa != CUBLAS_OP_N && c->transa != CUBLAS_OP_T) ||
        (c->transb != CUBLAS_OP_N && c->transb != CUBLAS_OP_T)) {
        snprintf(why, capacity, "transa and transb are CUBLAS_OP_N or CUBLAS_OP_T here");
        return 1;
    }
    if (c->m < 0 || c->n < 0 || c->k < 0 || c->batch < 0) {
        snprintf(why, capacity, "m=%d n=%d k=%d batch=%d: cuBLAS refuses a negative size", c->m,
                 c->n, c->k, c->batch);
        return 1;
    }
    if (c->lda < (a_rows > 1 ? a_rows : 1) || c->ldb < (b_rows > 1 ? b_rows : 1) ||
        c->ldc < (c->m > 1 ? c->m : 1)) {
        snprintf(why, capacity, "lda=%d ldb=%d ldc=%d: cuBLAS refuses a leading dimension below "
                 "the rows as stored (%d, %d, %d)", c->lda, c->ldb, c->ldc, a_rows, b_rows, c->m);
        return 1;
    }
    for (int p = 0; p < c->batch; p++)
        for (int j = 0; j < c->n; j++)
            for (int i = 0; i < c->m; i++) {
                double sum = 0.0;
                for (int l = 0; l < c->k; l++) {
                    const long long a = c->a_offset + p * c->stride_a +
                        (c->transa == CUBLAS_OP_N ? i + (long long)l * c->lda
                                                  : l + (long long)i * c->lda);
                    const long long b = c->b_offset + p * c->stride_b +
                        (c->transb == CUBLAS_OP_N ? l + (long long)j * c->ldb
                                                  : j + (long long)l * c->ldb);
                    if (a < 0 || a >= (long long)inp_count || b < 0 || b >= (long long)inp_count) {
                        snprintf(why, capacity, "batch %d reads inp[%lld] (A) or inp[%lld] (B), "
                                 "outside its %zu floats", p, a, b, inp_count);
                        return 1;
                    }
                    sum += (double)inp[a] * inp[b];
                }
                const long long at = c->c_offset + p * c->stride_c + i + (long long)j * c->ldc;
                if (at < 0 || at >= (long long)out_count) {
                    snprintf(why, capacity, "batch %d writes preatt[%lld], outside its %zu floats",
                             p, at, out_count);
                    return 1;
                }
                preatt[at] = (float)(c->alpha * sum);
            }
    *work += (double)c->m * c->n * c->k * c->batch;
    return 0;
}

/* Every call of the launcher for one size, emulated and checked. */
static int check_size(triangle_size s, char *why, size_t capacity, double *share)
{
    const size_t inp_count = triangle_input_count(s), out_count = triangle_output_count(s);
    float *inp = (float *)malloc(inp_count * sizeof(float));
    float *got = (float *)malloc(out_count * sizeof(float));
    double *want = (double *)malloc(out_count * sizeof(double));
    unsigned state = 12345;
    for (size_t k = 0; k < inp_count; k++) {
        state = state * 1664525u + 1013904223u;
        inp[k] = (float)((state >> 8) * (2.0 / 16777216.0) - 1.0);
    }
    for (size_t k = 0; k < out_count; k++)
        got[k] = NAN;
    triangle_reference(want, inp, s);
    int failed = 0;
    double work = 0.0, rows_work = 0.0;
    for (int b = 0; b < s.B && !failed; b++)
        for (int first = 0; first < s.T && !failed; first += ROWS_BLOCK) {
            gemm_call call;
            memset(&call, 0, sizeof call);
            rows_call(s, b, first, &call);
            char detail[200];
            if (emulate(&call, inp, inp_count, got, out_count, &work, detail, sizeof detail)) {
                snprintf(why, capacity, "B=%d T=%d C=%d NH=%d, call b=%d first_row=%d: %s", s.B,
                         s.T, s.NH * s.HS, s.NH, b, first, detail);
                failed = 1;
            }
            const int rows = s.T - first < ROWS_BLOCK ? s.T - first : ROWS_BLOCK;
            rows_work += (double)(first + rows) * rows * s.HS * s.NH;
        }
    for (int z = 0; z < s.B * s.NH && !failed; z++)
        for (int i = 0; i < s.T && !failed; i++)
            for (int j = 0; j <= i && !failed; j++) {
                const size_t at = ((size_t)z * s.T + i) * s.T + j;
                if (!(fabs(got[at] - want[at]) <= 1e-5 * (1.0 + fabs(want[at])))) {
                    snprintf(why, capacity, "B=%d T=%d C=%d NH=%d: preatt[b=%d][h=%d][i=%d][j=%d] "
                             "is %g, the referee says %g", s.B, s.T, s.NH * s.HS, s.NH,
                             z / s.NH, z % s.NH, i, j, got[at], want[at]);
                    failed = 1;
                }
            }
    const double square = (double)s.B * s.NH * s.T * s.T * s.HS;
    *share = work / square;
    if (!failed && work > rows_work * 1.000001) {
        snprintf(why, capacity, "B=%d T=%d C=%d NH=%d: the calls compute %.0f%% of the square, "
                 "more than the %.0f%% the blocks of rows see", s.B, s.T, s.NH * s.HS, s.NH,
                 100 * work / square, 100 * rows_work / square);
        failed = 2;
    }
    /* the columns the statement says stay unwritten: j >= first_row + rows of i's block */
    for (int z = 0; z < s.B * s.NH && !failed; z++)
        for (int i = 0; i < s.T && !failed; i++) {
            const int first = i / ROWS_BLOCK * ROWS_BLOCK;
            const int end = first + (s.T - first < ROWS_BLOCK ? s.T - first : ROWS_BLOCK);
            for (int j = end; j < s.T && !failed; j++)
                if (!isnan(got[((size_t)z * s.T + i) * s.T + j])) {
                    snprintf(why, capacity, "B=%d T=%d C=%d NH=%d: the calls write "
                             "preatt[b=%d][h=%d][i=%d][j=%d], a key the block of rows %d..%d "
                             "does not see (write only j < first_row + rows)", s.B, s.T,
                             s.NH * s.HS, s.NH, z / s.NH, z % s.NH, i, j, first, end - 1);
                    failed = 1;
                }
        }
    free(inp);
    free(got);
    free(want);
    return failed;
}

int host_check_main(int, char **)
{
    triangle_size sizes[8] = {{1, 128, 1, 32}, {2, 256, 2, 16}, {1, 200, 3, 8},
                              {3, 384, 2, 24}, {1, 300, 1, 64}};
    unsigned long long state = host_seed();
    for (int k = 5; k < 8; k++) {
        const triangle_size s = {(int)host_draw(&state, 1, 2), (int)host_draw(&state, 1, 400),
                                 (int)host_draw(&state, 1, 3), (int)host_draw(&state, 1, 40)};
        sizes[k] = s;
    }
    int values_failed = 0, work_failed = 0;
    char why[400] = "";
    double share = 0.0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && !values_failed && !work_failed; k++) {
        const int status = check_size(sizes[k], why, sizeof why, &share);
        values_failed = status == 1;
        work_failed = status == 2;
    }
    if (values_failed)
        host_check(0, "emulated cuBLAS calls", "%s", why);
    else
        host_check(1, "emulated cuBLAS calls", "every kept score right at 8 sizes, T = 128 to "
                   "384 (200 and 300 end in a block of fewer rows) and 3 drawn, the keys no "
                   "block sees unwritten");
    if (work_failed)
        host_check(0, "work", "%s", why);
    else if (!values_failed)
        host_check(1, "work", "%.0f%% of the square at T = 300: the keys the blocks see",
                   100 * share);
    return host_check_status();
}
