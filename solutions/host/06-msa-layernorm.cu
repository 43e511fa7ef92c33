/* solutions/host/06-msa-layernorm.cu - the host check of exercise 6.2:
 * merge_moments, used the way the kernel uses it (each lane's fold, then
 * the butterfly across the warp), on rows whose mean dwarfs their spread,
 * and on rows drawn from the grading's seed (any width up to 128, means
 * with every bit of their significand drawn, spreads down to a variance
 * near LayerNorm's epsilon, 1e-5), against the moments in double. */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define merge_moments PROBED(merge_moments)

/* The kernel's phase 1 for one row, on the CPU: lane l folds features
 * l, l + 32, ...; then five rounds where lane l merges with lane l ^ offset. */
static moments warp_of_lanes(const float *row, int D)
{
    moments lane[32];
    for (int l = 0; l < 32; l++) {
        moments mine = {0.0f, 0.0f, 0.0f};
        for (int i = l; i < D; i += 32)
            mine = merge_moments(mine, moments_of(row[i]));
        lane[l] = mine;
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        moments next[32];
        for (int l = 0; l < 32; l++)
            next[l] = merge_moments(lane[l], lane[l ^ offset]);
        for (int l = 0; l < 32; l++)
            lane[l] = next[l];
    }
    return lane[0];
}

int host_check_main(int, char **)
{
    moments empty = {0.0f, 0.0f, 0.0f}, one = moments_of(3.5f);
    const moments left = merge_moments(empty, one), right = merge_moments(one, empty);
    const int empties = left.count == 1 && left.mean == 3.5f && left.m2 == 0 &&
                        right.count == 1 && right.mean == 3.5f && right.m2 == 0;
    host_check(empties, "an empty side",
               empties ? "merging with an empty moments changes nothing"
                       : "merge(empty, {1, 3.5, 0}) is {%g, %g, %g} and merge({1, 3.5, 0}, "
                         "empty) {%g, %g, %g}",
               left.count, left.mean, left.m2, right.count, right.mean, right.m2);

    int widths[5 + 40] = {32, 48, 64, 96, 128};
    double means[5 + 40] = {0.0, 1.0, 100.0, 1e4, -3e3};
    double spreads[3 + 40] = {1.0, 1e-1, 1e-2};
    unsigned long long drawn = host_seed();
    unsigned state = 2024;
    double worst = 0.0;
    char why[300] = "rows";
    /* 40 rows drawn: each a width, a mean and a spread of its own */
    for (int k = 0; k < 40; k++) {
        widths[5 + k] = (int)host_draw(&drawn, 1, 128);
        means[5 + k] = host_full_float(&drawn, -2, 12);
        spreads[3 + k] = pow(10.0, -0.01 * (double)host_draw(&drawn, 0, 250)); /* 3e-3 to 1 */
    }
    for (int w = 0; w < 45; w++)
        for (int m = 0; m < 45; m++)
            for (int p = 0; p < 43; p++) {
                /* the fixed rows crossed, and each drawn row on its own */
                const int fixed = w < 5 && m < 5 && p < 3;
                const int own = w >= 5 && m == w && p == w - 2;
                if (!fixed && !own)
                    continue;
                const int D = widths[w];
                /* a spread a float can hold beside its mean: a thousand units in its
                 * last place; the one-pass formula already fails at this ratio */
                if (spreads[p] < 1e-4 * fabs(means[m]))
                    continue;
                float row[128];
                for (int i = 0; i < D; i++) {
                    state = state * 1664525u + 1013904223u;
                    const double unit = (state >> 8) * (2.0 / 16777216.0) - 1.0;
                    row[i] = (float)(means[m] + spreads[p] * unit);
                }
                double mean = 0.0, m2 = 0.0;
                for (int i = 0; i < D; i++)
                    mean += row[i];
                mean /= D;
                for (int i = 0; i < D; i++)
                    m2 += (row[i] - mean) * (row[i] - mean);
                const moments got = warp_of_lanes(row, D);
                /* LayerNorm divides by the standard deviation: its relative error
                 * matters. The mean is as good as a float can hold it: a few units
                 * in its last place, which at a mean of 1e4 is 1e-3, however small
                 * the spread. */
                const double deviation = sqrt(m2 / D);
                const double spread_error =
                    deviation > 0 ? fabs(sqrt(fmax(got.m2, 0.0f) / D) - deviation) / deviation
                                  : fabs(got.m2) * 1e30; /* one value: m2 exactly 0 */
                const double mean_error = fabs(got.mean - mean) /
                                          (8 * fabs(mean) * 0x1p-24 + 1e-3 * deviation);
                const double error = fmax(spread_error / 1e-2, mean_error);
                if (!(error <= worst) || got.count != D) {
                    worst = got.count != D ? INFINITY : (error == error ? error : INFINITY);
                    snprintf(why, sizeof why, "D=%d, mean %g, spread %g: count %g, mean %.9g, "
                             "standard deviation %.6g; in double %.9g and %.6g", D, means[m],
                             spreads[p], got.count, got.mean, sqrt(fmax(got.m2, 0.0f) / D), mean,
                             sqrt(m2 / D));
                }
            }
    if (worst <= 1.0)
        host_check(1, "merge_moments", "the standard deviation within 1%% and the mean within "
                   "a few units of its last place, at D = 32 to 128, means up to 1e4 times "
                   "their spread, and 40 rows drawn (D 1 to 128, full-significand means, "
                   "variances down to 1e-5)");
    else
        host_check(0, "merge_moments", "%s", why);
    return host_check_status();
}
