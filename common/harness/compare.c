/* compare.c - see compare.h. */
#include "harness/compare.h"

#include <math.h>

static int in_region(size_t index, compare_spec spec)
{
    if (spec.region == COMPARE_ALL)
        return 1;
    size_t n = spec.matrix_dim;
    size_t row = (index / n) % n, col = index % n;
    return col <= row;
}

compare_result compare_results(const float *got, const double *want, size_t count,
                               compare_spec spec)
{
    compare_result result = {0};
    result.tolerance = spec.tolerance;
    double error_squares = 0.0, want_squares = 0.0;

    for (size_t i = 0; i < count; i++) {
        if (!in_region(i, spec))
            continue;
        result.compared++;
        double g = got[i], w = want[i];
        if (!isfinite(g)) {
            if (result.reported_count < COMPARE_MAX_REPORTED)
                result.reported[result.reported_count++] = i;
            result.not_finite++;
            continue;
        }
        double error = fabs(g - w);
        if (error > result.max_abs_error || result.compared == 1) {
            result.max_abs_error = error;
            result.max_abs_index = i;
        }
        error_squares += error * error;
        want_squares += w * w;
    }

    if (want_squares > 0.0)
        result.rel_l2_error = sqrt(error_squares / want_squares);
    else
        result.rel_l2_error = error_squares > 0.0 ? INFINITY : 0.0;

    result.passed = result.compared > 0 && result.not_finite == 0 &&
                    result.rel_l2_error < spec.tolerance;
    return result;
}

void compare_print(const compare_result *result, FILE *out)
{
    fprintf(out, "%s rel_l2 %.2e (tolerance %.0e) max_abs %.2e",
            result->passed ? "PASS" : "FAIL", result->rel_l2_error,
            result->tolerance, result->max_abs_error);
    if (result->compared == 0)
        fprintf(out, "; nothing was compared");
    if (result->not_finite) {
        fprintf(out, "; %zu of %zu elements NaN/Inf or unwritten, first at",
                result->not_finite, result->compared);
        for (int k = 0; k < result->reported_count; k++)
            fprintf(out, " %zu", result->reported[k]);
    }
    fprintf(out, "\n");
}
