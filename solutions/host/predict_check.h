/* solutions/host/predict_check.h - what the host checks of the triangle's
 * "predict, then measure" exercises share (5.3 and 8.3): counts compared
 * with the referee's, predictions shown, and `NAME.host predict KERNEL
 * B=.. T=.. C=.. NH=..`, which prints "predicted_ms X" for the grader.
 * Include after the exercise (it calls its predicted_ms) and host_check.h. */
#ifndef WORKBOOK_PREDICT_CHECK_H
#define WORKBOOK_PREDICT_CHECK_H

#include <math.h>

/* A count against its referee at each size, within a millionth. */
static void check_count(const char *name, double (*count)(triangle_size),
                        double (*referee)(triangle_size), const triangle_size *sizes, int n)
{
    for (int k = 0; k < n; k++) {
        const double got = count(sizes[k]), want = referee(sizes[k]);
        if (!(fabs(got - want) <= 1e-6 * want)) {
            host_check(0, name, "%.6g at B=%d T=%d C=%d NH=%d; the referee counts %.6g",
                       got, sizes[k].B, sizes[k].T, sizes[k].NH * sizes[k].HS, sizes[k].NH,
                       want);
            return;
        }
    }
    host_check(1, name, "right at %d sizes (%.4g at B=%d T=%d C=%d NH=%d)", n, count(sizes[0]),
               sizes[0].B, sizes[0].T, sizes[0].NH * sizes[0].HS, sizes[0].NH);
}

/* Each kernel's prediction at each of the first n sizes: positive and finite. */
static void check_predictions(const char *const *kernels, int kernel_count,
                              const triangle_size *sizes, int n)
{
    char shown[400] = "";
    size_t used = 0;
    for (int k = 0; k < kernel_count; k++)
        for (int i = 0; i < n; i++) {
            const double ms = predicted_ms(kernels[k], sizes[i]);
            if (!(ms > 0 && ms < 1e9)) {
                host_check(0, "prediction", "predicted_ms(%s, T=%d) is %g: no prediction",
                           kernels[k], sizes[i].T, ms);
                return;
            }
            used += (size_t)snprintf(shown + used, used < sizeof shown ? sizeof shown - used : 0,
                                     "%s%s %.4g ms at T=%d", used ? ", " : "", kernels[k], ms,
                                     sizes[i].T);
        }
    host_check(1, "prediction", "%s", shown);
}

/* predict KERNEL B=.. T=.. C=.. NH=..: one line for the grader. */
static int predict_main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "predict") != 0) {
        fprintf(stderr, "usage: %s [predict KERNEL B=.. T=.. C=.. NH=..]\n", argv[0]);
        return 2;
    }
    const long NH = host_size(argc, argv, 3, "NH", 12);
    const triangle_size s = {(int)host_size(argc, argv, 3, "B", 8),
                             (int)host_size(argc, argv, 3, "T", 1024), (int)NH,
                             (int)(host_size(argc, argv, 3, "C", 768) / NH)};
    printf("predicted_ms %.6g\n", predicted_ms(argv[2], s));
    return 0;
}

#endif
