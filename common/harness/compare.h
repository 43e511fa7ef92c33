/* compare.h - the referee's verdict: a GPU result against the CPU reference.
 *
 * A result passes when no compared element is NaN or infinite (outputs are
 * poisoned with NaN before every checked run, so an element the kernel never
 * wrote shows up here) and its relative L2 error
 *     ||got - want||_2 / ||want||_2
 * is strictly under the tolerance (1e-5 for float32 kernels, 2e-3 for TF32).
 */
#ifndef WORKBOOK_COMPARE_H
#define WORKBOOK_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOLERANCE_FP32 1e-5
#define TOLERANCE_TF32 2e-3
#define COMPARE_MAX_REPORTED 5

typedef enum {
    COMPARE_ALL,            /* every element */
    COMPARE_LOWER_TRIANGLE  /* a stack of n x n matrices, only j <= i counts */
} compare_region;

typedef struct {
    compare_region region;
    size_t matrix_dim;      /* n, for COMPARE_LOWER_TRIANGLE */
    double tolerance;
} compare_spec;

typedef struct {
    int passed;
    size_t compared;        /* elements inside the region */
    size_t not_finite;      /* NaN or Inf among them (unwritten ones are NaN) */
    size_t reported[COMPARE_MAX_REPORTED]; /* first few indices of NaN/Inf */
    int reported_count;
    double max_abs_error;   /* over finite elements */
    size_t max_abs_index;
    double rel_l2_error;    /* over finite elements; infinite if want is 0 and got is not */
    double tolerance;
} compare_result;

compare_result compare_results(const float *got, const double *want, size_t count,
                               compare_spec spec);

/* One line: "PASS rel_l2 3.1e-07 max_abs 2.4e-06" or "FAIL ..." with reasons. */
void compare_print(const compare_result *result, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
